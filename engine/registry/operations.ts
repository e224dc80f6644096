/**
 * Every operation of INTERFACE 4 with every argument, declared once (SPEC 1). From this come argument
 * decoding and validation, the app's forms, REST routes, the q IPC dispatcher and docs/arguments.md.
 */
import { TickscopeError } from '../core/errors.js';
import type { ArgSpec, OperationSpec } from './types.js';

/** An argument's declaration, its name, type and allowed values kept as literal types (typed reads: decode.ts ArgValues). */
const arg = <const A extends ArgSpec>(spec: A): A => spec;

/** A declaration without its default (an operation where not giving it means something else). */
const withoutDefault = <A extends ArgSpec>({ default: _none, ...rest }: A): Omit<A, 'default'> => rest;

const table = arg({
  name: 'table', type: 'symbol', required: true, widget: 'table', example: 'Trade',
  doc: 'Table to read.',
});
const startTS = arg({
  name: 'startTS', type: 'timestamp', required: false, default: '-0Wp', widget: 'timestamp',
  example: '2024.03.06D14:30:00.000000000',
  doc: 'Inclusive start of the window, in inputTZ (always give it: it limits the partitions read).',
});
const endTS = arg({
  name: 'endTS', type: 'timestamp', required: false, default: '0Wp', widget: 'timestamp',
  example: '2024.03.06D15:30:00.000000000',
  doc: 'Exclusive end of the window, in inputTZ (always give it: it limits the partitions read).',
});
const columns = arg({
  name: 'columns', type: 'symbols', required: false, otherwise: 'every column', widget: 'columns', example: ['price', 'volume'],
  doc: 'Columns to return after the time column (default all columns).',
});
const idList = arg({
  name: 'idList', type: 'symbols', required: false, otherwise: 'every identifier', widget: 'identifiers', example: ['AAPL', 'MSFT'],
  doc: 'Identifiers to select (default all).',
});
const idCol = arg({
  name: 'idCol', type: 'symbol', required: false, otherwise: "the table's identifier column", widget: 'column', example: 'instrumentID',
  doc: "Column idList applies to (default the table's identifier column).",
});
const filter = arg({
  name: 'filter', type: 'filter', required: false, widget: 'filter',
  example: [['>', 'price', '100'], ['in', 'conditions', ['@', 'F']]],
  doc: 'Row filters: [function, column, value] triples applied in order, or the string form "price<100;volume>=10".',
});
const fill = arg({
  name: 'fill', type: 'symbol', required: false, widget: 'enum', example: 'forward',
  allowed: ['null', 'zero', 'forward', 'linear', 'linearStep'],
  doc: 'Replace nulls per identifier in time order: null, zero, forward, linear (on time) or linearStep (on position).',
});
const temporality = arg({
  name: 'temporality', type: 'symbol', required: false, default: 'continuous', widget: 'enum', example: 'slice',
  allowed: ['continuous', 'slice'],
  doc: 'continuous: one range from startTS to endTS; slice: only the slice time of day on each date.',
});
const slice = arg({
  name: 'slice', type: 'timespanPair', required: false, widget: 'slice', example: ['09:30', '10:00'],
  doc: 'Start and end time of day (inputTZ) kept on each date when temporality is slice; start > end crosses midnight.',
});
const sortCols = arg({
  name: 'sortCols', type: 'sortCols', required: false, widget: 'sortCols', example: ['desc', 'volume'],
  doc: 'Direction (asc or desc) then column, repeated: ["desc","volume","asc","eventTimestamp"]. Stable.',
});
const applyCanCor = arg({
  name: 'applyCanCor', type: 'boolean', required: false, default: false, widget: 'checkbox', example: '1b',
  doc: 'Apply <table>CanCor: drop cancelled executions and apply corrections.',
});
const inputTZ = arg({
  name: 'inputTZ', type: 'symbol', required: false, default: 'UTC', widget: 'zone', example: 'America/New_York',
  doc: 'Time zone (IANA Region/City) of startTS, endTS and slice.',
});
const outputTZ = arg({
  name: 'outputTZ', type: 'symbol', required: false, default: 'UTC', widget: 'zone', example: 'Europe/London',
  doc: 'Time zone (IANA Region/City) in which output timestamps are rendered.',
});
const idMapping = arg({
  name: 'idMapping', type: 'boolean', required: false, default: false, widget: 'checkbox', example: '1b',
  doc: "Map idList through config.json's idMap (custom symbology to stored identifiers).",
});
const filterRule = arg({
  name: 'filterRule', type: 'symbol', required: false, widget: 'enum', example: 'regularTrades',
  doc: 'Name of a filter rule of config.json (include/exclude values of a column, by default conditions).',
});
const timeCol = arg({
  name: 'timeCol', type: 'symbol', required: false, otherwise: "the table's time column", widget: 'column', example: 'exchTime',
  doc: "Timestamp column the window applies to instead of the partition column (scans config.json's timeColBuffer either side).",
});
const orderbook = arg({
  name: 'orderbook', type: 'symbol', required: false, widget: 'enum', example: 'plotOrderbookSnapshots',
  allowed: ['plotOrderbookSnapshots', 'instrumentNames', 'orderbookUpdatesRefData'],
  doc: 'Orderbook shaping: plotOrderbookSnapshots (top of book from snapshots), instrumentNames or orderbookUpdatesRefData (need ref Instrument).',
});
const decPlaces = arg({
  name: 'decPlaces', type: 'integer', required: false, otherwise: 'no rounding', widget: 'number', example: '2',
  doc: 'Round float columns to this many decimal places (half away from zero).',
  range: { min: 0, max: 15, problem: 'is out of range', expected: 'an integer from 0 to 15' },
});
const ref = arg({
  name: 'ref', type: 'symbols', required: false, widget: 'tables', example: ['Instrument'],
  doc: "Reference tables to left-join through the schema's foreign keys.",
});
const refFilter = arg({
  name: 'refFilter', type: 'refFilter', required: false, widget: 'json',
  example: { Instrument: [['like', 'sector', 'Tech*']] },
  doc: 'Filters on reference columns: {"Instrument": [[op, column, value], ...]} or the q dictionary text.',
});
const scope = arg({
  name: 'scope', type: 'dict', required: false, otherwise: 'the first mounted assembly', widget: 'scope', example: { assembly: 'demo' },
  doc: 'Routing: {"assembly": name} selects the mounted database to query (default the first).',
});

