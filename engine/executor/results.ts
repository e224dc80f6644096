/**
 * The results the workers hold, by the worker that holds each: a result stays where its query ran
 * (the worker's Session), and paging, sorting, charts, Arrow tables and exports of it run there. An
 * export streams chunk by chunk, its worker held back while the reader has not taken them; with an
 * id, it reports its rows written and can be cancelled.
 */
import type { ChartRequest, ExportFormat, PageResponse, RunResponse } from '../contract.js';
import { TickscopeError } from '../core/errors.js';
import type { Call, Progress, Slot } from './calls.js';
import type { WorkerPool } from './pool.js';

/** An export being written: its call (to cancel it) and where it stands. */
interface ExportState {
  readonly call: Call;
  readonly slot: Slot;
  readonly started: number;
  done: number;
  total: number;
  unit: string;
}

export class HeldResults {
  /** The worker holding each result. */
  private readonly where = new Map<string, Slot>();
  /** Exports being written, by the id their caller gave them (for progress and cancel). */
  private readonly exports = new Map<string, ExportState>();

  constructor(private readonly pool: WorkerPool) {}

  /** Records where a query's result is held (when it ran); returns the answer. */
  keep(r: RunResponse, slot: Slot): RunResponse {
    if (r.ok) this.where.set(r.resultId, slot);
    return r;
  }

  /** True while the result is held by a worker. */
  holds(resultId: string): boolean {
    return this.where.has(resultId);
  }

  /** Results held and exports being written. */
  get size(): number {
    return this.where.size + this.exports.size;
  }

  /** A worker is gone: the results it held are too. */
  forget(slot: Slot): void {
    for (const [id, s] of this.where) if (s === slot) this.where.delete(id);
  }

  async page(resultId: unknown, offset: unknown, limit: unknown, form?: unknown): Promise<PageResponse> {
    return this.pool.post(this.slotOf(resultId), 'page', [resultId, offset, limit, form]).promise as Promise<PageResponse>;
  }

  /** A held result sorted where it is held (a new result id there; the request is not run again). */
  async sort(resultId: unknown, sortCols: unknown): Promise<RunResponse> {
    const slot = this.slotOf(resultId);
    return this.keep((await this.pool.post(slot, 'sort', [resultId, sortCols]).promise) as RunResponse, slot);
  }

  async chart(req: ChartRequest): Promise<Uint8Array> {
    return this.pool.post(this.slotOf(req.resultId), 'chart', [req]).promise as Promise<Uint8Array>;
  }

  async table(resultId: unknown): Promise<Uint8Array> {
    return this.pool.post(this.slotOf(resultId), 'table', [resultId]).promise as Promise<Uint8Array>;
  }

  /** Where an export stands, or undefined when no export of that id is being written. */
  progress(exportId: string): Progress | undefined {
    const e = this.exports.get(exportId);
    return e && { state: 'running', done: e.done, total: e.total, unit: e.unit, elapsedMs: performance.now() - e.started };
  }

  /** Stops an export at its worker's next checkpoint (it fails as cancelled); false when none has that id. */
  cancel(exportId: string): boolean {
    const e = this.exports.get(exportId);
    if (!e) return false;
    this.stopCall(e.slot, e.call);
    return true;
  }

  /**
   * A result as a CSV, Arrow IPC or Parquet file, chunk by chunk, rendered in its worker. With an
   * `exportId`, progress(exportId) tells the rows written so far and cancel(exportId) stops it (the
   * reader then gets the cancelled error); a reader that stops early stops the worker too.
   */
  async *exportFile(resultId: unknown, format: ExportFormat, exportId?: string): AsyncGenerator<Uint8Array, void, void> {
    // each chunk is "taken" when the reader pulls it: the worker stays at most FLOW_WINDOW ahead
    const chunks: Array<{ readonly bytes: Uint8Array; readonly taken: () => void }> = [];
    let wake: (() => void) | null = null;
    let finished = false;
    let failure: unknown = null;
    const slot = this.slotOf(resultId);
    const { call, promise } = this.pool.post(slot, format, [resultId], {
      onChunk: (bytes) =>
        new Promise<void>((taken) => {
          chunks.push({ bytes, taken });
          wake?.();
        }),
    });
    if (exportId !== undefined) {
      const state: ExportState = { call, slot, started: performance.now(), done: 0, total: 0, unit: 'rows' };
      call.onProgress = (done, total, unit) => Object.assign(state, { done, total, unit });
      this.exports.set(exportId, state);
      void promise.then(
        () => this.exports.delete(exportId),
        () => this.exports.delete(exportId),
      );
    }
    promise.then(
      () => {
        finished = true;
        wake?.();
      },
      (e: unknown) => {
        failure = e;
        finished = true;
        wake?.();
      },
    );
    const next = (): Uint8Array => {
      const c = chunks.shift()!;
      c.taken();
      return c.bytes;
    };
    try {
      for (;;) {
        while (chunks.length) yield next();
        if (finished) break;
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
      while (chunks.length) yield next();
    } finally {
      // a reader that stops early releases the worker and stops its rendering
      if (!finished) this.stopCall(slot, call);
      for (const c of chunks.splice(0)) c.taken();
    }
    if (failure) throw failure;
  }

  private slotOf(resultId: unknown): Slot {
    const slot = typeof resultId === 'string' ? this.where.get(resultId) : undefined;
    if (!slot) throw new TickscopeError('badRequest', `resultId: ${JSON.stringify(resultId)} is not a result held here; run the query again`);
    return slot;
  }

  /** Stops a call that is not a query (an export) at its worker's next checkpoint: it fails as cancelled. */
  private stopCall(slot: Slot, call: Call): void {
    if (slot.calls.has(call.id)) this.pool.stop(slot, call.id);
  }
}
