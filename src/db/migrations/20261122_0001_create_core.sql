-- Accounts, sessions, stores and each store's catalogue, customers, orders and the event outbox.
-- Tenant tables lead with store_id (primary key and every index), so they can be sharded by store.
-- Foreign keys between tenant tables include store_id, so a row can never point into another store.

CREATE TABLE accounts (
  id            text PRIMARY KEY,
  email         text NOT NULL,
  name          text NOT NULL,
  password_hash text NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email_key ON accounts (lower(email));

CREATE TABLE sessions (
  token_hash   text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  expires_at   timestamptz(3) NOT NULL
);
CREATE INDEX sessions_account_id_idx ON sessions (account_id);

CREATE TABLE stores (
  id                 text PRIMARY KEY,
  slug               text NOT NULL,
  name               text NOT NULL,
  currency           text NOT NULL,
  owner_account_id   text NOT NULL REFERENCES accounts (id),
  next_order_number  bigint NOT NULL DEFAULT 1001,
  created_at         timestamptz(3) NOT NULL DEFAULT now(),
  updated_at         timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX stores_slug_key ON stores (slug);
CREATE INDEX stores_owner_account_id_idx ON stores (owner_account_id, created_at, id);

CREATE TABLE products (
  store_id     text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id           text NOT NULL,
  title        text NOT NULL,
  description  text NOT NULL DEFAULT '',
  price_minor  bigint NOT NULL CHECK (price_minor >= 0),
  sku          text,
  stock        integer NOT NULL DEFAULT 0 CHECK (stock >= 0),
  status       text NOT NULL CHECK (status IN ('active', 'draft', 'archived')),
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at   timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, id)
);
CREATE UNIQUE INDEX products_sku_key ON products (store_id, sku) WHERE sku IS NOT NULL;
CREATE INDEX products_created_idx ON products (store_id, created_at, id);
CREATE INDEX products_updated_idx ON products (store_id, updated_at, id);

CREATE TABLE customers (
  store_id     text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id           text NOT NULL,
  email        text NOT NULL,
  first_name   text NOT NULL,
  last_name    text NOT NULL DEFAULT '',
  phone        text,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  updated_at   timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, id)
);
CREATE UNIQUE INDEX customers_email_key ON customers (store_id, lower(email));
CREATE INDEX customers_created_idx ON customers (store_id, created_at, id);
CREATE INDEX customers_updated_idx ON customers (store_id, updated_at, id);

CREATE TABLE orders (
  store_id        text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  id              text NOT NULL,
  number          bigint NOT NULL,
  customer_id     text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'paid', 'confirmed', 'shipped', 'delivered', 'cancelled')),
  currency        text NOT NULL,
  subtotal_minor  bigint NOT NULL,
  total_minor     bigint NOT NULL,
  note            text NOT NULL DEFAULT '',
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  updated_at      timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, customer_id) REFERENCES customers (store_id, id)
);
CREATE UNIQUE INDEX orders_number_key ON orders (store_id, number);
CREATE INDEX orders_customer_idx ON orders (store_id, customer_id);
CREATE INDEX orders_created_idx ON orders (store_id, created_at, id);
CREATE INDEX orders_updated_idx ON orders (store_id, updated_at, id);

-- Line items keep a snapshot of what was sold; deleting the product later leaves the order intact.
CREATE TABLE order_line_items (
  store_id          text NOT NULL,
  id                text NOT NULL,
  order_id          text NOT NULL,
  position          integer NOT NULL,
  product_id        text,
  title             text NOT NULL,
  sku               text,
  unit_price_minor  bigint NOT NULL,
  quantity          integer NOT NULL CHECK (quantity > 0),
  total_minor       bigint NOT NULL,
  PRIMARY KEY (store_id, id),
  FOREIGN KEY (store_id, order_id) REFERENCES orders (store_id, id) ON DELETE CASCADE,
  FOREIGN KEY (store_id, product_id) REFERENCES products (store_id, id) ON DELETE SET NULL (product_id)
);
CREATE INDEX order_line_items_order_idx ON order_line_items (store_id, order_id, position);
CREATE INDEX order_line_items_product_idx ON order_line_items (store_id, product_id);

-- The transactional outbox: one row per domain event, written in the transaction of the change.
-- `seq` gives a total order for consumers; `payload` is the resource as the APIs return it.
CREATE TABLE events (
  seq            bigserial PRIMARY KEY,
  id             text NOT NULL UNIQUE,
  store_id       text NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
  topic          text NOT NULL,
  resource_id    text NOT NULL,
  payload        jsonb NOT NULL,
  created_at     timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX events_store_idx ON events (store_id, seq);
