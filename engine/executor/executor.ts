/**
 * The executor: queries run on worker threads, never on the thread that serves HTTP, Electron IPC or
 * q IPC (it only dispatches and relays). One executor per process (SPEC 10 settings). Each worker
 * holds the results of the queries it ran; paging, charting, Arrow and CSV of a result run in its
 * worker too. Queries queue in order (at most maxRunningQueries running, maxQueuedQueries waiting,
 * then busy); each can be cancelled by its id or by its timeout (counted from receipt), which stops
 * it at its next checkpoint, or, if it does not stop within CANCEL_GRACE_MS, ends its worker (a new
 * one takes its place). A worker that crashes fails only its own calls.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import type { ChartRequest, ExportFormat, Header, PageResponse, QueryProgress, RunResponse } from '../contract.js';
import { checkValueBounds } from '../core/bounded-input.js';
import { asTickscopeError, type ErrorKindName, TickscopeError } from '../core/errors.js';
import { errorEnvelope, requestInfo } from '../output/envelope.js';
import { ROW_BLOCK } from '../storage/shared-store.js';
import type { PartRequest } from '../core/query-hooks.js';
import type { QueryResult } from '../core/result.js';
import type { RemoteResultMeta } from '../session/remote-result.js';
import { decodeResult, type EncodedResult, transferables } from '../parallel/transfer.js';
import { builtScript } from '../parallel/built-script.js';
import { CANCELLED, type CallMessage, type EnvelopeAnswer, type EnvelopeRequest, type PartResult, type PartsLine, type StoreLine, type StoreRequest, TIMED_OUT, type WorkerInit, type WorkerMessage, type WorkerMethod } from './protocol.js';
import type { ProcessSettings } from './settings.js';

/** How long a cancelled query may run on before its worker is ended. */
export const CANCEL_GRACE_MS = 250;

export type Progress = QueryProgress;

/** The gateway's rendered response (EnvelopeAnswer), or the error and its envelope's header. */
export type EnvelopeResponse = { readonly ok: true; readonly answer: EnvelopeAnswer } | { readonly ok: false; readonly header: Header; readonly error: TickscopeError };

/** A result taken whole by the caller, or the error envelope's header. */
export type CallResponse = { readonly ok: true; readonly result: QueryResult } | { readonly ok: false; readonly header: Header };

export interface RunOptions {
  /** The caller's id for the query (for cancel and progress); default a fresh one. */
  readonly queryId?: string;
  /** ms from receipt; default the settings' queryTimeoutMs (0: none). */
  readonly timeoutMs?: number;
  readonly onProgress?: (p: Progress) => void;
}

interface Call {
  readonly id: number;
  readonly method: WorkerMethod;
  readonly params: readonly unknown[];
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: TickscopeError) => void;
  /** Takes a streamed chunk; a promise holds the worker back until it settles (the reader is slow). */
  readonly onChunk?: (bytes: Uint8Array) => void | Promise<void>;
  /** Takes a progress report of a call that is not a query (an export). */
  onProgress?: (done: number, total: number, unit: string) => void;
  slot?: Slot;
}

/**
 * Tells a worker to stop call `callId` at its next checkpoint (`why`: CANCELLED or TIMED_OUT), and
 * wakes it if it waits for its reader to take a chunk (it checks the flags at each wake).
 */
function flagStop(slot: Slot, callId: number, why: number): void {
  Atomics.store(slot.flags, 1, why);
  Atomics.store(slot.flags, 0, callId);
  Atomics.notify(slot.flowCount, 0);
}

/** An export being written: its call (to cancel it) and where it stands. */
interface ExportState {
  readonly call: Call;
  readonly slot: Slot;
  readonly started: number;
  done: number;
  total: number;
  unit: string;
}

