/**
 * What a running query reports to, and asks of, whoever runs it (the executor's worker): a cancel
 * check at points where stopping is cheap (each partition, each column gathered) and progress in
 * partitions done out of partitions to read. Outside the executor both are no-ops.
 */

export interface QueryHooks {
  /** Throws the query's cancel (or timeout) error when it has been cancelled. */
  checkpoint(): void;
  /** Partitions (or blocks) done out of the total the query will read. */
  progress(done: number, total: number): void;
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

/** Reports progress of the running query. */
export function reportProgress(done: number, total: number): void {
  current.progress(done, total);
}

/** The row limit of the running query's result. */
export function maxResultRows(): number {
  return current.maxRows;
}
