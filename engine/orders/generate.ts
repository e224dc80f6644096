/**
 * .fsi.eqea.generateOrderAnalytics (INTERFACE 4.4, SPEC 6.1, 6.3): selects the orders whose New
 * event lies in the window (dt, or startTS and endTS) and passes idList and filter, reads every event
 * of those orders (later ones too), computes one OrderAnalytics row per order against the market
 * data, appends the rows to OrderAnalytics in one atomic commit (replacing the stored rows of the
 * same orderIDs when regenExistingIDs is true) and returns them.
 *
 * Market data is read per batch of instruments (instrumentBatchSz; default all at once): only that
 * batch's Quote and Trade rows, over the span its orders need, in buffers of their own outside the
 * shared column cache, dropped before the next batch.
 *
 * On the executor, the instruments split across its idle workers before anything is read (contiguous
 * ranges of about equal market data, from the partitions' layout, as a getStats splits by
 * identifier): each part reads its instruments' events and market data and computes their rows, and
 * the worker that took the call merges them in the same order and writes them all in its one commit.
 */
import { queryArena, scratchInt32 } from '../core/arena.js';
import { compareStrings, int32Pairs, numberAt, sliceColumn, type SymbolColumn } from '../core/column.js';
import { type Dict, dictOf } from '../core/dict.js';
import { argError, TickscopeError } from '../core/errors.js';
import { checkpoint } from '../core/cancel.js';
import { currentShard, parallelism, quietly, reportProgress, type Shard, shardsOf } from '../core/query-hooks.js';
import { Table } from '../core/table.js';
import { formatDate, NEG_INF_TS, NS_PER_DAY, partitionKey, POS_INF_TS, splitDay } from '../core/time.js';
import { andPredicates, compileClauses } from '../ops/filter/compile.js';
import type { QueryResult } from '../core/result.js';
import { filterPredicate, gatherColumns } from '../ops/select/args.js';
import { selectRows } from '../ops/select/select.js';
import { sortTable } from '../ops/sort.js';
import { resolveTimestamp, type Window } from '../ops/window.js';
import type * as ARG from '../registry/args.js';
import type { ArgsFor } from '../registry/decode.js';
import { loadAll, loadForRewrite } from '../storage/append.js';
import type { RowSource } from '../storage/row-source.js';
import { type Changes, isWritable, readOnlyError, rolesOf, type Source } from '../storage/source.js';
import type { TableSchema } from '../storage/schema.js';
import { computeOrderAnalytics, orderAnalyticsColumns, REVERSION_HORIZONS_S } from './analytics.js';
import { InMemoryMarketView, type SumsAlloc } from './market-view.js';

const ORDER_COLUMNS = ['eventTimestamp', 'instrumentID', 'orderID', 'eventType', 'side', 'orderQty', 'lastQty', 'lastPx'] as const;
const NS_PER_S = 1_000_000_000n;
/** Most parts of a split generate. */
const MAX_PARTS = 8;

/** The window of New events: dt (a UTC day) or startTS and endTS, exactly one of the two forms. */
export function generateWindow(args: ArgsFor<typeof ARG.dt | typeof ARG.startTS | typeof ARG.endTS>): Window {
  const dt = args.get('dt');
  const s = args.get('startTS');
  const e = args.get('endTS');
  // dt with startTS or endTS: refused when decoded (dt's declaration excludes them)
  if (dt !== undefined) {
    const start = BigInt(dt) * NS_PER_DAY;
    return { start, end: start + NS_PER_DAY };
  }
  if (s === undefined && e === undefined) {
    throw new TickscopeError('requirement', 'generateOrderAnalytics: needs dt (a date such as 2024.03.06) or startTS and endTS (the window of the orders\u2019 New events)');
  }
  if (s === undefined || e === undefined) {
    const [given, missing] = s === undefined ? ['endTS', 'startTS'] : ['startTS', 'endTS'];
    throw new TickscopeError('requirement', `${missing}: missing; ${given} needs ${missing} too (or give dt instead of both)`);
  }
  // generateOrderAnalytics takes no inputTZ: a local time is UTC
  const start = resolveTimestamp(s, 'UTC');
  const end = resolveTimestamp(e, 'UTC');
  if (start >= end) throw new TickscopeError('startNotBeforeEnd', 'startTS >= endTS');
  return { start, end };
}

