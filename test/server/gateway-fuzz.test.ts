/**
 * Fuzzing the gateway (fixed seed): 3,000 generated bad requests over REST and q IPC, against a real
 * gateway on loopback. None may crash it or answer 500; every error names its argument or the part at
 * fault (body, method, Content-Type, Authorization, path, q message); the gateway still answers a good
 * request afterwards.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../engine/demo/generate.js';
import { loadSettings } from '../../engine/executor/settings.js';
import { Clients } from '../../engine/gateway/clients.js';
import { type RunningQGateway, startQGateway } from '../../engine/gateway/qipc/server.js';
import { type RunningGateway, startGateway } from '../../engine/gateway/rest.js';
import { OPERATIONS } from '../../engine/registry/operations.js';
import { QueryService } from '../../engine/service/query-service.js';
import { tempDir } from '../helpers/db.js';
import { Rng } from '../../engine/demo/rng.js';

/** mulberry32: a small seeded generator, so a failure reproduces. */
function rng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.next();
}
const random = rng(20261123);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const int = (n: number): number => Math.floor(random() * n);

let service: QueryService;
let gw: RunningGateway;
let q: RunningQGateway;
let secret = '';
let token = '';

beforeAll(async () => {
  const db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 9, days: 1, instruments: 3, tradesPerDay: 2000 });
  const clients = Clients.inMemory();
  secret = clients.add('fuzz', ['fsi.read', 'fsi.generate']);
  service = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
  gw = await startGateway(service, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 600, clients });
  q = await startQGateway(service, { host: '127.0.0.1', port: 0, clients });
  const r = await fetch(gw.tokenUrl!, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'fuzz', client_secret: secret }) });
  token = ((await r.json()) as { access_token: string }).access_token;
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await q?.close();
  await service?.close();
}, 60_000);

const WRONG_VALUES: readonly unknown[] = [
  42, -1, 1.5, 1e308, true, false, null, '', ' ', 'x'.repeat(5000), '2024.13.45', '0D99:99', '`', '\u0000', '\ud83d\ude00', '[', '{}',
  [], [1, 'a', null], [[[]]], {}, { a: 1 }, { '': [] }, ['desc'], [['like', 'price']], 'NaN', 'Infinity', '-0Wp', '1b', 'AAPL',
];

type Case = { readonly what: string; readonly method: string; readonly path: string; readonly headers: Record<string, string>; readonly body?: string; readonly names: RegExp };

