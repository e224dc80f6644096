/**
 * Every argument of INTERFACE 4, declared once (SPEC 1): its type, default, allowed values, range,
 * the arguments it needs, its doc, widget and example. The operations' modules (engine/operations/)
 * list the ones they take; decoding (decode.ts) types every read by these declarations.
 */
import type { ArgSpec } from './types.js';

/** An argument's declaration, its name, type and allowed values kept as literal types (typed reads: decode.ts ArgValues). */
export const arg = <const A extends ArgSpec>(spec: A): A => spec;

/** A declaration without its default (an operation where not giving it means something else). */
export const withoutDefault = <A extends ArgSpec>({ default: _none, ...rest }: A): Omit<A, 'default'> => rest;

/** These declarations but those named (the others keep their literal types: decode.ts ArgsOf). */
export function omitArgs<const A extends readonly ArgSpec[], N extends A[number]['name']>(args: A, ...names: readonly N[]): Array<Exclude<A[number], { readonly name: N }>> {
  return args.filter((a): a is Exclude<A[number], { readonly name: N }> => !(names as readonly string[]).includes(a.name));
}

export const table = arg({
  name: 'table', type: 'symbol', required: true, widget: 'table', example: 'Trade',
  doc: 'Table to read.',
});
export const startTS = arg({
  name: 'startTS', type: 'timestamp', required: false, default: '-0Wp', widget: 'timestamp',
  example: '2024.03.06D14:30:00.000000000',
  doc: 'Inclusive start of the window, in inputTZ (always give it: it limits the partitions read).',
});
export const endTS = arg({
  name: 'endTS', type: 'timestamp', required: false, default: '0Wp', widget: 'timestamp',
  example: '2024.03.06D15:30:00.000000000',
  doc: 'Exclusive end of the window, in inputTZ (always give it: it limits the partitions read).',
});
export const columns = arg({
  name: 'columns', type: 'symbols', required: false, otherwise: 'every column', widget: 'columns', example: ['price', 'volume'],
  doc: 'Columns to return after the time column (default all columns).',
});
export const idList = arg({
  name: 'idList', narrows: true, type: 'symbols', required: false, otherwise: 'every identifier', widget: 'identifiers', example: ['AAPL', 'MSFT'],
  doc: 'Identifiers to select (default all).',
});
export const idCol = arg({
  name: 'idCol', narrows: true, type: 'symbol', required: false, otherwise: "the table's identifier column", widget: 'column', example: 'instrumentID',
  doc: "Column idList applies to (default the table's identifier column).",
});
export const filter = arg({
  name: 'filter', narrows: true, type: 'filter', required: false, widget: 'filter',
  example: [['>', 'price', '100'], ['in', 'conditions', ['@', 'F']]],
  doc: 'Row filters: [function, column, value] triples applied in order, or the string form "price<100;volume>=10".',
});
export const fill = arg({
  name: 'fill', type: 'symbol', required: false, widget: 'enum', example: 'forward',
  allowed: ['null', 'zero', 'forward', 'linear', 'linearStep'],
  doc: 'Replace nulls per identifier in time order: null, zero, forward, linear (on time) or linearStep (on position).',
});
export const temporality = arg({
  name: 'temporality', narrows: true, type: 'symbol', required: false, default: 'continuous', widget: 'enum', example: 'slice',
  allowed: ['continuous', 'slice'],
  doc: 'continuous: one range from startTS to endTS; slice: only the slice time of day on each date.',
});
export const slice = arg({
  name: 'slice', narrows: true, type: 'timespanPair', required: false, widget: 'slice', example: ['09:30', '10:00'],
  doc: 'Start and end time of day (inputTZ) kept on each date when temporality is slice; start > end crosses midnight.',
});
export const sortCols = arg({
  name: 'sortCols', type: 'sortCols', required: false, widget: 'sortCols', example: ['desc', 'volume'],
  doc: 'Direction (asc or desc) then column, repeated: ["desc","volume","asc","eventTimestamp"]. Stable.',
});
export const applyCanCor = arg({
  name: 'applyCanCor', narrows: true, type: 'boolean', required: false, default: false, widget: 'checkbox', example: '1b',
  doc: 'Apply <table>CanCor: drop cancelled executions and apply corrections.',
});
export const inputTZ = arg({
  name: 'inputTZ', type: 'symbol', required: false, default: 'UTC', widget: 'zone', example: 'America/New_York',
  doc: 'Time zone (IANA Region/City) of startTS, endTS and slice.',
});
export const outputTZ = arg({
  name: 'outputTZ', type: 'symbol', required: false, default: 'UTC', widget: 'zone', example: 'Europe/London',
  doc: 'Time zone (IANA Region/City) in which output timestamps are rendered.',
});
export const idMapping = arg({
  name: 'idMapping', narrows: true, type: 'boolean', required: false, default: false, widget: 'checkbox', example: '1b',
  doc: "Map idList through config.json's idMap (custom symbology to stored identifiers).",
});
export const filterRule = arg({
  name: 'filterRule', narrows: true, type: 'symbol', required: false, widget: 'enum', example: 'regularTrades',
  doc: 'Name of a filter rule of config.json (include/exclude values of a column, by default conditions).',
});
export const timeCol = arg({
  name: 'timeCol', narrows: true, type: 'symbol', required: false, otherwise: "the table's time column", widget: 'column', example: 'exchTime',
  doc: "Timestamp column the window applies to instead of the partition column (scans config.json's timeColBuffer either side).",
});
export const orderbook = arg({
  name: 'orderbook', narrows: true, type: 'symbol', required: false, widget: 'enum', example: 'plotOrderbookSnapshots',
  allowed: ['plotOrderbookSnapshots', 'instrumentNames', 'orderbookUpdatesRefData'],
  doc: 'Orderbook shaping: plotOrderbookSnapshots (top of book from snapshots), instrumentNames or orderbookUpdatesRefData (need ref Instrument).',
});
export const decPlaces = arg({
  name: 'decPlaces', type: 'integer', required: false, otherwise: 'no rounding', widget: 'number', example: '2',
  doc: 'Round float columns to this many decimal places (half away from zero).',
  range: { min: 0, max: 15, problem: 'is out of range', expected: 'an integer from 0 to 15' },
});
export const ref = arg({
  name: 'ref', type: 'symbols', required: false, widget: 'tables', example: ['Instrument'],
  doc: "Reference tables to left-join through the schema's foreign keys.",
});
export const refFilter = arg({
  name: 'refFilter', narrows: true, type: 'refFilter', required: false, widget: 'json',
  example: { Instrument: [['like', 'sector', 'Tech*']] },
  doc: 'Filters on reference columns: {"Instrument": [[op, column, value], ...]} or the q dictionary text.',
});
export const scope = arg({
  name: 'scope', narrows: true, type: 'dict', required: false, otherwise: 'the first mounted assembly', widget: 'scope', example: { assembly: 'demo' },
  doc: 'Routing: {"assembly": name} selects the mounted database to query (default the first).',
});

