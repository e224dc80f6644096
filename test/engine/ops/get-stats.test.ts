/** getStats (SPEC 5) on small hand-checked tables. */
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { csv, makeEngine, payloadRows } from '../../helpers/db.js';

// AAPL a1..a5 on 03-06 (nulls: a3 volume, a4 price), a6 on 03-07; MSFT m1..m3 (m2, m3 share a time).
const TRADES = csv(['eventTimestamp', 'instrumentID', 'price', 'volume', 'conditions', 'tradedExchange'], [
  ['2024.03.06D10:00:00', 'AAPL', '10', '100', '@', 'XNAS'],
  ['2024.03.06D10:00:30', 'AAPL', '12', '200', 'F', 'XNAS'],
  ['2024.03.06D10:01:10', 'AAPL', '11', '', '@', 'XNAS'],
  ['2024.03.06D10:02:59.999999999', 'AAPL', '', '300', '@', 'XNAS'],
  ['2024.03.06D10:05:00', 'AAPL', '15', '100', 'Z', 'XNAS'],
  ['2024.03.06D10:00:10', 'MSFT', '100', '10', '@', 'XNAS'],
  ['2024.03.06D10:03:00', 'MSFT', '104', '30', '@', 'XNAS'],
  ['2024.03.06D10:03:00', 'MSFT', '102', '20', 'F', 'XNAS'],
  ['2024.03.07D10:00:00', 'AAPL', '20', '50', '@', 'XNAS'],
]);
const INSTRUMENTS = csv(['instrumentID', 'sector', 'exchangeID'], [
  ['AAPL', 'Technology', 'XNAS'],
  ['MSFT', 'Technology', 'XNAS'],
]);
const engine = makeEngine({ Trade: TRADES, Instrument: INSTRUMENTS });
const DAY = { startTS: '2024.03.06D10:00', endTS: '2024.03.06D11:00' };
const stats = (args: Record<string, unknown>): Array<Record<string, unknown>> => payloadRows(engine, '.fsi.getStats', { table: 'Trade', ...args });

