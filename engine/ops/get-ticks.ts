/**
 * .fsi.getTicks (INTERFACE 4.1, SPEC 4): raw rows of a table for a window. Arguments are checked up
 * front (every error names its argument); then rows are selected (select/), gathered, and shaped:
 * orderbook snapshots, fill, reference joins, sort, rounding.
 */
import { gatherParts } from '../core/column.js';
import { argError, TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import { formatTimespan } from '../core/time.js';
import type { DecodedArgs } from '../registry/decode.js';
import type { Database } from '../storage/database.js';
import { columnOf, type TableSchema } from '../storage/schema.js';
import { andPredicates, compileClauses, compileFilter, listFilter, type Predicate } from './filter/compile.js';
import { isQText, parseFilterQ } from './filter/parse-q.js';
import { parseFilterText } from './filter/parse-text.js';
import { allOf, type FilterNode } from './filter/tree.js';
import type { QueryResult } from './result.js';
import { roundFloats } from './round.js';
import { CanCor } from './select/cancor.js';
import { type Selection, selectRows } from './select/select.js';
import { checkSlice } from './select/slice.js';
import { sortTable } from './sort.js';
import { type FillMode, fillTable } from './ticks/fill.js';
import { latestPerIdentifier, type OrderbookMode, snapshotColumns, withTopOfBook } from './ticks/orderbook.js';
import { joinRefs, namesColumn, type RefTable, refFilterPredicate, refTable } from './ticks/ref.js';
import { windowArg, zoneArg } from './window.js';

const columnNames = (t: TableSchema): string => t.columns.map((c) => c.name).join(', ');

function checkColumn(t: TableSchema, arg: string, name: string): void {
  if (!columnOf(t, name)) throw argError('unknownColumn', arg, name, `is not a column of ${t.name}`, `one of ${columnNames(t)}`);
}

/** The output columns: the time column first, then the chosen ones in the order given (SPEC 4). */
function outputColumns(t: TableSchema, args: DecodedArgs): string[] {
  const chosen = args.get('columns', 'symbols');
  if (!chosen) return t.columns.map((c) => c.name);
  for (const c of chosen) checkColumn(t, 'columns', c);
  const first = t.timeColumn ? [t.timeColumn] : [];
  return [...new Set([...first, ...chosen])];
}

/** The filter argument in any of its forms, compiled against the table. */
export function filterPredicate(t: TableSchema, args: DecodedArgs, inputTZ: string): Predicate | undefined {
  const f = args.get('filter', 'filter');
  if (!f) return undefined;
  const tree = f.kind === 'list' ? listFilter(f.clauses) : isQText(f.text) ? parseFilterQ(f.text) : parseFilterText(f.text);
  return compileFilter(tree, t, inputTZ);
}

/** idList through config.json's idMap when idMapping is 1b. */
export function mappedIds(db: Database, args: DecodedArgs): string[] | undefined {
  const ids = args.get('idList', 'symbols');
  if (!args.get('idMapping', 'boolean')) return ids;
  const map = db.config.idMap;
  if (Object.keys(map).length === 0) {
    throw new TickscopeError('requirement', `idMapping: 1b needs an idMap in ${db.name}'s config.json (custom identifier -> stored identifier); none is configured`);
  }
  return ids?.map((id) => map[id] ?? id);
}

/** The configured filter rule, as a predicate on its column. */
export function filterRulePredicate(db: Database, t: TableSchema, args: DecodedArgs): Predicate | undefined {
  const name = args.get('filterRule', 'symbol');
  if (!name) return undefined;
  const rules = db.config.filterRules;
  const rule = rules[name];
  if (!rule) {
    const known = Object.keys(rules);
    throw new TickscopeError(
      'requirement',
      `filterRule: ${JSON.stringify(name)} is not a filter rule of ${db.name}'s config.json; ${known.length ? `expected one of ${known.join(', ')}` : 'it needs filterRules in config.json, and none is configured'}`,
    );
  }
  checkColumn(t, 'filterRule', rule.column);
  const source = { [name]: rule };
  const isIn = (value: readonly string[]): FilterNode => ({ kind: 'clause', fn: 'in', column: rule.column, value, source });
  const tree = allOf([
    ...(rule.include ? [isIn(rule.include)] : []),
    ...(rule.exclude ? [{ kind: 'not', child: isIn(rule.exclude) } as const] : []),
  ]);
  return compileFilter(tree, t, 'UTC', 'filterRule');
}

/** The column the window applies to: timeCol when given (a timestamp column), else the partition column. */
export function timeColumnArg(t: TableSchema, args: DecodedArgs): string | undefined {
  const timeCol = args.get('timeCol', 'symbol');
  if (!timeCol) return t.timeColumn;
  const def = columnOf(t, timeCol);
  const stamps = t.columns.filter((c) => c.type === 'timestamp').map((c) => c.name);
  if (!def) throw argError('unknownColumn', 'timeCol', timeCol, `is not a column of ${t.name}`, `a timestamp column: ${stamps.join(', ')}`);
  if (def.type !== 'timestamp') throw argError('columnType', 'timeCol', timeCol, `is a ${def.type} column`, `a timestamp column of ${t.name}: ${stamps.join(', ')}`);
  if (t.kind === 'reference') throw argError('columnType', 'timeCol', timeCol, `applies to ${t.name}, a reference table without a time partition`, 'a partitioned table');
  return timeCol;
}

/** temporality and slice, checked together: slice needs temporality slice and the other way round. */
export function sliceArg(args: DecodedArgs): [number, number] | undefined {
  const temporality = args.get('temporality', 'symbol') ?? 'continuous';
  const slice = args.get('slice', 'timespanPair');
  if (temporality === 'slice') {
    if (!slice) throw new TickscopeError('requirement', 'temporality: slice needs slice, the start and end time of day such as ["09:30","16:00"]');
    return checkSlice(slice);
  }
  if (slice) throw new TickscopeError('requirement', `slice: ${JSON.stringify(slice.map(formatTimespan))} is only used with temporality slice; add "temporality":"slice"`);
  return undefined;
}

/** Gathers the needed columns of the selected rows, partitions concatenated in order. */
function gatherColumns(t: TableSchema, sel: Selection, names: readonly string[]): Table {
  const columns = names.map((name) =>
    gatherParts(
      columnOf(t, name)!.type,
      sel.parts.map(({ source, rows }) => ({ column: source.column(name), rows })),
    ),
  );
  return new Table(names, columns, sel.parts.reduce((s, p) => s + p.rows.length, 0));
}

/** Runs getTicks against one database. */
export function getTicks(db: Database, args: DecodedArgs): QueryResult {
  db.refresh();
  const t = db.table(args.get('table', 'symbol')!);
  const inputTZ = zoneArg(args, 'inputTZ');
  const outputTZ = zoneArg(args, 'outputTZ');
  const window = windowArg(args, inputTZ);
  const requested = outputColumns(t, args);
  const idCol = args.get('idCol', 'symbol') ?? t.idColumn;
  checkColumn(t, 'idCol', idCol);
  const idList = mappedIds(db, args);
  const timeColumn = timeColumnArg(t, args);
  const slice = sliceArg(args);
  const canCor = args.get('applyCanCor', 'boolean') ? CanCor.load(db, t) : undefined;
  const refs: RefTable[] = (args.get('ref', 'symbols') ?? []).map((name) => refTable(db, t, name, 'ref'));
  const orderbook = args.get('orderbook', 'symbol') as OrderbookMode | undefined;
  const levelColumns = orderbook === 'plotOrderbookSnapshots' ? snapshotColumns(t) : [];
  const instrumentRef = refs.find((r) => r.schema.name === 'Instrument');
  if ((orderbook === 'instrumentNames' || orderbook === 'orderbookUpdatesRefData') && !instrumentRef) {
    throw new TickscopeError('requirement', `orderbook: ${orderbook} needs ref Instrument (add "ref":["Instrument"]) to read instrument names from`);
  }
  const fill = args.get('fill', 'symbol') as FillMode | undefined;
  const decPlaces = args.get('decPlaces', 'integer');
  if (decPlaces !== undefined && (decPlaces < 0 || decPlaces > 15)) {
    throw argError('badValue', 'decPlaces', decPlaces, 'is out of range', 'an integer from 0 to 15');
  }
  const useRanges = idList !== undefined && idCol === t.idColumn && columnOf(t, idCol)?.type === 'symbol' && t.kind === 'partitioned';
  const idPredicate =
    idList && !useRanges ? compileClauses([{ fn: 'in', column: idCol, value: idList, source: idList }], t, inputTZ, 'idList') : undefined;
  const refFilter = args.get('refFilter', 'refFilter');
  const predicate = andPredicates([
    idPredicate,
    filterRulePredicate(db, t, args),
    filterPredicate(t, args, inputTZ),
    refFilter === undefined ? undefined : refFilterPredicate(db, t, refFilter, inputTZ),
  ]);

  const selection = selectRows(db, {
    table: t,
    window,
    inputTZ,
    timeColumn: timeColumn ?? '',
    ...(slice ? { slice } : {}),
    ...(useRanges ? { ids: idList } : {}),
    ...(predicate ? { predicate } : {}),
    ...(canCor ? { canCor } : {}),
    buffer: db.config.timeColBuffer,
  });

  // Columns needed on the way: requested ones, plus time, identifier, join keys and level lists.
  const internal = [...new Set([...requested, ...(t.timeColumn ? [t.timeColumn] : []), ...(timeColumn ? [timeColumn] : []), t.idColumn, ...refs.map((r) => r.fk), ...levelColumns])];
  let table = gatherColumns(t, selection, internal);
  const idSymbol = columnOf(t, t.idColumn)?.type === 'symbol' ? t.idColumn : null;
  if (!selection.ordered && timeColumn) {
    table = sortTable(table, [{ dir: 'asc', column: timeColumn }, ...(idSymbol ? [{ dir: 'asc' as const, column: idSymbol }] : [])]);
  }
  const names = [...requested];
  if (orderbook === 'plotOrderbookSnapshots') {
    if (idSymbol) table = latestPerIdentifier(table, idSymbol);
    table = withTopOfBook(table);
    names.push('bestBid', 'bestAsk', 'maxSize', 'spread', 'midPoint');
  }
  if (fill) table = fillTable(table, fill, idSymbol, timeColumn ?? null);
  if (refs.length > 0) {
    const before = new Set(table.names);
    const named = orderbook === 'instrumentNames' || orderbook === 'orderbookUpdatesRefData';
    // Names are read before any join and identifiers are replaced after it: the join matches on them.
    const label = named && instrumentRef ? namesColumn(table, instrumentRef, t.idColumn) : undefined;
    if (label && orderbook === 'instrumentNames') {
      const name = table.has('instrumentName') ? 'Instrument_instrumentName' : 'instrumentName';
      table = table.with(name, label);
      const at = names.indexOf(t.idColumn);
      names.splice(at >= 0 ? at + 1 : Math.min(1, names.length), 0, name);
      before.add(name);
    }
    table = joinRefs(table, refs, named ? new Set(['Instrument.instrumentName']) : new Set());
    if (label && label.type === 'string' && orderbook === 'orderbookUpdatesRefData') {
      table = table.with(t.idColumn, { type: 'symbol', codes: Int32Array.from(label.values.keys()), dict: label.values });
    }
    names.push(...table.names.filter((n) => !before.has(n)));
  }
  table = table.select(names);
  const sortCols = args.get('sortCols', 'sortCols');
  if (sortCols) table = sortTable(table, sortCols);
  if (decPlaces !== undefined) table = roundFloats(table, decPlaces);
  return {
    table,
    outputTZ,
    window,
    tableName: t.name,
    timeColumn: timeColumn ?? t.timeColumn ?? null,
    idColumn: t.idColumn,
  };
}
