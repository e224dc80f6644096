/**
 * The q IPC gateway against hostile clients, over real loopback sockets with raw bytes: the 22-byte
 * compressed message that claimed 200 MB, absurd vector, list, symbol and string counts, past
 * maxJsonElements and maxJsonDepth, a decompression bomb, a frame past maxQMessageBytes, a 63 MB
 * message in 64 KB chunks, 1,000 idle sockets and a byte-a-second handshake (handshake timeout),
 * an over-long handshake, too many pending handshakes of one address, too many sockets of one client,
 * guessed secrets (throttled), an idle connection, a client that never reads its answers (writeStallMs)
 * and huge values quoted short. After each, a correct query answers (on the same connection where
 * the framing allows). Timeouts are set short here; no timing is asserted.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../../../engine/demo/generate.js';
import { loadSettings } from '../../../../engine/executor/settings.js';
import { Clients } from '../../../../engine/gateway/clients.js';
import { MSG_SYNC, QWriter } from '../../../../engine/q/codec.js';
import { type QLimits, type RunningQGateway, startQGateway } from '../../../../engine/gateway/qipc/server.js';
import { QueryService } from '../../../../engine/service/query-service.js';
import { tempDir } from '../../../helpers/db.js';
import { qTableCall } from '../../../helpers/q.js';
import { zeroBomb } from '../../../helpers/q-compress.js';

let service: QueryService;
let secret = '';
let otherSecret = '';
const log: string[] = [];
const gateways: RunningQGateway[] = [];
let main: RunningQGateway;

beforeAll(async () => {
  const db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 11, days: 2, instruments: 5, tradesPerDay: 20000 });
  const clients = Clients.inMemory();
  secret = clients.add('hostile', ['fsi.read']);
  otherSecret = clients.add('other', ['fsi.read']);
  service = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
  const start = startQGateway;
  gatewayFactory = async (limits) => {
    const g = await start(service, { host: '127.0.0.1', port: 0, clients, log: (l) => log.push(l), ...(limits ? { limits } : {}) });
    gateways.push(g);
    return g;
  };
  main = await gatewayFactory();
});
afterAll(async () => {
  for (const g of gateways) await g.close();
  await service?.close();
});

let gatewayFactory: (limits?: Partial<QLimits>) => Promise<RunningQGateway>;

/** A raw connection: what it received, whether the gateway closed it. */
interface Raw {
  readonly socket: Socket;
  /** The next whole message, or null once the gateway closes the connection. */
  reply(): Promise<Buffer | null>;
  /** The handshake's answer: the capability byte, or null when the gateway closed the connection. */
  readonly capability: Promise<number | null>;
  readonly closed: Promise<void>;
  isClosed(): boolean;
}

function raw(port: number): Raw {
  const socket = tcpConnect(port, '127.0.0.1');
  let got = Buffer.alloc(0);
  let waiter: ((b: Buffer | null) => void) | null = null;
  let gone = false;
  const take = (): void => {
    if (!waiter) return;
    if (got.length >= 8 && got.length >= got.readUInt32LE(4)) {
      const m = got.subarray(0, got.readUInt32LE(4));
      got = got.subarray(m.length);
      const w = waiter;
      waiter = null;
      w(m);
    } else if (gone) {
      const w = waiter;
      waiter = null;
      w(null);
    }
  };
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      gone = true;
      take();
      resolve();
    }),
  );
  let answered: (b: number | null) => void = () => undefined;
  const capability = new Promise<number | null>((resolve) => (answered = resolve));
  void closed.then(() => answered(null));
  let first = true;
  socket.on('error', () => undefined);
  socket.on('data', (c: Buffer) => {
    if (first) {
      // the handshake's answer: one byte
      first = false;
      answered(c[0]!);
      c = c.subarray(1);
    }
    got = Buffer.concat([got, c]);
    take();
  });
  return {
    socket,
    capability,
    closed,
    isClosed: () => gone,
    reply: () =>
      new Promise((resolve) => {
        waiter = resolve;
        take();
      }),
  };
}

