import { closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { randomFillSync } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HelperWork } from '../../../engine/core/helpers.js';
import { chunksHelped, PARALLEL_MIN, readJob, readParallel, useReadHelpers } from '../../../engine/storage/parallel-read.js';
import { readShared } from '../../../engine/storage/stored-column.js';
import { tempDir } from '../../helpers/db.js';
import { heldRenderHelpers } from '../../helpers/render-threads.js';

// needs the built helper script (dist/bin/render-worker.cjs): npm run build

/** A file of random bytes, not a multiple of the chunk size. */
function randomFile(bytes: number): string {
  const path = join(tempDir(), 'column.i64');
  writeFileSync(path, randomFillSync(Buffer.alloc(bytes)));
  return path;
}

describe('large reads shared with helper threads', () => {
  afterEach(() => useReadHelpers(undefined));

  it('reads a file whole, the helper taking chunks of it', async () => {
    const path = randomFile(48 * (1 << 20) + 12345);
    const { helpers, threads } = heldRenderHelpers(1);
    await new Promise<void>((r) => threads[0]!.once('online', r));
    useReadHelpers((job) => helpers.read(job));
    const before = chunksHelped();
    try {
      expect(Buffer.from(readShared(path)).equals(readFileSync(path))).toBe(true);
      expect(chunksHelped()).toBeGreaterThan(before);
      // a small read stays on this thread
      const small = randomFile(PARALLEL_MIN - 1);
      const at = chunksHelped();
      expect(Buffer.from(readShared(small)).equals(readFileSync(small))).toBe(true);
      expect(chunksHelped()).toBe(at);
    } finally {
      helpers.close();
    }
  });

  it('reads everything itself when the helper is gone, or fails after taking a chunk', async () => {
    const path = randomFile(24 * (1 << 20) + 7);
    const expected = readFileSync(path);
    const { helpers: gone, threads } = heldRenderHelpers(1);
    await threads[0]!.terminate();
    useReadHelpers((job) => gone.read(job));
    expect(Buffer.from(readShared(path)).equals(expected)).toBe(true);

    // a helper takes the first chunk, then cannot open the file (readJob, the helper's side, run
    // here): this thread reads the whole range again
    useReadHelpers((job) => {
      new HelperWork(job.ctrl).take(Infinity);
      readJob({ ...job, path: join(tempDir(), 'missing.i64') });
    });
    const into = new Uint8Array(new SharedArrayBuffer(expected.length));
    const fd = openSync(path, 'r');
    let again = 0;
    try {
      readParallel(fd, into, 0, path, () => {
        again++;
        readSync(fd, into, 0, into.length, 0);
      });
    } finally {
      closeSync(fd);
    }
    expect(again).toBe(1);
    expect(Buffer.from(into).equals(expected)).toBe(true);
  });
});
