/**
 * The kdb+ writer of the tests and the bench (bench/kdb-writer.ts): columns given as Tickscope holds
 * them (typed arrays, a symbol column's codes into its dictionary) read back by the kdb+ reader as
 * written, and every column file written compressed (zlib, snappy, zstd: `kxzipped`, blocks of 2^17
 * or as asked) reading the same, each block stored with the file's algorithm (or raw where it did not
 * shrink), in the codec's own format.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Column } from '../../../../engine/core/column.js';
import { StringDict } from '../../../../engine/core/dict.js';
import { openKdbFile } from '../../../../engine/storage/kdb/file.js';
import { KdbSource } from '../../../../engine/storage/kdb/source.js';
import { scratch } from './kdb-helpers.js';
import { type KdbColumn, type KdbCompression, writeHdb } from './kdb-writer.js';

const INT64_NULL = -(2n ** 63n);
const INT32_NULL = -2147483648;
const DAY_NS = 86_400_000_000_000n;
/** 2024-03-06 in days since 1970. */
const DAY = 19788;

const n = 40_000; // 2 instruments of 20,000 rows: several 2^17-byte blocks per column
const ids = new StringDict(['', 'AAA', 'BBB', 'unused']);
const codes = Int32Array.from({ length: n }, (_, i) => (i < n / 2 ? 2 : 1)); // BBB's run, then AAA's (p#, not sorted)
const time = BigInt64Array.from({ length: n }, (_, i) => BigInt(DAY) * DAY_NS + BigInt(i % (n / 2)) * 1_000_000_000n);
const exch = BigInt64Array.from({ length: n }, (_, i) => (i % 7 === 3 ? INT64_NULL : time[i]! - 5_000n));
// before q's epoch and negative: the shift to 2000.01.01 carries across the int32 halves both ways
exch[1] = -1n;
exch[2] = 946_684_800_000_000_000n - 1n;
exch[4] = 0n;
const price = Float64Array.from({ length: n }, (_, i) => (i % 11 === 0 ? NaN : 100 + Math.sin(i) * 5));
const volume = BigInt64Array.from({ length: n }, (_, i) => (i % 13 === 0 ? INT64_NULL : BigInt(i % 1000)));
const day = Int32Array.from({ length: n }, (_, i) => (i % 5 === 0 ? INT32_NULL : DAY - (i % 3)));
const flag = Uint8Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 0));
const cond = new StringDict(['', 'X', 'Y']);
const condCodes = Int32Array.from({ length: n }, (_, i) => i % 3);

const columns: Array<[string, KdbColumn]> = [
  ['sym', { type: 'typed', column: { type: 'symbol', codes, dict: ids }, parted: true }],
  ['time', { type: 'typed', column: { type: 'timestamp', data: time } }],
  ['exch', { type: 'typed', column: { type: 'timestamp', data: exch } }],
  ['price', { type: 'typed', column: { type: 'float', data: price } }],
  ['size', { type: 'typed', column: { type: 'long', data: volume } }],
  ['day', { type: 'typed', column: { type: 'date', data: day } }],
  ['stop', { type: 'typed', column: { type: 'boolean', data: flag } }],
  ['cond', { type: 'typed', column: { type: 'symbol', codes: condCodes, dict: cond } }],
  // enumerated against a domain of its own (as q's .Q.ens writes one)
  ['exec', { type: 'typed', column: { type: 'symbol', codes: condCodes, dict: new StringDict(['', 'e1', 'e2']) }, domain: 'execsym' }],
];

const s = scratch();
afterAll(() => s.done());
const write = (name: string, compression?: KdbCompression): KdbSource => {
  const root = join(s.dir, name);
  writeHdb(root, { '2024.03.06': { trade: columns } }, {}, compression ? { compression } : {});
  return KdbSource.open(root);
};

/** A column's cells as plain values (symbols as names, "" the null). */
function cells(c: Column): unknown[] {
  if (c.type === 'symbol') return Array.from(c.codes, (k) => c.dict.get(k));
  if ('data' in c) return Array.from(c.data as ArrayLike<unknown>);
  throw new Error(`no cells of ${c.type}`);
}

