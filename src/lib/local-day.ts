const HOUR_MS = 3_600_000;

/**
 * The instant a calendar day starts in a time zone: the local midnight of the day `instant` falls
 * in (ms since the epoch). Exact across DST changes: the wall clock's guess is moved by whole hours
 * until the instant before it is another day and it is the same day.
 */
export function startOfLocalDay(instant: number, timeZone: string): number {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  const parts = (t: number) =>
    Object.fromEntries(format.formatToParts(t).map((p) => [p.type, p.value])) as Record<string, string>;
  const dayOf = (t: number) => {
    const p = parts(t);
    return `${p.year}-${p.month}-${p.day}`;
  };
  const now = parts(instant);
  const today = dayOf(instant);
  const elapsed = ((Number(now.hour) * 60 + Number(now.minute)) * 60 + Number(now.second)) * 1000;
  let start = instant - (((instant % 1000) + 1000) % 1000) - elapsed;
  // The wall clock's guess is an hour off on a day whose clocks moved before `instant`.
  while (dayOf(start) !== today) start += HOUR_MS;
  while (dayOf(start - HOUR_MS) === today) start -= HOUR_MS;
  return start;
}
