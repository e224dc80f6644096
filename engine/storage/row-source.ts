/**
 * The rows the operations read (ops/select/scan.ts): a partition or reference table of a source
 * (storage/source.ts: a stored partition, database.ts Partition; an in-memory one, memory-source.ts;
 * a kdb+ partition read in place), or a view of one (a CanCor correction, ops/select/cancor.ts).
 */
import type { Column, ColumnType } from '../core/column.js';
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
  /** Every row of a column in buffers of its own, outside any cache (a partition read once to be rewritten). */
  columnUncached?(name: string): Column;
  /** Rows [a, b) of a column in a buffer of its own, outside any cache (a one-off read: order analytics' market data). */
  readUncached?(name: string, a: number, b: number): Column;
  /** The bytes of a numeric or time column's rows [a, b) read into `into`, outside any cache; its type. */
  readInto?(name: string, a: number, b: number, into: Uint8Array): ColumnType;
}
