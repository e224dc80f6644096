/**
 * Named analytics (INTERFACE 4.2.1, SPEC 5.1): `<agg><Column>` built for every table from its schema
 * (first and last of any column; min, max, avg and med of numeric and timestamp columns; sum of
 * numeric columns), plus those configured in config.json for the table.
 */
import { TickscopeError } from '../../core/errors.js';
import type { ParseTree } from '../../registry/agg-operators.js';
import type { Config } from '../../storage/config.js';
import type { TableSchema } from '../../storage/schema.js';

const NUMERIC = new Set(['float', 'long', 'int']);
const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Every analytic name of a table, built-in then configured, with its parse tree. */
export function analyticsOf(t: TableSchema, config: Config): Map<string, ParseTree> {
  const out = new Map<string, ParseTree>();
  const aggs: Array<[string, (type: string) => boolean]> = [
    ['first', () => true],
    ['last', () => true],
    ['min', (ty) => NUMERIC.has(ty) || ty === 'timestamp'],
    ['max', (ty) => NUMERIC.has(ty) || ty === 'timestamp'],
    ['avg', (ty) => NUMERIC.has(ty) || ty === 'timestamp'],
    ['med', (ty) => NUMERIC.has(ty) || ty === 'timestamp'],
    ['sum', (ty) => NUMERIC.has(ty)],
  ];
  for (const [agg, applies] of aggs) {
    for (const c of t.columns) {
      if (c.type.endsWith('[]') || !applies(c.type)) continue;
      out.set(`${agg}${capital(c.name)}`, [agg, c.name]);
    }
  }
  for (const [name, tree] of Object.entries(config.analytics[t.name] ?? {})) out.set(name, tree);
  return out;
}

/** The parse trees of named analytics; an unknown name is an error listing the valid ones. */
export function resolveAnalytics(names: readonly string[], t: TableSchema, config: Config): Array<{ name: string; tree: ParseTree }> {
  const known = analyticsOf(t, config);
  return names.map((name) => {
    const tree = known.get(name);
    if (!tree) {
      throw new TickscopeError('notAllowed', `analytics: ${JSON.stringify(name)} is not an analytic of ${t.name}; expected one of ${[...known.keys()].join(', ')}`);
    }
    return { name, tree };
  });
}
