/**
 * .fsi.getStats (INTERFACE 4.2, SPEC 5): aggregates of a table over a window. Rows are selected as
 * getTicks selects them, grouped by the groupBy columns and time buckets into cells, and each
 * analytic and agg tree is evaluated per cell. With fill and buckets the result is racked (every
 * bucket of every group), holiday buckets removed first when asked, then filled per group.
 */
import { gather, gatherOrNull, type SymbolColumn } from '../core/column.js';
import { argError, TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import { NEG_INF_TS, POS_INF_TS } from '../core/time.js';
import type { DecodedArgs } from '../registry/decode.js';
import type { Database } from '../storage/database.js';
import { columnOf } from '../storage/schema.js';
import { andPredicates, compileClauses } from './filter/compile.js';
import type { QueryResult } from './result.js';
import { roundFloats } from './round.js';
import { columnNames, filterPredicate, filterRulePredicate, gatherColumns, mappedIds, sliceArg, timeColumnArg } from './select/args.js';
import { selectRows } from './select/select.js';
import { sortTable } from './sort.js';
import { aggTrees } from './stats/agg-spec.js';
import { resolveAnalytics } from './stats/analytics.js';
import { type Buckets, gcd, makeBuckets, type Unit } from './stats/buckets.js';
import type { Frame } from './stats/aggregates.js';
import { evaluate } from './stats/evaluate.js';
import { type Layout, layoutOf, movingFrames, plainFrame, presentKeys } from './stats/frames.js';
import { groupBy } from './stats/groups.js';
import { groupExchanges, type HolidayMode, loadCalendar, nonTradingDay } from './stats/holidays.js';
import { checkTree, combinable, type Node, orderSensitive, treeColumns } from './stats/tree.js';
import { vecToColumn } from './stats/vectors.js';
import { type FillMode, fillTable } from './ticks/fill.js';
import { type OrderbookMode, snapshotColumns, withTopOfBook } from './ticks/orderbook.js';
import { joinRefs, namesColumn, type RefTable, refColumn, refFilterPredicate, refTable } from './ticks/ref.js';
import { windowArg, zoneArg } from './window.js';

const MAX_CELLS = 20_000_000;
const TOP_OF_BOOK = ['bestBid', 'bestAsk', 'maxSize', 'spread', 'midPoint'];

/** A positive integer argument (granularity, movingWindowSize). */
function positive(args: DecodedArgs, name: 'granularity' | 'movingWindowSize'): number | undefined {
  const v = args.get(name, 'integer');
  if (v !== undefined && v < 1) throw argError('badValue', name, v, 'is not positive', 'an integer >= 1');
  return v;
}

function holidayMode(args: DecodedArgs): HolidayMode | undefined {
  const v = args.get('applyHolidayCalendar', 'booleanOrSymbol');
  if (v === undefined || v === false) return undefined;
  if (v === true) return { kind: 'perGroup' };
  return v === '' || v === '`' ? { kind: 'all' } : { kind: 'exchange', exchange: v };
}

/** Runs getStats against one database. */
export function getStats(db: Database, args: DecodedArgs): QueryResult {
  db.refresh();
  const t = db.table(args.get('table', 'symbol')!);
  const inputTZ = zoneArg(args, 'inputTZ');
  const outputTZ = zoneArg(args, 'outputTZ');
  const window = windowArg(args, inputTZ);
  const idCol = args.get('idCol', 'symbol') ?? t.idColumn;
  if (!columnOf(t, idCol)) throw argError('unknownColumn', 'idCol', idCol, `is not a column of ${t.name}`, `one of ${columnNames(t)}`);
  const idList = mappedIds(db, args);
  const timeColumn = timeColumnArg(t, args);
  const slice = sliceArg(args);
  const refs: RefTable[] = (args.get('ref', 'symbols') ?? []).map((name) => refTable(db, t, name, 'ref'));
  const orderbook = args.get('orderbook', 'symbol') as OrderbookMode | undefined;
  const levelColumns = orderbook === 'plotOrderbookSnapshots' ? snapshotColumns(t) : [];
  const instrumentRef = refs.find((r) => r.schema.name === 'Instrument');
  if ((orderbook === 'instrumentNames' || orderbook === 'orderbookUpdatesRefData') && !instrumentRef) {
    throw new TickscopeError('requirement', `orderbook: ${orderbook} needs ref Instrument (add "ref":["Instrument"]) to read instrument names from`);
  }

  // What may be referenced: the table's columns and the joined reference columns (as joinRefs names them).
  const available = new Set(t.columns.filter((c) => !c.type.endsWith('[]')).map((c) => c.name));
  for (const r of refs) {
    for (const c of r.schema.columns) if (c.name !== r.key && !c.type.endsWith('[]')) available.add(available.has(c.name) ? `${r.schema.name}_${c.name}` : c.name);
  }
  const named = resolveAnalytics(args.get('analytics', 'symbols') ?? [], t, db.config).map((a) => ({ ...a, arg: 'analytics' }));
  const aggs = (args.has('agg') ? aggTrees(args.get('agg', 'agg')) : []).map((a) => ({ ...a, arg: 'agg' }));
  const outputs = [...named, ...aggs].map((o) => ({ ...o, node: checkTree(o.tree, available, o.arg, o.tree) as Node }));
  if (outputs.length === 0 && orderbook !== 'plotOrderbookSnapshots') {
    throw new TickscopeError('requirement', 'getStats: needs analytics (names such as maxPrice, vwap) or agg (parse trees such as {"hi":["max","price"]}) to compute');
  }
  const groupCols = args.get('groupBy', 'symbols') ?? [t.idColumn];
  for (const g of groupCols) {
    if (!available.has(g)) throw argError('unknownColumn', 'groupBy', g, `is not a column of ${t.name}${refs.length ? ' or of its ref tables' : ''}`, `one of ${[...available].join(', ')}`);
  }
  const bucketColumn = t.timeColumn ?? timeColumn ?? 'time';
  const names = new Set<string>([...groupCols]);
  for (const o of [...(orderbook === 'plotOrderbookSnapshots' ? TOP_OF_BOOK : []), ...outputs.map((x) => x.name)]) {
    if (names.has(o)) throw argError('badValue', 'agg', o, 'names an output column twice (or a groupBy column)', 'distinct output names');
    names.add(o);
  }

  const unit = args.get('granularityUnit', 'symbol') as Unit | undefined;
  const granularity = positive(args, 'granularity') ?? 1;
  const moving = positive(args, 'movingWindowSize');
  if (moving !== undefined && !unit) throw new TickscopeError('requirement', 'movingWindowSize: needs granularityUnit (the unit of the window and of the buckets)');
  if (unit && (window.start <= NEG_INF_TS || window.end >= POS_INF_TS)) {
    throw new TickscopeError('requirement', 'granularityUnit: buckets need startTS and endTS (the first bucket starts at startTS, the last is clipped at endTS)');
  }
  const fill = args.get('fill', 'symbol') as FillMode | undefined;
  const holidays = holidayMode(args);
  if (holidays && (!fill || !unit)) {
    throw new TickscopeError('requirement', `applyHolidayCalendar: needs fill and granularityUnit (it removes holiday buckets before racking and filling); missing ${[!fill && 'fill', !unit && 'granularityUnit'].filter(Boolean).join(' and ')}`);
  }

  // Select the rows, as getTicks does.
  const useRanges = idList !== undefined && idCol === t.idColumn && columnOf(t, idCol)?.type === 'symbol' && t.kind === 'partitioned';
  const idPredicate = idList && !useRanges ? compileClauses([{ fn: 'in', column: idCol, value: idList, source: idList }], t, inputTZ, 'idList') : undefined;
  const refFilter = args.get('refFilter', 'refFilter');
  const predicate = andPredicates([
    idPredicate,
    filterRulePredicate(db, t, args),
    filterPredicate(t, args, inputTZ),
    refFilter === undefined ? undefined : refFilterPredicate(db, t, refFilter, inputTZ),
  ]);
  // Time order across identifiers matters only to order-sensitive trees over groups mixing identifiers;
  // otherwise each identifier's rows, in time order one identifier after another, are enough (no merge).
  const onPartitionTime = !timeColumn || timeColumn === t.timeColumn;
  const needsOrder =
    (outputs.some((o) => orderSensitive(o.node)) || orderbook === 'plotOrderbookSnapshots') && !(groupCols.includes(t.idColumn) && onPartitionTime);
  const selection = selectRows(db, {
    table: t,
    window,
    inputTZ,
    timeColumn: timeColumn ?? '',
    ...(slice ? { slice } : {}),
    ...(useRanges ? { ids: idList } : {}),
    ...(predicate ? { predicate } : {}),
    buffer: db.config.timeColBuffer,
    order: needsOrder ? 'time' : 'storage',
  });
  // Only the columns the query reads: trees, groups, bucket time, join keys, level lists, exchanges.
  const baseColumns = new Set(t.columns.map((c) => c.name));
  const clock = timeColumn ?? t.timeColumn;
  const wanted = new Set<string>([...refs.map((r) => r.fk), ...levelColumns]);
  if (clock && (unit || needsOrder || orderbook === 'plotOrderbookSnapshots')) wanted.add(clock);
  if (holidays?.kind === 'perGroup' || orderbook === 'instrumentNames') wanted.add(t.idColumn);
  for (const o of outputs) for (const c of treeColumns(o.node)) if (baseColumns.has(c)) wanted.add(c);
  for (const g of groupCols) if (baseColumns.has(g)) wanted.add(g);
  if (holidays?.kind === 'perGroup') for (const c of ['tradedExchange', 'exchangeID']) if (baseColumns.has(c)) wanted.add(c);
  if (wanted.size === 0) wanted.add(t.idColumn);
  let table = gatherColumns(t, selection, [...wanted]);
  if (!selection.ordered && timeColumn && needsOrder) table = sortTable(table, [{ dir: 'asc', column: timeColumn }]);
  if (refs.length > 0) table = joinRefs(table, refs);

  // Groups (plus idList identifiers without rows, when racking on the identifier) and buckets.
  const groups = groupBy(table, groupCols);
  const racking = Boolean(fill && unit);
  const onIds = groupCols.length === 1 && groupCols[0] === t.idColumn && table.col(t.idColumn).type === 'symbol';
  const extraIds = racking && onIds && idList ? missingIds(table, groups.keyRow, t.idColumn, idList) : [];
  const groupCount = groups.count + extraIds.length;
  const rank = new Int32Array(groupCount);
  rank.set(groups.rank);
  rankExtras(table, groups, t.idColumn, extraIds, rank, onIds);

  const time = clock ? table.get(clock) : undefined;
  const words = time?.type === 'timestamp' ? new Int32Array(time.data.buffer, time.data.byteOffset, time.data.length * 2) : new Int32Array(0);
  const buckets: Buckets | undefined = unit ? makeBuckets(unit, granularity, window.start, window.end, inputTZ) : undefined;
  const bucketOf = buckets ? buckets.assign(words, undefined, table.length) : new Int32Array(table.length);
  const allowed = bucketFilter(db, buckets, holidays, table, groups.ofRow, groupCount, extraIds, instrumentRef, t.idColumn, inputTZ, selection.ranges, slice !== undefined);
  if (buckets && racking && buckets.count * groupCount > MAX_CELLS) {
    throw argError('badValue', 'granularity', granularity, `gives ${buckets.count} buckets × ${groupCount} groups, more than ${MAX_CELLS} cells to rack`, 'a coarser granularity, a shorter window or fewer groups');
  }
  // Moving windows read atoms of gcd(window, granularity) units: bucket k covers atoms
  // [(k+1)·perBucket - perWindow, (k+1)·perBucket).
  const atomSize = moving && unit ? gcd(moving, granularity) : 0;
  const atomOf = moving && unit ? makeBuckets(unit, atomSize, window.start, window.end, inputTZ).assign(words, undefined, table.length) : undefined;
  const perBucket = atomSize ? granularity / atomSize : 1;
  const perWindow = atomSize ? moving! / atomSize : 1;
  const keys: Array<[number, number]> = !buckets
    ? Array.from({ length: groupCount }, (_, g): [number, number] => [0, g])
    : racking
    ? rackedKeys(buckets!, groupCount, allowed)
    : atomOf && buckets
      ? movingKeys(buckets.count, atomOf, groups.ofRow, groupCount, perBucket, perWindow, allowed)
      : unit || table.length > 0 || groupCols.length > 0
        ? presentKeys(bucketOf, groups.ofRow, groupCount).filter(([b, g]) => allowed(b, g))
        : [[0, 0]];
  const layout = layoutOf(keys, rank);

  // Evaluate every output over the cells.
  const columns = new Map<string, ReturnType<typeof vecToColumn>>();
  if (outputs.length > 0) {
    if (atomOf) {
      const frames = movingFrames(table, layout, atomOf, groups.ofRow, groupCount, perBucket, perWindow);
      let expanded: ReturnType<typeof frames.expanded> | undefined;
      for (const o of outputs) {
        const frame = combinable(o.node) ? frames.combined : (expanded ??= frames.expanded());
        columns.set(o.name, vecToColumn(evaluate(o.node, [frame], o.arg, o.tree), layout.out));
      }
    } else {
      const frame = buckets ? plainFrame(table, layout, bucketOf, groups.ofRow, groupCount) : groupFrame(table, layout, groups.ofRow, groupCount);
      for (const o of outputs) columns.set(o.name, vecToColumn(evaluate(o.node, [frame], o.arg, o.tree), layout.out));
    }
  }

  // Assemble: bucket label, group keys, top of book, outputs.
  const outNames: string[] = [];
  const outCols: ReturnType<typeof vecToColumn>[] = [];
  if (buckets) {
    const labels = new BigInt64Array(layout.out);
    for (let o = 0; o < layout.out; o++) labels[o] = buckets.boundary(layout.bucket[o]! + (moving ? 1 : 0));
    outNames.push(bucketColumn);
    outCols.push({ type: 'timestamp', data: labels });
  }
  const keyRows = Int32Array.from(layout.group, (g) => (g < groups.count ? groups.keyRow[g]! : -1));
  for (const g of groupCols) {
    outNames.push(g);
    outCols.push(g === t.idColumn && extraIds.length ? withExtraIds(table.col(g) as SymbolColumn, keyRows, layout.group, groups.count, extraIds) : gatherKeys(table, g, keyRows));
  }
  if (orderbook === 'plotOrderbookSnapshots') {
    const last = lastRowPerCell(layout, bucketOf, groups.ofRow, groupCount);
    const top = withTopOfBook(table.select(levelColumns).take(last.rows));
    for (const name of TOP_OF_BOOK) {
      outNames.push(name);
      outCols.push(gatherOrNull(top.col(name), last.index));
    }
  }
  for (const o of outputs) {
    outNames.push(o.name);
    outCols.push(columns.get(o.name)!);
  }
  let result = new Table(outNames, outCols, layout.out);
  if (orderbook === 'instrumentNames' && instrumentRef && groupCols.includes(t.idColumn)) {
    const label = namesColumn(result.with(instrumentRef.fk, result.col(t.idColumn)), instrumentRef, t.idColumn);
    const at = outNames.indexOf(t.idColumn) + 1;
    result = new Table([...outNames.slice(0, at), 'instrumentName', ...outNames.slice(at)], [...outCols.slice(0, at), label, ...outCols.slice(at)], layout.out);
  }
  if (racking && fill) {
    const group: SymbolColumn = { type: 'symbol', codes: layout.group, dict: Array.from({ length: groupCount }, (_, g) => String(g)) };
    const filled = fillTable(result.with('\u0000group', group), fill, '\u0000group', buckets ? bucketColumn : null, new Set(groupCols));
    result = filled.select(result.names);
  }
  const sortCols = args.get('sortCols', 'sortCols');
  if (sortCols) result = sortTable(result, sortCols);
  const decPlaces = args.get('decPlaces', 'integer');
  if (decPlaces !== undefined) {
    if (decPlaces < 0 || decPlaces > 15) throw argError('badValue', 'decPlaces', decPlaces, 'is out of range', 'an integer from 0 to 15');
    result = roundFloats(result, decPlaces);
  }
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

/** Without buckets every row's cell is its group's place in the layout: one pass, no lookups. */
function groupFrame(table: Table, layout: Layout, ofRow: Int32Array, groups: number): Frame {
  const cellOfGroup = new Int32Array(groups);
  for (let o = 0; o < layout.out; o++) cellOfGroup[layout.group[o]!] = o;
  const cell = new Int32Array(ofRow.length);
  for (let i = 0; i < ofRow.length; i++) cell[i] = cellOfGroup[ofRow[i]!]!;
  return { table, n: ofRow.length, cell, cells: layout.out, out: layout.out };
}

/** idList identifiers with no rows, in the order given. */
function missingIds(table: Table, keyRow: Int32Array, idColumn: string, idList: readonly string[]): string[] {
  const ids = table.col(idColumn) as SymbolColumn;
  const present = new Set(Array.from(keyRow, (r) => ids.dict[ids.codes[r]!]!));
  return [...new Set(idList)].filter((id) => !present.has(id));
}

/** Ranks of all groups, the extra identifiers merged in by name. */
function rankExtras(table: Table, groups: ReturnType<typeof groupBy>, idColumn: string, extra: readonly string[], rank: Int32Array, onIds: boolean): void {
  if (extra.length === 0 || !onIds) return;
  const ids = table.col(idColumn) as SymbolColumn;
  const names = [...Array.from(groups.keyRow, (r) => ids.dict[ids.codes[r]!]!), ...extra];
  const order = names.map((_, g) => g).sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
  order.forEach((g, r) => (rank[g] = r));
}

function gatherKeys(table: Table, name: string, keyRows: Int32Array): ReturnType<typeof vecToColumn> {
  const safe = Int32Array.from(keyRows, (r) => Math.max(0, r));
  if (table.length === 0) return gather(table.col(name), new Int32Array(0));
  return gather(table.col(name), safe);
}

function withExtraIds(ids: SymbolColumn, keyRows: Int32Array, groupOfCell: Int32Array, known: number, extra: readonly string[]): SymbolColumn {
  const dict = [...ids.dict, ...extra];
  const codes = Int32Array.from(groupOfCell, (g, o) => (g < known ? ids.codes[keyRows[o]!]! : ids.dict.length + (g - known)));
  return { type: 'symbol', codes, dict };
}

/** Which (bucket, group) cells may exist: inside the slices and, with a holiday calendar, on trading days. */
function bucketFilter(
  db: Database,
  buckets: Buckets | undefined,
  holidays: HolidayMode | undefined,
  table: Table,
  groupOf: Int32Array,
  groupCount: number,
  extraIds: readonly string[],
  instrumentRef: RefTable | undefined,
  idColumn: string,
  zone: string,
  ranges: ReadonlyArray<readonly [bigint, bigint]>,
  sliced: boolean,
): (bucket: number, group: number) => boolean {
  if (!buckets) return () => true;
  const inSlice = (k: number): boolean => {
    if (!sliced) return true;
    const a = buckets.boundary(k);
    const b = buckets.boundary(k + 1);
    return ranges.some(([s, e]) => s < b && e > a);
  };
  if (!holidays) return (k) => inSlice(k);
  const calendar = loadCalendar(db);
  const refExchange = (id: string): string => {
    if (!instrumentRef?.data) return '';
    const lookup = new Table([idColumn], [{ type: 'symbol', codes: Int32Array.of(0), dict: [id] }]);
    const col = refColumn(lookup.with(instrumentRef.fk, lookup.col(idColumn)), instrumentRef, 'exchangeID');
    return col.type === 'symbol' ? col.dict[col.codes[0]!]! : '';
  };
  const ids = table.get(idColumn);
  const idOfGroup = (g: number): string => {
    if (g >= groupCount - extraIds.length) return extraIds[g - (groupCount - extraIds.length)]!;
    if (!ids || ids.type !== 'symbol') return '';
    for (let i = 0; i < groupOf.length; i++) if (groupOf[i] === g) return ids.dict[ids.codes[i]!]!;
    return '';
  };
  const exchanges = groupExchanges(table, groupOf, groupCount, (g) => refExchange(idOfGroup(g)));
  const closed = nonTradingDay(holidays, calendar, db.config.weekendDays, exchanges, zone);
  return (k, g) => inSlice(k) && !closed(buckets.boundary(k), g);
}

function rackedKeys(buckets: Buckets, groups: number, allowed: (b: number, g: number) => boolean): Array<[number, number]> {
  const keys: Array<[number, number]> = [];
  for (let k = 0; k < buckets.count; k++) for (let g = 0; g < groups; g++) if (allowed(k, g)) keys.push([k, g]);
  return keys;
}

/** Moving windows without racking: the buckets of each group whose window holds rows. */
function movingKeys(
  count: number,
  atomOf: Int32Array,
  groupOf: Int32Array,
  groups: number,
  perBucket: number,
  perWindow: number,
  allowed: (b: number, g: number) => boolean,
): Array<[number, number]> {
  const seen = new Set<number>();
  const keys: Array<[number, number]> = [];
  for (const [a, g] of presentKeys(atomOf, groupOf, groups)) {
    // atom a lies in the window of bucket k when (k+1)·perBucket - perWindow <= a < (k+1)·perBucket
    const first = Math.ceil((a + 1) / perBucket) - 1;
    const last = Math.min(count - 1, Math.floor((a + perWindow) / perBucket) - 1);
    for (let k = Math.max(0, first); k <= last; k++) {
      const key = k * groups + g;
      if (!seen.has(key) && allowed(k, g)) {
        seen.add(key);
        keys.push([k, g]);
      }
    }
  }
  return keys;
}

/** The last row (in time order) of each output cell, for the top of book per bucket. */
function lastRowPerCell(layout: Layout, bucketOf: Int32Array, groupOf: Int32Array, groups: number): { rows: Int32Array; index: Int32Array } {
  const cellOf = new Map<number, number>();
  for (let o = 0; o < layout.out; o++) cellOf.set(layout.bucket[o]! * groups + layout.group[o]!, o);
  const last = new Int32Array(layout.out).fill(-1);
  for (let i = 0; i < bucketOf.length; i++) {
    if (bucketOf[i]! < 0) continue;
    const o = cellOf.get(bucketOf[i]! * groups + groupOf[i]!);
    if (o !== undefined) last[o] = i;
  }
  const rows = Int32Array.from(last.filter((r) => r >= 0));
  let k = 0;
  const index = Int32Array.from(last, (r) => (r >= 0 ? k++ : -1));
  return { rows, index };
}
