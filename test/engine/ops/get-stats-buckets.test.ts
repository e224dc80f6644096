/** getStats time buckets, moving windows, racking with fill (SPEC 5.2, 5.3) on hand-checked rows. */
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { csv, makeEngine, payloadRows } from '../../helpers/db.js';

// AAPL a1..a5 (a3 volume null, a4 price null), MSFT m1..m3, minutes from 10:00.
const TRADES = csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [
  ['2024.03.06D10:00:00', 'AAPL', '10', '100'],
  ['2024.03.06D10:00:30', 'AAPL', '12', '200'],
  ['2024.03.06D10:01:10', 'AAPL', '11', ''],
  ['2024.03.06D10:02:59.999999999', 'AAPL', '', '300'],
  ['2024.03.06D10:05:00', 'AAPL', '15', '100'],
  ['2024.03.06D10:00:10', 'MSFT', '100', '10'],
  ['2024.03.06D10:03:00', 'MSFT', '104', '30'],
  ['2024.03.06D10:03:00', 'MSFT', '102', '20'],
]);
const engine = makeEngine({ Trade: TRADES });
const WINDOW = { startTS: '2024.03.06D10:00', endTS: '2024.03.06D10:06' };
const stats = (args: Record<string, unknown>): Array<Record<string, unknown>> =>
  payloadRows(engine, 'getStats', { table: 'Trade', ...WINDOW, ...args });
const at = (hhmm: string): string => `2024-03-06T${hhmm}:00.000000000`;
const rowsOf = (rows: Array<Record<string, unknown>>, keys: string[]): unknown[][] => rows.map((r) => keys.map((k) => r[k]));

describe('time buckets', () => {
  it('labels buckets by their start and orders rows by bucket, then group', () => {
    const got = stats({ granularityUnit: 'minute', agg: { px: ['last', 'price'], v: ['sum', 'volume'], n: ['count', 'i'] } });
    expect(rowsOf(got, ['eventTimestamp', 'instrumentID', 'px', 'v', 'n'])).toEqual([
      [at('10:00'), 'AAPL', 12, 300, 2],
      [at('10:00'), 'MSFT', 100, 10, 1],
      [at('10:01'), 'AAPL', 11, 0, 1],
      [at('10:02'), 'AAPL', null, 300, 1],
      [at('10:03'), 'MSFT', 102, 50, 2],
      [at('10:05'), 'AAPL', 15, 100, 1],
    ]);
  });

  it('sizes buckets by granularity in every unit, and clips the last at endTS', () => {
    const two = stats({ granularity: '2', granularityUnit: 'minute', groupBy: [], agg: { n: ['count', 'i'] } });
    expect(rowsOf(two, ['eventTimestamp', 'n'])).toEqual([[at('10:00'), 4], [at('10:02'), 3], [at('10:04'), 1]]);
    const secs = stats({ granularity: '90', granularityUnit: 'second', groupBy: [], agg: { n: ['count', 'i'] }, endTS: '2024.03.06D10:03' });
    // 10:00:00-10:01:30 holds a1, a2, m1, a3 (10:01:10); 10:01:30-10:03 (clipped) holds a4.
    expect(rowsOf(secs, ['eventTimestamp', 'n'])).toEqual([[at('10:00'), 4], ['2024-03-06T10:01:30.000000000', 1]]);
    const ms = stats({ granularity: '250', granularityUnit: 'millisecond', groupBy: [], agg: { n: ['count', 'i'] }, endTS: '2024.03.06D10:00:01' });
    expect(rowsOf(ms, ['eventTimestamp', 'n'])).toEqual([[at('10:00'), 1]]);
    const hour = stats({ granularityUnit: 'hour', groupBy: [], agg: { n: ['count', 'i'] } });
    expect(rowsOf(hour, ['eventTimestamp', 'n'])).toEqual([[at('10:00'), 8]]);
  });

  it('needs a finite window for buckets', () => {
    expect(() => engine.call('getStats', { table: 'Trade', granularityUnit: 'minute', agg: { n: ['count', 'i'] } })).toThrow(/^granularityUnit: buckets need startTS and endTS/);
  });
});

describe('movingWindowSize', () => {
  const moving = (size: string): unknown[][] =>
    rowsOf(stats({ granularity: '2', granularityUnit: 'minute', movingWindowSize: size, idList: ['AAPL'], agg: { n: ['count', 'i'], v: ['sum', 'volume'], m: ['med', 'price'] } }), ['eventTimestamp', 'n', 'v', 'm']);

  it('equal to granularity: the same values, labelled by bucket end', () => {
    // [10:00,10:02) a1 a2 a3; [10:02,10:04) a4; [10:04,10:06) a5.
    expect(moving('2')).toEqual([[at('10:02'), 3, 300, 11], [at('10:04'), 1, 300, null], [at('10:06'), 1, 100, 15]]);
  });

  it('larger: overlapping earlier buckets, only data inside startTS and endTS', () => {
    // windows [e-4m, e) clipped at 10:00: a1..a3; a1..a4; a4 a5.
    expect(moving('4')).toEqual([[at('10:02'), 3, 300, 11], [at('10:04'), 4, 600, 11], [at('10:06'), 2, 400, 15]]);
  });

  it('smaller: the last part of each bucket', () => {
    // windows [e-1m, e): a3; nothing for AAPL in [10:03,10:04); a5.
    expect(moving('1')).toEqual([[at('10:02'), 1, 0, 11], [at('10:06'), 1, 100, 15]]);
  });

  it('needs granularityUnit', () => {
    expect(() => stats({ movingWindowSize: '2', agg: { n: ['count', 'i'] } })).toThrow(/^movingWindowSize: needs granularityUnit/);
  });
});

