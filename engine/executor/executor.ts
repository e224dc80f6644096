/**
 * The executor: queries run on worker threads, never on the thread that serves HTTP, Electron IPC or
 * q IPC (it only dispatches and relays). One executor per process (SPEC 10 settings), a front over
 * its pieces: the worker threads and their spare (pool.ts), the column store they share
 * (column-store.ts), the queue with its cancels and timeouts (queue.ts), the parts of split queries
 * (parts.ts) and the results the workers hold (results.ts). Each worker holds the results of the
 * queries it ran; paging, charting, Arrow and CSV of a result run in its worker too.
 */
import type { MountSpec } from '../storage/mount.js';
import type { ChartRequest, ExportFormat, Header, PageResponse, RunResponse } from '../contract.js';
import type { TickscopeError } from '../core/errors.js';
import type { QueryResult } from '../core/result.js';
import { errorEnvelope, requestInfo } from '../output/envelope.js';
import { decodeResult, type EncodedResult } from '../parallel/transfer.js';
import type { EnvelopeAnswer, EnvelopeRequest } from '../session/envelope.js';
import type { ImportRequest, PreviewRequest } from '../session/import.js';
import type { ImportPreview, ImportReportInfo } from '../storage/import-types.js';
import type { RemoteResultMeta } from '../session/remote-result.js';
import type { Progress } from './calls.js';
import { ColumnStore } from './column-store.js';
import { Parts } from './parts.js';
import { type StartWorker, WorkerPool, workerScript } from './pool.js';
import { QueryQueue, type RunOptions } from './queue.js';
import { HeldResults } from './results.js';
import type { ProcessSettings } from './settings.js';

export { CANCEL_GRACE_MS, type RunOptions } from './queue.js';
export type { Progress } from './calls.js';
export { workerScript };

/** What an executor is made with besides its databases and settings (defaults: what a process runs). */
export interface ExecutorOptions {
  /** The query worker script (default the built executor-worker.cjs). */
  readonly script?: string;
  /** Starts one worker thread (default `new Worker`): a test wraps it to watch its threads, or to crash or end one. */
  readonly startWorker?: StartWorker;
  /** The column store the workers share (default a new one bounded by settings.cacheBytes). */
  readonly store?: ColumnStore;
  /** Told of each part of a split query started on another worker. */
  readonly onPartStarted?: () => void;
}

/** The gateway's rendered response (EnvelopeAnswer), or the error and its envelope's header. */
export type EnvelopeResponse = { readonly ok: true; readonly answer: EnvelopeAnswer } | { readonly ok: false; readonly header: Header; readonly error: TickscopeError };

/** A worker's answer to a call that is not a query (an import, its preview), or its error. */
export type Answer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: TickscopeError };

/** A result taken whole by the caller, or the error envelope's header. */
export type CallResponse = { readonly ok: true; readonly result: QueryResult } | { readonly ok: false; readonly header: Header };

export class Executor {
  private readonly pool: WorkerPool;
  private readonly store: ColumnStore;
  private readonly parts: Parts;
  private readonly queue: QueryQueue;
  private readonly results: HeldResults;

  private constructor(
    dbs: readonly MountSpec[],
    readonly settings: ProcessSettings,
    options: ExecutorOptions,
  ) {
    this.store = options.store ?? new ColumnStore(settings.cacheBytes);
    this.pool = new WorkerPool(
      dbs,
      settings,
      {
        // a worker's synchronous asks: the shared column store, or workers for the parts of its query
        line: (slot, req) => (req.op === 'reserve' ? this.parts.reserve(slot, req.max) : req.op === 'parts' ? this.parts.dispatch(slot, req.parts) : this.store.answer(req)),
        lost: (slot) => {
          this.results.forget(slot);
          this.queue.drop(slot);
        },
        free: () => this.queue.pump(),
      },
      options.script,
      options.startWorker,
    );
    this.parts = new Parts(this.pool, { waiting: () => this.queue.waiting, pump: () => this.queue.pump() }, options.onPartStarted);
    this.queue = new QueryQueue(this.pool, this.parts, settings);
    this.results = new HeldResults(this.pool);
  }

  /** Starts the workers over these database folders (or mounts); resolves once they have opened them. */
  static async start(dbs: ReadonlyArray<string | MountSpec>, settings: ProcessSettings, options: ExecutorOptions = {}): Promise<Executor> {
    const ex = new Executor(
      dbs.map((d) => (typeof d === 'string' ? { dir: d } : d)),
      settings,
      options,
    );
    await ex.pool.start();
    return ex;
  }

  /** The databases the workers open (in the order mounted). */
  get dbs(): readonly MountSpec[] {
    return this.pool.mounts;
  }

  /**
   * Mounts a database on every worker (and those started later). The caller has opened it already
   * (its errors said there); a worker that fails to open it answers its queries on it with the error.
   */
  mount(spec: MountSpec): void {
    this.pool.mount(spec);
  }

  /** Unmounts a database (its assembly name and folder) on every worker; results held from it stay until released. */
  unmount(name: string, dir: string): void {
    this.pool.unmount(name, dir);
  }

  /**
   * Rows a query will read, estimated on this thread from partition metadata (QueryService sets it);
   * without one every query waits in arrival order.
   */
  get estimator(): ((operation: string, args: unknown) => number) | null {
    return this.queue.estimator;
  }

  set estimator(e: ((operation: string, args: unknown) => number) | null) {
    this.queue.estimator = e;
  }

  /** Runs an operation on a worker; the result stays there (by its resultId) for paging, charts and exports. */
  run(operation: string, args: unknown, opts: RunOptions = {}): Promise<RunResponse> {
    const req = requestInfo(operation);
    return this.queue.submit<RunResponse>(
      { method: 'run', operation, args, done: (v, slot) => this.results.keep(v as RunResponse, slot), failed: (e) => ({ ok: false, header: errorEnvelope(req, e).header }) },
      opts,
    );
  }

