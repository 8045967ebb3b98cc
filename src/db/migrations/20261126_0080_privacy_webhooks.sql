-- Issue 21, part 1: privacy webhooks every app receives (customer.redact, customer.data_request,
-- shop.redact), at the one privacy endpoint an app declares in its registration.

-- The app's privacy endpoint and its signing secret, sealed like subscription secrets (AES-256-GCM
-- under SECRETS_KEY), with the previous one kept for the rotation overlap.
ALTER TABLE apps ADD COLUMN privacy_webhook_url text;
ALTER TABLE apps ADD COLUMN privacy_secret_ciphertext text;
ALTER TABLE apps ADD COLUMN privacy_previous_secret_ciphertext text;
ALTER TABLE apps ADD COLUMN privacy_secret_rotated_at timestamptz(3);

-- An installation's privacy channel is a subscription row of status `privacy` (one at most per
-- installation): deliveries keep their foreign key and the claim reads the secret from it, as for
-- every other delivery. It copies the app's endpoint and sealed secrets, kept in step on change.
ALTER TABLE webhook_subscriptions DROP CONSTRAINT webhook_subscriptions_status_check;
ALTER TABLE webhook_subscriptions
  ADD CONSTRAINT webhook_subscriptions_status_check
  CHECK (status IN ('active', 'disabled', 'stopped', 'privacy'));
CREATE UNIQUE INDEX webhook_subscriptions_privacy_key
  ON webhook_subscriptions (store_id, installation_id) WHERE status = 'privacy';

-- shop.redact: due SHOP_REDACT_DELAY_SECONDS after the uninstall (set then; null for installations
-- uninstalled before this migration and for active ones), done once a worker has claimed it (sent,
-- or found the app installed again meanwhile). The sweep reads the due and not yet done.
ALTER TABLE installations ADD COLUMN shop_redact_due_at timestamptz(3);
ALTER TABLE installations ADD COLUMN shop_redact_done_at timestamptz(3);
CREATE INDEX installations_shop_redact_due_idx
  ON installations (shop_redact_due_at) WHERE shop_redact_due_at IS NOT NULL AND shop_redact_done_at IS NULL;
