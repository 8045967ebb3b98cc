-- Issue 21, part 2: subscription filters and field lists (Shopify's `filter` and `includeFields`).
-- `filter` is the expression as the app wrote it (parsed and checked against the event's payload
-- schema when the subscription is made; the delivery engine parses it again, once per text, and
-- decides at fan-out whether an event makes a delivery). `fields` are the top-level names of
-- `data` the body carries (`id` always). Null: every event, the whole of `data`. The API bounds
-- both (contracts/webhook-filters.ts); no CHECK here, so a later bound is one place.
ALTER TABLE webhook_subscriptions ADD COLUMN filter text;
ALTER TABLE webhook_subscriptions ADD COLUMN fields text[];
