-- Issue 21: what `listen` streamed is part of the delivery log. A session's record is a range of
-- its store's feed, (start_position, position] (position only grows), read with the session's
-- events and installation: nothing is written per event, so an event still costs nothing per
-- session. Sessions are kept as long as deliveries (retention), and listed newest first per app
-- (the developer's delivery page in the dashboard) and per installation (the Admin API, the CLI).
CREATE INDEX webhook_listen_sessions_app_idx ON webhook_listen_sessions (app_id, created_at, id);
CREATE INDEX webhook_listen_sessions_installation_created_idx
  ON webhook_listen_sessions (store_id, installation_id, created_at, id);
