-- Issue 27, item 1: bulk exports are bounded at every level one tenant controls, not only per
-- installation or key pair (a store may hold 100 key pairs, and an account several stores). A
-- running export holds one numbered slot in each of its pools at once: its holder's
-- (`install:<id>` or `apikey:<key id>`), its store's (`store:<id>`) and its merchant account's
-- (`account:<id>`), all taken in one transaction under one lease that it renews while it streams.
-- A slot is taken by one INSERT ... ON CONFLICT that succeeds only where the slot is free or its
-- lease has lapsed (its process died), so a concurrent burst is counted one by one; a finished
-- export deletes its rows by its id. At most as many rows per pool as the pool's bound: no
-- clean-up is needed. The pool, not a store, leads the key: an account's pool spans its stores.
--
-- It replaces export_slots (per holder only). A process of the previous version that starts an
-- export during a rolling upgrade gets a 5xx, which the export's clients retry.
CREATE TABLE export_leases (
  pool         text NOT NULL,
  slot         smallint NOT NULL CHECK (slot >= 0),
  export_id    text NOT NULL,
  lease_until  timestamptz(3) NOT NULL,
  PRIMARY KEY (pool, slot)
);
CREATE INDEX export_leases_export_idx ON export_leases (export_id);

DROP TABLE export_slots;