  /**
   * Runs an operation on a worker and hands its whole result to this thread (its columns transferred,
   * not copied): for a caller that renders or streams it itself (the gateway, the bench).
   */
  call(operation: string, args: unknown, opts: RunOptions = {}): Promise<CallResponse> {
    const req = requestInfo(operation);
    return this.queue.submit<CallResponse>(
      { method: 'call', operation, args, done: (v) => ({ ok: true, result: decodeResult(v as EncodedResult) }), failed: (e) => ({ ok: false, header: errorEnvelope(req, e).header }) },
      opts,
    );
  }

  /**
   * Runs an operation for the gateway and renders its response in the worker (SPEC 7): JSON envelope
   * text streamed to `onChunk` (the header first; the answer then carries the header alone), or
   * Arrow IPC bytes with the header in the schema's metadata. A failure answers the error's header
   * (nothing was streamed).
   */
  envelope(operation: string, args: unknown, request: EnvelopeRequest, onChunk: (bytes: Uint8Array) => void | Promise<void>, opts: RunOptions = {}): Promise<EnvelopeResponse> {
    return this.queue.submit<EnvelopeResponse>(
      {
        method: 'envelope',
        operation,
        args,
        extra: [request],
        onChunk,
        done: (v) => ({ ok: true as const, answer: v as EnvelopeAnswer }),
        failed: (e) => ({ ok: false as const, header: errorEnvelope(request.req, e).header, error: e }),
      },
      opts,
    );
  }

  /** Keeps a remote gateway's Arrow answer in a worker as a result (paging, charts, exports as for local ones). */
  hold(bytes: Uint8Array, meta: RemoteResultMeta, opts: RunOptions = {}): Promise<RunResponse> {
    const req = requestInfo(meta.api, meta.header?.corr);
    return this.queue.submit<RunResponse>(
      {
        method: 'hold',
        operation: meta.api,
        args: bytes,
        extra: [meta],
        done: (v, slot) => this.results.keep(v as RunResponse, slot),
        failed: (e) => ({ ok: false, header: errorEnvelope(req, e).header }),
      },
      opts,
    );
  }

  /**
   * Imports files on a worker as a mapping says (Import…, issue 30), queued as a query: progress(queryId)
   * tells the files read, cancel(queryId) stops it before its write (nothing written); once written,
   * its report is the answer however late a cancel came. No timeout unless one is given.
   */
  importFiles(request: ImportRequest, opts: RunOptions = {}): Promise<Answer<ImportReportInfo>> {
    return this.queue.submit<Answer<ImportReportInfo>>(
      { method: 'import', operation: 'import', args: request, done: (v) => ({ ok: true, value: v as ImportReportInfo }), failed: (error) => ({ ok: false, error }) },
      { timeoutMs: 0, ...opts },
    );
  }

  /** Import…'s preview (it reads the files) on a worker. */
  previewImport(request: PreviewRequest, opts: RunOptions = {}): Promise<Answer<ImportPreview>> {
    return this.queue.submit<Answer<ImportPreview>>(
      { method: 'preview', operation: 'preview', args: request, done: (v) => ({ ok: true, value: v as ImportPreview }), failed: (error) => ({ ok: false, error }) },
      opts,
    );
  }

  /** Opens a database again on every worker (Import… added a table to its schema). */
  reopen(dir: string): void {
    this.pool.reopen(dir);
  }

  /** Cancels a query or an export by its id; false when no such query is queued or running. */
  cancel(queryId: string): boolean {
    return this.results.cancel(queryId) || this.queue.cancel(queryId);
  }

  /** Where a query or an export stands, or undefined when it is not queued or running. */
  progress(queryId: string): Progress | undefined {
    return this.results.progress(queryId) ?? this.queue.progress(queryId);
  }

  page(resultId: unknown, offset: unknown, limit: unknown, form?: unknown): Promise<PageResponse> {
    return this.results.page(resultId, offset, limit, form);
  }

  /** A held result sorted where it is held (a new result id there; the request is not run again). */
  sort(resultId: unknown, sortCols: unknown): Promise<RunResponse> {
    return this.results.sort(resultId, sortCols);
  }

  chart(req: ChartRequest): Promise<Uint8Array> {
    return this.results.chart(req);
  }

  table(resultId: unknown): Promise<Uint8Array> {
    return this.results.table(resultId);
  }

  /** A result as CSV, chunk by chunk, rendered in its worker. */
  csv(resultId: unknown): AsyncGenerator<Uint8Array, void, void> {
    return this.results.exportFile(resultId, 'csv');
  }

  /**
   * A result as a CSV, Arrow IPC or Parquet file, chunk by chunk, rendered in its worker. With an
   * `exportId`, progress(exportId) tells the rows written so far and cancel(exportId) stops it (the
   * reader then gets the cancelled error); a reader that stops early stops the worker too.
   */
  exportFile(resultId: unknown, format: ExportFormat, exportId?: string): AsyncGenerator<Uint8Array, void, void> {
    return this.results.exportFile(resultId, format, exportId);
  }

  /** True while the result is held by a worker. */
  holds(resultId: string): boolean {
    return this.results.holds(resultId);
  }

  /** Queries queued or running, and results held (the load script checks they go back down). */
  get queriesHeld(): number {
    return this.queue.size + this.results.size;
  }

  /** Queries running now (for status lines and tests). */
  get runningQueries(): number {
    return this.queue.running();
  }

  async close(): Promise<void> {
    this.pool.closing = true;
    this.queue.close();
    await this.pool.close();
  }
}