describe('racking and fill', () => {
  const racked = (fill: string, extra: Record<string, unknown> = {}): unknown[][] =>
    rowsOf(stats({ granularityUnit: 'minute', fill, agg: { px: ['last', 'price'], n: ['count', 'i'] }, ...extra }), ['eventTimestamp', 'instrumentID', 'px', 'n']);

  it('racks every bucket of every group; empty buckets count 0', () => {
    const got = racked('null');
    expect(got).toHaveLength(12);
    expect(got.filter((r) => r[1] === 'MSFT').map((r) => [r[2], r[3]])).toEqual([[100, 1], [null, 0], [null, 0], [102, 2], [null, 0], [null, 0]]);
  });

  it('fills per group in bucket order: zero, forward, linear (time), linearStep (position)', () => {
    const px = (fill: string, id: string): unknown[] => racked(fill).filter((r) => r[1] === id).map((r) => r[2]);
    expect(px('zero', 'AAPL')).toEqual([12, 11, 0, 0, 0, 15]);
    expect(px('forward', 'AAPL')).toEqual([12, 11, 11, 11, 11, 15]);
    expect(px('forward', 'MSFT')).toEqual([100, 100, 100, 102, 102, 102]);
    // AAPL 11 at 10:01 .. 15 at 10:05; MSFT 100 at 10:00 .. 102 at 10:03, then no later value.
    expect(px('linear', 'AAPL')).toEqual([12, 11, 12, 13, 14, 15]);
    const msft = px('linear', 'MSFT') as number[];
    expect(msft[1]).toBeCloseTo(100 + 2 / 3, 12);
    expect(msft[2]).toBeCloseTo(100 + 4 / 3, 12);
    expect(msft.slice(3)).toEqual([102, null, null]);
    expect(px('linearStep', 'AAPL')).toEqual([12, 11, 12, 13, 14, 15]);
  });

  it('adds idList identifiers that have no rows', () => {
    const got = racked('forward', { idList: ['AAPL', 'IBM', 'MSFT'] });
    expect(got).toHaveLength(18);
    expect(got.slice(0, 3).map((r) => r[1])).toEqual(['AAPL', 'IBM', 'MSFT']);
    expect(got.filter((r) => r[1] === 'IBM').every((r) => r[2] === null && r[3] === 0)).toBe(true);
  });

  it('without buckets racks the groups over the whole window: one row per group, idList ones included', () => {
    const agg = { px: ['last', 'price'], v: ['sum', 'volume'], n: ['count', 'i'] };
    const zero = stats({ fill: 'zero', idList: ['MSFT', 'IBM', 'AAPL'], agg });
    expect(rowsOf(zero, ['instrumentID', 'px', 'v', 'n'])).toEqual([['AAPL', 15, 700, 5], ['IBM', 0, 0, 0], ['MSFT', 102, 60, 3]]);
    const forward = stats({ fill: 'forward', idList: ['IBM', 'AAPL'], agg });
    expect(rowsOf(forward, ['instrumentID', 'px', 'v', 'n'])).toEqual([['AAPL', 15, 700, 5], ['IBM', null, 0, 0]]);
  });
});

describe('day buckets across DST', () => {
  // One trade either side of each New York midnight around the spring change.
  const dst = makeEngine({
    Trade: csv(['eventTimestamp', 'instrumentID', 'price'], [
      ['2024-03-10T04:30:00Z', 'AAPL', '1'],
      ['2024-03-10T05:30:00Z', 'AAPL', '2'],
      ['2024-03-11T03:30:00Z', 'AAPL', '3'],
      ['2024-03-11T04:30:00Z', 'AAPL', '4'],
    ]),
  });
  it('are calendar days of inputTZ (the 23-hour day included)', () => {
    const got = payloadRows(dst, 'getStats', {
      table: 'Trade', startTS: '2024.03.09', endTS: '2024.03.12', inputTZ: 'America/New_York', granularityUnit: 'day', agg: { n: ['count', 'i'], px: ['sum', 'price'] },
    });
    expect(rowsOf(got, ['eventTimestamp', 'n', 'px'])).toEqual([
      ['2024-03-09T05:00:00.000000000', 1, 1],
      ['2024-03-10T05:00:00.000000000', 2, 5],
      ['2024-03-11T04:00:00.000000000', 1, 4],
    ]);
    const local = payloadRows(dst, 'getStats', {
      table: 'Trade', startTS: '2024.03.09', endTS: '2024.03.12', inputTZ: 'America/New_York', outputTZ: 'America/New_York', granularityUnit: 'day', agg: { n: ['count', 'i'] },
    });
    expect(local.map((r) => r['eventTimestamp'])).toEqual(['2024-03-09T00:00:00.000000000', '2024-03-10T00:00:00.000000000', '2024-03-11T00:00:00.000000000']);
  });
});

describe('getStats errors around buckets', () => {
  it('names bad granularity values', () => {
    const err = (args: Record<string, unknown>): string => {
      try {
        engine.call('getStats', { table: 'Trade', ...WINDOW, agg: { n: ['count', 'i'] }, ...args });
      } catch (e) {
        return `${(e as TickscopeError).ac} ${(e as TickscopeError).message}`;
      }
      return '';
    };
    expect(err({ granularity: '0', granularityUnit: 'minute' })).toBe('4 granularity: 0 is not positive; expected an integer >= 1');
    expect(err({ granularityUnit: 'week' })).toBe('5 granularityUnit: "week" is not allowed; expected one of millisecond, second, minute, hour, day');
    expect(err({ granularity: '1', granularityUnit: 'millisecond', fill: 'zero', startTS: '2024.03.02', endTS: '2024.03.07' })).toMatch(/^4 granularity: 1 gives 432000000 buckets × 2 groups, more than 20000000 cells to rack/);
  });
});
