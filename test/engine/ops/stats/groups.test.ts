// ops/stats/groups.ts: grouping rows by the groupBy columns (SPEC 5.2). Group ids are dense, in order of
// first appearance; each group's key row is its first row; rank orders the groups by key ascending.
// Symbols group by their text, numbers by value (nulls one group), timestamps by their exact int64.
import { describe, expect, it } from 'vitest';
import { concatColumns } from '../../../../engine/core/column.js';
import { Table } from '../../../../engine/core/table.js';
import { type Groups, groupBy } from '../../../../engine/ops/stats/groups.js';
import { columnOf, expectTableEqual, tableFromRows } from '../../../helpers/table-equal.js';

/** The group of each row, as a table. */
const ofRow = (g: Groups): Table => new Table(['group'], [{ type: 'int', data: g.ofRow }]);
/** Each group's key row and rank, as a table. */
const perGroup = (g: Groups): Table =>
  new Table(
    ['keyRow', 'rank'],
    [
      { type: 'int', data: g.keyRow },
      { type: 'int', data: g.rank },
    ],
  );
const groupsOf = (rows: ReadonlyArray<readonly [number, number]>): Table => tableFromRows({ keyRow: 'int', rank: 'int' }, rows);
const rowsIn = (...groups: number[]): Table => tableFromRows({ group: 'int' }, groups.map((g) => [g]));

describe('groupBy one column', () => {
  it('symbols: by text, also when two dictionaries hold the same strings under other codes', () => {
    // two partitions' columns: B A B | A C
    const sym = concatColumns('symbol', [columnOf('symbol', ['B', 'A', 'B']), columnOf('symbol', ['A', 'C'])]);
    const g = groupBy(new Table(['sym'], [sym]), ['sym']);
    expect(g.count).toBe(3);
    expectTableEqual(ofRow(g), rowsIn(0, 1, 0, 1, 2));
    // B first seen at row 0, A at 1, C at 4; ascending: A, B, C
    expectTableEqual(perGroup(g), groupsOf([[0, 1], [1, 0], [4, 2]]));
  });

  it('the null symbol is a group of its own, ranked first', () => {
    const g = groupBy(tableFromRows({ sym: 'symbol' }, [['B'], [''], ['A'], [null]]), ['sym']);
    expectTableEqual(ofRow(g), rowsIn(0, 1, 2, 1));
    expectTableEqual(perGroup(g), groupsOf([[0, 2], [1, 0], [2, 1]]));
  });

  it('floats: by value, every null in one group ranked first; 0 and -0 are one value', () => {
    const g = groupBy(tableFromRows({ x: 'float' }, [[2.5], [null], [-1], [2.5], [null], [0], [-0]]), ['x']);
    expect(g.count).toBe(4);
    expectTableEqual(ofRow(g), rowsIn(0, 1, 2, 0, 1, 3, 3));
    expectTableEqual(perGroup(g), groupsOf([[0, 3], [1, 0], [2, 1], [5, 2]]));
  });

  it('longs and ints: nulls (INT64_MIN, INT32_MIN) group together and rank first', () => {
    const t = tableFromRows({ n: 'long', k: 'int' }, [
      [5, 5],
      [null, null],
      [-7, -7],
      [null, null],
      [5, 5],
    ]);
    for (const col of ['n', 'k']) {
      const g = groupBy(t, [col]);
      expectTableEqual(ofRow(g), rowsIn(0, 1, 2, 1, 0));
      expectTableEqual(perGroup(g), groupsOf([[0, 2], [1, 0], [2, 1]]));
    }
  });

  it('timestamps: exactly, one nanosecond apart is another group', () => {
    const g = groupBy(tableFromRows({ at: 'timestamp' }, [['2024-01-02T09:30:00.000000002Z'], ['2024-01-02T09:30:00.000000001Z'], ['2024-01-02T09:30:00.000000002Z']]), ['at']);
    expectTableEqual(ofRow(g), rowsIn(0, 1, 0));
    expectTableEqual(perGroup(g), groupsOf([[0, 1], [1, 0]]));
  });

  it('strings, dates and booleans', () => {
    const t = tableFromRows({ s: 'string', d: 'date', b: 'boolean' }, [
      ['b', '2024-01-03', true],
      ['a', '2024-01-02', false],
      ['b', '2024-01-02', true],
    ]);
    expectTableEqual(perGroup(groupBy(t, ['s'])), groupsOf([[0, 1], [1, 0]]));
    expectTableEqual(ofRow(groupBy(t, ['d'])), rowsIn(0, 1, 1));
    expectTableEqual(perGroup(groupBy(t, ['d'])), groupsOf([[0, 1], [1, 0]]));
    expectTableEqual(perGroup(groupBy(t, ['b'])), groupsOf([[0, 1], [1, 0]]));
  });
});

describe('groupBy several columns, and none', () => {
  it('a group per distinct pair, in order of first appearance, ranked by the first column then the second', () => {
    const t = tableFromRows({ sym: 'symbol', venue: 'symbol', n: 'long' }, [
      ['B', 'X', 1],
      ['A', 'Y', 2],
      ['B', 'W', 3],
      ['A', 'Y', 4],
      ['B', 'X', 5],
      ['A', 'X', 6],
    ]);
    const g = groupBy(t, ['sym', 'venue']);
    expect(g.count).toBe(4);
    // (B,X) (A,Y) (B,W) (A,X); ascending: (A,X) (A,Y) (B,W) (B,X)
    expectTableEqual(ofRow(g), rowsIn(0, 1, 2, 1, 0, 3));
    expectTableEqual(perGroup(g), groupsOf([[0, 3], [1, 1], [2, 2], [5, 0]]));
    // the key values of each group, read from its key row
    expectTableEqual(
      t.select(['sym', 'venue']).take(g.keyRow),
      tableFromRows({ sym: 'symbol', venue: 'symbol' }, [
        ['B', 'X'],
        ['A', 'Y'],
        ['B', 'W'],
        ['A', 'X'],
      ]),
    );
  });

  it('a second column whose values repeat across groups of the first', () => {
    const t = tableFromRows({ a: 'long', b: 'float' }, [
      [1, 1],
      [2, 1],
      [1, 2],
      [2, 1],
      [1, null],
    ]);
    const g = groupBy(t, ['a', 'b']);
    expectTableEqual(ofRow(g), rowsIn(0, 1, 2, 1, 3));
    // ascending: (1,null) (1,1) (1,2) (2,1)
    expectTableEqual(perGroup(g), groupsOf([[0, 1], [1, 3], [2, 2], [4, 0]]));
  });

  it('no columns: one group of every row, present even with no rows', () => {
    const t = tableFromRows({ x: 'float' }, [[1], [2], [3]]);
    const g = groupBy(t, []);
    expect(g.count).toBe(1);
    expectTableEqual(ofRow(g), rowsIn(0, 0, 0));
    expectTableEqual(perGroup(g), groupsOf([[0, 0]]));
    const empty = groupBy(tableFromRows({ x: 'float' }, []), []);
    expect(empty.count).toBe(1);
    // the group has no row to read keys from
    expectTableEqual(perGroup(empty), groupsOf([[-1, 0]]));
  });

  it('columns but no rows: no groups', () => {
    const g = groupBy(tableFromRows({ sym: 'symbol', x: 'float' }, []), ['sym', 'x']);
    expect(g.count).toBe(0);
    expectTableEqual(perGroup(g), groupsOf([]));
  });

  it('refuses a list column', () => {
    expect(() => groupBy(tableFromRows({ l: 'float[]' }, [[[1, 2]]]), ['l'])).toThrow('list columns do not group');
  });
});
