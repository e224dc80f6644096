/**
 * The running query's cancel check, as the column kernels call it (gatherParts, between blocks).
 * query-hooks.ts puts each query's hooks in place here; outside a query it is a no-op. Kept apart
 * from query-hooks.ts, whose types name results (core/result.ts) and so tables and columns: columns
 * calling it must not import those.
 */

/** Whatever answers the running query's checkpoints (its QueryHooks). */
export interface CancelCheck {
  /** Throws the query's cancel (or timeout) error when it has been cancelled. */
  checkpoint(): void;
}

const NONE: CancelCheck = { checkpoint: () => undefined };
let running: CancelCheck = NONE;

/** Stops here when the running query has been cancelled. */
export function checkpoint(): void {
  running.checkpoint();
}

/** Makes `check` answer the checkpoints from now on; returns the one it replaces (to put back). */
export function swapCancelCheck(check: CancelCheck): CancelCheck {
  const prev = running;
  running = check;
  return prev;
}
