import type { Db, Executor } from "../../db/client.ts";

/** One bound a running export counts against: a pool of numbered slots shared by every process. */
export interface ExportPool {
  /** `install:<id>`, `apikey:<key id>`, `store:<id>` or `account:<id>`. */
  pool: string;
  max: number;
}

/** A running export's hold on one slot in each of its pools, under one lease (migration 20261128_0010). */
export interface ExportLease {
  exportId: string;
}

/**
 * The export slots every API process shares. An export takes a slot in each of its pools in one
 * transaction: each slot by one statement that succeeds only where the slot is free or its lease
 * has lapsed, so concurrent requests are counted one by one and never more than a pool's `max`
 * hold its slots. Pools are taken in the order given (holder, store, account: narrowest first),
 * the same order for every export, so two claims never wait on each other in a cycle.
 */
export function createExportSlotRepo(db: Db) {
  /** A free slot of `pool` (0 .. max-1), leased until `leaseUntil`; false when all are held. */
  async function claimSlot(
    tx: Executor,
    pool: ExportPool,
    input: { exportId: string; now: Date; leaseUntil: Date },
  ): Promise<boolean> {
    for (let slot = 0; slot < pool.max; slot++) {
      // One statement on purpose: the row lock of a concurrent claim of the same slot makes the
      // loser re-check the lease against the winner's row, and find it held.
      const taken = await tx
        .insertInto("export_leases")
        .values({ pool: pool.pool, slot, export_id: input.exportId, lease_until: input.leaseUntil })
        .onConflict((oc) =>
          oc
            .columns(["pool", "slot"])
            .doUpdateSet({ export_id: input.exportId, lease_until: input.leaseUntil })
            .where("export_leases.lease_until", "<", input.now),
        )
        .returning("slot")
        .executeTakeFirst();
      if (taken) return true;
    }
    return false;
  }

  return {
    /**
     * A slot in every pool, or none: the first pool whose slots are all held is answered (and
     * nothing is taken). One transaction, so a refused export leaves no slot behind.
     */
    async claim(input: {
      pools: readonly ExportPool[];
      exportId: string;
      now: Date;
      leaseUntil: Date;
    }): Promise<{ lease: ExportLease } | { full: ExportPool }> {
      // Thrown to roll the transaction back when a pool is full: the slots taken before it go too.
      const full = new Error("an export pool is full");
      let fullPool: ExportPool | null = null;
      try {
        await db.transaction().execute(async (tx) => {
          for (const pool of input.pools)
            if (!(await claimSlot(tx, pool, input))) {
              fullPool = pool;
              throw full;
            }
        });
        return { lease: { exportId: input.exportId } };
      } catch (error) {
        if (error === full && fullPool) return { full: fullPool };
        throw error;
      }
    },
    /** Extends the lease while the export runs; false when its slots are no longer its own. */
    async renew(lease: ExportLease, leaseUntil: Date): Promise<boolean> {
      const result = await db
        .updateTable("export_leases")
        .set({ lease_until: leaseUntil })
        .where("export_id", "=", lease.exportId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async release(lease: ExportLease): Promise<void> {
      await db.deleteFrom("export_leases").where("export_id", "=", lease.exportId).execute();
    },
  };
}
export type ExportSlotRepo = ReturnType<typeof createExportSlotRepo>;
