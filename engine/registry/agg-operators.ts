/**
 * The parse-tree operators of getStats (SPEC 5.1), declared once: their arity, family and a one-line
 * explanation. The engine checks and evaluates trees by it (ops/stats/tree.ts); the app's agg builder
 * offers and checks the same operators from it (it reaches the renderer through engine/contract.ts).
 * Pure data: no imports.
 */

/** A parse tree as written in JSON: [operator, argument, ...]; arguments are names, numbers or trees. */
export type ParseTree = string | number | readonly ParseTree[];

export type OperatorFamily = 'aggregate' | 'elementwise' | 'ordered' | 'distinct';

export interface OperatorDecl {
  readonly op: string;
  readonly arity: number;
  readonly family: OperatorFamily;
  readonly title: string;
  /** Names of the arguments, for labels (when they differ in meaning). */
  readonly argNames?: readonly string[];
}

/** Every operator, in the order the builder lists them. */
export const AGG_OPERATORS = [
  { op: 'first', arity: 1, family: 'aggregate', title: 'first value in time order' },
  { op: 'last', arity: 1, family: 'aggregate', title: 'last value in time order' },
  { op: 'min', arity: 1, family: 'aggregate', title: 'minimum' },
  { op: 'max', arity: 1, family: 'aggregate', title: 'maximum' },
  { op: 'sum', arity: 1, family: 'aggregate', title: 'sum (0 for no values)' },
  { op: 'avg', arity: 1, family: 'aggregate', title: 'mean' },
  { op: 'med', arity: 1, family: 'aggregate', title: 'median' },
  { op: 'count', arity: 1, family: 'aggregate', title: 'count of non-null values (["count","i"] counts rows)' },
  { op: 'dev', arity: 1, family: 'aggregate', title: 'population standard deviation' },
  { op: 'sdev', arity: 1, family: 'aggregate', title: 'sample standard deviation' },
  { op: 'var', arity: 1, family: 'aggregate', title: 'population variance' },
  { op: 'svar', arity: 1, family: 'aggregate', title: 'sample variance' },
  { op: 'wavg', arity: 2, family: 'aggregate', title: 'weighted mean: weights, then values', argNames: ['weights', 'values'] },
  { op: 'wsum', arity: 2, family: 'aggregate', title: 'weighted sum: weights, then values', argNames: ['weights', 'values'] },
  { op: '+', arity: 2, family: 'elementwise', title: 'add' },
  { op: '-', arity: 2, family: 'elementwise', title: 'subtract' },
  { op: '*', arity: 2, family: 'elementwise', title: 'multiply' },
  { op: '%', arity: 2, family: 'elementwise', title: 'divide' },
  { op: '/', arity: 2, family: 'elementwise', title: 'divide' },
  { op: 'neg', arity: 1, family: 'elementwise', title: 'negate' },
  { op: 'abs', arity: 1, family: 'elementwise', title: 'absolute value' },
  { op: 'sqrt', arity: 1, family: 'elementwise', title: 'square root' },
  { op: 'exp', arity: 1, family: 'elementwise', title: 'e to the power' },
  { op: 'log', arity: 1, family: 'elementwise', title: 'natural logarithm' },
  { op: 'floor', arity: 1, family: 'elementwise', title: 'round down' },
  { op: 'ceiling', arity: 1, family: 'elementwise', title: 'round up' },
  { op: 'signum', arity: 1, family: 'elementwise', title: 'sign: -1, 0 or 1' },
  { op: '=', arity: 2, family: 'elementwise', title: 'equal (1 or 0)' },
  { op: '<>', arity: 2, family: 'elementwise', title: 'not equal (1 or 0)' },
  { op: '<', arity: 2, family: 'elementwise', title: 'less than (1 or 0)' },
  { op: '>', arity: 2, family: 'elementwise', title: 'greater than (1 or 0)' },
  { op: '<=', arity: 2, family: 'elementwise', title: 'at most (1 or 0)' },
  { op: '>=', arity: 2, family: 'elementwise', title: 'at least (1 or 0)' },
  { op: '&', arity: 2, family: 'elementwise', title: 'lesser of the two' },
  { op: '|', arity: 2, family: 'elementwise', title: 'greater of the two' },
  {
    op: '?',
    arity: 3,
    family: 'elementwise',
    title: 'vector conditional, q’s ?[c;x;y]: then where the condition is true (non-zero, not null), else otherwise',
    argNames: ['condition', 'then', 'else'],
  },
  { op: 'prev', arity: 1, family: 'ordered', title: 'previous row’s value' },
  { op: 'next', arity: 1, family: 'ordered', title: 'next row’s value' },
  { op: 'deltas', arity: 1, family: 'ordered', title: 'difference from the previous row' },
  { op: 'ratios', arity: 1, family: 'ordered', title: 'ratio to the previous row' },
  { op: 'sums', arity: 1, family: 'ordered', title: 'running sum' },
  { op: 'fills', arity: 1, family: 'ordered', title: 'nulls filled forward' },
  { op: 'distinct', arity: 1, family: 'distinct', title: 'each value once (inside an aggregate: ["count",["distinct",x]])' },
] as const satisfies readonly OperatorDecl[];

/** The operators of one family, by name. */
export type OperatorOf<F extends OperatorFamily> = Extract<(typeof AGG_OPERATORS)[number], { readonly family: F }>['op'];

/** Arity by operator name, for the operators of a family. */
export function operatorArities<F extends OperatorFamily>(family: F): Readonly<Record<OperatorOf<F>, number>> {
  return Object.fromEntries(AGG_OPERATORS.filter((o) => o.family === family).map((o) => [o.op, o.arity])) as Record<OperatorOf<F>, number>;
}
