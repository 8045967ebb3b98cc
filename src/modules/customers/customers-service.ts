import { EVENT } from "../../contracts/index.ts";
import type { Db } from "../../db/client.ts";
import type { Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { formatMinorUnits } from "../../lib/money.ts";
import { finishPage, type PageQuery, planPage } from "../../lib/pagination.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { CustomerRepo } from "./customers-repo.ts";
import { CUSTOMER_SORTS, toCustomerResource, type UpdateCustomerInput } from "./customers-schemas.ts";

export function createCustomerService(deps: {
  db: Db;
  repo: CustomerRepo;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;
  return {
    async create(
      store: Store,
      input: {
        email: string;
        firstName: string;
        lastName?: string | undefined;
        phone?: string | null | undefined;
      },
    ) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const customer = await repo.insert(
          {
            store_id: store.id,
            id: newId("customer"),
            email: input.email.trim(),
            first_name: input.firstName.trim(),
            last_name: (input.lastName ?? "").trim(),
            phone: input.phone ?? null,
            created_at: now,
            updated_at: now,
            anonymized_at: null,
          },
          tx,
        );
        if (!customer) {
          throw new AppError("CONFLICT", {
            message: "A customer with this e-mail address already exists in this store.",
            details: [{ field: "email", message: "is already a customer of this store" }],
          });
        }
        const view = toCustomerResource(customer);
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.customerCreated,
          resourceId: customer.id,
          payload: view,
        });
        return view;
      });
    },
    async get(store: Store, id: string) {
      const customer = await repo.find(store.id, id);
      if (!customer) throw notFound("Customer");
      return toCustomerResource(customer);
    },

    /** Changes the customer's details; 409 when the e-mail address belongs to another customer. */
    async update(store: Store, id: string, input: UpdateCustomerInput) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Customer");
        if (current.anonymized_at) {
          throw new AppError("CONFLICT", {
            message: "This customer was deleted; their details cannot change.",
          });
        }
        const updated = await repo.update(
          store.id,
          id,
          {
            ...(input.email !== undefined ? { email: input.email.trim() } : {}),
            ...(input.firstName !== undefined ? { first_name: input.firstName.trim() } : {}),
            ...(input.lastName !== undefined ? { last_name: input.lastName.trim() } : {}),
            ...(input.phone !== undefined ? { phone: input.phone } : {}),
            updated_at: now,
          },
          tx,
        );
        if (!updated) {
          throw new AppError("CONFLICT", {
            message: "A customer with this e-mail address already exists in this store.",
            details: [{ field: "email", message: "is already a customer of this store" }],
          });
        }
        return toCustomerResource(updated);
      });
    },

    /**
     * Deletes a customer. One with orders is anonymised instead: the orders keep their customer,
     * whose name, e-mail address and phone are overwritten (GDPR-style erasure; the orders'
     * search copy follows by trigger). Answers which of the two happened.
     */
    async remove(store: Store, id: string): Promise<{ outcome: "deleted" | "anonymized" }> {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current || current.anonymized_at) throw notFound("Customer");
        const { orders } = await repo.orderStats(store.id, id, tx);
        if (Number(orders) === 0) {
          await repo.delete(store.id, id, tx);
          return { outcome: "deleted" as const };
        }
        await repo.update(
          store.id,
          id,
          {
            email: `deleted-${id}@anonymized.invalid`,
            first_name: "Deleted",
            last_name: "customer",
            phone: null,
            anonymized_at: now,
            updated_at: now,
          },
          tx,
        );
        return { outcome: "anonymized" as const };
      });
    },

    /** How many orders the customer placed and what they spent (cancelled orders aside). */
    async stats(store: Store, id: string) {
      const customer = await repo.find(store.id, id);
      if (!customer) throw notFound("Customer");
      const s = await repo.orderStats(store.id, id);
      return {
        ordersCount: Number(s.orders),
        totalSpent: formatMinorUnits(Number(s.spent), store.currency),
        currency: store.currency,
        lastOrderAt: s.last_order_at ? (s.last_order_at as Date).toISOString() : null,
      };
    },
    async list(store: Store, query: PageQuery & { q?: string | undefined }) {
      const filter = { q: query.q?.trim() };
      const plan = planPage(query, CUSTOMER_SORTS, filter);
      const page = finishPage(await repo.list(store.id, plan, filter), plan);
      return { items: page.items.map(toCustomerResource), meta: page.meta };
    },
  };
}
export type CustomerService = ReturnType<typeof createCustomerService>;
