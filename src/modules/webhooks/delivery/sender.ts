import {
  isIP,
  type LookupFunction,
  connect as netConnect,
  type Socket,
  type TcpNetConnectOpts,
} from "node:net";
import { type ConnectionOptions, connect as tlsConnect } from "node:tls";
import { Agent, type buildConnector, type Dispatcher } from "undici";
import { RETRY_AFTER_STATUSES } from "./retry-policy.ts";
import { blockedRange, type Resolver, schemeAllowed, systemResolver } from "./ssrf.ts";

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
  /** Keep-alive connections shared by one worker (createWebhookAgent); one-off connections otherwise. */
  agent?: WebhookAgent;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 65_536;

/** A connection still opening (TCP and TLS) after its attempt gave up is dropped after this long. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Idle connections are kept this long when the receiver names a keep-alive time (`Keep-Alive: timeout=`). */
const KEEP_ALIVE_MAX_MS = 30_000;
/**
 * … and this long when it names none: short enough to stay under the usual server idle limits
 * (Node's 5 s), so a request is rarely written to a socket the receiver is closing.
 */
const KEEP_ALIVE_DEFAULT_MS = 4_000;

class BlockedAddressError extends Error {
  readonly code = "EBLOCKEDADDRESS";
}

/**
 * The lookup the connection itself uses: whatever the name resolves to at connect time is
 * checked before a socket is opened, and only checked addresses are handed to `net.connect`, so
 * the connection goes to an address that was checked (a second, different answer cannot slip in
 * between). If any answer is blocked the whole name is refused, as at subscription time.
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

export interface WebhookAgentOptions {
  /** Certificate authorities to trust instead of Node's (which include NODE_EXTRA_CA_CERTS). */
  ca?: ConnectionOptions["ca"];
  /**
   * Opens the TCP connection (`net.connect` by default), like `resolve` for DNS. Whatever it
   * returns, the address it connected to is checked before TLS starts.
   */
  connectTcp?: (options: TcpNetConnectOpts) => Socket;
}

interface Policy {
  resolve: Resolver;
  allowPrivate: boolean;
}

/**
 * undici's connector for one policy: TCP to an address the guarded lookup checked, then the
 * socket's remote address checked again (it covers IP-literal hosts and a connection that landed
 * elsewhere), and only then TLS, with SNI and certificate check on the URL's host name. So not one
 * byte (not even a TLS ClientHello) goes to a refused address.
 */
function guardedConnector(policy: Policy, options: WebhookAgentOptions): buildConnector.connector {
  const connectTcp = options.connectTcp ?? netConnect;
  return ({ hostname, port, protocol }, callback) => {
    // Plain http only where schemeAllowed let it through (loopback, private targets allowed).
    const plain = protocol === "http:" && policy.allowPrivate;
    let pending: buildConnector.Callback | null = callback;
    const settle = (error: Error | null, socket: Socket | null) => {
      const cb = pending;
      if (!cb) return;
      pending = null;
      clearTimeout(timer);
      if (error) cb(error, null);
      else cb(null, socket!);
    };
    const tcp = connectTcp({
      host: hostname,
      port: Number(port) || (plain ? 80 : 443),
      lookup: guardedLookup(policy.resolve, policy.allowPrivate),
    });
    let socket: Socket = tcp;
    const timer = setTimeout(
      () =>
        socket.destroy(
          Object.assign(new Error(`connect timed out after ${CONNECT_TIMEOUT_MS} ms`), {
            code: "ETIMEDOUT",
          }),
        ),
      CONNECT_TIMEOUT_MS,
    );
    // A connection left opening by an attempt that gave up must not keep the process alive.
    timer.unref();
    // on, not once: a socket can emit a second error, and none may go unheard.
    tcp.on("error", (error) => settle(error, null));
    tcp.once("connect", () => {
      const remote = tcp.remoteAddress;
      const range = policy.allowPrivate ? null : remote ? blockedRange(remote) : "not-an-ip";
      if (range) {
        tcp.destroy(new BlockedAddressError(`connected to ${remote} (${range})`));
        return;
      }
      tcp.setNoDelay(true);
      if (plain) return settle(null, tcp);
      const secure = tlsConnect({
        socket: tcp,
        // An IP-literal host sends no SNI; the certificate is checked against the literal.
        ...(isIP(hostname) ? {} : { servername: hostname }),
        ...(options.ca ? { ca: options.ca } : {}),
        ALPNProtocols: ["http/1.1"],
      });
      socket = secure;
      secure.once("secureConnect", () => settle(null, secure));
      secure.on("error", (error) => settle(error, null));
    });
  };
}

/**
 * The keep-alive connections of one worker process: undici pools, at most `connections` per
 * origin (the worker's own per-target limit is what bounds concurrency; this only reuses
 * connections). One pool set per address policy (resolver, allowPrivate): a connection is checked
 * once, when it opens, under the policy of every attempt that will ever reuse it, so an attempt
 * never gets a socket that a laxer policy let through. A worker has one policy.
 */
export class WebhookAgent {
  readonly #connections: number;
  readonly #options: WebhookAgentOptions;
  readonly #agents = new Map<Resolver, Map<boolean, Agent>>();

  constructor(connections: number, options: WebhookAgentOptions = {}) {
    this.#connections = connections;
    this.#options = options;
  }