interface QueryState {
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
interface PartState {
  readonly parent: QueryState;
  /** The part's call, once dispatched. */
  call: Call | null;
  index: number;
}

interface Slot {
  worker: Worker;
  readonly flags: Int32Array;
  /** Chunks of the running call taken by the caller (the worker's flow control). */
  readonly flowCount: Int32Array;
  /** What its workers start with (each also gets its own store line). */
  readonly init: WorkerInit;
  readonly calls: Map<number, Call>;
  /** The query running here, if any. */
  query: QueryState | null;
  ready: Promise<void>;
  /** Resolved once the worker has opened its databases. */
  isReady: boolean;
  /** Replaced by the spare after its worker was lost: ignore its worker's last events. */
  retired?: boolean;
  /** The part of another query this worker runs or is reserved for. */
  part: PartState | null;
  /** Where results of the parts of this worker's query go (this side of its parts line). */
  partsPort?: { readonly port: MessagePort; readonly signal: Int32Array };
}

/** The built query worker script (see builtScript). */
export function workerScript(): string {
  return builtScript('executor-worker.cjs');
}

/** One shared buffer set of the store: a column file (bytes and loaded blocks) or a whole file. */
interface StoreEntry {
  readonly value: { data: SharedArrayBuffer; loaded: SharedArrayBuffer } | Uint8Array;
  /** Bytes per row block (columns), for counting what is loaded. */
  readonly blockBytes: number;
  used: number;
}

export class Executor {
  private readonly slots: Slot[] = [];
  /**
   * The column files the workers have opened, by path: each worker that opens one gets the same
   * SharedArrayBuffers (partition folders never change, so a file's bytes are the same for all).
   * Least recently asked entries go first past cacheBytes; a worker still holding one keeps it.
   */
  private readonly store = new Map<string, StoreEntry>();
  /**
   * A started worker kept in reserve: when a worker is ended (a query that would not stop, a crash),
   * the spare takes its place at once, so the next query does not wait for a worker to start.
   */
  private spare: Slot | null = null;
  private readonly queue: QueryState[] = [];
  private readonly queries = new Map<string, QueryState>();
  private readonly resultSlot = new Map<string, Slot>();
  /** Exports being written, by the id their caller gave them (for progress and cancel). */
  private readonly exports = new Map<string, ExportState>();
  private nextId = 1;
  private closing = false;
  /**
   * Rows a query will read, estimated on this thread from partition metadata (QueryService sets it);
   * without one every query waits in arrival order.
   */
  estimator: ((operation: string, args: unknown) => number) | null = null;

  private constructor(
    readonly dbs: readonly string[],
    readonly settings: ProcessSettings,
    private readonly script: string,
  ) {}

  /** Starts the workers over these database folders; resolves once they have opened them. */
  static async start(dbs: readonly string[], settings: ProcessSettings, script = workerScript()): Promise<Executor> {
    const ex = new Executor(dbs, settings, script);
    for (let i = 0; i < settings.workers; i++) ex.slots.push(ex.spawn());
    await Promise.all(ex.slots.map((s) => s.ready));
    ex.spare = ex.spawn();
    return ex;
  }

  private spawn(): Slot {
    const cancel = new SharedArrayBuffer(8);
    const flow = new SharedArrayBuffer(8);
    const init: WorkerInit = { dbs: this.dbs, settings: this.settings, cancel, flow };
    const slot: Slot = { worker: undefined as unknown as Worker, flags: new Int32Array(cancel), flowCount: new Int32Array(flow), init, calls: new Map(), query: null, ready: Promise.resolve(), isReady: false, part: null };
    this.attach(slot);
    return slot;
  }

  /** A new synchronous line from a worker to the store and the executor (each worker gets its own). */
  private storeLine(slot: Slot): StoreLine {
    const channel = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    const sig = new Int32Array(signal);
    channel.port1.on('message', (req: StoreRequest) => {
      const value = req.op === 'reserve' ? this.reserve(slot, req.max) : req.op === 'parts' ? this.dispatch(slot, req.parts) : this.answer(req);
      channel.port1.postMessage({ value });
      Atomics.store(sig, 0, 1);
      Atomics.notify(sig, 0);
    });
    channel.port1.unref();
    return { port: channel.port2, signal };
  }

  /** Parts of split queries started on other workers (tests check that a query did split). */
  partsRun = 0;

  /** Answers that handed a worker buffers another worker had already opened or read. */
  storeHits = 0;

  /** Entries the store holds. */
  get storeEntries(): number {
    return this.store.size;
  }

