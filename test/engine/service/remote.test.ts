/**
 * The app's backend against a remote gateway (engine/service/remote.ts through QueryService): a real
 * `tickscope gateway` on loopback over another database, and a fake non-Tickscope service. Results
 * equal the remote database's own, timestamps exact in the outputTZ asked; tokens renewed; errors and
 * cancels answered as envelopes; forms fall back to free text when getMeta says nothing usable.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunResponse } from '../../../engine/contract.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { loadSettings } from '../../../engine/executor/settings.js';
import { Clients } from '../../../engine/gateway/clients.js';
import { type RunningGateway, startGateway } from '../../../engine/gateway/rest.js';
import { AppService } from '../../../engine/service/app-service.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { tempDir } from '../../helpers/db.js';

let local: QueryService;
let remoteSide: QueryService;
let gw: RunningGateway;
let shortGw: RunningGateway;
let fake: Server;
let fakeUrl = '';
let remoteDb = '';
let secret = '';
/** The short-lived gateway's clock: stands still unless a test moves it on. */
let shortNow = Date.now();
/** The short-lived gateway's access log. */
const shortLog: string[] = [];

beforeAll(async () => {
  const localDb = join(tempDir(), 'local');
  remoteDb = join(tempDir(), 'remote');
  generateDemo(localDb, { seed: 1, days: 1, instruments: 3, tradesPerDay: 3000 });
  generateDemo(remoteDb, { seed: 8, days: 2, instruments: 4, tradesPerDay: 6000 });
  const settings = { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 };
  local = await QueryService.start([localDb], settings, 'browser');
  remoteSide = await QueryService.start([remoteDb], settings, 'browser');
  const clients = Clients.inMemory();
  secret = clients.add('app', ['fsi.read']);
  gw = await startGateway(remoteSide, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 300, clients });
  shortGw = await startGateway(remoteSide, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 1, clients, now: () => new Date(shortNow), log: (l) => shortLog.push(l) });
  // a service that issues tokens but answers getMeta and the operations in its own way
  fake = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.includes('/token')) return res.end(JSON.stringify({ access_token: 'abc', token_type: 'Bearer', expires_in: 60 }));
    if (req.url?.includes('getMeta')) {
      res.statusCode = 404;
      return res.end('{"error":"no such api"}');
    }
    res.statusCode = 400;
    return res.end(JSON.stringify({ header: { rc: 5, ac: 6, ai: 'table: unknown', api: '.fsi.getTicks', corr: 'x', rcvTS: '2024-01-01T00:00:00.000000000', rows: 0 }, payload: null }));
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
  fakeUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await shortGw?.close();
  fake?.close();
  await local?.close();
  await remoteSide?.close();
});

const ok = (r: RunResponse): Extract<RunResponse, { ok: true }> => {
  if (!r.ok) throw new Error(`ac ${r.header.ac}: ${r.header.ai}`);
  return r;
};

