-- Issue 12: test events, and listen sessions (the CLI's `listen`: an installation's events streamed
-- over Server-Sent Events, resumable after a reconnect).

-- A test event (`POST /api/v1/apps/api/webhooks/test`) and its deliveries say so: the body carries
-- `"test": true` and each attempt the header `x-webhook-test: true`.
ALTER TABLE events ADD COLUMN test boolean NOT NULL DEFAULT false;
ALTER TABLE webhook_deliveries ADD COLUMN test boolean NOT NULL DEFAULT false;

-- One listen session per `listen` connection, resumed by its id (SSE Last-Event-ID). `events` are
-- the event names it carries (within the installation's scopes); `secret_ciphertext` signs what it
-- streams, as a subscription's secret signs deliveries; `connection` is the token of the one
-- connection allowed to stream it (a newer connection takes over); `sent` is the position of the
-- last item streamed. Stopped by uninstall, after its app/uninstalled item.
CREATE TABLE webhook_listen_sessions (
  store_id          text NOT NULL,
  id                text NOT NULL,
  installation_id   text NOT NULL,
  app_id            text NOT NULL,
  events            text[] NOT NULL,
  secret_ciphertext text NOT NULL,
  connection        text,
  sent              bigint NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL,
  seen_at           timestamptz NOT NULL,
  stopped_at        timestamptz,
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, installation_id) REFERENCES installations (store_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_listen_sessions_live_idx ON webhook_listen_sessions (store_id) WHERE stopped_at IS NULL;
CREATE INDEX webhook_listen_sessions_seen_idx ON webhook_listen_sessions (seen_at);

-- What a session has to stream, in `seq` order. `id` is the item's x-webhook-id (the same when it
-- is streamed again after a reconnect, so receivers drop the duplicate); `position` is its place
-- in the stream once sent (the number after the session id in the SSE id), null until then.
CREATE TABLE webhook_listen_items (
  store_id   text NOT NULL,
  session_id text NOT NULL,
  seq        bigserial,
  id         text NOT NULL DEFAULT 'whd_' || substr(md5(gen_random_uuid()::text), 1, 22),
  event_id   text NOT NULL,
  position   bigint,
  PRIMARY KEY (store_id, session_id, seq),
  FOREIGN KEY (store_id, session_id) REFERENCES webhook_listen_sessions (store_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_listen_items_unsent_idx ON webhook_listen_items (store_id, session_id, seq) WHERE position IS NULL;

-- Every event recorded for dispatch is queued for the store's live sessions that carry it, in the
-- event's own transaction (so an item exists exactly when its event committed). The sessions are
-- share-locked, as a dispatch locks subscriptions: an uninstall (which stops them, FOR UPDATE)
-- waits for this transaction, so its app/uninstalled item comes after every item queued before.
-- Events recorded already dispatched (app/uninstalled) queue their items themselves.
CREATE FUNCTION webhook_listen_fanout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.dispatched_at IS NULL THEN
    INSERT INTO webhook_listen_items (store_id, session_id, event_id)
    SELECT s.store_id, s.id, NEW.id FROM webhook_listen_sessions s
     WHERE s.store_id = NEW.store_id AND s.stopped_at IS NULL AND NEW.topic = ANY (s.events)
       AND (NEW.installation_id IS NULL OR s.installation_id = NEW.installation_id)
     ORDER BY s.store_id, s.id
       FOR SHARE;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER events_listen_fanout AFTER INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION webhook_listen_fanout();
