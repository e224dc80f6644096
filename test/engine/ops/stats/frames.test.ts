// ops/stats/frames.ts: output cells (bucket, group) in output order, the plain frame, and moving windows
// (INTERFACE 4.2.4, SPEC 5.2): bucket k's value aggregates the atoms [(k+1)·perBucket - perWindow,
// (k+1)·perBucket) of its group, combined from per-atom states or listed row by row.
import { describe, expect, it } from 'vitest';
import { Table } from '../../../../engine/core/table.js';
import type { Frame } from '../../../../engine/ops/stats/aggregates.js';
import { evaluate } from '../../../../engine/ops/stats/evaluate.js';
import { atomCells, cellIndex, type Layout, layoutOf, movingFrames, plainFrame, presentKeys, windowRanges } from '../../../../engine/ops/stats/frames.js';
import { checkTree } from '../../../../engine/ops/stats/tree.js';
import { vecToColumn } from '../../../../engine/ops/stats/vectors.js';
import { expectTableEqual, tableFromRows } from '../../../helpers/table-equal.js';

const ints = (...v: number[]): Int32Array => Int32Array.from(v);
const layoutTable = (l: Layout): Table =>
  new Table(
    ['bucket', 'group'],
    [
      { type: 'int', data: l.bucket },
      { type: 'int', data: l.group },
    ],
  );
const pairs = (keys: ReadonlyArray<readonly [number, number]>): Table => tableFromRows({ bucket: 'int', group: 'int' }, keys);
/** A frame's entries: the table row and the cell of each. */
const entries = (f: Frame): Table =>
  new Table(
    ['row', 'cell'],
    [
      { type: 'int', data: f.rows ?? Int32Array.from({ length: f.n }, (_, i) => i) },
      { type: 'int', data: f.cell },
    ],
  );
const entriesOf = (rows: ReadonlyArray<readonly [number, number]>): Table => tableFromRows({ row: 'int', cell: 'int' }, rows);

/** Trees evaluated over one frame, as a table. */
function values(frame: Frame, trees: Readonly<Record<string, unknown>>): Table {
  const t = frame.table as Table;
  const names = Object.keys(trees);
  return new Table(
    names,
    names.map((n) => vecToColumn(evaluate(checkTree(trees[n], new Set(t.names), n), [frame], n, trees[n]), frame.out)),
  );
}

describe('output cells', () => {
  it('keys already in output order are kept', () => {
    const l = layoutOf(
      [
        [0, 1],
        [0, 0],
        [2, 1],
      ],
      ints(1, 0),
    );
    expectTableEqual(layoutTable(l), pairs([[0, 1], [0, 0], [2, 1]]));
  });

  it('other keys are ordered by bucket, then group rank', () => {
    // group 1 ranks before group 0
    const l = layoutOf(
      [
        [1, 0],
        [0, 0],
        [1, 1],
        [0, 1],
      ],
      ints(1, 0),
    );
    expect(l.out).toBe(4);
    expectTableEqual(layoutTable(l), pairs([[0, 1], [0, 0], [1, 1], [1, 0]]));
  });

  it('the (bucket, group) pairs rows fall in, each once, bucket-major; rows outside every bucket fall in none', () => {
    expectTableEqual(pairs(presentKeys(ints(2, 0, -1, 2, 0, 1), ints(1, 0, 1, 1, 1, 0), 2)), pairs([[0, 0], [0, 1], [1, 0], [2, 1]]));
    expectTableEqual(pairs(presentKeys(ints(-1, -1), ints(0, 0), 1)), pairs([]));
  });

  it('cellIndex finds the output cell of a (bucket, group), -1 where there is none', () => {
    const l = layoutOf([[0, 1], [0, 0], [2, 1]], ints(1, 0));
    const index = cellIndex(l, 2);
    const probes: Array<[number, number]> = [[0, 0], [0, 1], [1, 0], [2, 1], [2, 0], [3, 1], [-1, 0]];
    expectTableEqual(
      tableFromRows({ bucket: 'int', group: 'int', cell: 'int' }, probes.map(([b, g]) => [b, g, index(b, g)])),
      tableFromRows({ bucket: 'int', group: 'int', cell: 'int' }, [
        [0, 0, 1],
        [0, 1, 0],
        [1, 0, -1],
        [2, 1, 2],
        [2, 0, -1],
        [3, 1, -1],
        [-1, 0, -1],
      ]),
    );
  });
});

describe('the plain frame', () => {
  const t = tableFromRows({ x: 'float' }, [[1], [2], [4], [8], [16]]);
  const bucketOf = ints(0, 1, -1, 0, 1);
  const groupOf = ints(0, 0, 0, 1, 1);

  it('puts each row in the cell of its bucket and group, and drops rows outside every bucket', () => {
    const layout = layoutOf(presentKeys(bucketOf, groupOf, 2), ints(0, 1));
    expectTableEqual(layoutTable(layout), pairs([[0, 0], [0, 1], [1, 0], [1, 1]]));
    const f = plainFrame(t, layout, bucketOf, groupOf, 2);
    expect([f.n, f.cells, f.out]).toEqual([4, 4, 4]);
    expectTableEqual(entries(f), entriesOf([[0, 0], [1, 2], [3, 1], [4, 3]]));
    expectTableEqual(values(f, { sum: ['sum', 'x'] }), tableFromRows({ sum: 'float' }, [[1], [8], [2], [16]]));
  });

  it('reads every row in place when none is dropped', () => {
    const all = ints(0, 0, 1, 1, 1);
    const layout = layoutOf(presentKeys(all, groupOf, 2), ints(0, 1));
    const f = plainFrame(t, layout, all, groupOf, 2);
    expect(f.rows).toBeUndefined();
    expectTableEqual(entries(f), entriesOf([[0, 0], [1, 0], [2, 1], [3, 2], [4, 2]]));
  });

  it('a row whose (bucket, group) is not an output cell is dropped (a bucket removed by a calendar)', () => {
    const layout = layoutOf([[0, 0], [1, 1]], ints(0, 1));
    const f = plainFrame(t, layout, bucketOf, groupOf, 2);
    expectTableEqual(entries(f), entriesOf([[0, 0], [4, 1]]));
  });
});

