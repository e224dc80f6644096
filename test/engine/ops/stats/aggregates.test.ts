// ops/stats/aggregates.ts: each aggregate kernel over frames of tiny inline tables, results computed by
// hand. Nulls are skipped; a cell with no values gives null, except count and sum (0) (SPEC 5.1).
import { describe, expect, it } from 'vitest';
import type { Column } from '../../../../engine/core/column.js';
import { Table } from '../../../../engine/core/table.js';
import { type Fail, type Frame, kernel } from '../../../../engine/ops/stats/aggregates.js';
import type { AggregateOp } from '../../../../engine/ops/stats/tree.js';
import { columnVec, type Vec, vecToColumn } from '../../../../engine/ops/stats/vectors.js';
import { expectTableEqual, tableFromRows } from '../../../helpers/table-equal.js';

const fail: Fail = (problem, expected) => {
  throw new Error(`${problem}; expected ${expected}`);
};

/** A frame over every row of a table, in the cells its `cell` column names. */
function frameOf(t: Table, cells: number, windows?: Frame['windows']): Frame {
  const c = t.col('cell');
  if (c.type !== 'int') throw new Error('cell is an int column');
  return { table: t, n: t.length, cell: c.data, cells, out: windows ? windows.lo.length : cells, ...(windows ? { windows } : {}) };
}

/** One aggregate over columns of the frames (which share a cell layout), as a result column. */
function aggregate(op: AggregateOp, columns: readonly string[], frames: readonly Frame[]): Column {
  const f = frames[0]!;
  const k = kernel(op, f, fail, (i) => columns[i]!);
  for (const fr of frames) k.add(columns.map((c): Vec => (c === '1' ? { lvl: 'scalar', t: 'num', v: 1, type: 'float' } : columnVec(fr.table.col(c), fr.rows))), fr);
  return vecToColumn(k.finish(), f.out);
}

/** A table of several aggregates (name -> [op, columns]) over the frames. */
function aggregates(specs: Readonly<Record<string, readonly [AggregateOp, ...string[]]>>, frames: readonly Frame[]): Table {
  const names = Object.keys(specs);
  return new Table(
    names,
    names.map((n) => {
      const [op, ...cols] = specs[n]!;
      return aggregate(op, cols, frames);
    }),
  );
}

// Five cells: 0 and 1 hold values and nulls (rows of the two interleave), 2 has no row, 3 only nulls,
// 4 one value. x: values, w: weights.
//   cell 0: x 2, 4, 9 (and a null)   w 1, 2, 1 (5 where x is null)
//   cell 1: x 5, 1 (and a null)      w null where x is 5, 4 where x is 1, 3 where x is null
//   cell 3: x null                   cell 4: x 7, w 2
const data = tableFromRows({ cell: 'int', x: 'float', w: 'float', n: 'long' }, [
  [0, 2, 1, 2],
  [1, null, 3, null],
  [0, 4, 2, 4],
  [1, 5, null, 5],
  [0, 9, 1, 9],
  [3, null, 1, null],
  [1, 1, 4, 1],
  [0, null, 5, null],
  [4, 7, 2, 7],
]);
const frame = frameOf(data, 5);

