/**
 * getStats without gathering: partitions are read in place, one frame each, and every aggregate
 * accumulates its per-cell state across them (partitions in date order; within one, each identifier's
 * rows in time order). Used when every tree combines and no order across identifiers is needed.
 */
import { type Column, gatherParts, int32Pairs, sliceColumn } from '../../core/column.js';
import { Table } from '../../core/table.js';
import type { RowSource } from '../../storage/row-source.js';
import type { Frame } from './aggregates.js';
import type { CellLookup } from './frames.js';
import type { Buckets } from './buckets.js';
import { groupBy } from './groups.js';

export interface Part {
  readonly source: RowSource;
  readonly rows: Int32Array;
}

/**
 * Groups across partitions. Each part's selected rows come as runs of one group (rows are read one
 * identifier at a time), so a part keeps its runs rather than a group per row: run j covers positions
 * start[j] .. start[j+1] of the part's rows and holds group[j].
 */
export interface StreamGroups {
  readonly count: number;
  readonly runs: ReadonlyArray<{ readonly start: Int32Array; readonly group: Int32Array }>;
  /** the group key values, one row per group (group g is row g) */
  readonly keys: Table;
  /** rank of each group in ascending key order */
  readonly rank: Int32Array;
}

/** Collects runs of equal group ids. */
class RunBuilder {
  private readonly starts: number[] = [];
  private readonly groups: number[] = [];
  private last = -1;
  push(position: number, group: number): void {
    if (group === this.last) return;
    this.starts.push(position);
    this.groups.push(group);
    this.last = group;
  }
  done(n: number): { start: Int32Array; group: Int32Array } {
    return { start: Int32Array.from([...this.starts, n]), group: Int32Array.from(this.groups) };
  }
}

