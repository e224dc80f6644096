/**
 * What a running query reports to, and asks of, whoever runs it (the executor's worker): a cancel
 * check at points where stopping is cheap (each partition, each column gathered) and progress in
 * partitions done out of partitions to read. Outside the executor both are no-ops.
 */
import { swapCancelCheck } from './cancel.js';
import type { QueryResult } from './result.js';
import type { StreamedFiles } from './streamed-files.js';

export interface QueryHooks {
  /** Throws the query's cancel (or timeout) error when it has been cancelled. */
  checkpoint(): void;
  /** Steps done out of the total: partitions read, by default, or another unit (instruments). */
  progress(done: number, total: number, unit?: string): void;
  /** The most rows a result may hold (maxResultRows). */
  readonly maxRows: number;
  /** The most bytes a result's columns may hold (maxResultBytes); default none. */
  readonly maxBytes?: number;
  /** Other workers this query may split its work across (the executor's workers), if any. */
  readonly parallel?: Parallel;
  /** This run is one part of a split query: only the identifiers of this range. */
  readonly shard?: Shard;
  /** The result is streamed once as soon as the query ends: its columns may be read as they are written (streamedFiles). */
  readonly streamed?: StreamedFiles;
}

/**
 * A part of a split query: the rows of a time range, or the identifiers (on the table's stored identifier column) from `lo`
 * (inclusive; null: from the first) to `hi` (exclusive; null: to the last), in the string order
 * partitions store their identifier runs in (compareStrings).
 */
export interface Shard {
  readonly lo: string | null;
  readonly hi: string | null;
  /** A time range [from, to) of the table's time column instead (getTicks splits by time). */
  readonly from?: bigint;
  readonly to?: bigint;
  /** Where this part writes its fixed-width columns (core/shared-output.ts). */
  readonly into?: ShardOutput;
}

/** Where a part writes its fixed-width columns: rows [offset, offset + rows) of each column's place. */
export interface ShardOutput {
  readonly offset: number;
  readonly rows: number;
  /** Where each column holds the whole query's rows. */
  readonly columns: Readonly<Record<string, OutputColumn>>;
}

/** A column's place in a split query's output: bytes from `byteOffset` of one shared buffer. */
export interface OutputColumn {
  readonly buffer: SharedArrayBuffer;
  readonly byteOffset: number;
}

/** One part of a query run on another worker: the same call, restricted to a shard. */
export interface PartRequest {
  readonly operation: string;
  readonly args: unknown;
  readonly shard: Shard;
}

/** The executor's other workers, as a running query sees them. */
export interface Parallel {
  /** Rows (estimated) from which a query splits. */
  readonly minRows: number;
  /** Reserves up to `max` idle workers for this query's parts; how many it got (0: none idle). */
  reserve(max: number): number;
  /** Starts these parts on the reserved workers (at most as many as reserved; unused ones are freed). */
  dispatch(parts: readonly PartRequest[]): void;
  /** Waits for every dispatched part's result, in order (a cancel still stops the wait). */
  collect(): QueryResult[];
}

const NONE: QueryHooks = { checkpoint: () => undefined, progress: () => undefined, maxRows: Infinity };
let current: QueryHooks = NONE;

/** Runs `fn` with these hooks in place. */
export function withQueryHooks<T>(hooks: QueryHooks, fn: () => T): T {
  const prev = current;
  current = hooks;
  const prevCheck = swapCancelCheck(hooks);
  try {
    return fn();
  } finally {
    current = prev;
    swapCancelCheck(prevCheck);
  }
}

/** Reports progress of the running query (in partitions unless `unit` says otherwise). */
export function reportProgress(done: number, total: number, unit?: string): void {
  current.progress(done, total, unit);
}

/** Runs `fn` (a step of a larger query) with its own progress reports silenced; cancels still apply. */
export function quietly<T>(fn: () => T): T {
  const outer = current;
  return withQueryHooks({ checkpoint: () => outer.checkpoint(), progress: () => undefined, maxRows: outer.maxRows, ...(outer.maxBytes !== undefined ? { maxBytes: outer.maxBytes } : {}), ...(outer.shard ? { shard: outer.shard } : {}) }, fn);
}

/** The workers the running query may split across, when it runs on the executor and is not itself a part. */
export function parallelism(): Parallel | undefined {
  return current.shard ? undefined : current.parallel;
}

/** The identifier range of the running part, when it is one part of a split query. */
export function currentShard(): Shard | undefined {
  return current.shard;
}

/** Contiguous identifier ranges of about equal rows; the first starts and the last ends open. */
export function shardsOf(weights: ReadonlyArray<readonly [string, number]>, parts: number): Shard[] {
  const total = weights.reduce((s, w) => s + w[1], 0);
  const cuts: string[] = [];
  let acc = 0;
  for (let i = 0; i < weights.length - 1 && cuts.length < parts - 1; i++) {
    acc += weights[i]![1];
    if (acc >= (total * (cuts.length + 1)) / parts) cuts.push(weights[i + 1]![0]);
  }
  return [...cuts, null].map((hi, i) => ({ lo: i === 0 ? null : cuts[i - 1]!, hi }));
}

/** True when an identifier lies in the shard's range (string order, as partitions store their runs). */
export function inShard(s: Shard, id: string): boolean {
  return (s.lo === null || id >= s.lo) && (s.hi === null || id < s.hi);
}

/** Where the running query opens the files of columns it leaves to a streaming renderer, if its result is streamed. */
export function streamedFiles(): StreamedFiles | undefined {
  return current.streamed;
}

/** Runs `fn` (a query) whose result is streamed once as soon as it returns, its deferred columns' files opened through `files`. */
export function withStreamedFiles<T>(files: StreamedFiles, fn: () => T): T {
  return withQueryHooks({ ...current, streamed: files }, fn);
}

/** The row limit of the running query's result. */
export function maxResultRows(): number {
  return current.maxRows;
}

/** The byte limit of the running query's result (Infinity outside the executor). */
export function maxResultBytes(): number {
  return current.maxBytes ?? Infinity;
}

/** Runs `fn` as one part of a split query: only the identifiers of `shard`, with the same cancel and progress. */
export function asShard<T>(shard: Shard, fn: () => T): T {
  return withQueryHooks({ ...current, shard }, fn);
}
