/**
 * The gateway's 503 and 500: a full queue answers busy with Retry-After; a worker lost under a query
 * (killed, as an out-of-memory end would) answers an internal error (rc 10); the next query works.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { Executor } from '../../../engine/executor/executor.js';
import { loadSettings } from '../../../engine/executor/settings.js';
import { Clients } from '../../../engine/gateway/clients.js';
import { type RunningGateway, startGateway } from '../../../engine/gateway/rest.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { tempDir } from '../../helpers/db.js';
import { ExecutorThreads } from '../../helpers/executor-threads.js';

let service: QueryService;
const threads = new ExecutorThreads();
let gw: RunningGateway;
let token = '';
const SLOW = { table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01', granularity: 1, granularityUnit: 'second', agg: { m: ['med', 'price'], d: ['sdev', 'price'], x: ['max', 'volume'] } };

beforeAll(async () => {
  const db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 6, days: 3, instruments: 6, tradesPerDay: 30000 });
  const clients = Clients.inMemory();
  const secret = clients.add('lim', ['fsi.read']);
  // the service QueryService.start makes, its worker threads watched (to end the one running a query)
  const settings = { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1, maxQueuedQueries: 0 };
  service = new QueryService(Engine.open([db]), await Executor.start([db], settings, { startWorker: threads.startWorker }), 'browser');
  gw = await startGateway(service, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 300, clients });
  const r = await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'lim', client_secret: secret }) });
  token = ((await r.json()) as { access_token: string }).access_token;
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await service?.close();
});

const call = (body: unknown): Promise<Response> =>
  fetch(`${gw.url}/servicegateway/fsi/getStats`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Waits until the slow query runs on the worker. */
async function running(): Promise<void> {
  for (let i = 0; i < 200 && service.executor.runningQueries === 0; i++) await new Promise((r) => setTimeout(r, 10));
  if (service.executor.runningQueries === 0) throw new Error('the slow query never started');
}

describe('gateway limits', () => {
  it('answers 503 busy with Retry-After while the queue is full', async () => {
    const first = call(SLOW);
    await running();
    const second = await call({ table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01', analytics: ['vwap'] });
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(((await second.json()) as { header: { ac: number; ai: string } }).header).toMatchObject({ ac: 43, ai: expect.stringMatching(/busy: 1 queries running and 0 waiting \(maxQueuedQueries 0\)/) });
    const done = await first;
    expect(done.status).toBe(200);
    await done.text(); // the response ends when the query has released its worker
  });

  it('answers 500 (rc 10) when the worker running the query is lost, and the next query works', async () => {
    const first = call(SLOW);
    await running();
    threads.kill(threads.lastGiven('envelope'));
    const r = await first;
    expect(r.status).toBe(500);
    expect(((await r.json()) as { header: { rc: number; ac: number } }).header).toMatchObject({ rc: 10, ac: 99 });
    const next = await call({ table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01', analytics: ['vwap'] });
    expect(next.status).toBe(200);
  });
});
