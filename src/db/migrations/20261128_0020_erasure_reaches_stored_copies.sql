-- Issue 27, item 2: erasing a customer reaches every stored copy of their data, not only their row
-- (src/contracts/erasure.ts is the rule; docs/decisions.md, "Erasure is complete"). Every new column
-- is nullable without a default: adding it rewrites no table.

-- When an event's payload (and its deliveries' bodies) were erased. A dispatch renders its
-- deliveries' bodies from the payloads it read, then inserts them in a second statement: that
-- statement leaves out an event erased in between (the next dispatch renders it from the erased
-- payload). The worker's follow-up also finds the events erased in the last minutes here, to clear
-- the receivers' answers to attempts that were on the wire during the erasure; the partial index
-- holds only erased events, and retention deletes them with the rest.
ALTER TABLE events ADD COLUMN redacted_at timestamptz(3);
CREATE INDEX events_redacted_idx ON events (redacted_at) WHERE redacted_at IS NOT NULL;

-- The stored idempotent answer that names a customer or one of their orders (a create of either)
-- records the store and that customer, and keeps beside the answer the same answer with the
-- customer's personal data erased, sealed under the same key (derived from SECRETS_KEY and the
-- client's idempotency key, which is not stored: the platform cannot open either). Erasing the
-- customer moves the erased answer into `response_body` in the erasure's transaction, so the copy
-- is gone at once, without the client's key. Rows recorded before this migration have neither and
-- are deleted 24 hours after their request, as every row is.
ALTER TABLE idempotency_keys ADD COLUMN store_id text;
ALTER TABLE idempotency_keys ADD COLUMN customer_id text;
ALTER TABLE idempotency_keys ADD COLUMN erased_response_body text;
CREATE INDEX idempotency_keys_customer_idx ON idempotency_keys (store_id, customer_id)
  WHERE customer_id IS NOT NULL;
