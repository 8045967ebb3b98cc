import { loadavg } from "node:os";

export const median = (xs: number[]): number => {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted: number[], p: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN;

/** The 1, 5 and 15 minute load averages, as the benchmark prints them at the start and end of each part. */
export const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "n/a";

export const now = (): number => performance.timeOrigin + performance.now();

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two measurements of one run, each first in turn (odd runs `a` then `b`, even runs `b` then `a`),
 * so neither always runs on the warmer cache.
 */
export async function inTurn<A, B>(run: number, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  if (run % 2) {
    const first = await a();
    return [first, await b()];
  }
  const second = await b();
  return [await a(), second];
}
