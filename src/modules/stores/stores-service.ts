import { EVENT, isCurrencyCode, isTimeZone, type StaffRole, StoreRole } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { currencyExponent } from "../../lib/money.ts";
import { sameAddress, toAddress } from "../addresses/addresses.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { StoreRepo, StoreSettingsChange } from "./stores-repo.ts";
import { type CreateStoreInput, toStoreResource, type UpdateStoreInput } from "./stores-schemas.ts";

/** Slugs that would read as platform pages in URLs or support conversations. */
const RESERVED_SLUGS = new Set([
  "admin",
  "api",
  "app",
  "apps",
  "dashboard",
  "docs",
  "help",
  "login",
  "www",
  "static",
]);

const unknownCurrency = () =>
  new AppError("VALIDATION_FAILED", {
    message: "Unknown currency.",
    details: [{ field: "currency", message: "must be an ISO 4217 currency code such as USD, EUR or SAR" }],
  });

/** A store and the role the asking account holds in it. */
export interface StoreWithRole {
  store: Store;
  role: StoreRole;
}

function roleOf(store: Store, memberRole: StaffRole | null, accountId: string): StoreRole | null {
  if (store.owner_account_id === accountId) return StoreRole.owner;
  return memberRole;
}

export function createStoreService(deps: {
  db: Db;
  repo: StoreRepo;
  recordEvent: RecordEvent;
  clock: Clock;
  /** A new store's first location (issue 30: a store always has one), in its transaction. */
  firstLocation(storeId: string, now: Date, tx: Executor): Promise<unknown>;
}) {
  return {
    async create(ownerId: string, input: CreateStoreInput) {
      const taken = () =>
        new AppError("CONFLICT", {
          message: "This store slug is already taken.",
          details: [{ field: "slug", message: "is already taken" }],
        });
      if (RESERVED_SLUGS.has(input.slug)) throw taken();
      const currency = input.currency ?? "USD";
      if (!isCurrencyCode(currency)) throw unknownCurrency();
      const now = deps.clock.now();
      return deps.db.transaction().execute(async (tx) => {
        const store = await deps.repo.insert(
          {
            id: newId("store"),
            slug: input.slug,
            name: input.name.trim(),
            currency,
            owner_account_id: ownerId,
            created_at: now,
          },
          tx,
        );
        if (!store) throw taken();
        await deps.firstLocation(store.id, now, tx);
        return store;
      });
    },
    /** The stores the account works in (owns or is staff of), each with its role there. */
    async listForAccount(accountId: string): Promise<StoreWithRole[]> {
      const rows = await deps.repo.listForAccount(accountId);
      return rows.flatMap(({ member_role, ...store }) => {
        const role = roleOf(store, member_role, accountId);
        return role ? [{ store, role }] : [];
      });
    },
    /**
     * The store with this slug and the account's role in it, read on every request (a role change
     * or a removal counts from the next request). A store the account neither owns nor works in is
     * NOT_FOUND, never FORBIDDEN.
     */
    async getForAccount(accountId: string, slug: string): Promise<StoreWithRole> {
      const row = await deps.repo.findBySlugForAccount(slug, accountId);
      if (!row) throw notFound("Store");
      const { member_role, ...store } = row;
      const role = roleOf(store, member_role, accountId);
      if (!role) throw notFound("Store");
      return { store, role };
    },
    /** The store as it is now (a credential's cached copy may be a few seconds old). */
    async current(storeId: string): Promise<Store> {
      const store = await deps.repo.findById(storeId);
      if (!store) throw notFound("Store");
      return store;
    },

    /**
     * Changes the store's settings; emits `shop.updated` when something changed (an update that
     * changes nothing answers the store as it is and emits nothing). The currency changes only
     * while the store has no orders: an order's amounts are in the currency it was placed in, and
     * the overview and customer totals add orders up in the store's currency. Product prices keep
     * their amounts in the new currency; one the new currency cannot write is a 409.
     */
    async updateSettings(store: Store, input: UpdateStoreInput) {
      if (input.currency !== undefined && !isCurrencyCode(input.currency)) throw unknownCurrency();
      // The database must know the zone too: the overview counts days in SQL.
      if (
        input.timeZone !== undefined &&
        !(isTimeZone(input.timeZone) && (await deps.repo.knowsTimeZone(input.timeZone)))
      ) {
        throw new AppError("VALIDATION_FAILED", {
          message: "Unknown time zone.",
          details: [{ field: "timeZone", message: "must be an IANA time zone such as Europe/Berlin or UTC" }],
        });
      }
      const now = deps.clock.now();
      return deps.db.transaction().execute(async (tx) => {
        // Locked first, as an order takes its number first: the two never wait on each other in
        // opposite orders, and no order is placed in the old currency after this commits.
        const current = await deps.repo.findForSettings(store.id, tx);
        if (!current) throw notFound("Store");
        const change: StoreSettingsChange = {};
        if (input.name !== undefined) {
          const name = input.name.trim();
          if (!name)
            throw new AppError("VALIDATION_FAILED", { details: [{ field: "name", message: "is required" }] });
          if (name !== current.name) change.name = name;
        }
        if (input.contactEmail !== undefined && input.contactEmail !== current.contact_email)
          change.contact_email = input.contactEmail;
        if (input.address !== undefined) {
          const address = input.address === null ? null : toAddress(input.address);
          if (!sameAddress(address, current.address)) change.address = address;
        }
        if (input.timeZone !== undefined && input.timeZone !== current.time_zone)
          change.time_zone = input.timeZone;
        if (input.orderNumberPrefix !== undefined && input.orderNumberPrefix !== current.order_number_prefix)
          change.order_number_prefix = input.orderNumberPrefix;
        if (input.taxesIncluded !== undefined && input.taxesIncluded !== current.taxes_included)
          change.taxes_included = input.taxesIncluded;
        if (input.taxShipping !== undefined && input.taxShipping !== current.tax_shipping)
          change.tax_shipping = input.taxShipping;
        if (input.currency !== undefined && input.currency !== current.currency) {
          if (await deps.repo.hasOrders(store.id, tx)) {
            throw new AppError("CONFLICT", {
              message: "The currency cannot change once the store has orders: their amounts are in it.",
              details: [{ field: "currency", message: `stays ${current.currency}: the store has orders` }],
            });
          }
          const unfit = await deps.repo.rescalePrices(
            store.id,
            currencyExponent(current.currency),
            currencyExponent(input.currency),
            tx,
          );
          if (unfit > 0) {
            throw new AppError("CONFLICT", {
              message: `${unfit} product price(s) cannot be written in ${input.currency}.`,
              details: [
                {
                  field: "currency",
                  message: `${unfit} product price(s) have more decimals than ${input.currency} allows (or are too large); change them first`,
                },
              ],
            });
          }
          change.currency = input.currency;
        }
        if (Object.keys(change).length === 0) return toStoreResource(current);
        const updated = await deps.repo.updateSettings(store.id, change, now, tx);
        const view = toStoreResource(updated);
        await deps.recordEvent(tx, {
          storeId: store.id,
          topic: EVENT.shopUpdated,
          resourceId: store.id,
          payload: view,
        });
        return view;
      });
    },
  };
}
export type StoreService = ReturnType<typeof createStoreService>;
