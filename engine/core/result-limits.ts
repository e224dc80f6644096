/**
 * The limits on what a query may return (SPEC 10: `maxResultRows`, `maxResultBytes`), applied to
 * every operation's output, whatever made its rows: selected ticks, getStats buckets, racking and
 * fills, order summaries. A query that would pass them stops with resultTooLarge (ac 42) naming the
 * limit and the size, before the rows are rendered (and, where the size is known ahead, before they
 * are built).
 */
import type { ColumnDef } from './table.js';
import { TickscopeError } from './errors.js';
import { maxResultBytes, maxResultRows } from './query-hooks.js';

/** Bytes a row of a column of each type holds in a result (strings and lists: an estimate). */
export const ROW_BYTES: Readonly<Record<string, number>> = {
  float: 8, long: 8, timestamp: 8, timespan: 8, int: 4, date: 4, symbol: 4, boolean: 1, string: 24, 'float[]': 48, 'long[]': 48,
};

/** Bytes (estimated) of `rows` rows of these columns. */
export function resultBytes(defs: readonly Pick<ColumnDef, 'type'>[], rows: number): number {
  return defs.reduce((sum, c) => sum + (ROW_BYTES[c.type] ?? 8), 0) * rows;
}

const fmt = (n: number): string => n.toLocaleString('en-US');

/**
 * Throws resultTooLarge when `rows` rows (of about `bytesPerRow` bytes each, when known) would pass
 * the running query's limits; `what` says what makes them ("getStats racks 8,640 buckets × 2,200
 * groups").
 */
export function checkResultSize(rows: number, bytesPerRow: number, what: string, maxBytes = maxResultBytes()): void {
  const maxRows = maxResultRows();
  if (rows > maxRows) {
    throw new TickscopeError('resultTooLarge', `${what}: ${fmt(rows)} rows, more than maxResultRows (${fmt(maxRows)}); narrow the window, idList or filter, use a coarser granularity, or raise maxResultRows`);
  }
  const bytes = rows * bytesPerRow;
  if (bytes > maxBytes) {
    throw new TickscopeError('resultTooLarge', `${what}: ${fmt(rows)} rows of about ${fmt(bytes)} bytes, more than maxResultBytes (${fmt(maxBytes)}); narrow the window, idList, filter or columns, or raise maxResultBytes`);
  }
}
