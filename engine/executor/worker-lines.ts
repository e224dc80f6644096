/**
 * A query worker's two lines to the executor (protocol.ts). The store line: synchronous asks, answered
 * at once on the serving thread (a lookup or a reference kept, never a file read or a query), for the
 * column files the workers share and for workers to run the parts of this worker's query. The parts
 * line: those parts' results, waited for with the query's cancel checks.
 */
import { receiveMessageOnPort } from 'node:worker_threads';
import { TickscopeError } from '../core/errors.js';
import type { Parallel, PartRequest } from '../core/query-hooks.js';
import type { QueryResult } from '../core/result.js';
import { decodeResult } from '../parallel/transfer.js';
import { blockWords, useSharedStore } from '../storage/shared-store.js';
import type { PartResult, StoreLine, StoreRequest, WorkerInit } from './protocol.js';

/** A synchronous request on the store line (the executor answers at once). */
function ask(line: StoreLine, req: StoreRequest): unknown {
  const sig = new Int32Array(line.signal);
  Atomics.store(sig, 0, 0);
  line.port.postMessage(req);
  for (;;) {
    Atomics.wait(sig, 0, 0, 1000);
    const got = receiveMessageOnPort(line.port);
    if (got) return (got.message as { value: unknown }).value;
  }
}

/** Makes this thread read column files through the executor's shared store (when it has a store line). */
export function useExecutorStore(init: WorkerInit): void {
  const line = init.store;
  if (!line) return;
  type Buffers = { data: SharedArrayBuffer; loaded: SharedArrayBuffer };
  useSharedStore({
    // buffers are allocated here, not on the serving thread (a large one is zero-filled when made)
    column: (key, rows, width) =>
      (ask(line, { op: 'column', key }) as Buffers | null) ??
      (ask(line, { op: 'putColumn', key, width, data: new SharedArrayBuffer(Math.max(8, Math.ceil((rows * width) / 8) * 8)), loaded: new SharedArrayBuffer(blockWords(rows) * 4) }) as Buffers),
    file: (key, read) => (ask(line, { op: 'file', key }) as Uint8Array | null) ?? (ask(line, { op: 'put', key, bytes: read() }) as Uint8Array),
  });
}

/**
 * The executor's other workers as call `id` sees them (none with one worker): idle ones are reserved
 * and run parts of it; their results come back on the parts line, waited for with `checkpoint`.
 */
export function partsFor(init: WorkerInit, id: number, checkpoint: () => void): Parallel | undefined {
  const line = init.parts;
  const store = init.store;
  if (!line || !store || init.settings.workers < 2) return undefined;
  const sig = new Int32Array(line.signal);
  let expected = 0;
  return {
    minRows: init.settings.splitMinRows,
    reserve: (max) => ask(store, { op: 'reserve', max }) as number,
    dispatch: (parts: readonly PartRequest[]) => {
      expected = parts.length;
      ask(store, { op: 'parts', parts });
    },
    collect: (): QueryResult[] => {
      const got: Array<QueryResult | undefined> = new Array(expected);
      let missing = expected;
      while (missing > 0) {
        const seen = Atomics.load(sig, 0);
        let m = receiveMessageOnPort(line.port);
        while (m) {
          const r = m.message as PartResult;
          // results of an earlier query's parts (it stopped before collecting them) are dropped
          if (r.callId === id) {
            if (!r.ok) throw new TickscopeError(r.error.kind, r.error.message);
            if (got[r.index] === undefined) missing--;
            got[r.index] = decodeResult(r.result);
          }
          m = receiveMessageOnPort(line.port);
        }
        if (missing === 0) break;
        checkpoint();
        Atomics.wait(sig, 0, seen, 50);
      }
      return got as QueryResult[];
    },
  };
}