  /** The undici dispatcher for attempts under this policy. */
  dispatcher(resolve: Resolver, allowPrivate: boolean): Agent {
    let byPrivate = this.#agents.get(resolve);
    if (!byPrivate) {
      byPrivate = new Map();
      this.#agents.set(resolve, byPrivate);
    }
    let agent = byPrivate.get(allowPrivate);
    if (!agent) {
      agent = guardedAgent(this.#connections, { resolve, allowPrivate }, this.#options);
      byPrivate.set(allowPrivate, agent);
    }
    return agent;
  }

  /** Closes every connection now; attempts in flight fail. */
  async destroy(): Promise<void> {
    const agents = [...this.#agents.values()].flatMap((byPrivate) => [...byPrivate.values()]);
    this.#agents.clear();
    await Promise.all(agents.map((agent) => agent.destroy()));
  }
}

function guardedAgent(connections: number, policy: Policy, options: WebhookAgentOptions): Agent {
  return new Agent({
    connections,
    allowH2: false,
    keepAliveTimeout: KEEP_ALIVE_DEFAULT_MS,
    keepAliveMaxTimeout: KEEP_ALIVE_MAX_MS,
    connect: guardedConnector(policy, options),
  });
}

/** The keep-alive connections of one worker (see WebhookAgent). */
export function createWebhookAgent(maxSockets: number, options: WebhookAgentOptions = {}): WebhookAgent {
  return new WebhookAgent(maxSockets, options);
}

function tlsFailure(error: NodeJS.ErrnoException): boolean {
  return /CERT|SSL|TLS|self.signed|certificate|ALTNAME/i.test(`${error.code ?? ""} ${error.message}`);
}

const utf8 = new TextDecoder();

/**
 * POSTs one webhook attempt over HTTPS (undici). Never throws and never follows redirects (a 3xx
 * is just a status). Certificates are verified as usual (trust a private CA with
 * NODE_EXTRA_CA_CERTS). Unless `allowPrivate`, an internal address is refused twice over, before
 * any byte is sent: on the DNS answer used for the connection, and on the socket's remote address
 * once connected (which also covers IP-literal hosts); a reused keep-alive socket was checked when
 * it opened, under the same policy (WebhookAgent). At most `maxResponseBytes` of the answer are
 * read; then the socket is destroyed. `timeoutMs` bounds the whole attempt; if it expires after
 * the status arrived, the status stands and the body is marked truncated.
 */
export function sendWebhook(options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const cap = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return new Promise<SendResult>((resolvePromise) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    // Without a shared agent the attempt gets connections of its own, closed when it is over.
    let oneOff: Agent | undefined;
    let controller: Dispatcher.DispatchController | undefined;
    const finish = (result: Omit<SendResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (oneOff) void oneOff.destroy();
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
    if (!schemeAllowed(url, options.allowPrivate)) {
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

    const resolve = options.resolve ?? systemResolver;
    if (!options.agent) oneOff = guardedAgent(1, { resolve, allowPrivate: options.allowPrivate }, {});
    const dispatcher = oneOff ?? options.agent!.dispatcher(resolve, options.allowPrivate);

    let status: number | undefined;
    let retryAfter: string | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (truncated: boolean, timedOut = false) => {
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      // stream: true holds back a multi-byte character cut in half by the cap.
      const text = truncated ? new TextDecoder().decode(bytes, { stream: true }) : utf8.decode(bytes);
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
    // Set once the response head is in; a later time-out keeps it.
    let onTimeout = () => fail("timeout", `no response within ${options.timeoutMs} ms`);
    timer = setTimeout(() => {
      onTimeout();
      // Still waiting for a connection: onRequestStart aborts it when it gets one.
      controller?.abort(new Error("attempt timed out"));
    }, options.timeoutMs);

    try {
      dispatcher.dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: "POST",
          headers: options.headers,
          body: options.body,
          // The attempt's own timer bounds it as a whole; undici's per-phase timers would only
          // cost a timer each.
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        {
          onRequestStart(c) {
            controller = c;
            if (settled) c.abort(new Error("attempt over"));
          },
          onResponseStart(_c, statusCode, headers) {
            status = statusCode;
            const header = headers["retry-after"];
            retryAfter =
              RETRY_AFTER_STATUSES.has(statusCode) && typeof header === "string" ? header : undefined;
            onTimeout = () => done(true, true);
          },
          onResponseData(c, chunk) {
            if (settled) return;
            const room = cap - size;
            if (chunk.length > room) {
              chunks.push(chunk.subarray(0, room));
              size = cap;
              done(true);
              // Enough read: stop the transfer (undici closes the socket) instead of downloading the rest.
              c.abort(new Error("response cap reached"));
              return;
            }
            chunks.push(chunk);
            size += chunk.length;
          },
          onResponseEnd() {
            done(false);
          },
          onResponseError(_c, error: NodeJS.ErrnoException) {
            if (settled) return;
            // Closed before the end without our doing: keep what arrived, and say it is incomplete.
            if (status !== undefined) done(true);
            else if (error instanceof BlockedAddressError) fail("blocked_address", error.message);
            else if (tlsFailure(error)) fail("tls", error.code ?? error.message);
            else fail("network", error.code ?? error.message);
          },
        },
      );
    } catch (error) {
      // Invalid request options (a header value undici refuses): no request was sent.
      fail("network", (error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  });
}
