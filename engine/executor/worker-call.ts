/**
 * One call as a query worker runs it: its query hooks (the cancel check reads the flags the executor
 * sets in shared memory; progress is posted at most every 50 ms), its streamed chunks (held back while
 * the executor's caller is FLOW_WINDOW chunks behind), and its answer, posted with its buffers moved,
 * not copied. A method whose value is a promise (a Parquet export) is answered when it settles.
 */
import { asTickscopeError, TickscopeError } from '../core/errors.js';
import { type Parallel, type QueryHooks, type Shard, withQueryHooks } from '../core/query-hooks.js';
import type { QueryResult } from '../core/result.js';
import { encodeResult } from '../parallel/transfer.js';
import { type CallMessage, FLOW_WINDOW, TIMED_OUT, type WorkerInit, type WorkerMessage } from './protocol.js';

/** What a call's method gets besides its params. */
export interface CallIO {
  /** Streams a chunk out (a buffer of its own, moved): a cancel or timeout stops the call here (it throws). */
  send(bytes: Uint8Array): void;
  /** Reports steps done out of the total (default unit: partitions). */
  progress(done: number, total: number, unit?: string): void;
  /** Throws when the call was cancelled or timed out (a method that loops outside the query kernels checks it). */
  checkpoint(): void;
}

/** What a method does with a call's params. */
export type Method = (params: readonly unknown[], io: CallIO) => unknown;

/** How a call runs besides its method: the workers a query may split across, or the part of one it is. */
export interface CallContext {
  readonly parallel?: (checkpoint: () => void) => Parallel | undefined;
  readonly shard?: Shard;
}

/** A method's answer with the buffers it moves to the executor. */
export class Sent {
  constructor(
    readonly value: unknown,
    readonly transfer: ArrayBuffer[],
  ) {}
}

/**
 * A method's answer once what it did is done and seen by others (an import committed): no cancel
 * check follows it, since a cancel landing now would say "cancelled" of rows that are written.
 */
export class Committed {
  constructor(readonly value: unknown) {}
}

/** The answer of a call whose whole result goes to the caller (not held here), as transferable buffers. */
export function whole(r: QueryResult): Sent {
  const { message, transfer } = encodeResult(r);
  return new Sent(message, transfer);
}

export class CallRunner {
  /** [0] the id of the call to stop (0: none), [1] why. */
  private readonly flags: Int32Array;
  /** [0] chunks the caller has taken, [1] chunks sent while held back (0: not held). */
  private readonly flow: Int32Array;
  /** Calls answered asynchronously: their cancel flags stay until they settle. */
  private readonly later = new Set<number>();

  constructor(
    private readonly init: WorkerInit,
    private readonly post: (m: WorkerMessage, transfer?: ArrayBuffer[]) => void,
  ) {
    this.flags = new Int32Array(init.cancel);
    this.flow = new Int32Array(init.flow);
  }

  /** Runs call `m` with `method`, its cancel check and progress reports, and posts its answer. */
  run(m: CallMessage, method: Method, context: CallContext = {}): void {
    const { flags, flow } = this;
    let lastProgress = 0;
    const hooks: { -readonly [K in keyof QueryHooks]: QueryHooks[K] } = {
      maxRows: this.init.settings.maxResultRows,
      maxBytes: this.init.settings.maxResultBytes,
      checkpoint: () => {
        if (Atomics.load(flags, 0) !== m.id) return;
        throw Atomics.load(flags, 1) === TIMED_OUT ? new TickscopeError('timeout', 'the query ran past its timeout and was stopped') : new TickscopeError('cancelled', 'the query was cancelled');
      },
      progress: (done: number, total: number, unit = 'partitions') => {
        const now = performance.now();
        if (done < total && now - lastProgress < 50) return;
        lastProgress = now;
        this.post({ kind: 'progress', id: m.id, done, total, unit });
      },
    };
    const parallel = context.parallel?.(hooks.checkpoint);
    if (parallel) hooks.parallel = parallel;
    if (context.shard) hooks.shard = context.shard;
    // a chunk goes out only while the reader is at most FLOW_WINDOW chunks behind
    Atomics.store(flow, 0, 0);
    let sent = 0;
    const send = (bytes: Uint8Array): void => {
      hooks.checkpoint();
      try {
        for (let taken = Atomics.load(flow, 0); sent - taken >= FLOW_WINDOW; taken = Atomics.load(flow, 0)) {
          Atomics.store(flow, 1, sent); // held back at `sent` chunks
          hooks.checkpoint();
          Atomics.wait(flow, 0, taken, 50);
        }
      } finally {
        Atomics.store(flow, 1, 0);
      }
      sent++;
      // each chunk is a buffer of its own (engine/output/out.ts): moved, not copied
      this.post({ kind: 'chunk', id: m.id, bytes }, [bytes.buffer as ArrayBuffer]);
    };
    try {
      const value = withQueryHooks(hooks, () => method(m.params, { send, progress: hooks.progress, checkpoint: hooks.checkpoint }));
      if (value instanceof Promise) {
        this.finishLater(m.id, value, hooks.checkpoint);
        return;
      }
      if (value instanceof Committed) {
        this.answer(m.id, value.value);
        return;
      }
      // a cancel that lands after the last checkpoint still wins: the caller has moved on
      hooks.checkpoint();
      this.answer(m.id, value);
    } catch (e) {
      this.fail(m.id, e);
    } finally {
      if (!this.later.has(m.id)) this.clearFlags(m.id);
    }
  }

  /** Posts a call's value, its buffers moved: a Sent's, or a byte array's own. */
  private answer(id: number, value: unknown): void {
    if (value instanceof Sent) this.post({ kind: 'done', id, value: value.value }, value.transfer);
    else if (value instanceof Uint8Array) this.post({ kind: 'done', id, value }, value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? [value.buffer as ArrayBuffer] : []);
    else this.post({ kind: 'done', id, value });
  }

  private fail(id: number, e: unknown): void {
    const err = asTickscopeError(e);
    if (err.kind === 'internal' && process.env['TICKSCOPE_DEBUG']) console.error(e);
    this.post({ kind: 'fail', id, error: { kind: err.kind, message: err.message } });
  }

  /** Answers a call whose value is a promise once it settles (the worker takes no other call meanwhile: its slot is busy). */
  private finishLater(id: number, value: Promise<unknown>, checkpoint: () => void): void {
    this.later.add(id);
    value
      .then((v) => {
        checkpoint();
        this.post({ kind: 'done', id, value: v });
      })
      .catch((e: unknown) => this.fail(id, e))
      .finally(() => {
        this.later.delete(id);
        this.clearFlags(id);
      });
  }

  private clearFlags(id: number): void {
    if (Atomics.load(this.flags, 0) === id) {
      Atomics.store(this.flags, 0, 0);
      Atomics.store(this.flags, 1, 0);
    }
  }
}
