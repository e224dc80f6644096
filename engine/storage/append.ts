/** Appending rows to a table in one atomic commit (import, generateOrderAnalytics). */
import { gather } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import { int32Pairs } from '../core/column.js';
import { formatDate, splitDay } from '../core/time.js';
import { Table } from '../core/table.js';
import type { Changes, Database, Partition } from './database.js';
import type { TableSchema } from './schema.js';

/** All columns of a stored partition as a table. */
export function loadAll(t: TableSchema, p: Partition): Table {
  return new Table(
    t.columns.map((c) => c.name),
    t.columns.map((c) => p.column(c.name)),
    p.rows,
  );
}

/** Row indices of `rows` grouped by the UTC date of the table's time column. */
export function splitByPartition(t: TableSchema, rows: Table): Map<string, Int32Array> {
  const time = rows.col(t.timeColumn!);
  if (time.type !== 'timestamp') throw new Error(`${t.name}.${t.timeColumn} is not a timestamp column`);
  const pairs = int32Pairs(time.data);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < rows.length; i++) {
    if (pairs[2 * i + 1] === -2147483648 && pairs[2 * i] === 0) {
      throw new TickscopeError('importFailed', `row ${i + 1}: ${t.timeColumn} is null; every ${t.name} row needs its time partition column`);
    }
    const day = splitDay(time.data[i]!).days;
    let g = groups.get(day);
    if (!g) groups.set(day, (g = []));
    g.push(i);
  }
  return new Map([...groups].map(([day, idx]) => [formatDate(day), Int32Array.from(idx)]));
}

/** The changes that append `rows` (columns in schema order) to a table. */
export function appendChanges(db: Database, t: TableSchema, rows: Table): Changes {
  const defs = t.columns;
  if (t.kind === 'reference') {
    const existing = db.reference(t.name);
    const data = existing ? Table.concat(defs, [loadAll(t, existing), rows]) : rows;
    return { references: [{ table: t.name, data }] };
  }
  const partitions: Array<{ table: string; key: string; data: Table }> = [];
  for (const [key, idx] of splitByPartition(t, rows)) {
    const fresh = new Table(rows.names, rows.columns.map((c) => gather(c, idx)), idx.length);
    const existing = db.partition(t.name, key);
    partitions.push({ table: t.name, key, data: existing ? Table.concat(defs, [loadAll(t, existing), fresh]) : fresh });
  }
  return { partitions };
}

/** Appends rows to a table atomically; returns the partitions written. */
export function appendRows(db: Database, tableName: string, rows: Table): string[] {
  const t = db.table(tableName);
  const changes = db.commit(() => appendChanges(db, t, rows));
  return [...(changes.partitions ?? []).map((p) => p.key), ...(changes.references ?? []).map(() => 'reference')];
}
