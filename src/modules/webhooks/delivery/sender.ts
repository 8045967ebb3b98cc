import { Agent, request } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isBlockedAddress, type Resolver, systemResolver } from "./ssrf.ts";

export interface SendResult {
  status?: number | undefined;
  retryAfter?: string | undefined;
  /** The receiver's answer, at most `maxResponseBytes`; `truncated` says whether more was sent. */
  responseBody: string | null;
  truncated: boolean;
  durationMs: number;
  /** timeout | network | blocked_address | tls (with a short reason); undefined when an HTTP status came back. */
  error?: string | undefined;
}

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivate: boolean;
  maxResponseBytes?: number;
  resolve?: Resolver;
  agent?: Agent;
}

class BlockedAddressError extends Error {
  code = "EBLOCKEDADDRESS";
}

/**
 * A lookup for the connection itself: whatever the name resolves to at connect time is checked
 * before the socket is opened, so a DNS answer that changed since the subscription was checked
 * (rebinding) cannot reach an internal address.
 */
function guardedLookup(resolve: Resolver, allowPrivate: boolean): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolve(hostname)
      .then((addresses) => {
        const allowed = allowPrivate ? addresses : addresses.filter((a) => !isBlockedAddress(a.address));
        if (allowed.length === 0 || (!allowPrivate && allowed.length !== addresses.length)) {
          callback(new BlockedAddressError(`${hostname} resolves to a blocked address`));
          return;
        }
        if (options?.all) callback(null, allowed);
        else callback(null, allowed[0]!.address, allowed[0]!.family);
      })
      .catch((error) => callback(error));
  }) as LookupFunction;
}

/** One keep-alive agent per worker process. */
export function createWebhookAgent(maxSockets: number): Agent {
  return new Agent({
    keepAlive: true,
    maxSockets,
    maxFreeSockets: Math.min(maxSockets, 64),
    timeout: 30_000,
  });
}

/** POSTs one webhook attempt. Never follows redirects; never reads more than the cap; never throws. */
export function sendWebhook(options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const cap = options.maxResponseBytes ?? 65_536;
  const elapsed = () => performance.now() - started;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: Omit<SendResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      finish({ responseBody: null, truncated: false, error: "network: invalid URL" });
      return;
    }
    const literal = url.hostname.replace(/^\[|\]$/g, "");
    if (url.protocol !== "https:") {
      finish({ responseBody: null, truncated: false, error: "blocked_address: not https" });
      return;
    }
    if (!options.allowPrivate && isIP(literal) && isBlockedAddress(literal)) {
      finish({ responseBody: null, truncated: false, error: "blocked_address" });
      return;
    }
    const req = request(url, {
      method: "POST",
      headers: { ...options.headers, "content-length": String(Buffer.byteLength(options.body)) },
      agent: options.agent,
      lookup: guardedLookup(options.resolve ?? systemResolver, options.allowPrivate),
    });
    timer = setTimeout(() => {
      req.destroy(new Error("timeout"));
      finish({ responseBody: null, truncated: false, error: `timeout after ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    req.on("socket", (socket) => {
      // Belt and braces: the address actually connected to (IP-literal hosts skip the lookup).
      const check = () => {
        const remote = socket.remoteAddress;
        if (!options.allowPrivate && remote && isBlockedAddress(remote)) {
          req.destroy(new BlockedAddressError(`connected to blocked address ${remote}`));
        }
      };
      if (socket.remoteAddress) check();
      else socket.once("connect", check);
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const done = () =>
        finish({
          status: res.statusCode,
          retryAfter: typeof res.headers["retry-after"] === "string" ? res.headers["retry-after"] : undefined,
          responseBody: Buffer.concat(chunks).toString("utf8"),
          truncated,
        });
      res.on("data", (chunk: Buffer) => {
        if (truncated) return;
        const room = cap - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          size = cap;
          truncated = true;
          // Enough read: stop the transfer rather than download the rest.
          res.destroy();
          done();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on("end", done);
      res.on("error", done);
      res.on("close", done);
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      const kind =
        error instanceof BlockedAddressError
          ? "blocked_address"
          : error.message === "timeout"
            ? `timeout after ${options.timeoutMs} ms`
            : /CERT|SSL|TLS|self.signed|certificate/i.test(`${error.code} ${error.message}`)
              ? "tls"
              : "network";
      finish({
        responseBody: null,
        truncated: false,
        error: `${kind}${kind === "network" || kind === "tls" ? `: ${error.code ?? error.message}` : ""}`,
      });
    });
    req.end(options.body);
  });
}
