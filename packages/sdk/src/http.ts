import { errorFromResponse, PlatformError, retryAfterSeconds } from "./errors.ts";

/** How the SDK retries; every wait is bounded, so a call never hangs on the platform's say-so. */
export interface RetryOptions {
  /** Retries after the first attempt (429, and 5xx or network errors of idempotent requests). Default 3. */
  maxRetries?: number;
  /** First back-off in ms, doubled per retry with full jitter. Default 500. */
  baseDelayMs?: number;
  /** The longest wait in ms; a 429 asking for longer is returned (thrown) at once. Default 60,000. */
  maxDelayMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export type Fetch = (request: Request) => Promise<Response>;

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
const RETRYABLE_5XX = new Set([500, 502, 503, 504]);

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whether sending `request` twice cannot do the work twice: a safe method, or a POST with an Idempotency-Key. */
export function isIdempotent(request: Request): boolean {
  return IDEMPOTENT_METHODS.has(request.method) || request.headers.has("idempotency-key");
}

/**
 * A fetch that gives every POST an `Idempotency-Key` (a fresh UUID, the same on each retry, unless
 * the caller set one), waits out 429s (`Retry-After`, else `X-RateLimit-Reset`, else back-off),
 * and retries idempotent requests on 5xx and network errors with jittered exponential back-off.
 * A request that cannot be sent at all throws `PlatformError` `NETWORK_ERROR`.
 */
export function retryingFetch(options: RetryOptions & { fetch?: Fetch } = {}): Fetch {
  const maxRetries = options.maxRetries ?? 3;
  const base = options.baseDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 60_000;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const send: Fetch = options.fetch ?? ((request) => fetch(request));
  const backoff = (retry: number) => Math.min(maxDelay, Math.round(random() * base * 2 ** retry));

  return async function fetchWithRetries(input: Request): Promise<Response> {
    const request =
      input.method === "POST" && !input.headers.has("idempotency-key")
        ? new Request(input, { headers: withHeader(input.headers, "idempotency-key", crypto.randomUUID()) })
        : input;
    const idempotent = isIdempotent(request);
    for (let retry = 0; ; retry++) {
      let response: Response;
      try {
        response = await send(request.clone());
      } catch (cause) {
        if (idempotent && retry < maxRetries && !request.signal.aborted) {
          await sleep(backoff(retry));
          continue;
        }
        throw new PlatformError({
          code: "NETWORK_ERROR",
          message: `${request.method} ${new URL(request.url).pathname} failed: ${(cause as Error)?.message ?? cause}`,
          status: 0,
          cause,
        });
      }
      if (retry >= maxRetries) return response;
      if (response.status === 429) {
        // Refused before any work was done: safe to repeat whatever the method.
        const asked = retryAfterSeconds(response.headers) ?? resetSeconds(response.headers);
        const wait = asked === null ? backoff(retry) : asked * 1000 + Math.round(random() * 250);
        if (wait > maxDelay) return response;
        await response.body?.cancel();
        await sleep(wait);
        continue;
      }
      if (RETRYABLE_5XX.has(response.status) && idempotent) {
        const asked = retryAfterSeconds(response.headers);
        const wait = Math.max(backoff(retry), asked === null ? 0 : asked * 1000);
        if (wait > maxDelay) return response;
        await response.body?.cancel();
        await sleep(wait);
        continue;
      }
      return response;
    }
  };
}

function resetSeconds(headers: Headers): number | null {
  const value = headers.get("x-ratelimit-reset");
  return value !== null && /^\d+$/.test(value) ? Math.max(1, Number(value)) : null;
}

function withHeader(headers: Headers, name: string, value: string): Headers {
  const copy = new Headers(headers);
  copy.set(name, value);
  return copy;
}

/** Throws the platform's refusal as a `PlatformError`; returns a 2xx response unchanged. */
export async function ensureOk(response: Response): Promise<Response> {
  if (response.ok || (response.status >= 300 && response.status < 400)) return response;
  throw await errorFromResponse(response);
}
