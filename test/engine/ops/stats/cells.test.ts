// ops/stats/cells.ts: the cells of a getStats query and their values, by the gathered path and the
// streamed path, on one tiny partition (SPEC 5.2, 5.3): buckets holding rows, racking (every bucket ×
// every group, idList identifiers without rows included; empty cells count 0, sum 0, else null),
// slices, moving windows, and which plans may stream.
import { afterEach, describe, expect, it } from 'vitest';
import { Table } from '../../../../engine/core/table.js';
import { makeBuckets } from '../../../../engine/ops/stats/buckets.js';
import { canStream, type Cells, gatheredCells, type Output, type StatsPlan, statsPaths, streamedCells } from '../../../../engine/ops/stats/cells.js';
import { checkTree } from '../../../../engine/ops/stats/tree.js';
import type { Selection } from '../../../../engine/ops/select/select.js';
import type { RowSource } from '../../../../engine/storage/row-source.js';
import type { TableSchema } from '../../../../engine/storage/schema.js';
import type { Source } from '../../../../engine/storage/source.js';
import { expectTableEqual, tableFromRows, ts } from '../../../helpers/table-equal.js';

const schema: TableSchema = {
  name: 'T',
  kind: 'partitioned',
  timeColumn: 'at',
  idColumn: 'sym',
  foreignKeys: {},
  columns: [
    { name: 'at', type: 'timestamp' },
    { name: 'sym', type: 'symbol' },
    { name: 'x', type: 'float' },
  ],
};

// One day, stored by identifier then time (A rows 0-1, B rows 2-3), as a partition holds it.
const day = tableFromRows({ at: 'timestamp', sym: 'symbol', x: 'float' }, [
  ['2024-01-02T09:30:10Z', 'A', 1],
  ['2024-01-02T09:31:20Z', 'A', 2],
  ['2024-01-02T09:30:40Z', 'B', 3],
  ['2024-01-02T09:32:30Z', 'B', 4],
]);
const partition: RowSource = {
  rows: day.length,
  idRanges: new Map<string, readonly [number, number]>([
    ['A', [0, 2]],
    ['B', [2, 4]],
  ]),
  column: (name) => day.col(name),
};
const start = ts('2024-01-02T09:30:00Z');
const end = ts('2024-01-02T09:33:00Z');
const selection = (ranges: ReadonlyArray<readonly [bigint, bigint]> = [[start, end]]): Selection => ({ parts: [{ source: partition, rows: Int32Array.of(0, 1, 2, 3) }], ordered: true, ranges });

const outputsOf = (trees: Readonly<Record<string, unknown>>): Output[] =>
  Object.entries(trees).map(([name, tree]) => ({ name, node: checkTree(tree, new Set(['at', 'sym', 'x']), name), arg: name, tree }));

/** A plan over the day: one-minute buckets from 09:30 to 09:33, grouped by sym. */
function plan(over: Partial<StatsPlan> = {}): StatsPlan {
  return {
    // the source is read only for holiday calendars, which these plans do not use
    db: {} as unknown as Source,
    t: schema,
    outputs: outputsOf({ sum: ['sum', 'x'], rows: ['count', 'i'], last: ['last', 'x'] }),
    groupCols: ['sym'],
    refs: [],
    instrumentRef: undefined,
    orderbook: undefined,
    levelColumns: [],
    clock: 'at',
    buckets: makeBuckets('minute', 1, start, end, 'UTC'),
    atoms: undefined,
    perBucket: 1,
    perWindow: 1,
    racking: false,
    holidays: undefined,
    idList: undefined,
    inputTZ: 'UTC',
    sliced: false,
    needsOrder: false,
    granularity: 1,
    ...over,
  };
}

/** Cells as a result table: bucket, the group key, then each output. */
function cellsTable(c: Cells, names: readonly string[]): Table {
  const keys = c.keys.take(c.layout.group);
  return new Table(
    ['bucket', ...keys.names, ...names],
    [{ type: 'int', data: c.layout.bucket }, ...keys.columns, ...names.map((n) => c.values.get(n)!)],
  );
}