/** A connection past its handshake (the capability byte read). */
async function login(port = main.port, user = 'hostile', password = secret): Promise<Raw> {
  const r = raw(port);
  await new Promise<void>((resolve) => r.socket.once('connect', () => resolve()));
  r.socket.write(Buffer.concat([Buffer.from(`${user}:${password}`), Buffer.of(3, 0)]));
  if ((await r.capability) !== 3) throw new Error('handshake refused');
  return r;
}

/** Whether a handshake is accepted (false: the gateway closed the connection). */
const accepted = async (port: number, user: string, password: string): Promise<boolean> =>
  login(port, user, password).then(
    (r) => (r.socket.destroy(), true),
    () => false,
  );

/** The text of a q error message (type -128), or null for anything else. */
function errorText(m: Buffer | null): string | null {
  if (!m || m[8] !== 0x80) return null;
  return m.subarray(9, m.indexOf(0, 9)).toString('utf8');
}

/** A message of this body (what follows the header). */
function message(body: Buffer, type = MSG_SYNC, compressed = false): Buffer {
  const h = Buffer.alloc(8);
  h[0] = 1;
  h[1] = type;
  h[2] = compressed ? 1 : 0;
  h.writeUInt32LE(8 + body.length, 4);
  return Buffer.concat([h, body]);
}

const le32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n);
  return b;
};

/** (`op; <item>) : a 2-item list whose second item's bytes are given. */
const opWith = (item: Buffer): Buffer => Buffer.concat([Buffer.of(0, 0), le32(2), Buffer.of(0xf5), Buffer.from('.fsi.getTicks\0'), item]);

/** A correct query answers on this connection: (header; payload), rc 0. */
async function answers(r: Raw): Promise<void> {
  r.socket.write(qTableCall('.fsi.getTicks', 'Instrument'));
  const m = await r.reply();
  expect(m, 'an answer').not.toBeNull();
  expect(errorText(m)).toBeNull();
  expect(m![8]).toBe(0); // (header; payload)
  expect(m!.includes(Buffer.from('rc\0'))).toBe(true);
}