export const analytics = arg({
  name: 'analytics', type: 'symbols', required: false, widget: 'analytics', example: ['vwap', 'maxPrice'],
  doc: 'Named analytics: <agg><Column> (firstPrice, avgVolume, ...) and those configured in config.json.',
});
export const agg = arg({
  name: 'agg', type: 'agg', required: false, widget: 'json', example: { hi: ['max', 'price'] },
  doc: 'Aggregations as parse trees: {"name": tree}, [tree, ...] or [[name, op, column], ...].',
});
export const groupBy = arg({
  name: 'groupBy', type: 'symbols', required: false, otherwise: "the table's identifier column", widget: 'columns',
  example: ['instrumentID'], emptyMeansNone: true,
  doc: 'Columns to group by (default the identifier column; [] for one group).',
});
export const granularity = arg({
  name: 'granularity', type: 'integer', required: false, default: 1, widget: 'number', example: '5',
  doc: 'Bucket size in granularityUnit units.',
  range: { min: 1, problem: 'is not positive', expected: 'an integer >= 1' },
});
export const granularityUnit = arg({
  name: 'granularityUnit', type: 'symbol', required: false, widget: 'enum', example: 'minute',
  allowed: ['millisecond', 'second', 'minute', 'hour', 'day'],
  doc: 'Bucket unit; without it the whole window is one bucket.',
});
export const movingWindowSize = arg({
  name: 'movingWindowSize', type: 'integer', required: false, widget: 'number', example: '30',
  doc: 'Each bucket aggregates a lookback of this many units ending at the bucket end (labels are bucket ends).',
  range: { min: 1, problem: 'is not positive', expected: 'an integer >= 1' },
  requires: { args: ['granularityUnit'], why: '(the unit of the window and of the buckets)' },
});
export const applyHolidayCalendar = arg({
  name: 'applyHolidayCalendar', narrows: true, type: 'booleanOrSymbol', required: false, default: false, widget: 'holiday',
  example: '1b',
  doc: 'Drop weekend and holiday buckets before filling: 1b per exchange, an exchange symbol, or ` for all holidays.',
  requires: {
    args: ['fill', 'granularityUnit'],
    why: '(it removes holiday buckets before racking and filling)',
    fixes: { fill: { value: 'forward', label: 'fill forward' }, granularityUnit: { value: 'day', label: 'granularityUnit day' } },
  },
});

export const summaryFunctions = arg({
  name: 'summaryFunctions', type: 'symbols', required: false, otherwise: "config.json's default summary functions", widget: 'summaryFunctions',
  example: ['orderCount', 'fillRate'],
  doc: 'Summary functions of config.json to compute (default all default ones).',
});

export const dt = arg({
  name: 'dt', type: 'date', required: false, widget: 'date', example: '2024.03.06',
  doc: 'Date (UTC) of the orders to analyse; give either dt or startTS and endTS.',
  excludes: { args: ['startTS', 'endTS'], why: 'give either dt or startTS and endTS, not both' },
});
export const regenExistingIDs = arg({
  name: 'regenExistingIDs', type: 'boolean', required: false, default: false, widget: 'checkbox', example: '1b',
  doc: 'Replace stored OrderAnalytics rows of the same orderIDs instead of appending.',
});
export const instrumentBatchSz = arg({
  name: 'instrumentBatchSz', type: 'integer', required: false, otherwise: 'every instrument at once', widget: 'number', example: '10',
  doc: 'Process this many instruments at a time (lower peak memory).',
  range: { min: 1, problem: 'is not positive', expected: 'an integer >= 1 (instruments per batch), or omit it for all at once' },
});


/** Every argument declaration (each operation's are these, some with their own doc or example). */
export const ALL_ARGS = [table, startTS, endTS, columns, idList, idCol, filter, fill, temporality, slice, sortCols, applyCanCor, inputTZ, outputTZ, idMapping, filterRule, timeCol, orderbook, decPlaces, ref, refFilter, scope, analytics, agg, groupBy, granularity, granularityUnit, movingWindowSize, applyHolidayCalendar, summaryFunctions, dt, regenExistingIDs, instrumentBatchSz] as const;

/** The union of every argument declaration: decode.ts types each argument's decoded value from it. */
export type AnyArgDecl = (typeof ALL_ARGS)[number];

/** An argument's own declaration (as first declared, before an operation's changes to its doc). */
export function argumentDeclaration(name: string): ArgSpec | undefined {
  return ALL_ARGS.find((a) => a.name === name);
}
