-- Product search finds a part of a SKU, not only its start ("lth" finds WAL-LTH), as the list's
-- `q` is documented ("title or SKU contains"). A trigram GIN index on sku answers
-- sku ILIKE '%text%' for texts of three characters or more, like the title's (migration
-- 20261124_0010, which installed pg_trgm: its schema is looked up, not assumed). The prefix index
-- on upper(sku) served only the old starts-with match and is dropped: one index less per write.
DO $$
DECLARE
  ext_schema text;
BEGIN
  SELECT n.nspname INTO ext_schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
   WHERE e.extname = 'pg_trgm';
  EXECUTE format('CREATE INDEX products_sku_trgm_idx ON products USING gin (sku %I.gin_trgm_ops)', ext_schema);
END
$$;

DROP INDEX products_sku_prefix_idx;
