/**
 * The workers-memory measurement (informational, not in the frozen list), one configuration per fresh
 * process (run with --expose-gc):
 * - `workers` N >= 1: RSS of this process (its worker threads included) before starting an Executor
 *   with N workers, then the getTicks and getStats warm cases' queries (cases-ticks.ts,
 *   cases-stats.ts), one after another, each once, as a user runs them: with 2 workers the large
 *   ones split across both (each worker reads the columns of its part through the shared store; the
 *   worker that took the query holds the merged result), then RSS again after a pause. The executor also starts its idle spare worker, in every
 *   configuration alike.
 * - `workers` 0: the fixed cost of one idle worker: RSS growth of starting one query worker (the
 *   executor's worker script, over the same databases and settings) that runs nothing.
 * Argument: JSON { db, ctx, workers }. Prints one JSON line.
 */
import { Worker } from 'node:worker_threads';
import { Executor, workerScript } from '../engine/executor/executor.js';
import type { WorkerInit, WorkerMessage } from '../engine/executor/protocol.js';
import { loadSettings } from '../engine/executor/settings.js';
import type { CaseContext } from './case-query.js';
import { statsQueries } from './cases-stats.js';
import { tickQueries } from './cases-ticks.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('bench/workers-memory: run node with --expose-gc');
const input = JSON.parse(process.argv[2]!) as { db: string; ctx: CaseContext; workers: number };
const SETTLE_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const rss = async (): Promise<number> => {
  await sleep(SETTLE_MS);
  gc();
  gc();
  return process.memoryUsage().rss;
};

async function main(): Promise<void> {
  const settings = { ...loadSettings({ env: {} }), workers: Math.max(1, input.workers), maxRunningQueries: Math.max(1, input.workers) };
  const before = await rss();
  if (input.workers === 0) {
    const init: WorkerInit = { dbs: [{ dir: input.db }], settings, cancel: new SharedArrayBuffer(8), flow: new SharedArrayBuffer(8) };
    const worker = new Worker(workerScript(), { workerData: init });
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (m: WorkerMessage) => {
        if (m.kind === 'ready') resolve();
      });
      worker.on('error', reject);
    });
    const after = await rss();
    await worker.terminate();
    process.stdout.write(`${JSON.stringify({ workers: 0, before, after, growth: after - before })}\n`);
    return;
  }
  let partsRun = 0;
  const ex = await Executor.start([input.db], settings, { onPartStarted: () => partsRun++ });
  try {
    const started = await rss();
    const queries = Object.entries({ ...tickQueries(input.ctx), ...statsQueries(input.ctx) });
    const ran: Array<{ id: string; rows: number; ms: number }> = [];
    for (const [id, q] of queries) {
      const t0 = performance.now();
      const r = await ex.run(q.op, q.args);
      if (!r.ok) throw new Error(`workers-memory: ${id} failed: ac ${r.header.ac}: ${r.header.ai}`);
      ran.push({ id, rows: r.rows, ms: performance.now() - t0 });
    }
    const after = await rss();
    process.stdout.write(`${JSON.stringify({ workers: input.workers, before, started, after, growth: after - before, ran, partsRun })}\n`);
  } finally {
    await ex.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