function errorOf(args: Record<string, unknown>): TickscopeError {
  try {
    engine.call('getStats', { table: 'Trade', ...args });
  } catch (e) {
    if (e instanceof TickscopeError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('getStats analytics', () => {
  it('computes built-in <agg><Column> analytics per identifier, skipping nulls', () => {
    const [aapl, msft] = stats({ ...DAY, analytics: ['firstPrice', 'lastPrice', 'maxPrice', 'minPrice', 'avgPrice', 'medPrice', 'sumVolume', 'firstConditions'] });
    // AAPL prices 10 12 11 (null) 15: avg 12, median of 10 11 12 15 = 11.5; volumes 100 200 (null) 300 100.
    expect(aapl).toEqual({ instrumentID: 'AAPL', firstPrice: 10, lastPrice: 15, maxPrice: 15, minPrice: 10, avgPrice: 12, medPrice: 11.5, sumVolume: 700, firstConditions: '@' });
    // MSFT: m2 and m3 share a time; storage order makes m3 (102) the last.
    expect(msft).toEqual({ instrumentID: 'MSFT', firstPrice: 100, lastPrice: 102, maxPrice: 104, minPrice: 100, avgPrice: 102, medPrice: 102, sumVolume: 60, firstConditions: '@' });
  });

  it('computes configured analytics (vwap, turnover, twap, tradeCount)', () => {
    const [aapl, msft] = stats({ ...DAY, analytics: ['vwap', 'turnover', 'twap', 'tradeCount'] });
    // vwap over rows with both: (100·10 + 200·12 + 100·15) / 400; twap = (10 + 15 + 10 + 15) / 4.
    expect(aapl).toEqual({ instrumentID: 'AAPL', vwap: 12.25, turnover: 4900, twap: 12.5, tradeCount: 4 });
    expect(msft!['vwap']).toBeCloseTo(6160 / 60, 10);
  });

  it('averages timestamps exactly and keeps first/last timestamps to the nanosecond', () => {
    const [aapl] = stats({ ...DAY, analytics: ['firstEventTimestamp', 'lastEventTimestamp', 'maxEventTimestamp', 'avgEventTimestamp'], idList: ['AAPL'], endTS: '2024.03.06D10:03' });
    // a1..a4: 10:00:00, 10:00:30, 10:01:10, 10:02:59.999999999; the mean offset 69.99999999975 s rounds
    // to the nearest nanosecond (as q casts a float back to a timestamp).
    expect(aapl).toEqual({
      instrumentID: 'AAPL',
      firstEventTimestamp: '2024-03-06T10:00:00.000000000',
      lastEventTimestamp: '2024-03-06T10:02:59.999999999',
      maxEventTimestamp: '2024-03-06T10:02:59.999999999',
      avgEventTimestamp: '2024-03-06T10:01:10.000000000',
    });
  });

  it('lists the valid names when one is unknown', () => {
    const e = errorOf({ analytics: ['maxprice'] });
    expect(e.ac).toBe(5);
    expect(e.message).toMatch(/^analytics: "maxprice" is not an analytic of Trade; expected one of firstEventTimestamp, .*maxPrice.*, vwap, turnover, twap, tradeCount$/);
  });
});

describe('getStats agg', () => {
  it('takes the dictionary, list-of-trees and triplet formats, after analytics', () => {
    expect(stats({ ...DAY, analytics: ['maxPrice'], agg: { lo: ['min', 'price'], n: ['count', 'i'] } })[0]).toEqual({ instrumentID: 'AAPL', maxPrice: 15, lo: 10, n: 5 });
    expect(stats({ ...DAY, agg: [['max', 'price'], ['sum', 'volume']] })[0]).toEqual({ instrumentID: 'AAPL', aggregation1: 15, aggregation2: 700 });
    expect(stats({ ...DAY, agg: [['hi', 'max', 'price'], ['lo', 'min', 'price']] })[0]).toEqual({ instrumentID: 'AAPL', hi: 15, lo: 10 });
    expect(stats({ ...DAY, agg: ['max', 'price'] })[0]).toEqual({ instrumentID: 'AAPL', aggregation1: 15 });
    expect(stats({ ...DAY, agg: JSON.stringify({ hi: ['max', 'price'] }) })[0]).toEqual({ instrumentID: 'AAPL', hi: 15 });
  });

  it('evaluates nested trees, literals (REST strings too), i and element-wise operators', () => {
    const [aapl] = stats({
      ...DAY,
      idList: ['AAPL'],
      agg: {
        range: ['-', ['max', 'price'], ['min', 'price']],
        mid: ['%', ['+', ['max', 'price'], ['min', 'price']], '2'],
        notional: ['sum', ['*', 'price', 'volume']],
        rows: ['count', 'i'],
        big: ['sum', ['>', 'volume', 150]],
        abs: ['abs', ['neg', ['first', 'price']]],
        rounded: ['floor', ['avg', ['%', 'price', 3]]],
        capped: ['max', ['&', 'price', 11]],
        logged: ['exp', ['log', ['first', 'price']]],
      },
    });
    expect(aapl).toMatchObject({ range: 5, mid: 12.5, notional: 4900, rows: 5, big: 2, abs: 10, rounded: 4, capped: 11 });
    expect(aapl!['logged']).toBeCloseTo(10, 12);
  });

  it('applies the remaining element-wise operators: sqrt ceiling signum | <> <= >= /', () => {
    // AAPL prices 10 12 11 null 15; volumes 100 200 null 300 100
    const [aapl] = stats({
      ...DAY,
      idList: ['AAPL'],
      agg: {
        root: ['sqrt', ['sum', 'volume']],
        up: ['ceiling', ['avg', ['/', 'price', 5]]],
        sign: ['signum', ['-', ['first', 'price'], ['last', 'price']]],
        floored: ['min', ['|', 'price', 11]],
        not12: ['sum', ['<>', 'price', 12]],
        upTo11: ['sum', ['<=', 'price', 11]],
        from12: ['sum', ['>=', 'price', 12]],
      },
    });
    // avg of price/5 = (2 + 2.4 + 2.2 + 3) / 4 = 2.4 -> 3; <> counts the null price (SPEC 4 nulls)
    expect(aapl).toEqual({ instrumentID: 'AAPL', root: Math.sqrt(700), up: 3, sign: -1, floored: 11, not12: 4, upTo11: 2, from12: 2 });
  });

  it('computes spreads, weighted sums, medians and distinct counts', () => {
    const [aapl] = stats({ ...DAY, idList: ['AAPL'], agg: { dev: ['dev', 'price'], var: ['var', 'price'], sdev: ['sdev', 'price'], svar: ['svar', 'price'], wsum: ['wsum', 'volume', 'price'], conds: ['count', ['distinct', 'conditions']] } });
    // prices 10 12 11 15: mean 12, squared deviations 4 0 1 9 = 14.
    expect(aapl!['var']).toBeCloseTo(3.5, 12);
    expect(aapl!['dev']).toBeCloseTo(Math.sqrt(3.5), 12);
    expect(aapl!['svar']).toBeCloseTo(14 / 3, 12);
    expect(aapl!['sdev']).toBeCloseTo(Math.sqrt(14 / 3), 12);
    expect([aapl!['wsum'], aapl!['conds']]).toEqual([4900, 3]);
  });

  it('runs ordered operators within each group, in time order', () => {
    const [aapl, msft] = stats({ ...DAY, agg: { moves: ['sum', ['abs', ['deltas', 'price']]], runLast: ['last', ['sums', 'volume']], lastPrev: ['last', ['prev', 'price']], firstNext: ['first', ['next', 'price']], filled: ['count', ['fills', 'price']], ratio: ['last', ['ratios', 'price']] } });
    // AAPL prices in order 10 12 11 null 15: deltas 10 2 -1 null null (null - x is null) -> |.| summed = 13;
    // prev is null 10 12 11 null, whose last non-null is 11.
    expect(aapl).toMatchObject({ moves: 13, runLast: 700, lastPrev: 11, firstNext: 12, filled: 5 });
    // MSFT 100 104 102: deltas 100 4 -2 -> 106; ratios ends with 102/104.
    expect(msft).toMatchObject({ moves: 106, runLast: 60, lastPrev: 104, firstNext: 104, filled: 3 });
    expect(msft!['ratio']).toBeCloseTo(102 / 104, 12);
  });

  it('gives null for an aggregate of no values, except count and sum', () => {
    const [row] = stats({ ...DAY, idList: ['AAPL'], startTS: '2024.03.06D10:02', endTS: '2024.03.06D10:03', agg: { p: ['max', 'price'], n: ['count', 'price'], s: ['sum', 'price'], a: ['avg', 'price'], m: ['med', 'price'] } });
    expect(row).toEqual({ instrumentID: 'AAPL', p: null, n: 0, s: 0, a: null, m: null });
  });

  it('takes the vector conditional ? and the null literals 0n and 0N', () => {
    const [aapl, msft] = stats({
      ...DAY,
      agg: {
        // volume where the price is above 11, else null: AAPL 200 (12) + 100 (15); MSFT all three
        bigVol: ['sum', ['?', ['>', 'price', 11], 'volume', '0N']],
        // mean price of rows with volume >= 200 (a null volume's row is not one of them): AAPL 12; MSFT none
        avgBig: ['avg', ['?', ['>=', 'volume', 200], 'price', '0n']],
        // a per-group condition broadcast to rows: count of rows when the max price passes 100
        rowsIfDear: ['sum', ['?', ['>', ['max', 'price'], 100], 1, 0]],
        // divide only where the divisor is positive
        safeRatio: ['avg', ['?', ['>', 'volume', 150], ['%', 'price', 'volume'], '0n']],
        nullLong: ['first', ['?', 0, 'volume', '0N']],
      },
    });
    expect(aapl).toEqual({ instrumentID: 'AAPL', bigVol: 300, avgBig: 12, rowsIfDear: 0, safeRatio: 12 / 200, nullLong: null });
    expect(msft).toEqual({ instrumentID: 'MSFT', bigVol: 60, avgBig: null, rowsIfDear: 3, safeRatio: null, nullLong: null });
  });

  it('names a tree that does not reduce, an unknown operator or column, and a wrong arity', () => {
    expect(errorOf({ agg: { x: ['deltas', 'price'] } }).message).toBe(
      'agg: ["deltas","price"] does not reduce to one value per group; expected a tree ending in an aggregate, such as ["last", ...] or ["sum", ...]',
    );
    expect(errorOf({ agg: { x: ['maximum', 'price'] } }).message).toMatch(/^agg: \["maximum","price"\] has operator "maximum"; expected one of first last min max/);
    expect(errorOf({ agg: { x: ['max', 'prise'] } }).message).toMatch(/^agg: \["max","prise"\] names "prise", which is not a column; expected a column \(eventTimestamp, /);
    expect(errorOf({ agg: { x: ['wavg', 'volume'] } }).message).toBe('agg: ["wavg","volume"] has wavg with 1 argument; expected wavg with 2');
    expect(errorOf({ agg: { x: ['sum', 'conditions'] } }).message).toMatch(/^agg: \["sum","conditions"\] applies sum to conditions \(symbol\); expected first, last or count/);
    expect(errorOf({ agg: 'not json' }).ac).toBe(4);
    expect(errorOf({}).message).toMatch(/^getStats: needs analytics .* or agg/);
  });
});

describe('getStats groupBy', () => {
  it('groups by the identifier by default, by several columns, or not at all', () => {
    expect(stats({ ...DAY, agg: { n: ['count', 'i'] } })).toEqual([{ instrumentID: 'AAPL', n: 5 }, { instrumentID: 'MSFT', n: 3 }]);
    expect(stats({ ...DAY, groupBy: ['conditions', 'instrumentID'], agg: { n: ['count', 'i'] } })).toEqual([
      { conditions: '@', instrumentID: 'AAPL', n: 3 },
      { conditions: '@', instrumentID: 'MSFT', n: 2 },
      { conditions: 'F', instrumentID: 'AAPL', n: 1 },
      { conditions: 'F', instrumentID: 'MSFT', n: 1 },
      { conditions: 'Z', instrumentID: 'AAPL', n: 1 },
    ]);
    expect(stats({ ...DAY, groupBy: [], agg: { n: ['count', 'i'], v: ['sum', 'volume'] } })).toEqual([{ n: 8, v: 760 }]);
    expect(stats({ startTS: '2024.01.01', endTS: '2024.01.02', groupBy: [], agg: { n: ['count', 'i'] } })).toEqual([{ n: 0 }]);
  });

  it('groups by a reference column through ref', () => {
    expect(stats({ ...DAY, ref: ['Instrument'], groupBy: ['sector'], agg: { n: ['count', 'i'] } })).toEqual([{ sector: 'Technology', n: 8 }]);
    expect(errorOf({ groupBy: ['sector'], agg: { n: ['count', 'i'] } }).ac).toBe(7);
  });
});
