// ops/stats/buckets.ts: bucket boundaries and each time's bucket (INTERFACE 4.2.3, SPEC 5.2). Sub-day
// buckets are fixed durations from startTS; day buckets are calendar days of the zone starting at
// startTS's local time of day (23 or 25 hours across DST); the last bucket is clipped at endTS.
import { describe, expect, it } from 'vitest';
import { int32Pairs } from '../../../../engine/core/column.js';
import { Table } from '../../../../engine/core/table.js';
import { type Buckets, gcd, makeBuckets, type Unit } from '../../../../engine/ops/stats/buckets.js';
import { columnOf, expectTableEqual, tableFromRows, ts } from '../../../helpers/table-equal.js';

/** The nominal boundaries 0 .. count (the last is the end of the last bucket before clipping). */
function boundaries(b: Buckets): Table {
  return new Table(['boundary'], [columnOf('timestamp', Array.from({ length: b.count + 1 }, (_, k) => b.boundary(k)))]);
}

const bounds = (...times: string[]): Table => tableFromRows({ boundary: 'timestamp' }, times.map((t) => [t]));

/** Each time (text) and its bucket, as assign() gives it. */
function assigned(b: Buckets, times: ReadonlyArray<string | null>): Table {
  const at = columnOf('timestamp', times);
  if (at.type !== 'timestamp') throw new Error('timestamp column');
  const out = b.assign(int32Pairs(at.data), undefined, times.length);
  return new Table(['at', 'bucket'], [at, { type: 'int', data: out }]);
}

const expectBuckets = (b: Buckets, rows: ReadonlyArray<readonly [string | null, number]>): void =>
  expectTableEqual(
    assigned(
      b,
      rows.map((r) => r[0]),
    ),
    tableFromRows({ at: 'timestamp', bucket: 'int' }, rows),
  );

const fixed = (unit: Exclude<Unit, 'day'>, g: number, start: string, end: string): Buckets => makeBuckets(unit, g, ts(start), ts(end), 'UTC');

