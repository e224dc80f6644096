/**
 * getOrderAnalyticSummary (INTERFACE 4.3, SPEC 6.2, 6.3): the configured summary functions, parse
 * trees over OrderAnalytics rows, evaluated per group by getStats's grouping and tree evaluator
 * (window on strikeTime, filter, slices, agg after the summary columns, sortCols). Rows come ordered
 * by their group values. `fill` racks by tradeDate when groupBy holds it; otherwise only `zero` (and
 * `null`) apply.
 */
import { queryArena } from '../core/arena.js';
import { type Column, concatColumns, gather, type SymbolColumn } from '../core/column.js';
import { dictOf } from '../core/dict.js';
import { argError, TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import { NEG_INF_TS, NS_PER_DAY, POS_INF_TS, splitDay, weekday } from '../core/time.js';
import { runStats, type StatsArg } from '../ops/get-stats.js';
import { valueKey } from '../ops/stats/stream.js';
import type { QueryResult } from '../core/result.js';
import { sortTable } from '../ops/sort.js';
import { evaluate, levelOf } from '../ops/stats/evaluate.js';
import { loadCalendar } from '../ops/stats/holidays.js';
import { checkTree } from '../ops/stats/tree.js';
import { vecToColumn } from '../ops/stats/vectors.js';
import { type FillMode, fillTable } from '../ops/ticks/fill.js';
import type * as ARG from '../registry/args.js';
import type { ArgsFor } from '../registry/decode.js';
import type { Config } from '../storage/config.js';
import type { Source } from '../storage/source.js';
import type { Schema, TableSchema } from '../storage/schema.js';

const DATE_COLUMN = 'tradeDate';

/** The summary functions a call asks for: the configured defaults when omitted, null or [""]. */
export function summaryNames(args: ArgsFor<typeof ARG.summaryFunctions>, config: Config): string[] {
  const asked = args.get('summaryFunctions');
  if (!asked || asked.length === 0 || asked.every((n) => n === '')) return [...config.defaultSummaryFunctions];
  for (const name of asked) {
    if (!(name in config.summaryFunctions)) {
      throw argError('notAllowed', 'summaryFunctions', name, 'is not a configured summary function', `one of ${Object.keys(config.summaryFunctions).join(', ')} (config.json summaryFunctions)`);
    }
  }
  return [...asked];
}

/**
 * Checks every configured summary function against the schema's OrderAnalytics columns: a broken
 * definition is an error when the database is opened, naming the function.
 */
export function checkSummaryFunctions(schema: Schema, config: Config, where: string): void {
  const t = schema.tables.get('OrderAnalytics');
  if (!t) return;
  const columns = new Set(t.columns.filter((c) => !c.type.endsWith('[]')).map((c) => c.name));
  for (const [name, def] of Object.entries(config.summaryFunctions)) {
    try {
      const node = checkTree(def.tree, columns, `summaryFunctions.${name}`, def.tree);
      if (levelOf(node) === 'row') throw new TickscopeError('badConfig', `summaryFunctions.${name}: ${JSON.stringify(def.tree)} does not reduce to one value per group; expected a tree ending in an aggregate such as ["avg", ...]`);
    } catch (e) {
      if (!(e instanceof TickscopeError)) throw e;
      throw new TickscopeError('badConfig', `${where}: ${e.message.startsWith('summaryFunctions.') ? e.message : `summaryFunctions.${name}: ${e.message}`}`);
    }
  }
}

/** The arguments the summary takes and reads (its window, groups and filter as getStats reads them). */
type SummaryArgs = ArgsFor<
  | typeof ARG.summaryFunctions | typeof ARG.fill | typeof ARG.agg | typeof ARG.table | typeof ARG.startTS | typeof ARG.endTS | typeof ARG.filter
  | typeof ARG.temporality | typeof ARG.slice | typeof ARG.sortCols | typeof ARG.groupBy | typeof ARG.inputTZ | typeof ARG.outputTZ
>;

/** Runs getOrderAnalyticSummary against one database. */
export function getOrderAnalyticSummary(db: Source, args: SummaryArgs): QueryResult {
  const names = summaryNames(args, db.config);
  const fill = args.get('fill') as FillMode | undefined;
  // every output's tree, for the values of a racked date without orders
  const trees = new Map<string, unknown>([
    ...names.map((n) => [n, db.config.summaryFunctions[n]!.tree] as const),
    ...(args.get('agg') ?? []).map((a) => [a.name, a.tree] as const),
  ]);
  return queryArena.scoped(() =>
    // getStats's machinery reads arguments the summary does not take (buckets, idList...): not given
    runStats(db, args.widen<StatsArg>(), {
      leading: (t) => {
        const columns = new Set(t.columns.map((c) => c.name));
        return names.map((name) => {
          const tree = db.config.summaryFunctions[name]!.tree;
          const missing = leafNames(tree).find((c) => !columns.has(c));
          if (missing !== undefined) {
            throw argError('unknownColumn', 'table', t.name, `has no column ${missing}, which the summary function ${name} reads`, 'a table of order analytics, such as OrderAnalytics');
          }
          return { name, tree, arg: `summaryFunctions.${name}` };
        });
      },
      fill: undefined,
      missing: 'getOrderAnalyticSummary: no summary function or agg to compute (config.json defaultSummaryFunctions is empty); name summaryFunctions or give agg',
      finish: (result, ctx) => {
        const byGroups = sortTable(result, ctx.groupCols.map((column) => ({ dir: 'asc' as const, column })), 'groupBy');
        if (!fill || fill === 'null') return byGroups;
        if (ctx.groupCols.includes(DATE_COLUMN)) return rackByDate(db, ctx.t, byGroups, ctx.groupCols, fill, ctx.window, trees);
        if (fill === 'zero') return fillTable(byGroups, 'zero', null, null, new Set(ctx.groupCols));
        throw new TickscopeError('requirement', `fill: ${fill} needs tradeDate in groupBy (the summary has no time buckets: it fills along trade dates); without it only zero and null apply`);
      },
    }),
  );
}

/** The value each output takes for a group with no rows (count and sum 0, other aggregates null). */
function emptyValues(t: TableSchema, result: Table, outputs: readonly string[], trees: ReadonlyMap<string, unknown>): Table {
  const emptyTable = new Table(
    t.columns.map((c) => c.name),
    t.columns.map((c) => concatColumns(c.type, [])),
    0,
  );
  const frame = { table: emptyTable, n: 0, cell: new Int32Array(0), cells: 1, out: 1 };
  const columns = new Set(t.columns.map((c) => c.name));
  const cols: Column[] = outputs.map((name) => {
    const type = result.col(name).type;
    const tree = trees.get(name);
    if (tree === undefined) return nullOf(type);
    const v = vecToColumn(evaluate(checkTree(tree, columns, name), [frame], name, tree), 1);
    // the same evaluator typed the result column: a differing type means a null of that type
    return v.type === type ? v : nullOf(type);
  });
  return new Table(outputs, cols, 1);
}

/** The column names a tree reads (its string leaves that are not literals or the row index). */
function leafNames(tree: unknown, out: string[] = []): string[] {
  if (typeof tree === 'string') {
    if (tree !== 'i' && tree !== '0n' && tree !== '0N' && (tree.trim() === '' || Number.isNaN(Number(tree)))) out.push(tree);
  } else if (Array.isArray(tree)) {
    for (const a of tree.slice(1)) leafNames(a, out);
  }
  return out;
}

function nullOf(type: Column['type']): Column {
  switch (type) {
    case 'float':
      return { type, data: new Float64Array([NaN]) };
    case 'long':
    case 'timestamp':
    case 'timespan':
      return { type, data: new BigInt64Array([-9223372036854775808n]) };
    case 'int':
    case 'date':
      return { type, data: new Int32Array([-2147483648]) };
    case 'boolean':
      return { type, data: new Uint8Array(1) };
    case 'symbol':
      return { type, codes: new Int32Array(1), dict: dictOf(['']) };
    default:
      return concatColumns(type, []);
  }
}

/**
 * SPEC 6.2 fill with tradeDate among the groups: every trading date of the window times every
 * combination of the other group columns seen, then filled per combination in date order. Trading
 * dates: the window's UTC dates without weekend days and the holidays of the combination's exchange
 * (its exchangeID group value, else its instrument's Instrument.exchangeID); a date that holds orders
 * always stays (docs/decisions.md: a summary never drops rows it has).
 */
function rackByDate(
  db: Source,
  t: TableSchema,
  result: Table,
  groupCols: readonly string[],
  fill: FillMode,
  window: { start: bigint; end: bigint },
  trees: ReadonlyMap<string, unknown>,
): Table {
  const dateCol = result.col(DATE_COLUMN);
  if (dateCol.type !== 'date') throw new TickscopeError('requirement', `fill: tradeDate of ${t.name} is not a date column`);
  const days = dateCol.data;
  const others = groupCols.filter((g) => g !== DATE_COLUMN);
  const outputs = result.names.filter((n) => !groupCols.includes(n));

  // the window's dates (a side left open takes the data's first or last date)
  let first = Infinity;
  let last = -Infinity;
  for (const d of days) {
    if (d === -2147483648) continue;
    first = Math.min(first, d);
    last = Math.max(last, d);
  }
  if (window.start > NEG_INF_TS) first = splitDay(window.start).days;
  if (window.end < POS_INF_TS) last = splitDay(window.end - 1n).days;

  // combinations of the other group columns, in the (group-sorted) order they appear
  const keyOf = (row: number): string => others.map((g) => valueKey(result.col(g), row)).join('\u0000');
  const combos = new Map<string, { first: number; byDay: Map<number, number> }>();
  for (let r = 0; r < result.length; r++) {
    const k = keyOf(r);
    let c = combos.get(k);
    if (!c) combos.set(k, (c = { first: r, byDay: new Map() }));
    c.byDay.set(days[r]!, r);
  }

  const weekend = new Set(db.config.weekendDays);
  const calendar = db.schema.tables.has('ExchangeHolidayCal') ? loadCalendar(db) : new Map<string, Set<number>>();
  const exchangeOf = exchangeLookup(db, result, others);

  const groupIdx: number[] = [];
  const valueIdx: number[] = [];
  const dateOut: number[] = [];
  const comboOut: number[] = [];
  const empty = result.length; // the row of empty values, appended below
  let comboNo = 0;
  for (const c of combos.values()) {
    const holidays = calendar.get(exchangeOf(c.first)) ?? new Set<number>();
    const dates = new Set<number>(c.byDay.keys());
    if (Number.isFinite(first)) {
      for (let d = first; d <= last; d++) if (!weekend.has(weekday(d)) && !holidays.has(d)) dates.add(d);
    }
    for (const d of [...dates].sort((a, b) => a - b)) {
      groupIdx.push(c.first);
      valueIdx.push(c.byDay.get(d) ?? empty);
      dateOut.push(d);
      comboOut.push(comboNo);
    }
    comboNo++;
  }

  const emptyRow = emptyValues(t, result, outputs, trees);
  const gi = Int32Array.from(groupIdx);
  const vi = Int32Array.from(valueIdx);
  const names: string[] = [];
  const cols: Column[] = [];
  for (const g of groupCols) {
    names.push(g);
    cols.push(g === DATE_COLUMN ? { type: 'date', data: Int32Array.from(dateOut) } : gather(result.col(g), gi));
  }
  for (const name of outputs) {
    names.push(name);
    cols.push(gather(concatColumns(result.col(name).type, [result.col(name), emptyRow.col(name)]), vi));
  }
  const combo: SymbolColumn = { type: 'symbol', codes: Int32Array.from(comboOut), dict: dictOf(Array.from({ length: comboNo }, (_, i) => String(i))) };
  const time: Column = { type: 'timestamp', data: BigInt64Array.from(dateOut, (d) => BigInt(d) * NS_PER_DAY) };
  const racked = new Table([...names, '\u0000combo', '\u0000time'], [...cols, combo, time], dateOut.length);
  const filled = fillTable(racked, fill, '\u0000combo', '\u0000time', new Set(groupCols));
  return sortTable(filled.select(names), groupCols.map((column) => ({ dir: 'asc' as const, column })), 'groupBy');
}

/** The exchange of a combination's first row: its exchangeID group value, else its instrument's. */
function exchangeLookup(db: Source, result: Table, others: readonly string[]): (row: number) => string {
  if (others.includes('exchangeID')) return (r) => valueKey(result.col('exchangeID'), r);
  if (!others.includes('instrumentID')) return () => '';
  const ref = db.schema.tables.has('Instrument') ? db.reference('Instrument') : undefined;
  const map = new Map<string, string>();
  if (ref) {
    const id = ref.column('instrumentID');
    const ex = ref.column('exchangeID');
    if (id.type === 'symbol' && ex.type === 'symbol') for (let i = 0; i < ref.rows; i++) map.set(id.dict.get(id.codes[i]!), ex.dict.get(ex.codes[i]!));
  }
  return (r) => map.get(valueKey(result.col('instrumentID'), r)) ?? '';
}
