/**
 * The environment's failures while writing (a full disk, a read-only file system, a folder that may
 * not be changed) are reported as such, naming the path (SPEC 7: ac 60 disk full, 61 read-only, 62
 * permission denied), never as internal errors; nothing is half-written, and once the cause is gone
 * the next write lands and reads answer. Errno errors are injected through the writers' seam (every
 * code, as write() and fsync() give them: without a path); then, where this process may mount
 * (root, as CI runs), a real tmpfs that fills up, is remounted read-only, and is made immutable.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { Engine } from '../../../engine/engine.js';
import { Database } from '../../../engine/storage/database.js';
import { importFile } from '../../../engine/storage/import.js';
import { injectWriteFault } from '../../../engine/storage/partition-io.js';
import { csv, tempDir } from '../../helpers/db.js';

/** A CSV of `n` trades on 2024-03-06 over 20 instruments. */
function trades(n: number, price = 100): string {
  const file = join(tempDir(), `trades-${n}-${price}.csv`);
  const lines = Array.from({ length: n }, (_, i) => [`2024-03-06T10:00:00.${String(i).padStart(9, '0')}`, `I${i % 20}`, String(price), `EXEC-${i}-${'x'.repeat(20)}`]);
  writeFileSync(file, csv(['eventTimestamp', 'instrumentID', 'price', 'executionID'], lines));
  return file;
}

function failure(fn: () => unknown): TickscopeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TickscopeError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

const errno = (code: string): Error => Object.assign(new Error(`${code}: injected`), { code });

/** Sum of the prices of the day's trades, and their count. */
function day(dir: string): { rows: number; sum: number } {
  const t = new Engine([Database.open(dir)]).call('getTicks', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07', columns: ['price'] }).table;
  return { rows: t.length, sum: (t.col('price') as { data: Float64Array }).data.reduce((s, v) => s + v, 0) };
}

afterEach(() => injectWriteFault(undefined));

describe('environment failures while writing (injected)', () => {
  const kinds: ReadonlyArray<[string, string, number]> = [
    ['ENOSPC', 'diskFull', 60],
    ['EDQUOT', 'diskFull', 60],
    ['EROFS', 'readOnlyStorage', 61],
    ['EPERM', 'accessDenied', 62],
    ['EACCES', 'accessDenied', 62],
    ['EMFILE', 'tooManyOpenFiles', 63],
  ];
  for (const [code, kind, ac] of kinds) {
    it(`${code} writing a partition file is ${kind} (ac ${ac}) naming the file; nothing is written, and the next write lands`, () => {
      const dir = join(tempDir(), 'db');
      const db = Database.create(dir);
      importFile(db, 'Trade', trades(50, 1));
      let failedAt = '';
      injectWriteFault((path) => {
        if (path.endsWith('price.f64')) throw errno(code);
        failedAt = path;
      });
      const e = failure(() => importFile(db, 'Trade', trades(100, 2)));
      expect([e.kind, e.ac, e.rc]).toEqual([kind, ac, 5]);
      expect(e.message).toContain('writing the database');
      expect(e.message).toMatch(/data\/Trade\/2024-03-06\.g2\/price\.f64: /);
      expect(failedAt).not.toBe('');
      injectWriteFault(undefined);
      expect(day(dir)).toEqual({ rows: 50, sum: 50 });
      importFile(Database.open(dir), 'Trade', trades(100, 2));
      expect(day(dir)).toEqual({ rows: 150, sum: 250 });
    });
  }

  it('the write lock, the manifest and a new database report theirs too', () => {
    const dir = join(tempDir(), 'db');
    const db = Database.create(dir);
    injectWriteFault((path) => {
      if (path.includes('.write.lock')) throw errno('EROFS');
    });
    const lock = failure(() => importFile(db, 'Trade', trades(10)));
    expect([lock.kind, lock.ac]).toEqual(['readOnlyStorage', 61]);
    expect(lock.message).toMatch(/taking the write lock: .*\.write\.lock/);
    injectWriteFault((path) => {
      if (path.includes('manifest.json')) throw errno('ENOSPC');
    });
    const manifest = failure(() => importFile(db, 'Trade', trades(10)));
    expect([manifest.kind, manifest.ac]).toEqual(['diskFull', 60]);
    expect(manifest.message).toContain('manifest.json');
    injectWriteFault(() => {
      throw errno('EACCES');
    });
    const created = failure(() => Database.create(join(tempDir(), 'new')));
    expect([created.kind, created.ac]).toEqual(['accessDenied', 62]);
    injectWriteFault(undefined);
    importFile(db, 'Trade', trades(10));
    expect(day(dir).rows).toBe(10);
  });
});

/** Whether this process may mount a tmpfs (root on Linux with the capability; CI runs so). */
function canMount(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = join(tempDir(), 'probe');
  mkdirSync(probe);
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]).status === 0;
  if (ok) spawnSync('umount', [probe]);
  return ok;
}
const mountable = canMount();
if (!mountable) console.log('storage-environment: real file-system cases skipped: this process cannot mount a tmpfs (needs root on Linux); the injected cases above cover the mapping');

describe.skipIf(!mountable)('environment failures on a real file system (tmpfs)', () => {
  const sh = (...args: string[]): void => {
    const r = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  };

  it('a full disk is ac 60, a read-only one ac 61, an immutable folder ac 62, each naming the path; reads answer and a write lands once the cause is gone', () => {
    const mnt = join(tempDir(), 'mnt');
    mkdirSync(mnt);
    sh('mount', '-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt);
    const dir = join(mnt, 'db');
    try {
      const db = Database.create(dir);
      importFile(db, 'Trade', trades(100, 1));
      // about 6 MB of partition: the disk fills while it is written
      const full = failure(() => importFile(db, 'Trade', trades(60_000, 2)));
      expect([full.kind, full.ac]).toEqual(['diskFull', 60]);
      expect(full.message).toContain(`${dir}/`);
      expect(full.message).toMatch(/ENOSPC: the disk is full/);
      expect(day(dir)).toEqual({ rows: 100, sum: 100 });

      sh('mount', '-o', 'remount,ro', mnt);
      const ro = failure(() => importFile(Database.open(dir), 'Trade', trades(10, 3)));
      expect([ro.kind, ro.ac]).toEqual(['readOnlyStorage', 61]);
      expect(ro.message).toContain(dir);
      expect(day(dir)).toEqual({ rows: 100, sum: 100 }); // read-only storage still answers queries

      sh('mount', '-o', 'remount,rw,size=64m', mnt);
      sh('chattr', '+i', dir);
      try {
        const perm = failure(() => importFile(Database.open(dir), 'Trade', trades(10, 3)));
        expect([perm.kind, perm.ac]).toEqual(['accessDenied', 62]);
        expect(perm.message).toContain(dir);
        expect(day(dir)).toEqual({ rows: 100, sum: 100 });
      } finally {
        sh('chattr', '-i', dir);
      }
      importFile(Database.open(dir), 'Trade', trades(60_000, 2));
      expect(day(dir)).toEqual({ rows: 60_100, sum: 100 + 120_000 });
    } finally {
      spawnSync('chattr', ['-i', dir]);
      spawnSync('umount', ['-l', mnt]);
    }
  }, 60_000);
});
