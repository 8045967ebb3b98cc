import type { Executor } from "../../db/client.ts";

/** A running export's hold on a slot (migration 20261126_0090). */
export interface ExportSlot {
  storeId: string;
  holder: string;
  slot: number;
  exportId: string;
}

/**
 * The export slots every API process shares. A slot is taken by one statement that succeeds only
 * where it is free or its lease has lapsed, so concurrent requests are counted one by one and
 * never more than `max` hold a slot of one holder.
 */
export function createExportSlotRepo(db: Executor) {
  return {
    /** A free slot of `holder` (0 .. max-1), leased until `leaseUntil`; null when all are held. */
    async claim(
      input: { storeId: string; holder: string; exportId: string; max: number; now: Date; leaseUntil: Date },
      tx: Executor = db,
    ): Promise<ExportSlot | null> {
      for (let slot = 0; slot < input.max; slot++) {
        // One statement on purpose: the row lock of a concurrent claim of the same slot makes the
        // loser re-check the lease against the winner's row, and find it held.
        const taken = await tx
          .insertInto("export_slots")
          .values({
            store_id: input.storeId,
            holder: input.holder,
            slot,
            export_id: input.exportId,
            lease_until: input.leaseUntil,
          })
          .onConflict((oc) =>
            oc
              .columns(["store_id", "holder", "slot"])
              .doUpdateSet({ export_id: input.exportId, lease_until: input.leaseUntil })
              .where("export_slots.lease_until", "<", input.now),
          )
          .returning("slot")
          .executeTakeFirst();
        if (taken) return { storeId: input.storeId, holder: input.holder, slot, exportId: input.exportId };
      }
      return null;
    },
    /** Extends the lease while the export runs; false when the slot is no longer this export's. */
    async renew(slot: ExportSlot, leaseUntil: Date, tx: Executor = db): Promise<boolean> {
      const result = await tx
        .updateTable("export_slots")
        .set({ lease_until: leaseUntil })
        .where("store_id", "=", slot.storeId)
        .where("holder", "=", slot.holder)
        .where("slot", "=", slot.slot)
        .where("export_id", "=", slot.exportId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async release(slot: ExportSlot, tx: Executor = db): Promise<void> {
      await tx
        .deleteFrom("export_slots")
        .where("store_id", "=", slot.storeId)
        .where("holder", "=", slot.holder)
        .where("slot", "=", slot.slot)
        .where("export_id", "=", slot.exportId)
        .execute();
    },
  };
}
export type ExportSlotRepo = ReturnType<typeof createExportSlotRepo>;
