/**
 * Chunk checksums (storage/checksums.ts) as reads check them: a read of part of a chunk, a large read
 * shared with a helper thread (each thread checking the pieces it copies), and the sidecar itself.
 */
import { randomFillSync } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { RenderHelpers } from '../../../engine/output/parallel-text.js';
import { decodeSums, forgetSums, loadFolderSums, SUM_CHUNK, SUMS_FILE, SumsWriter } from '../../../engine/storage/checksums.js';
import { chunksHelped, readExactly, useReadHelpers } from '../../../engine/storage/parallel-read.js';
import { readShared } from '../../../engine/storage/stored-column.js';
import { tempDir } from '../../helpers/db.js';

// the helper case needs the built helper script (dist/bin/render-worker.cjs): npm run build

/** A folder with one file of random bytes and its sidecar; returns the file's path and bytes. */
function folderWith(bytes: number): { dir: string; path: string; data: Buffer } {
  const dir = join(tempDir(), 'p.g1');
  mkdirSync(dir);
  const data = randomFillSync(Buffer.alloc(bytes));
  const path = join(dir, 'x.i64');
  writeFileSync(path, data);
  const sums = new SumsWriter();
  sums.add('x.i64', data);
  writeFileSync(join(dir, SUMS_FILE), sums.encode());
  forgetSums(dir);
  return { dir, path, data };
}

function flip(path: string, at: number): void {
  const b = readFileSync(path);
  b[at] = b[at]! ^ 0x10;
  writeFileSync(path, b);
}

function read(path: string, position: number, length: number): Uint8Array {
  const into = new Uint8Array(length);
  const fd = openSync(path, 'r');
  try {
    readExactly(fd, into, position, path);
  } finally {
    closeSync(fd);
  }
  return into;
}

const failure = (fn: () => unknown): TickscopeError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof TickscopeError) return e;
    throw e;
  }
  throw new Error('expected an error');
};

describe('chunk checksums', () => {
  afterEach(() => useReadHelpers(undefined));

  it('are the same fed in any pieces, and the sidecar checks itself', () => {
    const data = randomFillSync(Buffer.alloc(3 * SUM_CHUNK + 100));
    const whole = new SumsWriter();
    whole.add('f', data);
    const pieces = new SumsWriter();
    pieces.begin('f');
    for (const [a, b] of [[0, 7], [7, SUM_CHUNK + 1], [SUM_CHUNK + 1, data.length]] as const) pieces.feed(data.subarray(a, b));
    pieces.end();
    const bytes = whole.encode();
    expect(Buffer.from(pieces.encode()).equals(Buffer.from(bytes))).toBe(true);
    expect(Array.from(decodeSums('/d', bytes).files.get('f')!.crcs)).toHaveLength(4);
    bytes[bytes.length - 9]! ^= 1;
    expect(failure(() => decodeSums('/d', bytes)).message).toMatch(/_sums\.crc32: its own checksum does not match/);
  });

  it('a read of part of a damaged chunk fails naming the bytes; reads of other chunks answer', () => {
    const { path, data } = folderWith(10 * SUM_CHUNK + 123);
    flip(path, 3 * SUM_CHUNK + 5000);
    expect(Buffer.from(read(path, SUM_CHUNK + 10, 200)).equals(data.subarray(SUM_CHUNK + 10, SUM_CHUNK + 210))).toBe(true);
    const e = failure(() => read(path, 3 * SUM_CHUNK + 100, 64));
    expect(e.ac).toBe(31);
    expect(e.message).toContain(`${path}: checksum mismatch in bytes ${3 * SUM_CHUNK}..${4 * SUM_CHUNK}`);
    // the last, short chunk
    expect(Buffer.from(read(path, 10 * SUM_CHUNK, 123)).equals(data.subarray(10 * SUM_CHUNK))).toBe(true);
  });

  it('a file cut at a chunk boundary is found by its size', () => {
    const { dir, path, data } = folderWith(4 * SUM_CHUNK);
    writeFileSync(path, data.subarray(0, 2 * SUM_CHUNK));
    loadFolderSums(dir);
    expect(failure(() => readShared(path)).message).toContain(`${path}: ${2 * SUM_CHUNK} bytes, written with ${4 * SUM_CHUNK}`);
  });

  it('a large read shared with a helper thread finds damage in the helper\u2019s pieces as in its own', async () => {
    const { dir, path, data } = folderWith(24 * (1 << 20) + 777);
    const helpers = RenderHelpers.start(1);
    await new Promise<void>((r) => (helpers as unknown as { workers: Array<{ once(e: 'online', f: () => void): void }> }).workers[0]!.once('online', r));
    useReadHelpers((job) => helpers.read(job));
    try {
      const helped = chunksHelped();
      expect(Buffer.from(readShared(path)).equals(data)).toBe(true);
      expect(chunksHelped()).toBeGreaterThan(helped); // the helper copied (and checked) pieces of it
      for (const at of [1 << 20, 13 * (1 << 20) + 99, data.length - 5]) {
        const copy = folderWith(data.length);
        flip(copy.path, at);
        const chunk = Math.floor(at / SUM_CHUNK) * SUM_CHUNK;
        expect(failure(() => readShared(copy.path)).message).toContain(`checksum mismatch in bytes ${chunk}..`);
      }
    } finally {
      helpers.close();
      forgetSums(dir);
    }
  }, 60_000);
});
