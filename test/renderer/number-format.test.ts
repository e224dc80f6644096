/** The grid's number display: one format per column, inferred from values as the backend renders them. */
import { describe, expect, it } from 'vitest';
import {
  type ColumnHints,
  columnFormat,
  columnNeeds,
  decimalsNeeded,
  formatCell,
  groupDigits,
  isPriceLike,
  MAX_FIXED_DECIMALS,
  sigNeeded,
  statsOf,
  statsOfCells,
  tickDecimals,
} from '../../renderer/src/grid/number-format.js';

/** Cells as the CSV writes them (String(x), '' for null, inf), formatted by the column's inferred format. */
function show(cells: readonly string[], hints: Partial<ColumnHints> = {}): string[] {
  const h: ColumnHints = { name: 'x', type: 'float', ...hints };
  const f = columnFormat(h, statsOfCells(cells));
  return cells.map((c) => formatCell(f, c));
}
const text = (xs: ReadonlyArray<number | null>): string[] => xs.map((x) => (x === null ? '' : x === Infinity ? 'inf' : x === -Infinity ? '-inf' : String(x)));

describe('decimals a value needs at 10 significant digits', () => {
  it('drops float noise beyond 10 significant digits', () => {
    expect(decimalsNeeded(169.07999999999998)).toBe(2);
    expect(decimalsNeeded(0.009999999999990905)).toBe(2);
    expect(decimalsNeeded(0.1 + 0.2)).toBe(1);
    expect(decimalsNeeded(170.65)).toBe(2);
    expect(decimalsNeeded(4.787660061900001)).toBe(9);
  });

  it('counts the decimals of tiny values and none for integers, huge values, zero and non-finite ones', () => {
    expect(decimalsNeeded(1.5e-7)).toBe(8);
    expect(decimalsNeeded(-0.000123)).toBe(6);
    expect(decimalsNeeded(42)).toBe(0);
    expect(decimalsNeeded(1e21)).toBe(0);
    expect(decimalsNeeded(0)).toBe(0);
    expect(decimalsNeeded(-0)).toBe(0);
    expect(decimalsNeeded(NaN)).toBe(0);
    expect(decimalsNeeded(-Infinity)).toBe(0);
  });

  it('counts significant digits up to 10', () => {
    expect(sigNeeded(170.65)).toBe(5);
    expect(sigNeeded(1200)).toBe(2);
    expect(sigNeeded(0.000123)).toBe(3);
    expect(sigNeeded(Math.PI)).toBe(10);
    expect(sigNeeded(1e21)).toBe(1);
  });
});

