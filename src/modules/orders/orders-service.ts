import {
  allowedTransitions,
  canTransition,
  EVENT,
  ORDER_STATUSES,
  OrderStatus,
  ProductStatus,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { OrderLineItem, Product, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { finishPage, type PageQuery, planPage } from "../../lib/pagination.ts";
import type { CustomerRepo } from "../customers/customers-repo.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import { toProductResource } from "../products/products-schemas.ts";
import type { StoreRepo } from "../stores/stores-repo.ts";
import { type Actor, type OrderRepo, orderNumberOf } from "./orders-repo.ts";
import { ORDER_SORTS, toOrderResource } from "./orders-schemas.ts";

export interface CreateOrderInput {
  customerId: string;
  lineItems: Array<{ productId: string; quantity: number }>;
  note?: string | undefined;
}

/**
 * Orders: totals computed here from the catalogue, stock taken in the same transaction (and
 * returned on cancellation), every change recorded as its event.
 */
export function createOrderService(deps: {
  db: Db;
  repo: OrderRepo;
  customers: Pick<CustomerRepo, "find">;
  stores: Pick<StoreRepo, "takeOrderNumber">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;

  /** A stock change is a product change: apps syncing inventory hear of it as `product.updated`. */
  const stockChanged = (tx: Executor, store: Store, product: Product) =>
    deps.recordEvent(tx, {
      storeId: store.id,
      topic: EVENT.productUpdated,
      resourceId: product.id,
      payload: toProductResource(product, store.currency),
    });

  return {
    async create(store: Store, input: CreateOrderInput, actor: Actor) {
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
        if (!(await deps.customers.find(store.id, input.customerId, tx))) {
          throw new AppError("VALIDATION_FAILED", {
            details: [{ field: "customerId", message: "is not a customer of this store" }],
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
        const order = {
          store_id: store.id,
          id: orderId,
          number: await deps.stores.takeOrderNumber(store.id, tx),
          customer_id: input.customerId,
          status: OrderStatus.pending,
          currency: store.currency,
          subtotal_minor: subtotal,
          total_minor: subtotal,
          note: input.note ?? "",
          created_at: now,
          updated_at: now,
        };
        await repo.insert(order, items, tx);
        await repo.recordStatus(store.id, orderId, OrderStatus.pending, now, actor, tx);
        for (const product of touched) await stockChanged(tx, store, product);
        const view = toOrderResource(order, items);
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.orderCreated,
          resourceId: orderId,
          payload: view,
        });
        return view;
      });
    },

    async setStatus(store: Store, id: string, status: OrderStatus, actor: Actor) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Order");
        if (!canTransition(current.status, status)) {
          throw new AppError("CONFLICT", {
            message: `An order cannot move from ${current.status} to ${status}.`,
            details: { from: current.status, to: status, allowed: allowedTransitions(current.status) },
          });
        }
        const order = await repo.setStatus(store.id, id, status, now, tx);
        await repo.recordStatus(store.id, id, status, now, actor, tx);
        const items = (await repo.lineItems(store.id, [id], tx)).get(id) ?? [];
        if (status === OrderStatus.cancelled) {
          for (const li of items) {
            if (!li.product_id) continue;
            const product = await repo.returnStock(store.id, li.product_id, li.quantity, now, tx);
            if (product) await stockChanged(tx, store, product);
          }
        }
        const view = toOrderResource(order, items);
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: ORDER_STATUSES[status].event,
          resourceId: id,
          payload: view,
        });
        return view;
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

    async get(store: Store, id: string) {
      const order = await repo.find(store.id, id);
      if (!order) throw notFound("Order");
      const items = await repo.lineItems(store.id, [id]);
      return toOrderResource(order, items.get(id) ?? []);
    },

    async list(
      store: Store,
      query: PageQuery & {
        status?: OrderStatus | undefined;
        q?: string | undefined;
        customerId?: string | undefined;
      },
    ) {
      const filter = { status: query.status, q: query.q?.trim(), customerId: query.customerId };
      if (filter.q && orderNumberOf(filter.q) === null && filter.q.length < 3) {
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
      const plan = planPage(query, ORDER_SORTS, filter);
      const page = finishPage(await repo.list(store.id, plan, filter), plan);
      const items = await repo.lineItems(
        store.id,
        page.items.map((o) => o.id),
      );
      return { items: page.items.map((o) => toOrderResource(o, items.get(o.id) ?? [])), meta: page.meta };
    },
  };
}
export type OrderService = ReturnType<typeof createOrderService>;
