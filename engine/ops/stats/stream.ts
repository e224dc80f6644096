/**
 * getStats without gathering: partitions are read in place, one frame each, and every aggregate
 * accumulates its per-cell state across them (partitions in date order; within one, each identifier's
 * rows in time order). Used when every tree combines and no order across identifiers is needed.
 */
import { type Column, gatherParts, int32Pairs } from '../../core/column.js';
import { Table } from '../../core/table.js';
import type { RowSource } from '../select/scan.js';
import type { Frame } from './aggregates.js';
import type { Buckets } from './buckets.js';
import { groupBy } from './groups.js';

export interface Part {
  readonly source: RowSource;
  readonly rows: Int32Array;
}

/** Groups across partitions: a global id per selected row of each part, and each group's key row. */
export interface StreamGroups {
  readonly count: number;
  /** per part, the group of each of its selected rows */
  readonly ofRow: readonly Int32Array[];
  /** the group key values, one row per group (group g is row g) */
  readonly keys: Table;
  /** rank of each group in ascending key order */
  readonly rank: Int32Array;
}

/** A string key of a row's value in a column (exact for every type). */
function valueKey(c: Column, r: number): string {
  switch (c.type) {
    case 'symbol':
      return c.dict[c.codes[r]!]!;
    case 'string':
      return c.values[r]!;
    case 'timestamp':
    case 'timespan': {
      const w = int32Pairs(c.data);
      return `${w[2 * r + 1]}:${w[2 * r]}`;
    }
    case 'float[]':
    case 'long[]':
      return '';
    default:
      return String(c.data[r]);
  }
}

/** Groups the selected rows of every part by the columns, by value. */
export function streamGroups(parts: readonly Part[], columns: readonly string[], types: ReadonlyMap<string, Column['type']>): StreamGroups {
  if (columns.length === 0) {
    // no grouping: one group of every row, present even when no row is
    return { count: 1, ofRow: parts.map(({ rows }) => new Int32Array(rows.length)), keys: new Table([], [], 1), rank: Int32Array.of(0) };
  }
  const index = new Map<string, number>();
  const first: Array<[number, number]> = [];
  const ofRow = parts.map(({ source, rows }, p) => {
    const out = new Int32Array(rows.length);
    const cols = columns.map((c) => source.column(c));
    const single = cols.length === 1 && cols[0]!.type === 'symbol' ? (cols[0] as Extract<Column, { type: 'symbol' }>) : undefined;
    if (single) {
      // one symbol column: resolve each dictionary entry once
      const perCode = new Int32Array(single.dict.length).fill(-1);
      for (let i = 0; i < rows.length; i++) {
        const code = single.codes[rows[i]!]!;
        let g = perCode[code]!;
        if (g < 0) {
          const key = single.dict[code]!;
          g = index.get(key) ?? -1;
          if (g < 0) {
            g = index.size;
            index.set(key, g);
            first.push([p, rows[i]!]);
          }
          perCode[code] = g;
        }
        out[i] = g;
      }
      return out;
    }
    for (let i = 0; i < rows.length; i++) {
      const key = cols.map((c) => valueKey(c, rows[i]!)).join('\u0000');
      let g = index.get(key);
      if (g === undefined) {
        g = index.size;
        index.set(key, g);
        first.push([p, rows[i]!]);
      }
      out[i] = g;
    }
    return out;
  });
  // The key values of each group, gathered from the row that introduced it.
  const byPart = parts.map((_, p) => first.map(([q, r], g) => [q, r, g] as const).filter(([q]) => q === p));
  const order = byPart.flat().map(([, , g]) => g);
  const gathered = new Table(
    columns,
    columns.map((c) =>
      gatherParts(
        types.get(c)!,
        byPart.map((list, p) => ({ column: parts[p]!.source.column(c), rows: Int32Array.from(list, ([, r]) => r) })),
      ),
    ),
    first.length,
  );
  const position = new Int32Array(first.length);
  order.forEach((g, i) => (position[g] = i));
  const keys = gathered.take(position);
  const rank = groupBy(keys, columns).rank;
  return { count: first.length, ofRow, keys, rank };
}

/** Each part's bucket (or atom) of each selected row, from its clock column. */
export function partBuckets(parts: readonly Part[], clock: string, buckets: Buckets): Int32Array[] {
  return parts.map(({ source, rows }) => {
    const time = source.column(clock);
    if (time.type !== 'timestamp') throw new Error(`${clock} is not a timestamp column`);
    return buckets.assign(int32Pairs(time.data), rows, rows.length);
  });
}

/** The frames of the parts: each row in the cell `cellOf(bucket, group)` (rows with no cell dropped). */
export function partFrames(
  parts: readonly Part[],
  bucketOf: readonly Int32Array[] | undefined,
  groupOf: readonly Int32Array[],
  cellOf: (bucket: number, group: number) => number,
  shape: Pick<Frame, 'cells' | 'out' | 'windows'>,
): Frame[] {
  return parts.map(({ source, rows }, p) => {
    const groups = groupOf[p]!;
    const buckets = bucketOf?.[p];
    const cell = new Int32Array(rows.length);
    let kept = 0;
    for (let i = 0; i < rows.length; i++) {
      const b = buckets ? buckets[i]! : 0;
      const c = b < 0 ? -1 : cellOf(b, groups[i]!);
      cell[i] = c;
      if (c >= 0) kept++;
    }
    const table = { col: (name: string) => source.column(name) };
    if (kept === rows.length) return { table, rows, n: rows.length, cell, ...shape };
    const keptRows = new Int32Array(kept);
    const keptCells = new Int32Array(kept);
    for (let i = 0, k = 0; i < rows.length; i++) {
      if (cell[i]! < 0) continue;
      keptRows[k] = rows[i]!;
      keptCells[k++] = cell[i]!;
    }
    return { table, rows: keptRows, n: kept, cell: keptCells, ...shape };
  });
}
