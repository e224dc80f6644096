/**
 * The cells of a getStats query and their values, by one of two paths:
 * - gathered: the needed columns of the selected rows in one table (time order when it matters; ref
 *   columns joined), one frame;
 * - streamed: partitions read in place, one frame each, aggregates accumulating across them (every
 *   tree combines, no order across identifiers, no ref columns, no orderbook, no per-group calendar).
 */
import { checkResultSize } from '../../core/result-limits.js';
import { type Column, compareStrings, gatherOrNull, int32Pairs, type SymbolColumn } from '../../core/column.js';
import { scratchInt32 } from '../../core/arena.js';
import { argError } from '../../core/errors.js';
import { Table } from '../../core/table.js';
import type { Source } from '../../storage/source.js';
import type { TableSchema } from '../../storage/schema.js';
import { gatherColumns } from '../select/args.js';
import type { Selection } from '../select/select.js';
import { sortTable } from '../sort.js';
import { type OrderbookMode, withTopOfBook } from '../ticks/orderbook.js';
import { joinRefs, type RefTable, refColumn } from '../ticks/ref.js';
import type { Frame } from './aggregates.js';
import type { Buckets } from './buckets.js';
import { type EvalShare, evalShare, evaluate } from './evaluate.js';
import { atomCells, cellIndex, type Layout, layoutOf, movingFrames, plainFrame, presentKeys, windowRanges } from './frames.js';
import { groupBy } from './groups.js';
import { groupExchanges, type HolidayMode, loadCalendar, nonTradingDay } from './holidays.js';
import { partBuckets, partFrames, presentPairs, streamGroups } from './stream.js';
import { combinable, type Node } from './tree.js';
import { vecToColumn } from './vectors.js';
import { dictOf } from '../../core/dict.js';

const MAX_CELLS = 20_000_000;
export const TOP_OF_BOOK = ['bestBid', 'bestAsk', 'maxSize', 'spread', 'midPoint'];

export interface Output {
  readonly name: string;
  readonly node: Node;
  readonly arg: string;
  readonly tree: unknown;
}

export interface StatsPlan {
  readonly db: Source;
  readonly t: TableSchema;
  readonly outputs: readonly Output[];
  readonly groupCols: readonly string[];
  readonly refs: readonly RefTable[];
  readonly instrumentRef: RefTable | undefined;
  readonly orderbook: OrderbookMode | undefined;
  readonly levelColumns: readonly string[];
  /** The timestamp column buckets and order follow (timeCol, or the partition column). */
  readonly clock: string | undefined;
  readonly buckets: Buckets | undefined;
  /** Moving windows: atoms of gcd(window, granularity), and how many make a bucket and a window. */
  readonly atoms: Buckets | undefined;
  readonly perBucket: number;
  readonly perWindow: number;
  readonly racking: boolean;
  readonly holidays: HolidayMode | undefined;
  readonly idList: readonly string[] | undefined;
  readonly inputTZ: string;
  readonly sliced: boolean;
  readonly needsOrder: boolean;
  readonly granularity: number;
}

/** What both paths give: groups (with their key values), cells in output order, and the values. */
export interface Cells {
  readonly groupCount: number;
  /** group key values, row g = group g */
  readonly keys: Table;
  readonly layout: Layout;
  readonly values: ReadonlyMap<string, Column>;
  readonly topOfBook?: ReadonlyMap<string, Column>;
}

/** Which paths may run; tests turn streaming off to compare both paths on the same queries. */
export const statsPaths = { stream: true, streamed: 0 };

/** True when the query can run on partitions in place. */
export function canStream(p: StatsPlan, selection: Selection): boolean {
  return (
    statsPaths.stream &&
    selection.parts.length > 0 &&
    p.outputs.every((o) => combinable(o.node)) &&
    !p.needsOrder &&
    p.refs.length === 0 &&
    p.orderbook !== 'plotOrderbookSnapshots' &&
    p.holidays?.kind !== 'perGroup'
  );
}