/** A string key of a row's value in a column (exact for every type). */
/** A row's value as a key text (groups compare by it). */
export function valueKey(c: Column, r: number): string {
  switch (c.type) {
    case 'symbol':
      return c.dict.get(c.codes[r]!);
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

/** Positions in ascending `rows` of the first row >= r. */
function lowerBound(rows: Int32Array, r: number): number {
  let a = 0;
  let b = rows.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (rows[m]! < r) a = m + 1;
    else b = m;
  }
  return a;
}

/**
 * Groups the selected rows of every part by the columns, by value. With `idColumn` (the rows of each
 * part ascending, grouped by the partition's identifier column alone) the runs come from the
 * partition's identifier ranges by binary search, without reading a row.
 */
export function streamGroups(parts: readonly Part[], columns: readonly string[], types: ReadonlyMap<string, Column['type']>, idColumn?: string): StreamGroups {
  if (columns.length === 0) {
    // no grouping: one group of every row, present even when no row is
    const runs = parts.map(({ rows }) => ({ start: Int32Array.of(0, rows.length), group: Int32Array.of(0) }));
    return { count: 1, runs, keys: new Table([], [], 1), rank: Int32Array.of(0) };
  }
  const index = new Map<string, number>();
  const first: Array<[number, number]> = [];
  const groupOf = (key: string, p: number, row: number): number => {
    let g = index.get(key);
    if (g === undefined) {
      g = index.size;
      index.set(key, g);
      first.push([p, row]);
    }
    return g;
  };
  const runs = parts.map(({ source, rows }, p) => {
    const built = new RunBuilder();
    if (idColumn !== undefined && columns.length === 1 && columns[0] === idColumn && source.idRanges.size > 0) {
      const ranges = [...source.idRanges].sort((x, y) => x[1][0] - y[1][0]);
      let covered = 0;
      for (const [, [lo, hi]] of ranges) covered += hi - lo;
      if (covered === source.rows) {
        for (const [id, [lo, hi]] of ranges) {
          const from = lowerBound(rows, lo);
          const to = lowerBound(rows, hi);
          if (to > from) built.push(from, groupOf(id, p, rows[from]!));
        }
        return built.done(rows.length);
      }
    }
    const cols = columns.map((c) => source.column(c));
    const single = cols.length === 1 && cols[0]!.type === 'symbol' ? (cols[0] as Extract<Column, { type: 'symbol' }>) : undefined;
    if (single) {
      // one symbol column: a run ends where the code changes; each code resolved once
      const codes = single.codes;
      const perCode = new Int32Array(single.dict.length).fill(-1);
      let prev = -1;
      for (let i = 0; i < rows.length; i++) {
        const code = codes[rows[i]!]!;
        if (code === prev) continue;
        prev = code;
        let g = perCode[code]!;
        if (g < 0) g = perCode[code] = groupOf(single.dict.get(code), p, rows[i]!);
        built.push(i, g);
      }
      return built.done(rows.length);
    }
    for (let i = 0; i < rows.length; i++) built.push(i, groupOf(cols.map((c) => valueKey(c, rows[i]!)).join('\u0000'), p, rows[i]!));
    return built.done(rows.length);
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
  return { count: first.length, runs, keys, rank };
}

/** Each part's bucket (or atom) of each selected row, from its clock column. */
export function partBuckets(parts: readonly Part[], clock: string, buckets: Buckets, alloc: (n: number) => Int32Array): Int32Array[] {
  return parts.map(({ source, rows }) => {
    const time = source.column(clock);
    if (time.type !== 'timestamp') throw new Error(`${clock} is not a timestamp column`);
    return buckets.assign(int32Pairs(time.data), rows, rows.length, alloc(rows.length));
  });
}

function markRuns(marks: Uint8Array, b: Int32Array, start: Int32Array, group: Int32Array, groups: number): void {
  for (let j = 0; j < group.length; j++) {
    const g = group[j]!;
    const to = start[j + 1]!;
    for (let i = start[j]!; i < to; i++) {
      const k = b[i]!;
      if (k >= 0) marks[k * groups + g] = 1;
    }
  }
}

/**
 * The (bucket, group) pairs the rows of the parts fall in, over buckets 0 .. buckets-1, ordered by
 * bucket then group rank (the output order).
 */
export function presentPairs(parts: readonly Part[], bucketOf: readonly Int32Array[], sg: StreamGroups, buckets: number): Array<[number, number]> {
  const groups = sg.count;
  const byRank = new Int32Array(groups);
  sg.rank.forEach((r, g) => (byRank[r] = g));
  if (buckets * groups <= 32_000_000) {
    const marks = new Uint8Array(buckets * groups);
    parts.forEach((_, p) => markRuns(marks, bucketOf[p]!, sg.runs[p]!.start, sg.runs[p]!.group, groups));
    const keys: Array<[number, number]> = [];
    for (let k = 0; k < buckets; k++) {
      for (let r = 0; r < groups; r++) if (marks[k * groups + byRank[r]!]) keys.push([k, byRank[r]!]);
    }
    return keys;
  }
  const seen = new Set<number>();
  parts.forEach((_, p) => {
    const b = bucketOf[p]!;
    const { start, group } = sg.runs[p]!;
    for (let j = 0; j < group.length; j++) {
      for (let i = start[j]!; i < start[j + 1]!; i++) if (b[i]! >= 0) seen.add(b[i]! * groups + group[j]!);
    }
  });
  return [...seen]
    .map((key): [number, number] => [Math.floor(key / groups), key % groups])
    .sort((x, y) => x[0] - y[0] || sg.rank[x[1]]! - sg.rank[y[1]]!);
}

/** Cells of a run's rows from their buckets through a dense (bucket, group) table; returns how many have one. */
function cellsOfRun(cell: Int32Array, buckets: Int32Array, from: number, to: number, g: number, table: Int32Array, count: number, groups: number): number {
  let kept = 0;
  for (let i = from; i < to; i++) {
    const b = buckets[i]!;
    const c = b < 0 || b >= count ? -1 : table[b * groups + g]!;
    cell[i] = c;
    if (c >= 0) kept++;
  }
  return kept;
}

/** The frames of the parts (rows ascending in each): each row in the cell `cellOf(bucket, group)` (rows with no cell dropped). */
export function partFrames(
  parts: readonly Part[],
  bucketOf: readonly Int32Array[] | undefined,
  sg: StreamGroups,
  cellOf: CellLookup,
  shape: Pick<Frame, 'cells' | 'out' | 'windows'>,
  alloc: (n: number) => Int32Array,
): Frame[] {
  // without buckets a row's cell depends on its group only: whole runs get one cell
  const cellOfGroup = bucketOf ? undefined : Int32Array.from({ length: sg.count }, (_, g) => cellOf(0, g));
  const dense = cellOf.dense;
  return parts.map(({ source, rows }, p) => {
    const { start, group } = sg.runs[p]!;
    const buckets = bucketOf?.[p];
    const cell = alloc(rows.length);
    let kept = 0;
    for (let j = 0; j < group.length; j++) {
      const g = group[j]!;
      const from = start[j]!;
      const to = start[j + 1]!;
      if (!buckets) {
        const c = cellOfGroup![g]!;
        cell.fill(c, from, to);
        if (c >= 0) kept += to - from;
        continue;
      }
      if (dense) {
        kept += cellsOfRun(cell, buckets, from, to, g, dense.table, dense.buckets, dense.groups);
        continue;
      }
      for (let i = from; i < to; i++) {
        const b = buckets[i]!;
        const c = b < 0 ? -1 : cellOf(b, g);
        cell[i] = c;
        if (c >= 0) kept++;
      }
    }
    let keptRows = rows;
    let keptCells = cell;
    if (kept < rows.length) {
      keptRows = new Int32Array(kept);
      keptCells = new Int32Array(kept);
      for (let i = 0, k = 0; i < rows.length; i++) {
        if (cell[i]! < 0) continue;
        keptRows[k] = rows[i]!;
        keptCells[k++] = cell[i]!;
      }
    }
    // One run of consecutive rows (a whole identifier or day): the frame reads views of the columns.
    // Rows ascend, so they are consecutive exactly when they span as many rows as they count.
    const first = kept > 0 && keptRows[kept - 1]! - keptRows[0]! === kept - 1 ? keptRows[0]! : -1;
    if (first >= 0) {
      const views = new Map<string, Column>();
      const col = (name: string): Column => {
        let c = views.get(name);
        if (!c) views.set(name, (c = sliceColumn(source.column(name), first, first + kept)));
        return c;
      };
      return { table: { col }, n: kept, cell: keptCells, ...shape };
    }
    return { table: { col: (name: string) => source.column(name) }, rows: keptRows, n: kept, cell: keptCells, ...shape };
  });
}
