import { parseDateTime } from "../../contracts/date-time.ts";
import { MAX_ACTIVE_KEYS_PER_STORE } from "../../contracts/limits.ts";
import type { Db } from "../../db/client.ts";
import type { Store } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { safeEqual, sha256Hex } from "../../lib/crypto.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId, newSecretOf } from "../../lib/ids.ts";
import type { CredentialGuard } from "../../lib/rate-limit/limiters.ts";
import type { KeyContext } from "../families/developer-family.ts";
import { pickStore } from "../stores/stores-repo.ts";
import type { ApiKeyRepo } from "./api-keys-repo.ts";
import type { CreateApiKeyInput, UpdateApiKeyInput } from "./api-keys-schemas.ts";

// Compared against when the key id is unknown, so that answer costs the same as a wrong secret.
const UNKNOWN_KEY_HASH = sha256Hex(newSecretOf("apiKeySecret"));
const TOUCH_INTERVAL_MS = 60_000;

/** Developer key pairs: created in the dashboard, used by the developer API. */
export function createApiKeyService(deps: {
  db: Db;
  repo: ApiKeyRepo;
  clock: Clock;
  /** A "random" secret guard: see createCredentialGuard. */
  guard: CredentialGuard;
  /** The API's versions: a new key pair is pinned to the current one, or to one served now. */
  apiVersions: { resolve(asked: string | undefined, pinned: string | null, now: Date): string };
}) {
  const { repo, clock } = deps;
  const invalid = () =>
    new AppError("INVALID_CREDENTIALS", { message: "The API key pair is invalid, revoked or expired." });

  return {
    async create(store: Store, accountId: string, input: CreateApiKeyInput) {
      const now = clock.now();
      // The route's schema refuses what this cannot read (a date outside years 1-9999 included).
      const expiresAt = input.expiresAt ? parseDateTime(input.expiresAt) : null;
      if (input.expiresAt && !expiresAt) {
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field: "expiresAt", message: "must be a date and time in the years 1 to 9999" }],
        });
      }
      if (expiresAt && expiresAt.getTime() <= now.getTime()) {
        throw new AppError("VALIDATION_FAILED", {
          details: [{ field: "expiresAt", message: "must be in the future" }],
        });
      }
      const secret = newSecretOf("apiKeySecret");
      const key = await deps.db.transaction().execute(async (tx) => {
        await repo.lockStore(store.id, tx);
        if ((await repo.countActive(store.id, now, tx)) >= MAX_ACTIVE_KEYS_PER_STORE) {
          throw new AppError("CONFLICT", {
            message: `A store can have at most ${MAX_ACTIVE_KEYS_PER_STORE} active key pairs. Revoke one it no longer uses.`,
            details: { limit: MAX_ACTIVE_KEYS_PER_STORE },
          });
        }
        return repo.insert(
          {
            store_id: store.id,
            id: newId("apiKey"),
            name: input.name.trim(),
            secret_hash: sha256Hex(secret),
            scopes: [...new Set(input.scopes)].sort(),
            created_by: accountId,
            created_at: now,
            last_used_at: null,
            expires_at: expiresAt,
            revoked_at: null,
            // The version asked for (one served now), else the current one.
            api_version: deps.apiVersions.resolve(input.apiVersion, null, now),
          },
          tx,
        );
      });
      return { key, secret };
    },

    list: (store: Store) => repo.listByStore(store.id, clock.now()),

    /** Pins the key pair to another version (one served now); the merchant may choose any. */
    async setApiVersion(store: Store, keyId: string, input: UpdateApiKeyInput) {
      const version = deps.apiVersions.resolve(input.apiVersion, null, clock.now());
      const key = await repo.setApiVersion(store.id, keyId, version);
      if (!key) throw notFound("API key");
      return key;
    },

    async revoke(store: Store, keyId: string) {
      const key = (await repo.revoke(store.id, keyId, clock.now())) ?? (await repo.find(store.id, keyId));
      if (!key) throw notFound("API key");
      return key;
    },

    /**
     * Throws the same INVALID_CREDENTIALS once a key that was valid is revoked or has expired: a
     * long request (a bulk export) checks again while it runs, after authenticating once.
     */
    async assertStillUsable(keyId: string): Promise<void> {
      const row = await repo.findWithStore(keyId);
      const now = clock.now().getTime();
      if (!row || row.revoked_at || (row.expires_at && row.expires_at.getTime() <= now)) throw invalid();
    },

    /**
     * Checks a key pair. Unknown key, wrong secret, revoked and expired all answer the same
     * INVALID_CREDENTIALS after the same work; failures are throttled per key id and per IP (a
     * right pair is never refused for its IP's failures; docs/developer-api.md).
     */
    async authenticate(keyId: string, secret: string, ip: string): Promise<KeyContext> {
      const now = clock.now();
      const row = await deps.guard.verify(
        { id: `apikey:${keyId.slice(0, 64)}`, ip },
        async () => {
          const row = /^[A-Za-z0-9_]{1,64}$/.test(keyId) ? await repo.findWithStore(keyId) : undefined;
          const matches = safeEqual(sha256Hex(secret), row?.secret_hash ?? UNKNOWN_KEY_HASH);
          const usable = !row?.revoked_at && !(row?.expires_at && row.expires_at.getTime() <= now.getTime());
          return row && matches && usable ? row : undefined;
        },
        invalid,
      );
      if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > TOUCH_INTERVAL_MS) {
        await repo.touch(row.id, row.key_id, now);
      }
      const store = pickStore(row);
      return { store, keyId: row.key_id, scopes: row.scopes, apiVersion: row.api_version };
    },
  };
}
export type ApiKeyService = ReturnType<typeof createApiKeyService>;
