-- The database describes its non-obvious tables and columns itself: the row types generated from
-- it (src/db/schema.ts, `npm run db:types`) carry these comments as JSDoc, so what a column means
-- is written once, beside the column, instead of in a hand-kept copy of the schema. A later
-- migration that adds such a column says what it is with its own COMMENT ON.

COMMENT ON COLUMN accounts.device_epoch IS
  'Signed into every device cookie; one more on a password change and on sign-out everywhere.';

COMMENT ON COLUMN customers.anonymized_at IS
  'Set when the customer was deleted while they had orders: their personal data is overwritten.';
COMMENT ON COLUMN customers.addresses IS 'The first is the default shipping address.';

COMMENT ON COLUMN orders.number_prefix IS
  'The store''s prefix when the order was placed: its name is number_prefix || number.';
COMMENT ON COLUMN orders.customer_text IS
  'The customer''s e-mail address and name, copied by triggers for the orders'' search (migration 20261124_0010); not part of the order''s resource.';

COMMENT ON COLUMN events.test IS 'A test event (POST /webhooks/test): its body and deliveries say so.';
COMMENT ON COLUMN events.feed_position IS
  'Place in the store''s event feed, given after commit by the sequencer (feed-repo.ts); null until then.';
COMMENT ON COLUMN events.app_metadata IS
  'Every app''s metadata on the event''s record at the time (migration 20261126_0041), kept beside the payload: each app''s delivery carries only its own pairs. Null for events without any.';
COMMENT ON COLUMN events.redacted_at IS
  'When the payload was erased (its customer deleted; migration 20261128_0020), its deliveries'' bodies with it: a dispatch that read the payload before leaves the event to the next one.';

COMMENT ON TABLE event_feed_heads IS
  'The last feed position given in each store; its row is locked while the sequencer numbers.';

COMMENT ON COLUMN apps.deleted_at IS
  'Set when the developer deleted the app: hidden, and refused by every OAuth endpoint.';
COMMENT ON COLUMN apps.privacy_webhook_url IS
  'Where the privacy events go (migration 20261126_0080); null: none declared.';
COMMENT ON COLUMN apps.privacy_secret_ciphertext IS
  'The privacy endpoint''s signing secret, sealed; made when an endpoint is first declared.';
COMMENT ON COLUMN apps.privacy_previous_secret_ciphertext IS
  'The privacy secret before the last rotation, sealed; signs beside the new one during the overlap.';

COMMENT ON COLUMN installations.shop_redact_due_at IS
  'When `shop.redact` is due (set at uninstall, migration 20261126_0080).';
COMMENT ON COLUMN installations.shop_redact_done_at IS
  'When a worker claimed it: sent, or not sent because the app was installed again.';

COMMENT ON COLUMN access_tokens.scopes IS
  'Narrower than the grant''s after a refresh that asked for fewer scopes; null: the grant''s.';

COMMENT ON COLUMN webhook_subscriptions.previous_secret_ciphertext IS
  'The secret before the last rotation, still encrypted; signs beside the new one during the overlap.';
COMMENT ON COLUMN webhook_subscriptions.secret_rotated_at IS 'When the secret was last rotated (null: never).';
COMMENT ON COLUMN webhook_subscriptions.disabled_at IS
  'Set while disabled (migration 20261126_0030): when it was disabled.';
COMMENT ON COLUMN webhook_subscriptions.disabled_reason IS
  'Set while disabled (migration 20261126_0030): the last error that caused it.';
COMMENT ON COLUMN webhook_subscriptions.filter IS
  'Which events it receives (migration 20261126_0070); null: all.';
COMMENT ON COLUMN webhook_subscriptions.fields IS
  'Which fields of their data it receives (migration 20261126_0070); null: all.';

COMMENT ON TABLE webhook_subscription_failures IS
  'A subscription''s unbroken run of failed attempts: a row only while it lasts (migration 20261126_0030).';

COMMENT ON COLUMN webhook_deliveries.webhook_id IS
  'Sent as x-webhook-id; null: the delivery''s own id (a recovered delivery carries its original''s).';
COMMENT ON COLUMN webhook_deliveries.recovery_of IS
  'The delivery this one recovers (recover''s new delivery; unique: each is recovered once).';

COMMENT ON TABLE webhook_listen_sessions IS 'A `listen` connection''s session (migration 20261125_0012).';
COMMENT ON COLUMN webhook_listen_sessions.position IS 'The feed position the session has read up to.';
COMMENT ON COLUMN webhook_listen_sessions.start_position IS
  'The feed position it began after: a resume never goes before it.';

COMMENT ON COLUMN idempotency_keys.store_id IS
  'For an answer naming a customer or one of their orders (migration 20261128_0020): the store.';
COMMENT ON COLUMN idempotency_keys.customer_id IS
  'For an answer naming a customer or one of their orders (migration 20261128_0020): the customer.';
COMMENT ON COLUMN idempotency_keys.erased_response_body IS
  'For an answer naming a customer or one of their orders: the answer with their personal data erased, sealed like response_body, which it replaces when the customer is erased (then null).';

COMMENT ON TABLE store_row_counts IS
  'Written only by the triggers of migrations 20261123_0040 and 20261126_0042; the application reads the sum of a store''s slots.';

COMMENT ON TABLE product_sku_suffixes IS
  'Every suffix of each product''s SKU, upper-cased: written only by the triggers of migration 20261126_0120.';

COMMENT ON TABLE export_leases IS
  'A running bulk export''s hold on one slot of one of its pools (migration 20261128_0010).';
COMMENT ON COLUMN export_leases.pool IS
  '`install:<installation id>`, `apikey:<key id>`, `store:<store id>` or `account:<account id>`.';
