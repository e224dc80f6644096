/** What the stats chart draws where: candle and volume rules, panes by input column and range, percent. */
import { describe, expect, it } from 'vitest';
import type { TreeArg } from '../../renderer/src/form/agg-tree.js';
import { planChart, suggestPercent, withinRange } from '../../renderer/src/stats/chart-plan.js';
import { candleRole, findCandles, isVolumeLike, sourceColumn } from '../../renderer/src/stats/series-roles.js';
import { bucketModel } from './stats-fixtures.js';

const none = new Map<string, TreeArg>();

describe('candle rule', () => {
  it('reads roles from trees first, then from names (word, prefix, suffix)', () => {
    expect(candleRole('o', ['first', 'price'])).toEqual({ role: 'open', stem: 'price' });
    expect(candleRole('firstPrice', ['avg', 'price'])).toBeNull(); // the tree decides
    expect(['firstPrice', 'maxPrice', 'lo', 'close', 'open_px', 'hiBid', 'priceLast', 'px_high'].map((n) => candleRole(n))).toEqual([
      { role: 'open', stem: 'price' },
      { role: 'high', stem: 'price' },
      { role: 'low', stem: '' },
      { role: 'close', stem: '' },
      { role: 'open', stem: 'px' },
      { role: 'high', stem: 'bid' },
      { role: 'close', stem: 'price' },
      { role: 'high', stem: 'px' },
    ]);
    expect(['firstly', 'lowest', 'maximum', 'vwap', 'bestBid', 'tradeCount'].map((n) => candleRole(n))).toEqual([null, null, null, null, null, null]);
  });

  it('needs all four roles of one column; the earliest complete set wins', () => {
    expect(findCandles(['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'], none)).toEqual({ stem: 'price', open: 'firstPrice', high: 'maxPrice', low: 'minPrice', close: 'lastPrice' });
    expect(findCandles(['firstPrice', 'maxPrice', 'minPrice', 'avgPrice'], none)).toBeNull();
    const trees = new Map<string, TreeArg>([
      ['aggregation1', ['first', 'price']],
      ['aggregation2', ['max', 'price']],
      ['aggregation3', ['min', 'price']],
      ['aggregation4', ['last', 'price']],
    ]);
    expect(findCandles(['firstVolume', 'maxVolume', 'minVolume', 'lastVolume', 'aggregation1', 'aggregation2', 'aggregation3', 'aggregation4'], trees)?.stem).toBe('volume');
    expect(findCandles(['aggregation1', 'aggregation2', 'aggregation3', 'aggregation4'], trees)?.open).toBe('aggregation1');
  });
});

describe('volume rule and input columns', () => {
  it('finds counts, sums of volume-like columns and turnover, by tree or name', () => {
    expect(['tradeCount', 'sumVolume', 'totalSize', 'turnover', 'countDistinct', 'maxSize', 'avgVolume', 'sumPrice', 'vwap'].map((n) => isVolumeLike(n))).toEqual([true, true, true, true, true, false, false, false, false]);
    expect(isVolumeLike('x', ['count', 'i'])).toBe(true);
    expect(isVolumeLike('x', ['sum', ['*', 'price', 'volume']])).toBe(true);
    expect(isVolumeLike('x', ['sum', 'price'])).toBe(false);
    expect(isVolumeLike('sumVolume', ['avg', 'volume'])).toBe(false);
  });

  it('knows the input of built-in analytics and single-column trees only', () => {
    expect([sourceColumn('avgVolume'), sourceColumn('medPrice'), sourceColumn('vwap'), sourceColumn('x', ['max', 'bidPrice']), sourceColumn('y', ['wavg', 'volume', 'price'])]).toEqual(['volume', 'price', null, 'bidprice', null]);
  });
});

// Two instruments at different levels; volumes in hundreds; a vwap within the price range.
const level: Record<string, number> = { AAPL: 170, VOD: 0.7 };
const value = (col: string, id: string, k: number): number =>
  col === 'sumVolume' ? 1000 + k : col === 'avgVolume' ? 150 + k : col === 'tradeCount' ? 10 + k : level[id]! * (1 + (col === 'maxPrice' ? 0.01 : col === 'minPrice' ? -0.01 : 0) + k / 1000);

describe('planChart', () => {
  it('puts candles and in-range lines in pane 0, other inputs and volumes in panes of their own', () => {
    const m = bucketModel(['AAPL', 'VOD'], [['firstPrice', 'float'], ['maxPrice', 'float'], ['minPrice', 'float'], ['lastPrice', 'float'], ['vwap', 'float'], ['avgVolume', 'float'], ['sumVolume', 'long'], ['tradeCount', 'long']], 5, value);
    const plan = planChart(m, none, false);
    expect(plan.candles?.stem).toBe('price');
    expect(plan.panes.map((p) => [p.kind, p.title, p.lines, p.histograms])).toEqual([
      ['price', 'price', ['vwap'], []],
      ['lines', 'avgVolume', ['avgVolume'], []],
      ['volume', 'sumVolume', [], ['sumVolume']],
      ['volume', 'tradeCount', [], ['tradeCount']],
    ]);
  });

  it('gives a line outside pane 0’s range its own pane; caps panes', () => {
    const v: Record<string, number> = { avgPrice: 170, a: 5e6, b: 171, c: 0.001, d: -50 };
    const m = bucketModel(['AAPL'], [['avgPrice', 'float'], ['a', 'float'], ['b', 'float'], ['c', 'float'], ['d', 'float']], 3, (col) => v[col]!);
    expect(withinRange(m, 'b', ['avgPrice'])).toBe(true);
    expect(withinRange(m, 'a', ['avgPrice'])).toBe(false);
    const plan = planChart(m, none, false);
    expect(plan.panes.map((p) => p.lines)).toEqual([['avgPrice', 'b'], ['a'], ['c', 'd']]);
  });

  it('draws the top of book: bestBid, bestAsk and midPoint in pane 0, spread below, maxSize left to the grid', () => {
    const m = bucketModel(['AAPL'], [['bestBid', 'float'], ['bestAsk', 'float'], ['maxSize', 'long'], ['spread', 'float'], ['midPoint', 'float']], 3, (col) => (col === 'spread' ? 0.01 : col === 'maxSize' ? 900 : 170));
    const plan = planChart(m, none, true);
    expect(plan.book).toEqual({ bestBid: 'bestBid', bestAsk: 'bestAsk', midPoint: 'midPoint' });
    expect(plan.panes.map((p) => [p.kind, p.lines])).toEqual([
      ['price', ['bestBid', 'bestAsk', 'midPoint']],
      ['spread', ['spread']],
    ]);
    expect(plan.unplotted).toEqual(['maxSize']);
    // The same columns without the orderbook mode are plain lines.
    expect(planChart(m, none, false).book).toBeNull();
  });

  it('suggests percent for shown groups at different levels only', () => {
    const m = bucketModel(['AAPL', 'VOD'], [['avgPrice', 'float']], 3, (c, id, k) => value('avgPrice', id, k));
    const plan = planChart(m, none, false);
    expect(suggestPercent(m, plan, [0, 1])).toBe(true);
    expect(suggestPercent(m, plan, [0])).toBe(false);
    const close = bucketModel(['A', 'B'], [['avgPrice', 'float']], 3, (c, id) => (id === 'A' ? 100 : 120));
    expect(suggestPercent(close, planChart(close, none, false), [0, 1])).toBe(false);
  });
});
