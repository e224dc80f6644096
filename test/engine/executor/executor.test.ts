/**
 * The executor: queries on worker threads (the built dist/bin/executor-worker.cjs, as serve and the
 * desktop app start it), results held where they ran, cancel, timeout, queue order, busy, result
 * limits, worker crashes, progress, and writes beside reads.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../engine/contract.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { ColumnStore, type ColumnBuffers } from '../../../engine/executor/column-store.js';
import { Executor, type ExecutorOptions, type Progress } from '../../../engine/executor/executor.js';
import { FLOW_WINDOW } from '../../../engine/executor/protocol.js';
import { loadSettings, type ProcessSettings } from '../../../engine/executor/settings.js';
import { requestInfo } from '../../../engine/output/envelope.js';
import { AppService } from '../../../engine/service/app-service.js';
import { tempDir } from '../../helpers/db.js';
import { ExecutorThreads } from '../../helpers/executor-threads.js';

let db = '';
const started: Executor[] = [];
const settings = (over: Partial<ProcessSettings> = {}): ProcessSettings => ({ ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1, ...over });
async function executor(over: Partial<ProcessSettings> = {}, options: ExecutorOptions = {}): Promise<Executor> {
  const ex = await Executor.start([db], settings(over), options);
  started.push(ex);
  return ex;
}

/** A column store that counts the answers handing a worker what another worker had already opened or read. */
class CountingStore extends ColumnStore {
  hits = 0;

  override column(key: string): ColumnBuffers | null {
    return this.count(super.column(key), null);
  }

  override putColumn(key: string, width: number, buffers: ColumnBuffers): ColumnBuffers {
    return this.count(super.putColumn(key, width, buffers), buffers);
  }

  override file(key: string): Uint8Array | null {
    return this.count(super.file(key), null);
  }

  override putFile(key: string, bytes: Uint8Array): Uint8Array {
    return this.count(super.putFile(key, bytes), bytes);
  }

  /** A lookup that found an entry, or a put that found one put before it. */
  private count<T>(held: T, given: T | null): T {
    if (held !== null && held !== given) this.hits++;
    return held;
  }
}

beforeAll(() => {
  db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 2, days: 3, instruments: 6, tradesPerDay: 30000 });
});
afterAll(async () => {
  for (const ex of started) await ex.close();
});

