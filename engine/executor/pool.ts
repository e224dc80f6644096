/**
 * The executor's worker threads: `settings.workers` of them and a started spare, each with its lines
 * to this thread (the store line: synchronous requests, answered by `line`; the parts line: results of
 * its query's parts). Calls go to a worker and come back as progress, streamed chunks (held back while
 * the caller has not taken FLOW_WINDOW of them) and one answer. A worker that fails or exits fails only
 * its own calls; the spare takes its place at once (or it is started again).
 */
import { MessageChannel, Worker, type WorkerOptions } from 'node:worker_threads';
import { type ErrorKindName, TickscopeError } from '../core/errors.js';
import { builtScript } from '../parallel/built-script.js';
import { type Call, flagStop, idle, settle, type Slot, stoppedError, unsendable } from './calls.js';
import { CANCELLED, type CallMessage, type MountMessage, type PartsLine, type StoreLine, type StoreRequest, type WorkerInit, type WorkerMessage, type WorkerMethod } from './protocol.js';
import type { MountSpec } from '../storage/mount.js';
import type { ProcessSettings } from './settings.js';

/** The built query worker script (see builtScript). */
export function workerScript(): string {
  return builtScript('executor-worker.cjs');
}

/** Starts one worker thread of the script (tests wrap it to watch or break their threads). */
export type StartWorker = (script: string, options: WorkerOptions) => Worker;

/** What the pool tells the rest of the executor. */
export interface PoolEvents {
  /** A worker's synchronous request (the column store, or parts of its query), answered at once. */
  line(slot: Slot, req: StoreRequest): unknown;
  /** A worker is gone (lost or ended): the query it ran and the results it held are gone; its calls fail next. */
  lost(slot: Slot): void;
  /** A worker is free for the next query (one took a lost worker's place). */
  free(): void;
}

export class WorkerPool {
  /** The workers queries run on (the spare joins them while one is stopping a cancelled query). */
  readonly slots: Slot[] = [];
  /**
   * A started worker kept in reserve: when a worker is ended (a query that would not stop, a crash),
   * the spare takes its place at once, so the next query does not wait for a worker to start.
   */
  private reserve: Slot | null = null;
  private nextCall = 1;
  /** Set by close(): workers that end are not replaced. */
  closing = false;

  /** The databases every worker opens: those it starts with, then those mounted later. */
  private readonly dbs: MountSpec[];

  constructor(
    dbs: readonly MountSpec[],
    private readonly settings: ProcessSettings,
    private readonly events: PoolEvents,
    private readonly script: string = workerScript(),
    private readonly startWorker: StartWorker = (script, options) => new Worker(script, options),
  ) {
    this.dbs = [...dbs];
  }

  get mounts(): readonly MountSpec[] {
    return this.dbs;
  }

  /** Mounts a database on every worker; workers started later open it with the rest. */
  mount(spec: MountSpec): void {
    this.dbs.push(spec);
    this.tell({ kind: 'mount', spec });
  }

  /** Unmounts the database of this assembly name and folder on every worker. */
  unmount(name: string, dir: string): void {
    const i = this.dbs.findIndex((d) => d.dir === dir);
    if (i >= 0) this.dbs.splice(i, 1);
    this.tell({ kind: 'unmount', name });
  }

  /** Opens a database again on every worker (its schema changed); workers started later open it anew anyway. */
  reopen(dir: string): void {
    this.tell({ kind: 'reopen', dir });
  }

  /** A message to every worker, the spare too (a worker still starting reads it after its init). */
  private tell(m: MountMessage): void {
    for (const s of [...this.slots, ...(this.reserve ? [this.reserve] : [])]) {
      if (!s.retired) s.worker.postMessage(m);
    }
  }

  /** Starts the workers; resolves once they have opened their databases (the spare then starts). */
  async start(): Promise<void> {
    for (let i = 0; i < this.settings.workers; i++) this.slots.push(this.spawn());
    await Promise.all(this.slots.map((s) => s.ready));
    this.reserve = this.spawn();
  }

  /** The spare worker. */
  get spare(): Slot | null {
    return this.reserve;
  }

  /** A new call id (a query's default id is made of its call's). */
  callId(): number {
    return this.nextCall++;
  }

  /**
   * The spare, when it may run a query now: ready, idle and not closing (the express lane, or in the
   * place of a worker stopping a cancelled query).
   */
  readySpare(): Slot | undefined {
    const s = this.reserve;
    return s && s.isReady && !s.retired && !this.closing && idle(s) ? s : undefined;
  }

  /** The spare joins the workers (one is stopping a cancelled query); a new spare starts. */
  promoteSpare(): Slot {
    const spare = this.reserve!;
    this.slots.push(spare);
    this.reserve = this.spawn();
    return spare;
  }

  /** A worker past the configured count, now free, waits as the spare (it keeps its results); the spare it replaces is ended. */
  demote(slot: Slot): void {
    if (this.slots.length <= this.settings.workers || this.closing) return;
    this.slots.splice(this.slots.indexOf(slot), 1);
    const old = this.reserve;
    this.reserve = slot;
    if (old) this.retire(old);
  }

  /** Hands a call to a worker; false when its params cannot be posted (the call is then failed). */
  send(slot: Slot, call: Call): boolean {
    call.slot = slot;
    slot.calls.set(call.id, call);
    try {
      slot.worker.postMessage({ kind: 'call', id: call.id, method: call.method, params: call.params } satisfies CallMessage);
      return true;
    } catch (e) {
      // a value the structured clone refuses (uncloneable, or too deep for it)
      slot.calls.delete(call.id);
      call.reject(unsendable(e));
      return false;
    }
  }

