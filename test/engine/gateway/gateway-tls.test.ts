/**
 * The gateway over TLS (--tls-cert/--tls-key): HTTPS for REST and TLS for kdb+ IPC, with a test-only
 * self-signed certificate for 127.0.0.1 (test/fixtures/tls-test-*.pem, never used elsewhere).
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../../engine/demo/generate.js';
import { loadSettings } from '../../../engine/executor/settings.js';
import { Clients } from '../../../engine/gateway/clients.js';
import { type RunningQGateway, startQGateway } from '../../../engine/gateway/qipc/server.js';
import { type RunningGateway, startGateway } from '../../../engine/gateway/rest.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { tempDir } from '../../helpers/db.js';
import { qTableCall } from '../../helpers/q.js';

const cert = join(process.cwd(), 'test/fixtures/tls-test-cert.pem');
const key = join(process.cwd(), 'test/fixtures/tls-test-key.pem');
const ca = readFileSync(cert);
let service: QueryService;
let gw: RunningGateway;
let q: RunningQGateway;
let secret = '';

beforeAll(async () => {
  const db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 2, days: 1, instruments: 2, tradesPerDay: 1000 });
  const clients = Clients.inMemory();
  secret = clients.add('tls', ['fsi.read']);
  service = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
  gw = await startGateway(service, { host: '127.0.0.1', port: 0, realm: 'tickscope', tokenTtlSeconds: 300, clients, tls: { cert, key } });
  q = await startQGateway(service, { host: '127.0.0.1', port: 0, clients, tls: { cert, key } });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await q?.close();
  await service?.close();
});

function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the gateway over TLS', () => {
  it('serves HTTPS: the token endpoint and the operations', async () => {
    expect(gw.url.startsWith('https://127.0.0.1:')).toBe(true);
    const tok = await post(gw.tokenUrl!, new URLSearchParams({ grant_type: 'client_credentials', client_id: 'tls', client_secret: secret }).toString(), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(tok.status).toBe(200);
    const token = (JSON.parse(tok.text) as { access_token: string }).access_token;
    const r = await post(`${gw.url}/servicegateway/fsi/getTicks`, JSON.stringify({ table: 'Instrument' }), { authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    expect(r.status).toBe(200);
    expect((JSON.parse(r.text) as { payload: unknown[] }).payload).toHaveLength(2);
  });

  it('serves kdb+ IPC over TLS', async () => {
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: q.port, ca, servername: 'localhost' }, () => socket.write(Buffer.concat([Buffer.from(`tls:${secret}`), Buffer.of(3, 0)])));
      let stage = 0;
      let got = Buffer.alloc(0);
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        if (stage === 0) {
          stage = 1;
          socket.write(qTableCall('.fsi.getTicks', 'Instrument'));
          chunk = chunk.subarray(1);
        }
        got = Buffer.concat([got, chunk]);
        if (got.length >= 8 && got.length >= got.readUInt32LE(4)) {
          socket.end();
          resolve(got);
        }
      });
    });
    expect(reply[1]).toBe(2); // a response
    expect(reply[8]).toBe(0); // (header; payload), not an error
    expect(reply.includes(Buffer.from('instrumentID\0'))).toBe(true);
  });
});
