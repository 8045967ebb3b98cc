-- App metadata (issue 20): the key-value pairs each app keeps on products, orders and customers,
-- one JSON object per record keyed by app id: {"app_…": {"erpId": "ERP-88213"}}. An app reads and
-- writes only its own entry; the merchant's dashboard lists whose entries a record holds.
-- A column rather than a table: every read of a record already has the row, and an app's list of
-- 250 orders needs its pairs without a second query.
ALTER TABLE products ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE orders ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE customers ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';

-- The record's metadata at the time of an event, every app's, beside the payload rather than in
-- it: the delivery to each app carries only that app's pairs (the body is built per app when the
-- event is dispatched or streamed, webhooks/delivery/delivery-repo.ts webhookBody). A reader of
-- `payload` that knows nothing of this column therefore never sees any app's pairs.
ALTER TABLE events ADD COLUMN app_metadata jsonb;
