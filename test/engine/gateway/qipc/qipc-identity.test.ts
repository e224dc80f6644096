/**
 * The q IPC gateway's share of the identity lifecycle and per-client limits (issue 25), driven by
 * node-q, a third-party client: a client removed from the clients file by another process loses its
 * open q connections at once and cannot open new ones; maxRequestsPerClientPerMinute applies to q
 * calls as to REST requests; a port in use is said as such.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import nodeq from 'node-q';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateDemo } from '../../../../engine/demo/generate.js';
import { loadSettings } from '../../../../engine/executor/settings.js';
import { Clients } from '../../../../engine/gateway/clients.js';
import { startQGateway } from '../../../../engine/gateway/qipc/server.js';
import { QueryService } from '../../../../engine/service/query-service.js';
import { tempDir } from '../../../helpers/db.js';

interface Con {
  k(...args: unknown[]): void;
  close(cb: () => void): void;
  on(event: string, cb: () => void): void;
}

let service: QueryService;
let db = '';
beforeAll(async () => {
  db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 4, days: 1, instruments: 3, tradesPerDay: 3000 });
  service = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1, maxRequestsPerClientPerMinute: 3 }, 'browser');
}, 60_000);
afterAll(async () => service?.close());

const open = (port: number, user: string, password: string): Promise<Con> =>
  new Promise((resolve, reject) => nodeq.connect({ host: '127.0.0.1', port, user, password, nanos2date: false }, (err: Error | undefined, con: unknown) => (err ? reject(err) : resolve(con as Con))));
const k = (con: Con, ...args: unknown[]): Promise<unknown> => new Promise((resolve, reject) => con.k(...args, (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res))));
const instruments = (con: Con): Promise<unknown> => k(con, '.fsi.getTicks', { table: 'Instrument' });

it('closes the q connections of a client removed from the clients file, and refuses its handshakes', async () => {
  const file = join(tempDir(), 'clients.json');
  const admin = Clients.load(file);
  const leaving = admin.add('leaving', ['fsi.read']);
  const staying = admin.add('staying', ['fsi.read']);
  const q = await startQGateway(service, { host: '127.0.0.1', port: 0, clients: Clients.load(file) });
  try {
    const a = await open(q.port, 'leaving', leaving);
    const b = await open(q.port, 'staying', staying);
    expect(await instruments(a)).toBeTruthy();
    const closed = new Promise<void>((r) => a.on('close', () => r()));
    // another process (tickscope clients remove) rewrites the file
    Clients.load(file).remove('leaving');
    await closed;
    await expect(open(q.port, 'leaving', leaving)).rejects.toThrow();
    // the other client's connection is untouched
    expect(await instruments(b)).toBeTruthy();
    await new Promise<void>((r) => b.close(() => r()));
  } finally {
    await q.close();
  }
}, 20_000);

it('applies maxRequestsPerClientPerMinute to q calls, naming the limit', async () => {
  const clients = Clients.inMemory();
  const secret = clients.add('busy', ['fsi.read']);
  const q = await startQGateway(service, { host: '127.0.0.1', port: 0, clients });
  try {
    const c = await open(q.port, 'busy', secret);
    for (let i = 0; i < 3; i++) expect(await instruments(c)).toBeTruthy();
    await expect(instruments(c)).rejects.toThrow(/^56 client "busy": more than 3 requests this minute \(maxRequestsPerClientPerMinute\)/);
    await new Promise<void>((r) => c.close(() => r()));
  } finally {
    await q.close();
  }
});

it('says a q port in use is in use', async () => {
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  const port = (busy.address() as { port: number }).port;
  try {
    await expect(startQGateway(service, { host: '127.0.0.1', port, clients: Clients.inMemory() })).rejects.toThrow(`--ipc-port ${port}: 127.0.0.1:${port} is already in use by another process`);
  } finally {
    busy.close();
  }
});

it('decodes q datetime infinities and out-of-range days as timestamp infinities (a fuzz case answered 99)', async () => {
  const { decodeMessage } = await import('../../../../engine/q/decode.js');
  const atom = (x: number): Uint8Array => {
    const b = new Uint8Array(9);
    b[0] = 256 - 15; // -15: a datetime atom
    new DataView(b.buffer).setFloat64(1, x, true);
    return b;
  };
  expect(decodeMessage(atom(-Infinity))).toBe('-0Wp');
  expect(decodeMessage(atom(Infinity))).toBe('0Wp');
  expect(decodeMessage(atom(1e300))).toBe('0Wp');
  expect(decodeMessage(atom(-1e300))).toBe('-0Wp');
  expect(decodeMessage(atom(0.5))).toBe('2000.01.01D12:00:00.000000000');
  expect(decodeMessage(atom(Number.NaN))).toBeNull();
});
