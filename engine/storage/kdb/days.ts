/**
 * A kdb+ table's rows as Tickscope's partitions (one per UTC day of the time column, storage/source.ts)
 * where its folders are not one per day: a month, year or int partition holds many days, and a date
 * found in several `par.txt` segments is the rows of each (SPEC 11). Each folder's time column is read
 * whole once to find the days it holds (dayIndex); a day's partition gathers its rows from every
 * folder holding it, in folder order, and is put in storage order (identifier runs, each in time order:
 * prepare.ts) as the storage-order view of partition.ts is: read whole, never binary-searched unsorted.
 *
 * The rows of a day are read whole from each folder holding it: these layouts do not get the narrow
 * reads of a date partition's own folder (docs/kdb.md says so).
 */
import type { Column } from '../../core/column.js';
import { resultBytes } from '../../core/result-limits.js';
import { Table } from '../../core/table.js';
import { formatDate, NS_PER_DAY } from '../../core/time.js';
import { prepareForStorage } from '../prepare.js';
import type { RowSource } from '../row-source.js';
import type { TableSchema } from '../schema.js';
import type { KdbPartition } from './partition.js';

/** Rows of one folder (all of them when `rows` is undefined). */
export interface FolderRows {
  readonly part: KdbPartition;
  readonly rows?: Int32Array;
}

const INT64_NULL = -(2n ** 63n);

/**
 * The UTC days the folders' time column holds, each with its rows in each folder (ascending row
 * numbers of the folder's own order). A null time belongs to no day (no window selects it).
 */
export function dayIndex(parts: readonly KdbPartition[], timeColumn: string): Map<string, FolderRows[]> {
  const days = new Map<number, FolderRows[]>();
  for (const part of parts) {
    const c = part.column(timeColumn);
    if (c.type !== 'timestamp') throw new Error(`${timeColumn} is not a timestamp column`);
    const n = c.data.length;
    const dayOf = new Int32Array(n);
    const counts = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const v = c.data[i]!;
      // the day by floor division (a time before 1970 too)
      const d = v === INT64_NULL ? NaN : Number(v / NS_PER_DAY - (v % NS_PER_DAY < 0n ? 1n : 0n));
      dayOf[i] = Number.isNaN(d) ? -2147483648 : d;
      if (!Number.isNaN(d)) counts.set(d, (counts.get(d) ?? 0) + 1);
    }
    const rows = new Map<number, { idx: Int32Array; k: number }>();
    for (const [d, count] of counts) rows.set(d, { idx: new Int32Array(count), k: 0 });
    for (let i = 0; i < n; i++) {
      const r = rows.get(dayOf[i]!);
      if (r) r.idx[r.k++] = i;
    }
    for (const [d, r] of rows) {
      let list = days.get(d);
      if (!list) days.set(d, (list = []));
      list.push(r.idx.length === n ? { part } : { part, rows: r.idx });
    }
  }
  return new Map([...days.keys()].sort((a, b) => a - b).map((d) => [formatDate(d), days.get(d)!]));
}

/** Rows of several folders as one partition, in storage order (the schema's identifier runs in time order). */
export function gathered(schema: TableSchema, parts: readonly FolderRows[]): RowSource & { heldBytes(): number } {
  const names = schema.columns.map((d) => d.name);
  const tables = parts.map(({ part, rows }) => {
    const t = new Table(
      names,
      names.map((n) => part.column(n)),
    );
    return rows ? t.take(rows) : t;
  });
  const whole = tables.length === 1 ? tables[0]! : Table.concat(schema.columns, tables);
  const { table, idRanges, timeOrder } = prepareForStorage(schema, whole);
  const columns = new Map<string, Column>();
  const bytes = resultBytes(schema.columns, table.length);
  return {
    rows: table.length,
    heldBytes: () => bytes,
    idRanges: new Map(Object.entries(idRanges ?? {})),
    column: (name: string): Column => {
      let c = columns.get(name);
      if (!c) columns.set(name, (c = table.col(name)));
      return c;
    },
    ...(timeOrder ? { timeOrder: () => timeOrder } : {}),
  };
}
