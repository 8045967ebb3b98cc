-- Issue 30: a real catalogue. A product has options (up to 3) and variants (up to 2,048), each
-- variant its own SKU, price and stock; stock is kept per variant and location in named quantities;
-- collections group products. Shipped as API version 2026-11-29: at 2026-11-28 a product still
-- reads as one price, one SKU and one stock figure (src/modules/versions/changes/).
--
-- Every existing product becomes one variant (its price and SKU) with its stock available at its
-- store's first location; every open order's lines name that variant and hold their quantity as
-- committed there. Ids made here are derived (md5 of the record they come from), so the migration
-- is deterministic and the event payloads rewritten below name the same ids as the rows.

-- Locations: where stock is kept and orders ship from. A store has at least one.
CREATE TABLE locations (
  store_id               text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id                     text NOT NULL,
  name                   text NOT NULL,
  address                jsonb,
  is_active              boolean NOT NULL DEFAULT true,
  fulfils_online_orders  boolean NOT NULL DEFAULT true,
  created_at             timestamptz(3) NOT NULL DEFAULT now(),
  updated_at             timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, id)
);
CREATE UNIQUE INDEX locations_name_key ON locations (store_id, lower(name));
CREATE INDEX locations_created_idx ON locations (store_id, created_at, id);
COMMENT ON COLUMN locations.fulfils_online_orders IS 'Orders placed without a location commit stock at the first active location that fulfils online orders and holds every line.';

INSERT INTO locations (store_id, id, name, created_at, updated_at)
SELECT id, 'loc_' || left(md5(id || ':location'), 22), 'Main location', created_at, created_at FROM stores;

-- A product's own fields beside its variants; price_minor and stock become what the variants make
-- (the lowest price, the sum of what can be sold), kept in the transaction of every variant or
-- stock write, so the list sorts and filters by them through its indexes.
ALTER TABLE products ADD COLUMN vendor text NOT NULL DEFAULT '';
ALTER TABLE products ADD COLUMN product_type text NOT NULL DEFAULT '';
ALTER TABLE products ADD COLUMN tags text[] NOT NULL DEFAULT '{}';
ALTER TABLE products ADD COLUMN options jsonb NOT NULL DEFAULT '[]';
ALTER TABLE products ADD COLUMN price_max_minor bigint;
-- Filled by a rewrite of the table, not an UPDATE: one pass that rebuilds each index once, where an
-- UPDATE of every row adds an entry per row to every index (3.2 times as long on 50,000 products).
ALTER TABLE products ALTER COLUMN price_max_minor TYPE bigint USING price_minor,
  ALTER COLUMN price_max_minor SET NOT NULL;
ALTER TABLE products ADD COLUMN untracked_variants integer NOT NULL DEFAULT 0 CHECK (untracked_variants >= 0);
COMMENT ON COLUMN products.options IS 'The options in order: [{name, values: [..]}] (at most 3, values in order).';
COMMENT ON COLUMN products.price_minor IS 'The lowest price of its variants (minor units).';
COMMENT ON COLUMN products.price_max_minor IS 'The highest price of its variants (minor units).';
COMMENT ON COLUMN products.stock IS 'What can be sold: the sum of available over its tracked variants and every location.';
COMMENT ON COLUMN products.untracked_variants IS 'Variants whose stock is not tracked (always sellable).';
CREATE INDEX products_price_max_idx ON products (store_id, price_max_minor, id);
CREATE INDEX products_vendor_idx ON products (store_id, lower(vendor));
CREATE INDEX products_type_idx ON products (store_id, lower(product_type));
CREATE INDEX products_tags_idx ON products USING gin (tags);

CREATE TABLE product_variants (
  store_id          text NOT NULL,
  id                text NOT NULL,
  product_id        text NOT NULL,
  position          integer NOT NULL,
  option1           text,
  option2           text,
  option3           text,
  title             text NOT NULL,
  sku               text,
  barcode           text,
  price_minor       bigint NOT NULL CHECK (price_minor >= 0),
  compare_at_minor  bigint CHECK (compare_at_minor >= 0),
  weight_grams      integer CHECK (weight_grams >= 0),
  tracked           boolean NOT NULL DEFAULT true,
  available         integer NOT NULL DEFAULT 0 CHECK (available >= 0),
  metadata          jsonb NOT NULL DEFAULT '{}',
  created_at        timestamptz(3) NOT NULL DEFAULT now(),
  updated_at        timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, id)
  -- Its reference to the product and its other indexes: after the backfill below.
);
COMMENT ON COLUMN product_variants.title IS 'Its option values joined by " / ", or "Default" for a product without options.';
COMMENT ON COLUMN product_variants.available IS 'The sum of available over its inventory levels (kept in the transaction of every stock write).';

