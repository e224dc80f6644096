/**
 * Large file reads shared with helper threads, for a caller that reads synchronously (the CLI's
 * in-process query): copying a day's column files out of the page cache is ~1 GB/s per thread here,
 * and scales with threads.
 *
 * A read into a SharedArrayBuffer is cut into chunks that the caller and the helpers take in turn
 * from one atomic counter. The caller never waits for a chunk nobody has started: a helper still
 * starting, busy or gone only means the caller takes more chunks itself. A helper that fails (its
 * file is gone), or goes silent, makes the caller read the whole range again itself: every thread
 * writes the same bytes of the same immutable file, so a late helper cannot spoil it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { TickscopeError } from '../core/errors.js';

/** Bytes per chunk: ~1 ms of copying, large beside an atomic add. */
const CHUNK = 1 << 20;
/** Reads smaller than this stay on the caller's thread. */
export const PARALLEL_MIN = 4 * CHUNK;
/** A helper that finishes no chunk for this long is given up. */
const SILENT_MS = 10_000;

// control words: next chunk to take, chunks done, a helper failed
const NEXT = 0;
const DONE = 1;
const FAILED = 2;

/** What a helper is sent: a range of a file and where it goes. */
export interface ReadJob {
  readonly kind: 'read';
  readonly path: string;
  readonly position: number;
  readonly buffer: SharedArrayBuffer;
  readonly byteOffset: number;
  readonly length: number;
  readonly ctrl: SharedArrayBuffer;
}

/** Whoever sends read jobs to helper threads (each helper gets each job). */
export type ReadHelpers = (job: ReadJob) => void;

let helpers: ReadHelpers | undefined;
/** Chunks helpers read for this thread so far (tests look). */
let helped = 0;

export function chunksHelped(): number {
  return helped;
}

/** Helpers for this thread's large reads from now on; undefined: none. */
export function useReadHelpers(h: ReadHelpers | undefined): void {
  helpers = h;
}

/** Whether a read of `into` goes through readParallel. */
export function readsInParallel(into: Uint8Array): boolean {
  return helpers !== undefined && into.length >= PARALLEL_MIN && into.buffer instanceof SharedArrayBuffer;
}

/** Reads `into.length` bytes at `position` of an open file (`path`, for the error when it ends early) into `into`, on this thread. */
export function readExactly(fd: number, into: Uint8Array, position: number, path: string): void {
  for (let off = 0; off < into.length; ) {
    const n = readSync(fd, into, off, into.length - off, position + off);
    if (n === 0) throw new TickscopeError('badDatabase', `${path}: file ends early`);
    off += n;
  }
}

/** Reads chunk k of a job's range through `fd` into `into`; false at the file's end. */
function readChunk(fd: number, into: Uint8Array, position: number, k: number): boolean {
  const end = Math.min(into.length, (k + 1) * CHUNK);
  for (let off = k * CHUNK; off < end; ) {
    const n = readSync(fd, into, off, end - off, position + off);
    if (n === 0) return false;
    off += n;
  }
  return true;
}

/**
 * Reads `into.length` bytes at `position` of an open file into `into` (a SharedArrayBuffer's) with the
 * helpers; `sequential` reads the whole range on this thread (after a helper failed, or at the file's
 * end, which it reports).
 */
export function readParallel(fd: number, into: Uint8Array, position: number, path: string, sequential: () => void): void {
  const chunks = Math.ceil(into.length / CHUNK);
  const ctrl = new Int32Array(new SharedArrayBuffer(12));
  let mine = 0;
  helpers!({ kind: 'read', path, position, buffer: into.buffer as SharedArrayBuffer, byteOffset: into.byteOffset, length: into.length, ctrl: ctrl.buffer as SharedArrayBuffer });
  for (;;) {
    const k = Atomics.add(ctrl, NEXT, 1);
    if (k >= chunks) break;
    if (!readChunk(fd, into, position, k)) {
      Atomics.store(ctrl, NEXT, chunks); // the file ends early: stop the helpers and say so
      sequential();
      return;
    }
    mine++;
    Atomics.add(ctrl, DONE, 1);
  }
  // the chunks the helpers took
  for (;;) {
    const done = Atomics.load(ctrl, DONE);
    if (done >= chunks) {
      helped += chunks - mine;
      return;
    }
    if (Atomics.load(ctrl, FAILED) !== 0 || (Atomics.wait(ctrl, DONE, done, SILENT_MS) === 'timed-out' && Atomics.load(ctrl, DONE) === done)) {
      sequential();
      return;
    }
  }
}

/** The helper's side: takes chunks of the job until none is left. */
export function readJob(job: ReadJob): void {
  const ctrl = new Int32Array(job.ctrl);
  const chunks = Math.ceil(job.length / CHUNK);
  if (Atomics.load(ctrl, NEXT) >= chunks) return; // the caller was done before this helper came
  let fd = -1;
  try {
    fd = openSync(job.path, 'r');
    const into = new Uint8Array(job.buffer, job.byteOffset, job.length);
    for (;;) {
      const k = Atomics.add(ctrl, NEXT, 1);
      if (k >= chunks) break;
      if (!readChunk(fd, into, job.position, k)) throw new Error(`${job.path}: file ends early`);
      Atomics.add(ctrl, DONE, 1);
      Atomics.notify(ctrl, DONE);
    }
  } catch {
    Atomics.store(ctrl, FAILED, 1);
    Atomics.notify(ctrl, DONE);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}
