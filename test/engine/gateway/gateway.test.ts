/**
 * The REST gateway on loopback (engine/gateway/rest.ts): OAuth2 client credentials tokens (own issuer)
 * and RS256 tokens of an external issuer whose JWKS the test serves; every operation's rows equal to
 * what `tickscope call` prints; every rejection with its status and message; Arrow and gzip; the
 * clients command.
 */
import { spawnSync } from 'node:child_process';
import { connect as tcpConnect } from 'node:net';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { tableFromIPC } from 'apache-arrow';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { loadSettings } from '../../../engine/executor/settings.js';
import { Clients } from '../../../engine/gateway/clients.js';
import { envelopeJson, requestInfo } from '../../../engine/output/envelope.js';
import { type RunningGateway, startGateway, TOKEN_REQUESTS_PER_MINUTE } from '../../../engine/gateway/rest.js';
import { ExternalIssuer } from '../../../engine/gateway/tokens.js';
import { startQGateway } from '../../../engine/gateway/qipc/server.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { tempDir } from '../../helpers/db.js';
import { qTableCall } from '../../helpers/q.js';

let db = '';
let service: QueryService;
let gw: RunningGateway;
let ext: RunningGateway;
let short: RunningGateway;
let jwksServer: Server;
const logLines: string[] = [];
const clientsFile = join(tempDir(), 'clients.json');
let readerSecret = '';
let writerSecret = '';
let keys: Awaited<ReturnType<typeof generateKeyPair>>;
let jwksUrl = '';
/** The short-lived gateway's clock: stands still unless a test moves it on. */
let shortNow = Date.now();
const ISSUER = 'http://127.0.0.1/realms/test';

const ALL = { startTS: '2024.01.01', endTS: '2030.01.01' };

beforeAll(async () => {
  db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 3, days: 2, instruments: 5, tradesPerDay: 8000 });
  const clients = Clients.load(clientsFile);
  readerSecret = clients.add('reader', ['fsi.read']);
  writerSecret = clients.add('writer', ['fsi.read', 'fsi.generate']);
  service = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
  gw = await startGateway(service, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 300, clients: Clients.load(clientsFile), log: (l) => logLines.push(l) });
  short = await startGateway(service, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 1, clients: Clients.load(clientsFile), now: () => new Date(shortNow) });
  // an external issuer: its JWKS served by the test on loopback
  keys = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwksServer = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', () => r()));
  const addr = jwksServer.address() as { port: number };
  jwksUrl = `http://127.0.0.1:${addr.port}/certs`;
  ext = await startGateway(service, {
    host: '127.0.0.1',
    port: 0,
    realm: 'tickscope',
    tokenTtlSeconds: 300,
    clients: Clients.inMemory(),
    external: new ExternalIssuer(jwksUrl, ISSUER, 'tickscope-api', 'realm_access.roles'),
  });
});
afterAll(async () => {
  await gw?.close();
  await short?.close();
  await ext?.close();
  jwksServer?.close();
  await service?.close();
});

