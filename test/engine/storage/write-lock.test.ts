/**
 * The write lock of a thread that was ended (worker.terminate(), as a cancelled or timed-out
 * generateOrderAnalytics ends its worker) is taken over at once by the next writer of the same
 * process, which also removes what the dead writer left (its temporary lock files, its half-written
 * folder); a live thread's lock is never taken over.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { Engine } from '../../../engine/engine.js';
import { Database } from '../../../engine/storage/database.js';
import { importFile } from '../../../engine/storage/import.js';
import { useLockClock, withWriteLock } from '../../../engine/storage/write-lock.js';
import { csv, tempDir } from '../../helpers/db.js';

const DAY_NS = 19_788n * 86_400_000_000_000n; // 2024-03-06
const procThreads = existsSync('/proc/thread-self/stat');
let workerFile = '';

beforeAll(async () => {
  // bundled beside the project so that its packages resolve from node_modules
  workerFile = join(process.cwd(), 'dist', 'test-fixtures', `lock-worker-${process.pid}.mjs`);
  await build({ entryPoints: ['test/fixtures/lock-worker.ts'], bundle: true, platform: 'node', format: 'esm', outfile: workerFile, packages: 'external', logLevel: 'error' });
});

/** Starts a lock worker and resolves once it stopped where its role says (then it can be ended). */
async function stopped(data: Record<string, unknown>): Promise<Worker> {
  const w = new Worker(workerFile, { workerData: data });
  const m: unknown = await new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  if (m !== 'ready') throw new Error(`worker: ${JSON.stringify(m)}`);
  return w;
}

/** A database with 300 trades on 2024-03-06. */
function seeded(): string {
  const dir = join(tempDir(), 'db');
  const db = Database.create(dir);
  const file = join(tempDir(), 'seed.csv');
  const lines = Array.from({ length: 300 }, (_, i) => [`2024-03-06T10:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(9, '0')}`, `I${i % 3}`, String(100 + i)]);
  writeFileSync(file, csv(['eventTimestamp', 'instrumentID', 'price'], lines));
  importFile(db, 'Trade', file);
  return dir;
}

/** Resolves once the thread the lock names has ended as the kernel sees it (its /proc entry gone). */
async function holderGone(dir: string): Promise<void> {
  const [pid, , tid] = readFileSync(join(dir, '.write.lock'), 'utf8').split(':');
  expect(Number(tid)).toBeGreaterThan(0);
  await expect.poll(() => existsSync(`/proc/${pid}/task/${tid}`), { timeout: 5_000 }).toBe(false);
}

/**
 * Runs `fn` with this thread's lock waits on a clock that records each pause and moves on by it (a
 * wait that would last ends at once, as a failure); returns the pauses.
 */
function pausesOf(fn: () => void): number[] {
  let now = 0;
  const pauses: number[] = [];
  const restore = useLockClock({ now: () => now, sleep: (ms) => void (pauses.push(ms), (now += ms)) });
  try {
    fn();
  } finally {
    restore();
  }
  return pauses;
}

const lockFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith('.write.lock') || f.startsWith('manifest.json.tmp'));

describe.skipIf(!procThreads)('write lock of an ended thread', () => {
  it('is taken over promptly when its worker was terminated mid-commit, its half-written folder removed, and reads and writes answer', async () => {
    const dir = seeded();
    // the dead writer appends rows of another day: its half-written folder is not one the next commit rewrites
    const w = await stopped({ dir, role: 'commit', dayNs: String(DAY_NS + 86_400_000_000_000n), afterWrites: 4 });
    const waiting = await stopped({ dir, role: 'wait', dayNs: '0' });
    // the waiter writes its temporary lock file, then waits for the lock
    for (const until = Date.now() + 5_000; lockFiles(dir).length < 2 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 10));
    await Promise.all([w.terminate(), waiting.terminate()]);
    expect(existsSync(join(dir, '.write.lock'))).toBe(true);
    const half = readdirSync(join(dir, 'data', 'Trade')).filter((f) => f.startsWith('2024-03-07'));
    expect(half.length).toBe(1); // written in part, never named by the manifest
    expect(lockFiles(dir).length).toBeGreaterThan(1); // the lock and the terminated waiter's temporary file

    const file = join(tempDir(), 'more.csv');
    writeFileSync(file, csv(['eventTimestamp', 'instrumentID', 'price'], [['2024-03-06T11:00:00Z', 'I9', '7']]));
    // once the thread is gone, its lock is taken over without a pause (not the 60 s wait for a lock
    // nobody will release): by the open, which tidies, or by the import
    await holderGone(dir);
    let db: Database | undefined;
    expect(
      pausesOf(() => {
        db = Database.open(dir);
        importFile(db, 'Trade', file);
      }),
    ).toEqual([]);
    await db!.removals();
    expect(lockFiles(dir)).toEqual([]);
    expect(readdirSync(join(dir, 'data', 'Trade')).filter((f) => f.startsWith('2024-03-07') || f.startsWith('.removing-'))).toEqual([]);
    const t = new Engine([Database.open(dir)]).call('getTicks', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.08', columns: ['price'] }).table;
    expect(t.length).toBe(301);
    const prices = (t.col('price') as { data: Float64Array }).data;
    expect(prices.reduce((s, v) => s + v, 0)).toBe(Array.from({ length: 300 }, (_, i) => 100 + i).reduce((s, v) => s + v, 0) + 7);
  }, 60_000);

  it('is taken over when its worker was terminated holding it, and a live thread\u2019s lock is not', async () => {
    const dir = seeded();
    const holder = await stopped({ dir, role: 'hold', dayNs: '0' });
    // alive: waited for, then refused naming the thread
    let err: unknown;
    try {
      withWriteLock(dir, () => undefined, { waitMs: 300 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TickscopeError);
    expect((err as TickscopeError).ac).toBe(31);
    expect((err as Error).message).toMatch(/another thread \(\d+\) of this process/);
    await holder.terminate();
    await holderGone(dir);
    let got = '';
    expect(pausesOf(() => (got = withWriteLock(dir, () => 'mine', { waitMs: 60_000 })))).toEqual([]);
    expect(got).toBe('mine');
    expect(lockFiles(dir)).toEqual([]);
  }, 60_000);
});