  /**
   * The store's answer to a worker: a lookup, or the first copy put (workers allocate and read; this
   * thread only keeps references).
   */
  private answer(req: Exclude<StoreRequest, { op: 'reserve' | 'parts' }>): unknown {
    const now = performance.now();
    const hit = this.store.get(req.key);
    const isColumn = req.op === 'column' || req.op === 'putColumn';
    if (hit && isColumn === !(hit.value instanceof Uint8Array)) {
      // an open column or a file read before (asked for, or put by a worker that read it meanwhile)
      this.storeHits++;
      hit.used = now;
      return hit.value;
    }
    if (req.op === 'column' || req.op === 'file') return null;
    const entry: StoreEntry =
      req.op === 'putColumn'
        ? { value: { data: req.data, loaded: req.loaded }, blockBytes: ROW_BLOCK * req.width, used: now }
        : { value: req.bytes, blockBytes: 0, used: now };
    this.store.set(req.key, entry);
    if (++this.added % 16 === 0) this.trim();
    return entry.value;
  }

  private added = 0;

  /** Bytes the store holds in memory: whole files, and the loaded blocks of columns. */
  storeBytes(): number {
    let total = 0;
    for (const e of this.store.values()) total += entryBytes(e);
    return total;
  }

  /** Forgets the least recently asked entries past cacheBytes (workers holding them keep them). */
  private trim(): void {
    if (this.store.size < 64) return;
    const sized = [...this.store].map(([key, e]) => ({ key, used: e.used, bytes: entryBytes(e) }));
    let total = sized.reduce((s, x) => s + x.bytes, 0);
    if (total <= this.settings.cacheBytes) return;
    for (const x of sized.sort((a, b) => a.used - b.used)) {
      if (total <= this.settings.cacheBytes * 0.9) break;
      this.store.delete(x.key);
      total -= x.bytes;
    }
  }

  private attach(slot: Slot): void {
    // each worker (a replacement too) gets a store line and a parts line of its own
    const store = this.storeLine(slot);
    const channel = new MessageChannel();
    const parts: PartsLine = { port: channel.port2, signal: new SharedArrayBuffer(4) };
    slot.partsPort = { port: channel.port1, signal: new Int32Array(parts.signal) };
    channel.port1.unref();
    const worker = new Worker(this.script, { workerData: { ...slot.init, store, parts }, transferList: [store.port, parts.port] });
    slot.worker = worker;
    let readyResolve!: () => void;
    let readyReject!: (e: unknown) => void;
    slot.isReady = false;
    slot.ready = new Promise((res, rej) => {
      readyResolve = () => {
        slot.isReady = true;
        res();
      };
      readyReject = rej;
    });
    // a worker that fails before it is ready must not leave an unhandled rejection behind
    slot.ready.catch(() => undefined);
    worker.on('message', (m: WorkerMessage) => {
      if (m.kind === 'ready') return readyResolve();
      const call = slot.calls.get(m.id);
      if (!call) return undefined;
      if (m.kind === 'progress') {
        const part = slot.part;
        if (part && part.call === call && part.parent.running && !part.parent.stopped) {
          part.parent.partProgress[part.index] = { done: m.done, total: m.total };
          report(part.parent.onProgress, this.progressOf(part.parent));
          return undefined;
        }
        const q = slot.query;
        if (q && q.call === call) {
          q.done = m.done;
          q.total = m.total;
          q.unit = m.unit;
          report(q.onProgress, this.progressOf(q));
        }
        try {
          call.onProgress?.(m.done, m.total, m.unit);
        } catch {
          // a progress listener's failure is the listener's; the call goes on
        }
        return undefined;
      }
      if (m.kind === 'chunk') {
        const taken = (): void => {
          Atomics.add(slot.flowCount, 0, 1);
          Atomics.notify(slot.flowCount, 0);
        };
        let r: void | Promise<void>;
        try {
          r = call.onChunk?.(m.bytes);
        } catch (e) {
          // the caller could not take the chunk (its renderer or connection failed): stop the call
          // here, never let the throw escape into this thread's event loop
          if (process.env['TICKSCOPE_DEBUG']) console.error(e);
          flagStop(slot, call.id, CANCELLED);
          r = undefined;
        }
        if (r instanceof Promise) void r.then(taken, taken);
        else taken();
        return undefined;
      }
      slot.calls.delete(m.id);
      settle(call, m.kind === 'done' ? { value: m.value } : { error: new TickscopeError(m.error.kind, m.error.message) });
      return undefined;
    });
    worker.on('error', (e) => {
      readyReject(e);
      this.lost(slot, worker, `the query worker failed: ${e.message}`);
    });
    worker.on('exit', (code) => {
      if (!this.closing && slot.worker === worker) this.lost(slot, worker, `the query worker exited (code ${code})`);
    });
  }

