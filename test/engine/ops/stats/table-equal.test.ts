// The table-equality helper itself: it must see every kind of difference, name where it is, and
// take each type's null as SPEC 2 writes it; otherwise the kernel tests built on it prove nothing.
import { describe, expect, it } from 'vitest';
import { Table } from '../../../../engine/core/table.js';
import { dictOf } from '../../../../engine/core/dict.js';
import { expectTableEqual, tableDiff, tableFromColumns, tableFromRows, ts } from '../../../helpers/table-equal.js';

describe('inline tables', () => {
  it('builds the same table from rows and from columns, nulls as SPEC 2 stores them', () => {
    const byRows = tableFromRows(
      { t: 'timestamp', d: 'date', sp: 'timespan', s: 'symbol', x: 'float', n: 'long', k: 'int', b: 'boolean' },
      [
        ['2024-01-02T09:30:00.000000001Z', '2024-01-02', '00:00:01.5', 'AAPL', 1.5, 7n, 3, true],
        [null, null, null, null, null, null, null, false],
      ],
    );
    const byColumns = tableFromColumns({
      t: ['timestamp', [ts('2024.01.02D09:30:00.000000001'), null]],
      d: ['date', [19724, null]],
      sp: ['timespan', [1_500_000_000n, null]],
      s: ['symbol', ['AAPL', '']],
      x: ['float', [1.5, NaN]],
      n: ['long', [7, null]],
      k: ['int', [3, null]],
      b: ['boolean', [1, 0]],
    });
    expectTableEqual(byRows, byColumns);
    const t = byRows.col('t');
    const d = byRows.col('d');
    const n = byRows.col('n');
    const s = byRows.col('s');
    expect(t.type === 'timestamp' && [...t.data]).toEqual([1704187800000000001n, -9223372036854775808n]);
    expect(d.type === 'date' && [...d.data]).toEqual([19724, -2147483648]);
    expect(n.type === 'long' && [...n.data]).toEqual([7n, -9223372036854775808n]);
    expect(s.type === 'symbol' && s.dict.get(s.codes[1]!)).toBe('');
  });

  it('refuses a row of the wrong width and a cell that is not its type', () => {
    expect(() => tableFromRows({ a: 'float', b: 'float' }, [[1]])).toThrow('row 0 has 1 cells for 2 columns (a, b)');
    expect(() => tableFromRows({ when: 'timestamp' }, [['yesterday']])).toThrow('"yesterday" is not a timestamp');
  });
});

describe('table equality', () => {
  const want = tableFromRows({ sym: 'symbol', px: 'float', n: 'long' }, [
    ['A', 1.5, 1],
    ['B', null, null],
  ]);

  it('passes equal tables, NaN equal to NaN and symbols compared by text under any dictionary', () => {
    const other: Table = new Table(
      ['sym', 'px', 'n'],
      [{ type: 'symbol', codes: Int32Array.of(2, 0), dict: dictOf(['x', 'A', 'B', 'A']) }, want.col('px'), want.col('n')],
    );
    // codes 2, 0 of ['x','A','B','A'] are 'B', 'x': not equal
    expect(tableDiff(other, want)).toEqual(['column sym row 0: want "A", got "B"', 'column sym row 1: want "B", got "x"']);
    const same = new Table(['sym', 'px', 'n'], [{ type: 'symbol', codes: Int32Array.of(3, 2), dict: dictOf(['x', 'y', 'B', 'A']) }, want.col('px'), want.col('n')]);
    expectTableEqual(same, want);
  });

  it('names the column, row, want and got of each differing cell, and nulls by name', () => {
    const got = tableFromRows({ sym: 'symbol', px: 'float', n: 'long' }, [
      ['A', 1.5000000001, null],
      ['', 2, null],
    ]);
    expect(tableDiff(got, want)).toEqual([
      'column sym row 1: want "B", got null ("")',
      'column px row 0: want 1.5, got 1.5000000001',
      'column px row 1: want null (NaN), got 2',
      'column n row 0: want 1, got null (INT64_MIN)',
    ]);
    expect(() => expectTableEqual(got, want)).toThrow(/tables differ:\n {2}column sym row 1: want "B", got null \(""\)/);
  });

  it('compares floats exactly unless given a tolerance', () => {
    const got = tableFromRows({ x: 'float' }, [[0.1 + 0.2]]);
    const w = tableFromRows({ x: 'float' }, [[0.3]]);
    expect(tableDiff(got, w)).toEqual(['column x row 0: want 0.3, got 0.30000000000000004']);
    expectTableEqual(got, w, { tolerance: 1e-15 });
    expect(tableDiff(tableFromRows({ x: 'float' }, [[0.31]]), w, { tolerance: 1e-15 })).toHaveLength(1);
  });

  it('reports other names, other types and other lengths', () => {
    expect(tableDiff(tableFromRows({ a: 'float', c: 'float' }, [[1, 2]]), tableFromRows({ a: 'float', b: 'float' }, [[1, 2]]))).toEqual(['columns: want [a, b], got [a, c]']);
    expect(tableDiff(tableFromRows({ a: 'long' }, [[1]]), tableFromRows({ a: 'float' }, [[1]]))).toEqual(['column a: type want float, got long']);
    expect(tableDiff(tableFromRows({ a: 'float' }, [[1], [2]]), tableFromRows({ a: 'float' }, [[1]]))).toEqual(['rows: want 1, got 2']);
  });

  it('prints timestamps, dates and int nulls readably', () => {
    const got = tableFromRows({ t: 'timestamp', d: 'date', k: 'int' }, [['2024-01-02T09:30:00Z', null, null]]);
    const w = tableFromRows({ t: 'timestamp', d: 'date', k: 'int' }, [['2024-01-02T09:30:00.000000001Z', '2024-01-02', 0]]);
    expect(tableDiff(got, w)).toEqual([
      'column t row 0: want 2024-01-02T09:30:00.000000001Z (1704187800000000001n), got 2024-01-02T09:30:00.000000000Z (1704187800000000000n)',
      'column d row 0: want 2024-01-02 (19724), got null (INT32_MIN)',
      'column k row 0: want 0, got null (INT32_MIN)',
    ]);
  });
});
