/** getStats without buckets as bar panels: group order, bar geometry, row heights. */
import { describe, expect, it } from 'vitest';
import { barDomain, barOrder, barRowHeight, barSpan, panelValues } from '../../renderer/src/stats/bar-model.js';
import { statsModel } from '../../renderer/src/stats/stats-model.js';
import { arrowResult } from './stats-fixtures.js';

describe('barOrder', () => {
  it('sorts by value descending, missing values last, ties in key order', () => {
    expect(barOrder(Float64Array.of(3, NaN, 7, 3, -1, 10), true)).toEqual([5, 2, 0, 3, 4, 1]);
    expect(barOrder(Float64Array.of(-Infinity, NaN, Infinity), true)).toEqual([2, 0, 1]);
  });

  it('keeps the key order (the model’s) when not by value', () => {
    expect(barOrder(Float64Array.of(3, NaN, 7), false)).toEqual([0, 1, 2]);
    expect(barOrder(new Float64Array(0), true)).toEqual([]);
  });
});

describe('bar geometry', () => {
  it('grows bars from zero over the panel’s domain', () => {
    const d = barDomain(Float64Array.of(10, 40, NaN));
    expect(d).toEqual({ lo: 0, hi: 40 });
    expect(barSpan(d, 10)).toEqual({ start: 0, width: 0.25 });
    expect(barSpan(d, 40)).toEqual({ start: 0, width: 1 });
    expect(barSpan(d, NaN)).toEqual({ start: 0, width: 0 });
  });

  it('diverges from a zero line inside the panel when values have both signs', () => {
    const d = barDomain(Float64Array.of(-10, 30));
    expect(d).toEqual({ lo: -10, hi: 30 });
    expect(barSpan(d, -10)).toEqual({ start: 0, width: 0.25 });
    expect(barSpan(d, 30)).toEqual({ start: 0.25, width: 0.75 });
    expect(barSpan(d, Infinity)).toEqual({ start: 0.25, width: 0.75 });
    expect(barSpan(barDomain(Float64Array.of(0, 0)), 0)).toEqual({ start: 0, width: 0 });
  });

  it('makes rows as tall as fit, between the bounds, scrolling beyond', () => {
    expect(barRowHeight(20, 440)).toBe(22);
    expect(barRowHeight(20, 300)).toBe(15);
    expect(barRowHeight(500, 300)).toBe(14);
    expect(barRowHeight(0, 300)).toBe(22);
  });
});

describe('panelValues', () => {
  it('reads each group’s single value of an aggregate', () => {
    const m = statsModel(
      arrowResult([
        ['instrumentID', 'symbol', ['VOD', 'AAPL', 'BP']],
        ['sumVolume', 'long', [300, 100, null]],
      ]),
      { timeColumn: null, groupColumns: ['instrumentID'] },
    );
    expect([...panelValues(m, 0)]).toEqual([100, NaN, 300]);
    expect(barOrder(panelValues(m, 0), true).map((g) => m.groups[g]!.label)).toEqual(['VOD', 'AAPL', 'BP']);
  });
});
