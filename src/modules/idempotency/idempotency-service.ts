import { randomBytes } from "node:crypto";
import type { Clock } from "../../lib/clock.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { AppError } from "../../lib/errors.ts";
import type { IdempotencyStart } from "../../lib/http/idempotency.ts";
import { createSecretBox } from "../../lib/secret-box.ts";
import { erasedAnswer } from "./idempotency-erasure.ts";
import { requestFingerprint, responseSealingKey } from "./idempotency-fingerprint.ts";
import type { IdempotencyClaim, IdempotencyRepo } from "./idempotency-repo.ts";

/** A key answers with its first response for 24 hours (Stripe's window). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim whose request has not answered after this long is taken to be abandoned (its process
 * died) and may be claimed again. Far longer than any create takes.
 */
export const ABANDONED_CLAIM_MS = 60_000;
const PRUNE_BATCH = 500;
/** Seconds a client is told to wait while the first request with its key is still running. */
const IN_USE_RETRY_AFTER_SECONDS = 1;

/**
 * 2xx and 4xx answers are final for the request that produced them; a 5xx is worth retrying, and
 * so is a 429: a limit the handler checks (redeliveries per app) refused to run it, and its retry
 * after `Retry-After` must run, not get the 429 back for a day.
 */
export function isReplayable(status: number): boolean {
  return (status >= 200 && status < 300) || (status >= 400 && status < 500 && status !== 429);
}

/**
 * Idempotency keys on creates: the first request with a key runs and its response is stored; a
 * retry with the same key and the same request gets that response back; the same key with another
 * request is IDEMPOTENCY_KEY_REUSED; while the first still runs, IDEMPOTENCY_KEY_IN_USE.
 */
export function createIdempotencyService(deps: {
  repo: Pick<IdempotencyRepo, "claim" | "find" | "complete" | "release" | "prune">;
  clock: Clock;
  /** The service's secrets key; stored responses are sealed under keys derived from it. */
  secretsKey: Buffer;
}) {
  const { repo, clock } = deps;

  async function begin(input: {
    scope: string;
    key: string;
    storeId: string | null;
    request: Parameters<typeof requestFingerprint>[0];
  }): Promise<IdempotencyStart> {
    const claim: IdempotencyClaim = {
      scope: input.scope,
      keyHash: sha256Hex(input.key),
      fingerprint: requestFingerprint(input.request),
      claimToken: randomBytes(16).toString("base64url"),
    };
    const box = () => createSecretBox(responseSealingKey(deps.secretsKey, input.scope, input.key));
    // Twice at most: the row seen on a lost claim may be pruned or released before it is read.
    for (let round = 0; round < 2; round++) {
      const now = clock.now();
      const claimed = await repo.claim(claim, {
        now,
        expiredBefore: new Date(now.getTime() - IDEMPOTENCY_TTL_MS),
        abandonedBefore: new Date(now.getTime() - ABANDONED_CLAIM_MS),
      });
      if (claimed) {
        return {
          kind: "claimed",
          async finish(response) {
            if (response.body === null || !isReplayable(response.status)) {
              await repo.release(claim);
              return;
            }
            const sealing = box();
            // An answer naming a customer or one of their orders keeps, sealed beside it, the same
            // answer with the customer erased: their erasure swaps it in at once, though the
            // platform cannot open either (the client's key is not stored).
            const erased = erasedAnswer(response.body);
            const about =
              erased && input.storeId !== null
                ? {
                    storeId: input.storeId,
                    customerId: erased.customerId,
                    erasedBody: sealing.seal(erased.body),
                  }
                : null;
            await repo.complete(claim, {
              status: response.status,
              body: sealing.seal(response.body),
              ...(about ? { about } : {}),
            });
          },
        };
      }
      const held = await repo.find(claim.scope, claim.keyHash);
      if (!held) continue;
      if (held.fingerprint !== claim.fingerprint) {
        throw new AppError("IDEMPOTENCY_KEY_REUSED", {
          message:
            "This Idempotency-Key was already used with a different request (method, path or body). Use a new key for a new request.",
        });
      }
      if (held.response_status === null || held.response_body === null) break;
      let body: string;
      try {
        body = box().open(held.response_body);
      } catch {
        // Sealed under a secrets key that has since changed: the create happened, but its answer
        // cannot be shown again. Running it again would create a duplicate, so refuse plainly.
        throw new AppError("CONFLICT", {
          message:
            "This Idempotency-Key's request already ran, but its stored answer can no longer be read (the service's secrets key changed). Check the resource list before retrying with a new key.",
        });
      }
      return { kind: "replay", status: held.response_status, body };
    }
    throw new AppError("IDEMPOTENCY_KEY_IN_USE", {
      headers: { "retry-after": String(IN_USE_RETRY_AFTER_SECONDS) },
    });
  }

  /** Deletes keys older than 24 hours in batches of PRUNE_BATCH. Returns how many. */
  async function pruneExpired(): Promise<number> {
    const before = new Date(clock.now().getTime() - IDEMPOTENCY_TTL_MS);
    let total = 0;
    for (;;) {
      const n = await repo.prune(before, PRUNE_BATCH);
      total += n;
      if (n < PRUNE_BATCH) return total;
    }
  }

  return { begin, pruneExpired };
}
export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