/** The arguments generateOrderAnalytics reads. */
type GenerateArgs = ArgsFor<
  typeof ARG.table | typeof ARG.dt | typeof ARG.startTS | typeof ARG.endTS | typeof ARG.idList | typeof ARG.filter | typeof ARG.regenExistingIDs | typeof ARG.instrumentBatchSz
>;

/** Runs generateOrderAnalytics against one database: computes, commits and returns the rows. */
export function generateOrderAnalytics(db: Source, args: GenerateArgs): QueryResult {
  // a write aimed at a read-only source is refused first, naming it (SPEC 11), whatever else is wrong
  if (!isWritable(db)) throw new TickscopeError('requirement', `generateOrderAnalytics: ${readOnlyError(db)}`);
  const window = generateWindow(args);
  const sourceName = args.must('table');
  const source = db.table(sourceName);
  for (const c of ORDER_COLUMNS) {
    if (!source.columns.some((d) => d.name === c)) {
      throw argError('unknownColumn', 'table', sourceName, `has no column ${c}`, 'the Order table (orders and their events: New, Fill, Cancel, Done)');
    }
  }
  if (!db.schema.tables.has('OrderAnalytics')) throw new TickscopeError('requirement', `generateOrderAnalytics: ${db.name} has no OrderAnalytics table to write to`);
  const batch = args.get('instrumentBatchSz'); // at least 1: the declaration's range (decoded)
  const regen = args.get('regenExistingIDs') === true || db.config.mapToCompositeTicker;

  const shard = currentShard();
  const rows = queryArena.scoped(() => computeRows(db, source, args, window, batch, shard));
  // one part of a split generate: its instruments' rows go back to the call, which writes them all
  if (shard) return { table: rows, outputTZ: 'UTC', window, tableName: 'OrderAnalytics', timeColumn: 'strikeTime', idColumn: 'instrumentID' };
  const out = db.config.mapToCompositeTicker ? mapComposite(rows, db.config.compositeTickerMap) : rows;
  const target = db.table('OrderAnalytics');
  if (out.length > 0 || regen) db.commit(() => changesFor(db, target, out, regen));
  return { table: out, outputTZ: 'UTC', window, tableName: 'OrderAnalytics', timeColumn: 'strikeTime', idColumn: 'instrumentID' };
}

/** The OrderAnalytics rows of the selected orders, ordered by strikeTime, instrumentID, orderID. */
function computeRows(db: Source, source: TableSchema, args: GenerateArgs, window: Window, batch: number | undefined, shard: Shard | undefined): Table {
  const ids = args.get('idList');
  // a whole call on the executor hands instrument ranges to idle workers first, so every part reads
  // and computes at once, each only its instruments' events and market data
  const split = shard ? null : splitAcrossWorkers(db, source, args, window, ids);
  const own = shard ?? split?.own;
  const newOnly = compileClauses([{ fn: '=', column: 'eventType', value: 'New', source: 'New' }], source, 'UTC', 'table');
  const predicate = andPredicates([newOnly, filterPredicate(source, args, 'UTC')]);
  const base = { table: source, inputTZ: 'UTC', timeColumn: source.timeColumn ?? '', buffer: db.config.timeColBuffer, alloc: scratchInt32, ...(ids ? { ids } : {}) };
  // the orders: New events in the window that pass idList and filter (of every instrument: an
  // order's later events count under their own instrument, as in the whole call)
  const news = quietly(() => gatherColumns(source, selectRows(db, { ...base, window, ...(predicate ? { predicate } : {}) }), ['orderID']));
  const wanted = new Set(symbolValues(news.col('orderID') as SymbolColumn));
  wanted.delete('');
  const names = source.columns.filter((c) => !c.type.endsWith('[]')).map((c) => c.name);
  const parts: Table[] = [];
  if (wanted.size > 0) {
    // every event of those orders (of this part's instruments), from the window's start on (fills may come after its end)
    const later = quietly(() => gatherColumns(source, selectRows(db, { ...base, window: { start: window.start, end: POS_INF_TS }, ...(own ? { idRange: own } : {}) }), names));
    const orderIDs = later.col('orderID') as SymbolColumn;
    const events = later.take(markedRows(orderIDs.codes, codesIn(orderIDs.dict, wanted)));

    // instruments in batches: only a batch's market data is in memory at once
    const inst = events.col('instrumentID') as SymbolColumn;
    const mine = distinctValues(inst).sort();
    const size = batch ?? mine.length;
    reportProgress(0, mine.length, 'instruments');
    for (let b = 0; b < mine.length; b += size) {
      checkpoint();
      const these = new Set(mine.slice(b, b + size));
      const sub = events.take(markedRows(inst.codes, codesIn(inst.dict, these)));
      parts.push(computeOrderAnalytics(sub, quietly(() => marketFor(db, sub, [...these]))));
      reportProgress(Math.min(mine.length, b + size), mine.length, 'instruments');
    }
  }
  if (split) parts.push(...split.others());
  const all = Table.concat(orderAnalyticsColumns(), parts);
  return sortTable(all, [
    { dir: 'asc', column: 'strikeTime' },
    { dir: 'asc', column: 'instrumentID' },
    { dir: 'asc', column: 'orderID' },
  ]);
}