describe('aggregates over one frame, with nulls and empty cells', () => {
  it('first, last, min, max, sum, avg, med, count', () => {
    const got = aggregates(
      { first: ['first', 'x'], last: ['last', 'x'], min: ['min', 'x'], max: ['max', 'x'], sum: ['sum', 'x'], avg: ['avg', 'x'], med: ['med', 'x'], count: ['count', 'x'], rows: ['count', '1'] },
      [frame],
    );
    const want = tableFromRows(
      { first: 'float', last: 'float', min: 'float', max: 'float', sum: 'float', avg: 'float', med: 'float', count: 'long', rows: 'long' },
      [
        [2, 9, 2, 9, 15, 5, 4, 3, 4],
        [5, 1, 1, 5, 6, 3, 3, 2, 3],
        [null, null, null, null, 0, null, null, 0, 0],
        [null, null, null, null, 0, null, null, 0, 1],
        [7, 7, 7, 7, 7, 7, 7, 1, 1],
      ],
    );
    expectTableEqual(got, want);
  });

  it('dev, sdev, var, svar: population and sample spread; a sample of one value is null', () => {
    const got = aggregates({ var: ['var', 'x'], dev: ['dev', 'x'], svar: ['svar', 'x'], sdev: ['sdev', 'x'] }, [frame]);
    // cell 0: mean 5, squared deviations 9 + 1 + 16 = 26; cell 1: mean 3, 4 + 4 = 8
    const want = tableFromRows({ var: 'float', dev: 'float', svar: 'float', sdev: 'float' }, [
      [26 / 3, Math.sqrt(26 / 3), 13, Math.sqrt(13)],
      [4, 2, 8, Math.sqrt(8)],
      [null, null, null, null],
      [null, null, null, null],
      [0, 0, null, null],
    ]);
    expectTableEqual(got, want);
  });

  it('wavg and wsum over the rows where both weight and value are present', () => {
    const got = aggregates({ wavg: ['wavg', 'w', 'x'], wsum: ['wsum', 'w', 'x'] }, [frame]);
    // cell 0: (1·2 + 2·4 + 1·9) / (1 + 2 + 1) = 19 / 4; cell 1: only (4, 1); cell 3: no pair; cell 4: (2, 7)
    // wsum of no pairs is 0, as sum and q's wsum
    const want = tableFromRows({ wavg: 'float', wsum: 'float' }, [
      [4.75, 19],
      [1, 4],
      [null, 0],
      [null, 0],
      [7, 14],
    ]);
    expectTableEqual(got, want);
  });

  it('wavg of weights summing to zero is null', () => {
    const t = tableFromRows({ cell: 'int', w: 'float', x: 'float' }, [
      [0, 1, 3],
      [0, -1, 5],
    ]);
    expectTableEqual(aggregates({ wavg: ['wavg', 'w', 'x'], wsum: ['wsum', 'w', 'x'] }, [frameOf(t, 1)]), tableFromRows({ wavg: 'float', wsum: 'float' }, [[null, -2]]));
  });

  it('keeps the column type where the aggregate allows: longs stay long, sum of integers is long, avg and med are float', () => {
    const got = aggregates(
      { first: ['first', 'n'], min: ['min', 'n'], max: ['max', 'n'], sum: ['sum', 'n'], avg: ['avg', 'n'], med: ['med', 'n'], count: ['count', 'n'] },
      [frame],
    );
    const want = tableFromRows({ first: 'long', min: 'long', max: 'long', sum: 'long', avg: 'float', med: 'float', count: 'long' }, [
      [2, 2, 9, 15, 5, 4, 3],
      [5, 1, 5, 6, 3, 3, 2],
      [null, null, null, 0, null, null, 0],
      [null, null, null, 0, null, null, 0],
      [7, 7, 7, 7, 7, 7, 1],
    ]);
    expectTableEqual(got, want);
  });

  it('sums ints and booleans as long, keeps int and date for min, max and med of dates', () => {
    const t = tableFromRows({ cell: 'int', k: 'int', b: 'boolean', d: 'date' }, [
      [0, 3, true, '2024-01-03'],
      [0, null, true, '2024-01-01'],
      [0, -1, false, null],
      [1, null, false, '2024-01-05'],
    ]);
    const got = aggregates({ sumK: ['sum', 'k'], minK: ['min', 'k'], sumB: ['sum', 'b'], countB: ['count', 'b'], minD: ['min', 'd'], medD: ['med', 'd'] }, [frameOf(t, 2)]);
    const want = tableFromRows({ sumK: 'long', minK: 'int', sumB: 'long', countB: 'long', minD: 'date', medD: 'date' }, [
      [2, -1, 2, 3, '2024-01-01', '2024-01-02'],
      [0, null, 0, 1, '2024-01-05', '2024-01-05'],
    ]);
    expectTableEqual(got, want);
  });

  it('a median of an even count is the mean of the two middle values, sorted numerically', () => {
    // sorted as numbers, not as text: 10 after 9, negatives first
    const t = tableFromRows({ cell: 'int', x: 'float' }, [
      [0, 10],
      [0, 9],
      [0, -2],
      [0, 100],
      [1, 3],
      [1, null],
      [1, -1],
    ]);
    expectTableEqual(aggregates({ med: ['med', 'x'] }, [frameOf(t, 2)]), tableFromRows({ med: 'float' }, [[9.5], [1]]));
  });

  it('min and max see infinities; sum and avg of infinities follow IEEE', () => {
    const t = tableFromRows({ cell: 'int', x: 'float' }, [
      [0, Infinity],
      [0, 1],
      [1, -Infinity],
      [1, Infinity],
    ]);
    expectTableEqual(
      aggregates({ min: ['min', 'x'], max: ['max', 'x'], sum: ['sum', 'x'] }, [frameOf(t, 2)]),
      tableFromRows({ min: 'float', max: 'float', sum: 'float' }, [
        [1, Infinity, Infinity],
        [-Infinity, Infinity, null],
      ]),
    );
  });
});

