/**
 * Parse trees of getStats (SPEC 5.1): `[op, arg, ...]` where an arg is a column name, a numeric
 * literal (REST: a numeric string), a null literal (`"0n"` float, `"0N"` long), `i` (the row index)
 * or another tree. This file knows the operators
 * and checks a tree against a table's columns before anything runs.
 */
import { argError } from '../../core/errors.js';
import { operatorArities } from '../../registry/agg-operators.js';
import type { ParseTree } from '../../registry/agg-operators.js';

// The operators and their arities are declared once, in registry/agg-operators.ts (the app's agg builder reads the same table).
/** Aggregates: a vector of a group's rows to one value. */
export const AGGREGATES = operatorArities('aggregate');
/** Element-wise operators and their arity (`?` is the vector conditional, q's ?[c;x;y]: x where c is true, non-zero and non-null, else y). */
export const ELEMENTWISE = operatorArities('elementwise');
/** Null literals: q's float null and long null. */
export const NULL_LITERALS: Readonly<Record<string, 'float' | 'long'>> = { '0n': 'float', '0N': 'long' };
/** Operators that depend on the order of a group's rows (uniform: one value per row). */
export const ORDERED = operatorArities('ordered');
/** `distinct` keeps each value once per group; only `count`, `sum`, `avg`... of it reduce. */
export const DISTINCT = 'distinct';

export type AggregateOp = keyof typeof AGGREGATES;
export type ElementwiseOp = keyof typeof ELEMENTWISE;
export type OrderedOp = keyof typeof ORDERED;

/** A checked tree: column references, literals, the row index, and operator nodes. */
export type Node =
  | { readonly k: 'col'; readonly name: string }
  | { readonly k: 'lit'; readonly value: number; readonly type: 'float' | 'long' }
  | { readonly k: 'index' }
  | { readonly k: 'agg'; readonly op: AggregateOp; readonly args: readonly Node[] }
  | { readonly k: 'elem'; readonly op: ElementwiseOp; readonly args: readonly Node[] }
  | { readonly k: 'ordered'; readonly op: OrderedOp; readonly args: readonly Node[] }
  | { readonly k: 'distinct'; readonly arg: Node };

const OPERATORS = [...Object.keys(AGGREGATES), ...Object.keys(ELEMENTWISE), ...Object.keys(ORDERED), DISTINCT];

/** Checks a JSON parse tree against the available columns; errors name the tree and the argument. */
export function checkTree(tree: unknown, columns: ReadonlySet<string>, arg: string, whole: unknown = tree): Node {
  const fail = (problem: string, expected: string): never => {
    throw argError('badValue', arg, whole, problem, expected);
  };
  if (typeof tree === 'number') return Number.isFinite(tree) ? { k: 'lit', value: tree, type: 'float' } : fail(`has the literal ${tree}`, 'a finite number');
  if (typeof tree === 'string') {
    if (tree === 'i') return { k: 'index' };
    if (columns.has(tree)) return { k: 'col', name: tree };
    const nullType = NULL_LITERALS[tree];
    if (nullType) return { k: 'lit', value: NaN, type: nullType };
    if (tree.trim() !== '' && !Number.isNaN(Number(tree))) return { k: 'lit', value: Number(tree), type: 'float' };
    return fail(`names ${JSON.stringify(tree)}, which is not a column`, `a column (${[...columns].join(', ')}), a number, "0n" or "0N" (nulls), i, or a tree`);
  }
  if (!Array.isArray(tree) || tree.length === 0 || typeof tree[0] !== 'string') {
    return fail(`has ${JSON.stringify(tree)}, which is not a tree`, '[operator, argument, ...] such as ["max","price"]');
  }
  const [op, ...rest] = tree as [string, ...unknown[]];
  const args = (): Node[] => rest.map((a) => checkTree(a, columns, arg, whole));
  const arity = (want: number): void => {
    if (rest.length !== want) fail(`has ${op} with ${rest.length} argument${rest.length === 1 ? '' : 's'}`, `${op} with ${want}`);
  };
  if (op in AGGREGATES) {
    arity(AGGREGATES[op as AggregateOp]);
    return { k: 'agg', op: op as AggregateOp, args: args() };
  }
  if (op in ELEMENTWISE) {
    arity(ELEMENTWISE[op as ElementwiseOp]);
    return { k: 'elem', op: op as ElementwiseOp, args: args() };
  }
  if (op in ORDERED) {
    arity(ORDERED[op as OrderedOp]);
    return { k: 'ordered', op: op as OrderedOp, args: args() };
  }
  if (op === DISTINCT) {
    arity(1);
    return { k: 'distinct', arg: args()[0]! };
  }
  return fail(`has operator ${JSON.stringify(op)}`, `one of ${OPERATORS.join(' ')}`);
}

/** Columns a tree reads. */
export function treeColumns(n: Node, out = new Set<string>()): Set<string> {
  if (n.k === 'col') out.add(n.name);
  else if (n.k === 'agg' || n.k === 'elem' || n.k === 'ordered') for (const a of n.args) treeColumns(a, out);
  else if (n.k === 'distinct') treeColumns(n.arg, out);
  return out;
}

/**
 * True when a moving window can be computed from partial aggregates of its pieces: every aggregate
 * is decomposable (not med, not over distinct), no aggregate is nested in another, and no ordered
 * operator is used.
 */
export function combinable(n: Node, insideAgg = false): boolean {
  switch (n.k) {
    case 'col':
    case 'lit':
    case 'index':
      return true;
    case 'distinct':
    case 'ordered':
      return false;
    case 'agg':
      if (insideAgg || n.op === 'med') return false;
      return n.args.every((a) => combinable(a, true));
    case 'elem':
      return n.args.every((a) => combinable(a, insideAgg));
  }
}

/** True when a tree's value depends on the order of a group's rows (first, last, prev, deltas, ...). */
export function orderSensitive(n: Node): boolean {
  switch (n.k) {
    case 'agg':
      return n.op === 'first' || n.op === 'last' || n.args.some(orderSensitive);
    case 'ordered':
      return true;
    case 'elem':
      return n.args.some(orderSensitive);
    case 'distinct':
      return orderSensitive(n.arg);
    default:
      return false;
  }
}

/** A tree as JSON text, for error messages. */
export function showTree(t: ParseTree): string {
  return JSON.stringify(t);
}
