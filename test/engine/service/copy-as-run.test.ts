/**
 * "Copy as" is runnable (issue 26): the curl text asCurl writes, run as it is by bash with only
 * CLIENT_SECRET in the environment, answers the request's rows from a real gateway on loopback; the q
 * text's hopen names the gateway's own kdb+ IPC host, port and client, and the call it makes answers
 * the same rows there (sent by node-q, a third-party client). Three connections: a remote `tickscope
 * gateway` (its q port from its getMeta), the embedded engine served by the app itself
 * (gatewayPort, gatewayIpcPort), and the embedded engine with no gateway yet, whose text starts with
 * the commands that make a client and start one on the same database.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import nodeq from 'node-q';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionInfo } from '../../../engine/contract.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { loadSettings, type ProcessSettings } from '../../../engine/executor/settings.js';
import { Clients } from '../../../engine/gateway/clients.js';
import { startEmbeddedGateway } from '../../../engine/gateway/embedded.js';
import { envelopeJson, requestInfo } from '../../../engine/output/envelope.js';
import { operationByName } from '../../../engine/operations/index.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { asCurl, asQ } from '../../../renderer/src/form/copy-as.js';
import { tempDir } from '../../helpers/db.js';

// needs the built CLI and worker scripts (dist/): npm run build

const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');
const ARGS = { table: 'Trade', startTS: '2024.03.06D14:30:00', endTS: '2024.03.06D15:00:00', idList: ['AAPL', 'MSFT'], columns: ['price', 'volume', 'conditions'] };
const TICKS = operationByName('getTicks');
let db = '';
const settings = (over: Partial<ProcessSettings> = {}): ProcessSettings => ({ ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1, ...over });
const stops: Array<() => Promise<void> | void> = [];

beforeAll(() => {
  db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 5, days: 1, instruments: 4, tradesPerDay: 6000 });
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  delete process.env['TICKSCOPE_HOME'];
});

/** The rows `tickscope call` answers. */
function callRows(args: unknown): Array<Record<string, unknown>> {
  return (JSON.parse(envelopeJson(requestInfo('getTicks'), Engine.open([db]).call('getTicks', args))) as { payload: Array<Record<string, unknown>> }).payload;
}

/** Runs text as bash does when it is pasted, with CLIENT_SECRET (and nothing of ours) in its environment. */
function bash(text: string, secret: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', text], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp', CLIENT_SECRET: secret } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A shell command run until it prints the gateway's first line; its REST URL and q port from that line. */
function startGatewayCommand(command: string): Promise<{ url: string; qPort: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `exec ${command}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    stops.push(
      () =>
        new Promise<void>((r) => {
          if (child.exitCode !== null) return r();
          child.once('exit', () => r());
          child.kill('SIGTERM');
        }),
    );
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /REST at (http:\/\/127\.0\.0\.1:\d+)\/servicegateway\/fsi\/<operation>, kdb\+ IPC at 127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, qPort: Number(m[2]) });
    });
    child.once('exit', (code) => reject(new Error(`the gateway stopped (${code}): ${out}${err}`)));
  });
}

/** A free loopback port. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The curl text run: its JSON envelope's rows must be tickscope call's. */
async function expectCurlRows(text: string, secret: string): Promise<void> {
  const r = await bash(text, secret);
  expect(r.stderr, text).toBe('');
  expect(r.code, text).toBe(0);
  const body = JSON.parse(r.stdout) as { header: { rc: number }; payload: Array<Record<string, unknown>> };
  expect(body.header.rc).toBe(0);
  expect(body.payload.length).toBeGreaterThan(0);
  expect(body.payload).toEqual(callRows(ARGS));
}

/** The q text's hopen: host, port, user and where the password comes from. */
function hopenOf(text: string): { host: string; port: number; user: string } {
  const m = /^h:hopen `\$":(?:tcps:\/\/)?([^:]+):(\d+):([^:"]+):",getenv`CLIENT_SECRET/m.exec(text);
  expect(m, text).not.toBeNull();
  return { host: m![1]!, port: Number(m![2]), user: m![3]! };
}

/** The q text's call sent by node-q to the host and port its hopen names, as its user: the rows of tickscope call. */
async function expectQRows(text: string, secret: string): Promise<void> {
  const { host, port, user } = hopenOf(text);
  expect(text).toContain('h(`.fsi.getTicks; `table`startTS`endTS`idList`columns!(`Trade;2024.03.06D14:30:00;2024.03.06D15:00:00;`AAPL`MSFT;`price`volume`conditions))');
  type Con = { k: (...a: unknown[]) => void; close: (cb?: () => void) => void };
  const con = await new Promise<Con>((resolve, reject) =>
    nodeq.connect({ host, port, user, password: secret, nanos2date: false }, (err: Error | undefined, c: unknown) => (err ? reject(err) : resolve(c as Con))),
  );
  try {
    const [header, payload] = await new Promise<[Record<string, unknown>, Array<Record<string, unknown>>]>((resolve, reject) =>
      con.k('.fsi.getTicks', ARGS, (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res as [Record<string, unknown>, Array<Record<string, unknown>>]))),
    );
    expect(header['rc']).toBe(0);
    const want = callRows(ARGS);
    expect(payload.length).toBe(want.length);
    expect(payload.map((r) => [r['price'], r['volume'], r['conditions'] ?? ''])).toEqual(want.map((r) => [r['price'], r['volume'], r['conditions']]));
  } finally {
    await new Promise<void>((r) => con.close(() => r()));
  }
}

