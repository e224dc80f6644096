// ops/stats/stream.ts: getStats over partitions read in place, each part a frame of its own: groups found
// across parts (runs of one group per part), each selected row's bucket, the (bucket, group) pairs
// present, and the frames whose aggregates accumulate across the parts.
import { describe, expect, it } from 'vitest';
import type { Column } from '../../../../engine/core/column.js';
import { Table } from '../../../../engine/core/table.js';
import type { Frame } from '../../../../engine/ops/stats/aggregates.js';
import { makeBuckets } from '../../../../engine/ops/stats/buckets.js';
import { evaluate } from '../../../../engine/ops/stats/evaluate.js';
import { cellIndex, layoutOf } from '../../../../engine/ops/stats/frames.js';
import { type Part, partBuckets, partFrames, presentPairs, streamGroups, valueKey } from '../../../../engine/ops/stats/stream.js';
import { checkTree } from '../../../../engine/ops/stats/tree.js';
import { columnVec, vecToColumn } from '../../../../engine/ops/stats/vectors.js';
import type { RowSource } from '../../../../engine/storage/row-source.js';
import { expectTableEqual, tableFromRows, ts } from '../../../helpers/table-equal.js';

/** A partition held in memory: a table, with the identifier ranges given (none: unknown). */
function partition(t: Table, idRanges: ReadonlyMap<string, readonly [number, number]> = new Map()): RowSource {
  return { rows: t.length, idRanges, column: (name) => t.col(name) };
}

const schema = { sym: 'symbol', venue: 'symbol', at: 'timestamp', x: 'float' } as const;
const types = new Map<string, Column['type']>(Object.entries(schema));
const day1 = tableFromRows(schema, [
  ['B', 'X', '2024-01-02T09:30:00Z', 1],
  ['B', 'Y', '2024-01-02T09:31:00Z', 2],
  ['A', 'X', '2024-01-02T09:30:30Z', 3],
  ['A', 'X', '2024-01-02T09:32:00Z', 4],
]);
const day2 = tableFromRows(schema, [
  ['C', 'X', '2024-01-03T09:30:00Z', 5],
  ['B', 'X', '2024-01-03T09:31:00Z', 6],
  ['B', 'Y', '2024-01-03T09:33:00Z', 7],
]);
// every row of day 1; rows 0 and 2 of day 2
const parts: Part[] = [
  { source: partition(day1), rows: Int32Array.of(0, 1, 2, 3) },
  { source: partition(day2), rows: Int32Array.of(0, 2) },
];

/** The runs of each part: (part, first position, group). */
function runs(sg: ReturnType<typeof streamGroups>): Table {
  const rows = sg.runs.flatMap((r, p) => Array.from(r.group, (g, j) => [p, r.start[j]!, g] as const));
  return tableFromRows({ part: 'int', start: 'int', group: 'int' }, rows);
}
const runsOf = (rows: ReadonlyArray<readonly [number, number, number]>): Table => tableFromRows({ part: 'int', start: 'int', group: 'int' }, rows);

/** Each entry of a frame: its value of column `x` and its cell. */
function entries(f: Frame): Table {
  const x = columnVec(f.table.col('x'), f.rows);
  if (x.lvl === 'scalar' || x.t !== 'num') throw new Error('x is a float column');
  return new Table(['x', 'cell'], [{ type: 'float', data: x.d }, { type: 'int', data: f.cell.slice(0, f.n) }]);
}
const entriesOf = (rows: ReadonlyArray<readonly [number, number]>): Table => tableFromRows({ x: 'float', cell: 'int' }, rows);

