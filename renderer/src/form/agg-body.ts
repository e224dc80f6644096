/**
 * The agg argument between the builder and the request (INTERFACE 4.2.2, SPEC 5.1): builder rows of
 * name and tree, sent in one of the three formats; and any agg JSON read back into rows with the
 * engine's rules (a 3-element list is a triplet when its second element is an operator and its first
 * is not; a lone tree or triplet may stand outside a list).
 */
import { ARG } from '../../../engine/contract';
import { isOp } from './agg-ops';
import { autoName, isBlankTree, normalizeArg, type Tree, type TreeArg } from './agg-tree';
import type { AggFormat, AggRow, AggValue } from './values';

/** The builder's value. */
export const aggValue = (format: AggFormat, rows: readonly AggRow[]): AggValue => ({ kind: 'agg', format, rows });

/** A new row: the last value of a column. */
export const blankAggRow = (column = ''): AggRow => ({ name: '', tree: ['last', column] });

const isBlankRow = (r: AggRow): boolean => r.name.trim() === '' && isBlankTree(r.tree);

/** The rows that are sent (blank ones skipped), with their index in the builder. */
function sentRows(v: AggValue): Array<{ row: AggRow; at: number }> {
  return v.rows.map((row, at) => ({ row, at })).filter(({ row }) => !isBlankRow(row));
}

/**
 * The output column name of each builder row (null for blank rows): list format numbers them
 * aggregation1, 2, ... as the engine does; otherwise the typed name, else `<op><Column>`, else
 * aggregation<k>.
 */
export function outputNames(v: AggValue): Array<string | null> {
  const out: Array<string | null> = v.rows.map(() => null);
  sentRows(v).forEach(({ row, at }, k) => {
    const fallback = `aggregation${k + 1}`;
    out[at] = v.format === 'list' ? fallback : row.name.trim() || autoName(row.tree) || fallback;
  });
  return out;
}

/** Why a row cannot be sent in the value's format, or null. */
export function rowFormatProblem(v: AggValue, i: number): string | null {
  const row = v.rows[i];
  if (!row || isBlankRow(row) || v.format === 'list') return null;
  const names = outputNames(v);
  const name = names[i]!;
  if (names.filter((n) => n === name).length > 1) return `the name ${name} is used twice`;
  if (v.format !== 'triplets') return null;
  if (!Array.isArray(row.tree) || row.tree.length !== 2) return 'a triplet holds one operator and one argument ([name, op, column]): use the dictionary format for this tree';
  if (isOp(name)) return `the name ${name} is an operator: the engine would read the triplet as a tree`;
  return null;
}

/** The request value of the builder (undefined with no rows); throws naming a row that cannot be sent. */
export function aggBody(v: AggValue, arg: string = ARG.agg.name): unknown {
  const rows = sentRows(v);
  if (rows.length === 0) return undefined;
  for (const { at } of rows) {
    const problem = rowFormatProblem(v, at);
    if (problem) throw new Error(`${arg}: row ${at + 1}: ${problem}`);
  }
  const names = outputNames(v);
  switch (v.format) {
    case 'list':
      return rows.map(({ row }) => row.tree);
    case 'triplets':
      return rows.map(({ row, at }) => [names[at]!, ...(row.tree as Tree)]);
    case 'dict':
      return Object.fromEntries(rows.map(({ row, at }) => [names[at]!, row.tree]));
  }
}

/** A named tree as the engine reads the agg argument. */
export interface NamedTree {
  readonly name: string;
  readonly tree: TreeArg;
}

/**
 * The named trees of an agg value as the engine reads it, and the format it was written in; null when
 * it is not an agg shape (or mixes trees and triplets, which the builder cannot show).
 */
export function readAgg(body: unknown): { format: AggFormat; trees: NamedTree[] } | null {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const trees: NamedTree[] = [];
    for (const [name, t] of Object.entries(body as Record<string, unknown>)) {
      const tree = normalizeArg(t);
      if (tree === null) return null;
      trees.push({ name, tree });
    }
    return { format: 'dict', trees };
  }
  if (!Array.isArray(body) || body.length === 0) return null;
  const items: unknown[] = typeof body[0] === 'string' ? [body] : body;
  const trees: NamedTree[] = [];
  const kinds = new Set<AggFormat>();
  for (const [k, item] of items.entries()) {
    const t = normalizeArg(item);
    if (t === null || !Array.isArray(t) || t.length === 0) return null;
    if (t.length === 3 && typeof t[0] === 'string' && !isOp(t[0]) && isOp(t[1])) {
      kinds.add('triplets');
      trees.push({ name: t[0], tree: t.slice(1) });
    } else {
      kinds.add('list');
      trees.push({ name: `aggregation${k + 1}`, tree: t });
    }
  }
  return kinds.size === 1 ? { format: [...kinds][0]!, trees } : null;
}

/** Builder rows of an agg text (JSON), or null when the text has no builder form. */
export function aggTextValue(text: string): AggValue | null {
  const t = text.trim();
  if (t === '') return aggValue('dict', []);
  let parsed: unknown;
  try {
    parsed = JSON.parse(t);
  } catch {
    return null;
  }
  const read = readAgg(parsed);
  if (!read || read.trees.some((x) => !Array.isArray(x.tree))) return null;
  return aggValue(read.format, read.trees.map(({ name, tree }) => ({ name: read.format === 'list' ? '' : name, tree })));
}

/** The JSON text of the builder's rows (for the switch to text), readable even when a row cannot be sent. */
export function aggValueText(v: AggValue): string {
  try {
    const body = aggBody(v);
    return body === undefined ? '' : JSON.stringify(body);
  } catch {
    return JSON.stringify(aggBody({ ...v, format: 'list' }) ?? []);
  }
}
