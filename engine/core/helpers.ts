/**
 * Helper threads: a thread hands a share of its work to threads started ahead, and never depends on
 * them. A helper that fails or goes silent costs speed, never output: the caller does the rest itself.
 *
 * Two pieces, used by the large reads (storage/parallel-read.ts) and the rendering of results
 * (output/parallel-text.ts, its rings, and Arrow streams): HelperThreads starts the threads of one
 * script, posts them jobs and ends them; HelperWork is one job's control words in shared memory, the
 * protocol both sides speak (pieces taken in turn from one counter, pieces done counted and awaited,
 * a failure flag and a stop flag). A wait for helpers gives them up after SILENT_MS without progress.
 */
import { Worker } from 'node:worker_threads';

/** How long helpers may make no progress before the caller gives them up and does their work itself. */
export const SILENT_MS = 10_000;

// control words: next piece to take, pieces done, a helper failed, the caller wants no more
const NEXT = 0;
const DONE = 1;
const FAILED = 2;
const STOP = 3;

/** One job's control words, shared by the caller and its helpers (either side makes one over the same buffer). */
export class HelperWork {
  /** Words a job's control takes at the start of its buffer (a ring puts its own after them). */
  static readonly WORDS = 4;

  private readonly ctrl: Int32Array;

  /** Control words over `buffer` (a new one when none is given). */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(4 * HelperWork.WORDS)) {
    this.ctrl = new Int32Array(buffer, 0, HelperWork.WORDS);
  }

  /** The next of `pieces` pieces for whoever asks first, or -1 when none is left or the caller stopped. */
  take(pieces: number): number {
    if (Atomics.load(this.ctrl, STOP) !== 0) return -1;
    const k = Atomics.add(this.ctrl, NEXT, 1);
    return k < pieces ? k : -1;
  }

  /** A piece is done (handed over): a caller waiting for it wakes. */
  done(): void {
    Atomics.add(this.ctrl, DONE, 1);
    Atomics.notify(this.ctrl, DONE);
  }

  /** Pieces done so far. */
  get doneCount(): number {
    return Atomics.load(this.ctrl, DONE);
  }

  /** A helper failed: the caller does the rest itself. */
  fail(): void {
    Atomics.store(this.ctrl, FAILED, 1);
    Atomics.notify(this.ctrl, DONE);
  }

  get failed(): boolean {
    return Atomics.load(this.ctrl, FAILED) !== 0;
  }

  /** The caller wants no more pieces: a helper stops before its next. */
  stop(): void {
    Atomics.store(this.ctrl, STOP, 1);
  }

  get stopped(): boolean {
    return Atomics.load(this.ctrl, STOP) !== 0;
  }

  /**
   * Waits until more than `seen` pieces are done: true; false when a helper failed, or when none was
   * done for `silentMs` (the helpers are given up).
   */
  awaitDone(seen: number, silentMs = SILENT_MS): boolean {
    for (;;) {
      if (this.failed) return false;
      if (this.doneCount > seen) return true;
      if (Atomics.wait(this.ctrl, DONE, seen, silentMs) === 'timed-out' && this.doneCount === seen) return false;
    }
  }
}

/** How helper threads are started. */
export interface HelperOptions {
  /** How long the helpers may make no progress before the caller gives them up (default SILENT_MS). */
  readonly silentMs?: number;
  /** Starts one thread of the script (default `new Worker(script)`; a test keeps the thread to end it). */
  readonly startWorker?: (script: string) => Worker;
}

/**
 * Helper threads of one script, started ahead of the work they will share (their start-up overlaps
 * the caller's). The script posts a message once loaded; a job is a message to it.
 */
export class HelperThreads<J> {
  private readonly workers: Worker[] = [];
  /** How long the helpers may hand nothing over before the caller does their share itself. */
  readonly silentMs: number;
  /** Each helper loaded (its first message) or gone. */
  private readonly loaded: Promise<void>;

  constructor(script: string, count: number, options: HelperOptions = {}) {
    this.silentMs = options.silentMs ?? SILENT_MS;
    const start = options.startWorker ?? ((s: string) => new Worker(s));
    const loaded: Array<Promise<void>> = [];
    for (let i = 0; i < count; i++) {
      const w = start(script);
      w.on('error', () => {}); // a failed helper is noticed by the caller (its work goes quiet)
      loaded.push(new Promise<void>((resolve) => (w.once('message', () => resolve()), w.once('exit', () => resolve()))));
      // after the listeners (a message listener refs the worker): a helper never keeps the process up
      w.unref();
      this.workers.push(w);
    }
    this.loaded = Promise.all(loaded).then(() => undefined);
  }

  /** Resolves once every helper has loaded (a job posted then is taken at once) or ended. */
  ready(): Promise<void> {
    return this.loaded;
  }

  /** Helpers running (0 once closed). */
  get count(): number {
    return this.workers.length;
  }

  /** Sends every helper the same job. */
  post(job: J): void {
    for (const w of this.workers) w.postMessage(job);
  }

  /** Sends each helper a job made for its place among the count + 1 threads (the caller is 0); returns the jobs. */
  postEach<K extends J>(job: (place: number, threads: number) => K): K[] {
    const threads = this.workers.length + 1;
    return this.workers.map((w, k) => {
      const j = job(k + 1, threads);
      w.postMessage(j);
      return j;
    });
  }

  /** Ends the helpers (they are done or no longer wanted). */
  close(): void {
    for (const w of this.workers) void w.terminate();
    this.workers.length = 0;
  }
}