describe('streamGroups', () => {
  it('groups one symbol column by text across parts, as runs per part', () => {
    const sg = streamGroups(parts, ['sym'], types);
    expect(sg.count).toBe(3);
    // B first (day 1 row 0), then A, then C (day 2); the ends of the runs are the parts' row counts
    expectTableEqual(runs(sg), runsOf([[0, 0, 0], [0, 2, 1], [1, 0, 2], [1, 1, 0]]));
    expect(sg.runs.map((r) => r.start[r.start.length - 1])).toEqual([4, 2]);
    expectTableEqual(sg.keys, tableFromRows({ sym: 'symbol' }, [['B'], ['A'], ['C']]));
    expectTableEqual(new Table(['rank'], [{ type: 'int', data: sg.rank }]), tableFromRows({ rank: 'int' }, [[1], [0], [2]]));
  });

  it('with the identifier column, reads its runs from the partition’s identifier ranges', () => {
    // stored by identifier: A rows 0-1, B rows 2-3; rows 1..3 selected
    const byId = tableFromRows(schema, [
      ['A', 'X', '2024-01-02T09:30:00Z', 1],
      ['A', 'X', '2024-01-02T09:31:00Z', 2],
      ['B', 'X', '2024-01-02T09:30:00Z', 3],
      ['B', 'Y', '2024-01-02T09:32:00Z', 4],
    ]);
    const ranges = new Map<string, readonly [number, number]>([
      ['B', [2, 4]],
      ['A', [0, 2]],
    ]);
    const sg = streamGroups([{ source: partition(byId, ranges), rows: Int32Array.of(1, 2, 3) }], ['sym'], types, 'sym');
    expectTableEqual(runs(sg), runsOf([[0, 0, 0], [0, 1, 1]]));
    expectTableEqual(sg.keys, tableFromRows({ sym: 'symbol' }, [['A'], ['B']]));
  });

  it('groups several columns by their values together', () => {
    const sg = streamGroups(parts, ['sym', 'venue'], types);
    // day 1: (B,X) (B,Y) (A,X) (A,X); day 2: (C,X) (B,Y)
    expectTableEqual(runs(sg), runsOf([[0, 0, 0], [0, 1, 1], [0, 2, 2], [1, 0, 3], [1, 1, 1]]));
    expectTableEqual(
      sg.keys,
      tableFromRows({ sym: 'symbol', venue: 'symbol' }, [
        ['B', 'X'],
        ['B', 'Y'],
        ['A', 'X'],
        ['C', 'X'],
      ]),
    );
    expectTableEqual(new Table(['rank'], [{ type: 'int', data: sg.rank }]), tableFromRows({ rank: 'int' }, [[1], [2], [0], [3]]));
  });

  it('no columns: one group of every row, present even when no row is', () => {
    const sg = streamGroups([{ source: partition(day1), rows: new Int32Array(0) }], [], types);
    expect(sg.count).toBe(1);
    expectTableEqual(runs(sg), runsOf([[0, 0, 0]]));
    expect(sg.keys.length).toBe(1);
  });
});

describe('partBuckets and presentPairs', () => {
  const sg = streamGroups(parts, ['sym'], types);

  it('the bucket of each selected row of each part', () => {
    const b = makeBuckets('minute', 1, ts('2024-01-02T09:30:00Z'), ts('2024-01-03T09:33:00Z'), 'UTC');
    const got = partBuckets(parts, 'at', b, (n) => new Int32Array(n));
    // day 2 row 2 (09:33) is at the end of the window
    expect(got.map((a) => [...a])).toEqual([
      [0, 1, 0, 2],
      [1440, -1],
    ]);
  });

  it('refuses a clock that is not a timestamp column', () => {
    const b = makeBuckets('minute', 1, ts('2024-01-02T09:30:00Z'), ts('2024-01-02T09:33:00Z'), 'UTC');
    expect(() => partBuckets(parts, 'x', b, (n) => new Int32Array(n))).toThrow('x is not a timestamp column');
  });

  it('the (bucket, group) pairs present, bucket-major, groups by rank', () => {
    // buckets per row as partBuckets gives them: day 1 B 0, B 1, A 0, A 2; day 2 C 0, B none
    const bucketOf = [Int32Array.of(0, 1, 0, 2), Int32Array.of(0, -1)];
    const got = presentPairs(parts, bucketOf, sg, 3);
    // groups: B 0, A 1, C 2; ranks A < B < C
    expectTableEqual(tableFromRows({ bucket: 'int', group: 'int' }, got), tableFromRows({ bucket: 'int', group: 'int' }, [[0, 1], [0, 0], [0, 2], [1, 0], [2, 1]]));
  });
});

