/**
 * Concurrent writes and reads of one database (SPEC 3): worker threads appending and querying at once
 * (no error, no lost rows, no torn read), a query whose folder a write removed (retried once), and a
 * writer process killed at chosen points of its commit (the database stays as before until its new
 * manifest is renamed into place, as after from then on, and the next writer takes over its lock).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { columnFromValues } from '../../../engine/core/builder.js';
import { Table } from '../../../engine/core/table.js';
import { Database } from '../../../engine/storage/database.js';
import { csv, tempDir } from '../../helpers/db.js';

const DAY_NS = 19_788n * 86_400_000_000_000n; // 2024-03-06
const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');
let workerFile = '';
let writerFile = '';

beforeAll(async () => {
  // bundled beside the project so that its packages resolve from node_modules
  workerFile = join(process.cwd(), 'dist', 'test-fixtures', `rw-worker-${process.pid}.mjs`);
  await build({ entryPoints: ['test/fixtures/rw-worker.ts'], bundle: true, platform: 'node', format: 'esm', outfile: workerFile, packages: 'external', logLevel: 'error' });
  writerFile = join(process.cwd(), 'dist', 'test-fixtures', `kill-writer-${process.pid}.mjs`);
  await build({ entryPoints: ['test/fixtures/kill-writer.ts'], bundle: true, platform: 'node', format: 'esm', outfile: writerFile, packages: 'external', logLevel: 'error' });
});

/**
 * A writer process (test/fixtures/kill-writer.ts) importing `file`, stopped before the write `stop`
 * names; resolves once it is there, with a kill that resolves once it has ended.
 */
async function stoppedWriter(dir: string, file: string, stop: string): Promise<{ pid: number; kill: () => Promise<void> }> {
  const child = spawn(process.execPath, [writerFile, dir, file, stop], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve();
    });
    void exited.then(() => reject(new Error(`the writer ended before its stop ${stop}: ${out}${err}`)));
  });
  expect(out).toMatch(new RegExp(`^stopped ${stop} `));
  return {
    pid: child.pid!,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function run(data: Record<string, unknown>): Promise<{ ok?: boolean; error?: string; reads?: number; rows?: number }> {
  return new Promise((resolve, reject) => {
    const w = new Worker(workerFile, { workerData: data });
    w.once('message', (m) => {
      resolve(m as { ok?: boolean; error?: string });
      void w.terminate();
    });
    w.once('error', reject);
  });
}

describe('concurrent writes and reads', () => {
  it('serialises writer threads and never shows readers a torn or lost write', async () => {
    const dir = join(tempDir(), 'db');
    Database.create(dir);
    const until = new Int32Array(new SharedArrayBuffer(8));
    const common = { dir, batches: 12, batchRows: 500, dayNs: String(DAY_NS), until, readers: 2 };
    const readers = [run({ ...common, role: 'reader', id: 'r1' }), run({ ...common, role: 'reader', id: 'r2' })];
    const writers = await Promise.all([run({ ...common, role: 'writer', id: 'AAA' }), run({ ...common, role: 'writer', id: 'BBB' })]);
    Atomics.store(until, 0, 1);
    const read = await Promise.all(readers);
    for (const r of [...writers, ...read]) expect(r.error).toBeUndefined();
    // each reader read before the first write (the writers waited for it) and after the last
    expect(read.every((r) => (r.reads ?? 0) > 1)).toBe(true);
    expect(read.map((r) => r.rows)).toEqual([2 * 12 * 500, 2 * 12 * 500]);
    expect(Database.open(dir).rowCount('Trade')).toBe(2 * 12 * 500);
  }, 120_000);

  it('retries a query once when a write removed the folder it was reading', () => {
    const dir = join(tempDir(), 'db');
    const writer = Database.create(dir);
    const t = writer.table('Trade');
    const rows = (price: number): Table =>
      new Table(
        t.columns.map((c) => c.name),
        t.columns.map((c) =>
          columnFromValues(c.type, (c.name === 'eventTimestamp' ? [DAY_NS + 1n] : c.name === 'instrumentID' ? ['X'] : c.name === 'price' ? [price] : [null]) as never),
        ),
      );
    writer.commit({ partitions: [{ table: 'Trade', key: '2024-03-06', data: rows(1) }] });
    const reader = Database.open(dir);
    const stale = reader.partition('Trade', '2024-03-06')!;
    Database.open(dir, { retireMs: 0 }).commit({ partitions: [{ table: 'Trade', key: '2024-03-06', data: rows(2) }] });
    let attempts = 0;
    const price = reader.read(() => {
      attempts++;
      const p = attempts === 1 ? stale : reader.partition('Trade', '2024-03-06')!;
      return (p.column('price') as { data: Float64Array }).data[0];
    });
    expect([attempts, price]).toEqual([2, 2]);
  });

  it('leaves the database as before or as after when a writer process is killed mid-write', async () => {
    const dir = join(tempDir(), 'db');
    Database.create(dir);
    const n = 20_000;
    const lines = Array.from({ length: n }, (_, i) => [`2024-03-06T10:00:00.${String(i).padStart(9, '0')}`, `I${i % 50}`, String(100 + (i % 7)), String(i)]);
    const file = join(tempDir(), 'trades.csv');
    writeFileSync(file, csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], lines));
    const cliImport = (): Promise<number | null> => {
      const child = spawn(process.execPath, [CLI, 'import', '--db', dir, '--table', 'Trade', '--file', file, '--reimport', 'append'], { stdio: 'ignore' });
      return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    };
    expect(await cliImport()).toBe(0);
    const lockHolder = (): string | undefined => (existsSync(join(dir, '.write.lock')) ? readFileSync(join(dir, '.write.lock'), 'utf8').split(':')[0] : undefined);
    let expected = n;
    // a writer killed at each point of its commit (each appends to the day the first import wrote,
    // so each rewrites it): before the manifest names its folder the database is as before, after as after
    const cases: Array<[stop: string, landed: boolean, holdsLock: boolean]> = [
      ['lock', false, false], // the file read, the lock not taken
      ['data', false, true], // its new folder written in part
      ['manifest', false, true], // its folder and temporary manifest written, not renamed into place
      ['renamed', true, true], // the new manifest in place, the lock not yet released
    ];
    let lastPid = 0;
    for (const [stop, landed, holdsLock] of cases) {
      const w = await stoppedWriter(dir, file, stop);
      await w.kill();
      expect(lockHolder(), stop).toBe(holdsLock ? String(w.pid) : undefined);
      if (landed) expected += n;
      expect(Database.open(dir).rowCount('Trade'), stop).toBe(expected);
      lastPid = w.pid;
    }
    // the next writer takes over the dead writer's lock and lands whole
    expect(lockHolder()).toBe(String(lastPid));
    expect(await cliImport()).toBe(0);
    expect(lockHolder()).toBeUndefined();
    expect(Database.open(dir).rowCount('Trade')).toBe(expected + n);
  }, 120_000);
});