/**
 * Instrument ranges of a generate handed to the executor's idle workers, before anything is read:
 * contiguous ranges of about equal market data (Quote and Trade rows of the window's days, from the
 * partitions' layout), when that reaches the splitMinRows setting. This call keeps the first range
 * and collects the others' rows; null when it runs whole.
 */
function splitAcrossWorkers(
  db: Source,
  source: TableSchema,
  args: GenerateArgs,
  window: Window,
  ids: readonly string[] | undefined,
): { own: Shard; others: () => Table[] } | null {
  const par = parallelism();
  if (!par || args.raw === undefined || source.kind !== 'partitioned') return null;
  const lo = window.start <= NEG_INF_TS ? '' : partitionKey(window.start);
  const hi = window.end >= POS_INF_TS ? '\uffff' : partitionKey(window.end - 1n);
  const rowsIn = (table: string, into: Map<string, number>): void => {
    if (!db.schema.tables.has(table)) return;
    for (const key of db.partitionKeys(table)) {
      if (key < lo || key > hi) continue;
      for (const [id, [a, b]] of db.partition(table, key)?.idRanges ?? []) if (into.has(id)) into.set(id, into.get(id)! + b - a);
    }
  };
  // the instruments with orders in the window's days (idList's alone), weighed by their market data
  const wanted = ids ? new Set(ids) : undefined;
  const weights = new Map<string, number>();
  for (const key of db.partitionKeys(source.name)) {
    if (key < lo || key > hi) continue;
    for (const id of db.partition(source.name, key)?.idRanges.keys() ?? []) if (!wanted || wanted.has(id)) weights.set(id, 1);
  }
  const { trades, quotes } = rolesOf(db);
  for (const t of [quotes?.table, trades?.table]) if (t) rowsIn(t.name, weights);
  const sorted = [...weights].sort((x, y) => compareStrings(x[0], y[0]));
  const total = sorted.reduce((n, w) => n + w[1], 0);
  if (sorted.length < 2 || total < par.minRows) return null;
  const helpers = par.reserve(Math.min(MAX_PARTS, sorted.length) - 1);
  if (helpers === 0) return null;
  const shards = shardsOf(sorted, helpers + 1);
  par.dispatch(shards.slice(1).map((s) => ({ operation: args.op.name, args: args.raw, shard: s })));
  if (shards.length < 2) return null;
  return { own: shards[0]!, others: () => par.collect().map((r) => r.table) };
}

function emptyAnalytics(): Table {
  return Table.concat(orderAnalyticsColumns(), []);
}

function symbolValues(c: SymbolColumn): string[] {
  const out = new Array<string>(c.codes.length);
  for (let i = 0; i < out.length; i++) out[i] = c.dict.get(c.codes[i]!);
  return out;
}

/*
 * The loops of a generate live in small functions of their own: a large function whose loops run once
 * a call is compiled again on most calls (on-stack replacement after each deopt), which costs the
 * other core more than the loops themselves.
 */