describe('moving windows', () => {
  // Granularity 2, window 3: atoms of gcd 1, two to a bucket, three to a window; bucket k covers atoms
  // [2k - 1, 2k + 2): bucket 0 atoms 0, 1; bucket 1 atoms 1, 2, 3; bucket 2 atoms 3, 4, 5.
  const t = tableFromRows({ x: 'float' }, [[1], [10], [2], [4], [20], [8], [100]]);
  //                   row:  0  1  2  3  4  5   6
  const atomOf = ints(0, 0, 1, 2, 3, 5, -1);
  const groupOf = ints(0, 1, 0, 0, 1, 0, 0);
  const every: Array<[number, number]> = [
    [0, 0],
    [0, 1],
    [1, 0],
    [1, 1],
    [2, 0],
    [2, 1],
  ];
  const layout = layoutOf(every, ints(0, 1));

  it('atom cells: the (atom, group) pairs present, ordered by group then atom', () => {
    const atoms = atomCells(presentKeys(atomOf, groupOf, 2), 2);
    expectTableEqual(pairs(atoms.keys), pairs([[0, 0], [1, 0], [2, 0], [5, 0], [0, 1], [3, 1]]));
    expect([atoms.cellOf(2, 0), atoms.cellOf(3, 1), atoms.cellOf(3, 0), atoms.cellOf(9, 0)]).toEqual([2, 5, -1, -1]);
  });

  it('each output cell’s window is a range of its group’s atom cells', () => {
    const atoms = atomCells(presentKeys(atomOf, groupOf, 2), 2);
    const w = windowRanges(atoms, layout, 2, 2, 3);
    expectTableEqual(
      new Table(
        ['lo', 'hi'],
        [
          { type: 'int', data: w.lo },
          { type: 'int', data: w.hi },
        ],
      ),
      // (0,g0): atoms 0, 1 -> cells 0, 1; (0,g1): atom 0 -> cell 4; (1,g0): atoms 1, 2 -> cells 1, 2;
      // (1,g1): atom 3 -> cell 5; (2,g0): atom 5 -> cell 3; (2,g1): atom 3 -> cell 5
      tableFromRows({ lo: 'int', hi: 'int' }, [
        [0, 2],
        [4, 5],
        [1, 3],
        [5, 6],
        [3, 4],
        [5, 6],
      ]),
    );
  });

  it('combined: each row read once into its atom cell; windows combine the cells', () => {
    const { combined } = movingFrames(t, layout, atomOf, groupOf, 2, 2, 3);
    expect([combined.n, combined.cells, combined.out]).toEqual([6, 6, 6]);
    // row 6 is in no atom
    expectTableEqual(entries(combined), entriesOf([[0, 0], [1, 4], [2, 1], [3, 2], [4, 5], [5, 3]]));
    expectTableEqual(
      values(combined, { sum: ['sum', 'x'], count: ['count', 'i'], max: ['max', 'x'], first: ['first', 'x'], last: ['last', 'x'] }),
      tableFromRows({ sum: 'float', count: 'long', max: 'float', first: 'float', last: 'float' }, [
        [3, 2, 2, 1, 2],
        [10, 1, 10, 10, 10],
        [6, 2, 4, 2, 4],
        [20, 1, 20, 20, 20],
        [8, 1, 8, 8, 8],
        [20, 1, 20, 20, 20],
      ]),
    );
  });

  it('expanded: each window lists its rows, in time order, for trees that do not combine', () => {
    const { expanded } = movingFrames(t, layout, atomOf, groupOf, 2, 2, 3);
    const f = expanded();
    expect(f.windows).toBeUndefined();
    expectTableEqual(entries(f), entriesOf([[0, 0], [2, 0], [1, 1], [2, 2], [3, 2], [4, 3], [5, 4], [4, 5]]));
    expectTableEqual(
      values(f, { med: ['med', 'x'], distinct: ['count', ['distinct', 'x']], deltas: ['sum', ['deltas', 'x']] }),
      tableFromRows({ med: 'float', distinct: 'long', deltas: 'float' }, [
        [1.5, 2, 2],
        [10, 1, 10],
        [3, 2, 4],
        [20, 1, 20],
        [8, 1, 8],
        [20, 1, 20],
      ]),
    );
  });

  it('a window smaller than the bucket covers only its last atoms', () => {
    // window 1: bucket k covers atom 2k + 1 only
    const { combined } = movingFrames(t, layout, atomOf, groupOf, 2, 2, 1);
    expectTableEqual(values(combined, { sum: ['sum', 'x'], count: ['count', 'x'] }), tableFromRows({ sum: 'float', count: 'long' }, [[2], [0], [0], [20], [8], [0]].map(([s]) => [s!, s ? 1 : 0])));
  });

  it('a window equal to the bucket gives the plain buckets’ values', () => {
    // granularity 2 = window 2: atoms 2k, 2k + 1
    const { combined } = movingFrames(t, layout, atomOf, groupOf, 2, 2, 2);
    expectTableEqual(values(combined, { sum: ['sum', 'x'] }), tableFromRows({ sum: 'float' }, [[3], [10], [4], [20], [8], [0]]));
  });
});
