export interface BackoffOptions {
  /** Delay after the first failure. */
  firstMs: number;
  /** No delay is longer than this. */
  maxMs: number;
  /** [0, 1): spreads the delays ±20% so many processes do not retry in step; Math.random by default. */
  random?: () => number;
}

/** Exponential back-off: firstMs × 2^(failures-1), capped at maxMs, with ±20% jitter. */
export function backoffDelayMs(failures: number, options: BackoffOptions): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const base = Math.min(options.firstMs * 2 ** exponent, options.maxMs);
  const jitter = 0.8 + 0.4 * (options.random ?? Math.random)();
  return Math.max(1, Math.round(Math.min(base * jitter, options.maxMs)));
}
