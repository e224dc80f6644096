// ops/stats/vectors.ts: columns read as the values a parse tree computes on (numbers as float64 with NaN
// null, timestamps as int64, symbols and strings as codes), and cell values back to result columns.
import { describe, expect, it } from 'vitest';
import { Table } from '../../../../engine/core/table.js';
import { dictOf } from '../../../../engine/core/dict.js';
import { columnVec, symNull, type Vec, vecToColumn } from '../../../../engine/ops/stats/vectors.js';
import { expectTableEqual, tableFromRows } from '../../../helpers/table-equal.js';

const data = tableFromRows({ x: 'float', n: 'long', k: 'int', d: 'date', b: 'boolean', at: 'timestamp', sp: 'timespan', s: 'symbol', str: 'string' }, [
  [1.5, 2 ** 53, 7, '2024-01-02', true, '2024-01-02T09:30:00.000000001Z', '00:00:01', 'A', 'a'],
  [null, null, null, null, false, null, null, null, ''],
  [-0.25, -3, -2147483647, '1969-12-31', true, '1969-12-31T23:59:59.999999999Z', '-00:00:01', 'B', 'b'],
]);

/** A row-level vector as numbers (NaN null) or the int64 values or the strings it holds. */
function contents(v: Vec): unknown[] {
  if (v.lvl === 'scalar') return [v.v];
  if (v.t === 'num') return [...v.d];
  if (v.t === 'ts') return [...v.d];
  return Array.from(v.codes, (k) => (k < 0 ? null : v.dict.get(k)));
}

describe('columnVec', () => {
  it('reads every numeric type as float64 with NaN null, keeping the column type', () => {
    const read = (name: string, rows?: Int32Array): [string, unknown[]] => {
      const v = columnVec(data.col(name), rows);
      return [v.type, contents(v)];
    };
    expect(read('x')).toEqual(['float', [1.5, NaN, -0.25]]);
    expect(read('n')).toEqual(['long', [2 ** 53, NaN, -3]]);
    expect(read('k')).toEqual(['int', [7, NaN, -2147483647]]);
    expect(read('d')).toEqual(['date', [19724, NaN, -1]]);
    expect(read('b')).toEqual(['boolean', [1, 0, 1]]);
    // through a row index: entry i is table row rows[i]
    const rows = Int32Array.of(2, 2, 0, 1);
    expect(read('x', rows)).toEqual(['float', [-0.25, -0.25, 1.5, NaN]]);
    expect(read('n', rows)).toEqual(['long', [-3, -3, 2 ** 53, NaN]]);
    expect(read('k', rows)).toEqual(['int', [-2147483647, -2147483647, 7, NaN]]);
    expect(read('d', rows)).toEqual(['date', [-1, -1, 19724, NaN]]);
    expect(read('b', rows)).toEqual(['boolean', [1, 1, 1, 0]]);
  });

  it('keeps timestamps and timespans as exact int64, symbols and strings as codes into a dictionary', () => {
    const rows = Int32Array.of(2, 0);
    expect(contents(columnVec(data.col('at'), undefined))).toEqual([1704187800000000001n, -9223372036854775808n, -1n]);
    expect(contents(columnVec(data.col('at'), rows))).toEqual([-1n, 1704187800000000001n]);
    expect(contents(columnVec(data.col('sp'), rows))).toEqual([-1_000_000_000n, 1_000_000_000n]);
    expect(contents(columnVec(data.col('s'), undefined))).toEqual(['A', '', 'B']);
    expect(contents(columnVec(data.col('s'), rows))).toEqual(['B', 'A']);
    const str = columnVec(data.col('str'), rows);
    expect([str.type, contents(str)]).toEqual(['string', ['b', 'a']]);
  });

  it('refuses list columns', () => {
    expect(() => columnVec(tableFromRows({ l: 'float[]' }, [[[1]]]).col('l'), undefined)).toThrow('list columns do not aggregate');
  });

  it('round-trips every column through vecToColumn', () => {
    const names = data.names.filter((n) => n !== 'str');
    const back = new Table(
      names,
      names.map((n) => vecToColumn(columnVec(data.col(n), undefined), data.length)),
    );
    expectTableEqual(back, data.select(names));
    // a string column comes back as strings, the null string as ""
    expectTableEqual(new Table(['str'], [vecToColumn(columnVec(data.col('str'), Int32Array.of(1, 2)), 2)]), tableFromRows({ str: 'string' }, [[''], ['b']]));
  });
});

describe('vecToColumn', () => {
  const cell = (d: number[], type: Extract<Vec, { t: 'num' }>['type']): Vec => ({ lvl: 'cell', t: 'num', d: Float64Array.from(d), type });

  it('gives numbers their result type: longs and ints rounded, booleans from non-zero, dates as days', () => {
    const got = new Table(
      ['long', 'int', 'bool', 'date', 'float'],
      [
        vecToColumn(cell([3, NaN, -2, 2 ** 52 + 1], 'long'), 4),
        vecToColumn(cell([3, NaN, -2, 5], 'int'), 4),
        vecToColumn(cell([1, NaN, 0, -1], 'boolean'), 4),
        vecToColumn(cell([19724, NaN, 0, -1], 'date'), 4),
        vecToColumn(cell([0.5, NaN, -0, Infinity], 'float'), 4),
      ],
    );
    const want = tableFromRows({ long: 'long', int: 'int', bool: 'boolean', date: 'date', float: 'float' }, [
      [3, 3, true, '2024-01-02', 0.5],
      [null, null, false, null, null],
      [-2, -2, false, '1970-01-01', -0],
      [2 ** 52 + 1, 5, true, '1969-12-31', Infinity],
    ]);
    expectTableEqual(got, want);
  });

  it('a scalar fills every cell, long or float', () => {
    const got = new Table(
      ['long', 'float'],
      [vecToColumn({ lvl: 'scalar', t: 'num', v: 4, type: 'long' }, 2), vecToColumn({ lvl: 'scalar', t: 'num', v: NaN, type: 'float' }, 2)],
    );
    expectTableEqual(got, tableFromRows({ long: 'long', float: 'float' }, [[4, null], [4, null]]));
  });

  it('timestamps as they are; a string value whose code is -1 (no value) becomes ""', () => {
    const at: Vec = { lvl: 'cell', t: 'ts', d: BigInt64Array.of(5n, -9223372036854775808n), type: 'timestamp' };
    const str: Vec = { lvl: 'cell', t: 'sym', codes: Int32Array.of(1, -1), dict: dictOf(['x', 'y']), type: 'string' };
    expectTableEqual(
      new Table(['at', 'str'], [vecToColumn(at, 2), vecToColumn(str, 2)]),
      tableFromRows({ at: 'timestamp', str: 'string' }, [
        ['1970-01-01T00:00:00.000000005Z', 'y'],
        [null, ''],
      ]),
    );
  });
});

describe('symNull', () => {
  it('is true for code -1 and for the empty string, under any code', () => {
    const v: Extract<Vec, { t: 'sym' }> = { lvl: 'row', t: 'sym', codes: new Int32Array(0), dict: dictOf(['A', '', 'B', '']), type: 'symbol' };
    expectTableEqual(
      tableFromRows({ code: 'int', isNull: 'boolean' }, [-1, 0, 1, 2, 3].map((k) => [k, symNull(v, k)])),
      tableFromRows({ code: 'int', isNull: 'boolean' }, [
        [-1, true],
        [0, false],
        [1, true],
        [2, false],
        [3, true],
      ]),
    );
  });
});
