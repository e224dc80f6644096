/**
 * The parts of split queries (parallel/split.ts plans them, in the worker that took the query): that
 * worker reserves idle workers through its store line, then starts its parts on them; each part's
 * result goes back to it on its parts line (transferred, never cloned row by row). A query that is
 * over (answered, stopped or lost) stops its parts still running and frees the workers it reserved.
 */
import type { PartRequest } from '../core/query-hooks.js';
import type { TickscopeError } from '../core/errors.js';
import { type EncodedResult, transferables } from '../parallel/transfer.js';
import { idle, type PartState, progressOf, type QueryState, report, type Slot } from './calls.js';
import type { WorkerPool } from './pool.js';
import type { PartResult } from './protocol.js';

/** What the parts ask of the queue: whether queries wait (they come first), and to start them. */
export interface PartsQueue {
  waiting(): number;
  pump(): void;
}

export class Parts {
  constructor(
    private readonly pool: WorkerPool,
    private readonly queue: PartsQueue,
    /** Told of each part started on another worker. */
    private readonly onPartStarted: (() => void) | undefined,
  ) {}

  /**
   * Reserves up to `max` idle workers for parts of the query `slot` runs (none while queries wait:
   * they come first). Answered synchronously to the asking worker.
   */
  reserve(slot: Slot, max: number): number {
    const q = slot.query;
    if (!q || q.stopped || this.pool.closing || this.queue.waiting() > 0 || q.helpers.length > 0) return 0;
    const free = this.pool.slots.filter((s) => s !== slot && s.isReady && !s.retired && idle(s));
    q.helpers = free.slice(0, Math.max(0, max));
    for (const h of q.helpers) h.part = { parent: q, call: null, index: -1 };
    return q.helpers.length;
  }

  /** Starts parts of the query `slot` runs on its reserved workers; frees those left over. */
  dispatch(slot: Slot, parts: readonly PartRequest[]): boolean {
    const q = slot.query;
    const helpers = q ? q.helpers : [];
    for (const [i, h] of helpers.entries()) {
      const part = parts[i];
      if (!q || !part || h.part?.parent !== q || h.retired) {
        if (h.part?.parent === q) h.part = null;
        if (part && q) this.forward(slot, q, { callId: q.call.id, index: i, ok: false, error: { kind: 'internal', message: 'a worker running part of this query was lost; run it again' } });
        continue;
      }
      q.partProgress[i] = { done: 0, total: 0 };
      this.onPartStarted?.();
      const state: PartState = { parent: q, call: null, index: i };
      h.part = state;
      const { call, promise } = this.pool.post(h, 'part', [part.operation, part.args, part.shard], {
        onProgress: (done, total) => {
          // a part's progress counts in its query's, while that query runs
          if (h.part !== state || !q.running || q.stopped) return;
          q.partProgress[i] = { done, total };
          report(q.onProgress, progressOf(q));
        },
      });
      state.call = call;
      promise
        .then(
          (v) => this.forward(slot, q, { callId: q.call.id, index: i, ok: true, result: v as EncodedResult }),
          (e: TickscopeError) => this.forward(slot, q, { callId: q.call.id, index: i, ok: false, error: { kind: e.kind, message: e.message } }),
        )
        .finally(() => {
          if (h.part === state) h.part = null;
          this.queue.pump();
        });
    }
    if (q) q.helpers = helpers.filter((h) => h.part?.parent === q);
    this.queue.pump();
    return true;
  }

  /** A query is over (answered, stopped or lost): its parts still running stop, reserved workers are freed. */
  end(q: QueryState): void {
    for (const h of q.helpers) {
      const part = h.part;
      if (part?.parent !== q) continue;
      if (part.call) this.pool.stop(h, part.call.id);
      else h.part = null;
    }
    q.helpers = [];
  }

  /** Hands a part's result to the worker running its query (dropped once that query is over). */
  private forward(slot: Slot, q: QueryState, r: PartResult): void {
    const line = slot.partsPort;
    if (slot.query !== q || slot.retired || !line) return;
    line.port.postMessage(r, r.ok ? transferables(r.result) : []);
    Atomics.add(line.signal, 0, 1);
    Atomics.notify(line.signal, 0);
  }
}