describe('sub-day buckets: fixed durations from startTS', () => {
  it('a window of whole buckets: boundaries, and each time in [start, end) in its bucket', () => {
    const b = fixed('minute', 5, '2024-01-02T09:30:00Z', '2024-01-02T09:45:00Z');
    expect(b.count).toBe(3);
    expectTableEqual(boundaries(b), bounds('2024-01-02T09:30:00Z', '2024-01-02T09:35:00Z', '2024-01-02T09:40:00Z', '2024-01-02T09:45:00Z'));
    expectBuckets(b, [
      ['2024-01-02T09:29:59.999999999Z', -1],
      ['2024-01-02T09:30:00Z', 0],
      ['2024-01-02T09:34:59.999999999Z', 0],
      ['2024-01-02T09:35:00Z', 1],
      ['2024-01-02T09:40:00.000000001Z', 2],
      ['2024-01-02T09:44:59.999999999Z', 2],
      ['2024-01-02T09:45:00Z', -1],
      [null, -1],
    ]);
  });

  it('a window not aligned to the unit: buckets start at startTS, the last is clipped at endTS', () => {
    const b = fixed('minute', 5, '2024-01-02T09:31:30Z', '2024-01-02T09:45:00Z');
    // 13.5 minutes: two whole buckets and a half one; its label stays nominal
    expect(b.count).toBe(3);
    expectTableEqual(boundaries(b), bounds('2024-01-02T09:31:30Z', '2024-01-02T09:36:30Z', '2024-01-02T09:41:30Z', '2024-01-02T09:46:30Z'));
    expectBuckets(b, [
      ['2024-01-02T09:31:29.999999999Z', -1],
      ['2024-01-02T09:31:30Z', 0],
      ['2024-01-02T09:36:29.999999999Z', 0],
      ['2024-01-02T09:36:30Z', 1],
      ['2024-01-02T09:41:30Z', 2],
      ['2024-01-02T09:44:59.999999999Z', 2],
    ]);
  });

  // Buckets.assign gives -1 outside [start, end) on every path: the fast one (sub-day units over a
  // window under 2^53 ns) once checked only `k >= count`, giving a time at or after endTS the clipped
  // last bucket (getStats selects rows inside the window first, which hid it there).
  it('a time at or after endTS is in no bucket, even before the clipped last bucket’s nominal end', () => {
    const b = fixed('minute', 5, '2024-01-02T09:31:30Z', '2024-01-02T09:45:00Z');
    expectBuckets(b, [
      ['2024-01-02T09:45:00Z', -1],
      ['2024-01-02T09:46:29.999999999Z', -1],
    ]);
    // the same in hours: 09:00-16:00 in two-hour buckets, the last clipped to 15:00-16:00
    expectBuckets(fixed('hour', 2, '2024-01-02T09:00:00Z', '2024-01-02T16:00:00Z'), [['2024-01-02T16:00:00Z', -1]]);
  });

  it('over a window longer than 2^53 ns, a time after a clipped endTS is in no bucket', () => {
    // the exact path of the same kernel: what the fast path above should agree with
    const b = fixed('hour', 24, '2024-01-01T00:00:00Z', '2024-12-31T12:00:00Z');
    expect(b.count).toBe(366);
    expectBuckets(b, [
      ['2024-12-31T11:59:59.999999999Z', 365],
      ['2024-12-31T12:00:00Z', -1],
      ['2024-12-31T13:00:00Z', -1],
    ]);
  });

  it('milliseconds, seconds and hours, to the nanosecond', () => {
    const ms = fixed('millisecond', 250, '2024-01-02T09:30:00.1Z', '2024-01-02T09:30:01Z');
    expect(ms.count).toBe(4);
    expectTableEqual(boundaries(ms), bounds('2024-01-02T09:30:00.1Z', '2024-01-02T09:30:00.35Z', '2024-01-02T09:30:00.6Z', '2024-01-02T09:30:00.85Z', '2024-01-02T09:30:01.1Z'));
    expectBuckets(ms, [
      ['2024-01-02T09:30:00.349999999Z', 0],
      ['2024-01-02T09:30:00.35Z', 1],
      ['2024-01-02T09:30:00.999999999Z', 3],
    ]);
    const s = fixed('second', 1, '2024-01-02T09:30:00Z', '2024-01-02T09:30:03Z');
    expect(s.count).toBe(3);
    expectBuckets(s, [
      ['2024-01-02T09:30:00.999999999Z', 0],
      ['2024-01-02T09:30:01Z', 1],
      ['2024-01-02T09:30:02.5Z', 2],
    ]);
    const h = fixed('hour', 2, '2024-01-02T09:00:00Z', '2024-01-02T16:00:00Z');
    expect(h.count).toBe(4);
    expectTableEqual(boundaries(h), bounds('2024-01-02T09:00:00Z', '2024-01-02T11:00:00Z', '2024-01-02T13:00:00Z', '2024-01-02T15:00:00Z', '2024-01-02T17:00:00Z'));
    expectBuckets(h, [
      ['2024-01-02T10:59:59.999999999Z', 0],
      ['2024-01-02T15:59:59.999999999Z', 3],
    ]);
  });

  it('sub-day buckets ignore the zone: fixed durations also across a DST change', () => {
    // New York's clocks go forward at 2024-03-10 07:00Z; hours stay 60 minutes long
    const b = makeBuckets('hour', 1, ts('2024-03-10T05:30:00Z'), ts('2024-03-10T09:30:00Z'), 'America/New_York');
    expectTableEqual(boundaries(b), bounds('2024-03-10T05:30:00Z', '2024-03-10T06:30:00Z', '2024-03-10T07:30:00Z', '2024-03-10T08:30:00Z', '2024-03-10T09:30:00Z'));
  });

  it('a window longer than 2^53 ns (exact arithmetic) gives the same buckets', () => {
    // 2024 is a leap year: 366 day-long buckets; 1 June is day 152
    const b = fixed('hour', 24, '2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
    expect(b.count).toBe(366);
    expect(b.boundary(152)).toBe(ts('2024-06-01T00:00:00Z'));
    expectBuckets(b, [
      ['2023-12-31T23:59:59.999999999Z', -1],
      ['2024-01-01T00:00:00Z', 0],
      ['2024-06-01T12:34:56.000000001Z', 152],
      ['2024-12-31T23:59:59.999999999Z', 365],
      ['2025-01-01T00:00:00Z', -1],
    ]);
  });

  it('reads rows through an index, and writes into a given array', () => {
    const b = fixed('second', 10, '2024-01-02T09:30:00Z', '2024-01-02T09:31:00Z');
    const at = columnOf('timestamp', ['2024-01-02T09:30:05Z', '2024-01-02T09:30:15Z', '2024-01-02T09:30:55Z', '2024-01-02T09:29:00Z']);
    if (at.type !== 'timestamp') throw new Error('timestamp column');
    const into = new Int32Array(3).fill(99);
    const out = b.assign(int32Pairs(at.data), Int32Array.of(2, 0, 3), 3, into);
    expect(out).toBe(into);
    expectTableEqual(new Table(['bucket'], [{ type: 'int', data: out }]), tableFromRows({ bucket: 'int' }, [[5], [0], [-1]]));
  });
});

describe('day buckets: calendar days of the zone from startTS’s local time of day', () => {
  it('UTC: whole days from 09:30, the last clipped at endTS', () => {
    const b = makeBuckets('day', 1, ts('2024-01-02T09:30:00Z'), ts('2024-01-05T00:00:00Z'), 'UTC');
    expect(b.count).toBe(3);
    expectTableEqual(boundaries(b), bounds('2024-01-02T09:30:00Z', '2024-01-03T09:30:00Z', '2024-01-04T09:30:00Z', '2024-01-05T09:30:00Z'));
    expectBuckets(b, [
      ['2024-01-02T09:29:59.999999999Z', -1],
      ['2024-01-03T09:29:59.999999999Z', 0],
      ['2024-01-03T09:30:00Z', 1],
      ['2024-01-04T23:59:59.999999999Z', 2],
      ['2024-01-05T00:00:00Z', -1],
      ['2024-01-05T09:30:00Z', -1],
    ]);
  });

  it('granularity 2: two-day buckets', () => {
    const b = makeBuckets('day', 2, ts('2024-01-01T00:00:00Z'), ts('2024-01-06T00:00:00Z'), 'UTC');
    expect(b.count).toBe(3);
    expectTableEqual(boundaries(b), bounds('2024-01-01T00:00:00Z', '2024-01-03T00:00:00Z', '2024-01-05T00:00:00Z', '2024-01-07T00:00:00Z'));
    expectBuckets(b, [
      ['2024-01-02T23:59:59.999999999Z', 0],
      ['2024-01-03T00:00:00Z', 1],
      ['2024-01-05T12:00:00Z', 2],
    ]);
  });

  it('a day with the clocks going forward is 23 hours long (New York, 2024-03-10)', () => {
    // 09:30 EST is 14:30Z; from 10 March 09:30 is EDT, 13:30Z
    const b = makeBuckets('day', 1, ts('2024-03-09T14:30:00Z'), ts('2024-03-12T13:30:00Z'), 'America/New_York');
    expect(b.count).toBe(3);
    expectTableEqual(boundaries(b), bounds('2024-03-09T14:30:00Z', '2024-03-10T13:30:00Z', '2024-03-11T13:30:00Z', '2024-03-12T13:30:00Z'));
    expectBuckets(b, [
      ['2024-03-10T13:29:59.999999999Z', 0],
      // 23 hours after the start: a fixed 24-hour day would still say bucket 0
      ['2024-03-10T14:00:00Z', 1],
      ['2024-03-12T13:29:59.999999999Z', 2],
      ['2024-03-12T13:30:00Z', -1],
    ]);
  });

  it('a day with the clocks going back is 25 hours long (New York, 2024-11-03)', () => {
    const b = makeBuckets('day', 1, ts('2024-11-02T13:30:00Z'), ts('2024-11-05T14:30:00Z'), 'America/New_York');
    expect(b.count).toBe(3);
    expectTableEqual(boundaries(b), bounds('2024-11-02T13:30:00Z', '2024-11-03T14:30:00Z', '2024-11-04T14:30:00Z', '2024-11-05T14:30:00Z'));
    expectBuckets(b, [
      // 24.5 hours after the start: still the first (25-hour) day
      ['2024-11-03T14:00:00Z', 0],
      ['2024-11-03T14:30:00Z', 1],
    ]);
  });

  it('a start time of day that does not exist on a DST day moves forward by the gap', () => {
    // 02:30 local: on 10 March it does not exist and is read as 03:30 EDT (07:30Z), as SPEC 4 says
    const b = makeBuckets('day', 1, ts('2024-03-09T07:30:00Z'), ts('2024-03-11T12:00:00Z'), 'America/New_York');
    expect(b.count).toBe(3);
    expectTableEqual(boundaries(b), bounds('2024-03-09T07:30:00Z', '2024-03-10T07:30:00Z', '2024-03-11T06:30:00Z', '2024-03-12T06:30:00Z'));
  });

  it('more than 200000 day buckets is an error naming granularity', () => {
    // the whole int64 range of timestamps holds ~213000 days
    expect(() => makeBuckets('day', 1, ts('1678-01-01T00:00:00Z'), ts('2262-01-01T00:00:00Z'), 'UTC')).toThrow(
      'granularity: 1 makes more than 200000 day buckets; expected a shorter window or a larger granularity',
    );
    expect(makeBuckets('day', 2, ts('1678-01-01T00:00:00Z'), ts('2262-01-01T00:00:00Z'), 'UTC').count).toBe(106_651);
  });
});

describe('gcd', () => {
  it('is the greatest common divisor (moving-window atoms)', () => {
    expectTableEqual(
      tableFromRows(
        { a: 'long', b: 'long', gcd: 'long' },
        [
          [12, 18],
          [18, 12],
          [7, 3],
          [5, 5],
          [60, 1],
          [1, 60],
        ].map(([a, b]) => [a!, b!, gcd(a!, b!)]),
      ),
      tableFromRows({ a: 'long', b: 'long', gcd: 'long' }, [
        [12, 18, 6],
        [18, 12, 6],
        [7, 3, 1],
        [5, 5, 5],
        [60, 1, 1],
        [1, 60, 1],
      ]),
    );
  });
});
