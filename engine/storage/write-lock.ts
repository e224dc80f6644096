/**
 * One writer at a time per database folder, across processes: an exclusive lock file holding the
 * writer's pid. A lock left by a process that no longer exists is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { TickscopeError } from '../core/errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs `fn` while holding the database's write lock. */
export function withWriteLock<T>(dir: string, fn: () => T): T {
  const path = join(dir, '.write.lock');
  let fd: number | undefined;
  for (let attempt = 0; attempt < 2 && fd === undefined; attempt++) {
    try {
      fd = openSync(path, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new TickscopeError('badDatabase', `${dir} is being written by process ${holder}; try again when it finishes`);
      }
      rmSync(path, { force: true });
    }
  }
  if (fd === undefined) throw new TickscopeError('badDatabase', `${dir}: cannot take the write lock`);
  try {
    writeSync(fd, String(process.pid));
    return fn();
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
}
