/**
 * Issue 25, REST side: no client can take the gateway down or hold it. Each case is a defect found by
 * a hostile client, and each ends by checking that a correct query and a correct write still answer:
 * nested bodies (5,000 and 100,000 deep) bounded while parsing; a throw at each boundary of the
 * executor (an uncloneable or too-deep value for postMessage, a reader whose write throws, a progress
 * listener that throws) failing only its request; slow readers cut after writeStallMs; per-client
 * limits (429 with Retry-After); getStats racking bounded by maxResultRows before it builds rows;
 * Content-Encoding honoured; bad values quoted short; the identity lifecycle (a removed client's
 * tokens refused at once, failed secrets throttled, `bearer` in any case, `iat` in the future refused).
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../../engine/demo/generate.js';
import { loadSettings, type ProcessSettings } from '../../../engine/executor/settings.js';
import { Clients } from '../../../engine/gateway/clients.js';
import { FAILED_SECRETS_PER_MINUTE, type RunningGateway, startGateway } from '../../../engine/gateway/rest.js';
import { requestInfo } from '../../../engine/output/envelope.js';
import { OwnIssuer } from '../../../engine/gateway/tokens.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { tempDir } from '../../helpers/db.js';

let db = '';
let service: QueryService;
let gw: RunningGateway;
const clientsFile = join(tempDir(), 'clients.json');
let secret = '';
let writerSecret = '';
const log: string[] = [];
const DAY = { startTS: '2024.03.06', endTS: '2024.03.07' };

beforeAll(async () => {
  db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 25, days: 2, instruments: 4, tradesPerDay: 40_000 });
  const clients = Clients.load(clientsFile);
  secret = clients.add('reader', ['fsi.read']);
  writerSecret = clients.add('writer', ['fsi.read', 'fsi.generate']);
  // two workers, as the machine the defects were found on: a failure must not escape while both are busy
  service = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 2, maxRunningQueries: 2, writeStallMs: 600 }, 'browser');
  gw = await startGateway(service, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 300, clients: Clients.load(clientsFile), log: (l) => log.push(l) });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await service?.close();
});

async function token(id = 'reader', s = secret, on = gw): Promise<string> {
  const r = await fetch(on.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: s }) });
  expect(r.status).toBe(200);
  return ((await r.json()) as { access_token: string }).access_token;
}

type Header = { rc: number; ac: number; ai: string; rows?: number };

async function post(path: string, body: string | Uint8Array, headers: Record<string, string>, on = gw): Promise<{ status: number; header: Header; text: string; res: Response }> {
  const res = await fetch(`${on.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body as BodyInit });
  const text = await res.text();
  let header = {} as Header;
  try {
    header = (JSON.parse(text) as { header: Header }).header;
  } catch {
    // not an envelope (a token endpoint's answer)
  }
  return { status: res.status, header, text, res };
}

/** A correct query and a correct write answer: the gateway is alive and its workers are free. */
async function stillServes(on = gw): Promise<void> {
  const t = await token('writer', writerSecret, on);
  const q = await post('/servicegateway/fsi/getTicks', JSON.stringify({ table: 'Trade', ...DAY, idList: ['AAPL'] }), { authorization: `Bearer ${t}` }, on);
  expect(q.status).toBe(200);
  expect(q.header.rows).toBeGreaterThan(0);
  const w = await post('/servicegateway/fsi/eqea/generateOrderAnalytics', JSON.stringify({ table: 'Order', dt: '2024.03.06' }), { authorization: `Bearer ${t}` }, on);
  expect(w.status).toBe(200);
  expect(w.header.rc).toBe(0);
}

const nested = (depth: number): string => `{"table":"Trade","startTS":"2024.03.06","endTS":"2024.03.07","filter":${'['.repeat(depth)}${']'.repeat(depth)}}`;

