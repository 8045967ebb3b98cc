import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { webhooks } from "./generated/api.ts";

/** The body of each webhook event, as the OpenAPI document's `webhooks` section types them. */
export type WebhookEvents = {
  [E in keyof webhooks]: webhooks[E] extends {
    post: { requestBody: { content: { "application/json": infer B } } };
  }
    ? B
    : never;
};
/** Any webhook body; narrow on `event`: `if (e.event === "order.created") e.data.total`. */
export type WebhookEvent = WebhookEvents[keyof WebhookEvents];
export type WebhookEventName = keyof WebhookEvents;

/**
 * A delivery whose signature and timestamp checked out. Only the body and the timestamp are signed
 * (and, in the Standard Webhooks family, the id): what decides anything (the event, its id, whether
 * it is a test) comes from the body. The headers read here (`x-webhook-id`, `x-webhook-attempt`)
 * are for logs and support, never for decisions: anyone relaying a delivery could change them.
 */
export interface VerifiedWebhook {
  event: WebhookEvent;
  /**
   * The event's id (the body's `id`, signed): the same on every attempt and every redelivery of
   * the event, and for every subscription and `listen` stream receiving it. The duplicate filter's key.
   */
  eventId: string;
  /** `x-webhook-id` (or `webhook-id`): this delivery, the same on each of its attempts. For logs. */
  deliveryId: string;
  /** `x-webhook-attempt` (not signed). For logs. */
  attempt: number;
  /** A test event (`trigger`, `POST /webhooks/test`): the body's `"test": true` (signed). */
  test: boolean;
  /**
   * Which signature verified: `standard` (`webhook-signature`, Standard Webhooks) or `spec`
   * (`x-webhook-signature`, the platform spec's hex HMAC).
   */
  signature: "standard" | "spec";
}

export type WebhookFailure = "missing_header" | "stale_timestamp" | "invalid_signature" | "invalid_body";

