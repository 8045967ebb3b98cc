import {
  allowedTransitions,
  canTransition,
  EVENT,
  FinancialStatus,
  ORDER_STATUSES,
  OrderStatus,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { AddressJson, FulfillmentJson, Order, OrderLineItem, Store } from "../../db/schema.ts";
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
import type { DiscountService } from "../discounts/discounts-service.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { InventoryRepo } from "../inventory/inventory-repo.ts";
import { type InventoryService, InventoryShortfall } from "../inventory/inventory-service.ts";
import type { LocationRepo } from "../inventory/locations-repo.ts";
import type { ProductRepo } from "../products/products-repo.ts";
import type { StoreRepo } from "../stores/stores-repo.ts";
import type { TaxService } from "../taxes/taxes.ts";
import { createOrderLines, placedLine } from "./order-lines.ts";
import { priceOrder } from "./order-money.ts";
import { moneyColumns, shippingLinesIn } from "./order-pricing.ts";
import {
  type Actor,
  type LineItemRow,
  type OrderChanges,
  type OrderRepo,
  orderNumberOf,
} from "./orders-repo.ts";
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
  /** The catalogue's reads an order needs (the inventory's repository). */
  catalogue: Pick<InventoryRepo, "variantsByIds" | "lockProducts" | "levelsAt"> & {
    variantsOf: ProductRepo["variantsOf"];
  };
  locations: Pick<LocationRepo, "forOrders" | "list">;
  inventory: Pick<InventoryService, "apply">;
  discounts: Pick<DiscountService, "applyToOrder" | "recordUses">;
  taxes: Pick<TaxService, "ratesFor">;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;

  const { resolveLines, chooseLocation, notEnoughStock } = createOrderLines(deps);

  /**
   * Stock of an order that ships (taken from what it committed) or is cancelled (committed back
   * to available), at the order's location; lines whose variant is gone are left. Answers the
   * lines as they are after.
   */
  async function settleStock(
    tx: Executor,
    store: Store,
    order: Order,
    items: OrderLineItem[],
    status: OrderStatus,
    actor: Actor,
  ): Promise<OrderLineItem[]> {
    // Units refunded and restocked before it shipped were released already (refunds-service.ts).
    const held = items.filter((li) => li.committed && li.variant_id && li.quantity > li.restocked_quantity);
    if (held.length === 0 || !order.location_id) return items;
    const exists = new Set(
      (
        await deps.catalogue.variantsByIds(
          store.id,
          held.map((li) => li.variant_id!),
          tx,
        )
      ).map((v) => v.id),
    );
    const writes = held
      .filter((li) => exists.has(li.variant_id!))
      .map((li) => ({
        variantId: li.variant_id!,
        locationId: order.location_id!,
        deltas:
          status === OrderStatus.shipped
            ? { committed: -(li.quantity - li.restocked_quantity) }
            : {
                committed: -(li.quantity - li.restocked_quantity),
                available: li.quantity - li.restocked_quantity,
              },
        field: `lineItems.${li.position}`,
      }));
    await deps.inventory.apply(tx, store, writes, {
      reason: status === OrderStatus.shipped ? "order_shipped" : "order_cancelled",
      actor: { kind: actor.kind, id: actor.id },
      orderId: order.id,
      locationsChecked: true,
    });
    await repo.releaseLines(store.id, order.id, tx);
    return items.map((li) => ({ ...li, committed: false }));
  }

  /**
   * One step of `current` (locked by the caller) to `status`, in the caller's transaction: the
   * transition checked (409), the money's status following (paid once marked paid; voided when
   * cancelled before it was), the step recorded, stock settled on shipping or cancelling, and the
   * step's event.
   */
  async function move(
    tx: Executor,
    store: Store,
    current: Order,
    status: OrderStatus,
    actor: Actor,
    fulfillment?: FulfillmentInputValue,
  ) {
    const now = deps.clock.now();
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
    const financial =
      current.financial_status === FinancialStatus.pending
        ? status === OrderStatus.paid
          ? FinancialStatus.paid
          : status === OrderStatus.cancelled
            ? FinancialStatus.voided
            : undefined
        : undefined;
    const order = await repo.setStatus(store.id, current.id, status, shipped, now, tx, financial);
    await repo.recordStatus(store.id, current.id, status, now, actor, tx);
    let items = (await repo.lineItems(store.id, [current.id], tx)).get(current.id) ?? [];
    if (status === OrderStatus.cancelled || status === OrderStatus.shipped)
      items = await settleStock(tx, store, order, items, status, actor);
    await recordOrder(tx, store, order, items, ORDER_STATUSES[status].event);
    return { order, items };
  }

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
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        // The store's row first (its number, and its currency and prefix as they are now, locked
        // against a settings change until this commits), then the products in id order: every
        // writer takes these locks in this order, so none waits on another in a cycle.
        const settings = await deps.stores.takeOrderNumber(store.id, tx);
        const { number, currency, prefix } = settings;
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
        const lines = await resolveLines(tx, store, input.lineItems);
        const location = await chooseLocation(tx, store, lines, input.locationId);
        const stockActor = { kind: actor.kind, id: actor.id };
        await deps.inventory
          .apply(
            tx,
            store,
            lines
              .filter((l) => l.variant.tracked)
              .map((l) => ({
                variantId: l.variant.id,
                locationId: location!,
                deltas: { available: -l.quantity, committed: l.quantity },
                field: `lineItems.${l.position}`,
              })),
            { reason: "order_placed", actor: stockActor, orderId, locationsChecked: true },
          )
          .catch((e) => {
            // Another order took the units between the choice and the write: impossible under
            // the products' locks, but a shortfall is still a 409, never a 500.
            if (e instanceof InventoryShortfall) throw notEnoughStock([`${e.write.field}.quantity`]);
            throw e;
          });
        // Left out: the customer's default address; null: ships nowhere.
        const shipping: AddressJson | null =
          input.shippingAddress === undefined
            ? (customer.addresses?.[0] ?? null)
            : input.shippingAddress && toAddress(input.shippingAddress);
        const shippingLines = shippingLinesIn(input.shippingLines ?? [], currency);
        const moneyLines = lines.map((l) => ({
          unitPrice: l.variant.price_minor,
          quantity: l.quantity,
          productId: l.product.id,
        }));
        const forDiscounts = {
          orderId,
          customerId: customer.id,
          lines: moneyLines,
          hasShipping: shippingLines.some((s) => s.price > 0),
        };
        const discounts = await deps.discounts.applyToOrder(
          tx,
          store,
          input.discountCodes ?? [],
          forDiscounts,
          now,
        );
        // Tax where the order ships, or where the store is when it ships nowhere.
        const place = shipping ?? settings.address;
        const priced = priceOrder({
          lines: discounts.lines,
          shipping: shippingLines,
          discounts: discounts.rules,
          taxRates: await deps.taxes.ratesFor(store.id, place?.country ?? null, place?.region ?? null, tx),
          taxesIncluded: settings.taxesIncluded,
          taxShipping: settings.taxShipping,
          taxExempt: customer.tax_exempt,
        });
        const money = moneyColumns(priced, discounts.applications);
        const items: LineItemRow[] = lines.map((l, i) => ({
          ...placedLine(store.id, orderId, l),
          ...money.lines[i]!,
        }));
        items.sort((a, b) => a.position - b.position);
        const order = await repo.insert(
          {
            store_id: store.id,
            id: orderId,
            number,
            number_prefix: prefix,
            customer_id: customer.id,
            status: OrderStatus.pending,
            currency,
            ...money.order,
            taxes_included: settings.taxesIncluded,
            financial_status: FinancialStatus.pending,
            received_minor: 0,
            refunded_minor: 0,
            shipping_refunded_minor: 0,
            note: input.note ?? "",
            tags: input.tags ?? [],
            shipping_address: shipping,
            fulfillment: null,
            location_id: location,
            metadata: viewer ? mergeMetadata({}, viewer.appId, input.metadata).metadata : {},
            created_at: now,
            updated_at: now,
          },
          items,
          tx,
        );
        await deps.discounts.recordUses(tx, store, discounts.reserved, forDiscounts, now);
        await repo.recordStatus(store.id, orderId, OrderStatus.pending, now, actor, tx);
        const stored = items as unknown as OrderLineItem[];
        await recordOrder(tx, store, order, stored, EVENT.orderCreated);
        return toOrderResource(order, stored, viewer);
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
        const { order, items } = await move(tx, store, current, status, actor, fulfillment);
        return toOrderResource(order, items, viewer);
      });
    },

    /**
     * Fulfils a paid (or confirmed) order in one action: confirmed, then shipped with how it left,
     * each step recorded in its history and sent as its event as if taken one by one (409 from
     * any other status). The merchant's "Fulfil" button; an app may do the same.
     */
    async fulfill(
      store: Store,
      id: string,
      actor: Actor,
      fulfillment?: FulfillmentInputValue,
      viewer?: Viewer,
    ) {
      return db.transaction().execute(async (tx) => {
        let current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Order");
        if (current.status !== OrderStatus.paid && current.status !== OrderStatus.confirmed)
          throw new AppError("CONFLICT", {
            message: `Only a paid or confirmed order is fulfilled; this one is ${current.status}.`,
            details: {
              from: current.status,
              to: OrderStatus.shipped,
              allowed: allowedTransitions(current.status),
            },
          });
        if (current.status === OrderStatus.paid)
          current = (await move(tx, store, current, OrderStatus.confirmed, actor)).order;
        const { order, items } = await move(tx, store, current, OrderStatus.shipped, actor, fulfillment);
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

    /** How many the store has, from the kept counts. */
    async count(store: Store) {
      return repo.count(store.id);
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