describe('partFrames', () => {
  const sg = streamGroups(parts, ['sym'], types);
  const sumOver = (frames: readonly Frame[]): Table => {
    const node = checkTree(['sum', 'x'], new Set(['x']), 'agg');
    return new Table(['sum'], [vecToColumn(evaluate(node, frames, 'agg', ['sum', 'x']), frames[0]!.out)]);
  };

  it('each kept row in the cell of its (bucket, group); a part of consecutive rows reads views, others its rows', () => {
    const bucketOf = [Int32Array.of(0, 1, 0, 2), Int32Array.of(0, 2)];
    const keys = presentPairs(parts, bucketOf, sg, 3);
    // (0,A) (0,B) (0,C) (1,B) (2,A) (2,B)
    const layout = layoutOf(keys, sg.rank);
    const frames = partFrames(parts, bucketOf, sg, cellIndex(layout, sg.count), { cells: layout.out, out: layout.out }, (n) => new Int32Array(n));
    expect(frames[0]!.rows).toBeUndefined();
    expect([...frames[1]!.rows!]).toEqual([0, 2]);
    expectTableEqual(entries(frames[0]!), entriesOf([[1, 1], [2, 3], [3, 0], [4, 4]]));
    expectTableEqual(entries(frames[1]!), entriesOf([[5, 2], [7, 5]]));
    expectTableEqual(sumOver(frames), tableFromRows({ sum: 'float' }, [[3], [1], [5], [2], [4], [7]]));
  });

  it('drops rows with no cell, keeping a run of consecutive rows as a view', () => {
    const bucketOf = [Int32Array.of(0, 1, 0, 2), Int32Array.of(0, -1)];
    const layout = layoutOf(presentPairs(parts, bucketOf, sg, 3), sg.rank);
    const frames = partFrames(parts, bucketOf, sg, cellIndex(layout, sg.count), { cells: layout.out, out: layout.out }, (n) => new Int32Array(n));
    expect(frames[1]!.n).toBe(1);
    expectTableEqual(entries(frames[1]!), entriesOf([[5, 2]]));
    expectTableEqual(sumOver(frames), tableFromRows({ sum: 'float' }, [[3], [1], [5], [2], [4]]));
  });

  it('without buckets every run takes its group’s cell', () => {
    const layout = layoutOf(
      Array.from({ length: sg.count }, (_, g): [number, number] => [0, g]),
      sg.rank,
    );
    const frames = partFrames(parts, undefined, sg, cellIndex(layout, sg.count), { cells: layout.out, out: layout.out }, (n) => new Int32Array(n));
    // cells by rank: A, B, C
    expectTableEqual(sumOver(frames), tableFromRows({ sum: 'float' }, [[7], [10], [5]]));
  });
});

describe('valueKey', () => {
  it('is the text of a symbol, the exact words of a timestamp, the value of a number', () => {
    const t = tableFromRows({ s: 'symbol', at: 'timestamp', x: 'float', n: 'long', l: 'float[]' }, [['AAPL', '1970-01-01T00:00:04.294967297Z', 1.5, 2 ** 53 + 2, [1]]]);
    expectTableEqual(
      tableFromRows({ key: 'string' }, ['s', 'at', 'x', 'n', 'l'].map((c) => [valueKey(t.col(c), 0)])),
      tableFromRows({ key: 'string' }, [['AAPL'], ['1:1'], ['1.5'], ['9007199254740994'], ['']]),
    );
  });
});
