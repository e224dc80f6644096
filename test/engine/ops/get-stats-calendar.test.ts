/** getStats applyHolidayCalendar, slices with buckets, orderbook per bucket, sort and rounding. */
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { csv, makeEngine, payloadRows } from '../../helpers/db.js';

// VOD trades on XLON daily; 2024-03-08 (Friday) is an XLON holiday in the calendar, with a stray print.
// SHEL has no tradedExchange: its exchange comes from the Instrument table (XLON as well).
// 2024-03-11 has no VOD trade, so its bucket is empty and gets filled.
const TRADES = csv(['eventTimestamp', 'instrumentID', 'price', 'tradedExchange'], [
  ['2024.03.06D10:00', 'VOD', '10', 'XLON'],
  ['2024.03.07D10:00', 'VOD', '11', 'XLON'],
  ['2024.03.08D10:00', 'VOD', '99', 'XLON'],
  ['2024.03.12D10:00', 'VOD', '15', 'XLON'],
  ['2024.03.06D10:00', 'SHEL', '20', ''],
  ['2024.03.08D10:00', 'SHEL', '22', ''],
]);
const CAL = csv(['exchangeID', 'date', 'description'], [
  ['XLON', '2024.03.08', 'Demo holiday'],
  ['XNYS', '2024.03.12', 'Another holiday'],
]);
const INSTRUMENTS = csv(['instrumentID', 'exchangeID'], [['VOD', 'XLON'], ['SHEL', 'XLON']]);
const SNAPSHOTS = csv(['eventTimestamp', 'instrumentID', 'bidPrice', 'bidSize', 'askPrice', 'askSize'], [
  ['2024.03.06D10:00:30', 'VOD', '"[10.0,9.9]"', '"[5,6]"', '"[10.1,10.2]"', '"[7,8]"'],
  ['2024.03.06D10:00:50', 'VOD', '"[10.1,10.0]"', '"[1,2]"', '"[10.2,10.3]"', '"[3,9]"'],
  ['2024.03.06D10:01:10', 'VOD', '"[10.2]"', '"[4]"', '"[10.4]"', '"[4]"'],
]);
const engine = makeEngine({ Trade: TRADES, ExchangeHolidayCal: CAL, Instrument: INSTRUMENTS, OrderbookSnapshots: SNAPSHOTS });
const WEEK = { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.13', granularityUnit: 'day', agg: { px: ['last', 'price'] } };
const days = (args: Record<string, unknown>, id = 'VOD'): Array<[string, unknown]> =>
  payloadRows(engine, 'getStats', { ...WEEK, ...args })
    .filter((r) => r['instrumentID'] === id)
    .map((r) => [(r['eventTimestamp'] as string).slice(0, 10), r['px']]);

describe('applyHolidayCalendar', () => {
  it('without it, every calendar day of the week is racked and filled', () => {
    expect(days({ fill: 'forward' })).toEqual([
      ['2024-03-06', 10], ['2024-03-07', 11], ['2024-03-08', 99], ['2024-03-09', 99], ['2024-03-10', 99], ['2024-03-11', 99], ['2024-03-12', 15],
    ]);
  });

  it('1b removes weekends and the group exchange\'s holidays, then interpolates across the gap', () => {
    // 03-07 (11) to 03-12 (15) is 5 days; 03-11 is 4 days in: 11 + 4·4/5.
    const linear = days({ fill: 'linear', applyHolidayCalendar: '1b' });
    expect(linear.map((d) => d[0])).toEqual(['2024-03-06', '2024-03-07', '2024-03-11', '2024-03-12']);
    expect(linear[2]![1]).toBeCloseTo(14.2, 12);
    // by position, 03-11 is half way between 03-07 and 03-12.
    expect(days({ fill: 'linearStep', applyHolidayCalendar: true })[2]).toEqual(['2024-03-11', 13]);
  });

  it('finds a group\'s exchange through the Instrument table when the rows do not say', () => {
    expect(days({ fill: 'forward', applyHolidayCalendar: '1b', ref: ['Instrument'] }, 'SHEL').map((d) => d[0])).toEqual(['2024-03-06', '2024-03-07', '2024-03-11', '2024-03-12']);
  });

  it('an exchange symbol applies that exchange\'s holidays to every group; the null symbol applies all', () => {
    expect(days({ fill: 'forward', applyHolidayCalendar: 'XNYS' }).map((d) => d[0])).toEqual(['2024-03-06', '2024-03-07', '2024-03-08', '2024-03-11']);
    expect(days({ fill: 'forward', applyHolidayCalendar: '' }).map((d) => d[0])).toEqual(['2024-03-06', '2024-03-07', '2024-03-11']);
  });

  it('needs fill and granularityUnit', () => {
    const err = (args: Record<string, unknown>): string => {
      try {
        engine.call('getStats', { ...WEEK, ...args });
      } catch (e) {
        return `${(e as TickscopeError).ac} ${(e as TickscopeError).message}`;
      }
      return '';
    };
    expect(err({ applyHolidayCalendar: '1b' })).toBe('15 applyHolidayCalendar: needs fill and granularityUnit (it removes holiday buckets before racking and filling); missing fill');
    expect(err({ applyHolidayCalendar: '1b', fill: 'zero', granularityUnit: '' })).toMatch(/missing granularityUnit$/);
  });
});

describe('getStats with slices, orderbook, sort and rounding', () => {
  it('keeps only the buckets inside the daily slices', () => {
    const got = payloadRows(engine, 'getStats', {
      table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07', temporality: 'slice', slice: ['09:00', '11:00'], granularityUnit: 'hour', fill: 'zero', idList: ['VOD'], agg: { n: ['count', 'i'] },
    });
    expect(got.map((r) => [(r['eventTimestamp'] as string).slice(11, 16), r['n']])).toEqual([['09:00', 0], ['10:00', 1]]);
  });

  it('plotOrderbookSnapshots gives the top of book of the last snapshot of each bucket', () => {
    const got = payloadRows(engine, 'getStats', {
      table: 'OrderbookSnapshots', startTS: '2024.03.06D10:00', endTS: '2024.03.06D10:02', granularityUnit: 'minute', orderbook: 'plotOrderbookSnapshots', decPlaces: '6',
    });
    expect(got).toEqual([
      { eventTimestamp: '2024-03-06T10:00:00.000000000', instrumentID: 'VOD', bestBid: 10.1, bestAsk: 10.2, maxSize: 9, spread: 0.1, midPoint: 10.15 },
      { eventTimestamp: '2024-03-06T10:01:00.000000000', instrumentID: 'VOD', bestBid: 10.2, bestAsk: 10.4, maxSize: 4, spread: 0.2, midPoint: 10.3 },
    ]);
  });

  it('sorts and rounds the result, and renders bucket times in outputTZ', () => {
    const got = payloadRows(engine, 'getStats', { table: 'Trade', agg: { avg: ['avg', 'price'] }, sortCols: ['desc', 'avg'], decPlaces: '1' });
    // VOD 10 11 99 15 -> 33.75; SHEL 20 22 -> 21.
    expect(got).toEqual([{ instrumentID: 'VOD', avg: 33.8 }, { instrumentID: 'SHEL', avg: 21 }]);
    const tokyo = payloadRows(engine, 'getStats', { ...WEEK, idList: ['VOD'], outputTZ: 'Asia/Tokyo' });
    expect(tokyo[0]!['eventTimestamp']).toBe('2024-03-06T09:00:00.000000000');
  });
});