  /** A worker died (a crash, out of memory, or ended on cancel): its calls fail, a new worker takes its place. */
  private lost(slot: Slot, worker: Worker, why: string, kind: ErrorKindName = 'internal'): void {
    if (slot.worker !== worker || slot.retired) return;
    if (slot === this.spare) {
      // the reserve itself failed (running a small query of the express lane, or idle): its calls
      // fail, another starts
      slot.retired = true;
      const q = slot.query;
      slot.query = null;
      const calls = [...slot.calls.values()];
      slot.calls.clear();
      for (const c of calls) c.reject(new TickscopeError(q && c === q.call && q.stopped ? q.stopped : kind, q && c === q.call && q.stopped ? stoppedMessage(q.stopped) : `${why}; the query was not completed; run it again`));
      this.spare = this.closing ? null : this.spawn();
      if (q) this.pump();
      return;
    }
    const calls = [...slot.calls.values()];
    slot.calls.clear();
    for (const [id, s] of this.resultSlot) if (s === slot) this.resultSlot.delete(id);
    const q = slot.query;
    slot.query = null;
    if (q) this.endParts(q);
    for (const c of calls) c.reject(new TickscopeError(q && c === q.call && q.stopped ? q.stopped : kind, q && c === q.call && q.stopped ? stoppedMessage(q.stopped) : `${why}; the query was not completed (its results are gone); run it again`));
    Atomics.store(slot.flags, 0, 0);
    Atomics.store(slot.flags, 1, 0);
    if (this.closing) return;
    const spare = this.spare;
    if (spare?.isReady) {
      // the spare takes the lost worker's place now; a new spare starts in the background
      slot.retired = true;
      void worker.terminate();
      this.slots[this.slots.indexOf(slot)] = spare;
      this.spare = this.spawn();
      this.pump();
      return;
    }
    this.attach(slot);
    void slot.ready.then(() => this.pump(), () => undefined);
  }

  private post(slot: Slot, method: WorkerMethod, params: readonly unknown[], onChunk?: (bytes: Uint8Array) => void | Promise<void>): { call: Call; promise: Promise<unknown> } {
    let call!: Call;
    const promise = new Promise<unknown>((resolve, reject) => {
      call = { id: this.nextId++, method, params, resolve, reject, ...(onChunk ? { onChunk } : {}), slot };
    });
    slot.calls.set(call.id, call);
    try {
      slot.worker.postMessage({ kind: 'call', id: call.id, method, params } satisfies CallMessage);
    } catch (e) {
      slot.calls.delete(call.id);
      call.reject(unsendable(e));
    }
    return { call, promise };
  }

  private progressOf(q: QueryState): Progress {
    let done = q.done;
    let total = q.total;
    for (const p of q.partProgress) {
      done += p.done;
      total += p.total;
    }
    return { state: q.running ? 'running' : 'queued', done, total, unit: q.unit, elapsedMs: performance.now() - q.received };
  }

  /**
   * Reserves up to `max` idle workers for parts of the query `slot` runs (none while queries wait:
   * they come first). Answered synchronously to the asking worker.
   */
  private reserve(slot: Slot, max: number): number {
    const q = slot.query;
    if (!q || q.stopped || this.closing || this.queue.length > 0 || q.helpers.length > 0) return 0;
    const idle = this.slots.filter((s) => s !== slot && s.isReady && !s.retired && s.query === null && s.part === null && s.calls.size === 0);
    q.helpers = idle.slice(0, Math.max(0, max));
    for (const h of q.helpers) h.part = { parent: q, call: null, index: -1 };
    return q.helpers.length;
  }

