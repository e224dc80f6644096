/**
 * The queries' queue: at most maxRunningQueries running, maxQueuedQueries waiting, then busy. Queries
 * start in arrival order, except that one estimated small (smallQueryRows) goes before larger ones
 * that have not waited largeQueryWaitMs, and, while every worker is busy, a small one whose answer
 * leaves with it may run on the spare (the express lane). Each can be cancelled by its id or by its
 * timeout (counted from receipt): it stops at its next checkpoint, or, if it does not stop within
 * CANCEL_GRACE_MS, its worker is ended (another takes its place).
 */
import { checkValueBounds } from '../core/bounded-input.js';
import { asTickscopeError, TickscopeError } from '../core/errors.js';
import { type Call, progressOf, type Progress, type QueryState, report, type Slot, stoppedError } from './calls.js';
import type { Parts } from './parts.js';
import type { WorkerPool } from './pool.js';
import { CANCELLED, TIMED_OUT } from './protocol.js';
import type { ProcessSettings } from './settings.js';

/** How long a cancelled query may run on before its worker is ended. */
export const CANCEL_GRACE_MS = 250;

export interface RunOptions {
  /** The caller's id for the query (for cancel and progress); default a fresh one. */
  readonly queryId?: string;
  /** ms from receipt; default the settings' queryTimeoutMs (0: none). */
  readonly timeoutMs?: number;
  readonly onProgress?: (p: Progress) => void;
}

/** How a query is asked of a worker, and how its caller is answered. */
export interface QueryCall<T> {
  readonly method: 'run' | 'call' | 'envelope' | 'hold' | 'import' | 'preview';
  readonly operation: string;
  readonly args: unknown;
  /** Params after the operation and its args. */
  readonly extra?: readonly unknown[];
  readonly onChunk?: (bytes: Uint8Array) => void | Promise<void>;
  /** The caller's answer from the worker's value (and the worker that has it). */
  readonly done: (v: unknown, slot: Slot) => T;
  /** The caller's answer when the query fails. */
  readonly failed: (e: TickscopeError) => T;
}

export class QueryQueue {
  private readonly waitingQueries: QueryState[] = [];
  /** Queries waiting or running, by id. */
  private readonly queries = new Map<string, QueryState>();
  /**
   * Rows a query will read, estimated on this thread from partition metadata (QueryService sets it);
   * without one every query waits in arrival order.
   */
  estimator: ((operation: string, args: unknown) => number) | null = null;

  constructor(
    private readonly pool: WorkerPool,
    private readonly parts: Parts,
    private readonly settings: ProcessSettings,
  ) {}

  /** Queries waiting. */
  get waiting(): number {
    return this.waitingQueries.length;
  }

  /** Queries waiting or running. */
  get size(): number {
    return this.queries.size;
  }

  /** Queues a query and answers with `done` of its value, or `failed` of its error. */
  submit<T>(c: QueryCall<T>, opts: RunOptions): Promise<T> {
    const id = this.pool.callId();
    const queryId = opts.queryId ?? `q${id}`;
    const { failed, done } = c;
    if (c.method !== 'hold') {
      // nothing unbounded crosses to a worker (its structured clone recurses): SPEC 10's limits
      try {
        checkValueBounds(c.args, { maxDepth: this.settings.maxJsonDepth, maxElements: this.settings.maxJsonElements });
      } catch (e) {
        return Promise.resolve(failed(asTickscopeError(e)));
      }
    }
    if (this.queries.has(queryId)) return Promise.resolve(failed(new TickscopeError('badRequest', `queryId: ${JSON.stringify(queryId)} is already running; give each query its own id`)));
    if (this.waitingQueries.length >= this.settings.maxQueuedQueries && this.freeSlot() === undefined) {
      return Promise.resolve(failed(new TickscopeError('busy', `busy: ${this.running()} queries running and ${this.waitingQueries.length} waiting (maxQueuedQueries ${this.settings.maxQueuedQueries}); retry shortly`)));
    }
    return new Promise<T>((resolve) => {
      // the caller's answer: the worker's, or at once when the query is stopped (it may still be finishing)
      let answered = false;
      const reply = (r: T): void => {
        if (answered) return;
        answered = true;
        this.queries.delete(queryId);
        if (q.timer) clearTimeout(q.timer);
        resolve(r);
      };
      const call: Call = {
        id,
        method: c.method,
        params: [c.operation, c.args, ...(c.extra ?? [])],
        ...(c.onChunk ? { onChunk: c.onChunk } : {}),
        resolve: (v) => {
          if (q.graceTimer) clearTimeout(q.graceTimer);
          try {
            // an import that answers has written its rows: its report, however late a cancel came
            if (q.stopped && c.method !== 'import') reply(failed(stoppedError(q.stopped)));
            else reply(done(v, call.slot!));
          } catch (e) {
            // the answer could not be taken (decoding it failed): the query's error, its worker freed
            reply(failed(asTickscopeError(e)));
          } finally {
            this.release(q);
          }
        },
        reject: (e) => {
          if (q.graceTimer) clearTimeout(q.graceTimer);
          try {
            reply(failed(e));
          } finally {
            this.release(q);
          }
        },
        onProgress: (d, total, unit) => {
          q.done = d;
          q.total = total;
          q.unit = unit;
          report(q.onProgress, progressOf(q));
        },
      };
      const q: QueryState = {
        call,
        queryId,
        operation: c.operation,
        received: performance.now(),
        onProgress: opts.onProgress,
        small: c.method !== 'hold' && this.isSmall(c.operation, c.args),
        done: 0,
        total: 0,
        unit: 'partitions',
        running: false,
        reply: (e) => reply(failed(e)),
        helpers: [],
        partProgress: [],
      };
      this.queries.set(queryId, q);
      const timeout = opts.timeoutMs ?? this.settings.queryTimeoutMs;
      if (timeout > 0) q.timer = setTimeout(() => this.stop(q, 'timeout'), timeout);
      this.waitingQueries.push(q);
      report(opts.onProgress, progressOf(q));
      this.pump();
    });
  }

