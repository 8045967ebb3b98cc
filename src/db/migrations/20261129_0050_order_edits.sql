-- Issue 31, part 5: order edits. An order not yet shipped gains or loses lines, units, discount
-- codes and shipping; it is priced again and its stock committed or released at its location.
-- Each edit is kept with the lines before and after. What the customer paid is now its own
-- number (received_minor), so the difference an edit makes shows as an amount owed by or to the
-- customer (total - received) until the merchant records it settled.

ALTER TABLE orders ADD COLUMN received_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE orders ADD CONSTRAINT orders_received_nonnegative CHECK (received_minor >= 0);
COMMENT ON COLUMN orders.received_minor IS 'Money recorded as received for it: its total when marked paid, then what a settled edit changed. Outstanding = total - received.';
-- Orders paid before: they received their total (edits did not exist).
UPDATE orders SET received_minor = total_minor
 WHERE financial_status IN ('paid', 'partially_refunded', 'refunded');

-- A discount application keeps what it applied to, so an edit applies it again on the same terms.
UPDATE orders o SET discount_applications = (
  SELECT coalesce(jsonb_agg(
           a.value || jsonb_build_object(
             'productIds', coalesce(to_jsonb(d.product_ids), '[]'::jsonb),
             'collectionIds', coalesce(to_jsonb(d.collection_ids), '[]'::jsonb))
           ORDER BY a.ordinality), '[]'::jsonb)
    FROM jsonb_array_elements(o.discount_applications) WITH ORDINALITY a
    LEFT JOIN discounts d ON d.store_id = o.store_id AND d.id = a.value ->> 'discountId')
WHERE jsonb_array_length(o.discount_applications) > 0;

CREATE TABLE order_edits (
  store_id            text NOT NULL,
  id                  text NOT NULL,
  order_id            text NOT NULL,
  note                text NOT NULL DEFAULT '',
  line_items_before   jsonb NOT NULL,
  line_items_after    jsonb NOT NULL,
  codes_before        jsonb NOT NULL,
  codes_after         jsonb NOT NULL,
  shipping_before     jsonb NOT NULL,
  shipping_after      jsonb NOT NULL,
  total_before_minor  bigint NOT NULL,
  total_after_minor   bigint NOT NULL,
  outstanding_after_minor bigint NOT NULL,
  actor_kind          text NOT NULL CHECK (actor_kind IN ('account', 'app', 'key', 'system', 'unknown')),
  actor_id            text,
  created_at          timestamptz(3) NOT NULL,
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
);
COMMENT ON TABLE order_edits IS 'Each committed edit of an order: its lines, codes and shipping before and after, and the totals.';
CREATE INDEX order_edits_order_idx ON order_edits (store_id, order_id, created_at, id);

ALTER TABLE inventory_changes DROP CONSTRAINT inventory_changes_reason_check;
ALTER TABLE inventory_changes ADD CONSTRAINT inventory_changes_reason_check
  CHECK (reason IN ('received', 'correction', 'cycle_count', 'damaged', 'quality_control', 'restock', 'movement', 'order_placed', 'order_shipped', 'order_cancelled', 'order_refunded', 'order_edited', 'other'));
