/**
 * .fsi.getStats (INTERFACE 4.2, SPEC 5): aggregates of a table over a window. Rows are selected as
 * getTicks selects them, grouped by the groupBy columns and time buckets into cells, and each
 * analytic and agg tree is evaluated per cell. With fill and buckets the result is racked (every
 * bucket of every group), holiday buckets removed first when asked, then filled per group.
 */
import { queryArena } from '../core/arena.js';
import { type Column, gather, type SymbolColumn } from '../core/column.js';
import { currentShard } from '../core/query-hooks.js';
import { argError, TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import { NEG_INF_TS, POS_INF_TS } from '../core/time.js';
import type * as ARG from '../registry/args.js';
import type { ArgsFor } from '../registry/decode.js';
import type { ParseTree } from '../registry/agg-operators.js';
import type { Source } from '../storage/source.js';
import type { TableSchema } from '../storage/schema.js';
import type { QueryResult } from '../core/result.js';
import { roundFloats } from './round.js';
import { queryBase, type SelectArg } from './select/query.js';
import { selectRows } from './select/select.js';
import { sortTable } from './sort.js';
import { resolveAnalytics } from './stats/analytics.js';
import { type Buckets, gcd, makeBuckets, type Unit } from './stats/buckets.js';
import { type Cells, canStream, gatheredCells, type StatsPlan, streamedCells, TOP_OF_BOOK } from './stats/cells.js';
import type { HolidayMode } from './stats/holidays.js';
import { checkTree, type Node, orderSensitive, treeColumns } from './stats/tree.js';
import { type FillMode, fillTable } from './ticks/fill.js';
import { namesColumn } from './ticks/ref.js';
import { dictOf } from '../core/dict.js';

function holidayMode(args: ArgsFor<typeof ARG.applyHolidayCalendar>): HolidayMode | undefined {
  const v = args.get('applyHolidayCalendar');
  if (v === undefined || v === false) return undefined;
  if (v === true) return { kind: 'perGroup' };
  return v === '' || v === '`' ? { kind: 'all' } : { kind: 'exchange', exchange: v };
}

/** Runs getStats against one database (its transient arrays in the query arena). */
export function getStats(db: Source, args: ArgsFor<StatsArg | typeof ARG.analytics | typeof ARG.fill>): QueryResult {
  return queryArena.scoped(() =>
    runStats(db, args, {
      leading: (t) => resolveAnalytics(args.get('analytics') ?? [], t, db.config).map((a) => ({ ...a, arg: 'analytics' })),
      fill: args.get('fill') as FillMode | undefined,
      missing: 'getStats: needs analytics (names such as maxPrice, vwap) or agg (parse trees such as {"hi":["max","price"]}) to compute',
    }),
  );
}

/** The arguments getStats's selection, grouping, buckets and evaluation read. */
export type StatsArg =
  | SelectArg | typeof ARG.agg | typeof ARG.groupBy | typeof ARG.granularity | typeof ARG.granularityUnit | typeof ARG.movingWindowSize
  | typeof ARG.applyHolidayCalendar | typeof ARG.sortCols | typeof ARG.decPlaces;

/** What an operation built on getStats's grouping and evaluation brings of its own. */
export interface StatsSpec {
  /** Output trees before the agg ones (getStats: named analytics; the order summary: summary functions). */
  readonly leading: (t: TableSchema) => ReadonlyArray<{ readonly name: string; readonly tree: ParseTree; readonly arg: string }>;
  /** The fill mode racking and filling the result (undefined: neither). */
  readonly fill: FillMode | undefined;
  /** The error when there is nothing to compute. */
  readonly missing: string;
  /** A last step before sortCols (the order summary's racking by trade date). */
  readonly finish?: (result: Table, ctx: { readonly t: TableSchema; readonly groupCols: readonly string[]; readonly window: { start: bigint; end: bigint } }) => Table;
}

/**
 * Selection, grouping, buckets and tree evaluation of getStats over a table; getStats and
 * getOrderAnalyticSummary differ only in their leading outputs and fill (call inside a query arena).
 */
export function runStats(db: Source, args: ArgsFor<StatsArg>, spec: StatsSpec): QueryResult {
  const { t, inputTZ, outputTZ, window, idList, timeColumn, slice, refs, orderbook, levelColumns, instrumentRef, select } = queryBase(db, args);

  // What may be referenced: the table's columns and the joined reference columns (as joinRefs names them).
  const available = new Set(t.columns.filter((c) => !c.type.endsWith('[]')).map((c) => c.name));
  for (const r of refs) {
    for (const c of r.schema.columns) if (c.name !== r.key && !c.type.endsWith('[]')) available.add(available.has(c.name) ? `${r.schema.name}_${c.name}` : c.name);
  }
  const named = spec.leading(t);
  const aggs = (args.get('agg') ?? []).map((a) => ({ ...a, arg: 'agg' }));
  const outputs = [...named, ...aggs].map((o) => ({ ...o, node: checkTree(o.tree, available, o.arg, o.tree) as Node }));
  if (outputs.length === 0 && orderbook !== 'plotOrderbookSnapshots') throw new TickscopeError('requirement', spec.missing);
  const groupCols = args.get('groupBy') ?? [t.idColumn];
  for (const [i, g] of groupCols.entries()) {
    if (!available.has(g)) throw argError('unknownColumn', 'groupBy', g, `is not a column of ${t.name}${refs.length ? ' or of its ref tables' : ''}`, `one of ${[...available].join(', ')}`);
    // a column twice would be two result columns of one name (and JSON keys that collide)
    if (groupCols.indexOf(g) !== i) throw argError('badValue', 'groupBy', groupCols, `names ${g} twice`, 'each column once');
  }
  const bucketColumn = t.timeColumn ?? timeColumn ?? 'time';
  const names = new Set<string>([...groupCols]);
  for (const o of [...(orderbook === 'plotOrderbookSnapshots' ? TOP_OF_BOOK : []), ...outputs.map((x) => x.name)]) {
    if (names.has(o)) throw argError('badValue', 'agg', o, 'names an output column twice (or a groupBy column)', 'distinct output names');
    names.add(o);
  }

  const unit = args.get('granularityUnit') as Unit | undefined;
  // ranges, and movingWindowSize's and applyHolidayCalendar's need of granularityUnit (and fill), are the declaration's (decoded)
  const granularity = args.must('granularity');
  const moving = args.get('movingWindowSize');
  if (unit && (window.start <= NEG_INF_TS || window.end >= POS_INF_TS)) {
    throw new TickscopeError('requirement', 'granularityUnit: buckets need startTS and endTS (the first bucket starts at startTS, the last is clipped at endTS)');
  }
  const fill = spec.fill;
  const holidays = holidayMode(args);

  // Time order across identifiers matters only to order-sensitive trees over groups mixing identifiers;
  // otherwise each identifier's rows, in time order one identifier after another, are enough (no merge).
  const onPartitionTime = !timeColumn || timeColumn === t.timeColumn;
  const needsOrder =
    (outputs.some((o) => orderSensitive(o.node)) || orderbook === 'plotOrderbookSnapshots') && !(groupCols.includes(t.idColumn) && onPartitionTime);
  const selection = selectRows(db, { ...select, order: needsOrder ? 'time' : 'storage' });

  const clock = timeColumn ?? t.timeColumn;
  const buckets: Buckets | undefined = unit ? makeBuckets(unit, granularity, window.start, window.end, inputTZ) : undefined;
  // Moving windows read atoms of gcd(window, granularity) units: bucket k covers atoms
  // [(k+1)·perBucket - perWindow, (k+1)·perBucket).
  const atomSize = moving && unit ? gcd(moving, granularity) : 0;
  const plan: StatsPlan = {
    db,
    t,
    outputs,
    groupCols,
    refs,
    instrumentRef,
    orderbook,
    levelColumns,
    clock,
    buckets,
    atoms: atomSize && unit ? makeBuckets(unit, atomSize, window.start, window.end, inputTZ) : undefined,
    perBucket: atomSize ? granularity / atomSize : 1,
    perWindow: atomSize ? moving! / atomSize : 1,
    racking: fill !== undefined,
    holidays,
    idList,
    inputTZ,
    sliced: slice !== undefined,
    needsOrder,
    granularity,
  };
  let cells: Cells;
  if (canStream(plan, selection)) {
    cells = streamedCells(plan, selection);
  } else {
    // Only the columns the query reads: trees, groups, bucket time, join keys, level lists, exchanges.
    const baseColumns = new Set(t.columns.map((c) => c.name));
    const wanted = new Set<string>([...refs.map((r) => r.fk), ...levelColumns]);
    if (clock && (unit || needsOrder || orderbook === 'plotOrderbookSnapshots')) wanted.add(clock);
    if (holidays?.kind === 'perGroup' || orderbook === 'instrumentNames') wanted.add(t.idColumn);
    for (const o of outputs) for (const c of treeColumns(o.node)) if (baseColumns.has(c)) wanted.add(c);
    for (const g of groupCols) if (baseColumns.has(g)) wanted.add(g);
    if (holidays?.kind === 'perGroup') for (const c of ['tradedExchange', 'exchangeID']) if (baseColumns.has(c)) wanted.add(c);
    if (wanted.size === 0) wanted.add(t.idColumn);
    cells = gatheredCells(plan, selection, [...wanted]);
  }
  const { layout } = cells;

  // Assemble: bucket label, group keys, top of book, outputs.
  const outNames: string[] = [];
  const outCols: Column[] = [];
  if (buckets) {
    const labels = new BigInt64Array(layout.out);
    for (let o = 0; o < layout.out; o++) labels[o] = buckets.boundary(layout.bucket[o]! + (moving ? 1 : 0));
    outNames.push(bucketColumn);
    outCols.push({ type: 'timestamp', data: labels });
  }
  for (const g of groupCols) {
    outNames.push(g);
    outCols.push(gather(cells.keys.col(g), layout.group));
  }
  for (const name of cells.topOfBook ? TOP_OF_BOOK : []) {
    outNames.push(name);
    outCols.push(cells.topOfBook!.get(name)!);
  }
  for (const o of outputs) {
    outNames.push(o.name);
    outCols.push(cells.values.get(o.name)!);
  }
  let result = new Table(outNames, outCols, layout.out);
  if (orderbook === 'instrumentNames' && instrumentRef && groupCols.includes(t.idColumn)) {
    const label = namesColumn(result.with(instrumentRef.fk, result.col(t.idColumn)), instrumentRef, t.idColumn);
    const at = outNames.indexOf(t.idColumn) + 1;
    result = new Table([...outNames.slice(0, at), 'instrumentName', ...outNames.slice(at)], [...outCols.slice(0, at), label, ...outCols.slice(at)], layout.out);
  }
  if (plan.racking && fill) {
    const group: SymbolColumn = { type: 'symbol', codes: layout.group, dict: dictOf(Array.from({ length: cells.groupCount }, (_, g) => String(g))) };
    const filled = fillTable(result.with('\u0000group', group), fill, '\u0000group', buckets ? bucketColumn : null, new Set(groupCols));
    result = filled.select(result.names);
  }
  if (spec.finish) result = spec.finish(result, { t, groupCols, window });
  // one part of a split query leaves sorting and rounding to the merged result
  const sortCols = currentShard() ? undefined : args.get('sortCols');
  if (sortCols) result = sortTable(result, sortCols);
  const decPlaces = args.get('decPlaces');
  if (decPlaces !== undefined && !currentShard()) result = roundFloats(result, decPlaces);
  return {
    table: result,
    outputTZ,
    window,
    tableName: t.name,
    timeColumn: buckets ? bucketColumn : null,
    idColumn: t.idColumn,
    groupColumns: groupCols,
  };
}
