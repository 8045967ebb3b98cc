-- events_store_idx (store_id, seq) has served no query since the feed (migration 20261126_0010):
-- readers go by feed position (events_feed_idx), resource (events_resource_idx), creation time
-- (events_created_idx) or dispatch (the partial indexes), and a store's delete cascades through
-- any of those, which all lead with store_id. An event row is written three times (inserted,
-- numbered in its feed, marked dispatched), none of them a HOT update, so each version wrote an
-- entry here for nothing.
DROP INDEX events_store_idx;
