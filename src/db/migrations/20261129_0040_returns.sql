-- Issue 31, part 4: returns. A return is lines and quantities of a shipped order coming back, each
-- with a reason from the contract's list: requested, then approved or declined, then received
-- (restocked at a location, or not), then closed, with the refund that returned the money linked.
CREATE TABLE returns (
  store_id      text NOT NULL,
  id            text NOT NULL,
  order_id      text NOT NULL,
  status        text NOT NULL CHECK (status IN ('requested', 'approved', 'declined', 'received', 'closed')),
  note          text NOT NULL DEFAULT '',
  location_id   text,
  refund_id     text,
  requested_at  timestamptz(3) NOT NULL,
  approved_at   timestamptz(3),
  declined_at   timestamptz(3),
  received_at   timestamptz(3),
  closed_at     timestamptz(3),
  updated_at    timestamptz(3) NOT NULL,
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
);
COMMENT ON COLUMN returns.location_id IS 'Where the received units went back into stock; null: not restocked.';
COMMENT ON COLUMN returns.refund_id IS 'The refund that returned the money for it, when closing it made one.';
CREATE INDEX returns_order_idx ON returns (store_id, order_id, requested_at, id);
CREATE INDEX returns_updated_idx ON returns (store_id, updated_at, id);

CREATE TABLE return_line_items (
  store_id      text NOT NULL,
  return_id     text NOT NULL,
  line_item_id  text NOT NULL,
  quantity      integer NOT NULL CHECK (quantity >= 1),
  reason        text NOT NULL CHECK (reason IN ('unwanted', 'wrong_item', 'not_as_described', 'defective', 'damaged_in_transit', 'size_too_small', 'size_too_large', 'other')),
  PRIMARY KEY (store_id, return_id, line_item_id),
  FOREIGN KEY (store_id, return_id) REFERENCES returns (store_id, id) ON DELETE CASCADE
);
CREATE INDEX return_line_items_line_idx ON return_line_items (store_id, line_item_id);
