/**
 * One query split across the executor's workers, each part computed exactly as the whole query would
 * compute those rows, the parts' results merged into the whole query's result, row for row:
 *
 * - getTicks splits by time ranges of about equal rows (cut at the times of evenly spaced rows of the
 *   partitions' stored time order; rows at a cut go to the later part). Its rows are in time order, so
 *   the parts' results follow one another; a forward fill then fills the seams (a part's leading
 *   nulls of an identifier take its last value before the part). It runs whole with timeCol, linear
 *   fills, orderbook modes, without a fill over one partition (its result is a row index over the
 *   stored columns), a forward fill with ref or without the identifier column, more rows than
 *   maxResultRows, or an idList whose identifiers hold under half of the partitions' rows (it reads
 *   their runs alone; cutting by time would read every row's time). Each part's rows are counted before it runs, and the parts write their
 *   fixed-width columns into one shared output (core/shared-output.ts); a part whose rows differ (a
 *   filter) returns its own columns, which are appended.
 * - getStats splits by identifier ranges: fill, racking and moving windows work per identifier, and
 *   it groups first by the identifier, so the parts' groups are disjoint. They are merged by bucket
 *   time, ties going to the part of the lower identifiers (the whole query's order: bucket, then
 *   group). It runs whole when grouped first by another column.
 *
 * Both: sortCols and decPlaces apply to the merged result, in that order, as they do to a whole one.
 * Queries with another idCol or applyCanCor, over one identifier, or of fewer rows than the
 * splitMinRows setting (estimated from the partitions' layout) run whole.
 */
import { type Column, type ColumnType, concatColumns, type Int64Column, compareStrings, int32Pairs } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import { asShard, maxResultRows, parallelism, type Shard, shardsOf } from '../core/query-hooks.js';
import { Table } from '../core/table.js';
import { NEG_INF_TS, NS_PER_DAY, partitionKey, partitionStartNs, POS_INF_TS } from '../core/time.js';
import type { QueryResult } from '../core/result.js';
import { outputColumns } from '../ops/get-ticks.js';
import { queryBase, type SelectArg } from '../ops/select/query.js';
import { instantRanges } from '../ops/select/select.js';
import { hiOf, loOf, lowerBound, lowerBoundIn } from '../ops/select/scan.js';
import { roundFloats } from '../ops/round.js';
import { sortTable } from '../ops/sort.js';
import { fillForwardSeams } from '../ops/ticks/fill.js';
import { applyCanCor, columns as columnsArg, decPlaces as decPlacesArg, fill as fillArg, groupBy as groupByArg, idCol, sortCols as sortColsArg } from '../registry/args.js';
import type { ArgsFor, DecodedArgs } from '../registry/decode.js';
import type { Source } from '../storage/source.js';
import { columnOf } from '../storage/schema.js';
import { allocateOutput, sharedColumns } from '../core/shared-output.js';

/** Most parts of one query. */
const MAX_PARTS = 8;

type SplitPlan =
  | {
      readonly by: 'identifier';
      /** Rows per identifier in the partitions the window touches, in identifier order. */
      readonly weights: ReadonlyArray<readonly [string, number]>;
      readonly rows: number;
      /** The column the parts' results are merged by (null: they follow one another). */
      readonly key: string | null;
    }
  | {
      readonly by: 'time';
      /** The rows the query reads as time-ordered runs (per partition, one per instant range: the window or each day's slice), to cut into parts of equal rows. */
      readonly runs: ReadonlyArray<{ readonly order: Int32Array; readonly time: Int32Array; readonly from: number; readonly to: number }>;
      readonly rows: number;
      readonly window: { readonly start: bigint; readonly end: bigint };
      /** Forward fill: the seams between parts are filled after the merge (a part's first rows take the values before it). */
      readonly refill: boolean;
      readonly idColumn: string;
      /** The result's columns, which the parts write into one shared output (core/shared-output.ts). */
      readonly columns: ReadonlyArray<{ readonly name: string; readonly type: ColumnType }>;
    };

/** The arguments the split planner reads: the selection's, and those that decide whether the parts' rows can be merged. */
type SplitArgs = ArgsFor<SelectArg | typeof applyCanCor | typeof columnsArg | typeof fillArg | typeof groupByArg | typeof sortColsArg | typeof decPlacesArg>;

