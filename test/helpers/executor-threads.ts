/**
 * An executor's worker threads as a test sees them (ExecutorOptions.startWorker): the calls handed to
 * each, how far a streaming one is held back by its reader, and a crash or an end on demand.
 */
import { type TransferListItem, Worker, type WorkerOptions } from 'node:worker_threads';
import type { CallMessage, WorkerInit, WorkerMethod } from '../../engine/executor/protocol.js';

/** What a watched thread answers by throwing outside any call: an uncaught error on its thread. */
const CRASH = 'crash, asked for by a test';

/** A query worker behind a listener that crashes its thread when asked. */
class WatchedWorker extends Worker {
  constructor(
    script: string,
    options: WorkerOptions,
    private readonly given: (w: WatchedWorker, method: WorkerMethod) => void,
  ) {
    const crashable = `require('node:worker_threads').parentPort.on('message', (m) => { if (m === ${JSON.stringify(CRASH)}) throw new Error(m); }); require(${JSON.stringify(script)});`;
    super(crashable, { ...options, eval: true });
  }

  override postMessage(value: unknown, transferList?: readonly TransferListItem[]): void {
    const m = value as Partial<CallMessage> | null;
    if (m?.kind === 'call' && m.method) this.given(this, m.method);
    super.postMessage(value, transferList);
  }
}

export class ExecutorThreads {
  private readonly inits = new Map<Worker, WorkerInit>();
  private readonly last = new Map<WorkerMethod, Worker>();
  private readonly counts = new Map<WorkerMethod, number>();

  /** Pass as ExecutorOptions.startWorker. */
  readonly startWorker = (script: string, options: WorkerOptions): Worker => {
    const w = new WatchedWorker(script, options, (worker, method) => {
      this.last.set(method, worker);
      this.counts.set(method, (this.counts.get(method) ?? 0) + 1);
    });
    this.inits.set(w, options.workerData as WorkerInit);
    return w;
  };

  /** The thread last handed a call of `method`. */
  lastGiven(method: WorkerMethod): Worker {
    const w = this.last.get(method);
    if (!w) throw new Error(`no worker was handed a ${method} call`);
    return w;
  }

  /** Calls of `method` handed to the threads so far. */
  given(method: WorkerMethod): number {
    return this.counts.get(method) ?? 0;
  }

  /** Chunks `w` has streamed and is held back at, waiting for its reader to take one (0: not held; WorkerInit.flow[1]). */
  heldAt(w: Worker): number {
    return Atomics.load(new Int32Array(this.inits.get(w)!.flow), 1);
  }

  /** Makes `w` throw outside any call, as a crash would. */
  crash(w: Worker): void {
    w.postMessage(CRASH);
  }

  /** Ends `w`, as an out-of-memory end would. */
  kill(w: Worker): void {
    void w.terminate();
  }
}
