/**
 * Arguments getTicks and getStats share (SPEC 4, 5): each checked with an error naming it, turned into
 * what the row selection needs.
 */
import { codesAt, gatherParts } from '../../core/column.js';
import { argError, TickscopeError } from '../../core/errors.js';
import { Table } from '../../core/table.js';
import { formatTimespan } from '../../core/time.js';
import type * as ARG from '../../registry/args.js';
import type { ArgsFor } from '../../registry/decode.js';
import type { Source } from '../../storage/source.js';
import { columnOf, type TableSchema } from '../../storage/schema.js';
import { compileFilter, listFilter, type Predicate } from '../filter/compile.js';
import { isQText, parseFilterQ } from '../filter/parse-q.js';
import { parseFilterText } from '../filter/parse-text.js';
import { allOf, type FilterNode } from '../filter/tree.js';
import type { Selection } from './select.js';
import { checkSlice } from './slice.js';
import { type ShardOutput, streamedFiles } from '../../core/query-hooks.js';
import { placeOf } from '../../core/shared-output.js';

export const columnNames = (t: TableSchema): string => t.columns.map((c) => c.name).join(', ');

/** An error naming the argument unless the table has the column. */
export function checkColumn(t: TableSchema, arg: string, name: string): void {
  if (!columnOf(t, name)) throw argError('unknownColumn', arg, name, `is not a column of ${t.name}`, `one of ${columnNames(t)}`);
}

/** The filter argument in any of its forms, compiled against the table. */
export function filterPredicate(t: TableSchema, args: ArgsFor<typeof ARG.filter>, inputTZ: string): Predicate | undefined {
  const f = args.get('filter');
  if (!f) return undefined;
  const tree = f.kind === 'list' ? listFilter(f.clauses) : isQText(f.text) ? parseFilterQ(f.text) : parseFilterText(f.text);
  return compileFilter(tree, t, inputTZ);
}

/** idList through config.json's idMap when idMapping is 1b. */
export function mappedIds(db: Source, args: ArgsFor<typeof ARG.idList | typeof ARG.idMapping>): string[] | undefined {
  const ids = args.get('idList');
  if (!args.get('idMapping')) return ids;
  const map = db.config.idMap;
  if (Object.keys(map).length === 0) {
    throw new TickscopeError('requirement', `idMapping: 1b needs an idMap in ${db.name}'s config.json (custom identifier -> stored identifier); none is configured`);
  }
  return ids?.map((id) => map[id] ?? id);
}

/** The configured filter rule, as a predicate on its column. */
export function filterRulePredicate(db: Source, t: TableSchema, args: ArgsFor<typeof ARG.filterRule>): Predicate | undefined {
  const name = args.get('filterRule');
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
export function timeColumnArg(t: TableSchema, args: ArgsFor<typeof ARG.timeCol>): string | undefined {
  const timeCol = args.get('timeCol');
  if (!timeCol) return t.timeColumn;
  const def = columnOf(t, timeCol);
  const stamps = t.columns.filter((c) => c.type === 'timestamp').map((c) => c.name);
  if (!def) throw argError('unknownColumn', 'timeCol', timeCol, `is not a column of ${t.name}`, `a timestamp column: ${stamps.join(', ')}`);
  if (def.type !== 'timestamp') throw argError('columnType', 'timeCol', timeCol, `is a ${def.type} column`, `a timestamp column of ${t.name}: ${stamps.join(', ')}`);
  if (t.kind === 'reference') throw argError('columnType', 'timeCol', timeCol, `applies to ${t.name}, a reference table without a time partition`, 'a partitioned table');
  return timeCol;
}

/** temporality and slice, checked together: slice needs temporality slice and the other way round. */
export function sliceArg(args: ArgsFor<typeof ARG.temporality | typeof ARG.slice>): [number, number] | undefined {
  const temporality = args.must('temporality');
  const slice = args.get('slice');
  if (temporality === 'slice') {
    if (!slice) throw new TickscopeError('requirement', 'temporality: slice needs slice, the start and end time of day such as ["09:30","16:00"]');
    return checkSlice(slice);
  }
  if (slice) throw new TickscopeError('requirement', `slice: ${JSON.stringify(slice.map(formatTimespan))} is only used with temporality slice; add "temporality":"slice"`);
  return undefined;
}

/**
 * The needed columns of the selected rows, partitions concatenated in order. Rows of one partition
 * are a view over its columns (a row index, nothing copied until a kernel needs a column); rows of
 * several are gathered into new columns, or into `into`'s places (one part of a split getTicks).
 */
export function gatherColumns(t: TableSchema, sel: Selection, names: readonly string[], into?: ShardOutput): Table {
  if (sel.parts.length === 1) {
    const { source, rows, stored } = sel.parts[0]!;
    // a streamed result's columns the query has not read are read as they are written (a column of
    // a dictionary read in blocks only with every row: its dictionary is then read whole below)
    const deferred = names.map((name) => {
      const d = into ? undefined : source.deferred?.(name);
      return d && (d.column.type !== 'symbol' || !d.column.dict.prefetch || rows.length === source.rows) ? d : undefined;
    });
    const bases = names.map((name, j) => deferred[j]?.column ?? source.column(name));
    // the rows may live in the query's scratch arena: the view keeps its own copy, in shared memory,
    // so the threads that render the result (or hold it) read it in place instead of a copy each;
    // rows of the stored time order (shared, never written) are kept as they are
    const index = stored ? rows : new Int32Array(new SharedArrayBuffer(rows.byteLength));
    if (!stored) index.set(rows);
    // dictionary parts the rows use are read now, while the query holds its folders (a selection
    // never repeats a row: as many rows as the partition's are all of its codes, in stored order)
    bases.forEach((c, j) => {
      if (c.type !== 'symbol' || !c.dict.prefetch) return;
      // a streamed column of every row: the writer copies the entries' bytes out of their file
      const files = deferred[j] && c.dict.prefetchStreamed ? streamedFiles() : undefined;
      if (files) c.dict.prefetchStreamed!(files);
      else if (deferred[j]) c.dict.prefetch();
      else c.dict.prefetch(index.length === c.codes.length ? c.codes : codesAt(c, index));
    });
    return Table.view(names, bases, index, deferred);
  }
  const n = sel.parts.reduce((s, p) => s + p.rows.length, 0);
  // one part of a split query: gathered straight into the whole query's columns, when it has the rows promised
  const out = into && into.rows === n ? into : undefined;
  const columns = names.map((name) => {
    const type = columnOf(t, name)!.type;
    return gatherParts(
      type,
      sel.parts.map(({ source, rows }) => ({ column: source.column(name), rows })),
      out && placeOf(out, name, type),
    );
  });
  return new Table(names, columns, n);
}