/** Per instrument, the first and last time of its events. */
function spans(inst: SymbolColumn, time: BigInt64Array): Map<string, [bigint, bigint]> {
  // the extreme rows per code first (int64 words compared, no BigInt a row), then per string
  const w = int32Pairs(time);
  const lo = new Int32Array(inst.dict.length).fill(-1);
  const hi = new Int32Array(inst.dict.length).fill(-1);
  const before = (a: number, b: number): boolean => w[2 * a + 1]! < w[2 * b + 1]! || (w[2 * a + 1] === w[2 * b + 1] && w[2 * a]! >>> 0 < w[2 * b]! >>> 0);
  for (let i = 0; i < inst.codes.length; i++) {
    const k = inst.codes[i]!;
    if (lo[k]! < 0) {
      lo[k] = hi[k] = i;
      continue;
    }
    if (before(i, lo[k]!)) lo[k] = i;
    if (before(hi[k]!, i)) hi[k] = i;
  }
  const span = new Map<string, [bigint, bigint]>();
  for (let k = 0; k < lo.length; k++) {
    if (lo[k]! < 0) continue;
    const id = inst.dict.get(k);
    const [a, b] = [time[lo[k]!]!, time[hi[k]!]!];
    const s = span.get(id);
    if (!s) span.set(id, [a, b]);
    else {
      if (a < s[0]) s[0] = a;
      if (b > s[1]) s[1] = b;
    }
  }
  return span;
}

/** Per code of a dictionary, 1 when its string is in `set`. */
function codesIn(dict: Dict, set: ReadonlySet<string>): Uint8Array {
  const mark = new Uint8Array(dict.length);
  for (let k = 0; k < mark.length; k++) if (set.has(dict.get(k))) mark[k] = 1;
  return mark;
}

/** The rows whose code is marked, in order. */
function markedRows(codes: Int32Array, mark: Uint8Array): Int32Array {
  let n = 0;
  for (let i = 0; i < codes.length; i++) n += mark[codes[i]!]!;
  const rows = new Int32Array(n);
  for (let i = 0, o = 0; i < codes.length; i++) if (mark[codes[i]!] === 1) rows[o++] = i;
  return rows;
}

/** The distinct values of a symbol column, in first-use order. */
function distinctValues(c: SymbolColumn): string[] {
  const seen = new Uint8Array(c.dict.length);
  const out: string[] = [];
  for (let i = 0; i < c.codes.length; i++) {
    const k = c.codes[i]!;
    if (seen[k] === 1) continue;
    seen[k] = 1;
    out.push(c.dict.get(k));
  }
  return [...new Set(out)];
}

const ARENA_SUMS: SumsAlloc = { float64: (n) => queryArena.takeFloat64(n), int32: (n) => queryArena.take(n) };

/**
 * The market data the orders of one batch need: per instrument, its quotes from the one prevailing
 * at its first event (looking back over earlier partitions as far as needed) to 1800 s after its
 * last, and its trades over its orders' span. Read outside the column cache.
 */
function marketFor(db: Source, events: Table, instruments: readonly string[]): InMemoryMarketView {
  // the prefix sums and the series' values live in the query's arena: reused from call to call, they
  // are not fresh memory each time (fresh pages cost most when two workers fault them in at once)
  const view = new InMemoryMarketView(ARENA_SUMS);
  const time = events.col('eventTimestamp');
  const inst = events.col('instrumentID') as SymbolColumn;
  if (time.type !== 'timestamp') throw new Error('Order.eventTimestamp must be a timestamp column');
  const span = spans(inst, time.data);
  const horizon = BigInt(Math.max(...REVERSION_HORIZONS_S)) * NS_PER_S;
  // the trades and quotes, and their price, size, bid and ask, as the roles name them
  const { trades, quotes } = rolesOf(db);
  for (const id of instruments) {
    const [from, to] = span.get(id)!;
    if (quotes) {
      const q = readSeries(db, quotes.table, id, from, to + horizon, [quotes.bid, quotes.ask], true);
      view.setQuotes(id, { time: q.time, bid: q.values[0]!, ask: q.values[1]! });
    }
    if (trades) {
      const t = readSeries(db, trades.table, id, from, to, [trades.price, trades.size], false);
      view.setTrades(id, { time: t.time, price: t.values[0]!, volume: t.values[1]! });
    }
  }
  if (db.schema.tables.has('Instrument')) {
    const ref = db.reference('Instrument');
    if (ref) {
      const t = loadAll(db.table('Instrument'), ref);
      const col = (n: string): SymbolColumn | undefined => (t.get(n)?.type === 'symbol' ? (t.get(n) as SymbolColumn) : undefined);
      const id = col('instrumentID');
      const wanted = new Set(instruments);
      if (id) {
        for (let i = 0; i < t.length; i++) {
          const name = id.dict.get(id.codes[i]!);
          if (!wanted.has(name)) continue;
          const s = (n: string): string => {
            const c = col(n);
            return c ? c.dict.get(c.codes[i]!) : '';
          };
          view.setInstrument(name, { ISIN: s('ISIN'), MIC: s('MIC'), exchangeID: s('exchangeID') });
        }
      }
    }
  }
  return view;
}