const analytics = arg({
  name: 'analytics', type: 'symbols', required: false, widget: 'analytics', example: ['vwap', 'maxPrice'],
  doc: 'Named analytics: <agg><Column> (firstPrice, avgVolume, ...) and those configured in config.json.',
});
const agg = arg({
  name: 'agg', type: 'agg', required: false, widget: 'json', example: { hi: ['max', 'price'] },
  doc: 'Aggregations as parse trees: {"name": tree}, [tree, ...] or [[name, op, column], ...].',
});
const groupBy = arg({
  name: 'groupBy', type: 'symbols', required: false, otherwise: "the table's identifier column", widget: 'columns',
  example: ['instrumentID'], emptyMeansNone: true,
  doc: 'Columns to group by (default the identifier column; [] for one group).',
});
const granularity = arg({
  name: 'granularity', type: 'integer', required: false, default: 1, widget: 'number', example: '5',
  doc: 'Bucket size in granularityUnit units.',
  range: { min: 1, problem: 'is not positive', expected: 'an integer >= 1' },
});
const granularityUnit = arg({
  name: 'granularityUnit', type: 'symbol', required: false, widget: 'enum', example: 'minute',
  allowed: ['millisecond', 'second', 'minute', 'hour', 'day'],
  doc: 'Bucket unit; without it the whole window is one bucket.',
});
const movingWindowSize = arg({
  name: 'movingWindowSize', type: 'integer', required: false, widget: 'number', example: '30',
  doc: 'Each bucket aggregates a lookback of this many units ending at the bucket end (labels are bucket ends).',
  range: { min: 1, problem: 'is not positive', expected: 'an integer >= 1' },
  requires: { args: ['granularityUnit'], why: '(the unit of the window and of the buckets)' },
});
const applyHolidayCalendar = arg({
  name: 'applyHolidayCalendar', type: 'booleanOrSymbol', required: false, default: false, widget: 'holiday',
  example: '1b',
  doc: 'Drop weekend and holiday buckets before filling: 1b per exchange, an exchange symbol, or ` for all holidays.',
  requires: { args: ['fill', 'granularityUnit'], why: '(it removes holiday buckets before racking and filling)' },
});

const summaryFunctions = arg({
  name: 'summaryFunctions', type: 'symbols', required: false, otherwise: "config.json's default summary functions", widget: 'summaryFunctions',
  example: ['orderCount', 'fillRate'],
  doc: 'Summary functions of config.json to compute (default all default ones).',
});

const dt = arg({
  name: 'dt', type: 'date', required: false, widget: 'date', example: '2024.03.06',
  doc: 'Date (UTC) of the orders to analyse; give either dt or startTS and endTS.',
});
const regenExistingIDs = arg({
  name: 'regenExistingIDs', type: 'boolean', required: false, default: false, widget: 'checkbox', example: '1b',
  doc: 'Replace stored OrderAnalytics rows of the same orderIDs instead of appending.',
});
const instrumentBatchSz = arg({
  name: 'instrumentBatchSz', type: 'integer', required: false, otherwise: 'every instrument at once', widget: 'number', example: '10',
  doc: 'Process this many instruments at a time (lower peak memory).',
  range: { min: 1, problem: 'is not positive', expected: 'an integer >= 1 (instruments per batch), or omit it for all at once' },
});

