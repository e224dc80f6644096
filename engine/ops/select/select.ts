/**
 * Selecting the rows of a query, shared by getTicks and getStats: the partitions the window (or the
 * slices) touch, each identifier's rows cut by binary search, CanCor's cancels dropped, the predicate
 * applied. With timeCol naming another timestamp column, partitions within the buffer are read and
 * the window applies to that column instead.
 */
import { int32Pairs } from '../../core/column.js';
import { TickscopeError } from '../../core/errors.js';
import { checkpoint } from '../../core/cancel.js';
import { maxResultRows, reportProgress, type Shard } from '../../core/query-hooks.js';
import { NEG_INF_TS, NS_PER_DAY, partitionKey, partitionStartNs, POS_INF_TS } from '../../core/time.js';
import type { Source } from '../../storage/source.js';
import type { TableSchema } from '../../storage/schema.js';
import { andPredicates, type ColumnSource, type Predicate } from '../filter/compile.js';
import type { Window } from '../window.js';
import { type CanCor, CorrectedSource } from './cancor.js';
import type { RowSource } from '../../storage/row-source.js';
import { scanPartition } from './scan.js';
import { sliceRanges } from './slice.js';

export interface SelectSpec {
  readonly table: TableSchema;
  readonly window: Window;
  readonly inputTZ: string;
  /** The column the window applies to: the partition column, or timeCol. */
  readonly timeColumn: string;
  /** Times of day (ns) when temporality is slice. */
  readonly slice?: readonly [number, number];
  /** Identifiers on the table's identifier column (read by binary search). */
  readonly ids?: readonly string[];
  /** Only identifiers in this range (one part of a split query). */
  readonly idRange?: Shard;
  /** Only rows in this time range of the partition column (one part of a query split by time). */
  readonly timeRange?: readonly [bigint, bigint];
  readonly predicate?: Predicate;
  readonly canCor?: CanCor;
  /** Partitions scanned either side of the window when timeColumn is not the partition column. */
  readonly buffer: bigint;
  /** 'storage': each identifier's rows in time order, identifiers one after another (no merge). */
  readonly order?: 'time' | 'storage';
  /** Where row arrays come from (a query's scratch arena), default new arrays. */
  readonly alloc?: (n: number) => Int32Array;
  /** The caller only reads the rows (they may be a view of a partition's stored time order: the part's `stored`). */
  readonly readOnlyRows?: boolean;
}

export interface Selection {
  /** Each partition's rows; `stored`: a view of its stored time order, never to be written. */
  readonly parts: ReadonlyArray<{ readonly source: RowSource; readonly rows: Int32Array; readonly stored?: boolean }>;
  /** False when rows still need sorting by timeColumn (timeCol path). */
  readonly ordered: boolean;
  /** The instant ranges read (the window, or one per slice). */
  readonly ranges: ReadonlyArray<readonly [bigint, bigint]>;
}

const ALL: readonly [bigint, bigint] = [NEG_INF_TS, POS_INF_TS];

/** A predicate keeping rows whose timestamp column lies in one of the ranges (exact, no BigInt per row). */
export function inRanges(column: string, ranges: ReadonlyArray<readonly [bigint, bigint]>): Predicate {
  const words = ranges.map(([s, e]) => [Number(BigInt.asIntN(32, s >> 32n)), Number(BigInt.asUintN(32, s)), Number(BigInt.asIntN(32, e >> 32n)), Number(BigInt.asUintN(32, e))] as const);
  const passes = (hi: number, lo: number): boolean => {
    if (hi === -2147483648 && lo === 0) return false;
    for (const [sh, sl, eh, el] of words) {
      const afterStart = hi > sh || (hi === sh && lo >= sl);
      const beforeEnd = hi < eh || (hi === eh && lo < el);
      if (afterStart && beforeEnd) return true;
    }
    return false;
  };
  const run = (src: ColumnSource, sel: Int32Array, n: number, out?: Uint8Array): number => {
    const c = src.column(column);
    if (c.type !== 'timestamp') throw new Error(`${column} is not a timestamp column`);
    const p = int32Pairs(c.data);
    let k = 0;
    for (let i = 0; i < n; i++) {
      const r = sel[i]!;
      const pass = passes(p[2 * r + 1]!, p[2 * r]! >>> 0);
      if (out) out[i] = pass ? 1 : 0;
      else if (pass) sel[k++] = r;
    }
    return out ? n : k;
  };
  return { columns: [column], apply: (src, sel, n) => run(src, sel, n), mark: (src, sel, n, out) => void run(src, sel, n, out) };
}

