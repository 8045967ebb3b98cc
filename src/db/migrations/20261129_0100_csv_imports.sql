-- Issue 32, part 5: CSV imports from the dashboard. An upload is parsed and checked at once (the
-- preview, with per-row errors); nothing is written until the merchant starts a run: a dry run
-- (every row through the services, in transactions rolled back) or the import itself. A run is a
-- job row the worker claims under a lease, one batch of rows per transaction; the batch's records
-- and its progress (done_items, the counts) commit together, so a worker that dies mid-run is
-- replaced after the lease lapses and goes on from the last committed batch, nothing twice.
CREATE TABLE csv_imports (
  store_id       text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id             text NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('products', 'customers')),
  file_name      text NOT NULL CHECK (char_length(file_name) <= 255),
  -- The uploaded text, bounded by the upload's own limit (IMPORT_MAX_BYTES).
  csv            text NOT NULL,
  total_rows     integer NOT NULL CHECK (total_rows >= 0),
  total_items    integer NOT NULL CHECK (total_items >= 0),
  preview        jsonb NOT NULL,
  status         text NOT NULL CHECK (status IN ('previewed', 'queued', 'running', 'completed', 'failed')),
  dry_run        boolean NOT NULL DEFAULT false,
  done_items     integer NOT NULL DEFAULT 0 CHECK (done_items >= 0),
  created_count  integer NOT NULL DEFAULT 0,
  skipped_count  integer NOT NULL DEFAULT 0,
  error_count    integer NOT NULL DEFAULT 0,
  errors         jsonb NOT NULL DEFAULT '[]'::jsonb,
  lease_until    timestamptz(3),
  attempts       integer NOT NULL DEFAULT 0,
  failure        text,
  created_by     text NOT NULL,
  created_at     timestamptz(3) NOT NULL,
  updated_at     timestamptz(3) NOT NULL,
  started_at     timestamptz(3),
  finished_at    timestamptz(3),
  PRIMARY KEY (store_id, id)
);
COMMENT ON COLUMN csv_imports.total_items IS 'Products (a handle''s rows are one) or customers in the file.';
COMMENT ON COLUMN csv_imports.done_items IS 'Items the run has gone through, in file order: its progress, committed with each batch.';
COMMENT ON COLUMN csv_imports.preview IS 'What the upload''s check found: the first rows as read, the columns ignored, how many items exist already.';
COMMENT ON COLUMN csv_imports.attempts IS 'Claims of the current run: the claim''s fencing token (a worker whose lease was taken over writes nothing).';
COMMENT ON COLUMN csv_imports.errors IS 'Per-row problems of the preview or of the last run, at most 500: {row, column, message}.';
COMMENT ON COLUMN csv_imports.created_by IS 'The merchant account that uploaded the file.';
-- The store's imports, newest first (the dashboard's list).
CREATE INDEX csv_imports_store_created_idx ON csv_imports (store_id, created_at DESC);
-- The worker's claim looks across stores, so this index does not lead with store_id: only the
-- runs waiting or under way are in it (a handful), the finished ones never.
CREATE INDEX csv_imports_claim_idx ON csv_imports (created_at) WHERE status IN ('queued', 'running');
