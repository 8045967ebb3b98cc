import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";

/**
 * Row types of every table, kept in step with db/migrations by hand (one file, reviewed with the
 * migration that changes it). Timestamps are written as Date and read as Date.
 */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface AccountsTable {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  created_at: Timestamp;
}

export interface SessionsTable {
  token_hash: string;
  account_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface StoresTable {
  id: string;
  slug: string;
  name: string;
  currency: string;
  owner_account_id: string;
  next_order_number: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProductsTable {
  store_id: string;
  id: string;
  title: string;
  description: string;
  price_minor: number;
  sku: string | null;
  stock: number;
  status: "active" | "draft" | "archived";
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CustomersTable {
  store_id: string;
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  phone: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type OrderStatus = "pending" | "paid" | "confirmed" | "shipped" | "delivered" | "cancelled";

export interface OrdersTable {
  store_id: string;
  id: string;
  number: number;
  customer_id: string;
  status: OrderStatus;
  currency: string;
  subtotal_minor: number;
  total_minor: number;
  note: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OrderLineItemsTable {
  store_id: string;
  id: string;
  order_id: string;
  position: number;
  product_id: string | null;
  title: string;
  sku: string | null;
  unit_price_minor: number;
  quantity: number;
  total_minor: number;
}

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  store_id: string;
  topic: string;
  resource_id: string;
  payload: Json<unknown>;
  created_at: Timestamp;
}

export interface DB {
  accounts: AccountsTable;
  sessions: SessionsTable;
  stores: StoresTable;
  products: ProductsTable;
  customers: CustomersTable;
  orders: OrdersTable;
  order_line_items: OrderLineItemsTable;
  events: EventsTable;
}

export type Account = Selectable<AccountsTable>;
export type Store = Selectable<StoresTable>;
export type Product = Selectable<ProductsTable>;
export type NewProduct = Insertable<ProductsTable>;
export type ProductUpdate = Updateable<ProductsTable>;
export type Customer = Selectable<CustomersTable>;
export type Order = Selectable<OrdersTable>;
export type OrderLineItem = Selectable<OrderLineItemsTable>;