/** How a query splits, or null when it runs whole. */
function splitPlan(db: Source, op: string, args: SplitArgs): SplitPlan | null {
  const how = args.op.split; // the operation's declaration says whether and how it splits
  if (how === null) return null;
  let base: ReturnType<typeof queryBase>;
  try {
    base = queryBase(db, args);
  } catch {
    return null; // the query itself reports its arguments' errors
  }
  const { t, window, idList, timeColumn, orderbook, refs } = base;
  if (t.kind !== 'partitioned' || !t.timeColumn || columnOf(t, t.idColumn)?.type !== 'symbol') return null;
  if ((args.get(idCol.name) ?? t.idColumn) !== t.idColumn || args.get(applyCanCor.name)) return null;
  // whole partitions the window touches (with timeCol's buffer)
  const pad = timeColumn && timeColumn !== t.timeColumn ? db.config.timeColBuffer : 0n;
  const lo = window.start <= NEG_INF_TS + pad ? '' : partitionKey(window.start - pad);
  const hi = window.end >= POS_INF_TS - pad ? '\uffff' : partitionKey(window.end - 1n + pad);
  const keys = db.partitionKeys(t.name).filter((k) => k >= lo && k <= hi);
  if (how === 'time') {
    // by time ranges: the parts' rows follow one another, so merging them is appending
    const fill = args.get(fillArg.name);
    const columns = args.get(columnsArg.name);
    if (orderbook || (timeColumn && timeColumn !== t.timeColumn)) return null;
    // Without a fill, the result of a window within one partition is a row index over the stored
    // columns (nothing copied), which parts could not share: it runs whole (below). Over several
    // partitions the whole query gathers every column into new arrays, as the parts do, so it splits.
    const fills = fill === 'zero' || fill === 'forward';
    if (fill !== undefined && !fills) return null; // a linear fill reads across the parts' seams
    const refill = fill === 'forward';
    if (refill && (refs.length > 0 || (columns && !columns.includes(t.idColumn)))) return null;
    // cut points come from the partitions' stored time order, which a query reads when it reads most
    // of a partition; a narrow idList reads its identifiers' runs alone and runs whole
    if (idList) {
      const wanted = new Set(idList);
      let listed = 0;
      let all = 0;
      for (const k of keys) {
        for (const [id, [a, b]] of db.partition(t.name, k)?.idRanges ?? []) {
          all += b - a;
          if (wanted.has(id)) listed += b - a;
        }
      }
      if (listed * 2 < all) return null;
    }
    // the rows the query reads, as runs of each partition's time order: one per instant range (the
    // window, or each day's slice) that holds rows of it
    const ranges = instantRanges(db.partitionKeys(t.name), window, base.slice, base.inputTZ);
    const runs: Array<{ order: Int32Array; time: Int32Array; from: number; to: number }> = [];
    let rows = 0;
    let partitions = 0;
    for (const k of keys) {
      const p = db.partition(t.name, k);
      const order = p?.timeOrder?.();
      if (!p || !order) return null;
      const c = p.column(t.timeColumn);
      if (c.type !== 'timestamp') return null;
      const time = int32Pairs(c.data);
      const before = rows;
      for (const [start, end] of ranges) {
        const from = start <= NEG_INF_TS ? 0 : lowerBoundIn(order, time, 0, order.length, hiOf(start), loOf(start));
        const to = end >= POS_INF_TS ? order.length : lowerBoundIn(order, time, from, order.length, hiOf(end), loOf(end));
        if (to > from) runs.push({ order, time, from, to });
        rows += Math.max(0, to - from);
      }
      if (rows > before) partitions++;
    }
    if (!fills && partitions < 2) return null;
    let names: string[];
    try {
      names = outputColumns(t, args);
    } catch {
      return null; // the query reports its arguments' errors
    }
    const resultColumns = names.map((name) => ({ name, type: columnOf(t, name)!.type }));
    return { by: 'time', runs, rows, window, refill, idColumn: t.idColumn, columns: resultColumns };
  }
  const groupBy = args.get(groupByArg.name) ?? [t.idColumn];
  if (groupBy[0] !== t.idColumn) return null;
  // rows per identifier in the window: a partition the window covers counts its runs whole; one it
  // cuts counts each run's rows in the window by binary search on its time column (runs are
  // time-sorted; only the runs' blocks are read, which the query reads anyway)
  const wanted = idList ? new Set(idList) : undefined;
  const rows = new Map<string, number>();
  for (const k of keys) {
    const p = db.partition(t.name, k);
    if (!p) continue;
    const runs = [...p.idRanges].filter(([id]) => !wanted || wanted.has(id));
    const dayStart = partitionStartNs(k);
    const whole = pad > 0n || (window.start <= dayStart && window.end >= dayStart + NS_PER_DAY);
    let pairs: Int32Array | null = null;
    if (!whole && runs.length > 0) {
      const src = p.narrow ? p.narrow(runs.map(([, r]) => r).sort((x, y) => x[0] - y[0])) : p;
      const c = src.column(t.timeColumn);
      if (c.type === 'timestamp') pairs = int32Pairs(c.data);
    }
    for (const [id, [a, b]] of runs) {
      const n = pairs ? lowerBound(pairs, a, b, hiOf(window.end), loOf(window.end)) - lowerBound(pairs, a, b, hiOf(window.start), loOf(window.start)) : b - a;
      rows.set(id, (rows.get(id) ?? 0) + n);
    }
  }
  const weights = [...rows].sort((x, y) => compareStrings(x[0], y[0]));
  return { by: 'identifier', weights: weights.filter((w) => w[1] > 0), rows: weights.reduce((s, w) => s + w[1], 0), key: args.op.buckets && args.value(args.op.buckets.unit) !== undefined ? t.timeColumn : null };
}

