/**
 * CSV keeps the zone (SPEC 8 as amended, issue 26): in an outputTZ other than UTC, every CSV path
 * writes a timestamp as its wall-clock time with that instant's offset (`-05:00`, then `-04:00` after
 * the DST change), so DuckDB and pandas read instants back, not naive times; UTC keeps the plain form
 * and the JSON payload keeps INTERFACE's. The paths: the engine's renderer on one thread and on
 * helper threads, the app's export (executor worker) and its browser download (`tickscope serve`),
 * a copy's page, and `tickscope call --format csv`. Import takes both forms back, exactly.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../engine/contract.js';
import { Table } from '../../../engine/core/table.js';
import { Engine } from '../../../engine/engine.js';
import { loadSettings } from '../../../engine/executor/settings.js';
import { payloadJson } from '../../../engine/output/envelope.js';
import { RenderHelpers, writeText } from '../../../engine/output/parallel-text.js';
import { textChunks } from '../../../engine/output/text.js';
import { type RunningServer, serve } from '../../../engine/server/serve.js';
import { AppService } from '../../../engine/service/app-service.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { Database } from '../../../engine/storage/database.js';
import { importFile } from '../../../engine/storage/import.js';
import { standardSchema } from '../../../engine/storage/schema.js';
import { csv, makeDb, payloadRows, tempDir } from '../../helpers/db.js';

// needs the built CLI and worker scripts (dist/): npm run build

/** Instants around New York's two DST changes of 2024, and a wall-clock time that happens twice. */
const TRADES = csv(
  ['eventTimestamp', 'instrumentID', 'exchTime', 'price', 'volume'],
  [
    ['2024-03-06T14:30:00.123456789Z', 'AAPL', '2024-03-06T14:29:59.999999999Z', '170.5', '100'],
    ['2024-03-10T06:59:59.999999999Z', 'AAPL', '', '171', '200'],
    ['2024-03-10T07:00:00.000000001Z', 'AAPL', '2024-03-10T06:59:59.000000001Z', '171.25', '300'],
    ['2024-11-03T05:30:00.000000007Z', 'MSFT', '2024-11-03T05:30:00Z', '400', '10'],
    ['2024-11-03T06:30:00.000000008Z', 'MSFT', '2024-11-03T06:30:00Z', '401', '20'],
  ],
);
const NY = { table: 'Trade', startTS: '2024.03.01', endTS: '2024.12.01', columns: ['instrumentID', 'exchTime', 'price', 'volume'], outputTZ: 'America/New_York' };
const UTC = { ...NY, outputTZ: 'UTC' };
/** The CSV SPEC 8 asks for NY: the offset of each instant, both offsets across each change. */
const NY_CSV = [
  'eventTimestamp,instrumentID,exchTime,price,volume',
  '2024-03-06T09:30:00.123456789-05:00,AAPL,2024-03-06T09:29:59.999999999-05:00,170.5,100',
  '2024-03-10T01:59:59.999999999-05:00,AAPL,,171,200',
  '2024-03-10T03:00:00.000000001-04:00,AAPL,2024-03-10T01:59:59.000000001-05:00,171.25,300',
  '2024-11-03T01:30:00.000000007-04:00,MSFT,2024-11-03T01:30:00.000000000-04:00,400,10',
  '2024-11-03T01:30:00.000000008-05:00,MSFT,2024-11-03T01:30:00.000000000-05:00,401,20',
  '',
].join('\n');
const INSTANTS = [1709735400123456789n, 1710053999999999999n, 1710054000000000001n, 1730611800000000007n, 1730615400000000008n];

const db = makeDb({ Trade: TRADES });
const engine = new Engine([db]);
const ok = (r: RunResponse): Extract<RunResponse, { ok: true }> => {
  if (!r.ok) throw new Error(`ac ${r.header.ac}: ${r.header.ai}`);
  return r;
};
const text = (chunks: Iterable<Uint8Array>): string => Buffer.concat([...chunks]).toString();

let service: QueryService;
let server: RunningServer;
const rendererDir = tempDir();
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head><title>t</title></head><body></body></html>');
beforeAll(async () => {
  service = await QueryService.start([db.dir], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 }, 'browser');
  server = await serve(service, { port: 0, host: '127.0.0.1', rendererDir });
});
afterAll(async () => {
  await server?.close();
  await service?.close();
});

/** The app's export of a result, as the executor's worker renders it (desktop save and browser download). */
async function appExport(args: Record<string, unknown>): Promise<string> {
  const r = ok(await service.run('.fsi.getTicks', args));
  const chunks: Uint8Array[] = [];
  for await (const c of service.exportFile(r.resultId, 'csv')) chunks.push(c);
  return text(chunks);
}

