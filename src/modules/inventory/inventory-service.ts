import {
  type ActorKind,
  EVENT,
  INVENTORY_QUANTITY_NAMES,
  type InventoryQuantityName,
  type InventoryReason,
} from "../../contracts/index.ts";
import type { Db, Executor } from "../../db/client.ts";
import type { InventoryChange, InventoryLevel, Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { AppError } from "../../lib/errors.ts";
import { newId } from "../../lib/ids.ts";
import { isoString } from "../../lib/iso-string.ts";
import type { ExportWindow } from "../../lib/pagination.ts";
import type { RecordEvent } from "../events/events-repo.ts";
import type { Principal } from "../families/operation.ts";
import type { InventoryRepo } from "./inventory-repo.ts";
import type { LocationRepo } from "./locations-repo.ts";

/** Who changed stock: the merchant's account, an app, a key pair or the platform (orders, moves). */
export interface StockActor {
  kind: ActorKind;
  id: string | null;
}

/** Who a request's principal is, as stock history names them. */
export function stockActorOf(principal: Principal): StockActor {
  if (principal.kind === "account") return { kind: "account", id: principal.id };
  if (principal.kind === "app") return { kind: "app", id: principal.appId };
  return { kind: "key", id: principal.keyId };
}

/** One level's change in one write: deltas by named quantity. */
export interface LevelWrite {
  variantId: string;
  locationId: string;
  deltas: Partial<Record<InventoryQuantityName, number>>;
  /** Where in the request it came from, for errors (`changes.2`). */
  field: string;
}

/** A write that would take a quantity below zero: nothing was written. */
export class InventoryShortfall extends Error {
  readonly write: LevelWrite;
  readonly level: InventoryLevel | undefined;
  constructor(write: LevelWrite, level: InventoryLevel | undefined) {
    super("Not enough stock");
    this.write = write;
    this.level = level;
  }
}

export function toInventoryLevelResource(l: InventoryLevel) {
  return {
    id: l.id,
    variantId: l.variant_id,
    productId: l.product_id,
    locationId: l.location_id,
    available: l.available,
    committed: l.committed,
    unavailable: l.unavailable,
    onHand: l.on_hand,
    updatedAt: isoString(l.updated_at),
  };
}

export function toInventoryChangeResource(c: InventoryChange) {
  return {
    id: c.id,
    variantId: c.variant_id,
    locationId: c.location_id,
    quantity: c.quantity,
    delta: c.delta,
    quantityAfter: c.quantity_after,
    reason: c.reason,
    note: c.note,
    actor: { kind: c.actor_kind, id: c.actor_id },
    orderId: c.order_id,
    createdAt: isoString(c.created_at),
  };
}

const zero = (): Record<InventoryQuantityName, number> => ({ available: 0, committed: 0, unavailable: 0 });

/**
 * Stock at locations (issue 30): every change goes through `apply`, in the caller's transaction.
 * Locks: the products' rows first (in id order), then the levels (in variant, location order), so a
 * stock write, an order and a product edit never wait on each other in a cycle; each level changes
 * in one conditional UPDATE (inventory-repo `shift`). Each write records its changes (who, why) and
 * one `inventory_level.updated` per level, and its products' figures are refreshed from their
 * variants; a product whose sellable total changed emits `product.updated` (apps pinned before
 * variants read stock there).
 */
export function createInventoryService(deps: {
  db: Db;
  repo: InventoryRepo;
  locations: Pick<LocationRepo, "find">;
  recordEvent: RecordEvent;
  clock: Clock;
  /** Emits `product.updated` for a product whose stock changed. */
  productStockChanged(tx: Executor, store: Store, productId: string): Promise<void>;
}) {
  const { db, repo } = deps;

  async function apply(
    tx: Executor,
    store: Store,
    writes: readonly LevelWrite[],
    why: {
      reason: InventoryReason;
      note?: string | null;
      actor: StockActor;
      orderId?: string | null;
      /** false: the caller emits the product's own event (a product edit, an order's). */
      announce?: boolean;
      /** The caller chose the locations among the store's own (an order). */
      locationsChecked?: boolean;
    },
  ): Promise<InventoryLevel[]> {
    if (writes.length === 0) return [];
    const now = deps.clock.now();
    const variants = new Map(
      (await repo.variantsByIds(store.id, [...new Set(writes.map((w) => w.variantId))], tx)).map((v) => [
        v.id,
        v,
      ]),
    );
    for (const w of writes) {
      const variant = variants.get(w.variantId);
      if (!variant)
        throw new AppError("NOT_FOUND", {
          message: "No such variant in this store.",
          details: [{ field: `${w.field}.variantId`, message: "is not a variant of this store" }],
        });
      if (!variant.tracked)
        throw new AppError("CONFLICT", {
          message: "This variant's stock is not tracked: turn tracking on before writing stock.",
          details: [{ field: `${w.field}.variantId`, message: "is not tracked" }],
        });
    }
    for (const locationId of why.locationsChecked ? [] : new Set(writes.map((w) => w.locationId))) {
      if (!(await deps.locations.find(store.id, locationId, tx)))
        throw new AppError("NOT_FOUND", {
          message: "No such location in this store.",
          details: [
            {
              field: `${writes.find((w) => w.locationId === locationId)!.field}.locationId`,
              message: "is not a location of this store",
            },
          ],
        });
    }
    const productIds = [...new Set([...variants.values()].map((v) => v.product_id))].sort();
    await repo.lockProducts(store.id, productIds, tx);

    // One write per level, in lock order.
    const merged = new Map<string, LevelWrite & { total: Record<InventoryQuantityName, number> }>();
    for (const w of writes) {
      const key = `${w.variantId}\u0000${w.locationId}`;
      const m = merged.get(key) ?? { ...w, total: zero() };
      for (const q of INVENTORY_QUANTITY_NAMES) m.total[q] += w.deltas[q] ?? 0;
      merged.set(key, m);
    }
    const ordered = [...merged.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const levels = new Map<string, { level: InventoryLevel; changes: InventoryChange[] }>();
    for (const [key, w] of ordered) {
      const productId = variants.get(w.variantId)!.product_id;
      let level = await repo.shift(store.id, w.variantId, w.locationId, w.total, now, tx);
      if (!level) {
        // No level yet (a variant's first stock at this location), or not enough stock.
        const existing = await repo.level(store.id, w.variantId, w.locationId, tx);
        if (!existing) {
          await repo.ensureLevel(store.id, productId, w.variantId, w.locationId, now, tx);
          level = await repo.shift(store.id, w.variantId, w.locationId, w.total, now, tx);
        }
        if (!level) throw new InventoryShortfall(w, existing);
      }
      const changes: InventoryChange[] = INVENTORY_QUANTITY_NAMES.filter((q) => w.total[q] !== 0).map(
        (q) => ({
          store_id: store.id,
          id: newId("inventoryChange"),
          variant_id: w.variantId,
          location_id: w.locationId,
          product_id: productId,
          quantity: q,
          delta: w.total[q],
          quantity_after: level[q],
          reason: why.reason,
          note: why.note ?? null,
          actor_kind: why.actor.kind,
          actor_id: why.actor.id,
          order_id: why.orderId ?? null,
          created_at: now,
        }),
      );
      await repo.insertChanges(changes, tx);
      levels.set(key, { level, changes });
    }
    // The events in the order the caller named the levels (a move: from, then to), whatever the
    // lock order (by id) was: the feed and the webhooks say what happened as it was asked.
    for (const key of merged.keys()) {
      const { level, changes } = levels.get(key)!;
      await deps.recordEvent(tx, {
        storeId: store.id,
        topic: EVENT.inventoryLevelUpdated,
        resourceId: level.id,
        payload: { ...toInventoryLevelResource(level), changes: changes.map(toInventoryChangeResource) },
        createdAt: now,
      });
    }
    // What can be sold moved by the sum of the available deltas: the variants' and products' sums
    // follow by the same amount (exact: every writer of these levels holds the products' locks).
    const byVariant = new Map<string, number>();
    for (const [, w] of ordered)
      byVariant.set(w.variantId, (byVariant.get(w.variantId) ?? 0) + w.total.available);
    const byProduct = new Map<string, number>();
    for (const [variantId, delta] of byVariant) {
      if (delta === 0) continue;
      await repo.addAvailable(store.id, variantId, delta, now, tx);
      const productId = variants.get(variantId)!.product_id;
      byProduct.set(productId, (byProduct.get(productId) ?? 0) + delta);
    }
    for (const [productId, delta] of byProduct) {
      if (delta === 0) continue;
      await repo.addProductStock(store.id, productId, delta, now, tx);
      if (why.announce !== false) await deps.productStockChanged(tx, store, productId);
    }
    // In the order the caller named them (a move: from, then to), not the lock order.
    return [...merged.keys()].map((key) => levels.get(key)!.level);
  }

  /**
   * The first levels of new variants (made in the caller's transaction, under its product lock,
   * with the variants' and product's figures already counting `quantity`): one level each at
   * `locationId`, and for stock given, its change and event.
   */
  async function initialStock(
    tx: Executor,
    store: Store,
    locationId: string,
    variants: ReadonlyArray<{ variantId: string; productId: string; quantity: number }>,
    actor: StockActor,
  ) {
    const now = deps.clock.now();
    const levels = await repo.insertLevels(
      variants.map((v) => ({
        store_id: store.id,
        id: newId("inventoryLevel"),
        variant_id: v.variantId,
        location_id: locationId,
        product_id: v.productId,
        available: v.quantity,
        created_at: now,
        updated_at: now,
      })),
      tx,
    );
    for (const level of levels) {
      if (level.available === 0) continue;
      const change: InventoryChange = {
        store_id: store.id,
        id: newId("inventoryChange"),
        variant_id: level.variant_id,
        location_id: locationId,
        product_id: level.product_id,
        quantity: "available",
        delta: level.available,
        quantity_after: level.available,
        reason: "received",
        note: null,
        actor_kind: actor.kind,
        actor_id: actor.id,
        order_id: null,
        created_at: now,
      };
      await repo.insertChanges([change], tx);
      await deps.recordEvent(tx, {
        storeId: store.id,
        topic: EVENT.inventoryLevelUpdated,
        resourceId: level.id,
        payload: { ...toInventoryLevelResource(level), changes: [toInventoryChangeResource(change)] },
        createdAt: now,
      });
    }
  }

  /** A caller's write refused for stock it does not have: 409 naming what is there. */
  const shortfall = (e: unknown) => {
    if (!(e instanceof InventoryShortfall)) throw e;
    const { write, level } = e;
    throw new AppError("CONFLICT", {
      message: "Not enough stock: a quantity would fall below zero. Nothing was changed.",
      details: [
        {
          field: write.field,
          message: `only ${level?.available ?? 0} available, ${level?.unavailable ?? 0} unavailable, ${level?.committed ?? 0} committed at this location`,
        },
      ],
    });
  };

  const answer = (levels: InventoryLevel[]) => levels.map(toInventoryLevelResource);

  return {
    apply,
    initialStock,

    /** Adds each delta (a count received, damaged, recounted) to a level's quantity, all or none. */
    async adjust(
      store: Store,
      input: {
        reason: InventoryReason;
        note?: string | undefined;
        changes: ReadonlyArray<{
          variantId: string;
          locationId: string;
          delta: number;
          quantity?: InventoryQuantityName | undefined;
        }>;
      },
      actor: StockActor,
    ) {
      return db
        .transaction()
        .execute(async (tx) => {
          const writes = input.changes.map((c, i) => ({
            variantId: c.variantId,
            locationId: c.locationId,
            deltas: { [c.quantity ?? "available"]: c.delta },
            field: `changes.${i}`,
          }));
          return answer(
            await apply(tx, store, writes, { reason: input.reason, note: input.note ?? null, actor }),
          );
        })
        .catch(shortfall);
    },

    /**
     * Sets quantities, each compared first with `changeFromQuantity` (what the caller read): when
     * one is not what it is now, 409 INVENTORY_STALE with the current value, and nothing written.
     * `changeFromQuantity: null` sets without comparing.
     */
    async set(
      store: Store,
      input: {
        reason: InventoryReason;
        note?: string | undefined;
        quantities: ReadonlyArray<{
          variantId: string;
          locationId: string;
          quantity?: InventoryQuantityName | undefined;
          value: number;
          changeFromQuantity: number | null;
        }>;
      },
      actor: StockActor,
    ) {
      return db
        .transaction()
        .execute(async (tx) => {
          const variants = await repo.variantsByIds(
            store.id,
            input.quantities.map((q) => q.variantId),
            tx,
          );
          // The products' locks before reading: no writer changes these levels until commit.
          await repo.lockProducts(
            store.id,
            variants.map((v) => v.product_id),
            tx,
          );
          const writes: LevelWrite[] = [];
          for (const [i, q] of input.quantities.entries()) {
            const name = q.quantity ?? "available";
            const level = await repo.level(store.id, q.variantId, q.locationId, tx);
            const current = level?.[name] ?? 0;
            if (q.changeFromQuantity !== null && q.changeFromQuantity !== current)
              throw new AppError("INVENTORY_STALE", {
                message: `The ${name} quantity changed since it was read: it is ${current}, not ${q.changeFromQuantity}. Read it again and retry; nothing was changed.`,
                details: {
                  field: `quantities.${i}.changeFromQuantity`,
                  variantId: q.variantId,
                  locationId: q.locationId,
                  quantity: name,
                  current,
                  changeFromQuantity: q.changeFromQuantity,
                },
              });
            writes.push({
              variantId: q.variantId,
              locationId: q.locationId,
              deltas: { [name]: q.value - current },
              field: `quantities.${i}`,
            });
          }
          return answer(
            await apply(tx, store, writes, { reason: input.reason, note: input.note ?? null, actor }),
          );
        })
        .catch(shortfall);
    },

    /** Moves available stock from one location to another, both levels in one transaction. */
    async move(
      store: Store,
      input: {
        variantId: string;
        fromLocationId: string;
        toLocationId: string;
        quantity: number;
        note?: string | undefined;
      },
      actor: StockActor,
    ) {
      if (input.fromLocationId === input.toLocationId)
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field: "toLocationId", message: "is the location the stock moves from" }],
        });
      return db
        .transaction()
        .execute(async (tx) =>
          answer(
            await apply(
              tx,
              store,
              [
                {
                  variantId: input.variantId,
                  locationId: input.fromLocationId,
                  deltas: { available: -input.quantity },
                  field: "quantity",
                },
                {
                  variantId: input.variantId,
                  locationId: input.toLocationId,
                  deltas: { available: input.quantity },
                  field: "quantity",
                },
              ],
              { reason: "movement", note: input.note ?? null, actor },
            ),
          ),
        )
        .catch(shortfall);
    },

    /**
     * The inventory export's batch: levels in id order. A named location is checked once, at the
     * export's first batch (404 before any line; a location deleted later simply ends the lines).
     */
    async exportBatch(store: Store, window: ExportWindow) {
      if (
        window.locationId &&
        window.after === null &&
        !(await deps.locations.find(store.id, window.locationId))
      )
        throw new AppError("NOT_FOUND", {
          message: "No such location in this store.",
          details: [{ field: "locationId", message: "is not a location of this store" }],
        });
      return (await repo.exportBatch(store.id, window)).map(toInventoryLevelResource);
    },

    async levels(
      store: Store,
      filter: {
        productId?: string | undefined;
        variantId?: string | undefined;
        locationId?: string | undefined;
      },
      cursor: string | undefined,
      limit: number,
    ) {
      const after = cursor ? decodeLevelCursor(cursor) : null;
      const rows = await repo.levels(
        store.id,
        {
          ...(filter.productId ? { productId: filter.productId } : {}),
          ...(filter.variantId ? { variantId: filter.variantId } : {}),
          ...(filter.locationId ? { locationId: filter.locationId } : {}),
        },
        after,
        limit + 1,
      );
      const more = rows.length > limit;
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items: items.map(toInventoryLevelResource),
        meta: { nextCursor: more && last ? encodeCursor([last.variant_id, last.location_id]) : null },
      };
    },

    async changes(
      store: Store,
      filter: { variantId?: string | undefined; locationId?: string | undefined },
      cursor: string | undefined,
      limit: number,
    ) {
      const before = cursor ? decodeChangeCursor(cursor) : null;
      const rows = await repo.changes(
        store.id,
        {
          ...(filter.variantId ? { variantId: filter.variantId } : {}),
          ...(filter.locationId ? { locationId: filter.locationId } : {}),
        },
        before,
        limit + 1,
      );
      const more = rows.length > limit;
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items: items.map(toInventoryChangeResource),
        meta: {
          nextCursor: more && last ? encodeCursor([new Date(last.created_at).toISOString(), last.id]) : null,
        },
      };
    },
  };
}
export type InventoryService = ReturnType<typeof createInventoryService>;

const encodeCursor = (parts: string[]) => Buffer.from(JSON.stringify(parts)).toString("base64url");
function decodeParts(cursor: string): [string, string] {
  try {
    const parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(parts) && parts.length === 2 && parts.every((p) => typeof p === "string"))
      return parts as [string, string];
  } catch {}
  throw new AppError("BAD_REQUEST", {
    message: "The cursor is not one this list gave.",
    details: [{ field: "cursor", message: "is not a cursor of this list" }],
  });
}
const decodeLevelCursor = (cursor: string) => {
  const [variantId, locationId] = decodeParts(cursor);
  return { variantId, locationId };
};
const decodeChangeCursor = (cursor: string) => {
  const [at, id] = decodeParts(cursor);
  const createdAt = new Date(at);
  if (Number.isNaN(createdAt.getTime())) decodeParts("");
  return { createdAt, id };
};