/** Both paths' cells of a plan, which must agree; the gathered one is returned. */
function bothPaths(p: StatsPlan, sel: Selection, names: readonly string[]): Table {
  const gathered = cellsTable(gatheredCells(p, sel, ['at', 'sym', 'x']), names);
  expectTableEqual(cellsTable(streamedCells(p, sel), names), gathered);
  return gathered;
}

const result = { bucket: 'int', sym: 'symbol', sum: 'float', rows: 'long', last: 'float' } as const;

describe('cells of buckets holding rows', () => {
  it('one cell per (bucket, group) with rows, by bucket then group', () => {
    expectTableEqual(
      bothPaths(plan(), selection(), ['sum', 'rows', 'last']),
      tableFromRows(result, [
        [0, 'A', 1, 1, 1],
        [0, 'B', 3, 1, 3],
        [1, 'A', 2, 1, 2],
        [2, 'B', 4, 1, 4],
      ]),
    );
  });

  it('without buckets, one cell per group', () => {
    expectTableEqual(
      bothPaths(plan({ buckets: undefined }), selection(), ['sum', 'rows', 'last']),
      tableFromRows(result, [
        [0, 'A', 3, 2, 2],
        [0, 'B', 7, 2, 4],
      ]),
    );
  });

  it('without groups, one cell per bucket', () => {
    const c = gatheredCells(plan({ groupCols: [] }), selection(), ['at', 'x']);
    expect(c.groupCount).toBe(1);
    expectTableEqual(
      cellsTable(c, ['sum', 'rows']),
      tableFromRows({ bucket: 'int', sum: 'float', rows: 'long' }, [
        [0, 4, 2],
        [1, 2, 1],
        [2, 4, 1],
      ]),
    );
  });
});

describe('racking', () => {
  it('every bucket × every group, idList identifiers without rows included; empty cells count 0, sum 0, else null', () => {
    expectTableEqual(
      bothPaths(plan({ racking: true, idList: ['C', 'A', 'B'] }), selection(), ['sum', 'rows', 'last']),
      tableFromRows(result, [
        [0, 'A', 1, 1, 1],
        [0, 'B', 3, 1, 3],
        [0, 'C', 0, 0, null],
        [1, 'A', 2, 1, 2],
        [1, 'B', 0, 0, null],
        [1, 'C', 0, 0, null],
        [2, 'A', 0, 0, null],
        [2, 'B', 4, 1, 4],
        [2, 'C', 0, 0, null],
      ]),
    );
  });

  it('with slices, only buckets that meet a slice exist', () => {
    // slices 09:30-09:31 and 09:32-09:33: the bucket of 09:31 meets neither
    const sel = selection([
      [start, ts('2024-01-02T09:31:00Z')],
      [ts('2024-01-02T09:32:00Z'), end],
    ]);
    expectTableEqual(
      bothPaths(plan({ racking: true, sliced: true }), sel, ['sum', 'rows', 'last']),
      tableFromRows(result, [
        [0, 'A', 1, 1, 1],
        [0, 'B', 3, 1, 3],
        [2, 'A', 0, 0, null],
        [2, 'B', 4, 1, 4],
      ]),
    );
  });
});

describe('holiday calendars', () => {
  // Day buckets from Saturday 30 December 2023 to Wednesday 3 January 2024: Sat, Sun, Mon 1 January
  // (an XNYS holiday), Tue 2 January (the day's rows).
  const cal = tableFromRows({ exchangeID: 'symbol', date: 'date' }, [['XNYS', '2024-01-01']]);
  const db: Pick<Source, 'name' | 'reference'> & { schema: { tables: Map<string, unknown> }; config: { weekendDays: number[] } } = {
    name: 'demo',
    schema: { tables: new Map([['ExchangeHolidayCal', {}]]) },
    reference: () => ({ rows: cal.length, idRanges: new Map(), column: (name: string) => cal.col(name) }),
    config: { weekendDays: [0, 6] },
  };
  const from = ts('2023-12-30T00:00:00Z');
  const to = ts('2024-01-03T00:00:00Z');
  const daily = (over: Partial<StatsPlan>): StatsPlan => plan({ db: db as unknown as Source, buckets: makeBuckets('day', 1, from, to, 'UTC'), racking: true, ...over });

  it('racked without a calendar: every day × every group', () => {
    const got = bothPaths(daily({}), selection([[from, to]]), ['sum', 'rows', 'last']);
    expect(got.length).toBe(8);
  });

  it('weekend days and the exchange’s holidays are removed, even racked', () => {
    expectTableEqual(
      bothPaths(daily({ holidays: { kind: 'exchange', exchange: 'XNYS' } }), selection([[from, to]]), ['sum', 'rows', 'last']),
      tableFromRows(result, [
        [3, 'A', 3, 2, 2],
        [3, 'B', 7, 2, 4],
      ]),
    );
  });
});