/** Time ranges of about equal rows covering the window: cut at the times of evenly spaced rows. */
function timeShards(plan: Extract<SplitPlan, { by: 'time' }>, parts: number): Shard[] {
  const cuts: bigint[] = [];
  let before = 0;
  let k = 1;
  for (const run of plan.runs) {
    const n = run.to - run.from;
    while (k < parts && (plan.rows * k) / parts < before + n) {
      const r = run.order[run.from + Math.floor((plan.rows * k) / parts - before)]!;
      const cut = (BigInt(run.time[2 * r + 1]!) << 32n) | BigInt(run.time[2 * r]! >>> 0);
      if (cut > plan.window.start && cut < plan.window.end && (cuts.length === 0 || cut > cuts[cuts.length - 1]!)) cuts.push(cut);
      k++;
    }
    before += n;
  }
  const bounds = [plan.window.start, ...cuts, plan.window.end];
  return cuts.length === 0 ? [] : bounds.slice(1).map((to, i) => ({ lo: null, hi: null, from: bounds[i]!, to }));
}

/** The rows of each time shard (the window's rows from its `from` to its `to`), in order. */
function timeShardRows(plan: Extract<SplitPlan, { by: 'time' }>, shards: readonly Shard[]): number[] {
  const before = (cut: bigint): number => {
    if (cut >= plan.window.end) return plan.rows;
    let n = 0;
    for (const run of plan.runs) n += lowerBoundIn(run.order, run.time, run.from, run.to, hiOf(cut), loOf(cut)) - run.from;
    return n;
  };
  let at = 0;
  return shards.map((s) => {
    const end = before(s.to!);
    const rows = end - at;
    at = end;
    return rows;
  });
}

/**
 * Runs `impl`, split across the executor's idle workers when the query allows it and is large enough
 * (see the file's comment); otherwise whole, here.
 */