  /** Cancels a query by its id; false when no such query is queued or running. */
  cancel(queryId: string): boolean {
    const q = this.queries.get(queryId);
    if (!q) return false;
    this.stop(q, 'cancelled');
    return true;
  }

  /** Where a query stands, or undefined when it is not queued or running. */
  progress(queryId: string): Progress | undefined {
    const q = this.queries.get(queryId);
    return q ? progressOf(q) : undefined;
  }

  /** Queries running and not being stopped (a cancelled query still finishing does not count). */
  running(): number {
    return this.pool.slots.filter((s) => s.query !== null && !s.query.stopped).length;
  }

  /** Starts queued queries on free workers: small ones first, otherwise in arrival order. */
  pump(): void {
    for (;;) {
      if (this.waitingQueries.length === 0) return;
      let slot = this.freeSlot();
      let at = 0;
      if (slot) at = this.next();
      else {
        // every worker busy: a small query whose answer leaves with it (the gateway's, a CLI call;
        // not an app result held for paging) may take the express lane
        const express = this.pool.readySpare();
        at = express ? this.waitingQueries.findIndex((x) => x.small && (x.call.method === 'envelope' || x.call.method === 'call')) : -1;
        if (at < 0) return;
        slot = express!;
      }
      const q = this.waitingQueries.splice(at, 1)[0]!;
      slot.query = q;
      q.running = true;
      // a value the worker cannot be sent fails this query, and its worker is free for the next
      // (release, through its reject, pumps again)
      if (!this.pool.send(slot, q.call)) continue;
      report(q.onProgress, progressOf(q));
    }
  }

  /** A worker was lost: the query it ran is over (its call fails next), its parts stop. */
  drop(slot: Slot): void {
    const q = slot.query;
    slot.query = null;
    if (q) this.parts.end(q);
  }

  /** Fails every query still waiting (the executor is closing). */
  close(): void {
    for (const q of [...this.waitingQueries]) q.call.reject(new TickscopeError('cancelled', 'the executor is closing'));
  }

  private freeSlot(): Slot | undefined {
    if (this.running() >= this.settings.maxRunningQueries) return undefined;
    const { slots } = this.pool;
    const free = slots.find((s) => s.query === null && s.part === null && s.calls.size === 0) ?? slots.find((s) => s.query === null && s.part === null);
    if (free) return free;
    // every worker is busy but one is stopping a cancelled query: the spare runs the next query now
    if (this.pool.readySpare() && slots.length <= this.settings.workers && slots.some((s) => s.query?.stopped)) return this.pool.promoteSpare();
    return undefined;
  }

  /** Whether a query is estimated to read at most smallQueryRows rows (only while every worker is busy: it is cheap, but not free). */
  private isSmall(operation: string, args: unknown): boolean {
    const limit = this.settings.smallQueryRows;
    const free = this.running() < this.settings.maxRunningQueries && this.pool.slots.some((s) => s.query === null && s.part === null);
    if (!limit || !this.estimator || (this.waitingQueries.length === 0 && free)) return false;
    return this.estimator(operation, args) <= limit;
  }

  /**
   * The next query to start: the oldest, unless a small one waits and the oldest has not waited
   * largeQueryWaitMs (a small query behind a month of getStats would wait for all of it).
   */
  private next(): number {
    const head = this.waitingQueries[0];
    if (!head || head.small || performance.now() - head.received >= this.settings.largeQueryWaitMs) return 0;
    const i = this.waitingQueries.findIndex((q) => q.small);
    return i < 0 ? 0 : i;
  }

  /** Frees the worker of a finished query and starts the next. */
  private release(q: QueryState): void {
    this.parts.end(q);
    const slot = q.call.slot;
    if (slot && slot.query === q) {
      slot.query = null;
      // back to the configured count: the extra worker (it keeps its results) waits as the spare
      this.pool.demote(slot);
    }
    const at = this.waitingQueries.indexOf(q);
    if (at >= 0) this.waitingQueries.splice(at, 1);
    this.pump();
  }

  /** Stops a query: a queued one leaves the queue; a running one stops at its next checkpoint, or its worker is ended. */
  private stop(q: QueryState, why: 'cancelled' | 'timeout'): void {
    if (q.stopped) return;
    q.stopped = why;
    this.parts.end(q);
    if (!q.running) {
      q.call.reject(stoppedError(why));
      return;
    }
    const slot = q.call.slot!;
    this.pool.stop(slot, q.call.id, why === 'timeout' ? TIMED_OUT : CANCELLED);
    // an import is answered by its worker: cancelled when it stopped before its write, its report
    // when the write was made; never ended midway (a commit's lock and files are its own to finish)
    if (q.call.method === 'import') return;
    // the caller hears at once; its worker stops at its next checkpoint, and meanwhile the spare
    // takes the next query
    q.reply(stoppedError(why));
    this.pump();
    q.graceTimer = setTimeout(() => {
      if (slot.query !== q) return;
      this.pool.kill(slot, 'the query did not stop in time', why);
    }, CANCEL_GRACE_MS);
  }
}
