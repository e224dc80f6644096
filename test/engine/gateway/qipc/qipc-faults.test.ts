/**
 * No failure escapes its request: a throw injected into the q message decoder and into the error
 * answer's encoder (vi.mock of engine/q/decode.ts and engine/output/q-result.ts) answers that message
 * with a q error or closes that connection only; the process lives (an uncaught exception or an
 * unhandled rejection fails this file) and the next query, on a new connection, answers.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateDemo } from '../../../../engine/demo/generate.js';
import { loadSettings } from '../../../../engine/executor/settings.js';
import { Clients } from '../../../../engine/gateway/clients.js';
import { MSG_ASYNC, QWriter } from '../../../../engine/q/codec.js';
import { type RunningQGateway, startQGateway } from '../../../../engine/gateway/qipc/server.js';
import { QueryService } from '../../../../engine/service/query-service.js';
import { tempDir } from '../../../helpers/db.js';
import { qTableCall } from '../../../helpers/q.js';

/** Which seam throws next (once). */
const fault = vi.hoisted(() => ({ decode: false, encodeError: false }));

vi.mock('../../../../engine/q/decode.js', async (original) => {
  const m = await original<typeof import('../../../../engine/q/decode.js')>();
  return {
    ...m,
    decodeMessage: (...args: Parameters<typeof m.decodeMessage>) => {
      if (fault.decode) {
        fault.decode = false;
        throw new TypeError('injected decoder failure');
      }
      return m.decodeMessage(...args);
    },
  };
});
vi.mock('../../../../engine/output/q-result.js', async (original) => {
  const m = await original<typeof import('../../../../engine/output/q-result.js')>();
  return {
    ...m,
    qErrorMessage: (...args: Parameters<typeof m.qErrorMessage>) => {
      if (fault.encodeError) {
        fault.encodeError = false;
        throw new RangeError('injected encoder failure');
      }
      return m.qErrorMessage(...args);
    },
  };
});

let service: QueryService;
let q: RunningQGateway;
let secret = '';
const log: string[] = [];

beforeAll(async () => {
  const db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 5, days: 1, instruments: 3, tradesPerDay: 2000 });
  const clients = Clients.inMemory();
  secret = clients.add('faults', ['fsi.read']);
  service = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
  q = await startQGateway(service, { host: '127.0.0.1', port: 0, clients, log: (l) => log.push(l) });
});
afterAll(async () => {
  await q?.close();
  await service?.close();
});

/** A logged-in raw connection: send a message, read the next whole one (null once closed). */
async function connection(): Promise<{ socket: Socket; call: (m: Uint8Array) => Promise<Buffer | null>; closed: Promise<void> }> {
  const socket = tcpConnect(q.port, '127.0.0.1');
  let got = Buffer.alloc(0);
  let waiter: ((b: Buffer | null) => void) | null = null;
  let first = true;
  let onCap: (ok: boolean) => void = () => undefined;
  const cap = new Promise<boolean>((resolve) => (onCap = resolve));
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      onCap(false);
      waiter?.(null);
      resolve();
    }),
  );
  socket.on('error', () => undefined);
  socket.on('data', (c: Buffer) => {
    if (first) {
      first = false;
      onCap(c[0] === 3);
      c = c.subarray(1);
    }
    got = Buffer.concat([got, c]);
    if (waiter && got.length >= 8 && got.length >= got.readUInt32LE(4)) {
      const m = got.subarray(0, got.readUInt32LE(4));
      got = got.subarray(m.length);
      const w = waiter;
      waiter = null;
      w(m);
    }
  });
  socket.write(Buffer.concat([Buffer.from(`faults:${secret}`), Buffer.of(3, 0)]));
  expect(await cap).toBe(true);
  return {
    socket,
    closed,
    call: (m) =>
      new Promise((resolve) => {
        waiter = resolve;
        socket.write(m);
      }),
  };
}

const errorText = (m: Buffer | null): string | null => (m && m[8] === 0x80 ? m.subarray(9, m.indexOf(0, 9)).toString('utf8') : null);

/** A correct query on a new connection answers (header; payload). */
async function answersAnew(): Promise<void> {
  const c = await connection();
  const m = await c.call(qTableCall('.fsi.getTicks', 'Instrument'));
  expect(errorText(m)).toBeNull();
  expect(m![8]).toBe(0);
  c.socket.destroy();
}

describe('failures inside the q gateway stay in their request', () => {
  it('a decoder throw answers that message with an internal error (ac 99); the connection and the process go on', async () => {
    const c = await connection();
    fault.decode = true;
    expect(errorText(await c.call(qTableCall('.fsi.getTicks', 'Instrument')))).toBe('99 internal error: injected decoder failure');
    const m = await c.call(qTableCall('.fsi.getTicks', 'Instrument'));
    expect(m![8]).toBe(0);
    c.socket.destroy();
    await answersAnew();
  });

  it("an error answer's encoder throw answers a plain internal error to a sync message", async () => {
    const c = await connection();
    fault.encodeError = true;
    const text = errorText(await c.call(qTableCall('.fsi.getTicks', 'Nope')));
    expect(text).toMatch(/^99 internal error: the answer to this message could not be encoded \(corr [0-9a-f-]+\)$/);
    expect(log.some((l) => l.includes('the error answer could not be encoded: internal error: injected encoder failure'))).toBe(true);
    c.socket.destroy();
    await answersAnew();
  });

  it('an encoder throw on an async callback answer closes that connection only', async () => {
    const c = await connection();
    const other = await connection();
    fault.encodeError = true;
    const w = QWriter.forMessage();
    w.vector(0, 4);
    w.symbol('.fsi.getTicks');
    w.u8(99);
    w.vector(11, 1);
    w.symText('table');
    w.vector(0, 1);
    w.symbol('Nope');
    w.symbol('onResult');
    w.u8(101);
    w.u8(0);
    c.socket.write(w.message(MSG_ASYNC));
    await c.closed;
    expect(log.some((l) => l.includes('q connection failed: internal error: injected encoder failure client=faults: closed'))).toBe(true);
    const m = await other.call(qTableCall('.fsi.getTicks', 'Instrument'));
    expect(m![8]).toBe(0);
    other.socket.destroy();
    await answersAnew();
  });
});
