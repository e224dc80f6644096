/**
 * Large file reads shared with helper threads, for a caller that reads synchronously (the CLI's
 * in-process query): copying a day's column files out of the page cache is ~1 GB/s per thread here,
 * and scales with threads.
 *
 * A read into a SharedArrayBuffer is cut into chunks that the caller and the helpers take in turn
 * from one counter (core/helpers.ts: HelperWork). The caller never waits for a chunk nobody has
 * started: a helper still starting, busy or gone only means the caller takes more chunks itself. A
 * helper that fails (its file is gone), or goes silent, makes the caller read the whole range again
 * itself: every thread writes the same bytes of the same immutable file, so a late helper cannot
 * spoil it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { TickscopeError } from '../core/errors.js';
import { HelperWork } from '../core/helpers.js';
import { adoptSums, allChecked, checkRead, checkWholeChunks, type FileSums, scratchOf, sumsOf } from './checksums.js';

/** Bytes per chunk: ~1 ms of copying, large beside an atomic add. */
const CHUNK = 1 << 20;
/** Reads smaller than this stay on the caller's thread. */
export const PARALLEL_MIN = 4 * CHUNK;

/** What a helper is sent: a range of a file and where it goes. */
export interface ReadJob {
  readonly kind: 'read';
  readonly path: string;
  readonly position: number;
  readonly buffer: SharedArrayBuffer;
  readonly byteOffset: number;
  readonly length: number;
  /** The job's control words (HelperWork): chunks taken, done, a failure. */
  readonly ctrl: SharedArrayBuffer;
  /** The file's chunk checksums over the range (checksums.ts), when it has them: each thread checks the chunks of the pieces it reads. */
  readonly sums?: { readonly bytes: number; readonly chunk: number; readonly first: number; readonly crcs: Uint32Array };
  /** Checksums (with their shared checked bitmap) of files this thread's later work reads (a streamed result's columns); no range to read. */
  readonly share?: FileSums;
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

/**
 * Reads `into.length` bytes at `position` of an open file (`path`, for the error when it ends early)
 * into `into`, on this thread, and checks the chunks it touches against the file's checksums (a
 * damaged file is badDatabase naming it).
 */
export function readExactly(fd: number, into: Uint8Array, position: number, path: string): void {
  const sums = into.length > 0 ? sumsOf(path) : undefined;
  const end = position + into.length;
  if (!sums || allChecked(sums, position, end)) return readRaw(fd, into, position, path);
  // a small read cut from chunks not checked yet (a streamed batch's 64-row blocks): read the whole
  // chunks once, check them, and take the bytes asked for from there, rather than read them twice
  const { chunk } = sums;
  const a = Math.floor(position / chunk) * chunk;
  const b = Math.min(sums.bytes, Math.ceil(end / chunk) * chunk);
  if (into.length >= WIDEN_MAX || end > b || (a === position && b === end)) {
    readRaw(fd, into, position, path);
    checkRead(fd, path, into, position);
    return;
  }
  const span = scratchOf(b - a);
  readRaw(fd, span, a, path);
  checkRead(fd, path, span, a);
  into.set(span.subarray(position - a, end - a));
}

/** Reads at most this many bytes widened to whole chunks; a larger read checks its edge chunks by reading them again (checkRead). */
const WIDEN_MAX = 1 << 18;

function readRaw(fd: number, into: Uint8Array, position: number, path: string): void {
  for (let off = 0; off < into.length; ) {
    const n = readSync(fd, into, off, into.length - off, position + off);
    if (n === 0) throw new TickscopeError('badDatabase', `${path}: file ends early (at byte ${position + off}); the file is damaged`);
    off += n;
  }
}

/**
 * Hands the checksums of a file (their checked bitmap in shared memory) to this thread's helpers, when
 * it has some: a streamed result's batches read the file on them, and a chunk one thread checked is
 * not checked again by another. Messages to a helper arrive in order, so it has them before any batch.
 */
export function shareSums(path: string): void {
  const sums = helpers && sumsOf(path);
  if (!sums) return;
  helpers!({ kind: 'read', path, position: 0, buffer: EMPTY, byteOffset: 0, length: 0, ctrl: EMPTY, share: { path: sums.path, bytes: sums.bytes, chunk: sums.chunk, crcs: sums.crcs.slice(), checked: sums.checked } });
}
const EMPTY = new SharedArrayBuffer(0);

/** Reads chunk k of a job's range through `fd` into `into`; false at the file's end or when a checksum of a chunk within it does not match. */
function readChunk(fd: number, into: Uint8Array, position: number, k: number, sums: ReadJob['sums']): boolean {
  const start = k * CHUNK;
  const end = Math.min(into.length, (k + 1) * CHUNK);
  for (let off = start; off < end; ) {
    const n = readSync(fd, into, off, end - off, position + off);
    if (n === 0) return false;
    off += n;
  }
  return !sums || checkWholeChunks(into.subarray(start, end), position + start, sums.bytes, sums.chunk, sums.crcs, sums.first);
}

/** Whether checksum chunk `c` of the file lies within one piece of a read of `length` bytes at `position` (checked by whoever read that piece). */
function inOnePiece(c: number, position: number, length: number, sums: FileSums): boolean {
  const a = c * sums.chunk - position;
  const b = Math.min(sums.bytes, (c + 1) * sums.chunk) - position;
  return a >= 0 && b <= length && Math.floor(a / CHUNK) === Math.floor((b - 1) / CHUNK);
}

/**
 * Reads `into.length` bytes at `position` of an open file into `into` (a SharedArrayBuffer's) with the
 * helpers; `sequential` reads the whole range on this thread (after a helper failed, or at the file's
 * end, which it reports).
 */
export function readParallel(fd: number, into: Uint8Array, position: number, path: string, sequential: () => void): void {
  const chunks = Math.ceil(into.length / CHUNK);
  const work = new HelperWork();
  let mine = 0;
  const fileSums = sumsOf(path);
  let sums: ReadJob['sums'];
  if (fileSums) {
    const { chunk } = fileSums;
    const first = Math.floor(position / chunk);
    sums = { bytes: fileSums.bytes, chunk, first, crcs: fileSums.crcs.slice(first, Math.ceil((position + into.length) / chunk)) };
  }
  helpers!({ kind: 'read', path, position, buffer: into.buffer as SharedArrayBuffer, byteOffset: into.byteOffset, length: into.length, ctrl: work.buffer, ...(sums ? { sums } : {}) });
  for (let k = work.take(chunks); k >= 0; k = work.take(chunks)) {
    if (!readChunk(fd, into, position, k, sums)) {
      work.stop(); // the file ends early or is damaged: stop the helpers, read it again here and say which
      sequential();
      return;
    }
    mine++;
    work.done();
  }
  // the chunks the helpers took
  for (;;) {
    const done = work.doneCount;
    if (done >= chunks) {
      helped += chunks - mine;
      // the checksum chunks cut by a piece's edge (a range not starting on a chunk) are checked here
      if (fileSums) checkRead(fd, path, into, position, (c) => inOnePiece(c, position, into.length, fileSums));
      return;
    }
    if (!work.awaitDone(done)) {
      sequential();
      return;
    }
  }
}

/** The helper's side: takes chunks of the job until none is left. */
export function readJob(job: ReadJob): void {
  if (job.share) return adoptSums(job.share);
  const work = new HelperWork(job.ctrl);
  const chunks = Math.ceil(job.length / CHUNK);
  let k = work.take(chunks);
  if (k < 0) return; // the caller was done before this helper came
  let fd = -1;
  try {
    fd = openSync(job.path, 'r');
    const into = new Uint8Array(job.buffer, job.byteOffset, job.length);
    for (; k >= 0; k = work.take(chunks)) {
      if (!readChunk(fd, into, job.position, k, job.sums)) throw new Error(`${job.path}: file ends early or is damaged`);
      work.done();
    }
  } catch {
    work.fail();
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}