const hasZstd = spawnSync('zstd', ['--version']).status === 0;

describe('columns given as Tickscope holds them', () => {
  const kdb = write('plain');
  const p = kdb.partition('trade', '2024-03-06')!;

  it('read back as written: nulls, timestamps before 2000 and 1970, dates, booleans, symbols by name', () => {
    expect(p.rows).toBe(n);
    expect([...p.idRanges]).toEqual([
      ['BBB', [0, n / 2]],
      ['AAA', [n / 2, n]],
    ]);
    expect(cells(p.column('sym'))).toEqual(Array.from(codes, (k) => ids.get(k)));
    expect(cells(p.column('time'))).toEqual(Array.from(time));
    expect(cells(p.column('exch'))).toEqual(Array.from(exch));
    expect(cells(p.column('price'))).toEqual(Array.from(price));
    expect(cells(p.column('size'))).toEqual(Array.from(volume));
    expect(cells(p.column('day'))).toEqual(Array.from(day));
    expect(cells(p.column('stop'))).toEqual(Array.from(flag));
    expect(cells(p.column('cond'))).toEqual(Array.from(condCodes, (k) => cond.get(k)));
    expect(cells(p.column('exec'))).toEqual(Array.from(condCodes, (k) => ['', 'e1', 'e2'][k]));
    // the sym file: each name once, the null symbol and the unused name of the dictionary too but ""
    const sym = readFileSync(join(kdb.dir, 'sym'));
    expect(sym.subarray(8).toString('latin1').split('\0').slice(0, -1)).toEqual(['AAA', 'BBB', 'unused', 'X', 'Y']);
    expect(readFileSync(join(kdb.dir, 'execsym')).subarray(8).toString('latin1')).toBe('e1\0e2\0');
    expect(readFileSync(join(kdb.dir, '2024.03.06', 'trade', 'exec')).subarray(16, 24).toString('latin1')).toBe('execsym\0');
  });

  const algorithms: Array<[string, KdbCompression, (block: Buffer) => boolean]> = [
    ['zlib', { algorithm: 2 }, (b) => b[0] === 0x78 && b[1] === 0x9c],
    ['snappy', { algorithm: 3, blockLog: 16 }, (b) => b.length > 0],
    ...(hasZstd ? [['zstd', { algorithm: 5, level: 1 }, (b: Buffer) => b.readUInt32LE(0) === 0xfd2fb528] as [string, KdbCompression, (block: Buffer) => boolean]] : []),
  ];
  for (const [name, compression, starts] of algorithms) {
    it(`written compressed with ${name}: every column file kxzipped, reading the same`, () => {
      const z = write(name, compression);
      const q = z.partition('trade', '2024-03-06')!;
      for (const c of columns.map(([c]) => c)) {
        const path = join(z.dir, '2024.03.06', 'trade', c);
        const f = openKdbFile(path);
        expect(f.compression?.algorithm, c).toBe(compression.algorithm);
        expect(f.compression?.blockSize, c).toBe(2 ** (compression.blockLog ?? 17));
        // each block stored with the file's algorithm, in the codec's format (or raw, where it did not shrink)
        const bytes = readFileSync(path);
        let at = 8;
        f.compression!.storedSizes.forEach((size, i) => {
          const flag = f.compression!.blockAlgorithms[i]!;
          expect([0, compression.algorithm]).toContain(flag);
          if (flag !== 0) expect(starts(bytes.subarray(at, at + size)), `${c} block ${i}`).toBe(true);
          at += size;
        });
        expect(cells(q.column(c)), c).toEqual(cells(p.column(c)));
      }
      expect([...q.idRanges]).toEqual([...p.idRanges]);
      // .d and the domains stay plain, as q leaves them
      expect(openKdbFile(join(z.dir, 'sym')).compression).toBeUndefined();
      expect(openKdbFile(join(z.dir, 'execsym')).compression).toBeUndefined();
      expect(openKdbFile(join(z.dir, '2024.03.06', 'trade', '.d')).compression).toBeUndefined();
    });
  }
});