describe('CSV in an outputTZ other than UTC', () => {
  it('the engine writes each timestamp with its instant\'s offset, both offsets across a DST change; UTC and JSON keep their forms', () => {
    const ny = engine.call('getTicks', NY);
    expect(text(textChunks('csv', ny.table, ny.outputTZ))).toBe(NY_CSV);
    // UTC: the plain form, no offset
    const utc = engine.call('getTicks', UTC);
    expect(text(textChunks('csv', utc.table, 'UTC')).split('\n')[1]).toBe('2024-03-06T14:30:00.123456789,AAPL,2024-03-06T14:29:59.999999999,170.5,100');
    // the JSON payload keeps INTERFACE's form: wall-clock time, no offset
    expect((JSON.parse(payloadJson(ny)) as Array<Record<string, unknown>>)[0]!['eventTimestamp']).toBe('2024-03-06T09:30:00.123456789');
  });

  it('writes an offset of old with its seconds (New York\'s mean time), the text import reads back', () => {
    const t = new Table(['t'], [{ type: 'timestamp', data: BigInt64Array.of(-3781244037876543211n, -9223372036854775808n, 9223372036854775807n) }], 3);
    expect(text(textChunks('csv', t, 'America/New_York'))).toBe('t\n1850-03-06T09:30:00.123456789-04:56:02\n\n0Wp\n');
    expect(text(textChunks('csv', t, 'Europe/London')).split('\n')[1]).toBe('1850-03-06T14:26:02.123456789+00:00'); // GMT since 1847: +00:00, not UTC's bare form
    expect(text(textChunks('csv', t, 'Asia/Kolkata')).split('\n')[1]).toBe('1850-03-06T20:19:30.123456789+05:53:28');
  });

  it('the app\'s result service writes it in its CSV, and a copy\'s page (csv form) too while the grid\'s page stays wall-clock', () => {
    const app = new AppService(engine, 'browser');
    const r = ok(app.run('.fsi.getTicks', NY));
    expect(text(app.csv(r.resultId).chunks)).toBe(NY_CSV);
    expect(app.page(r.resultId, 0, 5, 'csv').rows.map((row) => row[0])).toEqual(NY_CSV.split('\n').slice(1, 6).map((l) => l.split(',')[0]));
    expect(app.page(r.resultId, 0, 1).rows[0]![0]).toBe('2024-03-06T09:30:00.123456789');
  });

  it('rendered on helper threads it is byte for byte the one-thread text, offsets included', () => {
    // two days of a timestamp every 0.3 s, across the spring change, in several blocks per helper
    const n = 600_000;
    const data = BigInt64Array.from({ length: n }, (_, i) => 1709989200000000000n + BigInt(i) * 300_000_001n);
    const t = new Table(['t'], [{ type: 'timestamp', data }], n);
    const one = text(textChunks('csv', t, 'America/New_York'));
    const chunks: Uint8Array[] = [];
    writeText('csv', t, 'America/New_York', {}, (c) => chunks.push(c), RenderHelpers.start(2));
    expect(text(chunks) === one).toBe(true);
    const lines = one.split('\n');
    expect(lines[1]).toBe('2024-03-09T08:00:00.000000000-05:00');
    expect(lines.filter((l) => l.endsWith('-04:00')).length).toBeGreaterThan(0);
    expect(lines.slice(1, -1).every((l) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}-0[45]:00$/.test(l))).toBe(true);
  });

  it('the app\'s export (the worker holding the result) and the browser download write it, and its copy\'s page over HTTP', async () => {
    expect(await appExport(NY)).toBe(NY_CSV);
    const r = ok(await service.run('.fsi.getTicks', NY));
    const res = await fetch(new URL(`app/api/results/${r.resultId}/export/csv?token=${server.token}&name=getTicks_Trade_2024-03-01_2024-11-30_America-New_York.csv`, server.url));
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="getTicks_Trade_2024-03-01_2024-11-30_America-New_York.csv"');
    expect(await res.text()).toBe(NY_CSV);
    const page = (await (await fetch(new URL(`app/api/results/${r.resultId}/page?offset=3&limit=2&form=csv`, server.url), { headers: { 'x-tickscope-token': server.token } })).json()) as { rows: string[][] };
    expect(page.rows.map((row) => row[0])).toEqual(['2024-11-03T01:30:00.000000007-04:00', '2024-11-03T01:30:00.000000008-05:00']);
  });

  it('tickscope call --format csv writes it', () => {
    const cli = join(process.cwd(), 'bin', 'tickscope.cjs');
    const out = spawnSync(process.execPath, [cli, 'call', '--db', db.dir, '--format', 'csv', 'getTicks', JSON.stringify(NY)], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(out.stdout).toBe(NY_CSV);
  });

  it('exported, then imported into another database, gives the same instants to the nanosecond', async () => {
    const file = join(tempDir(), 'export.csv');
    writeFileSync(file, await appExport(NY));
    const other = Database.create(join(tempDir(), 'copy'), standardSchema());
    importFile(other, 'Trade', file);
    expect(payloadRows(new Engine([other]), 'getTicks', UTC)).toEqual(payloadRows(engine, 'getTicks', UTC));
    // and under --tz of another zone: the offsets decide, not the zone
    const third = Database.create(join(tempDir(), 'third'), standardSchema());
    importFile(third, 'Trade', file, { tz: 'Asia/Tokyo' });
    expect(payloadRows(new Engine([third]), 'getTicks', UTC)).toEqual(payloadRows(engine, 'getTicks', UTC));
  });

  it('DuckDB reads the exported timestamps as TIMESTAMPTZ, the right instants (to the microsecond it keeps; to the nanosecond as TIMESTAMP_NS)', async () => {
    const file = join(tempDir(), 'duck.csv');
    writeFileSync(file, await appExport(NY));
    const conn = await (await DuckDBInstance.create(':memory:')).connect();
    await conn.run(`CREATE TABLE t AS SELECT * FROM read_csv('${file}', header = true, all_varchar = false)`);
    const types = (await conn.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE t)`)).getRowObjectsJS();
    expect(types.find((x) => x['column_name'] === 'eventTimestamp')!['column_type']).toBe('TIMESTAMP WITH TIME ZONE');
    expect(types.find((x) => x['column_name'] === 'exchTime')!['column_type']).toBe('TIMESTAMP WITH TIME ZONE');
    const us = (await conn.runAndReadAll('SELECT epoch_us(eventTimestamp) AS us FROM t')).getRowObjectsJS().map((x) => x['us']);
    expect(us).toEqual(INSTANTS.map((ns) => ns / 1000n));
    const exact = (await conn.runAndReadAll(`SELECT epoch_ns(eventTimestamp::TIMESTAMP_NS) AS ns FROM read_csv('${file}', header = true, all_varchar = true)`)).getRowObjectsJS().map((x) => x['ns']);
    expect(exact).toEqual(INSTANTS);
    conn.closeSync();
  });
});

describe('CSV import of timestamps with and without an offset', () => {
  it('reads a file on disk: naive times in --tz (default UTC), Z and ±HH:MM (and a zone\'s ±HH:MM:SS of old) as the instants they name, nanoseconds kept', () => {
    const rows: Array<[string, bigint]> = [
      ['2024-03-06T09:30:00.123456789-05:00', 1709735400123456789n],
      ['2024-03-06T14:30:00.123456789Z', 1709735400123456789n],
      ['2024-03-06T20:00:00.123456789+05:30', 1709735400123456789n],
      ['2024-03-06T14:30:00.123456789+00:00', 1709735400123456789n],
      ['2024-11-03T01:30:00.000000008-05:00', 1730615400000000008n],
      ['2024-11-03T01:30:00.000000007-04:00', 1730611800000000007n],
      ['1850-03-06T09:30:00.123456789-04:56:02', -3781244037876543211n],
      ['2024-03-06T09:30:00.5-05:00', 1709735400500000000n],
    ];
    const file = join(tempDir(), 'zoned.csv');
    writeFileSync(file, csv(['eventTimestamp', 'instrumentID', 'price'], rows.map(([ts], i) => [ts, `I${i}`, String(i)])));
    const naive = join(tempDir(), 'naive.csv');
    writeFileSync(naive, csv(['eventTimestamp', 'instrumentID', 'price'], [['2024-03-06T14:30:00.123456789', 'N0', '0'], ['2024.03.06D14:30:00.123456789', 'N1', '1']]));
    for (const tz of [undefined, 'America/New_York']) {
      const target = Database.create(join(tempDir(), `in-${tz ?? 'utc'}`), standardSchema());
      importFile(target, 'Trade', file, tz ? { tz } : {});
      importFile(target, 'Trade', naive, tz ? { tz } : {});
      const got = new Engine([target]).call('getTicks', { table: 'Trade', startTS: '1800.01.01', endTS: '2100.01.01', columns: ['instrumentID'] });
      const ts = (got.table.col('eventTimestamp') as { data: BigInt64Array }).data;
      const ids = got.table.col('instrumentID') as { dict: { get(i: number): string }; codes: Int32Array };
      const byId = new Map(Array.from({ length: got.table.length }, (_, i) => [ids.dict.get(ids.codes[i]!), ts[i]!]));
      rows.forEach(([cell, want], i) => expect(byId.get(`I${i}`), `${cell} under ${tz ?? 'UTC'}`).toBe(want));
      // naive times are wall-clock times of --tz, as before
      const shift = tz ? 5n * 3600n * 1_000_000_000n : 0n;
      expect([byId.get('N0'), byId.get('N1')]).toEqual([1709735400123456789n + shift, 1709735400123456789n + shift]);
    }
  });

  it('names the line and column of an offset that is not one', () => {
    const file = join(tempDir(), 'bad.csv');
    writeFileSync(file, csv(['eventTimestamp', 'instrumentID', 'price'], [['2024-03-06T09:30:00.000000000-05:00', 'A', '1'], ['2024-03-06T09:30:00.000000000-25:00', 'A', '2']]));
    const target = Database.create(join(tempDir(), 'bad'), standardSchema());
    expect(() => importFile(target, 'Trade', file)).toThrow(/line 3, column eventTimestamp: "2024-03-06T09:30:00.000000000-25:00"/);
  });
});
