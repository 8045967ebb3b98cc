-- Product search finds any part of a SKU through a table of each SKU's suffixes (issue 23): a text
-- is part of a SKU exactly when it begins one of the SKU's suffixes, and "begins" is a btree range
-- scan. The trigram index of migration 20261126_0095 answered the same question, but a SKU part
-- made of trigrams most of a store's SKUs share (every SKU begins `SKU-0`) made GIN walk posting
-- lists of the whole catalogue: 96 ms p50 for a whole SKU, 143 ms for the middle of one, at a
-- million products. That index is dropped: nothing searches sku with ILIKE any more.
--
-- Case-insensitive: suffixes are stored upper-cased, and the search upper-cases its text with the
-- same function (products-repo.ts). Bounded: a SKU has at most 64 characters (the contract's
-- `Sku`), so a product has at most 64 rows here, about 11 for a SKU like `SKU-0730000`.
--
-- The suffix column sorts by code point (COLLATE "C"), so the rows beginning with a text are one
-- contiguous range of the primary key whatever the database's collation, and the search states
-- that range itself (suffix >= text AND suffix < text || U+10FFFF) instead of a LIKE pattern:
-- the planner turns LIKE 'x%' into an index range only for a constant, never on the generic plan
-- of a prepared statement, and a range has no wildcards to escape.
CREATE TABLE product_sku_suffixes (
  store_id   text NOT NULL,
  suffix     text COLLATE "C" NOT NULL,
  product_id text NOT NULL,
  PRIMARY KEY (store_id, suffix, product_id)
);

-- Every suffix of a SKU, upper-cased: one definition for the backfill and the triggers.
CREATE FUNCTION sku_suffixes(sku text) RETURNS TABLE (suffix text)
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT upper(substr(sku, i)) FROM generate_series(1, length(sku)) AS i $$;

-- Kept by triggers rather than by the products repository: the rows must follow every write of a
-- SKU, and products are also written by statements outside the repository (the benchmarks' and
-- tests' bulk INSERT ... SELECT seeds, a store's deletion cascading to its products). A trigger
-- runs in the writing statement's transaction, so the table is never out of step, whoever writes.
--
-- Inserts and deletes are statement-level with transition tables, like the row counts of migration
-- 20261123_0040: a bulk INSERT ... SELECT of a million products costs one INSERT ... SELECT of
-- their suffixes, not a million. A delete finds its rows through the primary key (the deleted
-- SKU's suffixes), so the table needs no second index on product_id.
CREATE FUNCTION product_sku_suffixes_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO product_sku_suffixes (store_id, suffix, product_id)
  SELECT p.store_id, s.suffix, p.id FROM inserted p CROSS JOIN LATERAL sku_suffixes(p.sku) AS s
  WHERE p.sku IS NOT NULL;
  RETURN NULL;
END $$;

CREATE FUNCTION product_sku_suffixes_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM product_sku_suffixes AS x
  USING (SELECT p.store_id, s.suffix, p.id FROM deleted p CROSS JOIN LATERAL sku_suffixes(p.sku) AS s
          WHERE p.sku IS NOT NULL) AS d
  WHERE x.store_id = d.store_id AND x.suffix = d.suffix AND x.product_id = d.id;
  RETURN NULL;
END $$;

-- Row-level with a column list and a WHEN clause, so the stock and price updates of every order
-- (and a store's currency change, which updates all its products) pay nothing.
CREATE FUNCTION product_sku_suffixes_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM product_sku_suffixes
  WHERE store_id = OLD.store_id AND product_id = OLD.id
    AND suffix IN (SELECT s.suffix FROM sku_suffixes(OLD.sku) AS s);
  INSERT INTO product_sku_suffixes (store_id, suffix, product_id)
  SELECT NEW.store_id, s.suffix, NEW.id FROM sku_suffixes(NEW.sku) AS s;
  RETURN NULL;
END $$;

CREATE FUNCTION product_sku_suffixes_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE product_sku_suffixes;
  RETURN NULL;
END $$;

CREATE TRIGGER products_sku_suffixes_insert AFTER INSERT ON products
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION product_sku_suffixes_inserted();
CREATE TRIGGER products_sku_suffixes_delete AFTER DELETE ON products
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION product_sku_suffixes_deleted();
CREATE TRIGGER products_sku_suffixes_update AFTER UPDATE OF sku, store_id, id ON products
  FOR EACH ROW
  WHEN (OLD.sku IS DISTINCT FROM NEW.sku OR OLD.store_id IS DISTINCT FROM NEW.store_id
        OR OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION product_sku_suffixes_changed();
CREATE TRIGGER products_sku_suffixes_truncate AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION product_sku_suffixes_truncated();

-- The SKUs that exist now. The migration is one transaction, and CREATE TRIGGER holds a lock on
-- products that blocks writes until it commits: every SKU is written by the backfill or by a
-- trigger, never by both or neither.
INSERT INTO product_sku_suffixes (store_id, suffix, product_id)
SELECT p.store_id, s.suffix, p.id FROM products p CROSS JOIN LATERAL sku_suffixes(p.sku) AS s
WHERE p.sku IS NOT NULL;

DROP INDEX products_sku_trgm_idx;
