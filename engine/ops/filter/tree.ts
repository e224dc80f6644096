/**
 * A filter as a tree: clauses combined with and / or / not. The list form is an `and` of clauses;
 * the string form and q parse-tree text (SPEC 4) parse into the same tree.
 */

export const FILTER_FUNCTIONS = ['in', 'within', '<', '>', '<=', '>=', '=', '<>', 'like'] as const;
export type FilterFunction = (typeof FILTER_FUNCTIONS)[number];

/** Null tests exist in the string form (`price=null`) and q text (`(null;`price)`) only. */
export type ClauseFunction = FilterFunction | 'isnull' | 'notnull';

export type FilterNode =
  | { readonly kind: 'clause'; readonly fn: string; readonly column: string; readonly value: unknown; readonly source: unknown }
  | { readonly kind: 'and'; readonly children: readonly FilterNode[] }
  | { readonly kind: 'or'; readonly children: readonly FilterNode[] }
  | { readonly kind: 'not'; readonly child: FilterNode };

/** An `and` of the children, or the only child. */
export function allOf(children: readonly FilterNode[]): FilterNode {
  return children.length === 1 ? children[0]! : { kind: 'and', children };
}

/** An `or` of the children, or the only child. */
export function anyOf(children: readonly FilterNode[]): FilterNode {
  return children.length === 1 ? children[0]! : { kind: 'or', children };
}