/** Drops rows CanCor cancels (the source is a CorrectedSource). */
const notCancelled: Predicate = {
  columns: [],
  apply: (src, sel, n) => {
    const cancelled = (src as CorrectedSource).cancelled;
    let k = 0;
    for (let i = 0; i < n; i++) if (!cancelled[sel[i]!]) sel[k++] = sel[i]!;
    return k;
  },
  mark: (src, sel, n, out) => {
    const cancelled = (src as CorrectedSource).cancelled;
    for (let i = 0; i < n; i++) out[i] = cancelled[sel[i]!] ? 0 : 1;
  },
};

/**
 * The instant ranges a window reads of a table with these partition keys: the window itself, or one
 * per day of a slice (in `zone`), ascending and disjoint.
 */
export function instantRanges(keys: readonly string[], window: Window, slice: readonly [number, number] | undefined, zone: string): ReadonlyArray<readonly [bigint, bigint]> {
  if (!slice) return [[window.start, window.end]];
  const bounds = {
    first: keys.length ? partitionStartNs(keys[0]!) - NS_PER_DAY : NEG_INF_TS,
    last: keys.length ? partitionStartNs(keys[keys.length - 1]!) + 2n * NS_PER_DAY : POS_INF_TS,
  };
  return sliceRanges(window, slice, zone, bounds);
}

/** The rows a query selects, per partition. */
export function selectRows(db: Source, spec: SelectSpec): Selection {
  const t = spec.table;
  if (t.kind === 'reference' || !t.timeColumn) {
    const p = db.reference(t.name);
    if (!p) return { parts: [], ordered: true, ranges: [ALL] };
    const source: RowSource = spec.canCor ? new CorrectedSource(p, spec.canCor) : p;
    let rows = Int32Array.from({ length: p.rows }, (_, i) => i);
    const pred = andPredicates([spec.canCor ? notCancelled : undefined, spec.predicate]);
    if (pred) rows = rows.subarray(0, pred.apply(source, rows, rows.length));
    return { parts: rows.length ? [{ source, rows }] : [], ordered: true, ranges: [ALL] };
  }
  const keys = db.partitionKeys(t.name);
  let ranges = instantRanges(keys, spec.window, spec.slice, spec.inputTZ);
  const part = spec.timeRange;
  if (part) {
    ranges = ranges
      .map(([s, e]) => [s > part[0] ? s : part[0], e < part[1] ? e : part[1]] as const)
      .filter(([s, e]) => s < e);
  }
  if (ranges.length === 0) return { parts: [], ordered: true, ranges };
  const onPartitionColumn = spec.timeColumn === t.timeColumn;
  const pad = onPartitionColumn ? 0n : spec.buffer;
  const lo = ranges[0]![0] <= NEG_INF_TS + pad ? '' : partitionKey(ranges[0]![0] - pad);
  const hi = ranges[ranges.length - 1]![1] >= POS_INF_TS - pad ? '\uffff' : partitionKey(ranges[ranges.length - 1]![1] - 1n + pad);
  const predicate = andPredicates([
    spec.canCor ? notCancelled : undefined,
    onPartitionColumn ? undefined : inRanges(spec.timeColumn, ranges),
    spec.predicate,
  ]);
  const parts: Array<{ source: RowSource; rows: Int32Array; stored?: boolean }> = [];
  const read = keys.filter((key) => key >= lo && key <= hi);
  const limit = maxResultRows();
  let selected = 0;
  reportProgress(0, read.length);
  for (const [done, key] of read.entries()) {
    checkpoint();
    const stored = db.partition(t.name, key)!;
    const source: RowSource = spec.canCor ? new CorrectedSource(stored, spec.canCor) : stored;
    const { rows, source: narrowed, stored: view } = scanPartition(source, {
      timeColumn: t.timeColumn,
      ranges: onPartitionColumn ? ranges : [ALL],
      ...(spec.ids ? { ids: spec.ids } : {}),
      ...(spec.idRange ? { idRange: spec.idRange } : {}),
      ...(predicate ? { predicate } : {}),
      ...(spec.order ? { order: spec.order } : {}),
      ...(spec.alloc ? { alloc: spec.alloc } : {}),
      ...(spec.readOnlyRows ? { readOnly: true } : {}),
    });
    if (rows.length > 0) parts.push({ source: narrowed, rows, ...(view ? { stored: true } : {}) });
    selected += rows.length;
    if (selected > limit) {
      throw new TickscopeError('resultTooLarge', `${t.name}: the query selects more than maxResultRows (${limit.toLocaleString('en-US')}) rows; ${selected.toLocaleString('en-US')} so far after ${done + 1} of ${read.length} partitions. Narrow the window, idList or filter, or raise maxResultRows`);
    }
    reportProgress(done + 1, read.length);
  }
  return { parts, ordered: onPartitionColumn, ranges };
}
