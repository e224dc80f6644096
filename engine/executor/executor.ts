/**
 * The executor: queries run on worker threads, never on the thread that serves HTTP, Electron IPC or
 * q IPC (it only dispatches and relays). One executor per process (SPEC 10 settings). Each worker
 * holds the results of the queries it ran; paging, charting, Arrow and CSV of a result run in its
 * worker too. Queries queue in order (at most maxRunningQueries running, maxQueuedQueries waiting,
 * then busy); each can be cancelled by its id or by its timeout (counted from receipt), which stops
 * it at its next checkpoint, or, if it does not stop within CANCEL_GRACE_MS, ends its worker (a new
 * one takes its place). A worker that crashes fails only its own calls.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { ChartRequest, PageResponse, QueryProgress, RunResponse } from '../contract.js';
import { type ErrorKindName, TickscopeError } from '../core/errors.js';
import { errorEnvelope, requestInfo } from '../gateway/envelope.js';
import { ROW_BLOCK } from '../storage/shared-store.js';
import { CANCELLED, type CallMessage, type StoreLine, type StoreRequest, TIMED_OUT, type WorkerInit, type WorkerMessage, type WorkerMethod } from './protocol.js';
import type { ProcessSettings } from './settings.js';

/** How long a cancelled query may run on before its worker is ended. */
export const CANCEL_GRACE_MS = 250;

export type Progress = QueryProgress;

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
  readonly onChunk?: (text: string) => void;
  slot?: Slot;
}

interface QueryState {
  readonly call: Call;
  readonly queryId: string;
  readonly operation: string;
  readonly received: number;
  readonly onProgress: ((p: Progress) => void) | undefined;
  done: number;
  total: number;
  unit: string;
  running: boolean;
  timer?: ReturnType<typeof setTimeout>;
  graceTimer?: ReturnType<typeof setTimeout>;
  stopped?: ErrorKindName;
  /** Answers the caller now with this error (the worker may still be stopping). */
  readonly reply: (e: TickscopeError) => void;
}

interface Slot {
  worker: Worker;
  readonly flags: Int32Array;
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
}

