/**
 * The parse-tree operators of getStats (SPEC 5.1) as the agg builder offers them: arity, family and a
 * one-line explanation, from the one table the engine also checks trees by. They drive the form's
 * choices and its local checks; the engine gives the final word.
 */

import { AGG_OPERATORS, type OperatorDecl, type OperatorFamily } from '../../../engine/contract';

export type OpFamily = OperatorFamily;
export type OpInfo = OperatorDecl;

/** Every operator, in the order the builder lists them: the engine's own table (engine/registry/agg-operators.ts). */
export const OPS: readonly OpInfo[] = AGG_OPERATORS;

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
