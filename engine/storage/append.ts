/** Appending rows to a table in one atomic commit (import, generateOrderAnalytics). */
import { type Column, gather, int32Pairs } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import { formatDate, NS_PER_DAY, NULL_TS, POS_INF_TS, splitDay } from '../core/time.js';
import { Table } from '../core/table.js';
import type { Database } from './database.js';
import type { RowSource } from './row-source.js';
import type { Changes } from './source.js';
import type { TableSchema } from './schema.js';

/** All columns of a stored partition as a table (through the column cache). */
export function loadAll(t: TableSchema, p: RowSource): Table {
  return partitionTable(t, p, (name) => p.column(name));
}

/** All columns of a stored partition that a commit rewrites: read outside the column cache where the source can (Partition.columnUncached). */
export function loadForRewrite(t: TableSchema, p: RowSource): Table {
  return partitionTable(t, p, (name) => (p.columnUncached ? p.columnUncached(name) : p.column(name)));
}

function partitionTable(t: TableSchema, p: RowSource, column: (name: string) => Column): Table {
  return new Table(
    t.columns.map((c) => c.name),
    t.columns.map((c) => column(c.name)),
    p.rows,
  );
}

/**
 * Row indices of `rows` grouped by the UTC date of the table's time column. Rows mostly follow each
 * other within a day, so each row is compared with the bounds of the last row's day (int64 words, no
 * BigInt) and only a row outside them pays for an exact division.
 */
export function splitByPartition(t: TableSchema, rows: Table): Map<string, Int32Array> {
  const time = rows.col(t.timeColumn!);
  if (time.type !== 'timestamp') throw new Error(`${t.name}.${t.timeColumn} is not a timestamp column`);
  const pairs = int32Pairs(time.data);
  const n = rows.length;
  const slotOf = new Map<number, number>(); // day -> slot
  const days: number[] = [];
  const slots = new Int32Array(n);
  // the current day as [first, last] in int64 words (hi signed, lo unsigned)
  let slot = -1;
  let firstHi = 0;
  let firstLo = 0;
  let lastHi = 0;
  let lastLo = 0;
  for (let i = 0; i < n; i++) {
    const hi = pairs[2 * i + 1]!;
    const lo = pairs[2 * i]! >>> 0;
    const inDay = slot >= 0 && (hi > firstHi || (hi === firstHi && lo >= firstLo)) && (hi < lastHi || (hi === lastHi && lo <= lastLo));
    if (!inDay) {
      if (hi === -2147483648 && lo === 0) {
        throw new TickscopeError('importFailed', `row ${i + 1}: ${t.timeColumn} is null; every ${t.name} row needs its time partition column`);
      }
      const day = splitDay(time.data[i]!).days;
      let s = slotOf.get(day);
      if (s === undefined) {
        slotOf.set(day, (s = days.length));
        days.push(day);
      }
      slot = s;
      // the day's first and last nanosecond, within int64 and past its null (so a null row is
      // never in a day, and reaches the check above)
      const start = BigInt(day) * NS_PER_DAY;
      const first = start <= NULL_TS ? NULL_TS + 1n : start;
      const last = start + NS_PER_DAY - 1n > POS_INF_TS ? POS_INF_TS : start + NS_PER_DAY - 1n;
      firstHi = Number(first >> 32n);
      firstLo = Number(BigInt.asUintN(32, first));
      lastHi = Number(last >> 32n);
      lastLo = Number(BigInt.asUintN(32, last));
    }
    slots[i] = slot;
  }
  // rows of each day, in row order (a counting sort by slot)
  const at = new Int32Array(days.length + 1);
  for (let i = 0; i < n; i++) at[slots[i]! + 1]!++;
  for (let d = 0; d < days.length; d++) at[d + 1]! += at[d]!;
  const all = new Int32Array(n);
  const next = at.slice(0, days.length);
  for (let i = 0; i < n; i++) all[next[slots[i]!]!++] = i;
  return new Map(days.map((day, d) => [formatDate(day), all.subarray(at[d]!, at[d + 1]!)]));
}

/** The changes that append `rows` (columns in schema order) to a table. */
export function appendChanges(db: Database, t: TableSchema, rows: Table): Changes {
  const defs = t.columns;
  if (t.kind === 'reference') {
    const existing = db.reference(t.name);
    const data = existing ? Table.concat(defs, [loadForRewrite(t, existing), rows]) : rows;
    return { references: [{ table: t.name, data }] };
  }
  const partitions: Array<{ table: string; key: string; data: Table }> = [];
  for (const [key, idx] of splitByPartition(t, rows)) {
    // one day's rows only (the usual import): the rows as they are, not a copy
    const fresh = idx.length === rows.length ? rows : new Table(rows.names, rows.columns.map((c) => gather(c, idx)), idx.length);
    const existing = db.partition(t.name, key);
    partitions.push({ table: t.name, key, data: existing ? Table.concat(defs, [loadForRewrite(t, existing), fresh]) : fresh });
  }
  return { partitions };
}

/** Appends rows to a table atomically; returns the partitions written. */
export function appendRows(db: Database, tableName: string, rows: Table): string[] {
  const t = db.table(tableName);
  const changes = db.commit(() => appendChanges(db, t, rows));
  return [...(changes.partitions ?? []).map((p) => p.key), ...(changes.references ?? []).map(() => 'reference')];
}
