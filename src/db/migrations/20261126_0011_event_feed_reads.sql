-- The events API (GET /api/v1/apps/api/events, issue 19): `since` finds where to start reading a
-- store's feed by creation time, and each page lists the calling app's deliveries of its events.
CREATE INDEX events_created_idx ON events (store_id, created_at);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (store_id, event_id);
