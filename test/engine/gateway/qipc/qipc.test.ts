/**
 * The kdb+ IPC gateway (engine/gateway/qipc) driven by a third-party client, node-q: sync and async
 * calls of all four operations equal to what `tickscope call` returns, every argument type, the three
 * message forms, errors as q errors starting with their ac, a refused handshake, scopes, a compressed
 * message from the client, and a client that disconnects mid-query (its query is cancelled).
 */
import { connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import Long from 'long';
import nodeq from 'node-q';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../../../engine/demo/generate.js';
import { Engine } from '../../../../engine/engine.js';
import { loadSettings } from '../../../../engine/executor/settings.js';
import { Clients } from '../../../../engine/gateway/clients.js';
import { envelopeJson, requestInfo } from '../../../../engine/output/envelope.js';
import { decompressBody, MSG_SYNC, QWriter } from '../../../../engine/q/codec.js';
import { type RunningQGateway, startQGateway } from '../../../../engine/gateway/qipc/server.js';
import { QueryService } from '../../../../engine/service/query-service.js';
import { tempDir } from '../../../helpers/db.js';
import { compressMessage } from '../../../helpers/q-compress.js';

let db = '';
let service: QueryService;
let q: RunningQGateway;
const log: string[] = [];
let readerSecret = '';
let writerSecret = '';
const ALL = { startTS: '2024.01.01', endTS: '2030.01.01' };

type Con = {
  k: (...args: unknown[]) => void;
  ks: (...args: unknown[]) => void;
  close: (cb?: () => void) => void;
};

beforeAll(async () => {
  db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 4, days: 2, instruments: 5, tradesPerDay: 8000 });
  const clients = Clients.inMemory();
  readerSecret = clients.add('reader', ['fsi.read']);
  writerSecret = clients.add('writer', ['fsi.read', 'fsi.generate']);
  service = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
  q = await startQGateway(service, { host: '127.0.0.1', port: 0, clients, log: (l) => log.push(l) });
});
afterAll(async () => {
  await q?.close();
  await service?.close();
});

const open = (user: string, password: string): Promise<Con> =>
  new Promise((resolve, reject) =>
    nodeq.connect({ host: '127.0.0.1', port: q.port, user, password, nanos2date: false }, (err: Error | undefined, con: unknown) => (err ? reject(err) : resolve(con as Con))),
  );
const k = (con: Con, ...args: unknown[]): Promise<unknown> => new Promise((resolve, reject) => con.k(...args, (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res))));
const close = (con: Con): Promise<void> => new Promise((r) => con.close(() => r()));

/** What `tickscope call` returns for this operation: its envelope's payload rows. */
function callRows(op: string, args: unknown): Array<Record<string, unknown>> {
  return (JSON.parse(envelopeJson(requestInfo(op), Engine.open([db]).call(op, args))) as { payload: Array<Record<string, unknown>> }).payload;
}