describe('aggregates of timestamps and symbols', () => {
  const t = tableFromRows({ cell: 'int', at: 'timestamp', sym: 'symbol' }, [
    [0, '2024-01-02T09:30:00.000000006Z', 'B'],
    [0, null, ''],
    [0, '2024-01-02T09:30:00.000000001Z', 'A'],
    [1, null, ''],
    [0, '2024-01-02T09:30:00.000000002Z', null],
    [2, '2024-01-02T09:30:00Z', 'C'],
    [2, '2024-01-03T09:30:00Z', 'C'],
  ]);
  const f = frameOf(t, 3);

  it('first, last, min, max, avg, med of timestamps to the nanosecond; count skips null times', () => {
    const got = aggregates(
      { first: ['first', 'at'], last: ['last', 'at'], min: ['min', 'at'], max: ['max', 'at'], avg: ['avg', 'at'], med: ['med', 'at'], count: ['count', 'at'] },
      [f],
    );
    const want = tableFromRows({ first: 'timestamp', last: 'timestamp', min: 'timestamp', max: 'timestamp', avg: 'timestamp', med: 'timestamp', count: 'long' }, [
      ['2024-01-02T09:30:00.000000006Z', '2024-01-02T09:30:00.000000002Z', '2024-01-02T09:30:00.000000001Z', '2024-01-02T09:30:00.000000006Z', '2024-01-02T09:30:00.000000003Z', '2024-01-02T09:30:00.000000002Z', 3],
      [null, null, null, null, null, null, 0],
      ['2024-01-02T09:30:00Z', '2024-01-03T09:30:00Z', '2024-01-02T09:30:00Z', '2024-01-03T09:30:00Z', '2024-01-02T21:30:00Z', '2024-01-02T21:30:00Z', 2],
    ]);
    expectTableEqual(got, want);
  });

  it('first and last of symbols skip the null symbol; count counts the others', () => {
    const got = aggregates({ first: ['first', 'sym'], last: ['last', 'sym'], count: ['count', 'sym'] }, [f]);
    expectTableEqual(
      got,
      tableFromRows({ first: 'symbol', last: 'symbol', count: 'long' }, [
        ['B', 'A', 2],
        ['', '', 0],
        ['C', 'C', 2],
      ]),
    );
  });

  it('refuses arithmetic on symbols, sums and spreads of timestamps, and literals, naming the column', () => {
    expect(() => aggregate('min', ['sym'], [f])).toThrow('applies min to sym (symbol); expected first, last or count for a symbol column');
    expect(() => aggregate('sum', ['at'], [f])).toThrow('applies sum to at (timestamp); expected first, last, min, max, avg, med or count for a timestamp column');
    expect(() => aggregate('dev', ['at'], [f])).toThrow('applies dev to at (timestamp); expected first, last, min, max, avg, med or count for a timestamp column');
    expect(() => aggregate('wavg', ['sym', 'at'], [f])).toThrow('applies wavg to sym (symbol)');
    expect(() => aggregate('sum', ['1'], [f])).toThrow('applies sum to a literal; expected a column or a tree over columns');
  });
});