const GETTICKS_ARGS: readonly ArgSpec[] = [
  table, startTS, endTS, columns, idList, idCol, filter, fill, temporality, slice, sortCols, applyCanCor, inputTZ,
  outputTZ, idMapping, filterRule, timeCol, orderbook, decPlaces, ref, refFilter, scope,
];

const GETSTATS_ARGS: readonly ArgSpec[] = [
  ...GETTICKS_ARGS.filter((a) => a.name !== 'applyCanCor' && a.name !== 'columns').map((a) =>
    a.name === 'fill'
      ? {
          ...a,
          doc: 'Rack the result (every bucket of every group, idList identifiers included) and fill its nulls per group in bucket order: null, zero, forward, linear (on bucket time) or linearStep (on position).',
        }
      : a,
  ),
  analytics, agg, groupBy, granularity, granularityUnit, movingWindowSize, applyHolidayCalendar,
];

const SUMMARY_ARGS: readonly ArgSpec[] = [
  { ...table, example: 'OrderAnalytics', doc: 'The order analytics table to summarise (OrderAnalytics).' },
  { ...startTS, doc: 'Inclusive start of the window on strikeTime.' },
  { ...endTS, doc: 'Exclusive end of the window on strikeTime.' },
  { ...filter, example: [['=', 'side', 'Buy']] },
  {
    ...fill,
    doc: 'With tradeDate in groupBy: rack every trading date of the window for every combination of the other groups, then fill (null, zero, forward, linear, linearStep); otherwise zero replaces null results with 0.',
  },
  temporality, slice, sortCols,
  { ...agg, doc: 'More aggregations over OrderAnalytics columns, after the summary columns: {"name": tree}, [tree, ...] or [[name, op, column], ...].' },
  { ...groupBy, example: ['algoStrategy'], doc: 'Columns to group by (default instrumentID; several allowed; [] for one row).' },
  summaryFunctions, scope, inputTZ, outputTZ,
];

const GENERATE_ARGS: readonly ArgSpec[] = [
  { ...table, example: 'Order', doc: 'The table of orders and their events to analyse (Order).' },
  dt,
  { ...withoutDefault(startTS), doc: 'Start (UTC) of the window of New order events (instead of dt).' },
  { ...withoutDefault(endTS), doc: 'Exclusive end (UTC) of the window of New order events (instead of dt).' },
  { ...idList, doc: 'Instruments whose orders to analyse (default all).' },
  { ...filter, example: [['=', 'side', 'Buy']], doc: 'Conditions on the orders\u2019 New events (Order columns), as in getTicks.' },
  scope, regenExistingIDs, instrumentBatchSz,
];

/** Every argument declaration (each operation's are these, some with their own doc or example). */
const ALL_ARGS = [table, startTS, endTS, columns, idList, idCol, filter, fill, temporality, slice, sortCols, applyCanCor, inputTZ, outputTZ, idMapping, filterRule, timeCol, orderbook, decPlaces, ref, refFilter, scope, analytics, agg, groupBy, granularity, granularityUnit, movingWindowSize, applyHolidayCalendar, summaryFunctions, dt, regenExistingIDs, instrumentBatchSz] as const;

/** The union of every argument declaration: decode.ts types each argument's decoded value from it. */
export type AnyArgDecl = (typeof ALL_ARGS)[number];

/** An argument's own declaration (as first declared, before an operation's changes to its doc). */
export function argumentDeclaration(name: string): ArgSpec | undefined {
  return ALL_ARGS.find((a) => a.name === name);
}

