/**
 * Concurrent writes and reads of one database (SPEC 3): worker threads appending and querying at once
 * (no error, no lost rows, no torn read), a query whose folder a write removed (retried once), and a
 * writer process killed mid-write (the database stays as before or as after, and the next writer
 * takes over its lock).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { columnFromValues } from '../../engine/core/builder.js';
import { Table } from '../../engine/core/table.js';
import { Database } from '../../engine/storage/database.js';
import { csv, tempDir } from '../helpers/db.js';

const DAY_NS = 19_788n * 86_400_000_000_000n; // 2024-03-06
const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');
let workerFile = '';

beforeAll(async () => {
  // bundled beside the project so that its packages resolve from node_modules
  workerFile = join(process.cwd(), 'dist', 'test-fixtures', `rw-worker-${process.pid}.mjs`);
  await build({ entryPoints: ['test/fixtures/rw-worker.ts'], bundle: true, platform: 'node', format: 'esm', outfile: workerFile, packages: 'external', logLevel: 'error' });
});

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
    const until = new Int32Array(new SharedArrayBuffer(4));
    const common = { dir, batches: 12, batchRows: 500, dayNs: String(DAY_NS) };
    const readers = [run({ ...common, role: 'reader', id: 'r1', until }), run({ ...common, role: 'reader', id: 'r2', until })];
    const writers = await Promise.all([run({ ...common, role: 'writer', id: 'AAA' }), run({ ...common, role: 'writer', id: 'BBB' })]);
    Atomics.store(until, 0, 1);
    const read = await Promise.all(readers);
    for (const r of [...writers, ...read]) expect(r.error).toBeUndefined();
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
    const n = 80_000;
    const lines = Array.from({ length: n }, (_, i) => [`2024-03-06T10:00:00.${String(i).padStart(9, '0')}`, `I${i % 50}`, String(100 + (i % 7)), String(i)]);
    const file = join(tempDir(), 'trades.csv');
    writeFileSync(file, csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], lines));
    const importOnce = (): { exited: Promise<number | null>; kill: () => void } => {
      const child = spawn(process.execPath, [CLI, 'import', '--db', dir, '--table', 'Trade', '--file', file], { stdio: 'ignore' });
      return { exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))), kill: () => child.kill('SIGKILL') };
    };
    const t0 = Date.now();
    expect(await importOnce().exited).toBe(0);
    const full = Date.now() - t0;
    let expected = n;
    const outcomes: string[] = [];
    // kill at points spread over a whole import, most of them in its writing part (the end)
    for (const at of [0.5, 0.8, 0.9, 0.95, 0.98]) {
      const run = importOnce();
      await new Promise((r) => setTimeout(r, Math.round(full * at)));
      run.kill();
      const code = await run.exited;
      const got = Database.open(dir).rowCount('Trade');
      expect([expected, expected + n]).toContain(got);
      outcomes.push(code === 0 ? 'finished' : got === expected ? 'killed before commit' : 'killed after commit');
      expected = got;
    }
    console.log(`kill test (import takes ${full} ms): ${outcomes.join(', ')}`);
    // the next writer takes over the dead writer's lock and lands whole
    const done = spawn(process.execPath, [CLI, 'import', '--db', dir, '--table', 'Trade', '--file', file], { stdio: 'ignore' });
    expect(await new Promise((resolve) => done.once('exit', resolve))).toBe(0);
    expect(Database.open(dir).rowCount('Trade')).toBe(expected + n);
  }, 120_000);
});
