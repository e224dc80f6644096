/**
 * .fsi.getTicks (INTERFACE 4.1, SPEC 4): raw rows of a table for a window. Arguments are checked up
 * front (every error names its argument); then rows are selected (select/), gathered, and shaped:
 * orderbook snapshots, fill, reference joins, sort, rounding.
 */
import { queryArena, scratchInt32 } from '../core/arena.js';
import { currentShard } from '../core/query-hooks.js';
import type * as ARG from '../registry/args.js';
import type { ArgsFor } from '../registry/decode.js';
import type { Source } from '../storage/source.js';
import { columnOf, type TableSchema } from '../storage/schema.js';
import type { QueryResult } from '../core/result.js';
import { roundFloats } from './round.js';
import { checkColumn, gatherColumns } from './select/args.js';
import { CanCor } from './select/cancor.js';
import { queryBase, type SelectArg } from './select/query.js';
import { selectRows } from './select/select.js';
import { sortTable } from './sort.js';
import { type FillMode, fillTable } from './ticks/fill.js';
import { latestPerIdentifier, withTopOfBook } from './ticks/orderbook.js';
import { joinRefs, namesColumn } from './ticks/ref.js';
import { dictOf } from '../core/dict.js';
import { gatherIntoOutput, writtenColumns, writtenDicts } from '../core/shared-output.js';

/** The output columns: the time column first, then the chosen ones in the order given (SPEC 4). */
export function outputColumns(t: TableSchema, args: ArgsFor<typeof ARG.columns>): string[] {
  const chosen = args.get('columns');
  if (!chosen) return t.columns.map((c) => c.name);
  for (const c of chosen) checkColumn(t, 'columns', c);
  const first = t.timeColumn ? [t.timeColumn] : [];
  return [...new Set([...first, ...chosen])];
}


/** The arguments getTicks reads. */
type TicksArgs = ArgsFor<SelectArg | typeof ARG.columns | typeof ARG.applyCanCor | typeof ARG.fill | typeof ARG.decPlaces | typeof ARG.sortCols>;

/** Runs getTicks against one database (its transient arrays in the query arena). */
export function getTicks(db: Source, args: TicksArgs): QueryResult {
  return queryArena.scoped(() => runGetTicks(db, args));
}

function runGetTicks(db: Source, args: TicksArgs): QueryResult {
  const { t, outputTZ, window, timeColumn, refs, orderbook, levelColumns, instrumentRef, select } = queryBase(db, args);
  const requested = outputColumns(t, args);
  const canCor = args.get('applyCanCor') ? CanCor.load(db, t) : undefined;
  const fill = args.get('fill') as FillMode | undefined;
  const decPlaces = args.get('decPlaces'); // 0 to 15: the declaration's range (decoded)
  // the selection's rows are only read (gathered, viewed): a whole span of a stored time order is not copied
  const selection = selectRows(db, { ...select, ...(canCor ? { canCor } : {}), readOnlyRows: true });

  // Columns needed on the way: requested ones, plus time, identifier, join keys and level lists.
  const internal = [...new Set([...requested, ...(t.timeColumn ? [t.timeColumn] : []), ...(timeColumn ? [timeColumn] : []), t.idColumn, ...refs.map((r) => r.fk), ...levelColumns])];
  // one part of a split query: its rows go straight into the whole query's columns
  const into = currentShard()?.into;
  let table = gatherColumns(t, selection, internal, into);
  if (into && table.length === into.rows) table = gatherIntoOutput(table, into);
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
  // the gathered columns belong to this query: fill writes into them
  if (fill) table = fillTable(table, fill, idSymbol, timeColumn ?? null, new Set(), { owned: true, alloc: scratchInt32 });
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
      table = table.with(t.idColumn, { type: 'symbol', codes: Int32Array.from(label.values.keys()), dict: dictOf(label.values) });
    }
    names.push(...table.names.filter((n) => !before.has(n)));
  }
  table = table.select(names);
  // one part of a split query leaves sorting and rounding to the merged result
  const sortCols = currentShard() ? undefined : args.get('sortCols');
  if (sortCols) table = sortTable(table, sortCols);
  if (decPlaces !== undefined && !currentShard()) table = roundFloats(table, decPlaces);
  const wrote = into ? writtenColumns(table, currentShard()) : [];
  return {
    ...(wrote.length > 0 ? { wroteInto: wrote, wroteDicts: writtenDicts(table, wrote) } : {}),
    table,
    outputTZ,
    window,
    tableName: t.name,
    timeColumn: timeColumn ?? t.timeColumn ?? null,
    idColumn: t.idColumn,
  };
}
