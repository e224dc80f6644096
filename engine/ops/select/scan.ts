/**
 * Reading rows of one partition: each identifier's run (rows are sorted by identifier, then time) is
 * cut to each time range by binary search, the predicate compacts the selection, and the runs are
 * merged into time order with ties by identifier, then storage order (SPEC 4).
 */
import { queryArena } from '../../core/arena.js';
import { type Column, int32Pairs } from '../../core/column.js';
import { inShard, type Shard } from '../../core/query-hooks.js';
import type { RowSource } from '../../storage/row-source.js';
import type { Predicate } from '../filter/compile.js';

/** The rows a scan selected, and the source to read their columns from. */
export interface Scanned {
  readonly rows: Int32Array;
  readonly source: RowSource;
  /** The rows are a view of the partition's stored time order (ScanPlan.readOnly): never to be written. */
  readonly stored?: boolean;
}

export interface ScanPlan {
  /** The partition's sort column (its time partition column). */
  readonly timeColumn: string;
  /** Disjoint, ascending [start, end) instants; rows in any of them are read. */
  readonly ranges: ReadonlyArray<readonly [bigint, bigint]>;
  /** Identifiers to read (on the table's identifier column), or undefined for all. */
  readonly ids?: readonly string[];
  /** Only identifiers in this range (one part of a split query). */
  readonly idRange?: Shard;
  readonly predicate?: Predicate;
  /** 'storage' leaves rows in identifier-then-time order (enough when only each identifier's order matters). */
  readonly order?: 'time' | 'storage';
  /** Where the row array comes from (default: a new array). */
  readonly alloc?: (n: number) => Int32Array;
  /** The caller only reads the rows: a span of the stored time order may be given as it is (Scanned.stored). */
  readonly readOnly?: boolean;
}

/** The high and low 32-bit words of an instant, as the int32 pairs of a timestamp column hold them. */
export const hiOf = (v: bigint): number => Number(BigInt.asIntN(32, v >> 32n));
export const loOf = (v: bigint): number => Number(BigInt.asUintN(32, v));

