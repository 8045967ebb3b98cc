import { Agent, request } from "node:https";
import { isIP, type LookupFunction, type Socket } from "node:net";
import { RETRY_AFTER_STATUSES } from "./retry-policy.ts";
import { blockedRange, type Resolver, systemResolver } from "./ssrf.ts";

/** Why an attempt got no usable answer. */
export type SendErrorKind = "timeout" | "network" | "tls" | "blocked_address" | "invalid_url";

export interface SendResult {
  /** The receiver's HTTP status; absent when no response head arrived. It alone decides the outcome. */
  status?: number | undefined;
  /** Retry-After of a 429 or 503 answer (RETRY_AFTER_STATUSES), verbatim; otherwise absent. */
  retryAfter?: string | undefined;
  /** The receiver's answer as UTF-8, at most `maxResponseBytes` bytes; null when none arrived. */
  responseBody: string | null;
  /** True when the receiver sent more than was read (cap reached, or the time-out cut the body). */
  truncated: boolean;
  /** Whole attempt, from the call to the result: DNS, connect, TLS, request, response. */
  durationMs: number;
  /** Set when something went wrong; may accompany a status when the body read was cut short. */
  errorKind?: SendErrorKind | undefined;
  /** `<kind>` or `<kind>: <detail>`, for the attempt log (e.g. `network: ECONNREFUSED`). */
  error?: string | undefined;
}

