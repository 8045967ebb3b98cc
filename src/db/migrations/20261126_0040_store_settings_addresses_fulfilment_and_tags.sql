-- The commerce core of issue 20: store settings, addresses, fulfilment with tracking, tags and
-- notes, and apps as actors in an order's history. Every new column has a constant default or is
-- nullable, so adding it rewrites no table (PostgreSQL 11+ stores the default in the catalogue).

-- Store settings. `address` is an Address object (src/contracts/resources.ts) or null;
-- `time_zone` an IANA name the service checked; `order_number_prefix` goes before new orders'
-- numbers in their name.
ALTER TABLE stores ADD COLUMN contact_email text;
ALTER TABLE stores ADD COLUMN address jsonb;
ALTER TABLE stores ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC';
ALTER TABLE stores ADD COLUMN order_number_prefix text NOT NULL DEFAULT '#';

-- Customers: their addresses (a JSON array of Address objects, the first the default shipping
-- address), a note and tags.
ALTER TABLE customers ADD COLUMN addresses jsonb NOT NULL DEFAULT '[]';
ALTER TABLE customers ADD COLUMN note text NOT NULL DEFAULT '';
ALTER TABLE customers ADD COLUMN tags jsonb NOT NULL DEFAULT '[]';

-- Orders: the prefix they were placed with (their name is prefix || number, frozen like the
-- line items' prices: changing the setting later renames no order), where they ship, the
-- fulfilment given when they moved to shipped ({carrier, trackingNumber, trackingUrl, shippedAt})
-- and tags.
ALTER TABLE orders ADD COLUMN number_prefix text NOT NULL DEFAULT '#';
ALTER TABLE orders ADD COLUMN shipping_address jsonb;
ALTER TABLE orders ADD COLUMN fulfillment jsonb;
ALTER TABLE orders ADD COLUMN tags jsonb NOT NULL DEFAULT '[]';

-- An app moving an order (Admin API) is named in the order's history as an app.
ALTER TABLE order_status_changes DROP CONSTRAINT order_status_changes_actor_kind_check;
ALTER TABLE order_status_changes ADD CONSTRAINT order_status_changes_actor_kind_check
  CHECK (actor_kind IN ('account', 'app', 'system', 'unknown'));