/** One generated bad REST request and the part its error must name. */
function restCase(i: number): Case {
  const op = pick(OPERATIONS);
  const path = pick(op.restPaths);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const base: Record<string, unknown> = { table: op.name === 'generateOrderAnalytics' ? 'Order' : op.name === 'getOrderAnalyticSummary' ? 'OrderAnalytics' : 'Trade', startTS: '2024.03.06', endTS: '2024.03.07' };
  switch (i % 10) {
    case 0:
    case 1:
    case 2:
    case 3: {
      // a wrong value for a declared argument
      const arg = pick(op.args);
      const body = { ...base, [arg.name]: pick(WRONG_VALUES) };
      return { what: `${op.name} ${arg.name}`, method: 'POST', path, headers: auth, body: JSON.stringify(body), names: new RegExp(`${arg.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|table|startTS|endTS|dt|\\w+:`) };
    }
    case 4: {
      const name = pick(['colums', 'idlist', 'StartTS', 'x', '__proto__', 'constructor', '']);
      return { what: `unknown argument ${name}`, method: 'POST', path, headers: auth, body: JSON.stringify({ ...base, [name]: 1 }), names: /argument|unknown|\w+:/ };
    }
    case 5: {
      const text = pick(['{', '{"table":', 'nul', '"Trade"', '[]', '1', '{"table":"Trade",}', String.fromCharCode(...Array.from({ length: 40 }, () => int(256))), '']);
      return { what: `body ${JSON.stringify(text).slice(0, 30)}`, method: 'POST', path, headers: auth, body: text, names: /body/ };
    }
    case 6:
      return { what: 'method', method: pick(['GET', 'PUT', 'DELETE', 'PATCH']), path, headers: auth, names: /only POST/ };
    case 7:
      return { what: 'content type', method: 'POST', path, headers: { ...auth, 'content-type': pick(['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) }, body: 'table=Trade', names: /Content-Type/ };
    case 8: {
      const parts = token.split('.');
      const bad = pick([
        '',
        'Bearer',
        'Bearer ',
        `Bearer ${token}x`,
        `Bearer ${parts[0]}.${parts[1]}.`,
        `Bearer ${parts[0]}.${Buffer.from('{"sub":"fuzz","scope":"fsi.read fsi.generate"}').toString('base64url')}.${parts[2]}`,
        `Basic ${Buffer.from('fuzz:x').toString('base64')}`,
        `Bearer ${'a'.repeat(3000)}`,
      ]);
      return { what: `token ${bad.slice(0, 20)}`, method: 'POST', path, headers: { 'content-type': 'application/json', ...(bad ? { authorization: bad } : {}) }, body: JSON.stringify(base), names: /Authorization/ };
    }
    default:
      return { what: 'path', method: 'POST', path: pick(['/servicegateway/fsi/', '/servicegateway/fsi/getTick', '/servicegateway/kxi/x', '/', '/auth/realms/other/protocol/openid-connect/token', `${path}/x`]), headers: auth, body: '{}', names: /no such path/ };
  }
}

/** One generated malformed q message (after a good handshake). */
function qCase(): Buffer {
  const kind = int(6);
  const body = Buffer.from(Array.from({ length: 1 + int(60) }, () => int(256)));
  const header = Buffer.alloc(8);
  header[0] = 1;
  header[1] = pick([0, 1, 1, 1]);
  switch (kind) {
    case 0: // random body, right length
      header.writeUInt32LE(8 + body.length, 4);
      return Buffer.concat([header, body]);
    case 1: // a general list of random items
      header.writeUInt32LE(8 + 6 + body.length, 4);
      return Buffer.concat([header, Buffer.of(0, 0, 2, 0, 0, 0), body]);
    case 2: // a dictionary with random keys
      header.writeUInt32LE(8 + 1 + body.length, 4);
      return Buffer.concat([header, Buffer.of(99), body]);
    case 3: // "compressed" garbage
      header[2] = 1;
      header.writeUInt32LE(8 + 4 + body.length, 4);
      return Buffer.concat([header, Buffer.from([int(256), int(256), 0, 0]), body]);
    case 4: // a lone char vector (q code)
      header.writeUInt32LE(8 + 6 + 10, 4);
      return Buffer.concat([header, Buffer.of(10, 0, 10, 0, 0, 0), Buffer.from('select fro')]);
    default: // (op; args) with a random op symbol and a char vector for args
      header.writeUInt32LE(8 + 6 + 6 + 1 + 6 + 3, 4);
      return Buffer.concat([header, Buffer.of(0, 0, 2, 0, 0, 0), Buffer.of(0xf5), Buffer.from('fsi.x\0'), Buffer.of(10, 0, 3, 0, 0, 0), Buffer.from('abc')]);
  }
}

/** A logged-in q connection and a way to send a message and read one reply (null when the gateway closes the connection). */
async function qConnection(): Promise<{ socket: Socket; send: (m: Buffer, expectReply: boolean) => Promise<Buffer | null> }> {
  const socket = tcpConnect(q.port, '127.0.0.1');
  let got = Buffer.alloc(0);
  let waiter: ((b: Buffer | null) => void) | null = null;
  let closed = false;
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
    waiter?.(null);
  });
  socket.on('data', (c: Buffer) => {
    got = Buffer.concat([got, c]);
    if (waiter && got.length >= 8 && got.length >= got.readUInt32LE(4)) {
      const m = got.subarray(0, got.readUInt32LE(4));
      got = got.subarray(m.length);
      const w = waiter;
      waiter = null;
      w(m);
    }
  });
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(Buffer.concat([Buffer.from(`fuzz:${secret}`), Buffer.of(3, 0)]));
  await new Promise<void>((r) => socket.once('data', () => r()));
  got = Buffer.alloc(0);
  return {
    socket,
    send: (m, expectReply) =>
      new Promise((resolve) => {
        if (closed) return resolve(null);
        if (!expectReply) {
          socket.write(m);
          return resolve(Buffer.alloc(0));
        }
        waiter = resolve;
        socket.write(m);
      }),
  };
}

describe('fuzzing the gateway (seed 20261123)', () => {
  it('answers 2,400 bad REST requests without a 500, each error naming its part', async () => {
    const statuses = new Map<number, number>();
    for (let i = 0; i < 2400; i++) {
      const c = restCase(i);
      const r = await fetch(`${gw.url}${c.path}`, { method: c.method, headers: c.headers, ...(c.body !== undefined && c.method !== 'GET' ? { body: c.body } : {}) });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      expect(r.status, `${i}: ${c.what}`).not.toBe(500);
      if (r.status === 200) {
        await r.arrayBuffer(); // a wrong-looking value may still be a valid one
        continue;
      }
      const text = await r.text();
      const body = JSON.parse(text) as { header?: { ai: string; ac: number }; error?: string };
      const ai = body.header?.ai ?? body.error ?? '';
      expect(ai, `${i}: ${c.what} -> ${r.status} ${text.slice(0, 300)}`).toMatch(c.names);
    }
    expect(statuses.get(400)).toBeGreaterThan(500);
    for (const s of [401, 404, 405, 415]) expect(statuses.get(s), `status ${s}`).toBeGreaterThan(10);
  });

  it('answers 600 malformed q messages with q errors or a closed connection, never a crash', async () => {
    let conn = await qConnection();
    let errors = 0;
    let closes = 0;
    for (let i = 0; i < 600; i++) {
      const m = qCase();
      const sync = m[1] === 1;
      const reply = await Promise.race([conn.send(m, sync), new Promise<Buffer | null | 'silent'>((r) => setTimeout(() => r('silent'), 2000))]);
      if (reply === null) {
        closes++;
        conn.socket.destroy();
        conn = await qConnection();
        continue;
      }
      if (reply === 'silent') {
        // a message the gateway is still waiting the rest of (its length claims more bytes): start over
        conn.socket.destroy();
        conn = await qConnection();
        continue;
      }
      if (!sync) continue;
      expect(reply[8], `message ${i}: ${m.toString('hex').slice(0, 80)}`).toBe(0x80);
      const text = reply.subarray(9, reply.indexOf(0, 9)).toString('utf8');
      expect(text, `message ${i}`).toMatch(/^\d+ (q message|args|callback|opts|\w+:)/);
      errors++;
    }
    conn.socket.destroy();
    expect(errors).toBeGreaterThan(100);
    expect(closes).toBeLessThan(600);
    // still serving
    const r = await fetch(`${gw.url}/servicegateway/fsi/getTicks`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ table: 'Instrument' }) });
    expect(r.status).toBe(200);
  });
});