describe('moving windows', () => {
  // Two-minute buckets from 09:30 to 09:34 with a three-minute window: atoms of one minute, two to a
  // bucket; bucket 0 covers 09:30-09:32, bucket 1 covers 09:31-09:34.
  const moving = (trees: Readonly<Record<string, unknown>>): StatsPlan =>
    plan({
      outputs: outputsOf(trees),
      buckets: makeBuckets('minute', 2, start, ts('2024-01-02T09:34:00Z'), 'UTC'),
      atoms: makeBuckets('minute', 1, start, ts('2024-01-02T09:34:00Z'), 'UTC'),
      perBucket: 2,
      perWindow: 3,
      granularity: 2,
    });

  it('each bucket aggregates the rows of its window, on both paths', () => {
    expectTableEqual(
      bothPaths(moving({ sum: ['sum', 'x'], rows: ['count', 'i'] }), selection([[start, ts('2024-01-02T09:34:00Z')]]), ['sum', 'rows']),
      tableFromRows({ bucket: 'int', sym: 'symbol', sum: 'float', rows: 'long' }, [
        [0, 'A', 3, 2],
        [0, 'B', 3, 1],
        [1, 'A', 2, 1],
        [1, 'B', 4, 1],
      ]),
    );
  });

  it('trees that do not combine read each window’s rows (gathered path only)', () => {
    const p = moving({ med: ['med', 'x'], n: ['count', ['distinct', 'x']] });
    const sel = selection([[start, ts('2024-01-02T09:34:00Z')]]);
    expect(canStream(p, sel)).toBe(false);
    expectTableEqual(
      cellsTable(gatheredCells(p, sel, ['at', 'sym', 'x']), ['med', 'n']),
      tableFromRows({ bucket: 'int', sym: 'symbol', med: 'float', n: 'long' }, [
        [0, 'A', 1.5, 2],
        [0, 'B', 3, 1],
        [1, 'A', 2, 1],
        [1, 'B', 4, 1],
      ]),
    );
  });
});

describe('canStream', () => {
  afterEach(() => {
    statsPaths.stream = true;
  });

  it('streams only combinable trees over partitions, in no cross-identifier order, without refs, snapshots or per-group calendars', () => {
    const sel = selection();
    const cases: Array<[string, StatsPlan, Selection]> = [
      ['plain', plan(), sel],
      ['med', plan({ outputs: outputsOf({ m: ['med', 'x'] }) }), sel],
      ['deltas', plan({ outputs: outputsOf({ d: ['sum', ['deltas', 'x']] }) }), sel],
      ['needsOrder', plan({ needsOrder: true }), sel],
      ['snapshots', plan({ orderbook: 'plotOrderbookSnapshots' }), sel],
      ['perGroup calendar', plan({ holidays: { kind: 'perGroup' } }), sel],
      ['one exchange calendar', plan({ holidays: { kind: 'exchange', exchange: 'XNYS' } }), sel],
      ['no partitions', plan(), { ...sel, parts: [] }],
    ];
    const got = tableFromRows(
      { plan: 'string', streams: 'boolean' },
      cases.map(([name, p, s]) => [name, canStream(p, s)]),
    );
    expectTableEqual(
      got,
      tableFromRows({ plan: 'string', streams: 'boolean' }, [
        ['plain', true],
        ['med', false],
        ['deltas', false],
        ['needsOrder', false],
        ['snapshots', false],
        ['perGroup calendar', false],
        ['one exchange calendar', true],
        ['no partitions', false],
      ]),
    );
    statsPaths.stream = false;
    expect(canStream(plan(), sel)).toBe(false);
  });
});
