import { describe, expect, it } from 'vitest';
import { columnFromValues } from '../../engine/core/builder.js';
import { concatColumns, floats, sliceColumn, type SymbolColumn, symbolRanks } from '../../engine/core/column.js';
import { dictStrings } from '../../engine/core/dict.js';
import { Table } from '../../engine/core/table.js';
import { sortTable } from '../../engine/ops/sort.js';
import { compactDict } from '../../engine/storage/prepare.js';

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