describe('nested bodies', () => {
  it.each([5_000, 100_000])('a %i-deep body answers 400 naming the argument and the limit, twice, and the gateway still serves', async (depth) => {
    const t = await token();
    for (let i = 0; i < 3; i++) {
      const r = await post('/servicegateway/fsi/getTicks', nested(depth), { authorization: `Bearer ${t}` });
      expect(r.status).toBe(400);
      expect(r.header).toMatchObject({ rc: 5, ac: 57 });
      expect(r.header.ai).toMatch(/^filter: nested deeper than 64 levels .*maxJsonDepth 64/);
    }
    expect(service.executor.runningQueries).toBe(0);
    await stillServes();
  });

  it('counts values while parsing: past maxJsonElements is 400 ac 57', async () => {
    const small = await startGateway(service, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 300, clients: Clients.load(clientsFile), limits: { maxJsonElements: 1000 } });
    try {
      const t = await token('reader', secret, small);
      const r = await post('/servicegateway/fsi/getTicks', JSON.stringify({ table: 'Trade', ...DAY, idList: Array.from({ length: 2000 }, (_, i) => `X${i}`) }), { authorization: `Bearer ${t}` }, small);
      expect(r.status).toBe(400);
      expect(r.header.ai).toMatch(/^idList: holds more than 1000 values \(maxJsonElements 1000\)/);
    } finally {
      await small.close();
    }
  });
});

