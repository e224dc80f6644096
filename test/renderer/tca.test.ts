/** The TCA workspace's number formats, colours, sorting and histogram. */
import { describe, expect, it } from 'vitest';
import { formatValue, histogram, nextSort, niceStep, priceDecimals, sortedRows, toneOf } from '../../renderer/src/orders/tca.js';

describe('summary values by kind', () => {
  it('formats bps and minutes with one decimal, rates as %, shares and counts grouped, values with cents', () => {
    expect(formatValue('bps', -6.884961)).toBe('-6.9');
    expect(formatValue('bps', 0.04)).toBe('0.0');
    expect(formatValue('pct', 0.95329974)).toBe('95.3%');
    expect(formatValue('shares', 5223764)).toBe('5,223,764');
    expect(formatValue('count', 2664)).toBe('2,664');
    expect(formatValue('minutes', 23.106711)).toBe('23.1');
    expect(formatValue('value', 7265656266.934095)).toBe('7,265,656,266.93');
    expect(formatValue('number', -3.600115)).toBe('-3.60');
    expect(formatValue('bps', null)).toBe('');
    expect(formatValue('bps', NaN)).toBe('');
    expect(formatValue('pct', Infinity)).toBe('∞');
  });

  it('gives a price column one number of decimals, enough for every value', () => {
    expect(priceDecimals([170.6, 170.65, null])).toBe(2);
    expect(priceDecimals([0.7051, 0.70515])).toBe(5);
    expect(priceDecimals([169.1819472010791])).toBe(6);
    expect([170.6, 170.65].map((v) => formatValue('price', v, priceDecimals([170.6, 170.65])))).toEqual(['170.60', '170.65']);
  });
});

describe('colours by adverse direction', () => {
  const cost = { kind: 'bps', adverse: 'high' } as const;
  const fill = { kind: 'pct', adverse: 'low' } as const;
  it('reads bps by their sign and other kinds against all orders', () => {
    expect(toneOf(cost, 4.2, -1)).toBe('adverse');
    expect(toneOf(cost, -0.5, 3)).toBe('favourable');
    expect(toneOf(cost, 0, 3)).toBeNull();
    expect(toneOf(fill, 0.8, 0.857)).toBe('adverse');
    expect(toneOf(fill, 0.9, 0.857)).toBe('favourable');
    expect(toneOf(fill, 0.9, null)).toBeNull();
    expect(toneOf({ kind: 'minutes', adverse: null }, 30, 20)).toBeNull();
    expect(toneOf(cost, null, 1)).toBeNull();
  });
});

describe('sorting the summary', () => {
  it('cycles descending, ascending, unsorted for numbers (ascending first for groups)', () => {
    let s = nextSort(null, 'fillRate', true);
    expect(s).toEqual({ column: 'fillRate', dir: 'desc' });
    s = nextSort(s, 'fillRate', true);
    expect(s).toEqual({ column: 'fillRate', dir: 'asc' });
    expect(nextSort(s, 'fillRate', true)).toBeNull();
    expect(nextSort(s, 'instrumentID', false)).toEqual({ column: 'instrumentID', dir: 'asc' });
  });

  it('puts nulls last either way and keeps ties in the result order', () => {
    const v = [3, null, 1, 3, 2];
    expect(sortedRows(5, (r) => v[r]!, { column: 'x', dir: 'desc' })).toEqual([0, 3, 4, 2, 1]);
    expect(sortedRows(5, (r) => v[r]!, { column: 'x', dir: 'asc' })).toEqual([2, 4, 0, 3, 1]);
    expect(sortedRows(3, () => 0, null)).toEqual([0, 1, 2]);
  });
});

describe('shortfall histogram', () => {
  it('bins values with a round width, counts every value once, and reports mean and median', () => {
    const h = histogram([-3, -1, 0, 0.5, 2, 4, null, NaN]);
    expect(h.n).toBe(6);
    expect(h.counts.reduce((a, b) => a + b, 0)).toBe(6);
    const step = h.edges[1]! - h.edges[0]!;
    expect([1, 2, 2.5, 5].some((k) => Math.abs(step / 10 ** Math.floor(Math.log10(step)) - k) < 1e-9)).toBe(true);
    expect(h.edges[0]!).toBeLessThanOrEqual(-3);
    expect(h.edges[h.edges.length - 1]!).toBeGreaterThanOrEqual(4);
    expect(h.mean).toBeCloseTo(2.5 / 6, 12);
    expect(h.median).toBe(0.25);
  });

  it('keeps one wild order from squashing the rest: beyond the 1st-99th percentiles it lands in the end bins', () => {
    const xs = Array.from({ length: 200 }, (_, i) => (i % 20) - 10);
    xs.push(5000);
    const h = histogram(xs);
    expect(h.edges[h.edges.length - 1]!).toBeLessThan(100);
    expect(h.above).toBe(1);
    expect(h.counts.reduce((a, b) => a + b, 0)).toBe(201);
    expect(histogram([]).n).toBe(0);
  });

  it('picks round steps', () => {
    expect([0.7, 1.3, 2.2, 3, 7, 13].map(niceStep)).toEqual([1, 2, 2.5, 5, 10, 20]);
  });
});

describe('chart axes', () => {
  it('put about n round ticks in the range, whatever its size', async () => {
    const { ticks } = await import('../../renderer/src/components/orders/tca-charts.js');
    expect(ticks(-3.62, 4.76, 4)).toEqual([-2, 0, 2, 4]);
    expect(ticks(0, 44, 4)).toEqual([0, 10, 20, 30, 40]);
    expect(ticks(168.8, 169.65, 4)).toEqual([168.8, 169, 169.2, 169.4, 169.6]);
    expect(ticks(5, 5, 4)).toEqual([5]);
  });
});
