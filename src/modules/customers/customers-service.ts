import { EVENT } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Customer, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { formatMinorUnits } from "../../lib/money.ts";
import {
  assertPageWindow,
  type ExportWindow,
  finishPage,
  type PageQuery,
  planPage,
} from "../../lib/pagination.ts";
import { sameAddress, sameTags, toAddress } from "../addresses/addresses.ts";
import { mergeMetadata, type Viewer } from "../app-metadata/app-metadata.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { PrivacyService } from "../privacy/privacy-service.ts";
import { type CustomerChanges, type CustomerRepo, NO_ORDERS } from "./customers-repo.ts";
import {
  type CreateCustomerInput,
  CUSTOMER_SORTS,
  type CustomerInput,
  erasedCustomerColumns,
  toCustomerResource,
} from "./customers-schemas.ts";

const emailTaken = () =>
  new AppError("CONFLICT", {
    message: "A customer with this e-mail address already exists in this store.",
    details: [{ field: "email", message: "is already a customer of this store" }],
  });

/**
 * Customers: shared by the dashboard and the Admin API (and, for reading, the developer API).
 * Every change is recorded as its event in the change's transaction: `customer.created`, and
 * `customer.updated` when anything changed (details, addresses, note, tags, an app's metadata).
 */
export function createCustomerService(deps: {
  db: Db;
  repo: CustomerRepo;
  recordEvent: RecordEvent;
  clock: Clock;
  /**
   * The customer's orders, erased with them (orders/orders-erasure.ts): locked and erased in the
   * caller's transaction, their ids answered oldest first.
   */
  orders: { ofCustomer(tx: Executor, storeId: string, customerId: string, now: Date): Promise<string[]> };
  /**
   * The privacy side of a deletion: the stored copies of the customer's data erased, and
   * `customer.redact` to the apps.
   */
  privacy: Pick<PrivacyService, "customerRemoved" | "eraseStoredCopies">;
}) {
  const { db, repo } = deps;

  /** Customers as the APIs show them to `viewer`, their orders' figures read in one statement. */
  async function resources(store: Store, rows: Customer[], viewer?: Viewer, tx: Executor = db) {
    const figures = await repo.orderFigures(
      store.id,
      rows.map((c) => c.id),
      tx,
    );
    return rows.map((c) => toCustomerResource(c, figures.get(c.id) ?? NO_ORDERS, store.currency, viewer));
  }
  const resource = async (store: Store, row: Customer, viewer?: Viewer, tx: Executor = db) =>
    (await resources(store, [row], viewer, tx))[0]!;

  // A new customer has no orders yet (an order placed for them is inserted after them).
  const recordChange = async (tx: Executor, store: Store, customer: Customer, created: boolean) =>
    deps.recordEvent(tx, {
      storeId: store.id,
      topic: created ? EVENT.customerCreated : EVENT.customerUpdated,
      resourceId: customer.id,
      payload: created
        ? toCustomerResource(customer, NO_ORDERS, store.currency)
        : await resource(store, customer, undefined, tx),
      appMetadata: customer.metadata,
    });

  /** Inserts a customer and its `customer.created`; undefined when the e-mail address is taken. */
  async function insert(tx: Executor, store: Store, input: CreateCustomerInput, viewer: Viewer, now: Date) {
    const customer = await repo.insert(
      {
        store_id: store.id,
        id: newId("customer"),
        email: input.email.trim(),
        first_name: input.firstName.trim(),
        last_name: (input.lastName ?? "").trim(),
        phone: input.phone ?? null,
        addresses: (input.addresses ?? []).map(toAddress),
        note: input.note ?? "",
        tags: input.tags ?? [],
        tax_exempt: input.taxExempt ?? false,
        metadata: viewer ? mergeMetadata({}, viewer.appId, input.metadata).metadata : {},
        created_at: now,
        updated_at: now,
        anonymized_at: null,
      },
      tx,
    );
    if (customer) await recordChange(tx, store, customer, true);
    return customer;
  }

  return {
    async create(store: Store, input: CreateCustomerInput, viewer?: Viewer) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const customer = await insert(tx, store, input, viewer, now);
        if (!customer) throw emailTaken();
        return toCustomerResource(customer, NO_ORDERS, store.currency, viewer);
      });
    },

    /**
     * Inside an order's transaction: the store's customer with the e-mail address, locked against
     * their deletion as `findForOrder` locks, or a new one (with its `customer.created`). An
     * existing customer's details are left as they are.
     */
    async findOrCreateIn(tx: Executor, store: Store, input: CreateCustomerInput, viewer: Viewer, now: Date) {
      const existing = await repo.findByEmail(store.id, input.email.trim(), tx, true);
      if (existing) return existing;
      // A concurrent create of the same address may win the unique index between the two reads.
      return (
        (await insert(tx, store, input, viewer, now)) ??
        (await repo.findByEmail(store.id, input.email.trim(), tx, true))!
      );
    },

    async get(store: Store, id: string, viewer?: Viewer) {
      const customer = await repo.find(store.id, id);
      if (!customer) throw notFound("Customer");
      return resource(store, customer, viewer);
    },

    /**
     * Changes the customer's details; 409 when the e-mail address belongs to another customer or
     * the customer was deleted (anonymised). An update that changes nothing writes nothing and
     * emits nothing.
     */
    async update(store: Store, id: string, input: CustomerInput, viewer?: Viewer) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Customer");
        if (current.anonymized_at) {
          throw new AppError("CONFLICT", {
            message: "This customer was deleted; their details cannot change.",
          });
        }
        const changes: CustomerChanges = { updated_at: now };
        const set = <K extends keyof CustomerChanges>(key: K, value: CustomerChanges[K], same: boolean) => {
          if (!same) changes[key] = value;
        };
        if (input.email !== undefined) {
          const email = input.email.trim();
          set("email", email, email === current.email);
        }
        if (input.firstName !== undefined) {
          const first = input.firstName.trim();
          if (!first)
            throw new AppError("VALIDATION_FAILED", {
              details: [{ field: "firstName", message: "is required" }],
            });
          set("first_name", first, first === current.first_name);
        }
        if (input.lastName !== undefined) {
          const last = input.lastName.trim();
          set("last_name", last, last === current.last_name);
        }
        if (input.phone !== undefined) set("phone", input.phone, input.phone === current.phone);
        if (input.addresses !== undefined) {
          const addresses = input.addresses.map(toAddress);
          const before = current.addresses ?? [];
          set(
            "addresses",
            addresses,
            addresses.length === before.length && addresses.every((a, i) => sameAddress(a, before[i]!)),
          );
        }
        if (input.note !== undefined) set("note", input.note, input.note === current.note);
        if (input.tags !== undefined) set("tags", input.tags, sameTags(input.tags, current.tags ?? []));
        if (input.taxExempt !== undefined)
          set("tax_exempt", input.taxExempt, input.taxExempt === current.tax_exempt);
        if (viewer && input.metadata !== undefined) {
          const merged = mergeMetadata(current.metadata, viewer.appId, input.metadata);
          set("metadata", merged.metadata, !merged.changed);
        }
        if (Object.keys(changes).length === 1) return resource(store, current, viewer, tx);
        const updated = await repo.update(store.id, id, changes, tx);
        if (!updated) throw emailTaken();
        await recordChange(tx, store, updated, false);
        return resource(store, updated, viewer, tx);
      });
    },

    /**
     * Deletes a customer. One with orders is anonymised instead: the orders keep their customer,
     * and the customer's personal data is erased everywhere the platform stored it, by the
     * contract's rule (contracts/erasure.ts), in this one transaction: their row (name, e-mail
     * address, phone, addresses, note, tags, every app's metadata; the orders' search copy follows
     * by trigger), their orders' rows (shipping address down to the city, note, tracking), the
     * payloads of the events of both, the bodies stored with those events' deliveries and what
     * receivers answered to them, and the stored idempotent answers naming them
     * (privacy.eraseStoredCopies). A customer without orders is deleted, and their events and
     * deliveries erased alike. Apps hear of an anonymisation as `customer.updated`, and of either
     * as `customer.redact` (with the order ids) at their privacy endpoint, in the same
     * transaction. Answers which of the two happened.
     */
    async remove(store: Store, id: string): Promise<{ outcome: "deleted" | "anonymized" }> {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current || current.anonymized_at) throw notFound("Customer");
        // After the customer's row: an order being placed for them holds it (key share) until it
        // commits, so every order of theirs is here, and erased.
        const orderIds = await deps.orders.ofCustomer(tx, store.id, id, now);
        if (orderIds.length === 0) {
          await repo.delete(store.id, id, tx);
          await deps.privacy.eraseStoredCopies(tx, store, id, []);
          await deps.privacy.customerRemoved(tx, store, id, []);
          return { outcome: "deleted" as const };
        }
        const updated = await repo.update(
          store.id,
          id,
          { ...erasedCustomerColumns(current), anonymized_at: now, updated_at: now },
          tx,
        );
        await deps.privacy.eraseStoredCopies(tx, store, id, orderIds);
        if (updated) await recordChange(tx, store, updated, false);
        await deps.privacy.customerRemoved(tx, store, id, orderIds);
        return { outcome: "anonymized" as const };
      });
    },

    /** How many orders the customer placed, what they paid less refunds, when they last ordered. */
    async stats(store: Store, id: string) {
      const customer = await repo.find(store.id, id);
      if (!customer) throw notFound("Customer");
      const s = (await repo.orderFigures(store.id, [id])).get(id) ?? NO_ORDERS;
      return {
        ordersCount: s.orders,
        totalSpent: formatMinorUnits(s.spentMinor, store.currency),
        currency: store.currency,
        lastOrderAt: s.lastOrderAt ? s.lastOrderAt.toISOString() : null,
      };
    },
    async list(
      store: Store,
      query: PageQuery & { q?: string | undefined; ids?: string | undefined },
      viewer?: Viewer,
    ) {
      const filter = { q: query.q?.trim(), ids: query.ids };
      const plan = planPage(query, CUSTOMER_SORTS, filter);
      const page = finishPage(await repo.list(store.id, plan, filter), plan);
      return { items: await resources(store, page.items, viewer), meta: page.meta };
    },
    /** A bulk export's batch (modules/exports), each customer exactly as `list` shows it to `viewer`. */
    async exportBatch(store: Store, window: ExportWindow, viewer?: Viewer) {
      return resources(store, await repo.exportBatch(store.id, window), viewer);
    },
    /** How many the store has, from the kept counts. */
    async count(store: Store) {
      return repo.count(store.id);
    },
    /** The developer API's offset pages with the store's total (from the kept counts). */
    async listByPage(store: Store, page: number, perPage: number) {
      assertPageWindow(page, perPage, "customers");
      const [total, rows] = await Promise.all([
        repo.count(store.id),
        repo.listPage(store.id, (page - 1) * perPage, perPage),
      ]);
      return {
        items: await resources(store, rows),
        meta: { page, perPage, total, totalPages: Math.ceil(total / perPage) },
      };
    },
  };
}
export type CustomerService = ReturnType<typeof createCustomerService>;
