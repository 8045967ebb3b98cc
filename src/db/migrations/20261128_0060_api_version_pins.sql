-- Issue 29: dated API versions. Every credential that calls the versioned APIs is pinned to one
-- version, which serves its requests without an Api-Version header: an app (set to the current
-- version when it is registered, raised by its developer, rolled back within 72 hours), a key pair
-- (set when it is made, changed by the merchant), and each webhook subscription (the app's pin when
-- it is made: its deliveries are rendered at it). Everything made before versions began is pinned
-- to the first version, 2026-11-28, which is the API it was made against. The defaults only fill
-- the existing rows: the service always states the version of what it makes.
ALTER TABLE apps ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-28';
ALTER TABLE apps ALTER COLUMN api_version DROP DEFAULT;
ALTER TABLE apps ADD COLUMN api_version_previous text;
ALTER TABLE apps ADD COLUMN api_version_changed_at timestamptz(3);
COMMENT ON COLUMN apps.api_version IS 'The API version the app''s requests and new subscriptions are served at when they name none (issue 29).';
COMMENT ON COLUMN apps.api_version_previous IS 'The pin before the last change: the developer may roll back to it within 72 hours of api_version_changed_at.';

ALTER TABLE api_keys ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-28';
ALTER TABLE api_keys ALTER COLUMN api_version DROP DEFAULT;
COMMENT ON COLUMN api_keys.api_version IS 'The API version the key pair''s requests are served at when they name none (issue 29).';

ALTER TABLE webhook_subscriptions ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-28';
ALTER TABLE webhook_subscriptions ALTER COLUMN api_version DROP DEFAULT;
COMMENT ON COLUMN webhook_subscriptions.api_version IS 'The API version its deliveries are rendered at (issue 29).';

ALTER TABLE webhook_listen_sessions ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-28';
ALTER TABLE webhook_listen_sessions ALTER COLUMN api_version DROP DEFAULT;
COMMENT ON COLUMN webhook_listen_sessions.api_version IS 'The API version the session streams events at (issue 29).';

-- Null for deliveries made before versions: they were rendered at the first version.
ALTER TABLE webhook_deliveries ADD COLUMN api_version text;
COMMENT ON COLUMN webhook_deliveries.api_version IS 'The API version its body was rendered at (its subscription''s when it was made), sent as Api-Version; null: the first version.';

-- Calls made at deprecated versions, per app, day, version and operation: what the app's page
-- lists (the last 30 days) so its developer knows what to change before the sunset. Counted in
-- memory by each API process and added here in batches (modules/versions/deprecated-calls.ts).
CREATE TABLE deprecated_api_calls (
  app_id        text NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
  day           date NOT NULL,
  api_version   text NOT NULL,
  operation_id  text NOT NULL,
  calls         bigint NOT NULL CHECK (calls > 0),
  last_at       timestamptz(3) NOT NULL,
  PRIMARY KEY (app_id, day, api_version, operation_id)
);
-- Retention drops whole days, oldest first.
CREATE INDEX deprecated_api_calls_day_idx ON deprecated_api_calls (day);
COMMENT ON TABLE deprecated_api_calls IS 'Calls made at deprecated API versions, per app, day, version and operation (issue 29).';