const ISO_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A q row (node-q's values) equal to a JSON payload row: timestamps within node-q's float rounding, dates by day, the rest exactly. */
function expectSameRows(got: Array<Record<string, unknown>>, want: Array<Record<string, unknown>>, what: string): void {
  expect(got.length, what).toBe(want.length);
  expect(got.length, what).toBeGreaterThan(0);
  for (let i = 0; i < want.length; i++) {
    for (const [key, w] of Object.entries(want[i]!)) {
      const g = got[i]![key];
      const at = `${what}: row ${i} ${key}`;
      if (typeof w === 'string' && ISO_TS.test(w)) {
        // node-q gives ns since 1970 as a float (nanos2date false): exact to its 2^-52 rounding
        const ns = BigInt(Date.parse(`${w.slice(0, 23)}Z`)) * 1_000_000n + BigInt(w.slice(23));
        expect(Math.abs(Number(ns) - (g as number)), at).toBeLessThan(1024);
      } else if (typeof w === 'string' && ISO_DATE.test(w)) {
        expect((g as Date).toISOString().slice(0, 10), at).toBe(w);
      } else if (w === '' && g === null) {
        // the null symbol: node-q reads an empty symbol as null
      } else if (typeof w === 'number') {
        // -0 stays -0 in q; JSON writes it 0
        expect(g === w, `${at}: ${String(g)} vs ${w}`).toBe(true);
      } else expect(g, at).toEqual(w);
    }
  }
}

describe('the q IPC gateway with node-q', () => {
  it('answers sync calls of all four operations with (header; payload), the rows of tickscope call', async () => {
    const con = await open('writer', writerSecret);
    try {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['.fsi.getTicks', { table: 'Trade', ...ALL, idList: ['AAPL', 'MSFT'], columns: ['price', 'volume', 'conditions', 'exchTime'] }, 'getTicks'],
        ['getStats', { table: 'Trade', ...ALL, granularity: 1, granularityUnit: 'hour', agg: { v: ['sum', 'volume'], p: ['last', 'price'] } }, 'getStats'],
        ['.fsi.eqea.getOrderAnalyticSummary', { table: 'OrderAnalytics', ...ALL, groupBy: ['instrumentID'] }, 'getOrderAnalyticSummary'],
      ];
      for (const [op, args, name] of cases) {
        const [header, payload] = (await k(con, op, args)) as [Record<string, unknown>, Array<Record<string, unknown>>];
        expect(header).toMatchObject({ rc: 0, ac: 0, ai: '', api: op });
        expect(header['rows']).toBe(payload.length);
        expectSameRows(payload, callRows(name, args), op);
      }
      // generateOrderAnalytics (SPEC 6.1): the payload is a one-item list holding the table
      const gen = { table: 'Order', dt: '2024.03.06', regenExistingIDs: true };
      const [h, list] = (await k(con, '.fsi.eqea.generateOrderAnalytics', gen)) as [Record<string, unknown>, unknown[]];
      expect(h['rc']).toBe(0);
      expect(list).toHaveLength(1);
      expectSameRows(list[0] as Array<Record<string, unknown>>, callRows('generateOrderAnalytics', gen), 'generateOrderAnalytics');
    } finally {
      await close(con);
    }
  });

  it('reads every q argument type as the REST strings: symbols, char vectors, timestamps, dates, timespans, longs, ints, floats, booleans, lists, dictionaries', async () => {
    const con = await open('reader', readerSecret);
    try {
      const rest = { table: 'Trade', startTS: '2024.03.06D14:30:00', endTS: '2024.03.07', idList: ['AAPL', 'MSFT'], granularity: 5, granularityUnit: 'minute', temporality: 'slice', slice: ['14:30', '15:00'], agg: { n: ['count', 'price'], v: ['sum', 'volume'] }, filter: [['>=', 'volume', 100]], applyHolidayCalendar: false };
      const typed = {
        table: nodeq.symbol('Trade'),
        startTS: nodeq.timestamp(new Date(Date.UTC(2024, 2, 6, 14, 30))),
        endTS: nodeq.date(new Date(Date.UTC(2024, 2, 7))),
        idList: nodeq.symbols(['AAPL', 'MSFT']),
        granularity: nodeq.long(Long.fromNumber(5)),
        granularityUnit: nodeq.symbol('minute'),
        temporality: 'slice',
        slice: nodeq.timespans([new Date(Date.UTC(2000, 0, 1, 14, 30)), new Date(Date.UTC(2000, 0, 1, 15, 0))]),
        agg: { n: [nodeq.symbol('count'), nodeq.symbol('price')], v: ['sum', 'volume'] },
        filter: [[nodeq.symbol('>='), nodeq.symbol('volume'), nodeq.int(100)]],
        applyHolidayCalendar: false,
      };
      const [, payload] = (await k(con, 'getStats', typed)) as [unknown, Array<Record<string, unknown>>];
      expectSameRows(payload, callRows('getStats', rest), 'typed arguments');
    } finally {
      await close(con);
    }
  });

  it('takes (gw; op; args; callback; opts) and (op; args; callback; opts); async calls answer through the callback', async () => {
    const con = await open('reader', readerSecret);
    try {
      const args = { table: 'Trade', ...ALL, idList: ['AAPL'], columns: ['price'] };
      const [h1, p1] = (await k(con, 'gw', nodeq.symbol('.fsi.getTicks'), args, nodeq.symbol(''), {})) as [Record<string, unknown>, unknown[]];
      expect(h1['rc']).toBe(0);
      const [, p2] = (await k(con, '.fsi.getTicks', args, nodeq.symbol(''), { timeout: 60000 })) as [unknown, unknown[]];
      expect(p2).toEqual(p1);
      // async with a callback: the gateway calls (callback; (header; payload))
      const answer = new Promise<unknown>((resolve, reject) => con.k((err: Error | null, res: unknown) => (err ? reject(err) : resolve(res))));
      con.ks('gw', nodeq.symbol('.fsi.getTicks'), args, nodeq.symbol('onTicks'), {}, () => undefined);
      const [callback, [h3, p3]] = (await answer) as [string, [Record<string, unknown>, unknown[]]];
      expect(callback).toBe('onTicks');
      expect(h3['rc']).toBe(0);
      expect(p3).toEqual(p1);
      // an async failure: (callback; (header; ())) with the error in the header
      const failed = new Promise<unknown>((resolve, reject) => con.k((err: Error | null, res: unknown) => (err ? reject(err) : resolve(res))));
      con.ks('gw', nodeq.symbol('.fsi.getTicks'), { table: 'Nope' }, nodeq.symbol('onTicks'), {}, () => undefined);
      const [cb4, [h4, p4]] = (await failed) as [string, [Record<string, unknown>, unknown[]]];
      expect(cb4).toBe('onTicks');
      expect(h4).toMatchObject({ rc: 5, ac: 6 });
      expect(String(h4['ai'])).toMatch(/Nope/);
      expect(p4).toEqual([]);
    } finally {
      await close(con);
    }
  });

  it('answers async calls of all four operations through the callback, the rows of tickscope call', async () => {
    const con = await open('writer', writerSecret);
    try {
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['.fsi.getTicks', { table: 'Trade', ...ALL, idList: ['MSFT'], columns: ['price', 'volume'] }, 'getTicks'],
        ['.fsi.getStats', { table: 'Trade', ...ALL, analytics: ['vwap', 'tradeCount'] }, 'getStats'],
        ['getOrderAnalyticSummary', { table: 'OrderAnalytics', ...ALL, groupBy: ['algoStrategy'] }, 'getOrderAnalyticSummary'],
        ['.fsi.eqea.generateOrderAnalytics', { table: 'Order', dt: '2024.03.07', regenExistingIDs: true }, 'generateOrderAnalytics'],
      ];
      for (const [op, args, name] of cases) {
        const answer = new Promise<unknown>((resolve, reject) => con.k((err: Error | null, res: unknown) => (err ? reject(err) : resolve(res))));
        con.ks('gw', nodeq.symbol(op), args, nodeq.symbol('onResult'), {}, () => undefined);
        const [callback, [header, payload]] = (await answer) as [string, [Record<string, unknown>, unknown[]]];
        expect(callback).toBe('onResult');
        expect(header).toMatchObject({ rc: 0, api: op });
        const rows = (name === 'generateOrderAnalytics' ? payload[0] : payload) as Array<Record<string, unknown>>;
        expectSameRows(rows, callRows(name, args), `async ${op}`);
      }
    } finally {
      await close(con);
    }
  });

  it('answers errors as q errors starting with the ac and naming the argument; q code names the accepted forms', async () => {
    const con = await open('reader', readerSecret);
    try {
      await expect(k(con, '.fsi.getTicks', { table: 'Trade', startTS: '2024.13.01' })).rejects.toThrow(/^4 startTS: "2024\.13\.01" is not a timestamp/);
      await expect(k(con, '.fsi.getTicks', { table: 'Trade', colums: ['price'] })).rejects.toThrow(/^2 .*colums/);
      await expect(k(con, 'select from Trade')).rejects.toThrow(/^13 q message: q code is not evaluated here; send \(op; args\)/);
      await expect(k(con, '.fsi.nothing', {})).rejects.toThrow(/^1 /);
      await expect(k(con, '.fsi.getTicks', { table: 'Trade' }, nodeq.symbol(''), { timeout: 'soon' })).rejects.toThrow(/^4 opts.timeout/);
      // the reader lacks fsi.generate
      await expect(k(con, '.fsi.eqea.generateOrderAnalytics', { table: 'Order', dt: '2024.03.06' })).rejects.toThrow(/^51 .*lack fsi\.generate/);
      // and the connection still works
      const [h] = (await k(con, '.fsi.getTicks', { table: 'Instrument' })) as [Record<string, unknown>];
      expect(h['rc']).toBe(0);
    } finally {
      await close(con);
    }
  });

  it('refuses a wrong secret at the handshake (the connection closes, as kdb+ does)', async () => {
    await expect(open('reader', `${readerSecret}x`)).rejects.toThrow();
    await expect(open('nobody', 'whatever-secret')).rejects.toThrow();
    expect(log.some((l) => l.includes('q handshake refused for "reader"'))).toBe(true);
  });

  it('decompresses a compressed message from the client', async () => {
    // a sync (`.fsi.getTicks; args) message, compressed with kdb+'s scheme
    const w = QWriter.forMessage();
    w.vector(0, 2);
    w.symbol('.fsi.getTicks');
    w.u8(99);
    w.vector(11, 3);
    for (const key of ['table', 'idList', 'columns']) w.symText(key);
    w.vector(0, 3);
    w.symbol('Trade');
    w.vector(11, 8);
    for (let i = 0; i < 8; i++) w.symText(i % 2 ? 'AAPL' : 'MSFT');
    w.vector(11, 1);
    w.symText('price');
    const plain = Buffer.from(w.message(MSG_SYNC));
    const packed = compressMessage(plain);
    expect(packed.length).toBeLessThan(plain.length);
    expect(Buffer.from(await decompressBody(packed, 1 << 20))).toEqual(plain.subarray(8));
    const reply = await rawCall('reader', readerSecret, packed);
    expect(reply[8]).toBe(0); // a general list: (header; payload), not an error (-128)
    expect(reply.includes(Buffer.from('price\0'))).toBe(true);
  });

  it('cancels the query of a client that disconnects', async () => {
    const before = log.length;
    const slow = { table: 'Trade', ...ALL, granularity: 1, granularityUnit: 'second', agg: { m: ['med', 'price'], d: ['sdev', 'price'], x: ['max', 'volume'] } };
    const con = await open('reader', readerSecret);
    expect(service.executor.runningQueries).toBe(0);
    con.k('getStats', slow, () => undefined);
    // disconnects while the query runs on the worker
    await expect.poll(() => service.executor.runningQueries, { timeout: 20_000 }).toBe(1);
    await close(con);
    await expect.poll(() => log.slice(before).find((l) => l.includes('getStats')), { timeout: 20_000 }).toBeDefined();
    expect(log.slice(before).find((l) => l.includes('getStats'))).toMatch(/ac=40/);
    // the executor is free for the next client
    const next = await open('reader', readerSecret);
    const [h] = (await k(next, '.fsi.getTicks', { table: 'Instrument' })) as [Record<string, unknown>];
    expect(h['rc']).toBe(0);
    await close(next);
  });
});

/** Sends one message over a raw connection after the handshake; resolves with the whole reply message. */
function rawCall(user: string, password: string, message: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(q.port, '127.0.0.1');
    let stage = 0;
    let got = Buffer.alloc(0);
    socket.on('error', reject);
    socket.on('connect', () => socket.write(Buffer.concat([Buffer.from(`${user}:${password}`), Buffer.of(3, 0)])));
    socket.on('data', (chunk: Buffer) => {
      if (stage === 0) {
        stage = 1;
        socket.write(message);
        chunk = chunk.subarray(1);
      }
      got = Buffer.concat([got, chunk]);
      if (got.length >= 8 && got.length >= got.readUInt32LE(4)) {
        socket.end();
        resolve(got);
      }
    });
  });
}