-- Stock of a variant at a location, in named quantities (Shopify's): on_hand is what is on the
-- shelf, the sum of what can be sold, what unfulfilled orders hold and what cannot be sold.
CREATE TABLE inventory_levels (
  store_id     text NOT NULL,
  id           text NOT NULL,
  variant_id   text NOT NULL,
  location_id  text NOT NULL,
  product_id   text NOT NULL,
  available    integer NOT NULL DEFAULT 0 CHECK (available >= 0),
  committed    integer NOT NULL DEFAULT 0 CHECK (committed >= 0),
  unavailable  integer NOT NULL DEFAULT 0 CHECK (unavailable >= 0),
  on_hand      integer GENERATED ALWAYS AS (available + committed + unavailable) STORED NOT NULL,
  -- When the variant was first stocked here: the inventory export's snapshot leaves out later ones.
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at   timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, variant_id, location_id)
  -- Its references and other indexes: after the backfill below.
);

-- Every stock change, who made it and why (append-only; trimmed with the store).
CREATE TABLE inventory_changes (
  store_id        text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id              text NOT NULL,
  variant_id      text NOT NULL,
  location_id     text NOT NULL,
  product_id      text NOT NULL,
  quantity        text NOT NULL CHECK (quantity IN ('available', 'committed', 'unavailable')),
  delta           integer NOT NULL,
  quantity_after  integer NOT NULL,
  reason          text NOT NULL CHECK (reason IN ('received', 'correction', 'cycle_count', 'damaged', 'quality_control', 'restock', 'movement', 'order_placed', 'order_shipped', 'order_cancelled', 'other')),
  note            text,
  actor_kind      text NOT NULL CHECK (actor_kind IN ('account', 'app', 'key', 'system', 'unknown')),
  actor_id        text,
  order_id        text,
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, id)
);
CREATE INDEX inventory_changes_level_idx ON inventory_changes (store_id, variant_id, location_id, created_at, id);
CREATE INDEX inventory_changes_variant_idx ON inventory_changes (store_id, variant_id, created_at, id);
CREATE INDEX inventory_changes_created_idx ON inventory_changes (store_id, created_at, id);

-- The store's SKU suffixes now come from every variant (migration 20261126_0120 says why a suffix
-- table and why triggers); product_id is carried so a search finds products without a join.
DROP TRIGGER products_sku_suffixes_insert ON products;
DROP TRIGGER products_sku_suffixes_delete ON products;
DROP TRIGGER products_sku_suffixes_update ON products;
DROP TRIGGER products_sku_suffixes_truncate ON products;
DROP FUNCTION product_sku_suffixes_inserted();
DROP FUNCTION product_sku_suffixes_deleted();
DROP FUNCTION product_sku_suffixes_changed();
DROP FUNCTION product_sku_suffixes_truncated();
DROP TABLE product_sku_suffixes;

CREATE TABLE variant_sku_suffixes (
  store_id    text NOT NULL,
  suffix      text COLLATE "C" NOT NULL,
  variant_id  text NOT NULL,
  product_id  text NOT NULL
  -- PRIMARY KEY (store_id, suffix, variant_id): added after the backfill below, built once.
);

CREATE FUNCTION variant_sku_suffixes_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO variant_sku_suffixes (store_id, suffix, variant_id, product_id)
  SELECT v.store_id, s.suffix, v.id, v.product_id FROM inserted v CROSS JOIN LATERAL sku_suffixes(v.sku) AS s
  WHERE v.sku IS NOT NULL;
  RETURN NULL;
END $$;

CREATE FUNCTION variant_sku_suffixes_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM variant_sku_suffixes AS x
  USING (SELECT v.store_id, s.suffix, v.id FROM deleted v CROSS JOIN LATERAL sku_suffixes(v.sku) AS s
          WHERE v.sku IS NOT NULL) AS d
  WHERE x.store_id = d.store_id AND x.suffix = d.suffix AND x.variant_id = d.id;
  RETURN NULL;
END $$;

CREATE FUNCTION variant_sku_suffixes_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM variant_sku_suffixes
  WHERE store_id = OLD.store_id AND variant_id = OLD.id
    AND suffix IN (SELECT s.suffix FROM sku_suffixes(OLD.sku) AS s);
  INSERT INTO variant_sku_suffixes (store_id, suffix, variant_id, product_id)
  SELECT NEW.store_id, s.suffix, NEW.id, NEW.product_id FROM sku_suffixes(NEW.sku) AS s;
  RETURN NULL;
