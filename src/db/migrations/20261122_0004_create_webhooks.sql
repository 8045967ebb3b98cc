-- Webhook subscriptions, deliveries (one per event and subscription) and their attempt log.

-- Fan-out bookkeeping on the outbox: an event is dispatched once, by one worker.
-- installation_id targets an event at one installation (app/uninstalled).
ALTER TABLE events ADD COLUMN installation_id text;
ALTER TABLE events ADD COLUMN dispatched_at timestamptz(3);
CREATE INDEX events_undispatched_idx ON events (seq) WHERE dispatched_at IS NULL;

CREATE TABLE webhook_subscriptions (
  store_id           text NOT NULL,
  id                 text NOT NULL,
  installation_id    text NOT NULL,
  app_id             text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  event_name         text NOT NULL,
  target_url         text NOT NULL,
  secret_ciphertext  text NOT NULL,
  status             text NOT NULL CHECK (status IN ('active', 'stopped')),
  created_at         timestamptz(3) NOT NULL,
  stopped_at         timestamptz(3),
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, installation_id) REFERENCES installations (store_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_subscriptions_installation_idx ON webhook_subscriptions (store_id, installation_id);
CREATE INDEX webhook_subscriptions_event_idx ON webhook_subscriptions (store_id, event_name) WHERE status = 'active';
CREATE INDEX webhook_subscriptions_app_idx ON webhook_subscriptions (app_id);
CREATE UNIQUE INDEX webhook_subscriptions_unique_key
  ON webhook_subscriptions (store_id, installation_id, event_name, target_url) WHERE status = 'active';

CREATE TABLE webhook_deliveries (
  store_id          text NOT NULL,
  id                text NOT NULL,
  event_id          text NOT NULL,
  event_name        text NOT NULL,
  subscription_id   text NOT NULL,
  installation_id   text NOT NULL,
  app_id            text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  target_url        text NOT NULL,
  target_host       text NOT NULL,
  -- The exact bytes sent on every attempt.
  body              text NOT NULL,
  status            text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts          integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz(3) NOT NULL,
  -- A claimed delivery belongs to one worker until lease_until; lease_token fences late writers.
  lease_until       timestamptz(3),
  lease_token       text,
  last_status_code  integer,
  last_error        text,
  redelivery_of     text,
  created_at        timestamptz(3) NOT NULL,
  updated_at        timestamptz(3) NOT NULL,
  completed_at      timestamptz(3),
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, subscription_id) REFERENCES webhook_subscriptions (store_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX webhook_deliveries_once_key
  ON webhook_deliveries (store_id, subscription_id, event_id) WHERE redelivery_of IS NULL;
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_installation_idx ON webhook_deliveries (store_id, installation_id, status);
CREATE INDEX webhook_deliveries_app_idx ON webhook_deliveries (app_id, created_at, id);
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (store_id, subscription_id);

CREATE TABLE webhook_attempts (
  store_id       text NOT NULL,
  delivery_id    text NOT NULL,
  attempt        integer NOT NULL,
  started_at     timestamptz(3) NOT NULL,
  duration_ms    integer NOT NULL,
  status_code    integer,
  error          text,
  response_body  text,
  PRIMARY KEY (store_id, delivery_id, attempt),
  FOREIGN KEY (store_id, delivery_id) REFERENCES webhook_deliveries (store_id, id) ON DELETE CASCADE
);
