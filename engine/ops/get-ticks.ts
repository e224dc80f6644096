/** .fsi.getTicks (INTERFACE 4.1, SPEC 4): raw ticks of a table for a window. */
import { type Column, concatColumns, gather } from '../core/column.js';
import { argError, TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import type { DecodedArgs } from '../registry/decode.js';
import type { Database, Partition } from '../storage/database.js';
import { columnOf, type TableSchema } from '../storage/schema.js';
import { type CompiledClause, compileClauses } from './filter.js';
import type { QueryResult } from './result.js';
import { roundFloats } from './round.js';
import { scanPartition } from './scan.js';
import { sortTable } from './sort.js';
import { partitionRange, windowArg, zoneArg } from './window.js';

function checkColumn(t: TableSchema, arg: string, name: string): void {
  if (!columnOf(t, name)) {
    throw argError('unknownColumn', arg, name, `is not a column of ${t.name}`, `one of ${t.columns.map((c) => c.name).join(', ')}`);
  }
}

/** The output columns: the time column first, then the chosen ones in the order given (SPEC 4). */
function outputColumns(t: TableSchema, args: DecodedArgs): string[] {
  const chosen = args.get('columns', 'symbols');
  if (!chosen) return t.columns.map((c) => c.name);
  for (const c of chosen) checkColumn(t, 'columns', c);
  const first = t.timeColumn ? [t.timeColumn] : [];
  return [...new Set([...first, ...chosen])];
}

function filterClauses(t: TableSchema, args: DecodedArgs, inputTZ: string): CompiledClause[] {
  const f = args.get('filter', 'filter');
  if (!f) return [];
  if (f.kind === 'text') {
    throw new TickscopeError(
      'notSupported',
      `filter: the string form ${JSON.stringify(f.text)} is not supported yet; use the list form [["<","price","100"], ...]`,
    );
  }
  return compileClauses(f.clauses, t, inputTZ);
}

/** Runs getTicks against one database. */
export function getTicks(db: Database, args: DecodedArgs): QueryResult {
  db.refresh();
  const t = db.table(args.get('table', 'symbol')!);
  const inputTZ = zoneArg(args, 'inputTZ');
  const outputTZ = zoneArg(args, 'outputTZ');
  const window = windowArg(args, inputTZ);
  const names = outputColumns(t, args);
  const idCol = args.get('idCol', 'symbol') ?? t.idColumn;
  checkColumn(t, 'idCol', idCol);
  const idList = args.get('idList', 'symbols');
  const clauses = filterClauses(t, args, inputTZ);
  const useRanges = idList !== undefined && idCol === t.idColumn && columnOf(t, idCol)?.type === 'symbol';
  if (idList && !useRanges) {
    clauses.unshift(...compileClauses([{ fn: 'in', column: idCol, value: idList, source: idList }], t, inputTZ, 'idList'));
  }
  const decPlaces = args.get('decPlaces', 'integer');
  if (decPlaces !== undefined && (decPlaces < 0 || decPlaces > 15)) {
    throw argError('badValue', 'decPlaces', decPlaces, 'is out of range', 'an integer from 0 to 15');
  }

  const parts: Array<{ p: Partition; rows: Int32Array }> = [];
  if (t.kind === 'reference') {
    const p = db.reference(t.name);
    if (p) parts.push({ p, rows: selectReference(p, t, useRanges ? idList : undefined, clauses) });
  } else {
    const { first, last } = partitionRange(window);
    for (const key of db.partitionKeys(t.name)) {
      if (key < first || key > last) continue;
      const p = db.partition(t.name, key)!;
      const rows = scanPartition(p, {
        timeColumn: t.timeColumn!,
        start: window.start,
        end: window.end,
        ...(useRanges ? { ids: idList } : {}),
        clauses,
      });
      if (rows.length > 0) parts.push({ p, rows });
    }
  }

  const columns: Column[] = names.map((name) => {
    const type = columnOf(t, name)!.type;
    return concatColumns(
      type,
      parts.map(({ p, rows }) => gather(p.column(name), rows)),
    );
  });
  let table = new Table(
    names,
    columns,
    parts.reduce((s, x) => s + x.rows.length, 0),
  );
  const sortCols = args.get('sortCols', 'sortCols');
  if (sortCols) table = sortTable(table, sortCols);
  if (decPlaces !== undefined) table = roundFloats(table, decPlaces);
  return { table, outputTZ, window, tableName: t.name, timeColumn: t.timeColumn ?? null, idColumn: t.idColumn };
}

/** Rows of a reference table (no time window): identifiers, then filters, in storage order. */
function selectReference(
  p: Partition,
  t: TableSchema,
  ids: readonly string[] | undefined,
  clauses: readonly CompiledClause[],
): Int32Array {
  let sel = Int32Array.from({ length: p.rows }, (_, i) => i);
  let n = sel.length;
  if (ids) {
    n = compileClauses([{ fn: 'in', column: t.idColumn, value: ids, source: ids }], t, 'UTC', 'idList')[0]!.apply(
      p.column(t.idColumn),
      sel,
      n,
    );
  }
  for (const c of clauses) n = c.apply(p.column(c.column), sel, n);
  sel = sel.subarray(0, n);
  return sel;
}
