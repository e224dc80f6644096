/** The `tickscope` command as users run it: a real process over real folders. */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { csv, tempDir } from '../helpers/db.js';

const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');

function tickscope(args: string[], input?: string): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, maxBuffer: 1 << 28, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

interface Envelope {
  header: { rc: number; ac: number; ai: string; rows: number; api: string };
  payload: Array<Record<string, unknown>> | null;
}

function call(dbs: string[], op: string, body: unknown): { code: number; env: Envelope } {
  const r = tickscope(['call', ...dbs.flatMap((d) => ['--db', d]), op, JSON.stringify(body)]);
  return { code: r.code, env: JSON.parse(r.out) as Envelope };
}

/** A digest of every file under a folder (names and bytes). */
function digest(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const f of readdirSync(d).sort()) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f !== 'manifest.json') h.update(p.slice(dir.length)).update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

describe('tickscope CLI', () => {
  it('compiles its bundles through a code cache that a run doing work writes and later runs use', () => {
    const dir = join(tempDir(), 'demo');
    const caches = join(tempDir(), 'code-cache');
    const env = { ...process.env, TICKSCOPE_CODE_CACHE_DIR: caches };
    const run = (args: string[]): string => {
      const r = spawnSync(process.execPath, [CLI, ...args], { env, maxBuffer: 1 << 28 });
      expect(r.status, r.stderr.toString()).toBe(0);
      return r.stdout.toString('latin1');
    };
    const files = (): Record<string, number> => (existsSync(caches) ? Object.fromEntries(readdirSync(caches).map((f) => [f, statSync(join(caches, f)).mtimeMs])) : {});
    run(['--help']);
    expect(files()).toEqual({}); // help compiles little of a command: it writes no cache
    run(['demo', '--db', dir, '--days', '1', '--instruments', '2', '--trades-per-day', '2000']);
    const query = ['getTicks', '{"table":"Trade","startTS":"2024.01.01","endTS":"2030.01.01","columns":["instrumentID","price"]}'];
    const csvOut = run(['call', '--db', dir, '--format', 'csv', ...query]);
    const arrowOut = run(['call', '--db', dir, '--format', 'arrow', ...query]);
    const written = files();
    expect(Object.keys(written).sort().map((f) => f.replace(/\.\d+-\d+\.v8cache$/, ''))).toEqual(['arrow.cjs', 'cli-main.cjs']);
    // the next runs compile from those caches (a cache they could not use would be written again) and answer the same
    expect(run(['call', '--db', dir, '--format', 'csv', ...query])).toBe(csvOut);
    expect(run(['call', '--db', dir, '--format', 'arrow', ...query]).length).toBe(arrowOut.length);
    expect(files()).toEqual(written);
  });

  it('stops quietly and exits 0 when its reader goes away (call ... | head)', async () => {
    const { spawn } = await import('node:child_process');
    const dir = join(tempDir(), 'demo');
    expect(tickscope(['demo', '--db', dir, '--days', '1', '--instruments', '3', '--trades-per-day', '20000']).code).toBe(0);
    const child = spawn(process.execPath, [CLI, 'call', '--db', dir, 'getTicks', '{"table":"Trade","startTS":"2024.01.01","endTS":"2030.01.01"}'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    // like head: read the first bytes, then close the pipe
    await new Promise<void>((r) => child.stdout.once('data', () => r()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(err).toBe('');
    expect(code).toBe(0);
  });

  it('call --format arrow of several record batches (read and filled with helper threads) streams the bytes one thread writes', async () => {
    const dir = join(tempDir(), 'demo');
    // 600,000 rows: 4.8 MB column files, read with the helpers (storage/parallel-read.ts)
    expect(tickscope(['demo', '--db', dir, '--days', '1', '--instruments', '3', '--trades-per-day', '600000']).code).toBe(0);
    const args = { table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01', outputTZ: 'Europe/London' };
    const out = spawnSync(process.execPath, [CLI, 'call', '--db', dir, '--format', 'arrow', 'getTicks', JSON.stringify(args)], { maxBuffer: 1 << 28 });
    expect(out.status).toBe(0);
    const { Engine } = await import('../../engine/engine.js');
    const { writeArrowStream, ARROW_BATCH_ROWS } = await import('../../engine/output/arrow.js');
    const result = Engine.open([dir]).call('getTicks', args);
    expect(result.table.length).toBeGreaterThan(2 * ARROW_BATCH_ROWS); // batches for the writer and a helper
    const chunks: Buffer[] = [];
    writeArrowStream(result.table, { exact: true, zone: result.outputTZ, metadata: new Map([['header', '{}']]) }, (c) => chunks.push(Buffer.from(c)));
    // past the schema message (its metadata holds the response header, which differs per call):
    // continuation marker, metadata length, metadata
    const rest = (b: Buffer): Buffer => b.subarray(8 + b.readInt32LE(4));
    expect(rest(out.stdout).equals(rest(Buffer.concat(chunks)))).toBe(true);
    expect(tableFromIPC(out.stdout).batches).toHaveLength(Math.ceil(result.table.length / ARROW_BATCH_ROWS));
  });

  const root = tempDir();
  const empty = join(root, 'empty');
  const demo = join(root, 'demo');

  it('init creates an empty database with every standard table', () => {
    const r = tickscope(['init', '--db', empty]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/created .*empty with tables Trade, Quote, OrderbookSnapshots, OrderbookUpdates, TradeCanCor, Order, OrderAnalytics, Instrument, ExchangeHolidayCal/);
    const config = JSON.parse(readFileSync(join(empty, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config['timeColBuffer']).toBe('0D01:00:00.000000000');
    expect(call([empty], '.fsi.getTicks', { table: 'Trade' }).env.header.rows).toBe(0);
    expect(tickscope(['init', '--db', empty]).err).toMatch(/already exists and is not empty/);
  });

  it('demo is deterministic for a seed', () => {
    const args = ['--days', '2', '--instruments', '4', '--trades-per-day', '4000', '--seed', '7'];
    const r = tickscope(['demo', '--db', demo, ...args]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Trade\s+8000 rows/);
    const again = join(root, 'again');
    tickscope(['demo', '--db', again, ...args]);
    const other = join(root, 'other');
    tickscope(['demo', '--db', other, ...args.slice(0, -1), '8']);
    expect(digest(again)).toBe(digest(demo));
    expect(digest(other)).not.toBe(digest(demo));
  });

  it('import appends a CSV, and rejects a bad one naming line and column without writing', () => {
    const file = join(root, 'trades.csv');
    writeFileSync(file, csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [
      ['2024.03.06D14:30:00.000000001', 'ZZZ', '10.5', '100'],
      ['2024.03.06D14:30:00.000000002', 'ZZZ', '10.6', '200'],
    ]));
    const r = tickscope(['import', '--db', empty, '--table', 'Trade', '--file', file]);
    expect([r.code, r.out.trim()]).toEqual([0, 'imported 2 rows into Trade (1 partition(s) written)']);
    const bad = join(root, 'bad.csv');
    writeFileSync(bad, 'eventTimestamp,instrumentID,price\n2024.03.06D14:31,ZZZ,11\n2024.03.06D14:32,ZZZ,eleven\n');
    const b = tickscope(['import', '--db', empty, '--table', 'Trade', '--file', bad]);
    expect(b.code).toBe(1);
    expect(b.err.trim()).toBe(`tickscope import: ${bad}: line 3, column price: "eleven" is not a float; expected a number such as 101.5 or "101.5"`);
    // a zone that is not one says so, with the names near it (not that the first timestamp is not one)
    const zone = tickscope(['import', '--db', empty, '--table', 'Trade', '--file', file, '--tz', 'New_York']);
    expect([zone.code, zone.err.trim()]).toEqual([1, 'tickscope import: --tz "New_York" is not a known time zone; expected an IANA zone name; near it: America/New_York']);
    expect(call([empty], 'getTicks', { table: 'Trade' }).env.header.rows).toBe(2);
  });

  it('call prints the REST envelope, with nine fractional digits, from REST-encoded strings', () => {
    const { code, env } = call([demo], '.fsi.getTicks', {
      table: 'Trade',
      startTS: '2024.03.06D14:30:00',
      endTS: '2024.03.06D14:35:00',
      idList: ['AAPL'],
      columns: ['price', 'volume'],
      decPlaces: '2',
      filter: [['>', 'volume', '0']],
    });
    expect(code).toBe(0);
    expect([env.header.rc, env.header.ac, env.header.ai, env.header.api]).toEqual([0, 0, '', '.fsi.getTicks']);
    expect(env.header.rows).toBe(env.payload!.length);
    expect(env.payload!.length).toBeGreaterThan(0);
    for (const row of env.payload!) {
      expect(Object.keys(row)).toEqual(['eventTimestamp', 'price', 'volume']);
      expect(row['eventTimestamp']).toMatch(/^2024-03-06T14:3[0-4]:\d{2}\.\d{9}$/);
    }
  });

  it('call exits 1 with the error envelope; bodies come from a file or stdin', () => {
    const bad = call([demo], 'getTicks', { table: 'Trade', startTS: '2024.03.07', endTS: '2024.03.06' });
    expect(bad.code).toBe(1);
    expect(bad.env).toMatchObject({ header: { rc: 5, ac: 23, ai: 'startTS >= endTS' }, payload: null });
    const notJson = tickscope(['call', '--db', demo, 'getTicks', '{table:Trade}']);
    expect([notJson.code, (JSON.parse(notJson.out) as Envelope).header.ac]).toEqual([1, 13]);
    const body = join(root, 'body.json');
    writeFileSync(body, JSON.stringify({ table: 'Instrument' }));
    expect((JSON.parse(tickscope(['call', '--db', demo, 'getTicks', `@${body}`]).out) as Envelope).header.rows).toBe(4);
    expect((JSON.parse(tickscope(['call', '--db', demo, 'getTicks', '-'], '{"table":"Instrument"}').out) as Envelope).header.rows).toBe(4);
  });

  it('call --format csv, arrow and parquet give the JSON payload\'s rows: CSV as the app exports, Arrow and Parquet typed with exact instants', async () => {
    const body = JSON.stringify({ table: 'Trade', startTS: '2024.03.06D14:30:00', endTS: '2024.03.06D15:00:00', outputTZ: 'America/New_York' });
    const json = JSON.parse(tickscope(['call', '--db', demo, 'getTicks', body]).out) as Envelope;
    const rows = json.payload!;
    expect(rows.length).toBeGreaterThan(10);
    const names = Object.keys(rows[0]!);

    const csvOut = tickscope(['call', '--db', demo, '--format', 'csv', 'getTicks', body]);
    expect(csvOut.code).toBe(0);
    const lines = csvOut.out.trimEnd().split('\n');
    expect(lines[0]).toBe(names.join(','));
    expect(lines).toHaveLength(rows.length + 1);
    // timestamps: the JSON's wall-clock time followed by the instant's offset (SPEC 8; 6 March is EST)
    const text = (v: unknown): string => (v === null ? '' : typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}$/.test(v) ? `${v}-05:00` : String(v));
    for (const [i, row] of rows.entries()) {
      if (names.some((n) => /[",\n]/.test(text(row[n])))) continue; // quoted fields: checked in test/engine/output/output.test.ts
      expect(lines[i + 1]).toBe(names.map((n) => text(row[n])).join(','));
    }

    const arrowOut = spawnSync(process.execPath, [CLI, 'call', '--db', demo, '--format', 'arrow', 'getTicks', body], { maxBuffer: 1 << 28 });
    expect(arrowOut.status).toBe(0);
    const table = tableFromIPC(arrowOut.stdout);
    expect(table.numRows).toBe(rows.length);
    expect(table.schema.fields.map((f) => f.name)).toEqual(names);
    expect((JSON.parse(table.schema.metadata.get('header')!) as Envelope['header']).rows).toBe(rows.length);
    const ts = table.getChild('eventTimestamp')!;
    expect(String(ts.type)).toBe('Timestamp<NANOSECOND, America/New_York>');
    // the JSON text is New York wall-clock time; the Arrow value is the UTC instant, exact to the nanosecond
    const first = rows[0]!['eventTimestamp'] as string;
    const ns = BigInt((ts.data[0]!.values as BigInt64Array)[0]!);
    const utc = new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 19);
    expect(utc).toBe(new Date(`${first.slice(0, 19)}-05:00`).toISOString().slice(0, 19));
    expect(first.slice(20)).toBe(String(ns % 1_000_000_000n).padStart(9, '0'));
    expect(table.getChild('instrumentID')!.get(0)).toBe(rows[0]!['instrumentID']);

    const parquetOut = spawnSync(process.execPath, [CLI, 'call', '--db', demo, '--format', 'parquet', 'getTicks', body], { maxBuffer: 1 << 28 });
    expect(parquetOut.status).toBe(0);
    const file = join(root, 'call.parquet');
    writeFileSync(file, parquetOut.stdout);
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const back = (await duck.runAndReadAll(`SELECT count(*) AS n, first(instrumentID) AS id, epoch_ns(first(eventTimestamp)) AS ns FROM read_parquet('${file}')`)).getRowObjects()[0]!;
    expect([Number(back['n']), back['id'], BigInt(back['ns'] as bigint) / 1000n]).toEqual([rows.length, rows[0]!['instrumentID'], ns / 1000n]);

    const bad = tickscope(['call', '--db', demo, '--format', 'xml', 'getTicks', body]);
    expect([bad.code, bad.err.trim()]).toEqual([1, 'tickscope call: --format: "xml" is not an output format; expected one of json, csv, arrow, parquet']);
    const failed = tickscope(['call', '--db', demo, '--format', 'csv', 'getTicks', '{"table":"Nope"}']);
    expect([failed.code, failed.out]).toEqual([1, '']);
    expect(failed.err).toMatch(/^tickscope call: table: "Nope"/);
  });

  it('mounts several assemblies and routes by scope.assembly', () => {
    const both = [demo, empty];
    expect(call(both, 'getTicks', { table: 'Trade', idList: ['ZZZ'] }).env.header.rows).toBe(0);
    expect(call(both, 'getTicks', { table: 'Trade', idList: ['ZZZ'], scope: { assembly: 'empty' } }).env.header.rows).toBe(2);
    const unknown = call(both, 'getTicks', { table: 'Trade', scope: { assembly: 'prod' } });
    expect(unknown.env.header.ac).toBe(9);
    expect(unknown.env.header.ai).toBe('scope.assembly: "prod" is not a mounted assembly; expected one of demo, empty');
  });

  it('answers usage mistakes plainly', () => {
    const unknown = tickscope(['frobnicate']);
    expect([unknown.code, unknown.err.split('\n')[0]]).toEqual([2, 'tickscope: unknown command "frobnicate"']);
    const noDb = tickscope(['call', 'getTicks', '{}']);
    expect(noDb.err).toMatch(/--db DIR is required/);
    const badOpt = tickscope(['demo', '--db', join(root, 'x'), '--days', 'many']);
    expect([badOpt.code, badOpt.err.trim()]).toEqual([1, 'tickscope demo: --days: "many" is not valid; expected an integer >= 1']);
    expect(tickscope(['--help']).out).toMatch(/usage: tickscope <command>/);
  });

  it('is on the PATH of npx in a checkout', () => {
    const r = spawnSync('npx', ['--no-install', 'tickscope', 'init', '--help'], { encoding: 'utf8' });
    expect(r.stdout).toMatch(/usage: tickscope init --db DIR/);
  });
});

describe('tickscope gateway start-up', () => {
  it('exits 1 with one line when its port is in use, instead of staying up on its workers', async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    const dir = join(tempDir(), 'db');
    expect(tickscope(['init', '--db', dir]).code).toBe(0);
    try {
      // a gateway that stayed up would be ended by the timeout (status null, signal SIGTERM)
      const r = spawnSync(process.execPath, [CLI, 'gateway', '--db', dir, '--port', String(port), '--ipc-port', '0', '--workers', '1'], { encoding: 'utf8', timeout: 30_000 });
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([`tickscope gateway: --port ${port}: 127.0.0.1:${port} is already in use by another process; stop it or give another port (0 picks a free one)`]);
    } finally {
      busy.close();
    }
  }, 40_000);
});