export class WebhookVerificationError extends Error {
  readonly reason: WebhookFailure;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const value = headers[name] ?? headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

const STANDARD_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The Standard Webhooks key of a secret, as the stock verifiers (`standardwebhooks`, `svix`)
 * compute it: the base64 text after `whsec_`, decoded. Null when that text is not base64 (those
 * libraries refuse such a secret): only the spec's signature can verify with it then.
 */
function standardKey(secret: string): KeyObject | null {
  const text = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (!STANDARD_BASE64.test(text)) return null;
  const key = Buffer.from(text, "base64");
  // A KeyObject: on Node 24 an HMAC keyed with a Buffer costs ~10 µs more (its brand check).
  return key.length > 0 ? createSecretKey(key) : null;
}

/** Whether `expected` equals one of `given`, comparing every pair in constant time (no early exit). */
function anyEqual(given: readonly Buffer[], expected: Buffer): boolean {
  let matched = false;
  for (const g of given) if (g.length === expected.length && timingSafeEqual(g, expected)) matched = true;
  return matched;
}

/**
 * Checks a delivery's signature, either family the platform sends:
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): `v1,<base64 HMAC-SHA256
 *   of "<id>.<timestamp>.<raw body>">` keyed with the base64-decoded part of the secret after
 *   `whsec_`; the header may hold several space-separated signatures (after a rotation the new and
 *   the old secret's), and one matching is enough.
 * - The platform spec (`x-webhook-timestamp`, `x-webhook-signature`, `x-webhook-id`): hex HMAC-SHA256
 *   of `<timestamp>.<raw body>` keyed with the whole secret string.
 * Every signature is compared in constant time; the timestamp must be within `toleranceSeconds` of
 * now (replays of an old delivery are refused). Either family verifying is enough: during a
 * rotation's overlap a receiver still holding the old secret verifies by the Standard Webhooks
 * signature, whose header carries both. Pass the body exactly as received (bytes or text): a body
 * parsed and serialised again no longer matches its signature. `secret` may be several (a
 * subscription's and a `listen` session's, or old and new while rotating): any one matching is enough.
 */
export function verifyWebhook(input: {
  rawBody: string | Uint8Array;
  headers: HeaderBag;
  secret: string | readonly string[];
  toleranceSeconds?: number;
  /** Epoch ms; injected for tests. */
  now?: number;
}): VerifiedWebhook {
  const tolerance = input.toleranceSeconds ?? 300;
  const now = (input.now ?? Date.now()) / 1000;
  const body =
    typeof input.rawBody === "string" ? Buffer.from(input.rawBody, "utf8") : Buffer.from(input.rawBody);
  const secrets = typeof input.secret === "string" ? [input.secret] : input.secret;
  const h = (name: string) => header(input.headers, name);
  const standard = {
    id: h("webhook-id"),
    timestamp: h("webhook-timestamp"),
    signature: h("webhook-signature"),
  };
  const spec = {
    id: h("x-webhook-id"),
    timestamp: h("x-webhook-timestamp"),
    signature: h("x-webhook-signature"),
  };
  const families: Array<{ name: "standard" | "spec"; id: string; timestamp: string; matches(): boolean }> =
    [];
  if (standard.id && standard.timestamp && standard.signature) {
    const { id, timestamp, signature } = standard;
    families.push({
      name: "standard",
      id,
      timestamp,
      matches() {
        const given = signature
          .split(" ")
          .map((s) => /^v1,([A-Za-z0-9+/]+={0,2})$/.exec(s)?.[1])
          .filter((s): s is string => s !== undefined)
          .map((s) => Buffer.from(s, "base64"));
        let matched = false;
        for (const secret of secrets) {
          const key = standardKey(secret);
          if (!key) continue;
          const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
          if (anyEqual(given, expected)) matched = true;
        }
        return matched;
      },
    });
  }
  if (spec.id && spec.timestamp && spec.signature) {
    const { timestamp, signature } = spec;
    families.push({
      name: "spec",
      id: spec.id,
      timestamp,
      matches() {
        const given = /^[0-9a-f]{64}$/i.test(signature) ? [Buffer.from(signature, "hex")] : [];
        let matched = false;
        for (const secret of secrets) {
          const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
          if (anyEqual(given, expected)) matched = true;
        }
        return matched;
      },
    });
  }
  if (families.length === 0)
    throw new WebhookVerificationError(
      "missing_header",
      "Either webhook-id, -timestamp and -signature (Standard Webhooks) or x-webhook-timestamp, -signature and -id are required.",
    );
  let verified: (typeof families)[number] | null = null;
  let stale: string | null = null;
  let fresh = false;
  for (const family of families) {
    if (!/^\d{1,11}$/.test(family.timestamp)) {
      stale ??= "The timestamp is not Unix seconds.";
      continue;
    }
    const age = Math.abs(now - Number(family.timestamp));
    if (age > tolerance) {
      stale ??= `The timestamp is ${Math.round(age)} s away from now (tolerance ${tolerance} s).`;
      continue;
    }
    fresh = true;
    if (family.matches()) {
      verified = family;
      break;
    }
  }
  if (!verified) {
    if (!fresh && stale) throw new WebhookVerificationError("stale_timestamp", stale);
    throw new WebhookVerificationError(
      "invalid_signature",
      "The signature does not match the body and secret.",
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    throw new WebhookVerificationError("invalid_body", "The body is not JSON.");
  }
  if (!isEventBody(parsed))
    throw new WebhookVerificationError("invalid_body", "The body is not a webhook event (`id`, `event`).");
  const event = parsed as WebhookEvent;
  return {
    event,
    eventId: parsed.id,
    deliveryId: spec.id ?? verified.id,
    attempt: Number(h("x-webhook-attempt") ?? 1),
    // From the signed body, never from `x-webhook-test`: without that header a test
    // `app/uninstalled` would pass for a real one.
    test: parsed.test === true,
    signature: verified.name,
  };
}

/** The signed fields every event body has, checked before anything relies on them. */
function isEventBody(value: unknown): value is { id: string; event: string; test?: unknown } {
  if (typeof value !== "object" || value === null) return false;
  const { id, event } = value as { id?: unknown; event?: unknown };
  return typeof id === "string" && id.length > 0 && typeof event === "string";
}

/** Where event ids already handled are remembered (Redis `SET NX EX`, a unique database column). */
export interface DuplicateStore {
  /** Records `id`; true when it was new, false when it was already there. Atomic. */
  add(id: string, ttlSeconds: number): Promise<boolean>;
  /** Forgets `id` (Redis `DEL`): its handler failed, so the platform's retry must run it again. */
  delete(id: string): Promise<void>;
}

/** Delivery ids in this process's memory, forgotten after their TTL; at most `maxEntries`. */
export function memoryDuplicateStore(
  options: { maxEntries?: number; now?: () => number } = {},
): DuplicateStore {
  const max = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  return {
    async add(id, ttlSeconds) {
      const t = now();
      const until = seen.get(id);
      if (until !== undefined && until > t) return false;
      seen.delete(id);
      seen.set(id, t + ttlSeconds * 1000);
      // Oldest first (insertion order): drop expired and overflow entries.
      for (const [key, expiry] of seen) {
        if (seen.size <= max && expiry > t) break;
        seen.delete(key);
      }
      return true;
    },
    async delete(id) {
      seen.delete(id);
    },
  };
}

/**
 * At-least-once delivery means the same event can arrive twice (a lost 2xx, a retry racing a slow
 * answer, a redelivery, a `listen` stream and a subscription both reaching this receiver).
 * `isNew(eventId)` is true the first time only; `forget(eventId)` undoes it when handling failed.
 * The key is the event id from the signed body, not `x-webhook-id`, which is not signed (a changed
 * header would pass a replay through) and differs per delivery. Keep ids at least as long as the
 * platform retries (8 attempts over about 2 hours): the default is 3 days. One filter per app: two
 * apps receiving the same event at one endpoint need a store (or key prefix) each.
 */
export function createDuplicateFilter(options: { store?: DuplicateStore; ttlSeconds?: number } = {}) {
  const store = options.store ?? memoryDuplicateStore();
  const ttl = options.ttlSeconds ?? 3 * 24 * 3600;
  return {
    isNew: (eventId: string) => store.add(eventId, ttl),
    forget: (eventId: string) => store.delete(eventId),
  };
}
export type DuplicateFilter = ReturnType<typeof createDuplicateFilter>;

export interface WebhookHandlerOptions {
  /** The signing secret(s); a function is asked on every delivery (secrets that change at run time). */
  secret: string | readonly string[] | (() => readonly string[]);
  /** Runs once per event (duplicates are answered 200 without it). Throw to have it retried. */
  onEvent(webhook: VerifiedWebhook): Promise<void> | void;
  duplicates?: DuplicateFilter;
  toleranceSeconds?: number;
  /** Bodies over this are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Told about refused deliveries (bad signature, stale timestamp), e.g. to log them. */
  onRejected?(error: WebhookVerificationError): void;
}

/** What a receiver answers for a verified, a duplicate, a refused or a failed delivery. */
export async function handleWebhook(
  options: WebhookHandlerOptions,
  rawBody: Uint8Array | string,
  headers: HeaderBag,
): Promise<{ status: number; body: string }> {
  let webhook: VerifiedWebhook;
  try {
    webhook = verifyWebhook({
      rawBody,
      headers,
      secret: typeof options.secret === "function" ? options.secret() : options.secret,
      ...(options.toleranceSeconds !== undefined ? { toleranceSeconds: options.toleranceSeconds } : {}),
    });
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    options.onRejected?.(error);
    return { status: error.reason === "invalid_body" ? 400 : 401, body: error.reason };
  }
  const duplicates = options.duplicates;
  if (duplicates && !(await duplicates.isNew(webhook.eventId))) return { status: 200, body: "duplicate" };
  try {
    await options.onEvent(webhook);
  } catch {
    // Not handled after all: the platform's retry (or a redelivery) must run the handler again.
    // The answer is 500 whatever the store does; one that cannot forget now drops that retry.
    await duplicates?.forget(webhook.eventId).catch(() => undefined);
    return { status: 500, body: "handler failed" };
  }
  return { status: 200, body: "ok" };
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A Node `http` request listener for a webhook endpoint: `http.createServer(nodeWebhookHandler({...}))`. */
export function nodeWebhookHandler(options: WebhookHandlerOptions) {
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const body = await readBody(req, limit);
    const answer =
      body === null ? { status: 413, body: "too large" } : await handleWebhook(options, body, req.headers);
    res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body);
  };
}

/**
 * Express middleware. Mount it before any JSON body parser, or with `express.raw({ type: "application/json" })`:
 * it needs the raw bytes, and refuses (500, with a message) a body another parser already turned into an object.
 */
export function expressWebhookHandler(options: WebhookHandlerOptions) {
  const node = nodeWebhookHandler(options);
  return async (
    req: IncomingMessage & { body?: unknown },
    res: ServerResponse,
    next: (error?: unknown) => void,
  ) => {
    try {
      if (
        req.body === undefined ||
        (typeof req.body === "object" &&
          req.body !== null &&
          Object.keys(req.body).length === 0 &&
          !Buffer.isBuffer(req.body) &&
          req.readable)
      )
        return await node(req, res);
      if (Buffer.isBuffer(req.body) || typeof req.body === "string") {
        const answer = await handleWebhook(options, req.body, req.headers);
        res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body);
        return;
      }
      next(
        new Error(
          "The webhook body was already parsed: mount expressWebhookHandler before express.json(), or use express.raw({ type: 'application/json' }) on its route, so the signature is checked against the bytes that were signed.",
        ),
      );
    } catch (error) {
      next(error);
    }
  };
}

/** The parts of a Fastify instance the plugin uses (so the SDK does not depend on Fastify). */
interface FastifyLike {
  addContentTypeParser(
    type: string,
    options: { parseAs: "buffer"; bodyLimit?: number },
    parser: (req: unknown, body: Buffer, done: (err: Error | null, body?: Buffer) => void) => void,
  ): void;
  post(
    path: string,
    handler: (
      request: { body: unknown; headers: Record<string, string | string[] | undefined> },
      reply: { code(status: number): { type(t: string): { send(body: string): unknown } } },
    ) => Promise<unknown>,
  ): void;
}

/**
 * A Fastify plugin: `app.register(fastifyWebhookPlugin, { path: "/webhooks", secret, onEvent })`. It
 * keeps the raw body for its own route only (its JSON parser is scoped to the plugin).
 */
export async function fastifyWebhookPlugin(
  app: FastifyLike,
  options: WebhookHandlerOptions & { path: string },
) {
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  app.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: limit }, (_req, body, done) =>
    done(null, body),
  );
  app.post(options.path, async (request, reply) => {
    const answer = await handleWebhook(options, request.body as Buffer, request.headers);
    return reply.code(answer.status).type("text/plain").send(answer.body);
  });
}