const ALL_TRADES = { table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01' };
const ok = (r: RunResponse): Extract<RunResponse, { ok: true }> => {
  if (!r.ok) throw new Error(`expected success, got ac ${r.header.ac}: ${r.header.ai}`);
  return r;
};

describe('the executor', () => {
  it('holds back a worker streaming to a slow reader: at most FLOW_WINDOW chunks ahead', async () => {
    const threads = new ExecutorThreads();
    const ex = await executor({}, { startWorker: threads.startWorker });
    let chunks = 0;
    const pending: Array<() => void> = [];
    const done = ex.envelope('getTicks', ALL_TRADES, { format: 'json', req: requestInfo('getTicks') }, () => {
      chunks++;
      return new Promise<void>((taken) => pending.push(taken));
    });
    const worker = threads.lastGiven('envelope');
    // the reader takes nothing: the worker is held back once it has sent FLOW_WINDOW chunks
    await expect.poll(() => threads.heldAt(worker), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(threads.heldAt(worker)).toBe(FLOW_WINDOW);
    // the chunks it sent all arrive, and while it is held (nothing taken) no other follows
    await expect.poll(() => chunks, { timeout: 30_000 }).toBe(FLOW_WINDOW);
    expect(threads.heldAt(worker)).toBe(FLOW_WINDOW);
    // the reader takes them: the rest follows
    const release = setInterval(() => {
      for (const taken of pending.splice(0)) taken();
    }, 2);
    const r = await done;
    clearInterval(release);
    expect(r.ok).toBe(true);
    expect(chunks).toBeGreaterThan(5 * FLOW_WINDOW);
  });

  it('runs a query on a worker and pages its result there, equal to the engine in this thread', async () => {
    const ex = await executor();
    const r = ok(await ex.run('getTicks', { ...ALL_TRADES, idList: ['AAPL'], columns: ['eventTimestamp', 'price', 'volume'] }));
    const local = new AppService(Engine.open([db]), 'browser');
    const l = local.run('getTicks', { ...ALL_TRADES, idList: ['AAPL'], columns: ['eventTimestamp', 'price', 'volume'] });
    if (!l.ok) throw new Error(l.header.ai);
    expect(r.rows).toBe(l.rows);
    expect(r.rows).toBeGreaterThan(1000);
    expect(await ex.page(r.resultId, 100, 50)).toEqual(local.page(l.resultId, 100, 50));
    expect(Buffer.from(await ex.table(r.resultId))).toEqual(Buffer.from(local.table(l.resultId)));
    const chunks: Uint8Array[] = [];
    for await (const chunk of ex.csv(r.resultId)) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe(Buffer.concat([...local.csv(l.resultId).chunks]).toString());
    await expect(ex.page('nope', 0, 1)).rejects.toThrow(/resultId: "nope" is not a result held here/);
  });

  it("reports an export's rows written, stops it on cancel, and the worker then answers the next call", async () => {
    const ex = await executor();
    const r = ok(await ex.run('getTicks', ALL_TRADES));
    const file = ex.exportFile(r.resultId, 'csv', 'export-1')[Symbol.asyncIterator]();
    // the reader takes one chunk: the worker is held FLOW_WINDOW chunks ahead, part way through
    expect((await file.next()).done).toBe(false);
    await expect.poll(() => ex.progress('export-1')?.done ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);
    const p = ex.progress('export-1')!;
    expect(p).toMatchObject({ state: 'running', unit: 'rows', total: r.rows });
    expect(p.done).toBeGreaterThan(0);
    expect(p.done).toBeLessThan(r.rows);
    expect(ex.cancel('export-1')).toBe(true);
    const drain = async (): Promise<void> => {
      for (let c = await file.next(); !c.done; c = await file.next());
    };
    await expect(drain()).rejects.toThrow(/cancelled/);
    expect(ex.progress('export-1')).toBeUndefined();
    // the worker is free: a whole export follows, its last report at the total
    const seen: number[] = [];
    let bytes = 0;
    for await (const chunk of ex.exportFile(r.resultId, 'csv', 'export-2')) {
      bytes += chunk.length;
      const q = ex.progress('export-2');
      if (q) seen.push(q.done);
    }
    expect(bytes).toBeGreaterThan(r.rows * 20);
    expect(seen.length).toBeGreaterThan(0);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(ex.progress('export-2')).toBeUndefined();
    // a reader that stops early stops the worker's rendering too: the next call is answered
    for await (const _ of ex.exportFile(r.resultId, 'csv')) break;
    expect((await ex.page(r.resultId, 0, 1)).rows.length).toBe(1);
  });

  it('reports progress in partitions, in order, ending at the total', async () => {
    const ex = await executor();
    const seen: Progress[] = [];
    ok(await ex.run('getTicks', ALL_TRADES, { onProgress: (p) => seen.push(p) }));
    const running = seen.filter((p) => p.state === 'running' && p.total > 0);
    expect(running.length).toBeGreaterThan(0);
    expect(running[running.length - 1]).toMatchObject({ done: 3, total: 3 });
    for (let i = 1; i < running.length; i++) expect(running[i]!.done).toBeGreaterThanOrEqual(running[i - 1]!.done);
  });

  it('cancels a running query (its result never arrives) and runs the next', async () => {
    const ex = await executor();
    const run = ex.run('getStats', { ...ALL_TRADES, granularityUnit: 'second', agg: { m: ['med', 'price'], d: ['sdev', 'price'] } }, {
      queryId: 'slow',
      onProgress: (p) => {
        if (p.state === 'running') ex.cancel('slow');
      },
    });
    const r = await run;
    expect(r.ok).toBe(false);
    expect(!r.ok && r.header.ac).toBe(40);
    expect(!r.ok && r.header.ai).toBe('the query was cancelled');
    expect(ex.cancel('slow')).toBe(false);
    expect(ok(await ex.run('getTicks', { ...ALL_TRADES, idList: ['MSFT'], columns: ['price'] })).rows).toBeGreaterThan(0);
  });

  it('answers a timeout, counted from receipt', async () => {
    const ex = await executor();
    const r = await ex.run('getTicks', ALL_TRADES, { timeoutMs: 1 });
    expect(!r.ok && r.header.ac).toBe(41);
    expect(ok(await ex.run('getTicks', { ...ALL_TRADES, idList: ['MSFT'] }, { timeoutMs: 60_000 })).rows).toBeGreaterThan(0);
  });

  it('runs queued queries in arrival order, and answers busy past maxQueuedQueries', async () => {
    const ex = await executor({ maxQueuedQueries: 2 });
    const order: string[] = [];
    const runs = ['a', 'b', 'c'].map((id) => ex.run('getTicks', { ...ALL_TRADES, idList: ['AAPL'] }, { queryId: id }).then((r) => order.push(`${id}:${r.ok}`)));
    const busy = await ex.run('getTicks', ALL_TRADES, { queryId: 'd' });
    expect(!busy.ok && busy.header.ac).toBe(43);
    expect(!busy.ok && busy.header.ai).toMatch(/^busy: 1 queries running and 2 waiting \(maxQueuedQueries 2\)/);
    await Promise.all(runs);
    expect(order).toEqual(['a:true', 'b:true', 'c:true']);
  });

  it('stops a query past maxResultRows or maxResultBytes, naming the limit', async () => {
    const ex = await executor({ maxResultRows: 1000 });
    const r = await ex.run('getTicks', ALL_TRADES);
    expect(!r.ok && r.header.ac).toBe(42);
    expect(!r.ok && r.header.ai).toMatch(/^Trade: the query selects more than maxResultRows \(1,000\) rows; .* so far after 1 of 3 partitions/);
    const small = await executor({ maxResultBytes: 1000 });
    const b = await small.run('getTicks', { ...ALL_TRADES, idList: ['AAPL'] });
    expect(!b.ok && b.header.ai).toMatch(/more than maxResultBytes \(1,000\)/);
  });

  it('fails only the calls of a worker that crashes or is killed, and replaces it', async () => {
    const threads = new ExecutorThreads();
    const ex = await executor({}, { startWorker: threads.startWorker });
    const held = ok(await ex.run('getTicks', { ...ALL_TRADES, idList: ['AAPL'] }));
    // the worker holding that result throws outside any query
    threads.crash(threads.lastGiven('run'));
    await expect.poll(async () => (await ex.run('getTicks', { ...ALL_TRADES, idList: ['MSFT'] })).ok, { timeout: 10_000 }).toBe(true);
    // the crashed worker's results are gone, with a message that says so
    await expect(ex.page(held.resultId, 0, 1)).rejects.toThrow(/is not a result held here/);
    const pending = ex.run('getTicks', ALL_TRADES);
    // the worker running it is ended, as an out-of-memory end would
    threads.kill(threads.lastGiven('run'));
    const r = await pending;
    expect(!r.ok && r.header.rc).toBe(10);
    expect(ok(await ex.run('getTicks', { ...ALL_TRADES, idList: ['MSFT'] })).rows).toBeGreaterThan(0);
  });

  it('shares column buffers between workers: the same query on two workers holds the bytes once', async () => {
    const q = { ...ALL_TRADES, idList: ['AAPL', 'MSFT'] };
    const oneStore = new CountingStore(settings().cacheBytes);
    const one = await executor({}, { store: oneStore });
    ok(await one.run('getTicks', q));
    const single = oneStore.bytes();
    expect(single).toBeGreaterThan(0);
    const twoStore = new CountingStore(settings().cacheBytes);
    const two = await executor({ workers: 2, maxRunningQueries: 2 }, { store: twoStore });
    // at once: the second query goes to the second worker
    const [a, b] = await Promise.all([two.run('getTicks', q), two.run('getTicks', q)]);
    expect(ok(a).rows).toBe(ok(b).rows);
    expect(twoStore.bytes()).toBe(single);
    // the second worker was handed every file the first had opened
    expect(oneStore.hits).toBe(0);
    expect(twoStore.hits).toBe(twoStore.size);
    expect(twoStore.size).toBe(oneStore.size);
    // and each worker's result reads the same
    expect(await two.page(ok(a).resultId, 0, 20)).toEqual(await two.page(ok(b).resultId, 0, 20));
  });

  it('runs generateOrderAnalytics beside reads on two workers: no error, no lost or doubled rows', async () => {
    const ex = await executor({ workers: 2, maxRunningQueries: 2 });
    const count = async (): Promise<number> => {
      const r = ok(await ex.run('getOrderAnalyticSummary', { table: 'OrderAnalytics', groupBy: [], summaryFunctions: ['orderCount'], agg: { n: ['count', 'i'] } }));
      const [row] = (await ex.page(r.resultId, 0, 1)).rows;
      expect(row![0]).toBe(row![1]);
      return Number(row![0]);
    };
    const before = await count();
    const work = [
      ...[1, 2, 3].map(() => ex.run('generateOrderAnalytics', { table: 'Order', startTS: '2024.01.01', endTS: '2030.01.01', regenExistingIDs: '1b' })),
      ...[1, 2, 3].map(() => ex.run('getTicks', { ...ALL_TRADES, idList: ['AAPL'], columns: ['price'] })),
      ...[1, 2].map(() => ex.run('getOrderAnalyticSummary', { table: 'OrderAnalytics' })),
    ];
    for (const r of await Promise.all(work)) ok(r);
    expect(await count()).toBe(before);
  });
});
