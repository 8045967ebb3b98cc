import {
  allowedTransitions,
  canTransition,
  EVENT,
  ORDER_STATUSES,
  OrderStatus,
  ProductStatus,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { AddressJson, FulfillmentJson, Order, OrderLineItem, Product, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import {
  assertPageWindow,
  type ExportWindow,
  finishPage,
  type PageQuery,
  planPage,
} from "../../lib/pagination.ts";
import { sameAddress, sameTags, toAddress } from "../addresses/addresses.ts";
import { mergeMetadata, type Viewer } from "../app-metadata/app-metadata.ts";
import type { CustomerRepo } from "../customers/customers-repo.ts";
import type { CustomerService } from "../customers/customers-service.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import { toProductResource } from "../products/products-schemas.ts";
import type { StoreRepo } from "../stores/stores-repo.ts";
import { type Actor, type OrderChanges, type OrderRepo, orderNumberOf } from "./orders-repo.ts";
import {
  type CreateOrderInput,
  type FulfillmentInputValue,
  ORDER_SORTS,
  toOrderResource,
  type UpdateOrderInput,
} from "./orders-schemas.ts";

/** Statuses after which an order no longer ships anywhere new: its shipping address is final. */
const ADDRESS_FINAL = new Set<OrderStatus>([
  OrderStatus.shipped,
  OrderStatus.delivered,
  OrderStatus.cancelled,
]);

/**
 * Orders: totals computed here from the catalogue, stock taken in the same transaction (and
 * returned on cancellation), every change recorded as its event. Shared by the dashboard (the
 * merchant acts) and the Admin API (an app acts; it sees and writes its own metadata).
 */
export function createOrderService(deps: {
  db: Db;
  repo: OrderRepo;
  customers: Pick<CustomerRepo, "findForOrder">;
  /** Inline customers of an app's order: matched by e-mail address or created in the order's transaction. */
  customerService: Pick<CustomerService, "findOrCreateIn">;
  stores: Pick<StoreRepo, "takeOrderNumber">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;

  /** A stock change is a product change: apps syncing inventory hear of it as `product.updated`. */
  const stockChanged = (tx: Executor, store: Store, currency: string, product: Product) =>
    deps.recordEvent(tx, {
      storeId: store.id,
      topic: EVENT.productUpdated,
      resourceId: product.id,
      payload: toProductResource(product, currency),
      appMetadata: product.metadata,
    });

  const recordOrder = (
    tx: Executor,
    store: Store,
    order: Order,
    items: OrderLineItem[],
    topic: (typeof ORDER_STATUSES)[OrderStatus]["event"] | typeof EVENT.orderUpdated,
  ) =>
    deps.recordEvent(tx, {
      storeId: store.id,
      topic,
      resourceId: order.id,
      payload: toOrderResource(order, items),
      appMetadata: order.metadata,
    });

  return {
    async create(store: Store, input: CreateOrderInput, actor: Actor, viewer?: Viewer) {
      if ((input.customerId === undefined) === (input.customer === undefined)) {
        throw new AppError("VALIDATION_FAILED", {
          message: "Name the order's customer: `customerId` or `customer`, one of them.",
          details: [{ field: "customerId", message: "send customerId or customer (not both)" }],
        });
      }
      const seen = new Set<string>();
      input.lineItems.forEach((li, i) => {
        if (seen.has(li.productId)) {
          throw new AppError("VALIDATION_FAILED", {
            details: [
              { field: `lineItems.${i}.productId`, message: "lists a product already in this order" },
            ],
          });
        }
        seen.add(li.productId);
      });
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        // The store's row first (its number, and its currency and prefix as they are now, locked
        // against a settings change until this commits), then the products in id order: every
        // writer takes these locks in this order, so none waits on another in a cycle.
        const { number, currency, prefix } = await deps.stores.takeOrderNumber(store.id, tx);
        // Locked against the customer's deletion until this commits (findForOrder says why).
        const customer = input.customer
          ? await deps.customerService.findOrCreateIn(tx, store, input.customer, viewer, now)
          : await deps.customers.findForOrder(store.id, input.customerId!, tx);
        if (!customer) {
          throw new AppError("VALIDATION_FAILED", {
            details: [{ field: "customerId", message: "is not a customer of this store" }],
          });
        }
        // An erased customer places nothing more: every order naming them predates the erasure
        // (what lets a stored idempotent answer naming them be taken as erased, idempotency-repo.ts).
        if (customer.anonymized_at) {
          throw new AppError("CONFLICT", {
            message: "This customer was deleted: no order can be placed for them.",
            details: [
              {
                field: input.customer ? "customer.email" : "customerId",
                message: "names a deleted customer",
              },
            ],
          });
        }
        const orderId = newId("order");
        const items: OrderLineItem[] = [];
        // Stock is taken in product-id order so two orders never lock the same rows in opposite order.
        const byProduct = [...input.lineItems.entries()].sort((a, b) =>
          a[1].productId < b[1].productId ? -1 : 1,
        );
        const touched = [];
        for (const [position, line] of byProduct) {
          const product = await repo.takeStock(store.id, line.productId, line.quantity, now, tx);
          if (!product) {
            const field = `lineItems.${position}`;
            const existing = await repo.productAvailability(store.id, line.productId, tx);
            if (existing?.status !== ProductStatus.active) {
              throw new AppError("VALIDATION_FAILED", {
                details: [{ field: `${field}.productId`, message: "is not an active product of this store" }],
              });
            }
            throw new AppError("CONFLICT", {
              message: "Not enough stock for this order.",
              details: [{ field: `${field}.quantity`, message: `only ${existing.stock} in stock` }],
            });
          }
          touched.push(product);
          items.push({
            store_id: store.id,
            id: newId("lineItem"),
            order_id: orderId,
            position,
            product_id: product.id,
            title: product.title,
            sku: product.sku,
            unit_price_minor: product.price_minor,
            quantity: line.quantity,
            total_minor: product.price_minor * line.quantity,
          });
        }
        items.sort((a, b) => a.position - b.position);
        const subtotal = items.reduce((sum, li) => sum + li.total_minor, 0);
        // Left out: the customer's default address; null: ships nowhere.
        const shipping: AddressJson | null =
          input.shippingAddress === undefined
            ? (customer.addresses?.[0] ?? null)
            : input.shippingAddress && toAddress(input.shippingAddress);
        const order = await repo.insert(
          {
            store_id: store.id,
            id: orderId,
            number,
            number_prefix: prefix,
            customer_id: customer.id,
            status: OrderStatus.pending,
            currency,
            subtotal_minor: subtotal,
            total_minor: subtotal,
            note: input.note ?? "",
            tags: input.tags ?? [],
            shipping_address: shipping,
            fulfillment: null,
            metadata: viewer ? mergeMetadata({}, viewer.appId, input.metadata).metadata : {},
            created_at: now,
            updated_at: now,
          },
          items,
          tx,
        );
        await repo.recordStatus(store.id, orderId, OrderStatus.pending, now, actor, tx);
        for (const product of touched) await stockChanged(tx, store, currency, product);
        await recordOrder(tx, store, order, items, EVENT.orderCreated);
        return toOrderResource(order, items, viewer);
      });
    },

    /**
     * Moves the order one step along the contract's transitions (409 otherwise). Moving it to
     * `shipped` records how it left (`fulfillment`: carrier, tracking number and URL, each optional,
     * and when); fulfilment details with any other status are a 400.
     */
    async setStatus(
      store: Store,
      id: string,
      status: OrderStatus,
      actor: Actor,
      fulfillment?: FulfillmentInputValue,
      viewer?: Viewer,
    ) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        // Which order first: another store's order is a 404 whatever the body says.
        if (!current) throw notFound("Order");
        if (fulfillment && status !== OrderStatus.shipped) {
          throw new AppError("VALIDATION_FAILED", {
            message: "Fulfilment details go with the move to shipped.",
            details: [
              { field: "fulfillment", message: `is only accepted with status ${OrderStatus.shipped}` },
            ],
          });
        }
        if (!canTransition(current.status, status)) {
          throw new AppError("CONFLICT", {
            message: `An order cannot move from ${current.status} to ${status}.`,
            details: { from: current.status, to: status, allowed: allowedTransitions(current.status) },
          });
        }
        const shipped: FulfillmentJson | undefined =
          status === OrderStatus.shipped
            ? {
                carrier: fulfillment?.carrier ?? null,
                trackingNumber: fulfillment?.trackingNumber ?? null,
                trackingUrl: fulfillment?.trackingUrl ?? null,
                shippedAt: now.toISOString(),
              }
            : undefined;
        const order = await repo.setStatus(store.id, id, status, shipped, now, tx);
        await repo.recordStatus(store.id, id, status, now, actor, tx);
        const items = (await repo.lineItems(store.id, [id], tx)).get(id) ?? [];
        if (status === OrderStatus.cancelled) {
          for (const li of items) {
            if (!li.product_id) continue;
            const product = await repo.returnStock(store.id, li.product_id, li.quantity, now, tx);
            if (product) await stockChanged(tx, store, order.currency, product);
          }
        }
        await recordOrder(tx, store, order, items, ORDER_STATUSES[status].event);
        return toOrderResource(order, items, viewer);
      });
    },

    /**
     * Changes an order's note, tags, shipping address (until it ships or is cancelled: 409 after)
     * and, for an app, its own metadata. Emits `order.updated` when something changed; an update
     * that changes nothing writes nothing and emits nothing.
     */
    async update(store: Store, id: string, input: UpdateOrderInput, viewer?: Viewer) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Order");
        const changes: OrderChanges = { updated_at: now };
        if (input.note !== undefined && input.note !== current.note) changes.note = input.note;
        if (input.tags !== undefined && !sameTags(input.tags, current.tags ?? [])) changes.tags = input.tags;
        if (input.shippingAddress !== undefined) {
          const address = input.shippingAddress && toAddress(input.shippingAddress);
          if (!sameAddress(address, current.shipping_address)) {
            if (ADDRESS_FINAL.has(current.status)) {
              throw new AppError("CONFLICT", {
                message: `The shipping address of a ${current.status} order cannot change.`,
                details: [
                  { field: "shippingAddress", message: `is final once the order is ${current.status}` },
                ],
              });
            }
            changes.shipping_address = address;
          }
        }
        if (viewer && input.metadata !== undefined) {
          const merged = mergeMetadata(current.metadata, viewer.appId, input.metadata);
          if (merged.changed) changes.metadata = merged.metadata;
        }
        const items = (await repo.lineItems(store.id, [id], tx)).get(id) ?? [];
        if (Object.keys(changes).length === 1) return toOrderResource(current, items, viewer);
        const order = await repo.update(store.id, id, changes, tx);
        await recordOrder(tx, store, order, items, EVENT.orderUpdated);
        return toOrderResource(order, items, viewer);
      });
    },

    /** Each status the order entered, when and by whom, oldest first. */
    async history(store: Store, id: string) {
      if (!(await repo.find(store.id, id))) throw notFound("Order");
      return (await repo.history(store.id, id)).map((h) => ({
        status: h.status,
        at: h.changed_at.toISOString(),
        actor: { kind: h.actor_kind, name: h.actor_name },
      }));
    },

    async get(store: Store, id: string, viewer?: Viewer) {
      const order = await repo.find(store.id, id);
      if (!order) throw notFound("Order");
      const items = await repo.lineItems(store.id, [id]);
      return toOrderResource(order, items.get(id) ?? [], viewer);
    },

    async list(
      store: Store,
      query: PageQuery & {
        status?: OrderStatus | undefined;
        q?: string | undefined;
        customerId?: string | undefined;
      },
      viewer?: Viewer,
    ) {
      const filter = { status: query.status, q: query.q?.trim(), customerId: query.customerId };
      const prefix = store.order_number_prefix;
      if (filter.q && orderNumberOf(filter.q, prefix) === null && filter.q.length < 3) {
        throw new AppError("VALIDATION_FAILED", {
          message: "The search text is too short.",
          details: [
            {
              field: "q",
              message: "must be an order number, or at least 3 characters of the customer's name or e-mail",
            },
          ],
        });
      }
      // The prefix is not part of what the cursor is bound to: it only reads "SO-1042" as 1042.
      const plan = planPage(query, ORDER_SORTS, filter);
      const page = finishPage(await repo.list(store.id, plan, { ...filter, prefix }), plan);
      const items = await repo.lineItems(
        store.id,
        page.items.map((o) => o.id),
      );
      return {
        items: page.items.map((o) => toOrderResource(o, items.get(o.id) ?? [], viewer)),
        meta: page.meta,
      };
    },

    /**
     * A bulk export's batch (modules/exports), each order with its line items exactly as `list`
     * shows it to `viewer`. One snapshot for the orders and their items: a product's deletion
     * updates line items (product id to null), and an order is exported in one state.
     */
    async exportBatch(store: Store, window: ExportWindow, viewer?: Viewer) {
      return db
        .transaction()
        .setIsolationLevel("repeatable read")
        .execute(async (tx) => {
          const rows = await repo.exportBatch(store.id, window, tx);
          const items = await repo.lineItems(
            store.id,
            rows.map((o) => o.id),
            tx,
          );
          return rows.map((o) => toOrderResource(o, items.get(o.id) ?? [], viewer));
        });
    },

    /** The developer API's offset pages with the store's total (from the kept counts). */
    async listByPage(store: Store, page: number, perPage: number) {
      assertPageWindow(page, perPage, "orders");
      const [total, rows] = await Promise.all([
        repo.count(store.id),
        repo.listPage(store.id, (page - 1) * perPage, perPage),
      ]);
      const items = await repo.lineItems(
        store.id,
        rows.map((o) => o.id),
      );
      return {
        items: rows.map((o) => toOrderResource(o, items.get(o.id) ?? [])),
        meta: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
      };
    },
  };
}
export type OrderService = ReturnType<typeof createOrderService>;
