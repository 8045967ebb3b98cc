import { EVENT, MAX_LOCATIONS } from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { Location, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { isoString } from "../../lib/iso-string.ts";
import { type AddressInputValue, sameAddress, toAddress } from "../addresses/addresses.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { LocationRepo } from "./locations-repo.ts";

export function toLocationResource(l: Location) {
  return {
    id: l.id,
    name: l.name,
    address: l.address,
    isActive: l.is_active,
    fulfilsOnlineOrders: l.fulfils_online_orders,
    createdAt: isoString(l.created_at),
    updatedAt: isoString(l.updated_at),
  };
}

export interface LocationInput {
  name: string;
  address?: AddressInputValue | null | undefined;
  isActive?: boolean | undefined;
  fulfilsOnlineOrders?: boolean | undefined;
}

const nameTaken = () =>
  new AppError("CONFLICT", {
    message: "Another location of this store has this name.",
    details: [{ field: "name", message: "is already a location of this store" }],
  });

/**
 * A store's locations (issue 30): where stock is kept and orders ship from. A store has at least
 * one active location at all times; a location that holds stock (on hand or committed to orders)
 * is not deleted, and one with orders' stock is not deactivated: move the stock first. Every
 * change emits its `location.*` event. Writes lock the store's row (FOR UPDATE of the store, like
 * a settings change), so two concurrent writes cannot both leave the last active location.
 */
export function createLocationService(deps: {
  db: Db;
  repo: LocationRepo;
  recordEvent: RecordEvent;
  clock: Clock;
}) {
  const { db, repo } = deps;
  const lockStore = (tx: Executor, storeId: string) =>
    tx.selectFrom("stores").select("id").where("id", "=", storeId).forUpdate().executeTakeFirst();
  const record = (
    tx: Executor,
    store: Store,
    l: Location,
    topic: (typeof EVENT)["locationCreated" | "locationUpdated" | "locationDeleted"],
  ) => deps.recordEvent(tx, { storeId: store.id, topic, resourceId: l.id, payload: toLocationResource(l) });

  return {
    async list(store: Store) {
      return (await repo.list(store.id)).map(toLocationResource);
    },
    async get(store: Store, id: string) {
      const l = await repo.find(store.id, id);
      if (!l) throw notFound("Location");
      return toLocationResource(l);
    },
    async create(store: Store, input: LocationInput) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        await lockStore(tx, store.id);
        if ((await repo.list(store.id, tx)).length >= MAX_LOCATIONS)
          throw new AppError("CONFLICT", {
            message: `A store has at most ${MAX_LOCATIONS} locations.`,
            details: [{ field: "name", message: `the store has ${MAX_LOCATIONS} locations already` }],
          });
        if ((await repo.list(store.id, tx)).some((l) => l.name.toLowerCase() === input.name.toLowerCase()))
          throw nameTaken();
        const l = await repo.insert(
          {
            store_id: store.id,
            id: newId("location"),
            name: input.name,
            address: input.address ? toAddress(input.address) : null,
            is_active: input.isActive ?? true,
            fulfils_online_orders: input.fulfilsOnlineOrders ?? true,
            created_at: now,
            updated_at: now,
          },
          tx,
        );
        if (!l) throw nameTaken();
        await record(tx, store, l, EVENT.locationCreated);
        return toLocationResource(l);
      });
    },
    async update(store: Store, id: string, input: Partial<LocationInput>) {
      const now = deps.clock.now();
      return db.transaction().execute(async (tx) => {
        await lockStore(tx, store.id);
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Location");
        const changes: Partial<Location> = {};
        if (input.name !== undefined && input.name !== current.name) {
          const all = await repo.list(store.id, tx);
          if (all.some((l) => l.id !== id && l.name.toLowerCase() === input.name!.toLowerCase()))
            throw nameTaken();
          changes.name = input.name;
        }
        if (input.address !== undefined) {
          const address = input.address && toAddress(input.address);
          if (!sameAddress(address, current.address)) changes.address = address;
        }
        if (
          input.fulfilsOnlineOrders !== undefined &&
          input.fulfilsOnlineOrders !== current.fulfils_online_orders
        )
          changes.fulfils_online_orders = input.fulfilsOnlineOrders;
        if (input.isActive !== undefined && input.isActive !== current.is_active) {
          if (!input.isActive) {
            const others = (await repo.list(store.id, tx)).filter((l) => l.is_active && l.id !== id);
            if (others.length === 0)
              throw new AppError("CONFLICT", {
                message: "A store keeps at least one active location.",
                details: [{ field: "isActive", message: "is the store's last active location" }],
              });
            const { committed } = await repo.holdings(store.id, id, tx);
            if (committed > 0)
              throw new AppError("CONFLICT", {
                message: `${committed} units here are committed to unfulfilled orders: ship or cancel them first.`,
                details: [{ field: "isActive", message: "holds stock committed to orders" }],
              });
          }
          changes.is_active = input.isActive;
        }
        if (Object.keys(changes).length === 0) return toLocationResource(current);
        const l = await repo.update(store.id, id, { ...changes, updated_at: now }, tx);
        await record(tx, store, l, EVENT.locationUpdated);
        return toLocationResource(l);
      });
    },
    async remove(store: Store, id: string) {
      return db.transaction().execute(async (tx) => {
        await lockStore(tx, store.id);
        const current = await repo.findForUpdate(store.id, id, tx);
        if (!current) throw notFound("Location");
        const others = (await repo.list(store.id, tx)).filter((l) => l.is_active && l.id !== id);
        if (others.length === 0)
          throw new AppError("CONFLICT", {
            message: "A store keeps at least one active location.",
            details: [{ field: "id", message: "is the store's last active location" }],
          });
        const { onHand, committed } = await repo.holdings(store.id, id, tx);
        if (onHand > 0 || committed > 0)
          throw new AppError("CONFLICT", {
            message: `This location holds ${onHand} units: move them to another location first.`,
            details: [{ field: "id", message: "holds stock" }],
          });
        const l = await repo.delete(store.id, id, tx);
        await record(tx, store, l, EVENT.locationDeleted);
        return toLocationResource(l);
      });
    },
  };
}
export type LocationService = ReturnType<typeof createLocationService>;