describe('a float column lines up', () => {
  it('shows 170.6 beside 170.65 as 170.60, and float noise as the number it is', () => {
    expect(show(['170.6', '170.65', '169.07999999999998', ''])).toEqual(['170.60', '170.65', '169.08', '']);
    expect(show(['0.009999999999990905', '0.02', '0.125'])).toEqual(['0.010', '0.020', '0.125']);
  });

  it('gives every value of a getStats average its 10 significant digits, in one number of decimals', () => {
    // vwap per instrument: the smallest price needs the most decimals at 10 significant digits
    const vwaps = [169.46706564542234, 4.787660061900001, 1234.5678901234, 16.606425422107];
    const out = show(text(vwaps), { name: 'vwap' });
    expect(out).toEqual(['169.467065645', '4.787660062', '1234.567890123', '16.606425422']);
    // each one exact at 10 significant digits: the rounding of the largest shows more, never less
    out.forEach((o, i) => expect(Number(Number(o).toPrecision(10))).toBe(Number(vwaps[i]!.toPrecision(10))));
  });

  it('keeps nulls empty, infinities as ∞, negatives signed, and no -0', () => {
    expect(show(['-0.5', '3.25', '', 'inf', '-inf'])).toEqual(['-0.50', '3.25', '', '∞', '-∞']);
    expect(show(['-0', '0.5'])).toEqual(['0.0', '0.5']);
    // a NaN text (not written by the backend, but never hidden) shows as itself
    expect(show(['1.5', 'NaN'])).toEqual(['1.5', 'NaN']);
  });

  it('shows integers in a float column without decimals, sizes and large values with separators', () => {
    expect(show(['4164800', '836540', '25016238'], { name: 'sumVolume' })).toEqual(['4,164,800', '836,540', '25,016,238']);
    expect(show(['100', '250.5'], { name: 'volume' })).toEqual(['100.0', '250.5']);
    expect(show(['12', '7'], { name: 'ratio' })).toEqual(['12', '7']);
    expect(show(['711234567.89', '0.5'], { name: 'turnover' })).toEqual(['711,234,567.9', '0.5']);
    expect(show(['12345.5', '99.25'], { name: 'price' })).toEqual(['12,345.50', '99.25']);
  });

  it('switches to scientific notation for huge or tiny values, with the digits they need', () => {
    expect(show(['1e+20', '2.5e+21'])).toEqual(['1.0e+20', '2.5e+21']);
    expect(show(['1.234e-14', '5e-15'])).toEqual(['1.234e-14', '5.000e-15']);
    expect(show([String(Number.MAX_VALUE), '1'])).toEqual(['1.797693135e+308', '1.000000000e+0']);
    // up to MAX_FIXED_DECIMALS stays fixed
    expect(show(['0.000000000123', '0.00000000002'])).toEqual(['0.000000000123', '0.000000000020']);
    expect(decimalsNeeded(1.23e-10)).toBeLessThanOrEqual(MAX_FIXED_DECIMALS);
  });

  it('never rounds a value away: each shows within half a unit of its 10th significant digit', () => {
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let trial = 0; trial < 60; trial++) {
      const scale = 10 ** Math.floor(rnd() * 12 - 6);
      // prices, rounded quantities, and now and then float noise far below the rest
      const values = Array.from({ length: 40 }, () => (rnd() - 0.3) * scale * (rnd() < 0.2 ? 1 : rnd() < 0.1 ? 1e-16 : Math.round(rnd() * 1000) / 1000));
      const shown = show(text(values), { name: 'pnl' });
      const maxAbs = Math.max(...values.map(Math.abs));
      const exp = (x: number): number => Math.floor(Math.log10(Math.abs(x)));
      shown.forEach((s, i) => {
        const v = values[i]!;
        const own = 10 ** (exp(v) - 9) / 2;
        // noise below the largest value's 10th significant digit: within the column's decimals
        const noise = exp(v) < exp(maxAbs) - 9 && !s.includes('e') ? 10 ** -(s.split('.')[1] ?? '').length / 2 : 0;
        expect(Math.abs(Number(s.replace(/,/g, '')) - v), `${v} shown as ${s}`).toBeLessThanOrEqual(Math.max(own, noise) * (1 + 1e-6));
      });
      // one number of decimals (or one mantissa length) per column
      const digits = (s: string): number => (s.includes('e') ? s.split('e')[0]!.replace('-', '').length : (s.split('.')[1] ?? '').length);
      expect(new Set(shown.map(digits)).size).toBe(1);
    }
  });

  it('infers the same from pages read one by one as from the whole column', () => {
    const cells = text([1.5, 2.25, null, 3.125, -7, 1e6, Infinity]);
    const paged = statsOfCells(cells.slice(3), statsOfCells(cells.slice(0, 3)));
    expect(paged).toEqual(statsOfCells(cells));
    expect([paged.count, paged.maxAbs, paged.integral, paged.negative]).toEqual([5, 1e6, false, true]);
    expect(columnNeeds(paged)).toEqual({ decimals: 3, sig: 4 });
    expect(statsOf([])).toEqual(statsOf([null, NaN]));
    expect(columnNeeds(statsOf([0, -0]))).toEqual({ decimals: 0, sig: 1 });
  });

  it('does not let float noise beside larger values force scientific notation or more decimals', () => {
    // generated analytics: a shortfall of exactly nothing computed as 1.8e-15
    expect(show(['25.3', '1.7763568394002505e-15', '-3.552713678800501e-16', '4.787660062'])).toEqual(['25.300000000', '0.000000000', '0.000000000', '4.787660062']);
    // a small value still above the largest one's 10th significant digit keeps its digits
    expect(show(['25.3', '0.000012345'])).toEqual(['25.300000000', '0.000012345']);
    // a column of tiny values alone is shown as what it is
    expect(show(['1.5e-15', '2.5e-15'])).toEqual(['1.5e-15', '2.5e-15']);
  });
});