describe('aggregates accumulated across frames (partitions in date order)', () => {
  // The same cells in two frames: day 1 then day 2.
  const day1 = frameOf(
    tableFromRows({ cell: 'int', x: 'float' }, [
      [0, 1],
      [1, null],
      [0, 3],
    ]),
    3,
  );
  const day2 = frameOf(
    tableFromRows({ cell: 'int', x: 'float' }, [
      [1, 10],
      [0, 5],
      [1, 20],
    ]),
    3,
  );

  it('combines into the values of the rows of both frames', () => {
    const got = aggregates(
      { first: ['first', 'x'], last: ['last', 'x'], sum: ['sum', 'x'], count: ['count', 'x'], avg: ['avg', 'x'], min: ['min', 'x'], var: ['var', 'x'], med: ['med', 'x'], wsum: ['wsum', 'x', 'x'] },
      [day1, day2],
    );
    // cell 0: 1, 3, 5 (mean 3, var 8/3); cell 1: 10, 20 (mean 15, var 25); cell 2: nothing
    const want = tableFromRows({ first: 'float', last: 'float', sum: 'float', count: 'long', avg: 'float', min: 'float', var: 'float', med: 'float', wsum: 'float' }, [
      [1, 5, 9, 3, 3, 1, 8 / 3, 3, 35],
      [10, 20, 30, 2, 15, 10, 25, 15, 500],
      [null, null, 0, 0, null, null, null, null, 0],
    ]);
    expectTableEqual(got, want);
  });

  it('does not depend on how rows are cut into frames', () => {
    const whole = frameOf(
      tableFromRows({ cell: 'int', x: 'float' }, [
        [0, 1],
        [1, null],
        [0, 3],
        [1, 10],
        [0, 5],
        [1, 20],
      ]),
      3,
    );
    const specs = { first: ['first', 'x'], last: ['last', 'x'], sum: ['sum', 'x'], sdev: ['sdev', 'x'], max: ['max', 'x'] } as const;
    expectTableEqual(aggregates(specs, [day1, day2]), aggregates(specs, [whole]));
  });
});

describe('aggregates over moving windows (reduce cells combined per output cell)', () => {
  // Reduce cells: 0 holds 1, 3; 1 only a null; 2 holds 5, 7, 9.
  const t = tableFromRows({ cell: 'int', x: 'float' }, [
    [0, 1],
    [0, 3],
    [1, null],
    [2, 5],
    [2, 7],
    [2, 9],
  ]);
  // Output windows over the reduce cells: [0], [0, 1], [1, 2], [0, 1, 2], [1] (no values), [] (no cells).
  const windows = { order: Int32Array.of(0, 1, 2), lo: Int32Array.of(0, 0, 1, 0, 1, 2), hi: Int32Array.of(1, 2, 3, 3, 2, 2) };
  const f = frameOf(t, 3, windows);

  it('sum, count, min, max, first, last, avg', () => {
    const got = aggregates(
      { sum: ['sum', 'x'], count: ['count', 'x'], rows: ['count', '1'], min: ['min', 'x'], max: ['max', 'x'], first: ['first', 'x'], last: ['last', 'x'], avg: ['avg', 'x'] },
      [f],
    );
    const want = tableFromRows({ sum: 'float', count: 'long', rows: 'long', min: 'float', max: 'float', first: 'float', last: 'float', avg: 'float' }, [
      [4, 2, 2, 1, 3, 1, 3, 2],
      [4, 2, 3, 1, 3, 1, 3, 2],
      [21, 3, 4, 5, 9, 5, 9, 7],
      [25, 5, 6, 1, 9, 1, 9, 5],
      [0, 0, 1, null, null, null, null, null],
      [0, 0, 0, null, null, null, null, null],
    ]);
    expectTableEqual(got, want);
  });

  it('var, svar, dev merge the cells’ states exactly', () => {
    const got = aggregates({ var: ['var', 'x'], svar: ['svar', 'x'], dev: ['dev', 'x'] }, [f]);
    // {1,3}: var 1, svar 2; {5,7,9}: var 8/3, svar 4; {1,3,5,7,9}: var 8, svar 10
    const want = tableFromRows({ var: 'float', svar: 'float', dev: 'float' }, [
      [1, 2, 1],
      [1, 2, 1],
      [8 / 3, 4, Math.sqrt(8 / 3)],
      [8, 10, Math.sqrt(8)],
      [null, null, null],
      [null, null, null],
    ]);
    expectTableEqual(got, want);
  });

  it('wavg and wsum', () => {
    const got = aggregates({ wavg: ['wavg', 'x', 'x'], wsum: ['wsum', 'x', 'x'] }, [f]);
    // x weighted by itself: Σx² / Σx
    const want = tableFromRows({ wavg: 'float', wsum: 'float' }, [
      [10 / 4, 10],
      [10 / 4, 10],
      [155 / 21, 155],
      [165 / 25, 165],
      [null, 0],
      [null, 0],
    ]);
    expectTableEqual(got, want);
  });
});