  /** Calls a worker: its answer, its progress to `onProgress`, its streamed chunks to `onChunk`. */
  post(
    slot: Slot,
    method: WorkerMethod,
    params: readonly unknown[],
    listeners: Pick<Call, 'onChunk' | 'onProgress'> = {},
  ): { call: Call; promise: Promise<unknown> } {
    let call!: Call;
    const promise = new Promise<unknown>((resolve, reject) => {
      call = { id: this.callId(), method, params, resolve, reject, ...listeners };
    });
    this.send(slot, call);
    return { call, promise };
  }

  /** Stops a call at its worker's next checkpoint (it fails as cancelled, or as `why` says). */
  stop(slot: Slot, callId: number, why = CANCELLED): void {
    flagStop(slot, callId, why);
  }

  /** Ends a worker whose query would not stop: its calls fail (the query's as it was stopped), another takes its place. */
  kill(slot: Slot, why: string, kind: ErrorKindName): void {
    const worker = slot.worker;
    void worker.terminate();
    this.lost(slot, worker, why, kind);
  }

  /** Ends a worker that is no longer needed; the results it held are gone (their ids answer "run again"). */
  private retire(slot: Slot): void {
    slot.retired = true;
    this.events.lost(slot);
    for (const c of slot.calls.values()) c.reject(new TickscopeError('internal', 'the worker holding this result was ended; run the query again'));
    slot.calls.clear();
    void slot.worker.terminate();
  }

  /** Ends every worker. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.slots, ...(this.reserve ? [this.reserve] : [])].map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const cancel = new SharedArrayBuffer(8);
    const flow = new SharedArrayBuffer(8);
    const init: WorkerInit = { dbs: [...this.dbs], settings: this.settings, cancel, flow };
    const slot: Slot = { worker: undefined as unknown as Worker, flags: new Int32Array(cancel), flowCount: new Int32Array(flow), init, calls: new Map(), query: null, ready: Promise.resolve(), isReady: false, part: null };
    this.attach(slot);
    return slot;
  }

  /** A new synchronous line from a worker to this thread (each worker gets its own). */
  private storeLine(slot: Slot): StoreLine {
    const channel = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    const sig = new Int32Array(signal);
    channel.port1.on('message', (req: StoreRequest) => {
      channel.port1.postMessage({ value: this.events.line(slot, req) });
      Atomics.store(sig, 0, 1);
      Atomics.notify(sig, 0);
    });
    channel.port1.unref();
    return { port: channel.port2, signal };
  }

  /** Starts the slot's worker (a replacement too) with a store line and a parts line of its own. */
  private attach(slot: Slot): void {
    const store = this.storeLine(slot);
    const channel = new MessageChannel();
    const parts: PartsLine = { port: channel.port2, signal: new SharedArrayBuffer(4) };
    slot.partsPort = { port: channel.port1, signal: new Int32Array(parts.signal) };
    channel.port1.unref();
    // a replacement opens the databases mounted now, not those of its slot's first worker
    const worker = this.startWorker(this.script, { workerData: { ...slot.init, dbs: [...this.dbs], store, parts }, transferList: [store.port, parts.port] });
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
        try {
          call.onProgress?.(m.done, m.total, m.unit);
        } catch {
          // a progress listener's failure is the listener's; the call goes on
        }
        return undefined;
      }
      if (m.kind === 'chunk') return this.chunk(slot, call, m.bytes);
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

  /** Hands a streamed chunk to its call's reader; the worker goes on once the reader has taken it. */
  private chunk(slot: Slot, call: Call, bytes: Uint8Array): void {
    const taken = (): void => {
      Atomics.add(slot.flowCount, 0, 1);
      Atomics.notify(slot.flowCount, 0);
    };
    let r: void | Promise<void>;
    try {
      r = call.onChunk?.(bytes);
    } catch (e) {
      // the caller could not take the chunk (its renderer or connection failed): stop the call
      // here, never let the throw escape into this thread's event loop
      if (process.env['TICKSCOPE_DEBUG']) console.error(e);
      flagStop(slot, call.id, CANCELLED);
      r = undefined;
    }
    if (r instanceof Promise) void r.then(taken, taken);
    else taken();
  }

  /** A worker died (a crash, out of memory, or ended on cancel): its calls fail, a new worker takes its place. */
  private lost(slot: Slot, worker: Worker, why: string, kind: ErrorKindName = 'internal'): void {
    if (slot.worker !== worker || slot.retired) return;
    const wasSpare = slot === this.reserve;
    const q = slot.query;
    const calls = [...slot.calls.values()];
    slot.calls.clear();
    this.events.lost(slot);
    Atomics.store(slot.flags, 0, 0);
    Atomics.store(slot.flags, 1, 0);
    // the replacement first: a query started while these calls fail goes to a live worker
    let started: Promise<void> | null = null;
    if (wasSpare) {
      // the reserve itself failed (running a small query of the express lane, or idle): another starts
      slot.retired = true;
      this.reserve = this.closing ? null : this.spawn();
    } else if (!this.closing) {
      const spare = this.reserve;
      if (spare?.isReady) {
        // the spare takes the lost worker's place now; a new spare starts in the background
        slot.retired = true;
        void worker.terminate();
        this.slots[this.slots.indexOf(slot)] = spare;
        this.reserve = this.spawn();
      } else {
        this.attach(slot);
        started = slot.ready;
      }
    }
    const gone = wasSpare ? 'the query was not completed; run it again' : 'the query was not completed (its results are gone); run it again';
    for (const c of calls) c.reject(q && c === q.call && q.stopped ? stoppedError(q.stopped) : new TickscopeError(kind, `${why}; ${gone}`));
    if (wasSpare) {
      if (q) this.events.free();
    } else if (!this.closing) {
      if (started) void started.then(() => this.events.free(), () => undefined);
      else this.events.free();
    }
  }
}
