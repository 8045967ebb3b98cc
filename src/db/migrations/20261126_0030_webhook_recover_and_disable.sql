-- Issue 19, parts 4 and 5: webhooks nobody loses. A subscription whose deliveries have all failed
-- for WEBHOOK_DISABLE_AFTER_SECONDS (or whose receiver answered 410 Gone) is disabled, never
-- deleted; while disabled each event it would have received is recorded as a `skipped` delivery;
-- `recover` sends failed and skipped deliveries once more under their original webhook id.

-- Subscriptions: `disabled` beside active and stopped, with when and why.
ALTER TABLE webhook_subscriptions DROP CONSTRAINT webhook_subscriptions_status_check;
ALTER TABLE webhook_subscriptions
  ADD CONSTRAINT webhook_subscriptions_status_check CHECK (status IN ('active', 'disabled', 'stopped'));
ALTER TABLE webhook_subscriptions ADD COLUMN disabled_at timestamptz(3);
ALTER TABLE webhook_subscriptions ADD COLUMN disabled_reason text;
-- A disabled subscription is still the app's (paused): the same event and URL cannot be
-- subscribed a second time meanwhile, and dispatch finds it (to record its skipped deliveries).
DROP INDEX webhook_subscriptions_unique_key;
CREATE UNIQUE INDEX webhook_subscriptions_unique_key
  ON webhook_subscriptions (store_id, installation_id, event_name, target_url) WHERE status IN ('active', 'disabled');
DROP INDEX webhook_subscriptions_event_idx;
CREATE INDEX webhook_subscriptions_event_idx
  ON webhook_subscriptions (store_id, event_name) WHERE status IN ('active', 'disabled');

-- The unbroken run of failures of a subscription: a row exists while its last recorded attempts
-- failed, `failing_since` being the first failure of the run; a success deletes it. A table of its
-- own, not a column of the subscription, so that recording an attempt's outcome (which holds the
-- delivery's row lock) never locks the subscription's row, which an uninstall locks before the
-- deliveries (a cycle, so deadlocks) and every dispatch share-locks.
CREATE TABLE webhook_subscription_failures (
  store_id         text NOT NULL,
  subscription_id  text NOT NULL,
  failing_since    timestamptz(3) NOT NULL,
  PRIMARY KEY (store_id, subscription_id),
  FOREIGN KEY (store_id, subscription_id) REFERENCES webhook_subscriptions (store_id, id) ON DELETE CASCADE
);

-- Deliveries: `skipped` (recorded while the subscription was disabled, never sent).
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check;
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_status_check
  CHECK (status IN ('pending', 'delivered', 'failed', 'skipped', 'cancelled'));
-- The id sent as x-webhook-id: null means the delivery's own id; a recovered delivery carries the
-- id of the delivery it recovers (itself perhaps a recovery), so the receiver sees the original id.
ALTER TABLE webhook_deliveries ADD COLUMN webhook_id text;
-- The delivery this one recovers (recover's new delivery; redelivery_of names it too). Unique: a
-- delivery is recovered once, whoever recovers it at the same time; the insert that loses the race
-- inserts nothing. The originals are never written to (marking 100,000 of them cost more than
-- queuing their recoveries).
ALTER TABLE webhook_deliveries ADD COLUMN recovery_of text;
CREATE UNIQUE INDEX webhook_deliveries_recovery_key
  ON webhook_deliveries (store_id, recovery_of) WHERE recovery_of IS NOT NULL;
-- What recover reads: a subscription's failed and skipped deliveries, in (created_at, id) order,
-- the keyset recover walks in chunks. Only those rows are in it, so delivered ones (the common
-- case) cost it nothing.
CREATE INDEX webhook_deliveries_recoverable_idx
  ON webhook_deliveries (store_id, subscription_id, created_at, id) WHERE status IN ('failed', 'skipped');
-- Recover takes a delivery only when it is the newest of its event for the subscription and no
-- delivery of the event succeeded or is on its way: looked up by event. Replaces the
-- (store_id, subscription_id) index, whose prefix it keeps (the foreign key's cascade uses it).
CREATE INDEX webhook_deliveries_subscription_event_idx
  ON webhook_deliveries (store_id, subscription_id, event_id);
DROP INDEX webhook_deliveries_subscription_idx;
