/**
 * A configured duration as the published document states it: the largest whole unit, `1 hour`,
 * `30 days`, `1 min`, `10 s`, `250 ms`. The document states the values the service was started
 * with (its defaults in the committed `openapi.json`), never a number restated in prose.
 */
export function durationInWords(ms: number): string {
  const units: Array<[number, string, string]> = [
    [86_400_000, "day", "days"],
    [3_600_000, "hour", "hours"],
    [60_000, "min", "min"],
    [1000, "s", "s"],
  ];
  for (const [size, one, many] of units)
    if (ms >= size && ms % size === 0) return `${ms / size} ${ms === size ? one : many}`;
  return `${ms} ms`;
}
