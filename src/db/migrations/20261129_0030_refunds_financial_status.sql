-- Issue 31, part 3: refunds. A refund records money the merchant's payment provider returned for
-- lines of a paid order (their share of its discounts and tax) and optionally its shipping, and
-- where the goods went back into stock; it moves no money itself. The order's financial status
-- follows, apart from its fulfilment status. Ceilings are in the rows: never more refunded than
-- paid, per line (quantities) and in total (amounts), whatever runs beside it.

ALTER TABLE orders ADD COLUMN financial_status text NOT NULL DEFAULT 'pending'
  CHECK (financial_status IN ('pending', 'paid', 'partially_refunded', 'refunded', 'voided'));
ALTER TABLE orders ADD COLUMN refunded_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN shipping_refunded_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE orders ADD CONSTRAINT orders_refund_ceiling
  CHECK (refunded_minor >= 0 AND refunded_minor <= total_minor AND shipping_refunded_minor >= 0);
COMMENT ON COLUMN orders.financial_status IS 'pending (not paid yet), paid, partially_refunded, refunded, voided (cancelled before it was paid).';
COMMENT ON COLUMN orders.refunded_minor IS 'What its refunds returned in all: net = total - refunded.';

-- Orders placed before: paid once they moved past pending (or were paid, then cancelled).
UPDATE orders o SET financial_status = CASE
  WHEN o.status IN ('paid', 'confirmed', 'shipped', 'delivered') THEN 'paid'
  WHEN o.status = 'cancelled' AND EXISTS (
    SELECT 1 FROM order_status_changes c
     WHERE c.store_id = o.store_id AND c.order_id = o.id AND c.status = 'paid') THEN 'paid'
  WHEN o.status = 'cancelled' THEN 'voided'
  ELSE 'pending' END
WHERE o.status <> 'pending';

ALTER TABLE order_line_items ADD COLUMN refunded_quantity integer NOT NULL DEFAULT 0;
ALTER TABLE order_line_items ADD COLUMN restocked_quantity integer NOT NULL DEFAULT 0;
ALTER TABLE order_line_items ADD CONSTRAINT order_line_items_refund_ceiling
  CHECK (refunded_quantity >= 0 AND refunded_quantity <= quantity
         AND restocked_quantity >= 0 AND restocked_quantity <= refunded_quantity);
COMMENT ON COLUMN order_line_items.restocked_quantity IS 'Units refunded and put back into stock: no longer committed, never shipped.';

CREATE TABLE refunds (
  store_id        text NOT NULL,
  id              text NOT NULL,
  order_id        text NOT NULL,
  note            text NOT NULL DEFAULT '',
  location_id     text,
  amount_minor    bigint NOT NULL CHECK (amount_minor >= 0),
  shipping_minor  bigint NOT NULL DEFAULT 0 CHECK (shipping_minor >= 0),
  tax_minor       bigint NOT NULL DEFAULT 0 CHECK (tax_minor >= 0),
  actor_kind      text NOT NULL CHECK (actor_kind IN ('account', 'app', 'key', 'system', 'unknown')),
  actor_id        text,
  created_at      timestamptz(3) NOT NULL,
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
);
COMMENT ON COLUMN refunds.location_id IS 'Where the refunded goods went back into stock; null: not restocked.';
CREATE INDEX refunds_order_idx ON refunds (store_id, order_id, created_at, id);

CREATE TABLE refund_line_items (
  store_id        text NOT NULL,
  refund_id       text NOT NULL,
  line_item_id    text NOT NULL,
  quantity        integer NOT NULL CHECK (quantity >= 1),
  subtotal_minor  bigint NOT NULL,
  discount_minor  bigint NOT NULL,
  tax_minor       bigint NOT NULL,
  amount_minor    bigint NOT NULL,
  restocked       boolean NOT NULL,
  PRIMARY KEY (store_id, refund_id, line_item_id),
  FOREIGN KEY (store_id, refund_id) REFERENCES refunds (store_id, id) ON DELETE CASCADE
);
CREATE INDEX refund_line_items_line_idx ON refund_line_items (store_id, line_item_id);

ALTER TABLE inventory_changes DROP CONSTRAINT inventory_changes_reason_check;
ALTER TABLE inventory_changes ADD CONSTRAINT inventory_changes_reason_check
  CHECK (reason IN ('received', 'correction', 'cycle_count', 'damaged', 'quality_control', 'restock', 'movement', 'order_placed', 'order_shipped', 'order_cancelled', 'order_refunded', 'other'));
