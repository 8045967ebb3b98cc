-- What a merchant's dashboard shows and does beyond the first version (issue 11).

-- Each status an order entered, when, and who moved it there: the order page's timeline. Written
-- in the transaction of the change itself. `actor_kind` says what kind of credential acted
-- (`account`: a merchant in the dashboard; `system`: the platform, e.g. the demo seed), and
-- `actor_name` is kept as it was then, so renaming the account does not rewrite history.
CREATE TABLE order_status_changes (
  store_id    text NOT NULL,
  order_id    text NOT NULL,
  seq         integer NOT NULL,
  status      text NOT NULL CHECK (status IN ('pending', 'paid', 'confirmed', 'shipped', 'delivered', 'cancelled')),
  changed_at  timestamptz(3) NOT NULL,
  actor_kind  text NOT NULL CHECK (actor_kind IN ('account', 'system', 'unknown')),
  actor_id    text,
  actor_name  text NOT NULL,
  PRIMARY KEY (store_id, order_id, seq),
  FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
);

-- Orders from before: their creation, and their present status if it moved since (by whom is not
-- known any more).
INSERT INTO order_status_changes (store_id, order_id, seq, status, changed_at, actor_kind, actor_id, actor_name)
SELECT store_id, id, 1, 'pending', created_at, 'unknown', NULL, 'Unknown' FROM orders;
INSERT INTO order_status_changes (store_id, order_id, seq, status, changed_at, actor_kind, actor_id, actor_name)
SELECT store_id, id, 2, status, updated_at, 'unknown', NULL, 'Unknown' FROM orders WHERE status <> 'pending';

-- A customer deleted while they have orders is anonymised, not removed (the orders keep their
-- customer): their personal data is overwritten and this records when.
ALTER TABLE customers ADD COLUMN anonymized_at timestamptz(3);

-- An app deleted by its developer: hidden from its owner's list, refused by every OAuth endpoint.
-- The row stays for the deliveries (app/uninstalled among them) and installations that name it.
ALTER TABLE apps ADD COLUMN deleted_at timestamptz(3);

-- Events of one resource (an order's webhooks on its page).
CREATE INDEX events_resource_idx ON events (store_id, resource_id);

-- Orders by status: the overview's counts, and lists filtered by status in any order of creation.
CREATE INDEX orders_status_idx ON orders (store_id, status, created_at, id);