END $$;

CREATE FUNCTION variant_sku_suffixes_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE variant_sku_suffixes;
  RETURN NULL;
END $$;

-- The triggers come after the backfill (below), which fills the table in one statement.

-- A key pair (the developer API) acts too: on stock, and so in the order history's list of kinds.
ALTER TABLE order_status_changes DROP CONSTRAINT order_status_changes_actor_kind_check;
ALTER TABLE order_status_changes ADD CONSTRAINT order_status_changes_actor_kind_check
  CHECK (actor_kind IN ('account', 'app', 'key', 'system', 'unknown'));

-- Collections: a manual one lists its products in the merchant's order; an automatic one holds the
-- products its rules match, evaluated when read (so a product edit never has to update it).
CREATE TABLE collections (
  store_id     text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id           text NOT NULL,
  title        text NOT NULL,
  description  text NOT NULL DEFAULT '',
  kind         text NOT NULL CHECK (kind IN ('manual', 'automatic')),
  match        text CHECK (match IN ('all', 'any')),
  rules        jsonb NOT NULL DEFAULT '[]',
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at   timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, id),
  CHECK ((kind = 'automatic') = (match IS NOT NULL))
);
CREATE INDEX collections_created_idx ON collections (store_id, created_at, id);
CREATE INDEX collections_updated_idx ON collections (store_id, updated_at, id);
CREATE INDEX collections_title_idx ON collections (store_id, title, id);

CREATE TABLE collection_products (
  store_id       text NOT NULL,
  collection_id  text NOT NULL,
  product_id     text NOT NULL,
  position       integer NOT NULL,
  PRIMARY KEY (store_id, collection_id, product_id),
  FOREIGN KEY (store_id, collection_id) REFERENCES collections (store_id, id) ON DELETE CASCADE,
  FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, id) ON DELETE CASCADE
);
CREATE INDEX collection_products_position_idx ON collection_products (store_id, collection_id, position, product_id);
CREATE INDEX collection_products_product_idx ON collection_products (store_id, product_id);

-- Orders: where their stock is held, and which variant each line is.
ALTER TABLE orders ADD COLUMN location_id text;
COMMENT ON COLUMN orders.location_id IS 'Where the order holds (committed) and ships its stock; null once that location is deleted, or for an order of untracked goods only.';
ALTER TABLE order_line_items ADD COLUMN variant_id text;
ALTER TABLE order_line_items ADD COLUMN variant_title text;
ALTER TABLE order_line_items ADD COLUMN committed boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN order_line_items.committed IS 'Its quantity is held as committed stock at the order''s location (a tracked variant, until shipped or cancelled).';

-- The backfill: one variant per product (its price, SKU, stock tracked), its stock available at the
-- store's first location, what open orders hold moved to committed.
INSERT INTO product_variants (store_id, id, product_id, position, title, sku, price_minor, tracked, available, created_at, updated_at)
SELECT p.store_id, 'var_' || left(md5(p.id || ':variant'), 22), p.id, 0, 'Default', p.sku, p.price_minor, true, p.stock, p.created_at, p.updated_at
FROM products p;
-- Each backfilled SKU's suffixes in one statement, then the key built once over them (an index
-- built from sorted rows, not one entry at a time); from here on the triggers keep the table.
INSERT INTO variant_sku_suffixes (store_id, suffix, variant_id, product_id)
SELECT v.store_id, s.suffix, v.id, v.product_id FROM product_variants v CROSS JOIN LATERAL sku_suffixes(v.sku) AS s
WHERE v.sku IS NOT NULL;
ALTER TABLE variant_sku_suffixes ADD PRIMARY KEY (store_id, suffix, variant_id);
CREATE TRIGGER variants_sku_suffixes_insert AFTER INSERT ON product_variants
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION variant_sku_suffixes_inserted();
CREATE TRIGGER variants_sku_suffixes_delete AFTER DELETE ON product_variants
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION variant_sku_suffixes_deleted();
CREATE TRIGGER variants_sku_suffixes_update AFTER UPDATE OF sku, store_id, id, product_id ON product_variants
  FOR EACH ROW
  WHEN (OLD.sku IS DISTINCT FROM NEW.sku OR OLD.store_id IS DISTINCT FROM NEW.store_id
        OR OLD.id IS DISTINCT FROM NEW.id OR OLD.product_id IS DISTINCT FROM NEW.product_id)
  EXECUTE FUNCTION variant_sku_suffixes_changed();
