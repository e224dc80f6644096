/** What the schema offers each widget: columns by role, reference tables reachable by foreign key. */
import { ARG, type ColumnType, type TableInfo } from '../../../engine/contract';

export interface ColumnChoice {
  readonly name: string;
  readonly type: ColumnType;
}

const NAME_TYPES = new Set<ColumnType>(['symbol', 'string']);

/**
 * Columns an argument may name: timeCol only timestamp columns, idCol symbol or string columns,
 * anything else every column.
 */
export function columnChoices(argName: string, table: TableInfo | undefined): ColumnChoice[] {
  const cols = table?.columns ?? [];
  if (argName === ARG.timeCol.name) return cols.filter((c) => c.type === 'timestamp');
  if (argName === ARG.idCol.name) return cols.filter((c) => NAME_TYPES.has(c.type));
  return [...cols];
}

/** Reference tables the table reaches through its foreign keys (each once, schema order). */
export function reachableRefs(table: TableInfo | undefined): string[] {
  return table ? [...new Set(Object.values(table.foreignKeys))] : [];
}

/** The columns of a table by name (empty when unknown). */
export function columnsOf(tables: readonly TableInfo[], name: string): ColumnChoice[] {
  return [...(tables.find((t) => t.name === name)?.columns ?? [])];
}

const BUILT_IN_AGGS = ['first', 'last', 'min', 'max', 'avg', 'med', 'sum'];

/**
 * The named analytics of a table as choices: built-in `<agg><Column>` names hinted with their meaning
 * ("max of price"), configured ones hinted as such (INTERFACE 4.2.1, SPEC 5.1).
 */
export function analyticChoices(table: TableInfo | undefined): Array<{ value: string; hint: string }> {
  const cols = new Set((table?.columns ?? []).map((c) => c.name));
  return (table?.analytics ?? []).map((name) => {
    for (const agg of BUILT_IN_AGGS) {
      const rest = name.slice(agg.length);
      const col = rest.charAt(0).toLowerCase() + rest.slice(1);
      if (name.startsWith(agg) && rest !== '' && rest.charAt(0) === rest.charAt(0).toUpperCase() && cols.has(col)) return { value: name, hint: `${agg} of ${col}` };
    }
    return { value: name, hint: 'configured' };
  });
}
