/**
 * A query worker: its own engine over the mounted databases and its own held results (a Session),
 * passing the executor's calls to the session one at a time. worker-call.ts runs each call (the cancel
 * check, progress, streamed chunks, the answer); worker-lines.ts is its side of the shared column
 * store and of the parts of a split query.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ChartRequest } from '../contract.js';
import { TickscopeError } from '../core/errors.js';
import type { Shard } from '../core/query-hooks.js';
import { Engine } from '../engine.js';
import type { EnvelopeRequest } from '../session/envelope.js';
import type { RemoteResultMeta } from '../session/remote-result.js';
import { Session } from '../session/session.js';
import { type Mounted, openMount, specOf } from '../storage/mount.js';
import type { ImportRequest, PreviewRequest } from '../session/import.js';
import { CallRunner, Committed, type Method, Sent, whole } from './worker-call.js';
import { partsFor, useExecutorStore } from './worker-lines.js';
import type { CallMessage, MountMessage, WorkerInit, WorkerMessage, WorkerMethod } from './protocol.js';

const init = workerData as WorkerInit;
const port = parentPort!;

// column files are shared with the other workers, through the executor
useExecutorStore(init);
const open = (spec: (typeof init.dbs)[number]): Mounted => openMount(spec, { cacheBytes: init.settings.cacheBytes });
const engine = new Engine(init.dbs.map(open));
const session = new Session(engine, { maxResultBytes: init.settings.maxResultBytes, renderThreads: init.settings.workers });

/** What each call does with its params: the session's methods (protocol.ts: WorkerMethod). */
const METHODS: { readonly [M in WorkerMethod]: Method } = {
  run: ([op, args]) => session.run(op as string, args),
  call: ([op, args]) => whole(session.call(op as string, args)),
  part: ([op, args]) => whole(session.call(op as string, args)),
  envelope: ([op, args, request], io) => {
    const answer = session.envelope(op as string, args, request as EnvelopeRequest, io.send);
    return answer.q ? new Sent(answer, [answer.q.buffer as ArrayBuffer]) : answer;
  },
  hold: ([, bytes, meta]) => session.holdRemote(bytes as Uint8Array, meta as RemoteResultMeta),
  page: ([id, offset, limit, form]) => session.page(id, offset, limit, form),
  sort: ([id, sortCols]) => session.sort(id, sortCols),
  chart: ([req]) => session.chart(req as ChartRequest),
  table: ([id]) => session.table(id),
  release: ([id]) => session.release(id),
  // an export reports its rows written (the caller shows a progress bar)
  csv: ([id], io) => session.writeCsv(id, io.send, (done, total) => io.progress(done, total, 'rows')),
  arrow: ([id], io) => {
    // the file an Arrow reader opens: typed columns, UTC nanoseconds with outputTZ in the schema
    io.progress(0, 1, 'files');
    io.send(session.arrowFile(id));
    return { rows: null };
  },
  // answered when the file is written (the writer's module loads on first use)
  parquet: ([id], io) => session.parquet(id, io.send, (done, total) => io.progress(done, total, 'rows')),
  preview: ([, req]) => session.previewImport(req as PreviewRequest),
  // Import…: files read of all as progress, the call's cancel check between them; once it returns
  // the rows are written, so no cancel check follows (a late cancel would say cancelled of written rows)
  import: ([, req], io) => {
    const report = session.importFiles(req as ImportRequest, { progress: (done, total) => io.progress(done, total, 'files'), checkpoint: io.checkpoint }, (db) => reopen((db as Mounted).dir) ?? db);
    return new Committed(report);
  },
};

/** Opens a mounted database again (its schema.json changed) in its place; the opened one, or undefined when it is not mounted here. */
function reopen(dir: string): Mounted | undefined {
  const old = engine.databases.find((d) => d.dir === dir);
  if (!old) return undefined;
  const fresh = open(specOf(old));
  engine.replace(fresh);
  return fresh;
}

const calls = new CallRunner(init, (m: WorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer));

/**
 * A database mounted or unmounted while this worker runs. The main thread opened it first (its errors
 * were said there); one that fails here now (its folder changed since) is left out, and a query
 * naming it answers that it is not mounted.
 */
function mounts(m: MountMessage): void {
  if (m.kind === 'reopen') {
    reopen(m.dir);
    return;
  }
  if (m.kind === 'unmount') {
    if (engine.databases.some((d) => d.name === m.name)) engine.unmount(m.name);
    return;
  }
  // a worker started after the mount opened it with the rest
  if (engine.databases.some((d) => d.dir === m.spec.dir)) return;
  try {
    engine.mount(open(m.spec));
  } catch {
    // see above
  }
}

port.on('message', (m: CallMessage | MountMessage) => {
  if (m.kind === 'mount' || m.kind === 'unmount' || m.kind === 'reopen') return mounts(m);
  if (m.kind !== 'call') return;
  const method: Method =
    METHODS[m.method] ??
    (() => {
      throw new TickscopeError('badRequest', `${m.method}: not a worker method`);
    });
  // a query may split across the other workers; a part is one share of another worker's query
  const splits = m.method === 'run' || m.method === 'call' || m.method === 'envelope';
  calls.run(m, method, splits ? { parallel: (checkpoint) => partsFor(init, m.id, checkpoint) } : m.method === 'part' ? { shard: m.params[2] as Shard } : {});
});
port.postMessage({ kind: 'ready' } satisfies WorkerMessage);