/** First row in [a, b) whose time is >= the target (hi/lo words), rows being time-sorted. */
export function lowerBound(pairs: Int32Array, a: number, b: number, th: number, tl: number): number {
  let lo = a;
  let hi = b;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const h = pairs[2 * mid + 1]!;
    const before = h < th || (h === th && pairs[2 * mid]! >>> 0 < tl);
    if (before) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Row ranges of a partition to read, in ascending row order (so in identifier order). */
function runRanges(p: RowSource, ids: readonly string[] | undefined, within: Shard | undefined): Array<[number, number]> {
  if (p.idRanges.size === 0) return ids || within ? [] : [[0, p.rows]];
  const ranges: Array<[number, number]> = [];
  if (ids) {
    for (const id of new Set(ids)) {
      const r = p.idRanges.get(id);
      if (r && (!within || inShard(within, id))) ranges.push([r[0], r[1]]);
    }
  } else {
    for (const [id, r] of p.idRanges) if (!within || inShard(within, id)) ranges.push([r[0], r[1]]);
  }
  return ranges.sort((x, y) => x[0] - y[0]);
}

/** First position i in [a, b) of `order` whose row's time is >= the target (rows of `order` time-sorted). */
export function lowerBoundIn(order: Int32Array, pairs: Int32Array, a: number, b: number, th: number, tl: number): number {
  return lowerBoundProbed(order, () => pairs, a, b, th, tl);
}

/** lowerBoundIn, with the time words read as the search probes them (`timeAt(r)`: words holding row r). */
function lowerBoundProbed(order: Int32Array, timeAt: (r: number) => Int32Array, a: number, b: number, th: number, tl: number): number {
  let lo = a;
  let hi = b;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const r = order[mid]!;
    const pairs = timeAt(r);
    const h = pairs[2 * r + 1]!;
    if (h < th || (h === th && pairs[2 * r]! >>> 0 < tl)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The rows of a partition in the ranges that pass the predicate, in output (time) order, with the
 * source to read their columns from (narrowed to the rows read, so a narrow query reads little).
 */
export function scanPartition(p: RowSource, plan: ScanPlan): Scanned {
  const runs = runRanges(p, plan.ids, plan.idRange);
  let runRows = 0;
  for (const [a, b] of runs) runRows += b - a;
  const wantTime = plan.order !== 'storage' && runs.length > 1;
  // Most of the partition in time order: walk its stored time order instead of merging the runs.
  const order = wantTime && runRows * 2 >= p.rows ? p.timeOrder?.() : undefined;
  if (order) return scanInTimeOrder(p, plan, order, runs, runRows);
  const timeSource = p.narrow ? p.narrow(runs) : p;
  const time = timeSource.column(plan.timeColumn);
  if (time.type !== 'timestamp') throw new Error(`${plan.timeColumn} is not a timestamp column`);
  const pairs = int32Pairs(time.data);
  const bounds = plan.ranges.map(([s, e]) => [hiOf(s), loOf(s), hiOf(e), loOf(e)] as const);
  // Each identifier's run contributes one segment per range; segments of a run are in time order.
  const merged: Array<[number, number]> = [];
  const segments: Array<[number, number]> = [];
  let total = 0;
  for (const [a, b] of runs) {
    const first = segments.length;
    for (const [sh, sl, eh, el] of bounds) {
      const lo = lowerBound(pairs, a, b, sh, sl);
      const hi = lowerBound(pairs, lo, b, eh, el);
      if (hi > lo) {
        segments.push([lo, hi]);
        total += hi - lo;
      }
    }
    if (segments.length > first) merged.push([segments[first]![0], segments[segments.length - 1]![1]]);
  }
  const source = p.narrow ? p.narrow(segments) : p;
  let sel = plan.alloc ? plan.alloc(total) : new Int32Array(total);
  let n = 0;
  for (const [lo, hi] of segments) for (let r = lo; r < hi; r++) sel[n++] = r;
  if (plan.predicate && n > 0) n = plan.predicate.apply(source, sel, n);
  sel = sel.subarray(0, n);
  if (merged.length <= 1 || n === 0 || plan.order === 'storage') return { rows: sel, source };
  return { rows: mergeRuns(sel, merged, pairs, plan.alloc), source };
}

/** The scan over the stored time order: each range is a binary search, identifiers a row mask. */
function scanInTimeOrder(p: RowSource, plan: ScanPlan, order: Int32Array, runs: ReadonlyArray<[number, number]>, runRows: number): Scanned {
  const fullSource = runRows === p.rows || !p.narrow ? p : p.narrow(runs);
  const timeAt = probedTime(p, plan.timeColumn);
  let keep: Uint8Array | undefined;
  if (runRows < p.rows) {
    keep = new Uint8Array(p.rows);
    for (const [a, b] of runs) keep.fill(1, a, b);
  }
  const spans: Array<[number, number]> = [];
  let total = 0;
  for (const [s, e] of plan.ranges) {
    const lo = lowerBoundProbed(order, timeAt, 0, order.length, hiOf(s), loOf(s));
    const hi = lowerBoundProbed(order, timeAt, lo, order.length, hiOf(e), loOf(e));
    if (hi > lo) {
      spans.push([lo, hi]);
      total += hi - lo;
    }
  }
  // one span of every identifier's rows, nothing to filter: the stored order itself (shared, never
  // written), where a copy was 8 MB of a day's rows, and another when the result kept its own
  if (plan.readOnly && !keep && !plan.predicate && spans.length === 1) return { rows: order.subarray(spans[0]![0], spans[0]![1]), source: fullSource, stored: true };
  let sel = plan.alloc ? plan.alloc(total) : new Int32Array(total);
  let n = 0;
  let source = fullSource;
  for (const [lo, hi] of spans) {
    if (keep) {
      for (let i = lo; i < hi; i++) {
        const r = order[i]!;
        if (keep[r]) sel[n++] = r;
      }
    } else {
      sel.set(order.subarray(lo, hi), n);
      n += hi - lo;
    }
  }
  // a short window over most identifiers: a few rows in each run, read only where they lie
  if (p.narrow && n > 0 && n * SPARSE < p.rows) source = p.narrow(rowSpans(sel.subarray(0, n)));
  if (plan.predicate && n > 0) n = plan.predicate.apply(source, sel, n);
  sel = sel.subarray(0, n);
  return { rows: sel, source };
}

/**
 * A time column's words with row r read, for a binary search over the stored time order: where the
 * source reads in ranges, only the blocks of the rows probed (~40 of a day's rows, where reading the
 * whole column was 16 MB; a streamed result then reads the rest as it is written), else the column.
 */
function probedTime(p: RowSource, column: string): (r: number) => Int32Array {
  const words = (c: Column): Int32Array => {
    if (c.type !== 'timestamp') throw new Error(`${column} is not a timestamp column`);
    return int32Pairs(c.data);
  };
  if (!p.narrow) {
    const all = words(p.column(column));
    return () => all;
  }
  return (r) => words(p.narrow!([[r, r + 1]]).column(column));
}

/** A selection this much smaller than its partition reads only the row spans it lies in. */
const SPARSE = 16;
/** Rows between two selected rows below which their spans are read as one (a cached column's block). */
const SPAN_GAP = 1024;

/** The ascending row spans [a, b) holding `rows` (any order), gaps under SPAN_GAP closed. */
export function rowSpans(rows: Int32Array): Array<[number, number]> {
  const sorted = rows.slice().sort();
  const spans: Array<[number, number]> = [];
  let a = sorted[0]!;
  let b = a + 1;
  for (let i = 1; i < sorted.length; i++) {
    const r = sorted[i]!;
    if (r - b >= SPAN_GAP) {
      spans.push([a, b]);
      a = r;
    }
    b = r + 1;
  }
  spans.push([a, b]);
  return spans;
}

const TWO32 = 4294967296;

/** Where each run's rows sit in the (filtered) selection: [start, end) positions per non-empty run. */
function runSegments(sel: Int32Array, runs: ReadonlyArray<[number, number]>): { starts: number[]; ends: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  for (const [, hi] of runs) {
    const s = i;
    while (i < sel.length && sel[i]! < hi) i++;
    if (i > s) {
      starts.push(s);
      ends.push(i);
    }
  }
  return { starts, ends };
}

/**
 * Puts the selected rows of several runs (each time-sorted, runs in row order) into time order;
 * equal times keep row order, i.e. identifier order then storage order.
 *
 * A loser tree over the runs, keyed by each row's time as an exact float offset from the earliest
 * selected time (exact below 2^53 ns, about 104 days: always within a date partition): log2(runs)
 * comparisons per row on a small in-cache array; ties go to the earlier run. (Measured on 2M rows in
 * 100 runs: 80 ms, against 133 ms for a binary heap and 300+ ms for LSD radix sorts in V8.)
 */
function mergeRuns(sel: Int32Array, runs: ReadonlyArray<[number, number]>, pairs: Int32Array, alloc?: (n: number) => Int32Array): Int32Array {
  const n = sel.length;
  let minHi = Infinity;
  let minLo = 0;
  for (let i = 0; i < n; i++) {
    const r = sel[i]!;
    const hi = pairs[2 * r + 1]!;
    const lo = pairs[2 * r]! >>> 0;
    if (hi < minHi || (hi === minHi && lo < minLo)) {
      minHi = hi;
      minLo = lo;
    }
  }
  const key = alloc ? queryArena.takeFloat64(n) : new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const r = sel[i]!;
    const k = (pairs[2 * r + 1]! - minHi) * TWO32 + ((pairs[2 * r]! >>> 0) - minLo);
    if (k > Number.MAX_SAFE_INTEGER) return heapMerge(sel, runs, pairs);
    key[i] = k;
  }
  const { starts, ends } = runSegments(sel, runs);
  const runCount = starts.length;
  if (runCount <= 1) return sel;
  let leaves = 1;
  while (leaves < runCount) leaves <<= 1;
  const pos = new Int32Array(leaves);
  const end = new Int32Array(leaves);
  const head = new Float64Array(leaves).fill(Infinity);
  for (let r = 0; r < runCount; r++) {
    pos[r] = starts[r]!;
    end[r] = ends[r]!;
    head[r] = key[pos[r]!]!;
  }
  // tree[node] holds the loser of the match at that node; tree[0] the overall winner.
  const tree = new Int32Array(leaves);
  const win = new Int32Array(2 * leaves);
  for (let i = 0; i < leaves; i++) win[leaves + i] = i;
  for (let i = leaves - 1; i >= 1; i--) {
    const a = win[2 * i]!;
    const b = win[2 * i + 1]!;
    const aWins = head[a]! < head[b]! || (head[a] === head[b] && a < b);
    win[i] = aWins ? a : b;
    tree[i] = aWins ? b : a;
  }
  tree[0] = win[1]!;
  const out = alloc ? alloc(n) : new Int32Array(n);
  for (let o = 0; o < n; o++) {
    const w: number = tree[0]!;
    const p = pos[w]!;
    out[o] = sel[p]!;
    pos[w] = p + 1;
    head[w] = p + 1 < end[w]! ? key[p + 1]! : Infinity;
    let cur: number = w;
    for (let node = (w + leaves) >> 1; node >= 1; node >>= 1) {
      const l = tree[node]!;
      if (head[l]! < head[cur]! || (head[l] === head[cur] && l < cur)) {
        tree[node] = cur;
        cur = l;
      }
    }
    tree[0] = cur;
  }
  return out;
}

/** The general merge: a binary heap of runs keyed by (time, row). */
function heapMerge(sel: Int32Array, runs: ReadonlyArray<[number, number]>, pairs: Int32Array): Int32Array {
  const { starts, ends } = runSegments(sel, runs);
  if (starts.length <= 1) return sel;
  const out = new Int32Array(sel.length);
  const heap: number[] = [];
  const pos = Int32Array.from(starts);
  const less = (x: number, y: number): boolean => {
    const rx = sel[pos[x]!]!;
    const ry = sel[pos[y]!]!;
    const hx = pairs[2 * rx + 1]!;
    const hy = pairs[2 * ry + 1]!;
    if (hx !== hy) return hx < hy;
    const lx = pairs[2 * rx]! >>> 0;
    const ly = pairs[2 * ry]! >>> 0;
    if (lx !== ly) return lx < ly;
    return rx < ry;
  };
  const down = (k: number): void => {
    const len = heap.length;
    for (;;) {
      const l = 2 * k + 1;
      if (l >= len) return;
      const r = l + 1;
      const m = r < len && less(heap[r]!, heap[l]!) ? r : l;
      if (!less(heap[m]!, heap[k]!)) return;
      [heap[m], heap[k]] = [heap[k]!, heap[m]!];
      k = m;
    }
  };
  for (let s = 0; s < starts.length; s++) heap.push(s);
  for (let k = (heap.length >> 1) - 1; k >= 0; k--) down(k);
  let o = 0;
  while (heap.length > 0) {
    const s = heap[0]!;
    out[o++] = sel[pos[s]!]!;
    pos[s] = pos[s]! + 1;
    if (pos[s]! >= ends[s]!) {
      heap[0] = heap[heap.length - 1]!;
      heap.pop();
    }
    if (heap.length > 0) down(0);
  }
  return out;
}
