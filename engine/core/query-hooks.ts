/**
 * What a running query reports to, and asks of, whoever runs it (the executor's worker): a cancel
 * check at points where stopping is cheap (each partition, each column gathered) and progress in
 * partitions done out of partitions to read. Outside the executor both are no-ops.
 */

export interface QueryHooks {
  /** Throws the query's cancel (or timeout) error when it has been cancelled. */
  checkpoint(): void;
  /** Steps done out of the total: partitions read, by default, or another unit (instruments). */
  progress(done: number, total: number, unit?: string): void;
  /** The most rows a result may hold (maxResultRows). */
  readonly maxRows: number;
}

const NONE: QueryHooks = { checkpoint: () => undefined, progress: () => undefined, maxRows: Infinity };
let current: QueryHooks = NONE;

/** Runs `fn` with these hooks in place. */
export function withQueryHooks<T>(hooks: QueryHooks, fn: () => T): T {
  const prev = current;
  current = hooks;
  try {
    return fn();
  } finally {
    current = prev;
  }
}

/** Stops here when the running query has been cancelled. */
export function checkpoint(): void {
  current.checkpoint();
}

/** Reports progress of the running query (in partitions unless `unit` says otherwise). */
export function reportProgress(done: number, total: number, unit?: string): void {
  current.progress(done, total, unit);
}

/** Runs `fn` (a step of a larger query) with its own progress reports silenced; cancels still apply. */
export function quietly<T>(fn: () => T): T {
  const outer = current;
  return withQueryHooks({ checkpoint: () => outer.checkpoint(), progress: () => undefined, maxRows: outer.maxRows }, fn);
}

/** The row limit of the running query's result. */
export function maxResultRows(): number {
  return current.maxRows;
}
