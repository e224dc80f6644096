/**
 * Which columns the grid shows and in what order, and how a header click sorts: pure functions over
 * column names, so the choices carry over to any result with the same names (as widths and formats
 * do). The time column stays first, frozen beside `#`; the others take the order the user dragged
 * them into, and hidden ones are left out.
 */
import type { ResultColumn } from '../../../engine/contract';
import { displayOrder } from './layout';

export type SortDir = 'asc' | 'desc';

/** The grid's sort: one column and its direction. */
export interface GridSort {
  readonly column: string;
  readonly dir: SortDir;
}

/** The sort after a click on `column`'s header: unsorted -> ascending -> descending -> unsorted; another column starts ascending. */
export function nextSort(current: GridSort | null, column: string): GridSort | null {
  if (current?.column !== column) return { column, dir: 'asc' };
  return current.dir === 'asc' ? { column, dir: 'desc' } : null;
}

/** The sortCols of a sort, as the backend's sort takes them. */
export const sortColsOf = (s: GridSort): Array<[string, string]> => [[s.dir, s.column]];

export interface ColumnPrefs {
  /** Column names in the order the user put them (names of other results included). */
  readonly order: readonly string[];
  readonly hidden: (name: string) => boolean;
}

/**
 * Positions of the result's columns on screen: the time column first, then the rest with the columns
 * the saved order names in that order (in the places those columns take in the result's order), the
 * others where the result has them; hidden columns left out.
 */
export function arrangeColumns(columns: readonly ResultColumn[], timeColumn: string | null, prefs: ColumnPrefs): number[] {
  const base = displayOrder(columns, timeColumn);
  const frozen = timeColumn && columns.some((c) => c.name === timeColumn) ? 1 : 0;
  const rest = base.slice(frozen);
  const rank = new Map(prefs.order.map((n, i) => [n, i]));
  const ranked = rest.filter((j) => rank.has(columns[j]!.name)).sort((a, b) => rank.get(columns[a]!.name)! - rank.get(columns[b]!.name)!);
  let k = 0;
  const ordered = rest.map((j) => (rank.has(columns[j]!.name) ? ranked[k++]! : j));
  return [...base.slice(0, frozen), ...ordered].filter((j) => !prefs.hidden(columns[j]!.name));
}

/**
 * The saved order after moving `name` to the `side` of `target`: `current` is the movable columns'
 * order on screen now (hidden ones included); names of other results keep their place after them.
 */
export function moveColumn(saved: readonly string[], current: readonly string[], name: string, target: string, side: 'before' | 'after'): string[] {
  if (name === target || !current.includes(name) || !current.includes(target)) return [...saved];
  const without = current.filter((n) => n !== name);
  const at = without.indexOf(target) + (side === 'after' ? 1 : 0);
  const next = [...without.slice(0, at), name, ...without.slice(at)];
  return [...next, ...saved.filter((n) => !next.includes(n))];
}
