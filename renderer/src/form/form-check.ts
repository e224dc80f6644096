/**
 * Values of a form that the active connection does not know: a table it does not have, a column or a
 * named analytic its table lacks. Forms are kept as typed when the user switches connection (or
 * assembly), so such values stay in the form, marked with the reason, for the user to change or to
 * keep for the connection they belong to; the engine stays the judge when the form is run.
 */
import type { OperationSpec, TableInfo } from '../../../engine/contract';
import { type FormValues, namesOf, textOf } from './values';

/** Lists a few names for a message ("Trade, Quote, Order and 4 more"). */
function few(names: readonly string[], max = 6): string {
  if (names.length === 0) return 'none';
  if (names.length <= max) return names.join(', ');
  return `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}

/**
 * For each argument whose value names something `where` does not have, the reason (keyed by the
 * argument's name). `where` names the connection (and assembly) in the message.
 */
export function unknownValues(op: OperationSpec, values: FormValues, tables: readonly TableInfo[], where: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (tables.length === 0) return out; // nothing known yet (loading): nothing to judge against
  const byName = new Map(tables.map((t) => [t.name, t]));
  const tableArg = op.args.find((a) => a.widget === 'table');
  const tableName = tableArg ? textOf(values[tableArg.name]).trim() : '';
  const table = byName.get(tableName);
  if (tableArg && tableName && !table) out[tableArg.name] = `${tableName} is not a table of ${where}; it has ${few(tables.map((t) => t.name))}`;
  // columns of the table and of the reference tables it reaches (joined columns may be named too)
  const columns = new Set(table?.columns.map((c) => c.name) ?? []);
  for (const ref of Object.values(table?.foreignKeys ?? {})) for (const c of byName.get(ref)?.columns ?? []) columns.add(c.name);
  for (const arg of op.args) {
    const v = values[arg.name];
    if (v === undefined || v === '') continue;
    if (arg.widget === 'tables') {
      const missing = namesOf(v).filter((n) => !byName.has(n));
      if (missing.length) out[arg.name] = `${missing.join(', ')} ${missing.length === 1 ? 'is not a table' : 'are not tables'} of ${where}`;
    }
    if (!table) continue;
    if (arg.widget === 'column' || arg.widget === 'columns') {
      const names = arg.widget === 'column' ? [textOf(v).trim()].filter(Boolean) : namesOf(v);
      const missing = names.filter((n) => !columns.has(n));
      if (missing.length) out[arg.name] = `${missing.join(', ')} ${missing.length === 1 ? 'is not a column' : 'are not columns'} of ${table.name} on ${where}`;
    } else if (arg.widget === 'analytics') {
      const known = new Set(table.analytics);
      const missing = namesOf(v).filter((n) => !known.has(n));
      if (missing.length) out[arg.name] = `${missing.join(', ')} ${missing.length === 1 ? 'is not an analytic' : 'are not analytics'} of ${table.name} on ${where}`;
    }
  }
  return out;
}
