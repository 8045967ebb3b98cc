/** Fewest rows a batch reads, however large the records: a bound on statements per export. */
export const MIN_BATCH_ROWS = 10;

/**
 * How many rows the next batch of an export reads: about `targetChars` characters of JSON Lines at
 * the size the last batch's records had, within [MIN_BATCH_ROWS, maxRows]. A batch is what a
 * paused client holds, so it is bounded by its size, not by a count of records that may each be
 * 20 bytes or 20 kB (a product's description alone may hold 10,000 characters).
 */
export function nextBatchRows(
  last: { rows: number; chars: number },
  bounds: { maxRows: number; targetChars: number },
): number {
  if (last.rows <= 0 || last.chars <= 0) return bounds.maxRows;
  const perRow = last.chars / last.rows;
  const rows = Math.floor(bounds.targetChars / perRow);
  return Math.max(Math.min(MIN_BATCH_ROWS, bounds.maxRows), Math.min(bounds.maxRows, rows));
}
