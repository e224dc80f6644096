/**
 * getStats reads partitions in place (streamed) when every tree combines and no order across
 * identifiers is needed, and gathers the rows otherwise. Both paths must give the same result: each
 * query here runs both ways on generated data (several partitions, nulls, equal timestamps).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { Int32Arena } from '../../../engine/core/arena.js';
import { payloadJson } from '../../../engine/output/envelope.js';
import { statsPaths } from '../../../engine/ops/stats/cells.js';
import { payloadRows, tempDir } from '../../helpers/db.js';

const dir = join(tempDir(), 'demo');
generateDemo(dir, { days: 3, instruments: 6, tradesPerDay: 6000, seed: 5 });
const engine = Engine.open([dir]);
const days = engine.defaultDatabase.partitionKeys('Trade').map((d) => d.replace(/-/g, '.'));
const first = days[0]!;
const someIds = [...new Set(payloadRows(engine, 'getTicks', { table: 'Trade', startTS: first, endTS: days[1]!, columns: ['instrumentID'] }).map((r) => String(r['instrumentID'])))].sort().slice(0, 3);

const queries: Array<[string, Record<string, unknown>]> = [
  ['OHLC minute bars per instrument', { startTS: `${first}D14:00`, endTS: `${first}D16:00`, granularityUnit: 'minute', analytics: ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'] }],
  ['VWAP and counts over every day', { startTS: first, endTS: '2099.01.01', analytics: ['vwap', 'tradeCount'], agg: { n: ['count', 'i'], avgPx: ['avg', 'price'], sd: ['dev', 'price'] } }],
  ['no grouping, hourly', { startTS: first, endTS: days[2]!, groupBy: [], granularity: 2, granularityUnit: 'hour', agg: { v: ['sum', 'volume'], hi: ['max', 'price'] } }],
  ['no grouping, every row filtered out (gathered either way)', { startTS: first, endTS: days[1]!, groupBy: [], filter: [['<', 'price', 0]], agg: { n: ['count', 'i'], v: ['sum', 'volume'] } }],
  ['no grouping, no partition (gathered either way)', { startTS: '2001.01.01', endTS: '2001.01.02', groupBy: [], agg: { n: ['count', 'i'], v: ['sum', 'volume'] } }],
  ['two group columns', { startTS: first, endTS: days[1]!, groupBy: ['instrumentID', 'tradedExchange'], agg: { v: ['sum', 'volume'], w: ['wavg', 'volume', 'price'] } }],
  ['moving window larger than granularity', { startTS: `${first}D13:00`, endTS: `${first}D18:00`, granularity: 10, granularityUnit: 'minute', movingWindowSize: 25, agg: { v: ['sum', 'volume'], px: ['avg', 'price'], hi: ['max', 'price'] } }],
  ['moving window smaller than granularity', { startTS: `${first}D13:00`, endTS: `${first}D18:00`, granularity: 30, granularityUnit: 'minute', movingWindowSize: 7, agg: { n: ['count', 'i'], lo: ['min', 'price'] } }],
  ['racked forward fill with idList', { idList: [...someIds, 'NOPE'], startTS: `${first}D15:00`, endTS: `${first}D15:10`, granularityUnit: 'second', fill: 'forward', agg: { px: ['last', 'price'], v: ['sum', 'volume'] } }],
  ['racked linear fill, slices', { idList: someIds, startTS: first, endTS: days[2]!, temporality: 'slice', slice: ['14:00', '15:00'], granularity: 15, granularityUnit: 'minute', fill: 'linear', agg: { px: ['avg', 'price'] } }],
  ['filter and arithmetic trees', { startTS: first, endTS: days[1]!, filter: [['>', 'volume', 100]], agg: { notional: ['sum', ['*', 'price', 'volume']], range: ['-', ['max', 'price'], ['min', 'price']] } }],
  ['order-sensitive across identifiers (gathered either way)', { startTS: `${first}D14:00`, endTS: `${first}D15:00`, groupBy: [], granularityUnit: 'minute', agg: { open: ['first', 'price'], close: ['last', 'price'] } }],
];

describe('getStats: streamed and gathered paths agree', () => {
  for (const [name, args] of queries) {
    it(name, () => {
      const body = { table: 'Trade', ...args };
      const before = statsPaths.streamed;
      const streamed = payloadRows(engine, 'getStats', body);
      const usedStream = statsPaths.streamed > before;
      statsPaths.stream = false;
      try {
        const gathered = payloadRows(engine, 'getStats', body);
        expect(statsPaths.streamed).toBe(before + (usedStream ? 1 : 0));
        expect(streamed).toEqual(gathered);
      } finally {
        statsPaths.stream = true;
      }
      if (!name.includes('gathered either way')) expect(usedStream, 'this query should stream').toBe(true);
      expect(streamed.length).toBeGreaterThan(0);
    });
  }
});

describe('getStats scratch memory', () => {
  it('a result stays intact after later queries reuse the scratch arena', () => {
    const snapshot = (result: ReturnType<Engine['call']>): string => payloadJson(result);
    for (const [, args] of queries) {
      const body = { table: 'Trade', ...args };
      const kept = engine.call('getStats', body);
      const before = snapshot(kept);
      for (const [, other] of queries) engine.call('getStats', { table: 'Trade', ...other });
      engine.call('getTicks', { table: 'Trade', startTS: first, endTS: days[1]!, columns: ['price'] });
      expect(snapshot(kept)).toBe(before);
    }
  });
});

describe('Int32Arena', () => {
  it('hands out disjoint arrays in scopes, grows to what a query wanted, and falls back beyond its limit', () => {
    const arena = new Int32Arena(1000);
    expect(arena.take(4).buffer.byteLength).toBe(16); // outside a scope: a new array
    arena.scoped(() => arena.take(10).fill(1)); // empty buffer: a new array, 10 wanted
    const mark = arena.open(); // grows to 10
    const b = arena.take(6);
    const c = arena.take(4);
    b.fill(2);
    c.fill(3);
    expect([...b, ...c]).toEqual([2, 2, 2, 2, 2, 2, 3, 3, 3, 3]);
    expect(b.buffer).toBe(c.buffer);
    const d = arena.take(5); // past the buffer: a new array
    expect(d.buffer).not.toBe(b.buffer);
    // a nested scope takes above the outer arrays and gives them back
    arena.scoped(() => arena.take(3));
    expect([...b, ...c]).toEqual([2, 2, 2, 2, 2, 2, 3, 3, 3, 3]);
    arena.close(mark);
    arena.scoped(() => {
      const f = arena.takeFloat64(7); // grown to 18 words (10 + 5 spilled + 3 nested were live at once)
      f.fill(0.5);
      expect(f.byteOffset % 8).toBe(0);
      expect([...f]).toEqual(Array(7).fill(0.5));
      arena.take(2000); // over the limit: not kept
    });
    arena.scoped(() => expect(arena.take(18).buffer.byteLength).toBe(72));
  });
});
