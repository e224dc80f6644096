/**
 * A query worker: its own engine over the mounted databases and its own held results (a Session),
 * running one call at a time for the executor. Results leave as transferable bytes (Arrow) or page
 * text; CSV streams out in chunks. A cancel or timeout set by the executor in the shared flags stops
 * the running query at its next checkpoint.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { ChartRequest } from '../contract.js';
import { asTickscopeError, TickscopeError } from '../core/errors.js';
import { type Parallel, type PartRequest, type QueryHooks, type Shard, withQueryHooks } from '../core/query-hooks.js';
import type { QueryResult } from '../core/result.js';
import { decodeResult, encodeResult } from '../parallel/transfer.js';
import { Engine } from '../engine.js';
import { Database } from '../storage/database.js';
import { blockWords, useSharedStore } from '../storage/shared-store.js';
import { okHeader } from '../output/envelope.js';
import { RenderHelpers, writeText } from '../output/parallel-text.js';
import { ARROW_BATCH_ROWS, writeArrowStream } from '../output/arrow.js';
import { Out, utf8 } from '../output/out.js';
import { qResultMessage } from '../output/q-result.js';
import { remoteResult, type RemoteResultMeta } from '../session/remote-result.js';
import { Session } from '../session/session.js';
import { operationByName } from '../operations/index.js';
import { type CallMessage, type EnvelopeAnswer, type EnvelopeRequest, FLOW_WINDOW, type PartResult, type StoreRequest, TIMED_OUT, type WorkerInit, type WorkerMessage } from './protocol.js';

const init = workerData as WorkerInit;
const port = parentPort!;
const flags = new Int32Array(init.cancel);
const flow = new Int32Array(init.flow);

/** A synchronous request to the executor (it answers at once: a lookup, never a file read or a query). */
const ask = (req: StoreRequest): unknown => {
  const { port: line, signal } = init.store!;
  const sig = new Int32Array(signal);
  Atomics.store(sig, 0, 0);
  line.postMessage(req);
  for (;;) {
    Atomics.wait(sig, 0, 0, 1000);
    const got = receiveMessageOnPort(line);
    if (got) return (got.message as { value: unknown }).value;
  }
};

// Column files are shared with the other workers: asked of the executor synchronously (it only
// looks them up or creates a buffer, never reads a file).
if (init.store) {
  useSharedStore({
    // buffers are allocated here, not on the serving thread (a large one is zero-filled when made)
    column: (key, rows, width) =>
      (ask({ op: 'column', key }) as { data: SharedArrayBuffer; loaded: SharedArrayBuffer } | null) ??
      (ask({ op: 'putColumn', key, width, data: new SharedArrayBuffer(Math.max(8, Math.ceil((rows * width) / 8) * 8)), loaded: new SharedArrayBuffer(blockWords(rows) * 4) }) as {
        data: SharedArrayBuffer;
        loaded: SharedArrayBuffer;
      }),
    file: (key, read) => (ask({ op: 'file', key }) as Uint8Array | null) ?? (ask({ op: 'put', key, bytes: read() }) as Uint8Array),
  });
}
const engine = new Engine(init.dbs.map((d) => Database.open(d, { cacheBytes: init.settings.cacheBytes })));
const session = new Session(engine, { maxResultBytes: init.settings.maxResultBytes, renderThreads: init.settings.workers });

/** Bytes per streamed chunk: small enough that a slow reader holds the worker back early (FLOW_WINDOW chunks). */
const STREAM_CHUNK_BYTES = 1 << 16;

const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

/**
 * The executor's other workers as call `id` sees them: idle ones are reserved and run parts of it;
 * their results come back on the parts line, waited for here with the query's cancel checks.
 */
