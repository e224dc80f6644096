/**
 * The records the executor's pieces share: a call to a worker, the worker slot it runs on, a query
 * (queue.ts) and a part of a split one (parts.ts), and the few rules about them every piece keeps.
 */
import type { MessagePort, Worker } from 'node:worker_threads';
import type { QueryProgress } from '../contract.js';
import { asTickscopeError, type ErrorKindName, TickscopeError } from '../core/errors.js';
import type { WorkerInit, WorkerMethod } from './protocol.js';

export type Progress = QueryProgress;

/** One call to a worker, answered by its `done` or `fail` message. */
export interface Call {
  readonly id: number;
  readonly method: WorkerMethod;
  readonly params: readonly unknown[];
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: TickscopeError) => void;
  /** Takes a streamed chunk; a promise holds the worker back until it settles (the reader is slow). */
  readonly onChunk?: (bytes: Uint8Array) => void | Promise<void>;
  /** Takes the worker's progress reports of this call. */
  onProgress?: (done: number, total: number, unit: string) => void;
  /** The worker it was handed to. */
  slot?: Slot;
}

/** A worker thread and what it is doing. */
export interface Slot {
  worker: Worker;
  /** [0] the id of the call to stop, [1] why (protocol.ts: CANCELLED, TIMED_OUT). */
  readonly flags: Int32Array;
  /** Chunks of the running call taken by the caller (the worker's flow control). */
  readonly flowCount: Int32Array;
  /** What its workers start with (each also gets its own store and parts lines). */
  readonly init: WorkerInit;
  /** Calls handed to it and not answered yet. */
  readonly calls: Map<number, Call>;
  /** The query running here, if any (queue.ts). */
  query: QueryState | null;
  /** The part of another worker's query this worker runs or is reserved for (parts.ts). */
  part: PartState | null;
  ready: Promise<void>;
  /** Resolved once the worker has opened its databases. */
  isReady: boolean;
  /** Ended, or replaced after its worker was lost: ignore its worker's last events. */
  retired?: boolean;
  /** Where results of the parts of this worker's query go (this side of its parts line). */
  partsPort?: { readonly port: MessagePort; readonly signal: Int32Array };
}

/** A query from its receipt to its answer: waiting, running, or stopped and still finishing. */
export interface QueryState {
  readonly call: Call;
  readonly queryId: string;
  readonly operation: string;
  readonly received: number;
  readonly onProgress: ((p: Progress) => void) | undefined;
  /** Estimated to read at most smallQueryRows rows: started before larger queries waiting. */
  readonly small: boolean;
  done: number;
  total: number;
  unit: string;
  running: boolean;
  timer?: ReturnType<typeof setTimeout>;
  graceTimer?: ReturnType<typeof setTimeout>;
  stopped?: ErrorKindName;
  /** Answers the caller now with this error (the worker may still be stopping). */
  readonly reply: (e: TickscopeError) => void;
  /** Workers reserved for (or running) parts of this query. */
  helpers: Slot[];
  /** Progress of each part, by part index. */
  readonly partProgress: Array<{ done: number; total: number }>;
}

/** A worker running (or reserved for) one part of another worker's query. */
export interface PartState {
  readonly parent: QueryState;
  /** The part's call, once dispatched. */
  call: Call | null;
  index: number;
}

/** Whether a worker runs nothing: no query, no part, no call (a result's page, an export). */
export function idle(s: Slot): boolean {
  return s.query === null && s.part === null && s.calls.size === 0;
}

/**
 * Tells a worker to stop call `callId` at its next checkpoint (`why`: CANCELLED or TIMED_OUT), and
 * wakes it if it waits for its reader to take a chunk (it checks the flags at each wake).
 */
export function flagStop(slot: Slot, callId: number, why: number): void {
  Atomics.store(slot.flags, 1, why);
  Atomics.store(slot.flags, 0, callId);
  Atomics.notify(slot.flowCount, 0);
}

/** Where a query stands: its own progress and its parts'. */
export function progressOf(q: QueryState): Progress {
  let done = q.done;
  let total = q.total;
  for (const p of q.partProgress) {
    done += p.done;
    total += p.total;
  }
  return { state: q.running ? 'running' : 'queued', done, total, unit: q.unit, elapsedMs: performance.now() - q.received };
}

/** Settles a call with its worker's answer; a throw while the caller takes it fails the call instead. */
export function settle(call: Call, r: { value: unknown } | { error: TickscopeError }): void {
  try {
    if ('value' in r) call.resolve(r.value);
    else call.reject(r.error);
  } catch (e) {
    try {
      call.reject(asTickscopeError(e));
    } catch {
      // the caller's own failure handler threw: nothing more to tell it
    }
  }
}

/** Hands a progress report to the caller's listener; a listener that throws does not stop the query. */
export function report(listener: ((p: Progress) => void) | undefined, p: Progress): void {
  try {
    listener?.(p);
  } catch {
    // the listener's failure is its own
  }
}

/** The error of a call whose arguments cannot be posted to a worker. */
export function unsendable(e: unknown): TickscopeError {
  const why = e instanceof Error ? e.message : String(e);
  return new TickscopeError('badRequest', `args: cannot be handed to a query worker (${why.slice(0, 200)}); expected plain JSON values`);
}

/** The answer of a query its caller stopped. */
export function stoppedError(why: ErrorKindName): TickscopeError {
  return new TickscopeError(why, why === 'timeout' ? 'the query ran past its timeout and was stopped; narrow it or raise its timeout' : 'the query was cancelled');
}
