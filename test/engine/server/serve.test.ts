import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageResponse, RunResponse } from '../../../engine/contract.js';
import { loadSettings } from '../../../engine/executor/settings.js';
import { type RunningServer, serve } from '../../../engine/server/serve.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { csv, makeEngine, payloadRows, tempDir } from '../../helpers/db.js';

// 2000 trades of one instrument and 3 of another, one millisecond apart, with prices in a sawtooth.
const rows: string[][] = [];
for (let i = 0; i < 2000; i++) {
  const ms = String(i % 1000).padStart(3, '0');
  const sec = String(Math.floor(i / 1000)).padStart(2, '0');
  rows.push([`2024.03.06D10:00:${sec}.${ms}000001`, 'AAPL', String(100 + (i % 50) / 10), String(1 + (i % 7)), i % 3 ? '@' : 'F,X']);
}
rows.push(['2024.03.06D10:00:00.5', 'MSFT', '400', '10', '@'], ['2024.03.06D10:00:01.5', 'MSFT', '401', '', '@'], ['2024.03.06D10:00:02', 'MSFT', '', '5', '']);
const engine = makeEngine({
  Trade: csv(['eventTimestamp', 'instrumentID', 'price', 'volume', 'conditions'], rows.map((r) => r.map((c) => (c.includes(',') ? `"${c}"` : c)))),
});

let server: RunningServer;
const rendererDir = tempDir();
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head><title>t</title></head><body></body></html>');

