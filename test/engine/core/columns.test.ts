import { describe, expect, it } from 'vitest';
import { columnFromValues } from '../../../engine/core/builder.js';
import { type Column, concatColumns, floats, gatherParts, rowRuns, sliceColumn, type SymbolColumn, symbolRanks } from '../../../engine/core/column.js';
import { ConcatDict, dictOf, dictStrings, PickDict, textId, textIdsOf } from '../../../engine/core/dict.js';
import { Table } from '../../../engine/core/table.js';
import { sortTable } from '../../../engine/ops/sort.js';
import { compactDict } from '../../../engine/storage/prepare.js';

const sym = (values: string[]): SymbolColumn => columnFromValues('symbol', values) as SymbolColumn;
const strings = (c: SymbolColumn): string[] => [...c.codes].map((k) => c.dict.get(k));

describe('symbol columns across partitions', () => {
  // Two partitions whose dictionaries share strings under different codes.
  const a = sym(['MSFT', 'AAPL', 'MSFT']);
  const b = sym(['AAPL', 'IBM', 'MSFT']);
  const both = concatColumns('symbol', [a, b]) as SymbolColumn;

  it('keeps every value when dictionaries are appended', () => {
    expect(strings(both)).toEqual(['MSFT', 'AAPL', 'MSFT', 'AAPL', 'IBM', 'MSFT']);
  });

  it('ranks equal strings equally, so sorting groups them and stays stable', () => {
    const ranks = symbolRanks(both.dict);
    const rankOf = (s: string): Set<number> => new Set(dictStrings(both.dict).flatMap((d, k) => (d === s ? [ranks[k]!] : [])));
    expect([rankOf('AAPL').size, rankOf('MSFT').size]).toEqual([1, 1]);
    const t = new Table(['id', 'n'], [both, columnFromValues('long', [0, 1, 2, 3, 4, 5])]);
    const sorted = sortTable(t, [{ dir: 'asc', column: 'id' }]);
    expect(strings(sorted.col('id') as SymbolColumn)).toEqual(['AAPL', 'AAPL', 'IBM', 'MSFT', 'MSFT', 'MSFT']);
    expect([...floats(sorted.col('n'))]).toEqual([1, 3, 4, 0, 2, 5]);
  });

  it('stores each string once', () => {
    const c = compactDict(both) as SymbolColumn;
    expect(dictStrings(c.dict)).toEqual(['AAPL', 'IBM', 'MSFT']);
    expect(c.dict.sorted).toBe(true);
    expect(strings(c)).toEqual(strings(both));
  });
});

describe('integer columns read as numbers', () => {
  it('converts longs and ints exactly within ±2^53 (null NaN), and a stored slice once', () => {
    const l = columnFromValues('long', [2n ** 53n - 1n, null, -5n, 7n]);
    const i = columnFromValues('int', [2147483647, null, -3]);
    expect([...floats(l)]).toEqual([2 ** 53 - 1, NaN, -5, 7]);
    expect([...floats(i)]).toEqual([2147483647, NaN, -3]);
    const slice = sliceColumn(l, 2, 4);
    const once = floats(slice);
    expect([...once]).toEqual([-5, 7]);
    expect(floats(sliceColumn(l, 2, 4))).toBe(once);
    expect([...floats(sliceColumn(l, 1, 3))]).toEqual([NaN, -5]);
  });
});

