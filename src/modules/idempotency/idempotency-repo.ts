import { sql } from "kysely";
import type { Executor } from "../../db/client.ts";

export interface IdempotencyClaim {
  scope: string;
  keyHash: string;
  fingerprint: string;
  claimToken: string;
}

export function createIdempotencyRepo(db: Executor) {
  return {
    /**
     * Claims the key for one request: inserts the row, or takes over a row that has expired
     * (created before `expiredBefore`) or whose request died without an answer (locked before
     * `abandonedBefore`). One statement, so two instances racing for one key cannot both win.
     * Returns false when another row holds the key; read it with `find`.
     */
    async claim(
      claim: IdempotencyClaim,
      at: { now: Date; expiredBefore: Date; abandonedBefore: Date },
      tx: Executor = db,
    ): Promise<boolean> {
      const row = {
        scope: claim.scope,
        key_hash: claim.keyHash,
        fingerprint: claim.fingerprint,
        claim_token: claim.claimToken,
        locked_at: at.now,
        response_status: null,
        response_body: null,
        created_at: at.now,
      };
      const claimed = await tx
        .insertInto("idempotency_keys")
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(["scope", "key_hash"])
            .doUpdateSet({
              fingerprint: row.fingerprint,
              claim_token: row.claim_token,
              locked_at: row.locked_at,
              response_status: null,
              response_body: null,
              created_at: row.created_at,
            })
            .where((eb) =>
              eb.or([
                eb("idempotency_keys.created_at", "<", at.expiredBefore),
                eb.and([
                  eb("idempotency_keys.response_status", "is", null),
                  eb("idempotency_keys.locked_at", "<", at.abandonedBefore),
                ]),
              ]),
            ),
        )
        .returning("claim_token")
        .executeTakeFirst();
      return claimed?.claim_token === claim.claimToken;
    },
    async find(scope: string, keyHash: string, tx: Executor = db) {
      return tx
        .selectFrom("idempotency_keys")
        .select(["fingerprint", "response_status", "response_body", "created_at"])
        .where("scope", "=", scope)
        .where("key_hash", "=", keyHash)
        .executeTakeFirst();
    },
    /**
     * Stores the response of the request holding the claim. False when the claim was lost.
     *
     * With `about` (the answer names a customer or one of their orders): the store, the customer
     * and the erased answer are kept too, and if the customer was erased already (anonymised, or
     * deleted) the erased answer is stored as the answer. That happens when the erasure committed
     * between the create and this record: no order is placed for an erased customer, so an answer
     * naming one predates their erasure. The customer's row is key-share locked for the statement,
     * so the erasure (which locks it for update) either waits for this record and then finds it
     * (eraseAnswersAbout), or commits first and is seen here.
     */
    async complete(
      claim: IdempotencyClaim,
      response: {
        status: number;
        body: string;
        about?: { storeId: string; customerId: string; erasedBody: string };
      },
      tx: Executor = db,
    ): Promise<boolean> {
      if (response.about) {
        const { storeId, customerId, erasedBody } = response.about;
        const result = await sql`
          WITH subject AS (
            SELECT anonymized_at IS NULL AS live FROM customers
             WHERE store_id = ${storeId} AND id = ${customerId}
               FOR KEY SHARE
          )
          UPDATE idempotency_keys
             SET response_status = ${response.status},
                 response_body = CASE WHEN (SELECT live FROM subject) THEN ${response.body} ELSE ${erasedBody} END,
                 erased_response_body = CASE WHEN (SELECT live FROM subject) THEN ${erasedBody} END,
                 store_id = ${storeId}, customer_id = ${customerId}
           WHERE scope = ${claim.scope} AND key_hash = ${claim.keyHash}
             AND claim_token = ${claim.claimToken} AND response_status IS NULL`.execute(tx);
        return Number(result.numAffectedRows ?? 0) === 1;
      }
      const result = await tx
        .updateTable("idempotency_keys")
        .set({ response_status: response.status, response_body: response.body })
        .where("scope", "=", claim.scope)
        .where("key_hash", "=", claim.keyHash)
        .where("claim_token", "=", claim.claimToken)
        .where("response_status", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /**
     * In a customer's erasure: every stored answer naming them or one of their orders answers
     * its erased version from now on (sealed like the first, under the client's key, which the
     * platform does not keep: the swap needs no key). Answers how many.
     */
    async eraseAnswersAbout(tx: Executor, storeId: string, customerId: string): Promise<number> {
      const result = await tx
        .updateTable("idempotency_keys")
        .set((eb) => ({ response_body: eb.ref("erased_response_body"), erased_response_body: null }))
        .where("store_id", "=", storeId)
        .where("customer_id", "=", customerId)
        .where("erased_response_body", "is not", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    /** Frees the key of a request that answered nothing worth replaying (5xx), so a retry runs again. */
    async release(claim: IdempotencyClaim, tx: Executor = db): Promise<void> {
      await tx
        .deleteFrom("idempotency_keys")
        .where("scope", "=", claim.scope)
        .where("key_hash", "=", claim.keyHash)
        .where("claim_token", "=", claim.claimToken)
        .where("response_status", "is", null)
        .execute();
    },
    /** Deletes up to `limit` rows created before `before`, oldest first. Returns how many. */
    async prune(before: Date, limit: number, tx: Executor = db): Promise<number> {
      // A bounded batch keeps each statement's locks and WAL small on a busy table.
      const result = await sql<{ n: number }>`
        WITH doomed AS (
          SELECT scope, key_hash FROM idempotency_keys
          WHERE created_at < ${before}
          ORDER BY created_at
          LIMIT ${limit}
        )
        DELETE FROM idempotency_keys k USING doomed d
        WHERE k.scope = d.scope AND k.key_hash = d.key_hash`.execute(tx);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>;
