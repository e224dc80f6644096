/** What an operation returns to a gateway: the table plus what is needed to render it. */
import type { Table } from './table.js';

export interface QueryResult {
  readonly table: Table;
  /** Zone in which timestamp columns are rendered. */
  readonly outputTZ: string;
  /** The resolved window, echoed in the response header. */
  readonly window?: { readonly start: bigint; readonly end: bigint };
  /** The table queried, its time and identifier columns (for charts and grids). */
  readonly tableName: string;
  readonly timeColumn: string | null;
  readonly idColumn: string;
  /** getStats: the grouping columns of the result. */
  readonly groupColumns?: readonly string[];
  /** A held result sorted by the grid: each row's number in the result it was sorted from. */
  readonly baseRows?: Int32Array;
  /** One part of a split getTicks: the columns it wrote into its shard's shared output. */
  readonly wroteInto?: readonly string[];
  /** The source of each symbol column's dictionary among them (codes of one stored dictionary). */
  readonly wroteDicts?: Readonly<Record<string, string>>;
}