/** Groups plus idList identifiers that have no rows, when racking on the identifier. */
function withExtraGroups(p: StatsPlan, keys: Table, count: number, rank: Int32Array): { keys: Table; count: number; rank: Int32Array; extra: string[] } {
  const onIds = p.groupCols.length === 1 && p.groupCols[0] === p.t.idColumn && keys.get(p.t.idColumn)?.type === 'symbol';
  if (!p.racking || !onIds || !p.idList) return { keys, count, rank, extra: [] };
  const ids = keys.col(p.t.idColumn) as SymbolColumn;
  const names = Array.from(ids.codes, (c) => ids.dict.get(c));
  const present = new Set(names);
  const extra = [...new Set(p.idList)].filter((id) => !present.has(id));
  if (extra.length === 0) return { keys, count, rank, extra };
  const all = [...names, ...extra];
  const col: SymbolColumn = { type: 'symbol', codes: Int32Array.from(all, (_, i) => i), dict: dictOf(all) };
  const order = all.map((_, g) => g).sort((a, b) => compareStrings(all[a]!, all[b]!));
  const merged = new Int32Array(all.length);
  order.forEach((g, r) => (merged[g] = r));
  return { keys: new Table([p.t.idColumn], [col], all.length), count: all.length, rank: merged, extra };
}

/** Which (bucket, group) cells may exist: inside the slices and, with a calendar, on trading days. */
function allowedCells(p: StatsPlan, ranges: Selection['ranges'], exchangeOf: (g: number) => string, groupCount: number): (b: number, g: number) => boolean {
  const buckets = p.buckets;
  if (!buckets || (!p.sliced && !p.holidays)) return () => true;
  // callers ask bucket by bucket (groups inner): the last bucket's bounds and slice test are kept
  let lastK = -1;
  let start = 0n;
  let sliced = true;
  const bucket = (k: number): void => {
    if (k === lastK) return;
    lastK = k;
    start = buckets.boundary(k);
    const end = buckets.boundary(k + 1);
    sliced = !p.sliced || ranges.some(([s, e]) => s < end && e > start);
  };
  if (!p.holidays) {
    return (k) => {
      bucket(k);
      return sliced;
    };
  }
  const exchanges = Array.from({ length: groupCount }, (_, g) => exchangeOf(g));
  const closed = nonTradingDay(p.holidays, loadCalendar(p.db), p.db.config.weekendDays, exchanges, p.inputTZ);
  return (k, g) => {
    bucket(k);
    return sliced && !closed(start, g);
  };
}

/**
 * The cells that exist: racked, moving windows holding rows, or buckets holding rows; in output
 * order (bucket, then group rank) where built here.
 */
function cellKeys(
  p: StatsPlan,
  groupCount: number,
  rank: Int32Array,
  allowed: (b: number, g: number) => boolean,
  present: () => Array<[number, number]>,
  presentAtoms: () => Array<[number, number]>,
): Array<[number, number]> {
  const buckets = p.buckets;
  if (!buckets) return Array.from({ length: groupCount }, (_, g): [number, number] => [0, g]);
  const byRank = new Int32Array(groupCount);
  rank.forEach((r, g) => (byRank[r] = g));
  const listed = (has: (k: number, g: number) => boolean): Array<[number, number]> => {
    const keys: Array<[number, number]> = [];
    for (let k = 0; k < buckets.count; k++) {
      for (let r = 0; r < groupCount; r++) {
        const g = byRank[r]!;
        if (has(k, g) && allowed(k, g)) keys.push([k, g]);
      }
    }
    return keys;
  };
  if (p.racking) {
    // racking makes every (bucket, group) a row: bounded before one is built
    checkResultSize(buckets.count * groupCount, 8 * (p.outputs.length + p.groupCols.length + 1), `getStats: racking ${buckets.count.toLocaleString('en-US')} buckets × ${groupCount.toLocaleString('en-US')} groups gives`);
    if (buckets.count * groupCount > MAX_CELLS) {
      throw argError('badValue', 'granularity', p.granularity, `gives ${buckets.count} buckets × ${groupCount} groups, more than ${MAX_CELLS} cells to rack`, 'a coarser granularity, a shorter window or fewer groups');
    }
    return listed(() => true);
  }
  if (!p.atoms) return present().filter(([b, g]) => allowed(b, g));
  // atom a lies in the window of bucket k when (k+1)·perBucket - perWindow <= a < (k+1)·perBucket
  const span = (a: number): [number, number] => [Math.max(0, Math.ceil((a + 1) / p.perBucket) - 1), Math.min(buckets.count - 1, Math.floor((a + p.perWindow) / p.perBucket) - 1)];
  if (buckets.count * groupCount <= MAX_CELLS) {
    const marks = new Uint8Array(buckets.count * groupCount);
    for (const [a, g] of presentAtoms()) {
      const [first, last] = span(a);
      for (let k = first; k <= last; k++) marks[k * groupCount + g] = 1;
    }
    return listed((k, g) => marks[k * groupCount + g] === 1);
  }
  const seen = new Set<number>();
  const keys: Array<[number, number]> = [];
  for (const [a, g] of presentAtoms()) {
    const [first, last] = span(a);
    for (let k = first; k <= last; k++) {
      const key = k * groupCount + g;
      if (!seen.has(key) && allowed(k, g)) {
        seen.add(key);
        keys.push([k, g]);
      }
    }
  }
  return keys;
}

