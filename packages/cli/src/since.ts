/** Units of a relative time: `90s`, `30m`, `2h`, `3d`, `1w`. */
const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * A point in time from the command line: a duration back from `now` (`2h`, `30m`, `3d`, `1.5h`)
 * or an RFC 3339 date and time (`2026-11-26T10:00:00Z`). Null when it is neither.
 */
export function parseSince(text: string, now: Date = new Date()): Date | null {
  const relative = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(text.trim());
  if (relative) return new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2]!]!);
  // Absolute: a full date and time with its offset, as the API takes it (no local-time guessing).
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/.test(text.trim()))
    return null;
  const at = new Date(text.trim());
  return Number.isNaN(at.getTime()) ? null : at;
}