/**
 * One instrument's rows of a table between two instants (partitions by date, its identifier run in
 * each), time and numeric columns as float64. `prevailing`: also the last row before `from`, looking
 * back over earlier partitions until one holds the instrument. The times are read first and the rows
 * kept found on them; only those rows' values are read, straight into the arrays returned.
 */
function readSeries(
  db: Source,
  t: TableSchema,
  id: string,
  from: bigint,
  to: bigint,
  columns: readonly string[],
  prevailing: boolean,
): { time: BigInt64Array; values: Float64Array[] } {
  const table = t.name;
  const clock = t.timeColumn!;
  const keys = db.partitionKeys(table);
  const first = formatDate(splitDay(from).days);
  const last = formatDate(splitDay(to).days);
  const runOf = (key: string): Run | undefined => {
    const p = db.partition(table, key);
    const range = p?.idRanges.get(id);
    if (!p || !range || range[1] <= range[0]) return undefined;
    const [a, b] = range;
    const c = p.readUncached ? p.readUncached(clock, a, b) : sliceColumn(p.column(clock), a, b);
    if (c.type !== 'timestamp') throw new Error(`${table}.${clock} is not a timestamp column`);
    return { p, a, b, time: c.data };
  };
  const runs: Run[] = [];
  for (const k of keys) {
    if (k < first || k > last) continue;
    const r = runOf(k);
    if (r) runs.push(r);
  }
  if (prevailing && !(runs[0] && runs[0].time[0]! <= from)) {
    // the quote prevailing at `from` may lie in an earlier partition (no day limit, SPEC 6.3)
    for (const k of keys.filter((x) => x < first).reverse()) {
      const r = runOf(k);
      if (r) {
        runs.unshift(r);
        break;
      }
    }
  }
  const time = concatTimes(runs);
  // times ascend (a partition's identifier run is in time order, partitions by date)
  let a = firstAtLeast(time, 0, from);
  if (prevailing && a > 0) a--;
  const b = to >= POS_INF_TS ? time.length : firstAtLeast(time, a, to + 1n);
  const values = columns.map((name) => {
    const out = queryArena.takeFloat64(b - a);
    let at = 0; // the run's first row in the concatenated times
    for (const r of runs) {
      const lo = Math.max(a, at);
      const hi = Math.min(b, at + r.b - r.a);
      if (hi > lo) readFloatsInto(r.p, name, r.a + lo - at, r.a + hi - at, out, lo - a);
      at += r.b - r.a;
    }
    return out;
  });
  return { time: time.subarray(a, b), values };
}

/** One partition's run of an instrument: its rows [a, b) and their times. */
interface Run {
  readonly p: RowSource;
  readonly a: number;
  readonly b: number;
  readonly time: BigInt64Array;
}

function concatTimes(runs: readonly Run[]): BigInt64Array {
  if (runs.length === 1) return runs[0]!.time;
  const time = new BigInt64Array(runs.reduce((s, r) => s + r.time.length, 0));
  let o = 0;
  for (const r of runs) {
    time.set(r.time, o);
    o += r.time.length;
  }
  return time;
}

const TWO32 = 4294967296;

/**
 * Rows [a, b) of a stored numeric column as float64 into out[at...]: a float column's bytes land
 * there as they are; a long or int column's are read into the same slots and widened in place (a long
 * word by word; ints from the last, each float's 8 bytes covering ints already widened). Null is NaN.
 */
