/**
 * One writer at a time per database folder, across threads and processes: an exclusive lock file
 * (`.write.lock`, created whole by hard-linking a written temporary file, so it never exists empty)
 * holding the writer's pid and thread id. Writers wait their
 * turn (a queue in arrival order is not promised, only that each waits until the lock is free, up to
 * `TICKSCOPE_LOCK_WAIT_MS`). A lock is taken over only when its holder is another process that no
 * longer exists; a thread never takes over a lock held by its own process (another thread of it may
 * be writing).
 */
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { TickscopeError } from '../core/errors.js';

const WAIT_MS = Number(process.env['TICKSCOPE_LOCK_WAIT_MS'] ?? 60_000);
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The holder written in a lock file: "pid:threadId" (older releases wrote the pid alone). */
function holderOf(path: string): { pid: number; thread: number } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return undefined; // released meanwhile
  }
  const [pid, thread] = text.split(':').map(Number);
  return Number.isInteger(pid) && pid! > 0 ? { pid: pid!, thread: thread ?? 0 } : { pid: 0, thread: 0 };
}

/** Runs `fn` while holding the database's write lock, waiting while another writer holds it. */
export function withWriteLock<T>(dir: string, fn: () => T, opts: { waitMs?: number } = {}): T {
  const path = join(dir, '.write.lock');
  const deadline = Date.now() + (opts.waitMs ?? WAIT_MS);
  const me = `${path}.${process.pid}-${threadId}`;
  writeFileSync(me, `${process.pid}:${threadId}`);
  let pause = 1;
  for (;;) {
    try {
      linkSync(me, path);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        rmSync(me, { force: true });
        throw e;
      }
    }
    const holder = holderOf(path);
    if (holder && holder.pid !== process.pid && (holder.pid === 0 || !alive(holder.pid))) {
      // a crashed process's lock: take it over. Moved aside first and checked, so that two writers
      // taking over at once cannot remove a lock the other has just taken.
      const aside = `${me}.stale`;
      try {
        renameSync(path, aside);
      } catch {
        continue;
      }
      const moved = holderOf(aside);
      if (moved && (moved.pid !== holder.pid || moved.thread !== holder.thread)) {
        try {
          linkSync(aside, path); // a live writer's lock: put it back
        } catch {
          /* it could not be put back because another lock exists: that one rules */
        }
      }
      rmSync(aside, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      rmSync(me, { force: true });
      const who = holder ? (holder.pid === process.pid ? `another thread (${holder.thread}) of this process` : `process ${holder.pid}`) : 'another writer';
      throw new TickscopeError('badDatabase', `${dir} is being written by ${who}; waited ${opts.waitMs ?? WAIT_MS} ms, try again when it finishes`);
    }
    Atomics.wait(sleeper, 0, 0, pause);
    pause = Math.min(pause * 2, 50);
  }
  rmSync(me, { force: true });
  try {
    return fn();
  } finally {
    rmSync(path, { force: true });
  }
}
