import { EVENT } from "../../contracts/index.ts";
import type { Db } from "../../db/client.ts";
import type { Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { finishPage, type PageQuery, planPage } from "../../lib/pagination.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { CustomerRepo } from "./customers-repo.ts";
import { CUSTOMER_SORTS, toCustomerResource } from "./customers-schemas.ts";

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
    async list(store: Store, query: PageQuery & { q?: string | undefined }) {
      const filter = { q: query.q?.trim() };
      const plan = planPage(query, CUSTOMER_SORTS, filter);
      const page = finishPage(await repo.list(store.id, plan, filter), plan);
      return { items: page.items.map(toCustomerResource), meta: page.meta };
    },
  };
}
export type CustomerService = ReturnType<typeof createCustomerService>;