function readFloatsInto(p: RowSource, name: string, a: number, b: number, out: Float64Array, at: number): void {
  const n = b - a;
  if (!p.readInto) {
    // a source that keeps its columns in memory: read from the column as it is
    const c = p.column(name);
    for (let i = 0; i < n; i++) out[at + i] = numberAt(c, a + i);
    return;
  }
  const slots = new Uint8Array(out.buffer, out.byteOffset + at * 8, n * 8);
  const type = p.readInto(name, a, b, slots);
  const f = out.subarray(at, at + n);
  const w = new Int32Array(out.buffer, out.byteOffset + at * 8, 2 * n);
  switch (type) {
    case 'float':
      return;
    case 'long':
      for (let i = 0; i < n; i++) {
        const lo = w[2 * i]!;
        const hi = w[2 * i + 1]!;
        f[i] = hi === -2147483648 && lo === 0 ? NaN : hi * TWO32 + (lo >>> 0);
      }
      return;
    case 'int':
      for (let i = n - 1; i >= 0; i--) {
        const x = w[i]!;
        f[i] = x === -2147483648 ? NaN : x;
      }
      return;
    default:
      throw new Error(`${name}: ${type} is not a numeric column`);
  }
}

/** The first row at or after `from` of rows [a, n) of ascending times whose time is at least `t` (binary search). */
function firstAtLeast(time: BigInt64Array, a: number, t: bigint): number {
  let hi = time.length;
  while (a < hi) {
    const mid = (a + hi) >>> 1;
    if (time[mid]! < t) a = mid + 1;
    else hi = mid;
  }
  return a;
}

/** instrumentID written through config's compositeTickerMap (SPEC 3.2). */
function mapComposite(rows: Table, map: Readonly<Record<string, string>>): Table {
  const c = rows.col('instrumentID') as SymbolColumn;
  const strings = Array.from({ length: c.dict.length }, (_, k) => {
    const s = c.dict.get(k);
    return map[s] ?? s;
  });
  const mapped: SymbolColumn = { type: 'symbol', codes: c.codes, dict: dictOf(strings) };
  return rows.with('instrumentID', mapped);
}

/**
 * The commit: the new rows appended to their strikeTime partitions; with `regen`, stored rows of the
 * same orderIDs removed first from every partition holding any (computed under the write lock).
 */
function changesFor(db: Source, t: TableSchema, rows: Table, regen: boolean): Changes {
  const fresh = new Map<string, number[]>();
  const strike = rows.col('strikeTime');
  if (strike.type !== 'timestamp') throw new Error('OrderAnalytics.strikeTime must be a timestamp column');
  for (let i = 0; i < rows.length; i++) {
    const key = formatDate(splitDay(strike.data[i]!).days);
    let g = fresh.get(key);
    if (!g) fresh.set(key, (g = []));
    g.push(i);
  }
  const ids = new Set(symbolValues(rows.col('orderID') as SymbolColumn));
  const partitions: Array<{ table: string; key: string; data: Table }> = [];
  const keys = new Set([...fresh.keys(), ...(regen ? db.partitionKeys(t.name) : [])]);
  for (const key of [...keys].sort()) {
    const p = db.partition(t.name, key);
    let stored = p ? loadForRewrite(t, p) : undefined;
    let removed = false;
    if (stored && regen) {
      const oid = stored.col('orderID') as SymbolColumn;
      const drop = new Uint8Array(oid.dict.length);
      for (let k = 0; k < drop.length; k++) drop[k] = ids.has(oid.dict.get(k)) ? 1 : 0;
      const keep: number[] = [];
      for (let i = 0; i < stored.length; i++) if (!drop[oid.codes[i]!]) keep.push(i);
      if (keep.length < stored.length) {
        removed = true;
        stored = stored.take(Int32Array.from(keep));
      }
    }
    const add = fresh.get(key);
    if (!add && !removed) continue;
    const parts = [...(stored && stored.length > 0 ? [stored] : []), ...(add ? [rows.take(Int32Array.from(add))] : [])];
    partitions.push({ table: t.name, key, data: Table.concat(t.columns, parts.length > 0 ? parts : [emptyAnalytics()]) });
  }
  return { partitions };
}