CREATE TRIGGER variants_sku_suffixes_truncate AFTER TRUNCATE ON product_variants
  FOR EACH STATEMENT EXECUTE FUNCTION variant_sku_suffixes_truncated();

-- Each line names its product's variant (a rewrite, as above); the lines of unfulfilled orders hold
-- their stock as committed.
ALTER TABLE order_line_items
  ALTER COLUMN variant_id TYPE text USING CASE WHEN product_id IS NOT NULL THEN 'var_' || left(md5(product_id || ':variant'), 22) END,
  ALTER COLUMN variant_title TYPE text USING CASE WHEN product_id IS NOT NULL THEN 'Default' END;
UPDATE order_line_items li SET committed = true
FROM orders o
WHERE li.product_id IS NOT NULL AND o.store_id = li.store_id AND o.id = li.order_id
  AND o.status IN ('pending', 'paid', 'confirmed');
-- A rewrite, as price_max_minor above: every existing order holds its stock at the store's first location.
ALTER TABLE orders ALTER COLUMN location_id TYPE text USING 'loc_' || left(md5(store_id || ':location'), 22);

INSERT INTO inventory_levels (store_id, id, variant_id, location_id, product_id, available, committed, created_at, updated_at)
SELECT p.store_id, 'ilvl_' || left(md5(p.id || ':level'), 22), 'var_' || left(md5(p.id || ':variant'), 22), 'loc_' || left(md5(p.store_id || ':location'), 22), p.id,
  p.stock, coalesce(c.held, 0), p.created_at, p.updated_at
FROM products p
LEFT JOIN (
  SELECT li.store_id, li.product_id, sum(li.quantity)::integer AS held
  FROM order_line_items li WHERE li.committed AND li.product_id IS NOT NULL
  GROUP BY 1, 2
) c ON c.store_id = p.store_id AND c.product_id = p.id;

-- The new tables' references and indexes, built once over the backfilled rows (checking a
-- reference or adding an index entry row by row costs several times as much; migration timing in
-- docs/performance.md).
ALTER TABLE product_variants ADD FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, id) ON DELETE CASCADE;
CREATE INDEX product_variants_product_idx ON product_variants (store_id, product_id, position);
CREATE UNIQUE INDEX product_variants_sku_key ON product_variants (store_id, sku) WHERE sku IS NOT NULL;
-- One variant per combination of option values.
CREATE UNIQUE INDEX product_variants_options_key
  ON product_variants (store_id, product_id, coalesce(option1, ''), coalesce(option2, ''), coalesce(option3, ''));
ALTER TABLE inventory_levels ADD FOREIGN KEY (store_id, variant_id) REFERENCES product_variants (store_id, id) ON DELETE CASCADE;
ALTER TABLE inventory_levels ADD FOREIGN KEY (store_id, location_id) REFERENCES locations (store_id, id) ON DELETE CASCADE;
CREATE UNIQUE INDEX inventory_levels_id_key ON inventory_levels (store_id, id);
CREATE INDEX inventory_levels_location_idx ON inventory_levels (store_id, location_id, variant_id);
CREATE INDEX inventory_levels_product_idx ON inventory_levels (store_id, product_id);
CREATE INDEX order_line_items_variant_idx ON order_line_items (store_id, variant_id);

ALTER TABLE products DROP COLUMN sku;

-- Events recorded before this version hold products in the old shape; the service renders stored
-- events down from the newest shape (issue 29), so they are rewritten into it, naming the ids made
-- above. Only product events carry a product.
UPDATE events SET payload = (payload - 'price' - 'sku' - 'stock') || jsonb_build_object(
  'vendor', '', 'productType', '', 'tags', '[]'::jsonb, 'options', '[]'::jsonb,
  'variants', jsonb_build_array(jsonb_build_object(
    'id', 'var_' || left(md5((payload->>'id') || ':variant'), 22),
    'productId', payload->'id', 'title', 'Default', 'optionValues', '[]'::jsonb,
    'sku', payload->'sku', 'barcode', null, 'price', payload->'price', 'compareAtPrice', null,
    'weightGrams', null, 'tracked', true, 'available', payload->'stock')),
  'priceRange', jsonb_build_object('min', payload->'price', 'max', payload->'price'),
  'totalAvailable', payload->'stock')
WHERE topic IN ('product.created', 'product.updated', 'product.deleted') AND payload ? 'price';