describe('a remote connection', () => {
  it('refuses a wrong secret when added, naming why', async () => {
    await expect(local.addConnection({ name: 'r', baseUrl: gw.url, clientId: 'app', clientSecret: 'wrong-secret-123' })).rejects.toThrow(/refused the client \(401 unknown client or wrong secret\)/);
    await expect(local.addConnection({ baseUrl: 'ftp://x', clientId: 'a', clientSecret: 'b' })).rejects.toThrow(/baseUrl: "ftp:\/\/x" is not a URL/);
    await expect(local.addConnection({ baseUrl: gw.url, clientSecret: 'b' })).rejects.toThrow(/clientId: required/);
  });

  it('runs on the remote: the remote database\'s rows, exact in the outputTZ asked, paged from a worker', async () => {
    const list = await local.addConnection({ name: 'research', baseUrl: gw.url, clientId: 'app', clientSecret: secret });
    expect(list.find((c) => c.active)).toMatchObject({ name: 'research', kind: 'remote', url: gw.url, clientId: 'app' });
    expect(JSON.stringify(list)).not.toContain(secret);
    const info = await local.info();
    expect(info.connection?.name).toBe('research');
    expect(info.assemblies[0]!.name).toBe('remote');
    const args = { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.08', idList: ['AAPL'], columns: ['price', 'volume', 'exchTime'], outputTZ: 'America/New_York' };
    const r = ok(await local.run('getTicks', args));
    const direct = new AppService(Engine.open([remoteDb]), 'browser');
    const d = direct.run('getTicks', args);
    if (!d.ok) throw new Error(d.header.ai);
    expect(r.rows).toBe(d.rows);
    expect(r.rows).toBeGreaterThan(100);
    expect(r.outputTZ).toBe('America/New_York');
    expect(r.header.startTS).toBe(d.header.startTS);
    expect(await local.page(r.resultId, 0, 50)).toEqual(direct.page(d.resultId, 0, 50));
    expect(await local.page(r.resultId, r.rows - 5, 5)).toEqual(direct.page(d.resultId, d.rows - 5, 5));
    // getStats too, with its buckets
    const stats = { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07', granularity: 1, granularityUnit: 'hour', agg: { v: ['sum', 'volume'], c: ['count', 'price'] } };
    const s = ok(await local.run('getStats', stats));
    const sd = direct.run('getStats', stats);
    if (!sd.ok) throw new Error(sd.header.ai);
    expect(await local.page(s.resultId, 0, 100)).toEqual(direct.page(sd.resultId, 0, 100));
    // a held result sorts where it is held (this one could not be run here at all): equal to the
    // remote database's own sortCols, ties in the result's order
    const sorted = ok(await local.sort(r.resultId, [['desc', 'price'], ['asc', 'volume']]));
    const ds = direct.run('getTicks', { ...args, sortCols: [['desc', 'price'], ['asc', 'volume']] });
    if (!ds.ok) throw new Error(ds.header.ai);
    expect(sorted.rows).toBe(r.rows);
    const { baseRows, ...sortedPage } = await local.page(sorted.resultId, 0, 60);
    expect(sortedPage).toEqual(direct.page(ds.resultId, 0, 60));
    // the sorted copy's rows name their place in the held result (the grid's selection follows them)
    expect(baseRows).toHaveLength(60);
    expect(new Set(baseRows).size).toBe(60);
    expect(await local.page(r.resultId, 0, 5)).toEqual(direct.page(d.resultId, 0, 5)); // the original stays
    const badSort = await local.sort(r.resultId, [['down', 'price']]);
    expect(!badSort.ok && badSort.header.ai).toMatch(/sortCols: .* has direction "down"/);
    // an error on the remote comes back as its envelope
    const bad = await local.run('getTicks', { table: 'Nope' });
    expect(!bad.ok && bad.header.ac).toBe(6);
    // back to the embedded engine
    local.useConnection('embedded');
    expect((await local.info()).assemblies[0]!.name).toBe('local');
  });

  it('renews an expired token without the user noticing', async () => {
    // the app's clock stands still (it would renew ahead of time 5 s after it got the token): only the
    // gateway's refusal of the expired token makes it ask for a new one
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const list = await local.addConnection({ name: 'short', baseUrl: shortGw.url, clientId: 'app', clientSecret: secret });
      expect(list.find((c) => c.active)?.name).toBe('short');
      ok(await local.run('getTicks', { table: 'Instrument' }));
      shortNow += 2100; // the gateway's clock past the token's 1 s: the token the app holds has expired
      ok(await local.run('getTicks', { table: 'Instrument' }));
    } finally {
      vi.useRealTimers();
    }
    // the request with the expired token was refused, the app got a new token and asked again
    const seen = (): string[] => shortLog.map((l) => / POST (\w+) status=(\d+) /.exec(l)?.slice(1).join(' ') ?? l);
    await expect.poll(() => seen().slice(-3)).toEqual(['getTicks 401', 'token 200', 'getTicks 200']);
    expect(seen().filter((l) => l === 'token 200')).toHaveLength(2);
    local.useConnection('embedded');
  });

  it('falls back to no table list for a remote whose getMeta says nothing usable, and passes its errors through', async () => {
    await local.addConnection({ name: 'other', baseUrl: fakeUrl, clientId: 'x', clientSecret: 'y' });
    const info = await local.info();
    expect(info.assemblies[0]!.tables).toEqual([]);
    expect(info.operations.map((o) => o.name)).toContain('getTicks');
    const r = await local.run('getTicks', { table: 'Trade' });
    expect(!r.ok && r.header).toMatchObject({ ac: 6, ai: 'table: unknown' });
    expect(local.identifiers('other', 'Trade')).toEqual([]);
    local.removeConnection(local.connections().find((c) => c.name === 'other')!.id);
    expect(local.connections().find((c) => c.active)?.id).toBe('embedded');
  });
});
