/** What a warm case runs on each side, and how the two results line up for the value check. */
import type { Cell } from './cells.js';

/** The data a case's queries are written against (passed to child processes as JSON). */
export interface CaseContext {
  /** Partition dates of Trade (YYYY-MM-DD), ascending. */
  readonly dates: readonly string[];
  /** Instrument IDs, ascending. */
  readonly ids: readonly string[];
}

/** One case's two queries and how to line up their results for the value check. */
export interface CaseQuery {
  readonly op: '.fsi.getTicks' | '.fsi.getStats';
  readonly args: Record<string, unknown>;
  readonly sql: string;
  /**
   * Positions of the columns the result is ordered by. Rows with equal values there are ties whose
   * order DuckDB does not define; the check compares them in a canonical order.
   */
  readonly orderKeys: readonly number[];
  /** DuckDB column position -> the value Tickscope reports (bucket numbers -> bucket timestamps). */
  readonly duckCell?: Readonly<Record<number, (c: Cell) => Cell>>;
}

/** Date helpers shared by the case files. */
export const kdbDate = (iso: string): string => iso.replace(/-/g, '.');
export const nextDate = (iso: string): string => new Date(Date.parse(`${iso}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
export const nsAt = (isoDateTime: string): bigint => BigInt(Date.parse(`${isoDateTime}Z`)) * 1_000_000n;