describe('prices and tick sizes', () => {
  it('gives price columns at least their instruments’ tick-size decimals', () => {
    expect(tickDecimals(0.01)).toBe(2);
    expect(tickDecimals(0.0005)).toBe(4);
    expect(tickDecimals(0.25)).toBe(2);
    expect(tickDecimals(1)).toBe(0);
    expect(tickDecimals(0)).toBe(0);
    expect(show(['170', '171.5'], { name: 'price', tickDecimals: 2 })).toEqual(['170.00', '171.50']);
    expect(show(['4.79', '4.8'], { name: 'bidPrice', tickDecimals: 4 })).toEqual(['4.7900', '4.8000']);
    // more decimals than the tick when the values need them (a mid between two ticks)
    expect(show(['169.055', '169.06'], { name: 'midPoint', tickDecimals: 2 })).toEqual(['169.055', '169.060']);
    // tick sizes do not touch sizes or rates
    expect(show(['100', '200'], { name: 'bidSize', type: 'float', tickDecimals: 2 })).toEqual(['100', '200']);
  });

  it('knows price-like names from size, count and rate names', () => {
    for (const n of ['price', 'bidPrice', 'lastPx', 'vwap', 'intervalVWAP', 'arrivalMid', 'midPoint', 'spread', 'bestBid', 'firstPrice', 'twap']) expect(isPriceLike(n), n).toBe(true);
    for (const n of ['volume', 'bidSize', 'askCount', 'spreadBps', 'intervalSpreadBPS', 'vwapSlippage', 'startToEndReturn', 'fillRate']) expect(isPriceLike(n), n).toBe(false);
  });
});

describe('integer columns', () => {
  it('groups sizes and counts from their exact digits, beyond 2^53 too', () => {
    const f = columnFormat({ name: 'volume', type: 'long' }, statsOfCells(['60400']));
    expect(['60400', '12345678901234567890', '-1500', ''].map((c) => formatCell(f, c))).toEqual(['60,400', '12,345,678,901,234,567,890', '-1,500', '']);
    expect(groupDigits('999')).toBe('999');
    expect(groupDigits('1000')).toBe('1,000');
  });

  it('leaves identifiers and sequence numbers as codes', () => {
    for (const name of ['sequenceNumber', 'seq', 'orderID', 'id', 'level']) {
      expect(formatCell(columnFormat({ name, type: 'long' }, statsOfCells(['123456'])), '123456'), name).toBe('123456');
    }
    expect(formatCell(columnFormat({ name: 'tickCount', type: 'long' }, statsOfCells(['123456'])), '123456')).toBe('123,456');
  });
});

describe('summary functions take the format of their kind', () => {
  const kind = (k: NonNullable<ColumnHints['kind']>, cells: string[], type: ColumnHints['type'] = 'float'): string[] => show(cells, { name: 'f', type, kind: k });

  it('bps and minutes with one decimal, rates as %, shares and counts whole, values with cents', () => {
    expect(kind('bps', ['-6.884961', '0.04', '-0.04'])).toEqual(['-6.9', '0.0', '0.0']);
    expect(kind('pct', ['0.95329974', '1'])).toEqual(['95.3%', '100.0%']);
    expect(kind('shares', ['5223764', '88638.5'])).toEqual(['5,223,764', '88,639']);
    expect(kind('count', ['2664'], 'long')).toEqual(['2,664']);
    expect(kind('minutes', ['23.106711'])).toEqual(['23.1']);
    expect(kind('value', ['7265656266.934095'])).toEqual(['7,265,656,266.93']);
    expect(kind('price', ['169.181947201', '170.6'])).toEqual(['169.181947', '170.600000']);
  });

  it('lets a bare tree (kind number) keep the decimals its values need', () => {
    expect(kind('number', ['0.0003', '1.25'])).toEqual(['0.0003', '1.2500']);
  });
});

describe('a column’s override from its header menu', () => {
  const stats = statsOfCells(['170.6', '170.65']);
  const f = (override: NonNullable<ColumnHints['override']>): ReturnType<typeof columnFormat> => columnFormat({ name: 'price', type: 'float', override }, stats);

  it('sets decimals, separators or the exact text', () => {
    expect(formatCell(f({ decimals: 4 }), '170.65')).toBe('170.6500');
    expect(formatCell(f({ decimals: 0 }), '170.65')).toBe('171');
    expect(formatCell(f({ exact: true }), '169.07999999999998')).toBe('169.07999999999998');
    expect(formatCell(columnFormat({ name: 'volume', type: 'long', override: { grouping: false } }, NO), '60400')).toBe('60400');
    expect(formatCell(columnFormat({ name: 'fillRate', type: 'float', kind: 'pct', override: { decimals: 3 } }, NO), '0.95329974')).toBe('95.330%');
  });

  it('leaves text columns exact', () => {
    expect(formatCell(columnFormat({ name: 'instrumentID', type: 'symbol' }, NO), 'AAPL')).toBe('AAPL');
    expect(formatCell(columnFormat({ name: 'bidPrice', type: 'float[]' }, NO), '[170.6,170.65]')).toBe('[170.6,170.65]');
  });
});

const NO = statsOf([]);
