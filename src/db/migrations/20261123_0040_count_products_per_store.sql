-- Row counts per store for the lists that answer a total (the developer API's `meta.total`), kept
-- by triggers in the transaction of every write, so reading a total costs at most 16 rows instead
-- of a count(*) over the store. Only products are counted: the developer API lists nothing else.
--
-- Each store's count is spread over 16 slots, and a row always counts in the slot its id hashes
-- to. So concurrent creates in one store lock different slot rows (a single row per store would
-- serialise them), every slot holds exactly the number of rows that hash to it (never negative,
-- which the CHECK turns into an error instead of a silently wrong total), and a delete finds the
-- slot its insert wrote. The hash is SHA-256, not hashtext(), whose output may change between
-- PostgreSQL major versions and would then move rows to other slots.
CREATE TABLE store_row_counts (
  store_id  text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  resource  text NOT NULL CHECK (resource IN ('products')),
  slot      smallint NOT NULL CHECK (slot BETWEEN 0 AND 15),
  n         bigint NOT NULL CHECK (n >= 0),
  PRIMARY KEY (store_id, resource, slot)
);

CREATE FUNCTION row_count_slot(id text) RETURNS integer
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT get_byte(sha256(convert_to(id, 'UTF8')), 0) & 15 $$;

-- Statement-level with transition tables: a bulk INSERT ... SELECT of a million rows costs one
-- grouped upsert, not a million. Slots in key order, so two multi-row inserts lock them in the
-- same order and cannot deadlock each other.
CREATE FUNCTION count_products_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO store_row_counts AS c (store_id, resource, slot, n)
  SELECT store_id, 'products', row_count_slot(id), count(*) FROM inserted
  GROUP BY store_id, row_count_slot(id) ORDER BY store_id, row_count_slot(id)
  ON CONFLICT (store_id, resource, slot) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;

-- An UPDATE, never an upsert: when a store is deleted, its products go by cascade in the same
-- statement as its counts, and an insert referencing the deleted store would fail its foreign key.
-- A missing slot row can only mean the store's counts are already gone with it.
CREATE FUNCTION count_products_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE store_row_counts AS c SET n = c.n - d.k
  FROM (SELECT store_id, row_count_slot(id) AS slot, count(*) AS k FROM deleted GROUP BY 1, 2) AS d
  WHERE c.store_id = d.store_id AND c.resource = 'products' AND c.slot = d.slot;
  RETURN NULL;
END $$;

-- Neither the application nor a foreign key changes a product's store or id; should anyone, the
-- row moves to its new store and slot rather than leaving both counts wrong. Row-level with a
-- column list, so the stock and price updates of every order pay nothing.
CREATE FUNCTION count_products_rekeyed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE store_row_counts SET n = n - 1
  WHERE store_id = OLD.store_id AND resource = 'products' AND slot = row_count_slot(OLD.id);
  INSERT INTO store_row_counts AS c (store_id, resource, slot, n)
  VALUES (NEW.store_id, 'products', row_count_slot(NEW.id), 1)
  ON CONFLICT (store_id, resource, slot) DO UPDATE SET n = c.n + 1;
  RETURN NULL;
END $$;

CREATE FUNCTION count_products_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM store_row_counts WHERE resource = 'products';
  RETURN NULL;
END $$;

CREATE TRIGGER products_count_insert AFTER INSERT ON products
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_products_inserted();
CREATE TRIGGER products_count_delete AFTER DELETE ON products
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_products_deleted();
CREATE TRIGGER products_count_rekey AFTER UPDATE OF store_id, id ON products
  FOR EACH ROW WHEN (OLD.store_id IS DISTINCT FROM NEW.store_id OR OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION count_products_rekeyed();
CREATE TRIGGER products_count_truncate AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION count_products_truncated();

-- The rows that exist now. The migration is one transaction, and CREATE TRIGGER holds a lock on
-- products that blocks writes until it commits: every row is counted by the backfill or by a
-- trigger, never by both or neither.
INSERT INTO store_row_counts (store_id, resource, slot, n)
SELECT store_id, 'products', row_count_slot(id), count(*) FROM products
GROUP BY store_id, row_count_slot(id);
