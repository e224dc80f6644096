/**
 * The parse-tree operators of getStats (SPEC 5.1) as the agg builder offers them: arity, family and a
 * one-line explanation. The engine keeps its own table; this one only drives the form's choices and
 * its local checks, and the engine gives the final word.
 */

export type OpFamily = 'aggregate' | 'elementwise' | 'ordered' | 'distinct';

export interface OpInfo {
  readonly op: string;
  readonly arity: number;
  readonly family: OpFamily;
  readonly title: string;
  /** Names of the arguments, for labels (when they differ in meaning). */
  readonly argNames?: readonly string[];
}

const agg = (op: string, title: string, argNames?: readonly string[]): OpInfo => ({ op, arity: argNames?.length ?? 1, family: 'aggregate', title, ...(argNames ? { argNames } : {}) });
const un = (op: string, title: string): OpInfo => ({ op, arity: 1, family: 'elementwise', title });
const bin = (op: string, title: string): OpInfo => ({ op, arity: 2, family: 'elementwise', title });
const ord = (op: string, title: string): OpInfo => ({ op, arity: 1, family: 'ordered', title });

/** Every operator, in the order the builder lists them. */
export const OPS: readonly OpInfo[] = [
  agg('first', 'first value in time order'),
  agg('last', 'last value in time order'),
  agg('min', 'minimum'),
  agg('max', 'maximum'),
  agg('sum', 'sum (0 for no values)'),
  agg('avg', 'mean'),
  agg('med', 'median'),
  agg('count', 'count of non-null values (["count","i"] counts rows)'),
  agg('dev', 'population standard deviation'),
  agg('sdev', 'sample standard deviation'),
  agg('var', 'population variance'),
  agg('svar', 'sample variance'),
  agg('wavg', 'weighted mean: weights, then values', ['weights', 'values']),
  agg('wsum', 'weighted sum: weights, then values', ['weights', 'values']),
  bin('+', 'add'),
  bin('-', 'subtract'),
  bin('*', 'multiply'),
  bin('%', 'divide'),
  bin('/', 'divide'),
  un('neg', 'negate'),
  un('abs', 'absolute value'),
  un('sqrt', 'square root'),
  un('exp', 'e to the power'),
  un('log', 'natural logarithm'),
  un('floor', 'round down'),
  un('ceiling', 'round up'),
  un('signum', 'sign: -1, 0 or 1'),
  bin('=', 'equal (1 or 0)'),
  bin('<>', 'not equal (1 or 0)'),
  bin('<', 'less than (1 or 0)'),
  bin('>', 'greater than (1 or 0)'),
  bin('<=', 'at most (1 or 0)'),
  bin('>=', 'at least (1 or 0)'),
  bin('&', 'lesser of the two'),
  bin('|', 'greater of the two'),
  { op: '?', arity: 3, family: 'elementwise', title: 'vector conditional, q’s ?[c;x;y]: then where the condition is true (non-zero, not null), else otherwise', argNames: ['condition', 'then', 'else'] },
  ord('prev', 'previous row’s value'),
  ord('next', 'next row’s value'),
  ord('deltas', 'difference from the previous row'),
  ord('ratios', 'ratio to the previous row'),
  ord('sums', 'running sum'),
  ord('fills', 'nulls filled forward'),
  { op: 'distinct', arity: 1, family: 'distinct', title: 'each value once (inside an aggregate: ["count",["distinct",x]])' },
];

const BY_OP = new Map(OPS.map((o) => [o.op, o]));

/** The operator's description, or undefined for an unknown operator. */
export const opInfo = (op: string): OpInfo | undefined => BY_OP.get(op);

/** True for a known operator name. */
export const isOp = (v: unknown): v is string => typeof v === 'string' && BY_OP.has(v);

/** The families' headings in the operator select. */
export const FAMILY_LABELS: Readonly<Record<OpFamily, string>> = {
  aggregate: 'aggregates (one value per group)',
  elementwise: 'element-wise',
  ordered: 'ordered (row by row)',
  distinct: 'distinct',
};