export interface SendOptions {
  /** An https URL (the subscription's target). */
  url: string;
  /** Request headers (see webhookHeaders); content-length is added here. */
  headers: Record<string, string>;
  /** The exact body that was signed. */
  body: string;
  /** Limit for the whole attempt, connect to last byte read. */
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: skip the address checks. */
  allowPrivate: boolean;
  /** Response bytes kept (and read); the rest is not downloaded. Default 64 KiB. */
  maxResponseBytes?: number;
  /** DNS for the connection; the system resolver by default. */
  resolve?: Resolver;
  /** Keep-alive agent shared by one worker (createWebhookAgent); Node's global agent otherwise. */
  agent?: Agent;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 65_536;

class BlockedAddressError extends Error {
  readonly code = "EBLOCKEDADDRESS";
}

/**
 * The lookup the connection itself uses: whatever the name resolves to at connect time is
 * checked before a socket is opened, and only checked addresses are handed to `net.connect`. If
 * any answer is blocked the whole name is refused, as at subscription time.
 */
function guardedLookup(resolve: Resolver, allowPrivate: boolean): LookupFunction {
  return ((
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (error: Error | null, address?: unknown, family?: number) => void,
  ) => {
    // then(ok, fail), not then().catch(): a throw inside net's callback must not call it twice.
    resolve(hostname).then(
      (answers) => {
        for (const { address } of allowPrivate ? [] : answers) {
          const range = blockedRange(address);
          if (range) {
            callback(new BlockedAddressError(`${hostname} resolves to ${address} (${range})`));
            return;
          }
        }
        const family =
          options?.family === "IPv4" ? 4 : options?.family === "IPv6" ? 6 : Number(options?.family) || 0;
        const usable = family ? answers.filter((a) => a.family === family) : answers;
        const first = usable[0];
        if (!first) {
          callback(Object.assign(new Error(`${hostname} has no usable address`), { code: "ENOTFOUND" }));
          return;
        }
        if (options?.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error),
    );
  }) as LookupFunction;
}

/**
 * The keep-alive agent of one worker process. `maxSockets` is per origin; the worker's own
 * per-target limit is what bounds concurrency, this only reuses connections.
 */
export function createWebhookAgent(maxSockets: number): Agent {
  return new Agent({
    keepAlive: true,
    maxSockets,
    maxFreeSockets: Math.min(maxSockets, 64),
    // Idle pooled sockets are closed after this long.
    timeout: 30_000,
  });
}

function tlsFailure(error: NodeJS.ErrnoException): boolean {
  return /CERT|SSL|TLS|self.signed|certificate|ALTNAME/i.test(`${error.code ?? ""} ${error.message}`);
}

/**
 * POSTs one webhook attempt over HTTPS. Never throws and never follows redirects (a 3xx is just
 * a status). Certificates are verified as usual (trust a private CA with NODE_EXTRA_CA_CERTS).
 * Unless `allowPrivate`, an internal address is refused twice over: on the DNS answer used for
 * the connection, and on the socket's remote address once connected (which also covers IP-literal
 * hosts and reused keep-alive sockets). At most `maxResponseBytes` of the answer are read; then
 * the socket is destroyed. `timeoutMs` bounds the whole attempt; if it expires after the status
 * arrived, the status stands and the body is marked truncated.
 */
export function sendWebhook(options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const cap = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return new Promise<SendResult>((resolvePromise) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: Omit<SendResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise({ ...result, durationMs: Math.round(performance.now() - started) });
    };
    const fail = (kind: SendErrorKind, detail?: string) =>
      finish({
        responseBody: null,
        truncated: false,
        errorKind: kind,
        error: detail ? `${kind}: ${detail}` : kind,
      });

    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      fail("invalid_url");
      return;
    }
    if (url.protocol !== "https:") {
      fail("invalid_url", "not https");
      return;
    }
    // IP-literal hosts never reach the lookup; refuse them before opening anything.
    const literal = url.hostname.replace(/^\[|\]$/g, "");
    const literalRange = !options.allowPrivate && isIP(literal) ? blockedRange(literal) : null;
    if (literalRange) {
      fail("blocked_address", `${literal} (${literalRange})`);
      return;
    }

    // Set once the response head is in; a later time-out keeps it.
    let onTimeout = () => fail("timeout", `no response within ${options.timeoutMs} ms`);
    const req = request(url, {
      method: "POST",
      headers: { ...options.headers, "content-length": String(Buffer.byteLength(options.body)) },
      agent: options.agent,
      lookup: guardedLookup(options.resolve ?? systemResolver, options.allowPrivate),
    });
    timer = setTimeout(() => {
      onTimeout();
      req.destroy();
    }, options.timeoutMs);

    req.on("socket", (socket: Socket) => {
      if (options.allowPrivate) return;
      // The address actually connected to, whatever produced it. Runs before the TLS handshake,
      // so not one byte of the request is sent to a refused address.
      const check = () => {
        const remote = socket.remoteAddress;
        const range = remote ? blockedRange(remote) : null;
        if (range) req.destroy(new BlockedAddressError(`connected to ${remote} (${range})`));
      };
      if (socket.remoteAddress) check();
      else socket.once("connect", check);
    });

    req.on("response", (res) => {
      const status = res.statusCode;
      const header = res.headers["retry-after"];
      const retryAfter =
        status !== undefined && RETRY_AFTER_STATUSES.has(status) && typeof header === "string"
          ? header
          : undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (truncated: boolean, timedOut = false) => {
        // stream: true holds back a multi-byte character cut in half by the cap.
        const text = new TextDecoder().decode(Buffer.concat(chunks), { stream: truncated });
        finish({
          status,
          retryAfter,
          responseBody: text,
          truncated,
          ...(timedOut
            ? {
                errorKind: "timeout" as const,
                error: `timeout: response body unfinished after ${options.timeoutMs} ms`,
              }
            : {}),
        });
      };
      onTimeout = () => done(true, true);
      res.on("data", (chunk: Buffer) => {
        if (settled) return;
        const room = cap - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size = cap;
          // Enough read: stop the transfer instead of downloading the rest.
          res.destroy();
          done(true);
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on("end", () => done(false));
      // Closed before the end without our doing: keep what arrived, and say it is incomplete.
      res.on("close", () => done(!res.complete));
      res.on("error", () => done(true));
    });

    req.on("error", (error: NodeJS.ErrnoException) => {
      if (error instanceof BlockedAddressError) fail("blocked_address", error.message);
      else if (tlsFailure(error)) fail("tls", error.code ?? error.message);
      else fail("network", error.code ?? error.message);
    });
    req.end(options.body);
  });
}