/** The gathered path. */
export function gatheredCells(p: StatsPlan, selection: Selection, wanted: readonly string[]): Cells {
  let table = gatherColumns(p.t, selection, wanted);
  if (!selection.ordered && p.clock && p.needsOrder) table = sortTable(table, [{ dir: 'asc', column: p.clock }]);
  if (p.refs.length > 0) table = joinRefs(table, p.refs);
  const groups = groupBy(table, p.groupCols);
  // each group's key values from its first row (no grouping: one group, no key columns)
  const keyTable = p.groupCols.length === 0 ? new Table([], [], groups.count) : table.select(p.groupCols).take(groups.keyRow);
  const ex = withExtraGroups(p, keyTable, groups.count, groups.rank);
  const time = p.clock ? table.get(p.clock) : undefined;
  const words = time?.type === 'timestamp' ? int32Pairs(time.data) : new Int32Array(0);
  const bucketOf = p.buckets ? p.buckets.assign(words, undefined, table.length) : new Int32Array(table.length);
  const atomOf = p.atoms ? p.atoms.assign(words, undefined, table.length) : undefined;
  const exchangeOf = exchangesOf(p, table, groups.ofRow, groups.count, ex.extra);
  const allowed = allowedCells(p, selection.ranges, exchangeOf, ex.count);
  const keys = cellKeys(p, ex.count, ex.rank, allowed, () => presentKeys(bucketOf, groups.ofRow, ex.count), () => presentKeys(atomOf!, groups.ofRow, ex.count));
  const layout = layoutOf(keys, ex.rank);
  const values = new Map<string, Column>();
  // outputs over the same frame share their common subtrees
  const shares = new Map<Frame, EvalShare>();
  const shareOf = (f: Frame): EvalShare => {
    let s = shares.get(f);
    if (!s) shares.set(f, (s = evalShare()));
    return s;
  };
  if (atomOf) {
    const frames = movingFrames(table, layout, atomOf, groups.ofRow, ex.count, p.perBucket, p.perWindow);
    let expanded: Frame | undefined;
    for (const o of p.outputs) {
      const frame = combinable(o.node) ? frames.combined : (expanded ??= frames.expanded());
      values.set(o.name, vecToColumn(evaluate(o.node, [frame], o.arg, o.tree, shareOf(frame)), layout.out));
    }
  } else {
    const frame = p.buckets ? plainFrame(table, layout, bucketOf, groups.ofRow, ex.count) : groupFrame(table, layout, groups.ofRow, ex.count);
    for (const o of p.outputs) values.set(o.name, vecToColumn(evaluate(o.node, [frame], o.arg, o.tree, shareOf(frame)), layout.out));
  }
  let topOfBook: Map<string, Column> | undefined;
  if (p.orderbook === 'plotOrderbookSnapshots') {
    const last = lastRowPerCell(layout, bucketOf, groups.ofRow, ex.count);
    const top = withTopOfBook(table.select(p.levelColumns).take(last.rows));
    topOfBook = new Map(TOP_OF_BOOK.map((name) => [name, gatherOrNull(top.col(name), last.index)]));
  }
  return { groupCount: ex.count, keys: ex.keys, layout, values, ...(topOfBook ? { topOfBook } : {}) };
}