  /** Starts parts of the query `slot` runs on its reserved workers; frees those left over. */
  private dispatch(slot: Slot, parts: readonly PartRequest[]): boolean {
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
      this.partsRun++;
      const { call, promise } = this.post(h, 'part', [part.operation, part.args, part.shard]);
      h.part = { parent: q, call, index: i };
      promise.then(
        (v) => this.forward(slot, q, { callId: q.call.id, index: i, ok: true, result: v as EncodedResult }),
        (e: TickscopeError) => this.forward(slot, q, { callId: q.call.id, index: i, ok: false, error: { kind: e.kind, message: e.message } }),
      ).finally(() => {
        if (h.part?.call === call) h.part = null;
        this.pump();
      });
    }
    if (q) q.helpers = helpers.filter((h) => h.part?.parent === q);
    this.pump();
    return true;
  }

  /** Hands a part's result to the worker running its query (dropped once that query is over). */
  private forward(slot: Slot, q: QueryState, r: PartResult): void {
    const line = slot.partsPort;
    if (slot.query !== q || slot.retired || !line) return;
    line.port.postMessage(r, r.ok ? transferables(r.result) : []);
    Atomics.add(line.signal, 0, 1);
    Atomics.notify(line.signal, 0);
  }

  /** A query is over (answered, stopped or lost): its parts still running stop, reserved workers are freed. */
  private endParts(q: QueryState): void {
    for (const h of q.helpers) {
      const part = h.part;
      if (part?.parent !== q) continue;
      if (part.call) flagStop(h, part.call.id, CANCELLED);
      else h.part = null;
    }
    q.helpers = [];
  }

  /** Runs an operation on a worker; the result stays there (by its resultId) for paging, charts and exports. */
  run(operation: string, args: unknown, opts: RunOptions = {}): Promise<RunResponse> {
    const req = requestInfo(operation);
    return this.submit<RunResponse>('run', operation, args, opts, (v, slot) => {
      const r = v as RunResponse;
      if (r.ok) this.resultSlot.set(r.resultId, slot);
      return r;
    }, (e) => ({ ok: false, header: errorEnvelope(req, e).header }));
  }

  /**
   * Runs an operation on a worker and hands its whole result to this thread (its columns transferred,
   * not copied): for a caller that renders or streams it itself (the gateway, the bench).
   */
  call(operation: string, args: unknown, opts: RunOptions = {}): Promise<CallResponse> {
    const req = requestInfo(operation);
    return this.submit<CallResponse>('call', operation, args, opts, (v) => ({ ok: true, result: decodeResult(v as EncodedResult) }), (e) => ({ ok: false, header: errorEnvelope(req, e).header }));
  }

  /**
   * Runs an operation for the gateway and renders its response in the worker (SPEC 7): JSON envelope
   * text streamed to `onChunk` (the header first; the answer then carries the header alone), or
   * Arrow IPC bytes with the header in the schema's metadata. A failure answers the error's header
   * (nothing was streamed).
   */
  envelope(operation: string, args: unknown, request: EnvelopeRequest, onChunk: (bytes: Uint8Array) => void | Promise<void>, opts: RunOptions = {}): Promise<EnvelopeResponse> {
    return this.submit<EnvelopeResponse>(
      'envelope',
      operation,
      args,
      opts,
      (v) => ({ ok: true as const, answer: v as EnvelopeAnswer }),
      (e) => ({ ok: false as const, header: errorEnvelope(request.req, e).header, error: e }),
      [request],
      onChunk,
    );
  }

  /** Keeps a remote gateway's Arrow answer in a worker as a result (paging, charts, exports as for local ones). */
  hold(bytes: Uint8Array, meta: RemoteResultMeta, opts: RunOptions = {}): Promise<RunResponse> {
    const req = requestInfo(meta.api, meta.header?.corr);
    return this.submit<RunResponse>(
      'hold',
      meta.api,
      bytes,
      opts,
      (v, slot) => {
        const r = v as RunResponse;
        if (r.ok) this.resultSlot.set(r.resultId, slot);
        return r;
      },
      (e) => ({ ok: false, header: errorEnvelope(req, e).header }),
      [meta],
    );
  }