export function runSplittable(db: Source, op: string, rawArgs: unknown, args: DecodedArgs, impl: (db: Source, args: DecodedArgs) => QueryResult): QueryResult {
  const par = parallelism();
  const plan = par ? splitPlan(db, op, args) : null;
  if (!par || !plan || plan.rows < par.minRows || (plan.by === 'identifier' && plan.weights.length < 2)) return impl(db, args);
  // a getTicks of more rows than maxResultRows runs whole: it stops at the limit while selecting,
  // before any column is gathered (split, the shared output of all its rows would be made first)
  if (plan.by === 'time' && plan.rows > maxResultRows()) return impl(db, args);
  const helpers = par.reserve(plan.by === 'identifier' ? Math.min(MAX_PARTS, plan.weights.length) - 1 : MAX_PARTS - 1);
  if (helpers === 0) return impl(db, args);
  let shards = plan.by === 'identifier' ? shardsOf(plan.weights, helpers + 1) : timeShards(plan, helpers + 1);
  // a split getTicks: the parts write their rows into the whole result's columns
  let output: ReturnType<typeof allocateOutput> | null = null;
  if (plan.by === 'time' && shards.length > 1) {
    const sizes = timeShardRows(plan, shards);
    const columns = (output = allocateOutput(plan.columns, plan.rows));
    let offset = 0;
    shards = shards.map((s, i) => {
      const into = { offset, rows: sizes[i]!, columns };
      offset += sizes[i]!;
      return { ...s, into };
    });
  }
  par.dispatch(shards.slice(1).map((shard) => ({ operation: op, args: rawArgs, shard })));
  if (shards.length < 2) return impl(db, args);
  const own = asShard(shards[0]!, () => impl(db, args));
  const results = [own, ...par.collect()];
  const rows = results.reduce((n, r) => n + r.table.length, 0);
  let table = mergeTables(
    results.map((r) => r.table),
    plan.by === 'identifier' ? plan.key : null,
    output ? sharedColumns(output, results, rows) : undefined,
  );
  const limit = maxResultRows();
  if (table.length > limit) {
    throw new TickscopeError('resultTooLarge', `the result has ${table.length.toLocaleString('en-US')} rows, more than maxResultRows (${limit.toLocaleString('en-US')}). Narrow the window, idList or filter, or raise maxResultRows`);
  }
  if (plan.by === 'time' && plan.refill) {
    // the merged columns are new arrays (appended parts): filled in place
    const starts: number[] = [];
    let at = 0;
    for (const r of results.slice(0, -1)) starts.push((at += r.table.length));
    table = fillForwardSeams(table, plan.idColumn, starts);
  }
  const sortCols = args.get(sortColsArg.name);
  if (sortCols) table = sortTable(table, sortCols);
  const decPlaces = args.get(decPlacesArg.name);
  if (decPlaces !== undefined) table = roundFloats(table, decPlaces);
  const { wroteInto: _parts, wroteDicts: _dicts, ...meta } = own;
  return { ...meta, table };
}

/**
 * The parts' tables as one: one after another, then (with a key) put in key order, ties to the
 * earlier part. Each part is already in key order. The merged columns are views until read. Columns
 * in `given` are already whole (the parts wrote them into one output) and are taken as they are.
 */
export function mergeTables(tables: readonly Table[], key: string | null, given?: ReadonlyMap<string, Column>): Table {
  const parts = tables.filter((t) => t.length > 0);
  if (parts.length <= 1) return parts[0] ?? tables[0]!;
  const defs = parts[0]!.defs;
  for (const p of parts) {
    const d = p.defs;
    if (d.length !== defs.length || d.some((x, i) => x.name !== defs[i]!.name || x.type !== defs[i]!.type)) {
      throw new TickscopeError('internal', `the parts of a split query disagree on their columns: ${defs.map((x) => `${x.name}:${x.type}`).join(',')} vs ${d.map((x) => `${x.name}:${x.type}`).join(',')}`);
    }
  }
  const all = given?.size
    ? new Table(
        defs.map((d) => d.name),
        defs.map((d) => given.get(d.name) ?? concatColumns(d.type, parts.map((p) => p.col(d.name)))),
      )
    : Table.concat(defs, parts);
  if (!key) return all;
  const order = mergeOrder(int32Pairs((all.col(key) as Int64Column).data), parts.map((p) => p.length));
  return order ? Table.view(all.names, all.columns, order) : all;
}

/**
 * Row positions of runs laid one after another (lengths `sizes`), each ascending by the int64 key
 * (hi/lo words), merged into ascending key order with ties to the earlier run; null when the runs
 * already follow one another in order.
 */
function mergeOrder(w: Int32Array, sizes: readonly number[]): Int32Array | null {
  const k = sizes.length;
  const pos = new Int32Array(k);
  const end = new Int32Array(k);
  let n = 0;
  for (let r = 0; r < k; r++) {
    pos[r] = n;
    n += sizes[r]!;
    end[r] = n;
  }
  const less = (a: number, b: number): boolean => {
    const ha = w[2 * a + 1]!;
    const hb = w[2 * b + 1]!;
    return ha < hb || (ha === hb && w[2 * a]! >>> 0 < w[2 * b]! >>> 0);
  };
  let sorted = true;
  for (let r = 1; r < k && sorted; r++) sorted = !less(pos[r]!, end[r - 1]! - 1);
  if (sorted) return null;
  const out = new Int32Array(n);
  for (let o = 0; o < n; o++) {
    let best = -1;
    for (let r = 0; r < k; r++) {
      if (pos[r]! < end[r]! && (best < 0 || less(pos[r]!, pos[best]!))) best = r;
    }
    out[o] = pos[best]!;
    pos[best] = pos[best]! + 1;
  }
  return out;
}