/** The streamed path. */
export function streamedCells(p: StatsPlan, selection: Selection): Cells {
  const take = scratchInt32;
  statsPaths.streamed++;
  const parts = selection.parts;
  const types = new Map(p.t.columns.map((c) => [c.name, c.type]));
  const sg = streamGroups(parts, p.groupCols, types, p.t.idColumn);
  const ex = withExtraGroups(p, p.groupCols.length === 0 ? new Table([], [], sg.count) : sg.keys, sg.count, sg.rank);
  const bucketParts = p.buckets && p.clock && !p.atoms ? partBuckets(parts, p.clock, p.buckets, take) : undefined;
  const atomParts = p.atoms && p.clock ? partBuckets(parts, p.clock, p.atoms, take) : undefined;
  const allowed = allowedCells(p, selection.ranges, () => '', ex.count);
  let atomPairs: Array<[number, number]> | undefined;
  const presentAtoms = (): Array<[number, number]> => (atomPairs ??= presentPairs(parts, atomParts!, sg, p.atoms!.count));
  const keys = cellKeys(p, ex.count, ex.rank, allowed, () => (bucketParts ? presentPairs(parts, bucketParts, sg, p.buckets!.count) : []), presentAtoms);
  const layout = layoutOf(keys, ex.rank);
  let frames: Frame[];
  if (atomParts) {
    const atoms = atomCells([...presentAtoms()], ex.count);
    const windows = windowRanges(atoms, layout, ex.count, p.perBucket, p.perWindow);
    frames = partFrames(parts, atomParts, sg, atoms.cellOf, { cells: atoms.keys.length, out: layout.out, windows }, take);
  } else {
    frames = partFrames(parts, bucketParts, sg, cellIndex(layout, ex.count), { cells: layout.out, out: layout.out }, take);
  }
  const share = evalShare();
  const values = new Map(p.outputs.map((o) => [o.name, vecToColumn(evaluate(o.node, frames, o.arg, o.tree, share), layout.out)]));
  return { groupCount: ex.count, keys: ex.keys, layout, values };
}

/** Without buckets every row's cell is its group's place in the layout: one pass, no lookups. */
function groupFrame(table: Table, layout: Layout, ofRow: Int32Array, groups: number): Frame {
  const cellOfGroup = new Int32Array(groups);
  for (let o = 0; o < layout.out; o++) cellOfGroup[layout.group[o]!] = o;
  const cell = new Int32Array(ofRow.length);
  for (let i = 0; i < ofRow.length; i++) cell[i] = cellOfGroup[ofRow[i]!]!;
  return { table, n: ofRow.length, cell, cells: layout.out, out: layout.out };
}

/** Each group's exchange for applyHolidayCalendar 1b (rows, else the Instrument reference). */
function exchangesOf(p: StatsPlan, table: Table, ofRow: Int32Array, known: number, extra: readonly string[]): (g: number) => string {
  if (p.holidays?.kind !== 'perGroup') return () => '';
  const ids = table.get(p.t.idColumn);
  const idOfGroup = (g: number): string => {
    if (g >= known) return extra[g - known]!;
    if (!ids || ids.type !== 'symbol') return '';
    for (let i = 0; i < ofRow.length; i++) if (ofRow[i] === g) return ids.dict.get(ids.codes[i]!);
    return '';
  };
  const fromReference = (id: string): string => {
    const ref = p.instrumentRef;
    if (!ref?.data) return '';
    const lookup = new Table([ref.fk], [{ type: 'symbol', codes: Int32Array.of(0), dict: dictOf([id]) }]);
    const col = refColumn(lookup, ref, 'exchangeID');
    return col.type === 'symbol' ? col.dict.get(col.codes[0]!) : '';
  };
  const fromRows = groupExchanges(table, ofRow, known + extra.length, (g) => fromReference(idOfGroup(g)));
  return (g) => fromRows[g]!;
}

/** The last row (in time order) of each output cell, for the top of book per bucket. */
function lastRowPerCell(layout: Layout, bucketOf: Int32Array, groupOf: Int32Array, groups: number): { rows: Int32Array; index: Int32Array } {
  const index = cellIndex(layout, groups);
  const last = new Int32Array(layout.out).fill(-1);
  for (let i = 0; i < bucketOf.length; i++) {
    if (bucketOf[i]! < 0) continue;
    const o = index(bucketOf[i]!, groupOf[i]!);
    if (o >= 0) last[o] = i;
  }
  const rows = Int32Array.from(last.filter((r) => r >= 0));
  let k = 0;
  return { rows, index: Int32Array.from(last, (r) => (r >= 0 ? k++ : -1)) };
}