  /** Queues a query (run, call, envelope or hold) and answers with `done` of its value, or `failed` of its error. */
  private submit<T>(
    method: 'run' | 'call' | 'envelope' | 'hold',
    operation: string,
    args: unknown,
    opts: RunOptions,
    done: (v: unknown, slot: Slot) => T,
    failed: (e: TickscopeError) => T,
    extra: readonly unknown[] = [],
    onChunk?: (bytes: Uint8Array) => void | Promise<void>,
  ): Promise<T> {
    const queryId = opts.queryId ?? `q${this.nextId}`;
    if (method !== 'hold') {
      // nothing unbounded crosses to a worker (its structured clone recurses): SPEC 10's limits
      try {
        checkValueBounds(args, { maxDepth: this.settings.maxJsonDepth, maxElements: this.settings.maxJsonElements });
      } catch (e) {
        return Promise.resolve(failed(asTickscopeError(e)));
      }
    }
    if (this.queries.has(queryId)) return Promise.resolve(failed(new TickscopeError('badRequest', `queryId: ${JSON.stringify(queryId)} is already running; give each query its own id`)));
    if (this.queue.length >= this.settings.maxQueuedQueries && this.freeSlot() === undefined) {
      return Promise.resolve(failed(new TickscopeError('busy', `busy: ${this.running()} queries running and ${this.queue.length} waiting (maxQueuedQueries ${this.settings.maxQueuedQueries}); retry shortly`)));
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
        id: this.nextId++,
        method,
        params: [operation, args, ...extra],
        ...(onChunk ? { onChunk } : {}),
        resolve: (v) => {
          if (q.graceTimer) clearTimeout(q.graceTimer);
          try {
            if (q.stopped) reply(failed(new TickscopeError(q.stopped, stoppedMessage(q.stopped))));
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
      };
      const q: QueryState = {
        call,
        queryId,
        operation,
        received: performance.now(),
        onProgress: opts.onProgress,
        small: method !== 'hold' && this.isSmall(operation, args),
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
      this.queue.push(q);
      report(opts.onProgress, this.progressOf(q));
      this.pump();
    });
  }

  /** Queries queued or running, and results held (the load script checks they go back down). */
  get queriesHeld(): number {
    return this.queries.size + this.resultSlot.size + this.exports.size;
  }

  /** Queries running now (for status lines and tests). */
  get runningQueries(): number {
    return this.running();
  }

  /** Queries running and not being stopped (a cancelled query still finishing does not count). */
  private running(): number {
    return this.slots.filter((s) => s.query !== null && !s.query.stopped).length;
  }

  private freeSlot(): Slot | undefined {
    if (this.running() >= this.settings.maxRunningQueries) return undefined;
    const idle = this.slots.find((s) => s.query === null && s.part === null && s.calls.size === 0) ?? this.slots.find((s) => s.query === null && s.part === null);
    if (idle) return idle;
    // every worker is busy but one is stopping a cancelled query: the spare runs the next query now
    const spare = this.expressSlot();
    if (spare && this.slots.length <= this.settings.workers && this.slots.some((s) => s.query?.stopped)) {
      this.slots.push(spare);
      this.spare = this.spawn();
      return spare;
    }
    return undefined;
  }

  /** Whether a query is estimated to read at most smallQueryRows rows (only while every worker is busy: it is cheap, but not free). */
  private isSmall(operation: string, args: unknown): boolean {
    const limit = this.settings.smallQueryRows;
    const idle = this.running() < this.settings.maxRunningQueries && this.slots.some((s) => s.query === null && s.part === null);
    if (!limit || !this.estimator || (this.queue.length === 0 && idle)) return false;
    return this.estimator(operation, args) <= limit;
  }

  /**
   * The spare worker, when it may run a small query now (the express lane): ready, idle and not
   * closing. A query estimated small waits for no large one: with every worker busy it runs there,
   * one at a time, on a thread that is otherwise idle (the spare still replaces a lost worker).
   */
  private expressSlot(): Slot | undefined {
    const s = this.spare;
    return s && s.isReady && !s.retired && !this.closing && s.query === null && s.part === null && s.calls.size === 0 ? s : undefined;
  }

  /**
   * The next query to start: the oldest, unless a small one waits and the oldest has not waited
   * largeQueryWaitMs (a small query behind a month of getStats would wait for all of it).
   */
  private next(): number {
    const head = this.queue[0];
    if (!head || head.small || performance.now() - head.received >= this.settings.largeQueryWaitMs) return 0;
    const i = this.queue.findIndex((q) => q.small);
    return i < 0 ? 0 : i;
  }

  /** Starts queued queries on free workers: small ones first, otherwise in arrival order. */
  private pump(): void {
    for (;;) {
      if (this.queue.length === 0) return;
      let slot = this.freeSlot();
      let at = 0;
      if (slot) at = this.next();
      else {
        // every worker busy: a small query whose answer leaves with it (the gateway's, a CLI call;
        // not an app result held for paging) may take the express lane
        const express = this.expressSlot();
        at = express ? this.queue.findIndex((x) => x.small && (x.call.method === 'envelope' || x.call.method === 'call')) : -1;
        if (at < 0) return;
        slot = express!;
      }
      const q = this.queue.splice(at, 1)[0]!;
      slot.query = q;
      q.running = true;
      q.call.slot = slot;
      slot.calls.set(q.call.id, q.call);
      try {
        slot.worker.postMessage({ kind: 'call', id: q.call.id, method: q.call.method, params: q.call.params } satisfies CallMessage);
      } catch (e) {
        // a value the structured clone refuses (uncloneable, or too deep for it): this query fails
        // and its worker is free for the next (release, through reject, pumps again)
        slot.calls.delete(q.call.id);
        q.call.reject(unsendable(e));
        continue;
      }
      report(q.onProgress, this.progressOf(q));
    }
  }

  /** Frees the worker of a finished query and starts the next. */
  private release(q: QueryState): void {
    this.endParts(q);
    const slot = q.call.slot;
    if (slot && slot.query === q) {
      slot.query = null;
      // back to the configured count: the extra worker (it keeps its results) waits as the spare
      if (this.slots.length > this.settings.workers && !this.closing) {
        this.slots.splice(this.slots.indexOf(slot), 1);
        const old = this.spare;
        this.spare = slot;
        if (old) this.retire(old);
      }
    }
    const at = this.queue.indexOf(q);
    if (at >= 0) this.queue.splice(at, 1);
    this.pump();
  }

  /** Ends a worker that is no longer needed; the results it held are gone (their ids answer "run again"). */
  private retire(slot: Slot): void {
    slot.retired = true;
    for (const [id, s] of this.resultSlot) if (s === slot) this.resultSlot.delete(id);
    for (const c of slot.calls.values()) c.reject(new TickscopeError('internal', 'the worker holding this result was ended; run the query again'));
    slot.calls.clear();
    void slot.worker.terminate();
  }

  /** Stops a query: a queued one leaves the queue; a running one stops at its next checkpoint, or its worker is ended. */
  private stop(q: QueryState, why: 'cancelled' | 'timeout'): void {
    if (q.stopped) return;
    q.stopped = why;
    this.endParts(q);
    if (!q.running) {
      q.call.reject(new TickscopeError(why, stoppedMessage(why)));
      return;
    }
    const slot = q.call.slot!;
    flagStop(slot, q.call.id, why === 'timeout' ? TIMED_OUT : CANCELLED);
    // the caller hears at once; its worker stops at its next checkpoint, and meanwhile the spare
    // takes the next query
    q.reply(new TickscopeError(why, stoppedMessage(why)));
    this.pump();
    q.graceTimer = setTimeout(() => {
      if (slot.query !== q) return;
      const worker = slot.worker;
      void worker.terminate();
      this.lost(slot, worker, 'the query did not stop in time', why);
    }, CANCEL_GRACE_MS);
  }

  /** Cancels a query by its id; false when no such query is queued or running. */
  cancel(queryId: string): boolean {
    const e = this.exports.get(queryId);
    if (e) {
      this.stopCall(e.slot, e.call);
      return true;
    }
    const q = this.queries.get(queryId);
    if (!q) return false;
    this.stop(q, 'cancelled');
    return true;
  }

  /** Where a query stands, or undefined when it is not queued or running. */
  progress(queryId: string): Progress | undefined {
    const e = this.exports.get(queryId);
    if (e) return { state: 'running', done: e.done, total: e.total, unit: e.unit, elapsedMs: performance.now() - e.started };
    const q = this.queries.get(queryId);
    return q ? this.progressOf(q) : undefined;
  }

  private slotOf(resultId: unknown): Slot {
    const slot = typeof resultId === 'string' ? this.resultSlot.get(resultId) : undefined;
    if (!slot) throw new TickscopeError('badRequest', `resultId: ${JSON.stringify(resultId)} is not a result held here; run the query again`);
    return slot;
  }

  async page(resultId: unknown, offset: unknown, limit: unknown, form?: unknown): Promise<PageResponse> {
    return this.post(this.slotOf(resultId), 'page', [resultId, offset, limit, form]).promise as Promise<PageResponse>;
  }

  /** A held result sorted where it is held (a new result id there; the request is not run again). */
  async sort(resultId: unknown, sortCols: unknown): Promise<RunResponse> {
    const slot = this.slotOf(resultId);
    const r = (await this.post(slot, 'sort', [resultId, sortCols]).promise) as RunResponse;
    if (r.ok) this.resultSlot.set(r.resultId, slot);
    return r;
  }

  async chart(req: ChartRequest): Promise<Uint8Array> {
    return this.post(this.slotOf(req.resultId), 'chart', [req]).promise as Promise<Uint8Array>;
  }

  async table(resultId: unknown): Promise<Uint8Array> {
    return this.post(this.slotOf(resultId), 'table', [resultId]).promise as Promise<Uint8Array>;
  }

  /** A result as CSV, chunk by chunk, rendered in its worker. */
  csv(resultId: unknown): AsyncGenerator<Uint8Array, void, void> {
    return this.exportFile(resultId, 'csv');
  }

  /** Stops a call that is not a query (an export) at its worker's next checkpoint: it fails as cancelled. */
  private stopCall(slot: Slot, call: Call): void {
    if (slot.calls.has(call.id)) flagStop(slot, call.id, CANCELLED);
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
    const { call, promise } = this.post(slot, format, [resultId], (bytes) =>
      new Promise<void>((taken) => {
        chunks.push({ bytes, taken });
        wake?.();
      }),
    );
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

  /** True while the result is held by a worker. */
  holds(resultId: string): boolean {
    return this.resultSlot.has(resultId);
  }

  /** Tests only (TICKSCOPE_TEST_HOOKS=1 in the workers): makes worker `i` fail, or ends it. */
  breakWorker(i: number, how: 'throw' | 'kill'): void {
    const slot = this.slots[i]!;
    if (how === 'kill') void slot.worker.terminate();
    else slot.worker.postMessage({ kind: 'call', id: 0, method: 'crash', params: [] } satisfies CallMessage);
  }

  /** Chunks worker `i` has streamed and is held back at, waiting for its reader to take one (0: not held). */
  heldAt(i: number): number {
    return Atomics.load(this.slots[i]!.flowCount, 1);
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const q of [...this.queue]) q.call.reject(new TickscopeError('cancelled', 'the executor is closing'));
    await Promise.all([...this.slots, ...(this.spare ? [this.spare] : [])].map((s) => s.worker.terminate()));
  }
}

/** Bytes of one store entry in memory: a whole file, or a column's loaded blocks. */
function entryBytes(e: StoreEntry): number {
  if (e.value instanceof Uint8Array) return e.value.byteLength;
  const words = new Int32Array(e.value.loaded);
  let blocks = 0;
  for (let i = 0; i < words.length; i++) {
    for (let w = Atomics.load(words, i); w; w &= w - 1) blocks++;
  }
  return blocks * e.blockBytes;
}

/** Settles a call with its worker's answer; a throw while the caller takes it fails the call instead. */
function settle(call: Call, r: { value: unknown } | { error: TickscopeError }): void {
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
function report(listener: ((p: Progress) => void) | undefined, p: Progress): void {
  try {
    listener?.(p);
  } catch {
    // the listener's failure is its own
  }
}

/** The error of a call whose arguments cannot be posted to a worker. */
function unsendable(e: unknown): TickscopeError {
  const why = e instanceof Error ? e.message : String(e);
  return new TickscopeError('badRequest', `args: cannot be handed to a query worker (${why.slice(0, 200)}); expected plain JSON values`);
}

function stoppedMessage(why: ErrorKindName): string {
  return why === 'timeout' ? 'the query ran past its timeout and was stopped; narrow it or raise its timeout' : 'the query was cancelled';
}