/** A correct query answers on a new connection. */
async function answersAnew(port = main.port): Promise<void> {
  const r = await login(port);
  await answers(r);
  r.socket.destroy();
}

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the q IPC gateway against hostile messages', () => {
  it('answers the 22-byte compressed message (claims ~200 MB, ends mid back reference) with an error; the connection still answers', async () => {
    // header, unpacked length 200,000,014, then 10 bytes: six literals, a back reference, a back reference missing its count
    const body = Buffer.concat([le32(200_000_014), Buffer.of(0xc0, 0x61, 0x62, 0x61, 0x62, 0x61, 0x62, 0x03, 0x00, 0x03)]);
    const m = message(body, MSG_SYNC, true);
    expect(m.length).toBe(22);
    const r = await login();
    r.socket.write(m);
    expect(errorText(await r.reply())).toMatch(/^13 q message: compressed data: claims 200000006 bytes unpacked from 10 compressed bytes; kdb\+ compression gives at most 1209 /);
    // the same stream with an honest claim: it ends early
    r.socket.write(message(Buffer.concat([le32(8 + 10), body.subarray(4)]), MSG_SYNC, true));
    expect(errorText(await r.reply())).toMatch(/^13 q message: compressed data: ends early in a back reference/);
    await answers(r);
    r.socket.destroy();
  });

  it('refuses absurd counts against the bytes that remain, naming the part: 200M booleans in 30 bytes, lists, symbols, strings, dictionary keys', async () => {
    const r = await login();
    const cases: Array<[Buffer, RegExp]> = [
      [Buffer.concat([Buffer.of(0, 0), le32(2), Buffer.of(0xf5), Buffer.from('ab\0'), Buffer.of(1, 0), le32(200_000_000), Buffer.alloc(6)]), /^13 q message at \[1\]: a boolean vector claims 200000000 items \(at least 200000000 bytes\) but 6 bytes remain$/],
      [Buffer.concat([Buffer.of(0, 0), le32(2 ** 31 - 1), Buffer.alloc(4)]), /^13 q message: a list claims 2147483647 items \(at least 4294967294 bytes\) but 4 bytes remain$/],
      [opWith(Buffer.concat([Buffer.of(11, 0), le32(1_000_000_000), Buffer.from('a\0')])), /^13 q message at \[1\]: a symbol vector claims 1000000000 items/],
      [opWith(Buffer.concat([Buffer.of(10, 0), le32(2_000_000_000), Buffer.from('abc')])), /^13 q message at \[1\]: a char vector claims 2000000000 items/],
      [opWith(Buffer.concat([Buffer.of(7, 0), le32(-5)])), /^13 q message at \[1\]: a long vector of -5 items/],
      [opWith(Buffer.concat([Buffer.of(99, 11, 0), le32(1), Buffer.from('table\0'), Buffer.of(0, 0), le32(1), Buffer.of(9, 0), le32(100_000_000)])), /^13 q message at \[1\]\.table: a float vector claims 100000000 items \(at least 800000000 bytes\) but 0 bytes remain$/],
      [opWith(Buffer.concat([Buffer.of(99, 11, 0), le32(300_000_000), Buffer.from('table\0')])), /^13 q message at \[1\]: a symbol vector claims 300000000 items/],
    ];
    expect(message(cases[0]![0]).length).toBe(30);
    for (const [body, want] of cases) {
      r.socket.write(message(body));
      expect(errorText(await r.reply())).toMatch(want);
    }
    await answers(r);
    r.socket.destroy();
  });

  it('bounds values and nesting by maxJsonElements and maxJsonDepth (ac 57), a 63 MB message arriving in 64 KB chunks', async () => {
    const r = await login();
    // 7.9M longs: under maxQMessageBytes, over maxJsonElements; framed from 64 KB writes without re-copying
    const n = Math.floor((63_000_000 - 40) / 8);
    const big = message(opWith(Buffer.concat([Buffer.of(7, 0), le32(n), Buffer.alloc(n * 8)])));
    expect(big.length).toBeGreaterThan(62_000_000);
    for (let at = 0; at < big.length; at += 65536) {
      if (!r.socket.write(big.subarray(at, at + 65536))) await new Promise((resolve) => r.socket.once('drain', resolve));
    }
    expect(errorText(await r.reply())).toBe(`57 q message at [1]: more than 1000000 values (maxJsonElements; a temporal value counts 16); send fewer or smaller arguments`);
    // 100 lists deep
    const deep = Buffer.concat([...Array.from({ length: 100 }, () => Buffer.concat([Buffer.of(0, 0), le32(1)])), Buffer.of(0xff, 1)]);
    r.socket.write(message(opWith(deep)));
    expect(errorText(await r.reply())).toMatch(/^57 q message at \[1\](\[0\])+: nested deeper than 64 \(maxJsonDepth\)$/);
    await answers(r);
    r.socket.destroy();
  });

  it('unpacks a decompression bomb within maxQMessageBytes in slices and refuses one past it (ac 54); both connections still answer', async () => {
    const a = await login();
    const b = await login();
    // 60 MiB of zeros from ~490 KB: a general list of 0 items, then bytes left over
    const within = zeroBomb(60 * 1024 * 1024);
    a.socket.write(message(Buffer.concat([le32(8 + 60 * 1024 * 1024), within]), MSG_SYNC, true));
    // meanwhile another client is served
    await answers(b);
    expect(errorText(await a.reply())).toMatch(/^13 q message: 62914554 bytes after the object$/);
    const past = zeroBomb(200 * 1024 * 1024);
    b.socket.write(message(Buffer.concat([le32(8 + 200 * 1024 * 1024), past]), MSG_SYNC, true));
    expect(errorText(await b.reply())).toBe(`54 q message: a compressed message claims ${8 + 200 * 1024 * 1024} bytes unpacked; at most ${64 * 1024 * 1024} (maxQMessageBytes)`);
    await answers(a);
    await answers(b);
    a.socket.destroy();
    b.socket.destroy();
  });

  it('answers a frame past maxQMessageBytes, a big-endian or unknown-type one with an error, then closes', async () => {
    const cases: Array<[Buffer, RegExp]> = [
      [Buffer.from([1, 1, 0, 0, ...le32(100 * 1024 * 1024)]), /^54 q message: 104857600 bytes claimed; at most 67108864 \(maxQMessageBytes\)$/],
      [Buffer.from([0, 1, 0, 0, 0, 0, 0, 20]), /^13 q message: a big-endian message/],
      [Buffer.from([1, 7, 0, 0, ...le32(20)]), /^13 q message: message type 7; expected 0 \(async\), 1 \(sync\) or 2 \(response\)$/],
      [Buffer.from([1, 1, 0, 0, ...le32(3)]), /^13 q message: a length of 3 bytes; a message has at least 9$/],
    ];
    for (const [head, want] of cases) {
      const r = await login();
      r.socket.write(head);
      expect(errorText(await r.reply())).toMatch(want);
      await r.closed;
    }
    await answersAnew();
  });

  it('quotes a huge value short: a 10,000-character op, timeout and client error', async () => {
    const r = await login();
    const long = 'x'.repeat(10_000);
    const w = QWriter.forMessage();
    w.vector(0, 2);
    w.symbol(long);
    w.u8(99);
    w.vector(11, 0);
    w.vector(0, 0);
    r.socket.write(w.message(MSG_SYNC));
    const t1 = errorText(await r.reply())!;
    expect(t1).toMatch(/^1 operation: "x{100}\.\.\." \(10000 characters\) is not an operation/);
    expect(t1.length).toBeLessThan(400);
    const w2 = QWriter.forMessage();
    w2.vector(0, 4);
    w2.symbol('.fsi.getTicks');
    w2.u8(99);
    w2.vector(11, 1);
    w2.symText('table');
    w2.vector(0, 1);
    w2.symbol('Instrument');
    w2.symbol('');
    w2.u8(99);
    w2.vector(11, 1);
    w2.symText('timeout');
    w2.vector(0, 1);
    w2.chars(long);
    r.socket.write(w2.message(MSG_SYNC));
    const t2 = errorText(await r.reply())!;
    expect(t2).toMatch(/^4 opts\.timeout: "x+\.\.\. is not valid/);
    expect(t2.length).toBeLessThan(400);
    r.socket.write(message(opWith(Buffer.concat([Buffer.of(0x80), Buffer.from(`${long}\0`)]))));
    const t3 = errorText(await r.reply())!;
    expect(t3).toMatch(/^13 q message at \[1\]: the client sent an error: "x{200}\.\.\." \(10000 characters\)$/);
    await answers(r);
    r.socket.destroy();
  });
});

