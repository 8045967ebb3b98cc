-- Issue 32, part 3: staff with roles. The store's owner stays stores.owner_account_id; everyone
-- else who works in the store is a member with one role, a set of the store's scopes the
-- dashboard's guard checks on every request (src/contracts/roles.ts). People join through an
-- invitation sent to their e-mail address: its token is kept only as a hash, used once, and
-- expires.

CREATE TABLE store_members (
  store_id      text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  account_id    text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  role          text NOT NULL CHECK (role IN ('admin', 'orders', 'catalogue', 'read_only')),
  invited_by    text REFERENCES accounts (id) ON DELETE SET NULL,
  created_at    timestamptz(3) NOT NULL,
  updated_at    timestamptz(3) NOT NULL,
  PRIMARY KEY (store_id, account_id)
);
COMMENT ON COLUMN store_members.role IS 'What the member may do in the store: a set of its scopes (src/contracts/roles.ts). The owner is stores.owner_account_id, never a member.';
-- The stores an account works in (the dashboard's store list, the guard's lookup by account).
CREATE INDEX store_members_account_idx ON store_members (account_id, store_id);
CREATE INDEX store_members_invited_by_idx ON store_members (invited_by) WHERE invited_by IS NOT NULL;

CREATE TABLE store_invitations (
  store_id      text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id            text NOT NULL,
  email         text NOT NULL,
  role          text NOT NULL CHECK (role IN ('admin', 'orders', 'catalogue', 'read_only')),
  token_hash    text NOT NULL,
  invited_by    text REFERENCES accounts (id) ON DELETE SET NULL,
  created_at    timestamptz(3) NOT NULL,
  expires_at    timestamptz(3) NOT NULL,
  accepted_at   timestamptz(3),
  accepted_by   text REFERENCES accounts (id) ON DELETE SET NULL,
  PRIMARY KEY (store_id, id)
);
COMMENT ON COLUMN store_invitations.token_hash IS 'SHA-256 of the token the e-mail carries; the token itself is never stored.';
COMMENT ON COLUMN store_invitations.accepted_at IS 'When it was used (once); null while open. An open invitation past expires_at is refused.';
CREATE UNIQUE INDEX store_invitations_token_key ON store_invitations (token_hash);
-- One open invitation per address and store: inviting again replaces it (staff-service).
CREATE UNIQUE INDEX store_invitations_open_email_key ON store_invitations (store_id, lower(email))
  WHERE accepted_at IS NULL;
CREATE INDEX store_invitations_invited_by_idx ON store_invitations (invited_by) WHERE invited_by IS NOT NULL;
CREATE INDEX store_invitations_accepted_by_idx ON store_invitations (accepted_by) WHERE accepted_by IS NOT NULL;