/** The four operations. */
export const OPERATIONS: readonly OperationSpec[] = [
  {
    name: 'getTicks',
    ipcNames: ['.fsi.getTicks', 'getTicks'],
    restPaths: ['/servicegateway/fsi/getTicks'],
    doc: 'Raw ticks of a table for a time window, filtered, sorted and shaped.',
    args: GETTICKS_ARGS,
    scope: 'fsi.read',
    writes: false,
    qReply: 'table',
    view: 'ticks',
    form: { table: 'Trade', window: 'startEnd' },
    split: 'time',
    remoteResult: { timeColumn: 'always', groupColumns: null },
    buckets: null,
  },
  {
    name: 'getStats',
    ipcNames: ['.fsi.getStats', 'getStats'],
    restPaths: ['/servicegateway/fsi/getStats'],
    doc: 'Aggregates of a table over a window: analytics, parse trees, groups, time buckets, moving windows.',
    args: GETSTATS_ARGS,
    scope: 'fsi.read',
    writes: false,
    qReply: 'table',
    view: 'stats',
    form: { table: 'Trade', window: 'startEnd' },
    split: 'identifiers',
    remoteResult: { timeColumn: { whenGiven: 'granularityUnit' }, groupColumns: { arg: 'groupBy' } },
    buckets: { unit: 'granularityUnit', size: 'granularity' },
  },
  {
    name: 'getOrderAnalyticSummary',
    ipcNames: ['getOrderAnalyticSummary', '.fsi.getOrderAnalyticSummary', '.fsi.eqea.getOrderAnalyticSummary'],
    restPaths: ['/servicegateway/fsi/getOrderAnalyticSummary', '/servicegateway/fsi/eqea/getOrderAnalyticSummary'],
    doc: 'Summary functions over OrderAnalytics rows, per group.',
    args: SUMMARY_ARGS,
    scope: 'fsi.read',
    writes: false,
    qReply: 'table',
    view: 'summary',
    form: { table: 'OrderAnalytics', window: 'startEnd' },
    split: null,
    remoteResult: { timeColumn: 'never', groupColumns: null },
    buckets: null,
  },
  {
    name: 'generateOrderAnalytics',
    ipcNames: ['.fsi.eqea.generateOrderAnalytics', 'generateOrderAnalytics'],
    restPaths: ['/servicegateway/fsi/eqea/generateOrderAnalytics'],
    doc: 'Builds OrderAnalytics rows (transaction cost analysis) from the Order table and stores them.',
    args: GENERATE_ARGS,
    scope: 'fsi.generate',
    writes: true,
    // SPEC 7: the q gateway answers generateOrderAnalytics with its table in a one-item list
    qReply: 'tableInList',
    view: 'generate',
    // one day of orders, replacing what an earlier run stored for them (no duplicates by default)
    form: { table: 'Order', window: 'dt', values: { regenExistingIDs: true } },
    // it splits by instrument itself (orders/generate.ts), not through the split planner
    split: null,
    remoteResult: { timeColumn: 'never', groupColumns: null },
    buckets: null,
  },
];

const byIpcName = new Map<string, OperationSpec>();
const byRestPath = new Map<string, OperationSpec>();
const declared = new Map<string, AnyArgDecl>(ALL_ARGS.map((a) => [a.name, a]));

/**
 * Registers an operation, refusing a declaration that contradicts itself or another: a name or REST
 * path taken, an argument twice, an argument not among the declarations (or of another type there:
 * reads are typed by those), a relation to an argument the operation lacks, a range on a non-integer.
 */
function register(op: OperationSpec): void {
  const bad = (what: string): never => {
    throw new Error(`operation ${op.name}: ${what}`);
  };
  for (const n of op.ipcNames) if (byIpcName.has(n)) bad(`the name ${n} is taken by ${byIpcName.get(n)!.name}`);
  for (const p of op.restPaths) if (byRestPath.has(p)) bad(`the REST path ${p} is taken by ${byRestPath.get(p)!.name}`);
  const names = new Set<string>();
  for (const a of op.args) {
    if (names.has(a.name)) bad(`argument ${a.name} is declared twice`);
    names.add(a.name);
    const d = declared.get(a.name);
    if (!d || d.type !== a.type) bad(`argument ${a.name} (${a.type}) is not one of the declared arguments${d ? ` (declared as ${d.type})` : ''}`);
    if (a.range && a.type !== 'integer') bad(`argument ${a.name} has a range but is not an integer`);
  }
  for (const a of op.args) for (const n of a.requires?.args ?? []) if (!names.has(n)) bad(`argument ${a.name} requires ${n}, which it does not declare`);
  const timed = op.remoteResult.timeColumn;
  for (const key of [op.buckets?.unit, op.buckets?.size, op.remoteResult.groupColumns?.arg, typeof timed === 'object' ? timed.whenGiven : undefined]) if (key !== undefined && !names.has(key)) bad(`it names ${key}, which it does not declare`);
  for (const n of op.ipcNames) byIpcName.set(n, op);
  for (const p of op.restPaths) byRestPath.set(p, op);
}
for (const op of OPERATIONS) register(op);

/** The operation a name refers to (any accepted IPC name, or the plain name); unknown is an error. */
export function operationByName(name: string): OperationSpec {
  const op = byIpcName.get(name);
  if (!op) {
    throw new TickscopeError(
      'unknownOperation',
      `operation: ${JSON.stringify(name)} is not an operation; expected one of ${[...byIpcName.keys()].join(', ')}`,
    );
  }
  return op;
}

/** The operation served at a REST path, or undefined. */
export function operationByRestPath(path: string): OperationSpec | undefined {
  return byRestPath.get(path);
}
