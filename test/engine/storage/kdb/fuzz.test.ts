/**
 * Seeded corruption of files q wrote, read through readColumn: whatever a byte flip or a cut does,
 * the reader answers a column or a TickscopeError naming the file, never another exception (a
 * RangeError, a huge allocation, a hang). The fuzz case of the kdb+ reader, beside the hand-made
 * damage of damage.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../../engine/core/errors.js';
import { readColumn } from '../../../../engine/storage/kdb/column.js';
import { Domains } from '../../../../engine/storage/kdb/domain.js';
import { ADV, copyFixture, scratch, TORQ } from './kdb-helpers.js';

/** A small deterministic generator (mulberry32), so a failure replays from its seed. */
function rand(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const s = scratch();
afterAll(() => s.done());

/** Each kind of file: a plain vector, an algorithm-1 kxzipped vector and enumeration, algorithm-2 blocks, a 64-bit enumeration. */
const FILES: Array<[string, string]> = [
  [TORQ, '2015.01.07/trade/ex'],
  [TORQ, '2015.01.07/trade/price'],
  [TORQ, '2015.01.07/trade/sym'],
  [ADV, '2019.06.24/quote/bid'],
  [ADV, '2019.06.24/quote/sym'],
];

describe('corrupted kdb+ files', () => {
  for (const [root, file] of FILES) {
    it(`${file}: every flip or cut is a column or an error naming the file`, () => {
      const dir = `${s.dir}/${root === TORQ ? 'torq' : 'adv'}-${file.replace(/\//g, '_')}`;
      const [path] = copyFixture(root, dir, file, 'sym');
      const original = readFileSync(path!);
      const next = rand(file.length * 7919);
      let errors = 0;
      for (let k = 0; k < 60; k++) {
        const b = Buffer.from(original);
        // headers and trailers hold the counts: aim half the flips at the first and last 64 bytes
        const at = (): number => (next() < 0.5 ? Math.floor(next() * Math.min(64, b.length)) : next() < 0.5 ? b.length - 1 - Math.floor(next() * Math.min(64, b.length)) : Math.floor(next() * b.length));
        for (let f = 0; f < 1 + Math.floor(next() * 4); f++) b[at()] = Math.floor(next() * 256);
        const cut = next() < 0.3 ? b.subarray(0, Math.floor(next() * b.length)) : b;
        writeFileSync(path!, cut);
        try {
          readColumn(path!, { domain: new Domains(dir) });
        } catch (e) {
          expect(e, `${file} case ${k}: ${(e as Error).stack}`).toBeInstanceOf(TickscopeError);
          expect((e as Error).message, `${file} case ${k}`).toContain(file.split('/').pop()!);
          errors++;
        }
      }
      expect(errors).toBeGreaterThan(0);
    }, 60_000);
  }
});
