/** What a warm case runs on each side, and how the two results line up for the value check. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Engine } from '../engine/engine.js';
import type { Cell } from './cells.js';
import type { DuckColumns } from './duck-read.js';

/** The data a case's queries are written against (passed to child processes as JSON). */
export interface CaseContext {
  /** Partition dates of Trade (YYYY-MM-DD), ascending. */
  readonly dates: readonly string[];
  /** Instrument IDs, ascending. */
  readonly ids: readonly string[];
}

/** One case's two queries and how to line up their results for the value check. */
export interface CaseQuery {
  readonly op: '.fsi.getTicks' | '.fsi.getStats' | '.fsi.eqea.generateOrderAnalytics' | 'getOrderAnalyticSummary';
  readonly args: Record<string, unknown>;
  /**
   * DuckDB's query. With `duckRun`, the query part of DuckDB's operation (timed alone for the
   * progress line's reference figure); otherwise the whole of DuckDB's side.
   */
  readonly sql: string;
  /**
   * Positions of the columns the result is ordered by. Rows with equal values there are ties whose
   * order DuckDB does not define; the check compares them in a canonical order.
   */
  readonly orderKeys: readonly number[];
  /** DuckDB column position -> the value Tickscope reports (bucket numbers -> bucket timestamps). */
  readonly duckCell?: Readonly<Record<number, (c: Cell) => Cell>>;
  /**
   * 'scratch': the case writes, so it runs on the per-run copies (data.ts scratchCopies): Tickscope on
   * the copy of the database folder, DuckDB on a file-backed copy of the .duckdb file. Otherwise the
   * bench database and the in-memory DuckDB.
   */
  readonly on?: 'scratch';
  /** DuckDB's whole timed operation when it is more than one query (statements, a write): its result read into JS. */
  readonly duckRun?: (conn: DuckDBConnection) => Promise<DuckColumns>;
  /** Settings DuckDB's connection takes for this case (run once, untimed), each with its reason in the case file. */
  readonly duckSetup?: readonly string[];
  /** Checks, before anything is timed, that the two sides are set up to compute the same thing; throws when not. */
  readonly precheck?: (engine: Engine, duck: DuckDBConnection) => Promise<void>;
  /** Columns (by name) compared with another float rule than the relative FLOAT_TOLERANCE, and why. */
  readonly tolerances?: Readonly<Record<string, { readonly absolute: number; readonly why: string }>>;
}

/** Date helpers shared by the case files. */
export const kdbDate = (iso: string): string => iso.replace(/-/g, '.');
export const nextDate = (iso: string): string => new Date(Date.parse(`${iso}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
export const nsAt = (isoDateTime: string): bigint => BigInt(Date.parse(`${isoDateTime}Z`)) * 1_000_000n;
