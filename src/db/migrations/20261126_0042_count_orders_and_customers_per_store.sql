-- The developer API lists orders and customers with `meta.total` (issue 20), as it lists products:
-- the same 16 slots per store kept by statement-level triggers (migration 20261123_0040 explains
-- the design), now for orders and customers too. The functions take the resource as the trigger's
-- argument; the products' own functions stay as they are.
ALTER TABLE store_row_counts DROP CONSTRAINT store_row_counts_resource_check;
ALTER TABLE store_row_counts ADD CONSTRAINT store_row_counts_resource_check
  CHECK (resource IN ('products', 'orders', 'customers'));

CREATE FUNCTION count_rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO store_row_counts AS c (store_id, resource, slot, n)
  SELECT store_id, TG_ARGV[0], row_count_slot(id), count(*) FROM inserted
  GROUP BY store_id, row_count_slot(id) ORDER BY store_id, row_count_slot(id)
  ON CONFLICT (store_id, resource, slot) DO UPDATE SET n = c.n + excluded.n;
  RETURN NULL;
END $$;

CREATE FUNCTION count_rows_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE store_row_counts AS c SET n = c.n - d.k
  FROM (SELECT store_id, row_count_slot(id) AS slot, count(*) AS k FROM deleted GROUP BY 1, 2) AS d
  WHERE c.store_id = d.store_id AND c.resource = TG_ARGV[0] AND c.slot = d.slot;
  RETURN NULL;
END $$;

CREATE FUNCTION count_rows_rekeyed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE store_row_counts SET n = n - 1
  WHERE store_id = OLD.store_id AND resource = TG_ARGV[0] AND slot = row_count_slot(OLD.id);
  INSERT INTO store_row_counts AS c (store_id, resource, slot, n)
  VALUES (NEW.store_id, TG_ARGV[0], row_count_slot(NEW.id), 1)
  ON CONFLICT (store_id, resource, slot) DO UPDATE SET n = c.n + 1;
  RETURN NULL;
END $$;

CREATE FUNCTION count_rows_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM store_row_counts WHERE resource = TG_ARGV[0];
  RETURN NULL;
END $$;

CREATE TRIGGER orders_count_insert AFTER INSERT ON orders
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_rows_inserted('orders');
CREATE TRIGGER orders_count_delete AFTER DELETE ON orders
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_rows_deleted('orders');
CREATE TRIGGER orders_count_rekey AFTER UPDATE OF store_id, id ON orders
  FOR EACH ROW WHEN (OLD.store_id IS DISTINCT FROM NEW.store_id OR OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION count_rows_rekeyed('orders');
CREATE TRIGGER orders_count_truncate AFTER TRUNCATE ON orders
  FOR EACH STATEMENT EXECUTE FUNCTION count_rows_truncated('orders');

CREATE TRIGGER customers_count_insert AFTER INSERT ON customers
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION count_rows_inserted('customers');
CREATE TRIGGER customers_count_delete AFTER DELETE ON customers
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION count_rows_deleted('customers');
CREATE TRIGGER customers_count_rekey AFTER UPDATE OF store_id, id ON customers
  FOR EACH ROW WHEN (OLD.store_id IS DISTINCT FROM NEW.store_id OR OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION count_rows_rekeyed('customers');
CREATE TRIGGER customers_count_truncate AFTER TRUNCATE ON customers
  FOR EACH STATEMENT EXECUTE FUNCTION count_rows_truncated('customers');

-- The rows that exist now (CREATE TRIGGER's lock keeps writes out until this commits: every row is
-- counted once).
INSERT INTO store_row_counts (store_id, resource, slot, n)
SELECT store_id, 'orders', row_count_slot(id), count(*) FROM orders GROUP BY store_id, row_count_slot(id);
INSERT INTO store_row_counts (store_id, resource, slot, n)
SELECT store_id, 'customers', row_count_slot(id), count(*) FROM customers GROUP BY store_id, row_count_slot(id);
