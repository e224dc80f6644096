/**
 * The charts' readouts: the robust volume scale (auction prints clipped, ordinary bars filling the
 * pane), values in the grid's format, one readout line per group, the instrument kept across runs,
 * and the time axis that keeps its edge labels whole.
 */
import { describe, expect, it } from 'vitest';
import { baseChartOptions, TIME_SCALE } from '../../renderer/src/chart/chart-theme.js';
import { keptId } from '../../renderer/src/chart/kept-choice.js';
import { exactText, formatReadout, valueFormat } from '../../renderer/src/chart/value-format.js';
import { CLIP_FACTOR, drawnValue, isClipped, volumeScale } from '../../renderer/src/chart/volume-scale.js';
import { planChart } from '../../renderer/src/stats/chart-plan.js';
import { modelFormats, readoutColumns, readoutLines, scaleKey, visibleLines } from '../../renderer/src/stats/readout.js';
import { seriesOf } from '../../renderer/src/stats/stats-model.js';
import { bucketModel } from './stats-fixtures.js';

describe('volumeScale', () => {
  // a day of trades: lots of 100-1,000 shares, a few larger, and the two auction crosses
  const day = Array.from({ length: 2000 }, (_, i) => 100 * (1 + (i % 10)));
  day.push(2500, 2700, 60_400, 310_200);

  it('scales to the largest ordinary bar and clips the auction prints', () => {
    const s = volumeScale(day);
    expect(s.top).toBe(2700);
    expect(s.clipped).toBe(2);
    expect(s.max).toBe(310_200);
    expect(isClipped(s, 60_400)).toBe(true);
    expect(isClipped(s, 2700)).toBe(false);
    expect(drawnValue(s, 310_200)).toBe(2700);
    expect(drawnValue(s, 900)).toBe(900);
  });

  it('clips nothing when no bar stands out', () => {
    const even = Array.from({ length: 500 }, (_, i) => 1000 + i);
    expect(volumeScale(even)).toEqual({ top: 1499, clipped: 0, max: 1499 });
  });

  it('leaves the top three bars out of the reference when there are few bars', () => {
    // 20 one-minute buckets, the opening cross in the first: the 99th percentile would be the cross itself
    const buckets = [90_000, ...Array.from({ length: 19 }, (_, i) => 10_000 + 500 * i)];
    const s = volumeScale(buckets);
    expect(s.clipped).toBe(1);
    expect(s.top).toBe(19_000);
    expect(s.top * CLIP_FACTOR).toBeLessThan(90_000);
  });

  it('ignores missing values and takes negative bars by their size', () => {
    expect(volumeScale([])).toEqual({ top: 0, clipped: 0, max: 0 });
    expect(volumeScale([NaN, Infinity])).toEqual({ top: 0, clipped: 0, max: 0 });
    expect(volumeScale([0, 0, 0])).toEqual({ top: 0, clipped: 0, max: 0 });
    const s = volumeScale([NaN, -5, 5, 6, 4, 5, -500]);
    expect(s.clipped).toBe(1);
    expect(drawnValue(s, -500)).toBe(-s.top);
  });
});

describe('readout values', () => {
  it('take the grid format of their column: float noise gone, decimals aligned, sizes grouped', () => {
    const price = valueFormat({ name: 'price', type: 'float' }, [Float64Array.of(169.07999999999998, 170.6, 170.65)]);
    expect(formatReadout(price, 169.07999999999998)).toBe('169.08');
    expect(formatReadout(price, 170.6)).toBe('170.60');
    const volume = valueFormat({ name: 'sumVolume', type: 'long' }, [Float64Array.of(4_164_800, 100)]);
    expect(formatReadout(volume, 4_164_800)).toBe('4,164,800');
    // the instruments' tick size decides the least decimals of prices
    expect(formatReadout(valueFormat({ name: 'lastPrice', tickDecimals: 4 }, [Float64Array.of(0.7, 170)]), 170)).toBe('170.0000');
  });

  it('say "—" for none and keep the exact text for the tooltip', () => {
    const f = valueFormat({ name: 'x' }, [Float64Array.of(1.5)]);
    expect(formatReadout(f, NaN)).toBe('—');
    expect(formatReadout(f, undefined)).toBe('—');
    expect(exactText(169.07999999999998)).toBe('169.07999999999998');
    expect(exactText(NaN)).toBe('');
  });
});

