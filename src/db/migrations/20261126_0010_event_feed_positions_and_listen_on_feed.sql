-- Issue 18 (listen streams one app could use to slow every store) and the event feed of issue 19.
--
-- Each store's events get a feed position: 1, 2, 3, ... in the order they become visible, assigned
-- after they commit by one sequencer at a time per store (the store's row in event_feed_heads is
-- locked while it numbers what has committed, src/modules/events/feed-repo.ts). A reader that has
-- seen every position up to n never meets a new event at n or below later, which ids and
-- timestamps given at insert time cannot promise (insert order is not commit order).
ALTER TABLE events ADD COLUMN feed_position bigint;
CREATE TABLE event_feed_heads (
  store_id text PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
  position bigint NOT NULL DEFAULT 0
);
-- The events there were: numbered in insertion order, as one sequencer would have.
UPDATE events e SET feed_position = n.position
  FROM (SELECT seq, row_number() OVER (PARTITION BY store_id ORDER BY seq) AS position FROM events) n
 WHERE e.seq = n.seq;
INSERT INTO event_feed_heads (store_id, position)
SELECT store_id, max(feed_position) FROM events GROUP BY store_id;
CREATE UNIQUE INDEX events_feed_idx ON events (store_id, feed_position);
-- What the sequencer has left to number (normally nothing: it runs right after each commit).
CREATE INDEX events_unsequenced_idx ON events (store_id, seq) WHERE feed_position IS NULL;

-- Listen streams read the store's feed from the session's position instead of a queue of rows
-- that every event wrote for every live session inside the merchant's own transaction (16,000
-- idle sessions made an order take 1.3 s). The trigger and the queue go; `position` is the feed
-- position the session has read up to, `start_position` where it began (a resume never goes
-- before it). Sessions of before this migration end: their queue is gone.
DROP TRIGGER events_listen_fanout ON events;
DROP FUNCTION webhook_listen_fanout();
DROP TABLE webhook_listen_items;
ALTER TABLE webhook_listen_sessions ADD COLUMN position bigint NOT NULL DEFAULT 0;
ALTER TABLE webhook_listen_sessions ADD COLUMN start_position bigint NOT NULL DEFAULT 0;
ALTER TABLE webhook_listen_sessions DROP COLUMN sent;
UPDATE webhook_listen_sessions SET stopped_at = now(), connection = NULL WHERE stopped_at IS NULL;
-- The live sessions of an installation, counted against its cap when a session is opened.
CREATE INDEX webhook_listen_sessions_installation_idx
  ON webhook_listen_sessions (store_id, installation_id, seen_at) WHERE stopped_at IS NULL;
DROP INDEX webhook_listen_sessions_live_idx;