let service: QueryService;
beforeAll(async () => {
  service = await QueryService.start(engine.databases.map((d) => d.dir), { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
  server = await serve(service, { port: 0, host: '127.0.0.1', rendererDir });
});
afterAll(async () => {
  await server.close();
  await service.close();
});

async function api(path: string, init: RequestInit = {}, token = server.token): Promise<Response> {
  return fetch(new URL(path, server.url), {
    ...init,
    headers: { 'x-tickscope-token': token, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
  });
}

async function run(args: Record<string, unknown>): Promise<Extract<RunResponse, { ok: true }>> {
  const res = await api('app/api/run', { method: 'POST', body: JSON.stringify({ operation: '.fsi.getTicks', args }) });
  const body = (await res.json()) as RunResponse;
  if (!body.ok) throw new Error(body.header.ai);
  return body;
}

describe('tickscope serve', () => {
  it('serves the app page with its per-launch token', async () => {
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`<meta name="tickscope-token" content="${server.token}" />`);
  });

  it('refuses the app API without the token, and a foreign Host', async () => {
    expect((await api('app/api/info', {}, 'wrong')).status).toBe(401);
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL('app/api/info', server.url);
      const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, headers: { host: 'evil.example:80', 'x-tickscope-token': server.token } }, (r) => resolve(r.statusCode ?? 0));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('describes assemblies, tables and the registry', async () => {
    const info = (await (await api('app/api/info')).json()) as { assemblies: Array<{ name: string; tables: Array<{ name: string; rows: number; firstDate: string }> }>; operations: unknown[] };
    const trade = info.assemblies[0]!.tables.find((t) => t.name === 'Trade')!;
    expect([trade.rows, trade.firstDate]).toEqual([2003, '2024-03-06']);
    expect(info.operations).toHaveLength(4);
    expect(await (await api('app/api/identifiers?assembly=db&table=Trade')).json()).toEqual(['AAPL', 'MSFT']);
  });

  it('runs a query and pages its rows as the payload renders them', async () => {
    const r = await run({ table: 'Trade', idList: ['MSFT'], columns: ['price', 'volume'] });
    // The identifier column is not among the chosen columns, so the result has none to pick from.
    expect([r.rows, r.ids, r.idColumn, r.timeColumn, r.header.rc]).toEqual([3, [], null, 'eventTimestamp', 0]);
    const withIds = await run({ table: 'Trade', idList: ['MSFT', 'AAPL'], endTS: '2024.03.06D10:00:00.6' });
    expect([withIds.ids, withIds.idColumn]).toEqual([['AAPL', 'MSFT'], 'instrumentID']);
    const page = (await (await api(`app/api/results/${r.resultId}/page?offset=1&limit=5`)).json()) as PageResponse;
    expect(page.rows).toEqual([
      ['2024-03-06T10:00:01.500000000', '401', ''],
      ['2024-03-06T10:00:02.000000000', '', '5'],
    ]);
    const bad = await api(`app/api/results/${r.resultId}/page?offset=-1&limit=5`);
    expect([bad.status, ((await bad.json()) as { error: { ai: string } }).error.ai]).toEqual([400, 'offset: "-1" is not valid; expected an integer >= 0']);
  });

  it('answers a failed query with its envelope header', async () => {
    const res = await api('app/api/run', { method: 'POST', body: JSON.stringify({ operation: 'getTicks', args: { table: 'Trade', startTS: '2024.03.07', endTS: '2024.03.06' } }) });
    const body = (await res.json()) as RunResponse;
    expect(body.ok).toBe(false);
    expect([body.header.rc, body.header.ac, body.header.ai]).toEqual([5, 23, 'startTS >= endTS']);
  });

  it('sends chart series as Arrow, one point per tick, conflated past maxPoints', async () => {
    const r = await run({ table: 'Trade' });
    const chart = async (body: Record<string, unknown>): Promise<ReturnType<typeof tableFromIPC>> =>
      tableFromIPC(new Uint8Array(await (await api(`app/api/results/${r.resultId}/chart`, { method: 'POST', body: JSON.stringify(body) })).arrayBuffer()));
    const full = await chart({ valueColumn: 'price', volumeColumn: 'volume', id: 'MSFT', maxPoints: 100 });
    expect(full.schema.metadata.get('conflated')).toBe('false');
    expect([...(full.getChild('value')!.toArray() as Float64Array)]).toEqual([400, 401, NaN]);
    expect([...(full.getChild('ts')!.toArray() as BigInt64Array)].map(String)).toEqual(['1709719200500000000', '1709719201500000000', '1709719202000000000']);

    const small = await chart({ valueColumn: 'price', volumeColumn: 'volume', id: 'AAPL', maxPoints: 100 });
    const values = [...(small.getChild('value')!.toArray() as Float64Array)];
    const seq = [...(small.getChild('seq')!.toArray() as Int32Array)];
    expect(small.schema.metadata.get('conflated')).toBe('true');
    expect(small.schema.metadata.get('total')).toBe('2000');
    expect(values.length).toBeLessThanOrEqual(100);
    expect(Math.min(...values)).toBe(100);
    expect(Math.max(...values)).toBe(104.9);
    expect(seq).toEqual([...seq].sort((a, b) => a - b));
    const volumes = [...(small.getChild('volume')!.toArray() as Float64Array)];
    const expectedVolume = rows.filter((x) => x[1] === 'AAPL').reduce((s, x) => s + Number(x[3]), 0);
    expect(volumes.reduce((a, b) => a + b, 0)).toBe(expectedVolume);

    const bad = await api(`app/api/results/${r.resultId}/chart`, { method: 'POST', body: JSON.stringify({ valueColumn: 'conditions', maxPoints: 10 }) });
    expect(bad.status).toBe(400);
  });

  it('sends a whole result as typed Arrow: exact nanoseconds, symbols, nulls', async () => {
    const r = await run({ table: 'Trade', idList: ['MSFT'], columns: ['instrumentID', 'price', 'volume'] });
    const t = tableFromIPC(new Uint8Array(await (await api(`app/api/results/${r.resultId}/arrow`)).arrayBuffer()));
    expect(t.schema.fields.map((f) => `${f.name}:${f.type}`)).toEqual([
      'eventTimestamp:Timestamp<NANOSECOND>',
      'instrumentID:Dictionary<Int32, Utf8>',
      'price:Float64',
      'volume:Float64',
    ]);
    expect([...(t.getChild('eventTimestamp')!.data[0]!.values as BigInt64Array)].map(String)).toEqual(['1709719200500000000', '1709719201500000000', '1709719202000000000']);
    expect(t.getChild('instrumentID')!.toArray()).toEqual(['MSFT', 'MSFT', 'MSFT']);
    expect([t.getChild('price')!.isValid(2), t.getChild('volume')!.isValid(1), t.getChild('volume')!.get(2)]).toEqual([false, false, 5]);
    expect(r.groupColumns).toEqual([]);
  });

  it('downloads the whole result as CSV equal to the payload, row for row', async () => {
    const r = await run({ table: 'Trade' });
    const res = await fetch(new URL(`app/api/results/${r.resultId}/export/csv?token=${server.token}&name=t.csv`, server.url));
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="t.csv"');
    const records = parse(await res.text(), { columns: true }) as Array<Record<string, string>>;
    const payload = payloadRows(engine, '.fsi.getTicks', { table: 'Trade' });
    expect(records).toHaveLength(2003);
    const asText = (v: unknown): string => (v === null ? '' : Array.isArray(v) ? JSON.stringify(v) : String(v));
    payload.forEach((row, i) => {
      for (const [k, v] of Object.entries(row)) expect(records[i]![k], `row ${i} ${k}`).toBe(asText(v));
    });
    expect(records.some((x) => x['conditions'] === 'F,X')).toBe(true);
  });

  it('downloads the whole result as Parquet and as Arrow with the payload\'s rows; an unknown format is a 404 naming the path', async () => {
    const r = await run({ table: 'Trade' });
    const res = await fetch(new URL(`app/api/results/${r.resultId}/export/parquet?token=${server.token}&name=t.parquet`, server.url));
    expect([res.status, res.headers.get('content-disposition')]).toEqual([200, 'attachment; filename="t.parquet"']);
    const file = join(tempDir(), 't.parquet');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const back = (await duck.runAndReadAll(`SELECT count(*) AS n, sum(volume) AS v, count(DISTINCT conditions) AS c FROM read_parquet('${file}')`)).getRowObjects()[0]!;
    const payload = payloadRows(engine, '.fsi.getTicks', { table: 'Trade' });
    const volume = payload.reduce((s, row) => s + (typeof row['volume'] === 'number' ? row['volume'] : 0), 0);
    expect([Number(back['n']), Number(back['v'])]).toEqual([payload.length, volume]);
    expect(Number(back['c'])).toBe(new Set(payload.map((row) => row['conditions']).filter((c) => c !== '')).size);
    const arrow = await fetch(new URL(`app/api/results/${r.resultId}/export/arrow?token=${server.token}&name=t.arrow`, server.url));
    const t = tableFromIPC(new Uint8Array(await arrow.arrayBuffer()));
    expect([arrow.headers.get('content-type'), t.numRows, String(t.schema.fields[0]!.type)]).toEqual(['application/vnd.apache.arrow.stream', payload.length, 'Timestamp<NANOSECOND, UTC>']);
    const bad = await fetch(new URL(`app/api/results/${r.resultId}/export/xml?token=${server.token}`, server.url));
    expect(bad.status).toBe(404);
    expect(((await bad.json()) as { error: { ai: string } }).error.ai).toMatch(/xml: not an export format; expected csv, arrow, parquet/);
  });
});