describe('gathering rows of several parts', () => {
  // Every path: rows as long runs (block copies), scattered rows, and for symbols a small dictionary
  // appended whole, a huge one picked through consecutive codes, a narrow span and a wide one.
  const n = 4000;
  const longs = columnFromValues('long', Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : i * 1_000_003 - 2 ** 40)));
  const prices = columnFromValues('float', Array.from({ length: n }, (_, i) => (i % 11 === 0 ? null : i / 8)));
  const ints = columnFromValues('int', Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : i - 100)));
  const small = sym(Array.from({ length: n }, (_, i) => ['A', 'B', '', 'C'][i % 4]!));
  // unique values in first-use order: codes ascend with the row
  const unique = sym(Array.from({ length: n }, (_, i) => `id${i}`));
  // unique values, shuffled within blocks of 16 rows (a narrow span of codes, not ascending)
  const shuffled = sym(Array.from({ length: n }, (_, i) => `s${(i & ~15) + ((i * 7) & 15)}`));
  const runs = Int32Array.from([...Array.from({ length: 300 }, (_, i) => 1000 + i), ...Array.from({ length: 200 }, (_, i) => 3000 + i)]);
  const scattered = Int32Array.from({ length: 150 }, (_, i) => (i * 2654435761) % n >>> 0);
  const shortRuns = Int32Array.from({ length: 40 }, (_, i) => 2000 + i);

  const cells = (c: Column, rows: Int32Array): unknown[] =>
    [...rows].map((r) => (c.type === 'symbol' ? c.dict.get(c.codes[r]!) : c.type === 'long' ? c.data[r] : (c as { data: ArrayLike<number> }).data[r]));
  const cellsOf = (c: Column): unknown[] => cells(c, Int32Array.from({ length: c.type === 'symbol' ? c.codes.length : (c as { data: ArrayLike<unknown> }).data.length }, (_, i) => i));

  it('finds runs only where rows are mostly consecutive, once per row array', () => {
    expect([...rowRuns(runs)!]).toEqual([1000, 300, 3000, 200]);
    expect(rowRuns(scattered)).toBeNull();
    expect(rowRuns(runs)).toBe(rowRuns(runs));
  });

  for (const [name, col] of Object.entries({ longs, prices, ints, small, unique, shuffled })) {
    it(`gives the same cells as row by row reading: ${name}`, () => {
      for (const parts of [[runs], [scattered], [runs, scattered, shortRuns], [shortRuns, runs]]) {
        const got = gatherParts(col.type, parts.map((rows) => ({ column: col, rows })));
        expect(cellsOf(got)).toEqual(parts.flatMap((rows) => cells(col, rows)));
      }
    });
  }

  it('keeps only the entries a few rows of a huge dictionary use', () => {
    const got = gatherParts('symbol', [{ column: unique, rows: shortRuns }]) as SymbolColumn;
    expect(got.dict.length).toBe(shortRuns.length);
    const wide = Int32Array.from([5, 3999, 17, 5]);
    const picked = gatherParts('symbol', [{ column: unique, rows: wide }]) as SymbolColumn;
    expect(strings(picked)).toEqual(['id5', 'id3999', 'id17', 'id5']);
    expect(picked.dict.length).toBe(3);
    // thousands of rows over a wide span, with repeats: picked through a hash table with collisions
    const big = sym(Array.from({ length: 50_000 }, (_, i) => `e${i}`));
    const rows = Int32Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? 49_999 : (i * 2654435761) % 50_000 >>> 0));
    const many = gatherParts('symbol', [{ column: big, rows }]) as SymbolColumn;
    expect(strings(many)).toEqual([...rows].map((r) => `e${r}`));
    expect(many.dict.length).toBe(new Set(rows).size);
    expect(dictStrings(many.dict)).toEqual([...new Set([...rows].map((r) => `e${r}`))]); // first-use order
    // distinct rows over a wide span (a slice of execution IDs), after another part: the codes are the
    // picks themselves, offset by the first part's entries
    const distinct = Int32Array.from({ length: 3000 }, (_, i) => (i * 7919) % 50_000);
    const both = gatherParts('symbol', [{ column: small, rows: runs }, { column: big, rows: distinct }]) as SymbolColumn;
    expect(strings(both)).toEqual([...cells(small, runs), ...[...distinct].map((r) => `e${r}`)]);
    expect(both.dict.length).toBe(small.dict.length + distinct.length);
    expect([...both.codes.subarray(runs.length)]).toEqual([...distinct].map((_, i) => small.dict.length + i));
  });

  it('gathers into a given array (a split query\'s shared output) the same cells', () => {
    for (const col of [longs, prices, ints, small, unique]) {
      const parts = [runs, scattered].map((rows) => ({ column: col, rows }));
      const rowsIn = runs.length + scattered.length;
      const place = col.type === 'long' ? new BigInt64Array(new SharedArrayBuffer(8 * (rowsIn + 4)), 16, rowsIn) : col.type === 'float' ? new Float64Array(new SharedArrayBuffer(8 * rowsIn)) : new Int32Array(new SharedArrayBuffer(4 * rowsIn));
      const got = gatherParts(col.type, parts, place);
      expect(cellsOf(got)).toEqual(parts.flatMap(({ rows }) => cells(col, rows)));
      expect(got.type === 'symbol' ? got.codes : (got as { data: unknown }).data).toBe(place);
      expect(() => gatherParts(col.type, parts, place.subarray(1))).toThrow(/rows into a place of/);
    }
  });
});

describe('text ids in bulk', () => {
  it('numbers equal strings alike through plain, picked and concatenated dictionaries, as textId does one by one', () => {
    const plain = dictOf(['MSFT', 'AAPL', '', 'IBM']);
    const picked = new PickDict(dictOf(['IBM', 'ORCL', 'MSFT']), Int32Array.from([2, 0, 1]));
    const other = dictOf(['AAPL', 'NVDA']);
    const concat = new ConcatDict([plain, picked, other]);
    const codes = Int32Array.from([8, 0, -1, 4, 6, 1, 5, 2, 7, 3, 0, 8]);
    const out = new Int32Array(codes.length);
    textIdsOf(concat, codes, codes.length, out);
    expect([...out]).toEqual([...codes].map((k) => (k < 0 ? -1 : textId(concat, k))));
    const text = [...codes].map((k) => (k < 0 ? null : concat.get(k)));
    // equal strings (MSFT at codes 0 and 4, AAPL at 1 and 7, IBM at 3 and 5) share one id; others differ
    for (let i = 0; i < codes.length; i++) {
      for (let j = 0; j < codes.length; j++) if (text[i] !== null && text[j] !== null) expect(out[i] === out[j]).toBe(text[i] === text[j]);
    }
    const few = new Int32Array(2);
    textIdsOf(picked, Int32Array.from([0, 1]), 2, few);
    expect([...few]).toEqual([out[3], out[6]]); // concatenated codes 4 and 5
  });
});