describe('readoutLines', () => {
  const ids = ['AAPL', 'BP', 'VOD'];
  const level: Record<string, number> = { AAPL: 170, BP: 4.8, VOD: 0.7 };
  const m = bucketModel(
    ids,
    [
      ['firstPrice', 'float'],
      ['maxPrice', 'float'],
      ['minPrice', 'float'],
      ['lastPrice', 'float'],
      ['sumVolume', 'long'],
    ],
    30,
    (col, id, k) => (col === 'sumVolume' ? (k === 0 ? 900_000 : 10_000 + k) : level[id]! * (1 + k / 1000) + (col === 'maxPrice' ? 0.01 : col === 'minPrice' ? -0.01 : 0)),
  );
  const plan = planChart(m, new Map(), false);
  const formats = modelFormats(m, (name) => ({ name, type: name === 'sumVolume' ? 'long' : 'float' }));
  const scales = new Map(ids.map((_, g) => [scaleKey('sumVolume', g), volumeScale(seriesOf(m, 'sumVolume', g)!)]));

  it('names the candle values O H L C, then the drawn columns', () => {
    expect(readoutColumns(plan).map(([name]) => name)).toEqual(['O', 'H', 'L', 'C', 'sumVolume']);
  });

  it('gives every group its own line, in the order asked, each value in its column format', () => {
    const lines = readoutLines(m, plan, [0, 1, 2], 5, formats, scales);
    expect(lines.map((l) => l.label)).toEqual(['AAPL', 'BP', 'VOD']);
    const text = (g: number): string[] => lines[g]!.items.map((i) => `${i.name} ${i.text}`);
    expect(text(0)).toEqual(['O 170.8500', 'H 170.8600', 'L 170.8400', 'C 170.8500', 'sumVolume 10,005']);
    expect(text(2)[0]).toBe('O 0.7035');
    expect(lines[1]!.items[0]!.exact).toBe(String(4.8 * 1.005));
    expect(readoutLines(m, plan, [2], 5, formats).map((l) => l.label)).toEqual(['VOD']);
  });

  it('flags a volume bar drawn clipped, with its true value', () => {
    const first = readoutLines(m, plan, [1], 0, formats, scales)[0]!.items.find((i) => i.name === 'sumVolume')!;
    expect(first).toMatchObject({ text: '900,000', exact: '900000', clipped: true });
    expect(readoutLines(m, plan, [1], 1, formats, scales)[0]!.items.at(-1)!.clipped).toBe(false);
  });

  it('keeps the hovered group among the lines that fit', () => {
    const lines = [0, 1, 2, 3, 4].map((group) => ({ group }));
    expect(visibleLines(lines, 10, 4).map((l) => l.group)).toEqual([0, 1, 2, 3, 4]);
    expect(visibleLines(lines, 3, null).map((l) => l.group)).toEqual([0, 1, 2]);
    expect(visibleLines(lines, 3, 4).map((l) => l.group)).toEqual([0, 1, 4]);
    expect(visibleLines(lines, 3, 1).map((l) => l.group)).toEqual([0, 1, 2]);
    expect(visibleLines(lines, 1, 3).map((l) => l.group)).toEqual([3]);
  });
});

describe('the chosen instrument', () => {
  it('stays across a run whose result still holds it, else the default', () => {
    expect(keptId('MSFT', ['AAPL', 'MSFT'], 'AAPL')).toBe('MSFT');
    expect(keptId('MSFT', ['AAPL', 'VOD'], 'AAPL')).toBe('AAPL');
    expect(keptId(null, ['AAPL'], 'AAPL')).toBe('AAPL');
  });
});

describe('the time axis', () => {
  it('fixes both edges, so the library shifts the first and last labels inside the axis', () => {
    expect(TIME_SCALE).toMatchObject({ fixLeftEdge: true, fixRightEdge: true });
    // a date (10 characters) is the widest label but one: neighbours are spaced for it
    expect(TIME_SCALE.tickMarkMaxCharacterLength).toBeGreaterThanOrEqual(10);
    expect(baseChartOptions(0.5).timeScale).toMatchObject({ fixLeftEdge: true, fixRightEdge: true, minBarSpacing: 0.5 });
    expect(baseChartOptions(0.5).rightPriceScale).toMatchObject({ entireTextOnly: true });
  });
});
