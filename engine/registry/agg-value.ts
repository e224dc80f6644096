/**
 * The agg argument in its three formats (INTERFACE 4.2.2, SPEC 5.1): a dictionary name -> tree, a list
 * of trees (named aggregation1, aggregation2, ...), or a list of triplets [name, op, column]. A
 * 3-element list is a tree when its first element is an operator and its second is not; it is a
 * triplet when its second is an operator. Decoding reads it (decode.ts), so its shape is checked before
 * any operation runs; whether its columns exist is the operation's to check, against the table.
 */
import { argError } from '../core/errors.js';
import type { ParseTree } from './agg-operators.js';
import { AGG_OPERATORS } from './agg-operators.js';

export interface NamedTree {
  readonly name: string;
  readonly tree: ParseTree;
}

const EXPECTED = '{"name": tree}, [tree, ...] or [[name, op, column], ...], e.g. {"hi":["max","price"]}';
const OPERATORS: ReadonlySet<string> = new Set(AGG_OPERATORS.map((o) => o.op));
const isOp = (v: unknown): boolean => typeof v === 'string' && OPERATORS.has(v);
const isTreeShape = (v: unknown): boolean => Array.isArray(v) && v.length > 0 && isOp(v[0]);

/** The agg argument as named trees, in the order given (`arg`: the argument's name, for its errors). */
export function aggTrees(value: unknown, arg = 'agg'): NamedTree[] {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw argError('badValue', arg, value, 'is not JSON', EXPECTED);
    }
  }
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    return Object.entries(v as Record<string, unknown>).map(([name, tree]) => ({ name, tree: tree as ParseTree }));
  }
  if (!Array.isArray(v) || v.length === 0) throw argError('badValue', arg, value, 'is not an aggregation', EXPECTED);
  // One tree or one triplet on its own, not inside a list.
  const items: unknown[] = typeof v[0] === 'string' ? [v] : v;
  return items.map((item, k) => {
    if (!Array.isArray(item) || item.length === 0) throw argError('badValue', arg, value, `has ${JSON.stringify(item)}, which is neither a tree nor a triplet`, EXPECTED);
    if (item.length === 3 && typeof item[0] === 'string' && !isOp(item[0]) && isOp(item[1])) {
      return { name: item[0], tree: [item[1], item[2]] as ParseTree };
    }
    if (isTreeShape(item)) return { name: `aggregation${k + 1}`, tree: item as ParseTree };
    throw argError('badValue', arg, value, `has ${JSON.stringify(item)}, which is neither a tree [op, arg] nor a triplet [name, op, column]`, EXPECTED);
  });
}