function parallelFor(id: number, checkpoint: () => void): Parallel | undefined {
  const line = init.parts;
  if (!line || !init.store || init.settings.workers < 2) return undefined;
  const sig = new Int32Array(line.signal);
  let expected = 0;
  return {
    minRows: init.settings.splitMinRows,
    reserve: (max) => ask({ op: 'reserve', max }) as number,
    dispatch: (parts: readonly PartRequest[]) => {
      expected = parts.length;
      ask({ op: 'parts', parts });
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

/** The answer of a call whose whole result goes to the caller (not held here), as transferable buffers. */
function whole(r: QueryResult, id: number): Sent {
  const { message, transfer } = encodeResult(r);
  return new Sent({ kind: 'done', id, value: message }, transfer);
}

/** A call's answer carrying transferable buffers. */
class Sent {
  constructor(
    readonly message: WorkerMessage,
    readonly transfer: ArrayBuffer[],
  ) {}
}

/** Runs one call with the cancel check and progress reports of call `id`. */
function handle(m: CallMessage): void {
  let lastProgress = 0;
  const hooks: { -readonly [K in keyof QueryHooks]: QueryHooks[K] } = {
    maxRows: init.settings.maxResultRows,
    maxBytes: init.settings.maxResultBytes,
    checkpoint: () => {
      if (Atomics.load(flags, 0) !== m.id) return;
      throw Atomics.load(flags, 1) === TIMED_OUT ? new TickscopeError('timeout', 'the query ran past its timeout and was stopped') : new TickscopeError('cancelled', 'the query was cancelled');
    },
    progress: (done: number, total: number, unit = 'partitions') => {
      const now = performance.now();
      if (done < total && now - lastProgress < 50) return;
      lastProgress = now;
      post({ kind: 'progress', id: m.id, done, total, unit });
    },
  };
  if (m.method === 'run' || m.method === 'call' || m.method === 'envelope') {
    const parallel = parallelFor(m.id, hooks.checkpoint);
    if (parallel) hooks.parallel = parallel;
  }
  if (m.method === 'part') hooks.shard = m.params[2] as Shard;
  // a chunk goes out only while the reader is at most FLOW_WINDOW chunks behind
  Atomics.store(flow, 0, 0);
  let sent = 0;
  const postChunk = (bytes: Uint8Array): void => {
    try {
      for (let taken = Atomics.load(flow, 0); sent - taken >= FLOW_WINDOW; taken = Atomics.load(flow, 0)) {
        Atomics.store(flow, 1, sent); // held back at `sent` chunks (WorkerInit.flow)
        hooks.checkpoint();
        Atomics.wait(flow, 0, taken, 50);
      }
    } finally {
      Atomics.store(flow, 1, 0);
    }
    sent++;
    // each chunk is a buffer of its own (engine/output/out.ts): moved, not copied
    post({ kind: 'chunk', id: m.id, bytes }, [bytes.buffer as ArrayBuffer]);
  };
  // a streamed chunk: a cancel or timeout stops the rendering here (it throws)
  const sendChunk = (bytes: Uint8Array): void => {
    hooks.checkpoint();
    postChunk(bytes);
  };
  try {
    const value = withQueryHooks(hooks, () => {
      const [a, b, c, d] = m.params;
      switch (m.method) {
        case 'run':
          return session.run(a as string, b);
        case 'call':
        case 'part':
          return whole(engine.call(a as string, b), m.id);
        case 'hold': {
          // a remote gateway's Arrow answer, kept here like a local result
          const started = performance.now();
          const { result, req } = remoteResult(b as Uint8Array, c as RemoteResultMeta);
          return session.hold(req, result, started);
        }
        case 'envelope': {
          const { format, req } = c as EnvelopeRequest;
          const result = engine.call(a as string, b);
          const header = okHeader(req, result);
          if (format === 'q') {
            const q = qResultMessage(result, header, req.rcvNs, { ...(c as EnvelopeRequest).reply!, wrapInList: operationByName(a as string).qReply === 'tableInList' });
            return new Sent({ kind: 'done', id: m.id, value: { header, q } satisfies EnvelopeAnswer }, [q.buffer as ArrayBuffer]);
          }
          if (format === 'arrow') {
            // the header first (the gateway sets its response headers from it), then the IPC stream a
            // record batch at a time, its pieces gathered into chunks of their own (each moves on)
            sendChunk(utf8(JSON.stringify(header)));
            const o = new Out(sendChunk, STREAM_CHUNK_BYTES);
            const helpers = RenderHelpers.forRows(result.table.length, init.settings.workers);
            writeArrowStream(
              result.table,
              { exact: true, zone: result.outputTZ, metadata: new Map([['header', JSON.stringify(header)]]) },
              (piece) => {
                o.bytes(piece);
                if (o.full) o.flush();
              },
              ARROW_BATCH_ROWS,
              helpers,
            );
            o.flush();
            return { header } satisfies EnvelopeAnswer;
          }
          const framing = { prefix: `{"header":${JSON.stringify(header)},"payload":`, suffix: '}', chunkBytes: STREAM_CHUNK_BYTES };
          writeText('json', result.table, result.outputTZ, framing, sendChunk, RenderHelpers.forRows(result.table.length, init.settings.workers));
          return { header } satisfies EnvelopeAnswer;
        }
        case 'page':
          return session.page(a, b, c, d);
        case 'sort':
          return session.sort(a, b);
        case 'chart':
          return session.chart(a as ChartRequest);
        case 'table':
          return session.table(a);
        case 'release':
          return session.release(a);
        case 'csv': {
          // an export reports its rows written (the caller shows a progress bar)
          return session.writeCsv(a, sendChunk, (done, total) => hooks.progress(done, total, 'rows'));
        }
        case 'arrow': {
          // the file an Arrow reader opens: typed columns, UTC nanoseconds with outputTZ in the schema
          hooks.progress(0, 1, 'files');
          const bytes = session.arrowFile(a);
          hooks.checkpoint();
          postChunk(bytes);
          return { rows: null };
        }
        case 'parquet':
          // asynchronous (the writer's module loads on first use): answered when the file is written
          return session.parquet(
            a,
            (bytes) => {
              hooks.checkpoint();
              postChunk(bytes);
            },
            (done, total) => hooks.progress(done, total, 'rows'),
          );
        default:
          throw new TickscopeError('badRequest', `${m.method}: not a worker method`);
      }
    });
    if (value instanceof Promise) {
      finishLater(m, value, hooks.checkpoint);
      return;
    }
    // a cancel that lands after the last checkpoint still wins: the caller has moved on
    hooks.checkpoint();
    if (value instanceof Sent) post(value.message, value.transfer);
    else if (value instanceof Uint8Array) post({ kind: 'done', id: m.id, value }, value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? [value.buffer as ArrayBuffer] : []);
    else post({ kind: 'done', id: m.id, value });
  } catch (e) {
    const err = asTickscopeError(e);
    if (err.kind === 'internal' && process.env['TICKSCOPE_DEBUG']) console.error(e);
    post({ kind: 'fail', id: m.id, error: { kind: err.kind, message: err.message } });
  } finally {
    if (!later.has(m.id)) clearFlags(m.id);
  }
}

/** Calls answered asynchronously (a Parquet export): their cancel flags stay until they settle. */
const later = new Set<number>();

function clearFlags(id: number): void {
  if (Atomics.load(flags, 0) === id) {
    Atomics.store(flags, 0, 0);
    Atomics.store(flags, 1, 0);
  }
}

/** Answers a call whose value is a promise once it settles (the worker takes no other call meanwhile: its slot is busy). */
function finishLater(m: CallMessage, value: Promise<unknown>, checkpoint: () => void): void {
  later.add(m.id);
  value
    .then((v) => {
      checkpoint();
      post({ kind: 'done', id: m.id, value: v });
    })
    .catch((e: unknown) => {
      const err = asTickscopeError(e);
      if (err.kind === 'internal' && process.env['TICKSCOPE_DEBUG']) console.error(e);
      post({ kind: 'fail', id: m.id, error: { kind: err.kind, message: err.message } });
    })
    .finally(() => {
      later.delete(m.id);
      clearFlags(m.id);
    });
}

port.on('message', (m: CallMessage) => {
  if (m.kind !== 'call') return;
  handle(m);
});
post({ kind: 'ready' });
