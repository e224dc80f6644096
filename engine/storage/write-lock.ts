/**
 * One writer at a time per database folder, across threads and processes: an exclusive lock file
 * (`.write.lock`, created whole by hard-linking a written temporary file, so it never exists empty)
 * naming its holder. Writers wait their turn (a queue in arrival order is not promised, only that each
 * waits until the lock is free, up to `TICKSCOPE_LOCK_WAIT_MS`).
 *
 * A lock whose holder is gone is taken over. The holder is a *thread*: a worker ended by
 * worker.terminate() (a cancelled or timed-out generateOrderAnalytics) stops before its `finally`
 * releases the lock, while its process lives on. So the lock names the holder's operating-system
 * thread as well as its process: `pid:threadId:tid:start:host`, where tid is the kernel's id of the
 * thread (read from /proc/thread-self, which a synchronous call reads on the calling thread) and
 * start its start time (field 22 of /proc/<pid>/task/<tid>/stat, so a reused tid is told apart).
 * The holder is alive while /proc/<pid>/task/<tid>/stat exists with that start time; the kernel
 * removes it the moment the thread ends, whatever ended it. Where /proc is not there (macOS,
 * Windows) a lock is judged by its process alone (process.kill(pid, 0)), as before: a lock of a dead
 * thread of a live process then waits out TICKSCOPE_LOCK_WAIT_MS. A lock written on another host
 * (a shared folder) is never taken over.
 *
 * On taking the lock, a writer removes what dead writers left beside it: their temporary lock files
 * (`.write.lock.<pid>-<thread>`, `.stale`) and an unfinished `manifest.json.tmp-*`. A live writer's
 * temporary file is never removed (its holder is checked as above).
 */
import { linkSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { TickscopeError } from '../core/errors.js';
import { writeError, writing } from './partition-io.js';

const WAIT_MS = Number(process.env['TICKSCOPE_LOCK_WAIT_MS'] ?? 60_000);
const LOCK = '.write.lock';
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const HOST = hostname();

/** How a writer waiting for the lock reads the time and pauses. */
export interface LockClock {
  now(): number;
  sleep(ms: number): void;
}

const realClock: LockClock = { now: () => Date.now(), sleep: (ms) => void Atomics.wait(sleeper, 0, 0, ms) };
let clock = realClock;

/**
 * Tests only: this thread's lock waits read the time from, and pause through, `c` (a test drives the
 * time, or records that a writer never waited) until the returned function puts the real clock back.
 */
export function useLockClock(c: LockClock): () => void {
  clock = c;
  return () => {
    clock = realClock;
  };
}

/** A lock's holder as its file names it. */
interface Holder {
  readonly pid: number;
  readonly thread: number;
  /** The kernel's thread id and its start time (0 when unknown: no /proc, or an older release's lock). */
  readonly tid: number;
  readonly start: string;
  readonly host: string;
}

/** The start time (in clock ticks since boot) of a thread, or undefined when it does not exist. */
function threadStart(pid: number | 'thread-self', tid?: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(pid === 'thread-self' ? '/proc/thread-self/stat' : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // fields after the command name, which is in parentheses and may hold spaces: field 22 is the 20th after it
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** This thread's lock text: pid:threadId:tid:start:host (tid and start 0 without /proc). */
function myHolder(): string {
  let tid = 0;
  let start: string | undefined;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    start = threadStart('thread-self');
  } catch {
    tid = 0;
  }
  return `${process.pid}:${threadId}:${start ? tid : 0}:${start ?? 0}:${HOST}`;
}

let me: string | undefined;
const holderText = (): string => (me ??= myHolder());

/** The holder written in a lock file ("pid:threadId:tid:start:host"; older releases wrote "pid:threadId" or the pid alone), undefined when it is gone. */
function holderOf(path: string): Holder | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return undefined; // released meanwhile
  }
  const [pid, thread, tid, start, host] = text.split(':');
  const p = Number(pid);
  if (!Number.isInteger(p) || p <= 0) return { pid: 0, thread: 0, tid: 0, start: '0', host: '' };
  return { pid: p, thread: Number(thread ?? 0), tid: Number(tid ?? 0) || 0, start: start ?? '0', host: host ?? '' };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This thread is inside withWriteLock (so a lock naming it is its own, not a leftover). */
let holding = false;

/**
 * Whether a lock's holder may still be writing: false only when it is known to be gone (a thread
 * that ended, a process that ended, an unreadable holder).
 */
function mayBeAlive(h: Holder): boolean {
  if (h.pid === 0) return false; // unreadable: never written whole by a writer of ours
  if (h.host && h.host !== HOST) return true; // another machine's: nothing here can tell
  if (h.tid > 0 && h.start !== '0') return threadStart(h.pid, h.tid) === h.start;
  if (h.pid !== process.pid) return processAlive(h.pid);
  // an older lock of this process without a thread identity: only this very thread can tell it is stale
  return h.thread !== threadId || holding;
}

/** Runs `fn` while holding the database's write lock, waiting while another writer holds it. */
export function withWriteLock<T>(dir: string, fn: () => T, opts: { waitMs?: number } = {}): T {
  const path = join(dir, LOCK);
  const deadline = clock.now() + (opts.waitMs ?? WAIT_MS);
  const mine = `${path}.${process.pid}-${threadId}`;
  writing(mine, () => writeFileSync(mine, holderText()), 'taking the write lock');
  let pause = 1;
  for (;;) {
    try {
      linkSync(mine, path);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        rmSync(mine, { force: true });
        throw writeError(e, path, 'taking the write lock');
      }
    }
    const holder = holderOf(path);
    if (holder && !mayBeAlive(holder)) {
      // a dead writer's lock: take it over. Moved aside first and checked, so that two writers
      // taking over at once cannot remove a lock the other has just taken.
      const aside = `${mine}.stale`;
      try {
        renameSync(path, aside);
      } catch {
        continue;
      }
      const moved = holderOf(aside);
      if (moved && (moved.pid !== holder.pid || moved.thread !== holder.thread || moved.tid !== holder.tid)) {
        try {
          linkSync(aside, path); // a live writer's lock: put it back
        } catch {
          /* it could not be put back because another lock exists: that one rules */
        }
      }
      rmSync(aside, { force: true });
      continue;
    }
    if (clock.now() >= deadline) {
      rmSync(mine, { force: true });
      const who = holder ? (holder.pid === process.pid ? `another thread (${holder.thread}) of this process` : `process ${holder.pid}${holder.host && holder.host !== HOST ? ` on ${holder.host}` : ''}`) : 'another writer';
      throw new TickscopeError('badDatabase', `${dir} is being written by ${who}; waited ${opts.waitMs ?? WAIT_MS} ms, try again when it finishes`);
    }
    clock.sleep(pause);
    pause = Math.min(pause * 2, 50);
  }
  rmSync(mine, { force: true });
  holding = true;
  try {
    removeLeftovers(dir);
    return fn();
  } finally {
    holding = false;
    rmSync(path, { force: true });
  }
}

/**
 * Removes, under the lock, what writers that died left in the database folder: temporary lock files
 * of holders known to be gone, and unfinished manifests (written only under the lock, so none is a
 * live writer's now). Best effort: a file that cannot be removed is left for the next writer.
 */
function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    let stale = false;
    if (name.startsWith(`${LOCK}.`)) {
      // a waiter's file may be read while it is being written (empty or cut): judged then by the
      // process its name gives, so a live waiter's file is never taken for a dead one's
      const h = holderOf(path);
      const whole = h !== undefined && h.pid > 0 && h.host !== '';
      const pid = Number(/^\.write\.lock\.(\d+)-/.exec(name)?.[1] ?? 0);
      stale = whole ? !mayBeAlive(h) : pid > 0 && pid !== process.pid && !processAlive(pid);
    } else if (name.startsWith('manifest.json.tmp-')) stale = true;
    if (stale) rmSync(path, { force: true });
  }
}