describe('the q IPC gateway against hostile connections', () => {
  it('closes 1,000 idle sockets that never send a handshake (qHandshakeTimeoutMs)', async () => {
    const g = await gatewayFactory({ qHandshakeTimeoutMs: 1500, maxPendingHandshakesPerAddress: 2000 });
    const idle: Raw[] = [];
    for (let i = 0; i < 1000; i++) idle.push(raw(g.port));
    await Promise.all(idle.map((r) => new Promise<void>((resolve) => (r.socket.connecting ? r.socket.once('connect', () => resolve()) : resolve()))));
    // every one closed by the gateway, not by us
    await Promise.all(idle.map((r) => r.closed));
    expect(idle.every((r) => r.isClosed())).toBe(true);
    expect(log.filter((l) => l.includes('not complete within 1500 ms (qHandshakeTimeoutMs)')).length).toBeGreaterThanOrEqual(1000);
    await answersAnew(g.port);
  });

  it('cuts a byte-a-second handshake: the handshake must complete within qHandshakeTimeoutMs', async () => {
    const g = await gatewayFactory({ qHandshakeTimeoutMs: 800 });
    const r = raw(g.port);
    const bytes = Buffer.concat([Buffer.from(`hostile:${secret}`), Buffer.of(3, 0)]);
    let sent = 0;
    while (sent < bytes.length && !r.isClosed()) {
      r.socket.write(bytes.subarray(sent, sent + 1));
      sent++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await r.closed;
    expect(sent).toBeLessThan(bytes.length);
    await answersAnew(g.port);
  });

  it('closes a handshake longer than 1 KiB before its 0, and new connections of an address past maxPendingHandshakesPerAddress', async () => {
    const r = raw(main.port);
    r.socket.write(Buffer.alloc(1100, 0x41));
    await r.closed;
    expect(log.some((l) => l.includes('longer than 1024 bytes: closed'))).toBe(true);
    const g = await gatewayFactory({ maxPendingHandshakesPerAddress: 5 });
    const pending = Array.from({ length: 5 }, () => raw(g.port));
    await Promise.all(pending.map((p) => new Promise((resolve) => p.socket.once('connect', resolve))));
    await expect.poll(() => g.clientMaps()['qSockets'], { timeout: 10_000 }).toBe(5); // the gateway holds the five, each waiting for its handshake
    const sixth = raw(g.port);
    await sixth.closed;
    expect(pending.some((p) => p.isClosed())).toBe(false);
    for (const p of pending) p.socket.destroy();
    await Promise.all(pending.map((p) => p.closed));
    await expect.poll(() => g.clientMaps()['qSockets'], { timeout: 10_000 }).toBe(0); // the gateway has seen them close
    await answersAnew(g.port);
  });

  it('refuses a client id its socket past maxQSocketsPerClient, and takes it again once one closes', async () => {
    const g = await gatewayFactory({ maxQSocketsPerClient: 3 });
    const open = [await login(g.port), await login(g.port), await login(g.port)];
    expect(await accepted(g.port, 'hostile', secret)).toBe(false);
    expect(log.some((l) => l.includes('3 q connections of this client open (maxQSocketsPerClient)'))).toBe(true);
    // another client id is not counted against this one
    expect(await accepted(g.port, 'other', otherSecret)).toBe(true);
    open[0]!.socket.destroy();
    await open[0]!.closed;
    await expect.poll(() => g.clientMaps()['qSockets'], { timeout: 10_000 }).toBe(2); // the gateway has seen it close (and the other client's)
    await answers(open[1]!);
    const again = await login(g.port);
    await answers(again);
    for (const r of [...open, again]) r.socket.destroy();
  });

  it('throttles guessed secrets per client id and address: after 10 failures in the window even the right secret is refused, then taken again', async () => {
    const g = await gatewayFactory({ failureWindowMs: 3000, maxFailedHandshakesPerAddress: 10 });
    for (let i = 0; i < 10; i++) expect(await accepted(g.port, 'hostile', `guess-${i}`)).toBe(false);
    expect(await accepted(g.port, 'hostile', secret)).toBe(false);
    // the address is throttled too: another id from it
    expect(await accepted(g.port, 'other', otherSecret)).toBe(false);
    expect(log.some((l) => /more than 10 failed handshakes of this client id \(or 10 of this address\) within 3 s/.test(l))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 3100));
    await answersAnew(g.port);
  });

  it('closes a connection idle past qIdleTimeoutMs, not one that is answered', async () => {
    // answered every 150 ms, far inside its 1500 ms: a stalled event loop does not make it idle
    const g = await gatewayFactory({ qIdleTimeoutMs: 1500 });
    const r = await login(g.port);
    for (let i = 0; i < 4; i++) {
      await answers(r);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(r.isClosed()).toBe(false);
    await r.closed;
    expect(log.some((l) => l.includes('idle for 1500 ms (qIdleTimeoutMs): closed client=hostile'))).toBe(true);
    await answersAnew(g.port);
  });

  it('cuts a client that sends queries and never reads the answers (writeStallMs); the worker is freed', async () => {
    const g = await gatewayFactory({ writeStallMs: 500 });
    const r = await login(g.port);
    r.socket.pause();
    const args = (w: QWriter): void => {
      w.u8(99);
      w.vector(11, 3);
      for (const k of ['table', 'startTS', 'endTS']) w.symText(k);
      w.vector(0, 3);
      w.symbol('Trade');
      w.chars('2024.01.01');
      w.chars('2030.01.01');
    };
    for (let i = 0; i < 40; i++) {
      const w = QWriter.forMessage();
      w.vector(0, 2);
      w.symbol('.fsi.getTicks');
      args(w);
      r.socket.write(w.message(MSG_SYNC));
    }
    // (a paused socket does not see its end: the gateway's log tells)
    await until(() => log.some((l) => l.includes('read nothing of its answer for 500 ms (writeStallMs): cut client=hostile')), 'the cut');
    r.socket.destroy();
    await until(() => service.executor.runningQueries === 0, 'the worker to be free');
    await answersAnew(g.port);
  });
});
