-- Issue 19, part 2: rotating a subscription's signing secret with an overlap. The secret in force
-- stays in secret_ciphertext; a rotation moves it to previous_secret_ciphertext and records when it
-- happened. For WEBHOOK_SECRET_OVERLAP_SECONDS after secret_rotated_at, deliveries carry a
-- Standard Webhooks signature with each (the previous one is then ignored, not deleted: a later
-- rotation overwrites it). Nullable columns without defaults: no rewrite of the table, and
-- subscriptions never rotated read NULL for both.
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret_ciphertext text;
ALTER TABLE webhook_subscriptions ADD COLUMN secret_rotated_at timestamptz(3);
ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_previous_secret_rotated
  CHECK (previous_secret_ciphertext IS NULL OR secret_rotated_at IS NOT NULL);

-- The app owner's delivery page lists an app's subscriptions over every store, newest first, with
-- when each secret was last rotated (deleted ones left out).
CREATE INDEX webhook_subscriptions_app_list_idx ON webhook_subscriptions (app_id, created_at, id)
  WHERE status <> 'stopped';
