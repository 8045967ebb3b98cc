-- Issue 22: bulk export. At most EXPORT_MAX_CONCURRENT exports run at once per installation or
-- key pair, over every API process: each running export holds one numbered slot of its holder
-- (`install:<id>` or `apikey:<key id>`) under a lease it renews while it streams. A slot is taken
-- by one INSERT ... ON CONFLICT that succeeds only where the slot is free or its lease has lapsed
-- (its process died), so a concurrent burst is counted one by one; a finished export deletes its
-- row. At most EXPORT_MAX_CONCURRENT rows per holder, so no clean-up is needed.
CREATE TABLE export_slots (
  store_id     text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  holder       text NOT NULL,
  slot         smallint NOT NULL CHECK (slot >= 0),
  export_id    text NOT NULL,
  lease_until  timestamptz(3) NOT NULL,
  PRIMARY KEY (store_id, holder, slot)
);