const activeOf = (list: readonly ConnectionInfo[]): ConnectionInfo => list.find((c) => c.active)!;

describe('Copy as, run as copied', () => {
  it('a remote tickscope gateway: its URL, token URL and client id in curl; its q port (from its getMeta) in q', async () => {
    const clientsFile = join(tempDir(), 'clients.json');
    const secret = Clients.load(clientsFile).add('desk', ['fsi.read', 'fsi.generate']);
    const gw = await startGatewayCommand(`'${process.execPath}' '${CLI}' gateway --db '${db}' --clients '${clientsFile}' --port 0 --ipc-port 0 --workers 1`);
    const app = await QueryService.start([db], settings(), 'browser');
    stops.push(() => app.close());
    const remote = activeOf(await app.addConnection({ name: 'research', baseUrl: gw.url, clientId: 'desk', clientSecret: secret }));
    expect(remote.kind).toBe('remote');
    const curl = asCurl(TICKS, ARGS, remote);
    expect(curl).toContain(`'${gw.url}/auth/realms/tickscope/protocol/openid-connect/token'`);
    expect(curl).not.toContain(secret);
    await expectCurlRows(curl, secret);
    const q = asQ(TICKS, ARGS, remote);
    expect(hopenOf(q)).toEqual({ host: '127.0.0.1', port: gw.qPort, user: 'desk' });
    expect(q).not.toContain(secret);
    await expectQRows(q, secret);
  });

  it('the embedded engine served by the app itself (gatewayPort, gatewayIpcPort): its ports and a client of its clients file', async () => {
    const home = tempDir();
    process.env['TICKSCOPE_HOME'] = home;
    const secret = Clients.load(join(home, 'clients.json')).add('notebook', ['fsi.read']);
    const [port, ipcPort] = [await freePort(), await freePort()];
    const s = settings({ gatewayPort: port, gatewayIpcPort: ipcPort });
    const app = await QueryService.start([db], s, 'browser');
    stops.push(() => app.close());
    const served = await startEmbeddedGateway(app, s, home);
    stops.push(() => served?.close());
    const embedded = activeOf(app.connections());
    expect(embedded.kind).toBe('embedded');
    const curl = asCurl(TICKS, ARGS, embedded);
    expect(curl).toContain(`'http://127.0.0.1:${port}/auth/realms/tickscope/protocol/openid-connect/token' -d grant_type=client_credentials -d client_id='notebook'`);
    // served already: nothing to start, no client to make
    expect(curl).not.toMatch(/tickscope\.cjs' (gateway|clients)/);
    await expectCurlRows(curl, secret);
    const q = asQ(TICKS, ARGS, embedded);
    expect(hopenOf(q)).toEqual({ host: '127.0.0.1', port: ipcPort, user: 'notebook' });
    await expectQRows(q, secret);
  });

  it('the embedded engine with no gateway: the text first makes a client and starts tickscope gateway on the same database, at the ports it then calls', async () => {
    const home = tempDir();
    process.env['TICKSCOPE_HOME'] = home;
    const app = await QueryService.start([db], settings(), 'browser');
    stops.push(() => app.close());
    const curl = asCurl(TICKS, ARGS, activeOf(app.connections()));
    const commands = curl.split('\n').filter((l) => l.startsWith('#   ')).map((l) => l.slice(4));
    const add = commands.find((c) => c.includes(' clients add '));
    const start = commands.find((c) => c.includes(' gateway '));
    expect(add, curl).toBeDefined();
    expect(start, curl).toContain(`--db '${db}'`);
    expect(start).toContain(`--clients '${join(home, 'clients.json')}'`);
    // the default ports of tickscope gateway, which the rest of the text calls
    expect(curl).toContain("'http://127.0.0.1:8080/auth/realms/tickscope/protocol/openid-connect/token'");
    expect(curl).toContain("'http://127.0.0.1:8080/servicegateway/fsi/getTicks'");
    const id = /--id (\S+)/.exec(add!)![1]!;
    expect(curl).toContain(`-d client_id='${id}'`);
    // the commands as written: the client first (its secret printed once), then the gateway
    const made = await bash(add!, '');
    expect(made.code, made.stderr).toBe(0);
    const secret = /client_secret (\S+)/.exec(made.stdout)![1]!;
    // ... on free ports rather than 8080 and 5010, which another process on this machine may hold
    const gw = await startGatewayCommand(`${start!} --port 0 --ipc-port 0 --workers 1`);
    const port = new URL(gw.url).port;
    await expectCurlRows(curl.replaceAll('http://127.0.0.1:8080', gw.url), secret);
    const q = asQ(TICKS, ARGS, activeOf(app.connections()));
    expect(hopenOf(q)).toEqual({ host: '127.0.0.1', port: 5010, user: id });
    await expectQRows(q.replace(':127.0.0.1:5010:', `:127.0.0.1:${gw.qPort}:`), secret);
    expect(port).not.toBe('8080');
    // now that the client exists, the text names it and no longer makes one
    const again = asCurl(TICKS, ARGS, activeOf(app.connections()));
    expect(again).not.toContain(' clients add ');
    expect(again).toContain(`-d client_id='${id}'`);
    expect(again).toContain(start!);
  });
});
