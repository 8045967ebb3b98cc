-- Issue 32, part 2: e-mail that reaches people. Every message the platform sends is first a row of
-- mail_messages (the mail outbox), written by the request (inside its transaction when it has
-- one), and sent by the worker after the commit, with retries: no SMTP conversation ever happens
-- inside a database transaction or a request, and a message survives an SMTP server that is down
-- for a while. On the embedded default (no SMTP_URL) the rows are the local outbox the operator
-- reads in the dashboard.

CREATE TABLE mail_messages (
  id               text PRIMARY KEY,
  kind             text NOT NULL,
  to_address       text NOT NULL,
  subject          text NOT NULL,
  text_body        text NOT NULL,
  html_body        text NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  last_error       text,
  created_at       timestamptz NOT NULL,
  sent_at          timestamptz
);
COMMENT ON TABLE mail_messages IS 'The mail outbox: messages to send, drained by the worker (modules/mail). Kept MAIL_RETENTION_DAYS after they were created.';
COMMENT ON COLUMN mail_messages.kind IS 'What the message is (password_reset, email_change, ...), for the outbox page and the logs.';
COMMENT ON COLUMN mail_messages.next_attempt_at IS 'When the worker may take it next; a claim moves it past its lease, so a crashed worker''s claim is taken again.';
COMMENT ON COLUMN mail_messages.attempts IS 'Attempts claimed so far; a completion names the attempt it ends, so a late worker cannot overwrite a newer one.';
-- The worker's claim: pending messages by due time.
CREATE INDEX mail_messages_due_idx ON mail_messages (next_attempt_at) WHERE status = 'pending';
-- Retention and the outbox page, newest first.
CREATE INDEX mail_messages_created_idx ON mail_messages (created_at);

-- A "forgot password" link: single use, 30 minutes. Only the SHA-256 of its secret is kept.
CREATE TABLE password_resets (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  secret_hash  text NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz
);
CREATE INDEX password_resets_account_idx ON password_resets (account_id);
CREATE INDEX password_resets_expires_idx ON password_resets (expires_at);

-- A new sign-in address waiting for its confirmation: the account's e-mail changes only when the
-- link sent to the new address is opened.
CREATE TABLE email_changes (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  new_email    text NOT NULL,
  secret_hash  text NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz
);
CREATE INDEX email_changes_account_idx ON email_changes (account_id);
CREATE INDEX email_changes_expires_idx ON email_changes (expires_at);
