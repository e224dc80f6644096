/**
 * Parse trees as the agg builder holds them: exactly their REST JSON (SPEC 5.1), `[op, arg, ...]`
 * where an arg is a column name, a numeric string ("2"), a null literal ("0n" float, "0N" long), "i"
 * (the row index) or another tree. The
 * local checks mirror the engine's (unknown operator, arity, columns, a tree that does not reduce to
 * one value per group) so mistakes show where they are typed; the engine stays the judge.
 */
import { isOp, opInfo } from './agg-ops';

export type TreeArg = string | Tree;
export type Tree = readonly TreeArg[];

/** What an argument is: a column, a numeric literal, a null literal, the row index or a nested tree. */
export type ArgKind = 'column' | 'number' | 'null' | 'index' | 'tree';

/** The null literals of SPEC 5.1 and what each is. */
export const NULL_LITERALS: ReadonlyArray<{ readonly value: string; readonly label: string }> = [
  { value: '0n', label: '0n (float null)' },
  { value: '0N', label: '0N (long null)' },
];
const isNullLiteral = (s: string): boolean => s === '0n' || s === '0N';

const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i;

/** True for a numeric literal as REST sends it ("2", "-0.5", "1e6"). */
export const isNumberText = (s: string): boolean => NUMBER.test(s);

/** The kind of a tree argument. */
export function argKind(a: TreeArg): ArgKind {
  if (Array.isArray(a)) return 'tree';
  if (a === 'i') return 'index';
  if (isNullLiteral(a as string)) return 'null';
  return isNumberText(a as string) ? 'number' : 'column';
}

/** A JSON value as a tree argument (numbers become REST strings), or null when it is no tree shape. */
export function normalizeArg(v: unknown): TreeArg | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (!Array.isArray(v)) return null;
  const out: TreeArg[] = [];
  for (const x of v) {
    const n = normalizeArg(x);
    if (n === null) return null;
    out.push(n);
  }
  return out;
}

/** A problem at a place in the tree: `path` indexes into nested arrays ([] is the root, [1] its first argument). */
export interface TreeIssue {
  readonly path: readonly number[];
  readonly text: string;
}

/** Where each value of a tree lives: per row, one per group, or a constant. */
type Level = 'row' | 'cell' | 'scalar';

/** The schema the checks use: column name -> type (empty: columns are not checked). */
export interface TreeSchema {
  readonly table?: string;
  readonly columns: ReadonlyMap<string, string>;
}

const NUMERIC = new Set(['float', 'long', 'int', 'boolean']);
const ORDERABLE = new Set(['min', 'max', 'avg', 'med']);
const ANY_TYPE = new Set(['first', 'last', 'count']);

function walk(a: TreeArg, path: number[], s: TreeSchema, out: TreeIssue[]): Level {
  if (!Array.isArray(a)) {
    const t = a as string;
    if (t.trim() === '') out.push({ path, text: 'choose a column, a number or i' });
    else if (argKind(t) === 'number' || argKind(t) === 'null') return 'scalar';
    else if (t !== 'i' && s.columns.size > 0 && !s.columns.has(t)) out.push({ path, text: `${s.table ?? 'the table'} has no column ${JSON.stringify(t)}` });
    return 'row';
  }
  const [op, ...args] = a;
  if (typeof op !== 'string' || op === '') {
    out.push({ path, text: 'not a tree: expected [operator, argument, ...] such as ["max","price"]' });
    return 'row';
  }
  const info = opInfo(op);
  if (!info) out.push({ path, text: `${JSON.stringify(op)} is not an operator` });
  else if (args.length !== info.arity) {
    const names = info.argNames ? ` (${info.argNames.join(', ')})` : '';
    out.push({ path, text: `${op} takes ${info.arity} argument${info.arity === 1 ? '' : 's'}${names}, not ${args.length}` });
  }
  const levels = args.map((x, i) => walk(x, [...path, i + 1], s, out));
  if (!info) return 'row';
  switch (info.family) {
    case 'aggregate': {
      if (!ANY_TYPE.has(op)) {
        args.forEach((x, i) => {
          const type = typeof x === 'string' ? s.columns.get(x) : undefined;
          if (type === undefined || NUMERIC.has(type) || (type === 'timestamp' && ORDERABLE.has(op))) return;
          out.push({ path: [...path, i + 1], text: `${op} needs numbers; ${x as string} is ${type}` });
        });
      }
      return 'cell';
    }
    case 'elementwise':
      return levels.includes('row') ? 'row' : levels.includes('cell') ? 'cell' : 'scalar';
    case 'ordered':
    case 'distinct':
      // Row by row (a per-group argument is spread over the group's rows first).
      return 'row';
  }
}

/** Every local problem of a tree (empty when it looks right). */
export function treeIssues(tree: TreeArg, schema: TreeSchema = { columns: new Map() }): TreeIssue[] {
  const out: TreeIssue[] = [];
  if (!Array.isArray(tree)) {
    out.push({ path: [], text: 'not a tree: expected [operator, argument, ...] such as ["max","price"]' });
    return out;
  }
  const level = walk(tree, [], schema, out);
  if (level === 'row' && out.length === 0) out.push({ path: [], text: 'does not reduce to one value per group: end in an aggregate such as ["sum", …]' });
  return out;
}

/** The argument at a path (undefined when the path leads nowhere). */
export function argAt(tree: TreeArg, path: readonly number[]): TreeArg | undefined {
  let cur: TreeArg | undefined = tree;
  for (const i of path) cur = Array.isArray(cur) ? (cur as Tree)[i] : undefined;
  return cur;
}

/** A copy of the tree with the argument at `path` replaced. */
export function setArgAt(tree: TreeArg, path: readonly number[], value: TreeArg): TreeArg {
  if (path.length === 0) return value;
  if (!Array.isArray(tree)) return tree;
  const [i, ...rest] = path as [number, ...number[]];
  return tree.map((x, j) => (j === i ? setArgAt(x, rest, value) : x));
}

/** The tree with another operator: arguments kept up to its arity, missing ones blank. */
export function withOp(tree: Tree, op: string): Tree {
  const arity = opInfo(op)?.arity ?? tree.length - 1;
  const args = tree.slice(1, 1 + arity);
  while (args.length < arity) args.push('');
  return [op, ...args];
}

/** A fresh argument of a kind (a nested tree starts as the last value of the given column). */
export function blankArg(kind: ArgKind, column = ''): TreeArg {
  switch (kind) {
    case 'number':
      return '1';
    case 'null':
      return '0n';
    case 'index':
      return 'i';
    case 'tree':
      return ['last', column];
    case 'column':
      return column;
  }
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A default output name for a tree: `<op><Column>` (maxPrice) for a plain aggregate of a column, else null. */
export function autoName(tree: TreeArg): string | null {
  if (!Array.isArray(tree) || tree.length !== 2) return null;
  const [op, x] = tree as [string, TreeArg];
  if (!isOp(op) || typeof x !== 'string' || x === '' || argKind(x) !== 'column') return null;
  return `${op}${capital(x)}`;
}

/** True when every leaf of the tree is blank (a row nobody filled in). */
export function isBlankTree(a: TreeArg): boolean {
  return Array.isArray(a) ? a.slice(1).every(isBlankTree) : (a as string).trim() === '';
}
