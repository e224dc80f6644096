/**
 * The rows the operations read (ops/select/scan.ts): a stored partition (storage/database.ts,
 * Partition), or a view of one (a CanCor correction, ops/select/cancor.ts). A source of another kind
 * (a kdb+ partition read in place, a live table) implements it too.
 */
import type { Column } from '../core/column.js';
import type { DeferredColumn } from '../core/table.js';

/** What a scan reads: a stored partition, or a view of one (corrected by CanCor). */
export interface RowSource {
  readonly rows: number;
  /** identifier -> [first row, end row); empty when the table has no symbol identifier column. */
  readonly idRanges: ReadonlyMap<string, readonly [number, number]>;
  column(name: string): Column;
  /** The same rows with columns read only in these row ranges (partial reads of stored partitions). */
  narrow?(ranges: ReadonlyArray<readonly [number, number]>): RowSource;
  /** The rows in time order (ties by identifier, then storage order), when stored. */
  timeOrder?(): Int32Array | undefined;
  /** The column with its rows left to a streaming renderer, when the running query's result is streamed (core/table.ts). */
  deferred?(name: string): DeferredColumn | undefined;
}
