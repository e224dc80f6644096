/**
 * getStats results as chart series: tiny results built with the engine's own Arrow writer, read as
 * the app reads them (tableFromIPC), give slots, groups and aligned values.
 */
import { describe, expect, it } from 'vitest';
import { seriesOf, statsModel } from '../../renderer/src/stats/stats-model.js';
import { arrowResult } from './stats-fixtures.js';

const T0 = 1_709_735_400_000_000_000n; // 2024-03-06T14:30:00Z
const MS = 1_000_000n;

describe('statsModel', () => {
  // Buckets a millisecond apart; BP has no row in the second bucket; rows arrive out of order (sortCols).
  const t = arrowResult([
    ['eventTimestamp', 'timestamp', [T0 + MS, T0, T0, T0 + 2n * MS, T0 + 2n * MS]],
    ['instrumentID', 'symbol', ['AAPL', 'BP', 'AAPL', 'AAPL', 'BP']],
    ['maxPrice', 'float', [171, 4.8, 170, 172, null]],
    ['tradeCount', 'long', [3, 9, 2, 4, 5]],
    ['firstExchTime', 'timestamp', [T0, T0, T0, T0, T0]],
    ['firstConditions', 'symbol', ['@', '@', 'F', '@', '@']],
  ]);
  const m = statsModel(t, { timeColumn: 'eventTimestamp', groupColumns: ['instrumentID'] });

  it('gives one slot per distinct bucket, ascending, to the nanosecond', () => {
    expect(m.bucketed).toBe(true);
    expect([...m.times]).toEqual([T0, T0 + MS, T0 + 2n * MS]);
  });

  it('sorts the groups and aligns every group’s values to the slots, NaN where it has no row or a null', () => {
    expect(m.groups.map((g) => g.label)).toEqual(['AAPL', 'BP']);
    expect([...seriesOf(m, 'maxPrice', 0)!]).toEqual([170, 171, 172]);
    expect([...seriesOf(m, 'maxPrice', 1)!]).toEqual([4.8, NaN, NaN]);
    expect([...seriesOf(m, 'tradeCount', 1)!]).toEqual([9, NaN, 5]);
  });

  it('charts numeric columns only, naming the others', () => {
    expect(m.columns).toEqual(['maxPrice', 'tradeCount']);
    expect(m.skipped).toEqual(['firstExchTime', 'firstConditions']);
    expect(seriesOf(m, 'firstExchTime', 0)).toBeUndefined();
  });

  it('reads a result without buckets as one slot, and several group columns (nulls included) as one group each', () => {
    const u = statsModel(
      arrowResult([
        ['sector', 'symbol', ['Tech', 'Tech', null]],
        ['tradedExchange', 'symbol', ['XNAS', 'XNYS', 'XLON']],
        ['sumVolume', 'long', [10, 20, 30]],
      ]),
      { timeColumn: null, groupColumns: ['sector', 'tradedExchange'] },
    );
    expect(u.bucketed).toBe(false);
    expect(u.times.length).toBe(1);
    expect(u.groups.map((g) => g.label)).toEqual(['(null) · XLON', 'Tech · XNAS', 'Tech · XNYS']);
    expect(u.values[0]!.map((v) => v[0])).toEqual([30, 10, 20]);
    // the grid row a group's bar selects
    expect([...u.firstRow]).toEqual([2, 0, 1]);
  });

  it('has one group "all" without group columns (groupBy [])', () => {
    const all = statsModel(arrowResult([['eventTimestamp', 'timestamp', [T0, T0 + MS]], ['avgPrice', 'float', [1, 2]]]), { timeColumn: 'eventTimestamp', groupColumns: [] });
    expect(all.groups).toEqual([{ key: '', values: [], label: 'all' }]);
    expect([...seriesOf(all, 'avgPrice', 0)!]).toEqual([1, 2]);
  });
});