async function token(id: string, secret: string, on = gw): Promise<string> {
  const r = await fetch(on.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }) });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { access_token: string; token_type: string; expires_in: number };
  expect(body.token_type).toBe('Bearer');
  return body.access_token;
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}, on = gw): Promise<Response> {
  return fetch(`${on.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** What `tickscope call` prints for this operation: its envelope's payload. */
function callPayload(op: string, args: unknown): unknown {
  return (JSON.parse(envelopeJson(requestInfo(op), Engine.open([db]).call(op, args))) as { payload: unknown }).payload;
}

describe('the REST gateway', () => {
  it('answers every operation with a token: the same rows as tickscope call, each path of SPEC 1', async () => {
    const t = await token('writer', writerSecret);
    const auth = { authorization: `Bearer ${t}` };
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ['/servicegateway/fsi/getTicks', 'getTicks', { table: 'Trade', ...ALL, idList: ['AAPL', 'MSFT'], columns: ['price', 'volume', 'conditions'] }],
      ['/servicegateway/fsi/getStats', 'getStats', { table: 'Trade', ...ALL, granularity: 1, granularityUnit: 'hour', agg: { v: ['sum', 'volume'], p: ['last', 'price'] } }],
      ['/servicegateway/fsi/getOrderAnalyticSummary', 'getOrderAnalyticSummary', { table: 'OrderAnalytics', ...ALL, groupBy: ['instrumentID'] }],
      ['/servicegateway/fsi/eqea/getOrderAnalyticSummary', 'getOrderAnalyticSummary', { table: 'OrderAnalytics', ...ALL, groupBy: ['algoStrategy'] }],
    ];
    for (const [path, op, args] of cases) {
      const r = await post(path, args, auth);
      expect(r.status, path).toBe(200);
      const body = (await r.json()) as { header: { rc: number; rows: number; corr: string }; payload: unknown[] };
      expect(body.header.rc).toBe(0);
      expect(body.header.corr).toBe(r.headers.get('x-tickscope-corr'));
      expect(body.payload.length).toBeGreaterThan(0);
      expect(body.header.rows).toBe(body.payload.length);
      expect(body.payload, path).toEqual(callPayload(op, args));
    }
    // generateOrderAnalytics writes: regenerating the same orders twice gives the same rows
    const gen = { table: 'Order', dt: '2024.03.06', regenExistingIDs: '1b' };
    const r = await post('/servicegateway/fsi/eqea/generateOrderAnalytics', gen, auth);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { payload: unknown[] };
    expect(body.payload.length).toBeGreaterThan(0);
    expect(body.payload).toEqual(callPayload('generateOrderAnalytics', gen));
    expect(logLines.some((l) => l.includes('POST generateOrderAnalytics status=200') && l.includes('client=writer'))).toBe(true);
  });

  it('answers getMeta with what the forms need', async () => {
    const t = await token('reader', readerSecret);
    const r = await post('/servicegateway/kxi/getMeta', {}, { authorization: `Bearer ${t}` });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { payload: { assemblies: Array<{ tables: Array<{ name: string; columns: unknown[] }> }>; operations: Array<{ name: string }> } };
    expect(body.payload.assemblies[0]!.tables.map((x) => x.name)).toContain('Trade');
    expect(body.payload.operations.map((o) => o.name)).toEqual(['getTicks', 'getStats', 'getOrderAnalyticSummary', 'generateOrderAnalytics']);
    // not the serving process's own connection: its database folders and clients file stay its own
    expect(body.payload).not.toHaveProperty('connection');
    expect(JSON.stringify(body.payload)).not.toContain(db);
    expect(JSON.stringify(body.payload)).not.toContain(clientsFile);
  });

  it('answers Arrow when asked, the header in the schema metadata and response headers, timestamps in outputTZ', async () => {
    const t = await token('reader', readerSecret);
    const args = { table: 'Trade', ...ALL, idList: ['AAPL'], columns: ['price', 'volume'], outputTZ: 'America/New_York' };
    const r = await post('/servicegateway/fsi/getTicks', args, { authorization: `Bearer ${t}`, accept: 'application/vnd.apache.arrow.stream' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/vnd.apache.arrow.stream');
    const table = tableFromIPC(new Uint8Array(await r.arrayBuffer()));
    const header = JSON.parse(table.schema.metadata.get('header')!) as { rc: number; rows: number };
    const rows = callPayload('getTicks', args) as Array<{ price: number; volume: number }>;
    expect(header.rows).toBe(rows.length);
    expect(r.headers.get('x-tickscope-rows')).toBe(String(rows.length));
    expect(table.numRows).toBe(rows.length);
    expect(Array.from(table.getChild('price')!.toArray() as Float64Array).slice(0, 50)).toEqual(rows.slice(0, 50).map((x) => x.price));
    expect((table.getChild('volume')!.get(0) as bigint).toString()).toBe(String(rows[0]!.volume));
    expect(String(table.schema.fields[0]!.type)).toBe('Timestamp<NANOSECOND, America/New_York>');
  });

  it('compresses with gzip when asked', async () => {
    const t = await token('reader', readerSecret);
    const args = { table: 'Trade', ...ALL, columns: ['price'] };
    const url = new URL(`${gw.url}/servicegateway/fsi/getTicks`);
    const { headers, body } = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json', 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(args));
    });
    expect(headers['content-encoding']).toBe('gzip');
    const parsed = JSON.parse(gunzipSync(body).toString('utf8')) as { payload: unknown[] };
    expect(parsed.payload).toEqual(callPayload('getTicks', args));
  });

  it('rejects requests without a good token, each with 401, WWW-Authenticate and the reason', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{}, /Authorization: missing/],
      [{ authorization: 'Basic abc' }, /Authorization: malformed/],
      [{ authorization: 'Bearer not-a-jwt' }, /malformed/],
      [{ authorization: `Bearer ${await token('reader', readerSecret, short)}` }, /another issuer|signature/],
    ];
    for (const [headers, why] of cases) {
      const r = await post('/servicegateway/fsi/getTicks', { table: 'Trade' }, headers);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="tickscope"/);
      const body = (await r.json()) as { header: { ac: number; ai: string } };
      expect(body.header.ac).toBe(50);
      expect(body.header.ai).toMatch(why);
    }
  });

  it('expires its tokens', async () => {
    const t = await token('reader', readerSecret, short);
    expect((await post('/servicegateway/fsi/getTicks', { table: 'Instrument' }, { authorization: `Bearer ${t}` }, short)).status).toBe(200);
    shortNow += 2100; // the gateway's clock past the token's 1 s
    const r = await post('/servicegateway/fsi/getTicks', { table: 'Instrument' }, { authorization: `Bearer ${t}` }, short);
    expect(r.status).toBe(401);
    expect(((await r.json()) as { header: { ai: string } }).header.ai).toMatch(/expired/);
  });

  it('checks the scope of the operation: 403', async () => {
    const t = await token('reader', readerSecret);
    const r = await post('/servicegateway/fsi/eqea/generateOrderAnalytics', { table: 'Order', dt: '2024.03.06' }, { authorization: `Bearer ${t}` });
    expect(r.status).toBe(403);
    expect(((await r.json()) as { header: { ac: number; ai: string } }).header).toMatchObject({ ac: 51, ai: expect.stringMatching(/lack fsi\.generate/) });
  });

  it('answers the token endpoint as OAuth2 says: wrong secret, Basic credentials, other grants', async () => {
    const bad = await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'reader', client_secret: `${readerSecret}x` }) });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client or wrong secret' });
    const unknown = await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x'.repeat(20) }) });
    expect(unknown.status).toBe(401);
    const basic = await fetch(gw.tokenUrl!, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`reader:${readerSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(basic.status).toBe(200);
    const grant = await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'password', client_id: 'reader', client_secret: readerSecret }) });
    expect(grant.status).toBe(400);
    expect(((await grant.json()) as { error: string }).error).toBe('unsupported_grant_type');
  });

  it('answers 404, 405, 415, 413 and 400, each naming the part at fault', async () => {
    const t = await token('reader', readerSecret);
    const auth = { authorization: `Bearer ${t}` };
    const expectError = async (r: Response, status: number, ac: number, ai: RegExp): Promise<void> => {
      expect(r.status).toBe(status);
      const body = (await r.json()) as { header: { ac: number; ai: string; corr: string } };
      expect(body.header.ac).toBe(ac);
      expect(body.header.ai).toMatch(ai);
      expect(body.header.corr).toBe(r.headers.get('x-tickscope-corr'));
    };
    await expectError(await post('/servicegateway/fsi/nothing', {}, auth), 404, 52, /no such path/);
    await expectError(await fetch(`${gw.url}/servicegateway/fsi/getTicks`, { headers: auth }), 405, 53, /only POST/);
    await expectError(await fetch(`${gw.url}/servicegateway/fsi/getTicks`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'x' }), 415, 55, /Content-Type: "text\/plain"/);
    await expectError(await post('/servicegateway/fsi/getTicks', `{"table":"${'x'.repeat(9 * 1024 * 1024)}"}`, auth), 413, 54, /body: larger than/);
    await expectError(await post('/servicegateway/fsi/getTicks', '{"table":', auth), 400, 13, /body: not JSON/);
    await expectError(await post('/servicegateway/fsi/getTicks', '[1]', auth), 400, 13, /body: expected a JSON object/);
    await expectError(await post('/servicegateway/fsi/getTicks', { table: 'Trade', colums: ['price'] }, auth), 400, 2, /colums/);
    await expectError(await post('/servicegateway/fsi/getTicks', { table: 'Trade' }, { ...auth, timeout: 'soon' }), 400, 4, /timeout header/);
  });

  it('stops a query past the timeout header: 504', async () => {
    const t = await token('reader', readerSecret);
    const r = await post('/servicegateway/fsi/getStats', { table: 'Trade', ...ALL, granularity: 1, granularityUnit: 'second', agg: { m: ['med', 'price'], d: ['sdev', 'price'] } }, { authorization: `Bearer ${t}`, timeout: '1' });
    expect(r.status).toBe(504);
    expect(((await r.json()) as { header: { ac: number } }).header.ac).toBe(41);
  });

  it('limits token requests per client: 429 with Retry-After', async () => {
    let last: Response | undefined;
    for (let i = 0; i <= TOKEN_REQUESTS_PER_MINUTE; i++) {
      last = await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'flood', client_secret: 'x'.repeat(20) }) });
    }
    expect(last!.status).toBe(429);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    // another client is not held back
    expect((await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'reader', client_secret: readerSecret }) })).status).toBe(200);
  });

  describe('with an external issuer (RS256, JWKS on loopback)', () => {
    const claims = { realm_access: { roles: ['fsi.read'] } };
    const sign = (over: { iss?: string; aud?: string; exp?: number; nbf?: number } = {}, key = keys.privateKey, kid = 'k1') =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid })
        .setIssuer(over.iss ?? ISSUER)
        .setAudience(over.aud ?? 'tickscope-api')
        .setSubject('svc')
        .setIssuedAt()
        .setExpirationTime(over.exp ?? Math.floor(Date.now() / 1000) + 60)
        .setNotBefore(over.nbf ?? Math.floor(Date.now() / 1000) - 5)
        .sign(key);
    const call = (t: string) => post('/servicegateway/fsi/getTicks', { table: 'Instrument' }, { authorization: `Bearer ${t}` }, ext);
    const reason = async (r: Response): Promise<string> => {
      expect(r.status).toBe(401);
      return ((await r.json()) as { header: { ai: string } }).header.ai;
    };
    const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');

    it('accepts its tokens, scopes from the configured claim', async () => {
      const r = await call(await sign());
      expect(r.status).toBe(200);
      // no token endpoint of its own
      expect((await fetch(`${ext.url}/auth/realms/tickscope/protocol/openid-connect/token`, { method: 'POST' })).status).toBe(404);
    });

    it('rejects expired, not-yet-valid, wrong-issuer, wrong-audience, forged, alg none and HS256-with-the-public-key tokens', async () => {
      const now = Math.floor(Date.now() / 1000);
      expect(await reason(await call(await sign({ exp: now - 10 })))).toMatch(/expired/);
      expect(await reason(await call(await sign({ nbf: now + 600 })))).toMatch(/not valid yet/);
      expect(await reason(await call(await sign({ iss: 'http://evil/realms/test' })))).toMatch(/another issuer/);
      expect(await reason(await call(await sign({ aud: 'other' })))).toMatch(/another audience/);
      const other = await generateKeyPair('RS256');
      expect(await reason(await call(await sign({}, other.privateKey)))).toMatch(/signature does not verify/);
      const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims, iss: ISSUER, aud: 'tickscope-api', sub: 'svc', exp: now + 60 })}.`;
      expect(await reason(await call(none))).toMatch(/algorithm|malformed/);
      const pem = await exportSPKI(keys.publicKey);
      const confused = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).setIssuer(ISSUER).setAudience('tickscope-api').setExpirationTime(now + 60).sign(new TextEncoder().encode(pem));
      expect(await reason(await call(confused))).toMatch(/algorithm/);
    });

    it('takes an access token as the password of a q handshake', async () => {
      const qgw = await startQGateway(service, { host: '127.0.0.1', port: 0, clients: Clients.inMemory(), external: new ExternalIssuer(jwksUrl, ISSUER, 'tickscope-api', 'realm_access.roles') });
      try {
        const handshake = (password: string): Promise<Buffer | null> =>
          new Promise((resolve) => {
            const socket = tcpConnect(qgw.port, '127.0.0.1');
            let got = Buffer.alloc(0);
            socket.on('error', () => resolve(null));
            socket.on('close', () => resolve(got.length ? got : null));
            socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(`anyone:${password}`), Buffer.of(3, 0)])));
            socket.on('data', (c: Buffer) => {
              if (got.length === 0 && c.length >= 1 && c[0] === 3 && c.length === 1) {
                // logged in: ask for the Instrument table
                got = Buffer.from(c);
                socket.write(qTableCall('.fsi.getTicks', 'Instrument'));
                return;
              }
              got = Buffer.concat([got, c]);
              if (got.length > 9 && got.length - 1 >= got.readUInt32LE(5)) socket.end();
            });
          });
        const ok = await handshake(await sign());
        expect(ok?.[0]).toBe(3); // the capability byte
        expect(ok?.[1 + 8]).toBe(0); // then (header; payload)
        expect(await handshake(await sign({ iss: 'http://evil/realms/test' }))).toBeNull(); // refused: the connection closes
      } finally {
        await qgw.close();
      }
    });

    it('answers 403 for a token without the operation\'s role', async () => {
      const t = await new SignJWT({ realm_access: { roles: ['other'] } })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(ISSUER)
        .setAudience('tickscope-api')
        .setExpirationTime(Math.floor(Date.now() / 1000) + 60)
        .sign(keys.privateKey);
      expect((await call(t)).status).toBe(403);
    });
  });
});

describe('tickscope clients and gateway (command line)', () => {
  const cli = (args: string[], input?: string) => spawnSync(process.execPath, ['bin/tickscope.cjs', ...args], { encoding: 'utf8', ...(input !== undefined ? { input } : {}) });

  it('adds a client with a secret from standard input, stores only a salted hash, lists and removes it', () => {
    const file = join(tempDir(), 'c.json');
    const add = cli(['clients', 'add', '--clients', file, '--id', 'etl', '--secret', '-', '--scopes', 'fsi.read,fsi.generate'], 'a-long-enough-secret\n');
    expect(add.status, add.stderr).toBe(0);
    expect(add.stdout).not.toContain('a-long-enough-secret');
    const stored = Clients.load(file);
    expect(stored.verify('etl', 'a-long-enough-secret')?.scopes).toEqual(['fsi.read', 'fsi.generate']);
    expect(stored.verify('etl', 'a-long-enough-secreT')).toBeNull();
    expect(JSON.stringify(stored.list())).not.toContain('a-long-enough-secret');
    const generated = cli(['clients', 'add', '--clients', file, '--id', 'bot']);
    const secret = /client_secret (\S+)/.exec(generated.stdout)?.[1];
    expect(secret && Clients.load(file).verify('bot', secret)?.scopes).toEqual(['fsi.read']);
    expect(cli(['clients', 'list', '--clients', file]).stdout).toMatch(/^etl\tfsi\.read,fsi\.generate\t.*\nbot\tfsi\.read\t/);
    expect(cli(['clients', 'remove', '--clients', file, '--id', 'etl']).status).toBe(0);
    expect(Clients.load(file).list().map((c) => c.id)).toEqual(['bot']);
    const bad = cli(['clients', 'add', '--clients', file, '--id', 'x', '--scopes', 'fsi.write']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--scopes: "fsi.write" is not a scope/);
  });

  it('refuses to serve beyond loopback without TLS or clients, in one line', () => {
    const r = cli(['gateway', '--db', db, '--host', '0.0.0.0']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/refusing to serve beyond loopback without TLS/);
  });
});