describe('a throw at each boundary of the executor fails only its request', () => {
  const ex = (): QueryService['executor'] => service.executor;

  it('a value postMessage refuses (uncloneable) answers badRequest and frees the worker', async () => {
    const r = await ex().run('getTicks', { table: 'Trade', ...DAY, idList: ['AAPL'], extra: () => 1 });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.header.ai).toMatch(/^args: cannot be handed to a query worker/);
    expect(ex().runningQueries).toBe(0);
    await stillServes();
  });

  it('a value too deep for the structured clone (past raised limits) answers an error, on an idle and on a busy executor', async () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const loose: ProcessSettings = { ...service.executor.settings, maxJsonDepth: 1_000_000, maxJsonElements: 10_000_000 };
    const other = await QueryService.start([db], { ...loose, workers: 2, maxRunningQueries: 2 }, 'browser');
    try {
      const idle = await other.executor.run('getTicks', { table: 'Trade', ...DAY, filter: deep });
      expect(idle.ok).toBe(false);
      // both workers busy: the refused query waits in the queue, and is refused when a worker frees
      const slow = { table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01', granularity: 1, granularityUnit: 'second', agg: { m: ['med', 'price'] } };
      const busy = [other.executor.run('getStats', slow), other.executor.run('getStats', slow)];
      const refused = other.executor.run('getTicks', { table: 'Trade', ...DAY, filter: deep });
      const [a, b, c] = await Promise.all([...busy, refused]);
      expect(a!.ok && b!.ok).toBe(true);
      expect(c!.ok).toBe(false);
      expect(other.executor.runningQueries).toBe(0);
      const next = await other.executor.run('getTicks', { table: 'Trade', ...DAY, idList: ['AAPL'] });
      expect(next.ok).toBe(true);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('a reader whose write throws stops the query; a throwing progress listener does not', async () => {
    const r = await ex().envelope('getTicks', { table: 'Trade', ...DAY }, { format: 'json', req: requestInfo('.fsi.getTicks') }, () => {
      throw new Error('the connection failed under the renderer');
    });
    expect(r.ok).toBe(false);
    const p = await ex().run('getTicks', { table: 'Trade', ...DAY, idList: ['AAPL'] }, { onProgress: () => { throw new Error('a listener bug'); } });
    expect(p.ok).toBe(true);
    expect(ex().runningQueries).toBe(0);
    await stillServes();
  });
});

describe('slow readers, per-client limits, result limits', () => {
  it('a client that reads nothing of a large answer is cut after writeStallMs and its worker freed', async () => {
    const t = await token();
    const url = new URL(`${gw.url}/servicegateway/fsi/getTicks`);
    const body = JSON.stringify({ table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01' });
    // two readers that never read: without the cut they would hold both workers for good
    const responses: Array<import('node:http').IncomingMessage> = [];
    const closed = [0, 1].map(
      () =>
        new Promise<void>((resolve) => {
          const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' } }, (res) => {
            res.pause();
            responses.push(res);
            res.on('close', () => resolve());
            res.on('error', () => resolve());
          });
          req.on('error', () => resolve());
          req.end(body);
        }),
    );
    const cuts = (): number => log.filter((l) => / cut: read nothing for 600 ms \(writeStallMs\)/.test(l)).length;
    for (let i = 0; i < 200 && cuts() < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(cuts()).toBe(2);
    // the gateway closed both connections: a reader that looks now finds its answer cut short
    for (const res of responses) res.resume();
    await Promise.all(closed);
    expect(service.executor.runningQueries).toBe(0);
    await stillServes();
  }, 30_000);

  it('answers 429 with Retry-After past maxInFlightPerClient and maxRequestsPerClientPerMinute', async () => {
    const limited = await startGateway(service, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 300, clients: Clients.load(clientsFile), limits: { maxInFlightPerClient: 1, maxRequestsPerClientPerMinute: 3 } });
    try {
      const t = await token('reader', secret, limited);
      const slow = JSON.stringify({ table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01', granularity: 1, granularityUnit: 'second', agg: { m: ['med', 'price'] } });
      const [a, b] = await Promise.all([post('/servicegateway/fsi/getStats', slow, { authorization: `Bearer ${t}` }, limited), post('/servicegateway/fsi/getStats', slow, { authorization: `Bearer ${t}` }, limited)]);
      const refused = [a, b].find((r) => r.status === 429)!;
      expect([a.status, b.status].sort()).toEqual([200, 429]);
      expect(refused.header).toMatchObject({ ac: 56 });
      expect(refused.header.ai).toMatch(/maxInFlightPerClient 1/);
      expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(0);
      const third = await post('/servicegateway/fsi/getTicks', JSON.stringify({ table: 'Instrument' }), { authorization: `Bearer ${t}` }, limited);
      expect(third.status).toBe(200);
      const fourth = await post('/servicegateway/fsi/getTicks', JSON.stringify({ table: 'Instrument' }), { authorization: `Bearer ${t}` }, limited);
      expect(fourth.status).toBe(429);
      expect(fourth.header.ai).toMatch(/more than 3 requests this minute \(maxRequestsPerClientPerMinute\)/);
      expect(Number(fourth.res.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  }, 30_000);

  it('getStats racking is bounded by maxResultRows before it builds a row', async () => {
    const other = await QueryService.start([db], { ...service.executor.settings, workers: 1, maxRunningQueries: 1, maxResultRows: 100_000 }, 'browser');
    try {
      const r = await other.executor.run('getStats', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.08', granularity: 1, granularityUnit: 'second', fill: 'forward', agg: { p: ['last', 'price'] } });
      expect(r.ok).toBe(false);
      expect(!r.ok && r.header).toMatchObject({ ac: 42 });
      expect(!r.ok && r.header.ai).toMatch(/^getStats: racking 172,800 buckets × 4 groups gives: 691,200 rows, more than maxResultRows \(100,000\)/);
      // a query within the limit still answers
      const rows = await other.executor.run('getTicks', { table: 'Trade', ...DAY, idList: ['AAPL'] });
      expect(rows.ok).toBe(true);
    } finally {
      await other.close();
    }
  }, 30_000);
});

describe('bodies and values', () => {
  it('honours Content-Encoding: a gzip body is read, a plain body labelled gzip is 400, an unknown coding 415', async () => {
    const t = await token();
    const body = JSON.stringify({ table: 'Trade', ...DAY, idList: ['AAPL'] });
    const real = await post('/servicegateway/fsi/getTicks', gzipSync(body), { authorization: `Bearer ${t}`, 'content-encoding': 'gzip' });
    expect(real.status).toBe(200);
    expect(real.header.rows).toBeGreaterThan(0);
    const fake = await post('/servicegateway/fsi/getTicks', body, { authorization: `Bearer ${t}`, 'content-encoding': 'gzip' });
    expect(fake.status).toBe(400);
    expect(fake.header.ai).toMatch(/^body: not valid gzip data/);
    const other = await post('/servicegateway/fsi/getTicks', body, { authorization: `Bearer ${t}`, 'content-encoding': 'zstd-ish' });
    expect(other.status).toBe(415);
    // a bomb stops at maxBodyBytes (8 MiB) whatever it unpacks to
    const bomb = await post('/servicegateway/fsi/getTicks', gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)), { authorization: `Bearer ${t}`, 'content-encoding': 'gzip' });
    expect(bomb.status).toBe(413);
  });

  it('quotes at most ~200 characters of a bad value', async () => {
    const t = await token();
    const r = await post('/servicegateway/fsi/getTicks', JSON.stringify({ table: 'T'.repeat(1_000_000), ...DAY }), { authorization: `Bearer ${t}` });
    expect(r.status).toBe(400);
    expect(r.text.length).toBeLessThan(2000);
    const bad = await post('/servicegateway/fsi/getTicks', `{"table":"${'x'.repeat(500_000)}`, { authorization: `Bearer ${t}` });
    expect(bad.status).toBe(400);
    expect(bad.text.length).toBeLessThan(2000);
  });
});

describe('identity lifecycle', () => {
  it('accepts the bearer scheme in any case and refuses a token issued in the future', async () => {
    const t = await token();
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const r = await post('/servicegateway/fsi/getTicks', JSON.stringify({ table: 'Instrument' }), { authorization: `${scheme} ${t}` });
      expect(r.status).toBe(200);
    }
    // a token signed with the issuer's own key but issued an hour ahead (a broken clock, or a forger)
    const key = new Uint8Array(32).fill(7);
    const issuer = new OwnIssuer('http://127.0.0.1/auth/realms/tickscope', 'tickscope', 300, key);
    const now = Math.floor(Date.now() / 1000);
    const sign = (iat: number): Promise<string> =>
      new SignJWT({ scope: 'fsi.read' }).setProtectedHeader({ alg: 'HS256' }).setSubject('reader').setIssuer(issuer.issuer).setAudience('tickscope').setIssuedAt(iat).setExpirationTime(now + 7200).sign(key);
    await expect(issuer.verify(await sign(now + 3600))).rejects.toThrow(/issued in the future \(iat \d+, more than 60 s ahead/);
    // within the skew allowed between machines' clocks, accepted
    await expect(issuer.verify(await sign(now + 30))).resolves.toMatchObject({ subject: 'reader' });
  });

  it('a client removed from the clients file loses its tokens and its token requests at once', async () => {
    const file = join(tempDir(), 'clients.json');
    const admin = Clients.load(file);
    const gone = admin.add('leaving', ['fsi.read']);
    admin.add('staying', ['fsi.read']);
    const own = await startGateway(service, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 300, clients: Clients.load(file) });
    try {
      const t = await token('leaving', gone, own);
      expect((await post('/servicegateway/fsi/getTicks', JSON.stringify({ table: 'Instrument' }), { authorization: `Bearer ${t}` }, own)).status).toBe(200);
      // another process (tickscope clients remove) rewrites the file
      Clients.load(file).remove('leaving');
      const after = await post('/servicegateway/fsi/getTicks', JSON.stringify({ table: 'Instrument' }), { authorization: `Bearer ${t}` }, own);
      expect(after.status).toBe(401);
      expect(after.header.ai).toMatch(/no longer registered/);
      const again = await fetch(own.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'leaving', client_secret: gone }) });
      expect(again.status).toBe(401);
    } finally {
      await own.close();
    }
  });

  it('throttles failed secrets per client id, whatever the address does next', async () => {
    let last: Response | undefined;
    for (let i = 0; i <= FAILED_SECRETS_PER_MINUTE; i++) {
      last = await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'writer', client_secret: `guess-${i}-xxxxxxxx` }) });
    }
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    // even the right secret is refused for the rest of the minute: a guesser cannot tell it found it
    const right = await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'writer', client_secret: writerSecret }) });
    expect(right.status).toBe(429);
    // another client of the same address is not held back
    expect((await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'reader', client_secret: secret }) })).status).toBe(200);
  });
});
