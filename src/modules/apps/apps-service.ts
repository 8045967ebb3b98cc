import type { AppRow } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { safeEqual, sha256Hex } from "../../lib/crypto.ts";
import { AppError, notFound } from "../../lib/errors.ts";
import { newId, newSecretOf, newWebhookSecret } from "../../lib/ids.ts";
import type { CredentialGuard } from "../../lib/rate-limit/limiters.ts";
import type { ApiVersions } from "../versions/api-versions.ts";
import { changedPin } from "../versions/pins.ts";
import type { AppRepo } from "./apps-repo.ts";
import type { CreateAppInput, UpdateAppInput } from "./apps-schemas.ts";

// Compared against when the client id is unknown, so that answer takes as long as a wrong secret.
const UNKNOWN_CLIENT_HASH = sha256Hex(newSecretOf("clientSecret"));

/** App registration, secret rotation and client authentication. */
export function createAppService(deps: {
  repo: AppRepo;
  clock: Clock;
  /** Failures per client id and per IP: guessing a secret is throttled (a "random" secret guard). */
  guard: CredentialGuard;
  /** The API's versions: a new app is pinned to the current one; a pin changes to a served one. */
  apiVersions: Pick<ApiVersions, "current" | "resolve">;
  /** The app's privacy endpoint (issue 21): its URL is checked like a subscription's, its secret sealed like one. */
  privacy: {
    assertSafeTarget(url: string): Promise<void>;
    sealSecret(secret: string): string;
    /** Puts the app's endpoint and secrets on its installations' privacy channels. */
    syncChannels(appId: string, now: Date): Promise<void>;
    /** WEBHOOK_SECRET_OVERLAP_SECONDS: how long a replaced privacy secret still signs. */
    secretOverlapSeconds: number;
  };
}) {
  const { repo, clock } = deps;
  /** A new privacy secret and its sealed form. */
  const newPrivacySecret = () => {
    const secret = newWebhookSecret();
    return { secret, sealed: deps.privacy.sealSecret(secret) };
  };
  return {
    async register(ownerId: string, input: CreateAppInput) {
      if (input.privacyWebhookUrl !== undefined) await deps.privacy.assertSafeTarget(input.privacyWebhookUrl);
      const privacy = input.privacyWebhookUrl !== undefined ? newPrivacySecret() : null;
      const secret = newSecretOf("clientSecret");
      const now = clock.now();
      const app = await repo.insert({
        id: newId("app"),
        client_id: newId("clientId"),
        owner_account_id: ownerId,
        name: input.name.trim(),
        redirect_uris: input.redirectUris,
        scopes: [...new Set(input.scopes)].sort(),
        client_secret_hash: sha256Hex(secret),
        secret_rotated_at: null,
        created_at: now,
        updated_at: now,
        deleted_at: null,
        privacy_webhook_url: input.privacyWebhookUrl ?? null,
        privacy_secret_ciphertext: privacy?.sealed ?? null,
        privacy_previous_secret_ciphertext: null,
        privacy_secret_rotated_at: null,
        api_version: deps.apiVersions.current(now),
        api_version_previous: null,
        api_version_changed_at: null,
      });
      return { app, secret, privacySecret: privacy?.secret };
    },

    listOwned: (ownerId: string) => repo.listByOwner(ownerId),

    async getOwned(ownerId: string, clientId: string): Promise<AppRow> {
      const app = await repo.findByClientId(clientId);
      if (!app || app.owner_account_id !== ownerId) throw notFound("App");
      return app;
    },

    /**
     * Changes the app's name, redirect URIs or the scopes it may ask for. Installations keep the
     * scopes their merchants granted: narrowing the app's scopes limits what it can ask for from
     * now on; to give up a granted scope the app narrows its own tokens (refresh with `scope`).
     */
    async update(ownerId: string, clientId: string, input: UpdateAppInput) {
      const app = await this.getOwned(ownerId, clientId);
      const url = input.privacyWebhookUrl;
      if (typeof url === "string") await deps.privacy.assertSafeTarget(url);
      // The secret is made with the first endpoint and kept: a changed URL keeps it (rotate it
      // to change it), so an endpoint moved to a new address verifies as before.
      const privacy =
        typeof url === "string" && app.privacy_secret_ciphertext === null ? newPrivacySecret() : null;
      const now = clock.now();
      // Raised, or rolled back within 72 hours (versions/pins.ts); the same version changes nothing.
      const pin =
        input.apiVersion === undefined
          ? null
          : changedPin(
              {
                apiVersion: app.api_version,
                previous: app.api_version_previous,
                changedAt: app.api_version_changed_at,
              },
              input.apiVersion,
              now,
              deps.apiVersions,
            );
      const updated = await repo.update(
        app.id,
        {
          ...(input.name !== undefined ? { name: input.name.trim() } : {}),
          ...(input.redirectUris !== undefined ? { redirect_uris: input.redirectUris } : {}),
          ...(input.scopes !== undefined ? { scopes: [...new Set(input.scopes)].sort() } : {}),
          ...(url !== undefined ? { privacy_webhook_url: url } : {}),
          ...(privacy ? { privacy_secret_ciphertext: privacy.sealed } : {}),
          ...(pin ? { pin: { from: app.api_version, ...pin } } : {}),
        },
        now,
      );
      if (!updated)
        throw new AppError("CONFLICT", {
          message: "The app's API version changed meanwhile: read the app again and retry.",
          details: [{ field: "apiVersion", message: "changed meanwhile" }],
        });
      if (url !== undefined) await deps.privacy.syncChannels(app.id, now);
      return { app: updated, privacySecret: privacy?.secret };
    },

    /**
     * A new privacy secret in force at once; the one it replaces keeps signing `webhook-signature`
     * (after the new one) for the overlap, as a subscription's does. 409 without an endpoint.
     */
    async rotatePrivacySecret(ownerId: string, clientId: string) {
      const app = await this.getOwned(ownerId, clientId);
      const { secret, sealed } = newPrivacySecret();
      const now = clock.now();
      const updated = await repo.rotatePrivacySecret(app.id, sealed, now);
      if (!updated)
        throw new AppError("CONFLICT", {
          message:
            "This app has no privacy endpoint yet: declare privacyWebhookUrl first (its secret is made then).",
        });
      await deps.privacy.syncChannels(app.id, now);
      return {
        clientId: updated.client_id,
        privacySecret: secret,
        privacySecretRotatedAt: now.toISOString(),
        previousSecretExpiresAt: new Date(
          now.getTime() + deps.privacy.secretOverlapSeconds * 1000,
        ).toISOString(),
      };
    },

    /**
     * Deletes the app: from now on its client id is unknown (authorize, token and refresh refuse it)
     * and it leaves its owner's list. Uninstalling it from every store is the caller's next step
     * (installations-service uninstallEverywhere), so each store's merchant and the app hear of it.
     */
    async markDeleted(ownerId: string, clientId: string) {
      const app = await this.getOwned(ownerId, clientId);
      await repo.markDeleted(app.id, sha256Hex(newSecretOf("clientSecret")), clock.now());
      return app;
    },

    /** Replaces the secret; the old one fails from the next request on, on every instance (it is checked in the database). */
    async rotateSecret(ownerId: string, clientId: string) {
      const app = await this.getOwned(ownerId, clientId);
      const secret = newSecretOf("clientSecret");
      const updated = await repo.setSecretHash(app.id, sha256Hex(secret), clock.now());
      return { app: updated, secret };
    },

    /**
     * Client authentication for the token endpoints. Unknown client and wrong secret give the same
     * INVALID_CLIENT after the same work; repeated failures per client id answer 429, and so do
     * wrong secrets from an IP with too many failures (a right one is never refused for its IP).
     */
    async authenticateClient(clientId: string, clientSecret: string, ip: string): Promise<AppRow> {
      const { app } = await this.authenticateClientWith(clientId, clientSecret, ip, async (id) => ({
        app: await repo.findByClientId(id),
        result: undefined,
      }));
      return app;
    },

    /**
     * authenticateClient with the app row fetched by `fetch`, so a caller can look the client up in
     * the same statement as its own work (a token refresh is one round trip that way). The contract
     * for `fetch`: its work must change nothing unless `client_secret_hash` equals `secretHash`, so
     * a wrong secret has no effect. The answer is still decided here, by the same constant-time
     * compare and under the same throttles: `result` reaches the caller only with a right secret.
     */
    async authenticateClientWith<T>(
      clientId: string,
      clientSecret: string,
      ip: string,
      fetch: (clientId: string, secretHash: string) => Promise<{ app: AppRow | undefined; result: T }>,
    ): Promise<{ app: AppRow; result: T }> {
      return deps.guard.verify(
        { id: `client:${clientId.slice(0, 64)}`, ip },
        async () => {
          const secretHash = sha256Hex(clientSecret);
          const found = /^[A-Za-z0-9_]{1,64}$/.test(clientId) ? await fetch(clientId, secretHash) : undefined;
          const ok = safeEqual(secretHash, found?.app?.client_secret_hash ?? UNKNOWN_CLIENT_HASH);
          return found?.app && ok ? { app: found.app, result: found.result } : undefined;
        },
        () =>
          new AppError("INVALID_CLIENT", {
            message: "Client authentication failed.",
            headers: { "www-authenticate": 'Basic realm="merchant-platform"' },
          }),
        { clearOnSuccess: true },
      );
    },
  };
}
export type AppService = ReturnType<typeof createAppService>;