/** The built worker script: beside the bundle (dist/bin), one folder over (dist/electron), or in dist/ from the sources. */
export function workerScript(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const rel of ['executor-worker.cjs', '../bin/executor-worker.cjs', '../../dist/bin/executor-worker.cjs']) {
    const path = join(here, rel);
    if (existsSync(path)) return path;
  }
  throw new TickscopeError('internal', 'the query worker is not built (no dist/bin/executor-worker.cjs); run npm run build');
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
  private nextId = 1;
  private closing = false;

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
    const init: WorkerInit = { dbs: this.dbs, settings: this.settings, cancel };
    const slot: Slot = { worker: undefined as unknown as Worker, flags: new Int32Array(cancel), init, calls: new Map(), query: null, ready: Promise.resolve(), isReady: false };
    this.attach(slot);
    return slot;
  }

  /** A new synchronous line from a worker to the store (each worker gets its own). */
  private storeLine(): StoreLine {
    const channel = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    const sig = new Int32Array(signal);
    channel.port1.on('message', (req: StoreRequest) => {
      channel.port1.postMessage({ value: this.answer(req) });
      Atomics.store(sig, 0, 1);
      Atomics.notify(sig, 0);
    });
    channel.port1.unref();
    return { port: channel.port2, signal };
  }

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
  private answer(req: StoreRequest): unknown {
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
    // each worker (a replacement too) gets a store line of its own
    const store = this.storeLine();
    const worker = new Worker(this.script, { workerData: { ...slot.init, store }, transferList: [store.port] });
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
        const q = slot.query;
        if (q && q.call === call) {
          q.done = m.done;
          q.total = m.total;
          q.unit = m.unit;
          q.onProgress?.(this.progressOf(q));
        }
        return undefined;
      }
      if (m.kind === 'chunk') return call.onChunk?.(m.text);
      slot.calls.delete(m.id);
      if (m.kind === 'done') call.resolve(m.value);
      else call.reject(new TickscopeError(m.error.kind, m.error.message));
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
      // the reserve itself failed: start another
      slot.retired = true;
      this.spare = this.closing ? null : this.spawn();
      return;
    }
    const calls = [...slot.calls.values()];
    slot.calls.clear();
    for (const [id, s] of this.resultSlot) if (s === slot) this.resultSlot.delete(id);
    const q = slot.query;
    slot.query = null;
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

  private post(slot: Slot, method: WorkerMethod, params: readonly unknown[], onChunk?: (text: string) => void): { call: Call; promise: Promise<unknown> } {
    let call!: Call;
    const promise = new Promise<unknown>((resolve, reject) => {
      call = { id: this.nextId++, method, params, resolve, reject, ...(onChunk ? { onChunk } : {}), slot };
    });
    slot.calls.set(call.id, call);
    slot.worker.postMessage({ kind: 'call', id: call.id, method, params } satisfies CallMessage);
    return { call, promise };
  }

  private progressOf(q: QueryState): Progress {
    return { state: q.running ? 'running' : 'queued', done: q.done, total: q.total, unit: q.unit, elapsedMs: performance.now() - q.received };
  }

  /** Runs an operation on a worker; the result stays there (by its resultId) for paging, charts and exports. */
  run(operation: string, args: unknown, opts: RunOptions = {}): Promise<RunResponse> {
    const req = requestInfo(operation);
    const answer = (e: TickscopeError): RunResponse => ({ ok: false, header: errorEnvelope(req, e).header });
    const queryId = opts.queryId ?? `q${this.nextId}`;
    if (this.queries.has(queryId)) return Promise.resolve(answer(new TickscopeError('badRequest', `queryId: ${JSON.stringify(queryId)} is already running; give each query its own id`)));
    if (this.queue.length >= this.settings.maxQueuedQueries && this.freeSlot() === undefined) {
      return Promise.resolve(answer(new TickscopeError('busy', `busy: ${this.running()} queries running and ${this.queue.length} waiting (maxQueuedQueries ${this.settings.maxQueuedQueries}); retry shortly`)));
    }
    return new Promise<RunResponse>((resolve) => {
      // the caller's answer: the worker's, or at once when the query is stopped (it may still be finishing)
      let answered = false;
      const reply = (r: RunResponse): void => {
        if (answered) return;
        answered = true;
        this.queries.delete(queryId);
        if (q.timer) clearTimeout(q.timer);
        resolve(r);
      };
      const call: Call = {
        id: this.nextId++,
        method: 'run',
        params: [operation, args],
        resolve: (v) => {
          if (q.graceTimer) clearTimeout(q.graceTimer);
          const r = v as RunResponse;
          if (q.stopped) reply(answer(new TickscopeError(q.stopped, stoppedMessage(q.stopped))));
          else {
            if (r.ok && call.slot) this.resultSlot.set(r.resultId, call.slot);
            reply(r);
          }
          this.release(q);
        },
        reject: (e) => {
          if (q.graceTimer) clearTimeout(q.graceTimer);
          reply(answer(e));
          this.release(q);
        },
      };
      const q: QueryState = { call, queryId, operation, received: performance.now(), onProgress: opts.onProgress, done: 0, total: 0, unit: 'partitions', running: false, reply: (e) => reply(answer(e)) };
      this.queries.set(queryId, q);
      const timeout = opts.timeoutMs ?? this.settings.queryTimeoutMs;
      if (timeout > 0) q.timer = setTimeout(() => this.stop(q, 'timeout'), timeout);
      this.queue.push(q);
      opts.onProgress?.(this.progressOf(q));
      this.pump();
    });
  }

  /** Queries running and not being stopped (a cancelled query still finishing does not count). */
  private running(): number {
    return this.slots.filter((s) => s.query !== null && !s.query.stopped).length;
  }

  private freeSlot(): Slot | undefined {
    if (this.running() >= this.settings.maxRunningQueries) return undefined;
    const idle = this.slots.find((s) => s.query === null && s.calls.size === 0) ?? this.slots.find((s) => s.query === null);
    if (idle) return idle;
    // every worker is busy but one is stopping a cancelled query: the spare runs the next query now
    if (this.spare?.isReady && this.slots.length <= this.settings.workers && this.slots.some((s) => s.query?.stopped)) {
      const spare = this.spare;
      this.slots.push(spare);
      this.spare = this.spawn();
      return spare;
    }
    return undefined;
  }

  /** Starts queued queries on free workers, in arrival order. */
  private pump(): void {
    for (;;) {
      const q = this.queue[0];
      if (!q) return;
      const slot = this.freeSlot();
      if (!slot) return;
      this.queue.shift();
      slot.query = q;
      q.running = true;
      q.call.slot = slot;
      slot.calls.set(q.call.id, q.call);
      slot.worker.postMessage({ kind: 'call', id: q.call.id, method: 'run', params: q.call.params } satisfies CallMessage);
      q.onProgress?.(this.progressOf(q));
    }
  }

  /** Frees the worker of a finished query and starts the next. */
  private release(q: QueryState): void {
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
    if (!q.running) {
      q.call.reject(new TickscopeError(why, stoppedMessage(why)));
      return;
    }
    const slot = q.call.slot!;
    Atomics.store(slot.flags, 1, why === 'timeout' ? TIMED_OUT : CANCELLED);
    Atomics.store(slot.flags, 0, q.call.id);
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
    const q = this.queries.get(queryId);
    if (!q) return false;
    this.stop(q, 'cancelled');
    return true;
  }

  /** Where a query stands, or undefined when it is not queued or running. */
  progress(queryId: string): Progress | undefined {
    const q = this.queries.get(queryId);
    return q ? this.progressOf(q) : undefined;
  }

  private slotOf(resultId: unknown): Slot {
    const slot = typeof resultId === 'string' ? this.resultSlot.get(resultId) : undefined;
    if (!slot) throw new TickscopeError('badRequest', `resultId: ${JSON.stringify(resultId)} is not a result held here; run the query again`);
    return slot;
  }

  async page(resultId: unknown, offset: unknown, limit: unknown): Promise<PageResponse> {
    return this.post(this.slotOf(resultId), 'page', [resultId, offset, limit]).promise as Promise<PageResponse>;
  }

  async chart(req: ChartRequest): Promise<Uint8Array> {
    return this.post(this.slotOf(req.resultId), 'chart', [req]).promise as Promise<Uint8Array>;
  }

  async table(resultId: unknown): Promise<Uint8Array> {
    return this.post(this.slotOf(resultId), 'table', [resultId]).promise as Promise<Uint8Array>;
  }

  /** A result as CSV, chunk by chunk, rendered in its worker. */
  async *csv(resultId: unknown): AsyncGenerator<string, void, void> {
    const chunks: string[] = [];
    let wake: (() => void) | null = null;
    let finished = false;
    let failure: unknown = null;
    const { promise } = this.post(this.slotOf(resultId), 'csv', [resultId], (text) => {
      chunks.push(text);
      wake?.();
    });
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
    for (;;) {
      while (chunks.length) yield chunks.shift()!;
      if (finished) break;
      await new Promise<void>((r) => (wake = r));
      wake = null;
    }
    while (chunks.length) yield chunks.shift()!;
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

function stoppedMessage(why: ErrorKindName): string {
  return why === 'timeout' ? 'the query ran past its timeout and was stopped; narrow it or raise its timeout' : 'the query was cancelled';
}
