-- Issue 31, part 1 and 2: the money of an order. Tax rates per country (and region) set by the
-- merchant, prices entered with or without tax per store, tax-exempt customers; discount codes with
-- their limits; an order's discounts, shipping lines and tax, line by line. Amounts are integer minor
-- units of the order's currency, rates parts per million (8.875 % is 88,750). Existing orders keep
-- their totals: no discount, shipping or tax (their total was their subtotal).

ALTER TABLE stores ADD COLUMN taxes_included boolean NOT NULL DEFAULT false;
ALTER TABLE stores ADD COLUMN tax_shipping boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN stores.taxes_included IS 'Prices are entered with tax included (the tax is found inside them); otherwise tax is added on top.';
COMMENT ON COLUMN stores.tax_shipping IS 'Shipping is taxed at the rates of the place the order ships to.';

ALTER TABLE customers ADD COLUMN tax_exempt boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN customers.tax_exempt IS 'Orders for this customer carry no tax.';

CREATE TABLE tax_rates (
  store_id    text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id          text NOT NULL,
  country     text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  region      text NOT NULL DEFAULT '' CHECK (length(region) <= 100),
  title       text NOT NULL CHECK (length(title) BETWEEN 1 AND 100),
  rate_ppm    integer NOT NULL CHECK (rate_ppm BETWEEN 0 AND 1000000),
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  updated_at  timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, id)
);
COMMENT ON TABLE tax_rates IS 'What an order shipping to a country pays: the country''s rate (region empty) and its region''s rate, each its own tax line.';
COMMENT ON COLUMN tax_rates.region IS 'A region code or name as addresses carry it (NY, Ontario); empty: the whole country.';
COMMENT ON COLUMN tax_rates.rate_ppm IS 'Parts per million: 8.875 % is 88750.';
CREATE UNIQUE INDEX tax_rates_place_key ON tax_rates (store_id, country, lower(region));

CREATE TABLE discounts (
  store_id            text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id                  text NOT NULL,
  code                text NOT NULL CHECK (length(code) BETWEEN 1 AND 50),
  kind                text NOT NULL CHECK (kind IN ('percentage', 'fixed_amount', 'free_shipping')),
  rate_ppm            integer NOT NULL DEFAULT 0 CHECK (rate_ppm BETWEEN 0 AND 1000000),
  amount_minor        bigint NOT NULL DEFAULT 0 CHECK (amount_minor >= 0),
  allocation          text NOT NULL DEFAULT 'across' CHECK (allocation IN ('across', 'each')),
  product_ids         text[] NOT NULL DEFAULT '{}',
  collection_ids      text[] NOT NULL DEFAULT '{}',
  min_subtotal_minor  bigint CHECK (min_subtotal_minor >= 0),
  min_quantity        integer CHECK (min_quantity >= 1),
  starts_at           timestamptz(3) NOT NULL,
  ends_at             timestamptz(3),
  usage_limit         integer CHECK (usage_limit >= 1),
  once_per_customer   boolean NOT NULL DEFAULT false,
  combinable          boolean NOT NULL DEFAULT false,
  status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
  times_used          integer NOT NULL DEFAULT 0 CHECK (times_used >= 0),
  created_at          timestamptz(3) NOT NULL DEFAULT now(),
  updated_at          timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, id),
  CHECK (ends_at IS NULL OR ends_at > starts_at),
  -- The ceiling in the row itself: the reserving UPDATE cannot pass it, whatever runs beside it.
  CHECK (usage_limit IS NULL OR times_used <= usage_limit)
);
COMMENT ON COLUMN discounts.code IS 'As the merchant wrote it; matched without regard to case.';
COMMENT ON COLUMN discounts.times_used IS 'Orders that used it: reserved by the order''s transaction, in the statement that checks usage_limit.';
CREATE UNIQUE INDEX discounts_code_key ON discounts (store_id, lower(code));
CREATE INDEX discounts_created_idx ON discounts (store_id, created_at, id);
CREATE INDEX discounts_updated_idx ON discounts (store_id, updated_at, id);

-- Which orders used which discount: once_per_customer reads it, the discount's page lists it.
CREATE TABLE discount_usages (
  store_id     text NOT NULL,
  discount_id  text NOT NULL,
  order_id     text NOT NULL,
  customer_id  text NOT NULL,
  used_at      timestamptz(3) NOT NULL,
  PRIMARY KEY (store_id, discount_id, order_id),
  FOREIGN KEY (store_id, discount_id) REFERENCES discounts (store_id, id) ON DELETE CASCADE,
  FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE
);
CREATE INDEX discount_usages_customer_idx ON discount_usages (store_id, discount_id, customer_id);
CREATE INDEX discount_usages_order_idx ON discount_usages (store_id, order_id);
CREATE INDEX discount_usages_used_idx ON discount_usages (store_id, discount_id, used_at DESC, order_id);

ALTER TABLE orders ADD COLUMN discounts_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN shipping_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN tax_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN tax_included_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN taxes_included boolean NOT NULL DEFAULT false;
ALTER TABLE orders ADD COLUMN shipping_lines jsonb NOT NULL DEFAULT '[]';
ALTER TABLE orders ADD COLUMN discount_applications jsonb NOT NULL DEFAULT '[]';
ALTER TABLE orders ADD COLUMN tax_lines jsonb NOT NULL DEFAULT '[]';
ALTER TABLE orders ADD CONSTRAINT orders_money_identity
  CHECK (subtotal_minor - discounts_minor + shipping_minor + tax_minor = total_minor);
COMMENT ON COLUMN orders.tax_minor IS 'Tax added on top of the prices (0 when they include it): subtotal - discounts + shipping + tax = total.';
COMMENT ON COLUMN orders.tax_included_minor IS 'Tax inside the prices (0 when it is added).';
COMMENT ON COLUMN orders.shipping_lines IS '[{title, code, priceMinor, discountAllocations, taxLines}] in order.';
COMMENT ON COLUMN orders.discount_applications IS '[{discountId, code, kind, ratePpm, amountMinor, allocation, takenMinor}] in the order applied.';
COMMENT ON COLUMN orders.tax_lines IS '[{title, ratePpm, amountMinor}]: the order''s tax by rate.';

ALTER TABLE order_line_items ADD COLUMN discount_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE order_line_items ADD COLUMN tax_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE order_line_items ADD COLUMN discount_allocations jsonb NOT NULL DEFAULT '[]';
ALTER TABLE order_line_items ADD COLUMN tax_lines jsonb NOT NULL DEFAULT '[]';
COMMENT ON COLUMN order_line_items.discount_allocations IS '[{application, amountMinor}]: the share of each of the order''s discount applications (by index).';
COMMENT ON COLUMN order_line_items.tax_lines IS '[{title, ratePpm, amountMinor}]: the line''s tax by rate, on what its discounts left.';
