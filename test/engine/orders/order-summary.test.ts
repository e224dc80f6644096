/** getOrderAnalyticSummary (SPEC 6.2, 6.3) on a small hand-checked OrderAnalytics table. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../engine/engine.js';
import { TickscopeError } from '../../../engine/core/errors.js';
import { configFromJson, DEMO_SUMMARY_FUNCTIONS, STANDARD_SUMMARY_FUNCTIONS } from '../../../engine/storage/config.js';
import { Database } from '../../../engine/storage/database.js';
import { csv, makeDb, makeEngine, payloadRows } from '../../helpers/db.js';

const COLS = [
  'strikeTime', 'instrumentID', 'orderID', 'algoStrategy', 'tradeDate', 'side', 'placementQty', 'executedQty', 'orderCompletion', 'durationMins',
  'intervalVolume', 'executionShortfall', 'intervalSpreadBPS', 'strikeToEndReturn', 'reversionReturn_300', 'reversionReturn_1800', 'executedValue',
];
// o2: no interval volume, zero spread; o3: no fills (shortfall, duration and returns null)
const ROWS = csv(COLS, [
  ['2024.03.06D10:00', 'AAPL', 'o1', 'IS', '2024.03.06', 'Buy', '100', '100', '1b', '10', '1000', '5', '2', '4', '3', '2', '1000'],
  ['2024.03.06D11:00', 'AAPL', 'o2', 'VWAP', '2024.03.06', 'Sell', '200', '50', '0b', '20', '0', '-3', '0', '-2', '', '1', '600'],
  ['2024.03.06D12:00', 'AAPL', 'o3', 'IS', '2024.03.06', 'Buy', '100', '0', '0b', '', '500', '', '3', '', '', '', '0'],
  ['2024.03.07D10:00', 'MSFT', 'o4', 'IS', '2024.03.07', 'Buy', '300', '300', '1b', '30', '3000', '7', '1', '6', '5', '4', '3000'],
  ['2024.03.11D10:00', 'MSFT', 'o5', 'VWAP', '2024.03.11', 'Sell', '100', '100', '1b', '40', '400', '1', '2', '0', '1', '2', '100'],
]);
const INSTRUMENTS = csv(['instrumentID', 'exchangeID'], [
  ['AAPL', 'XNAS'],
  ['MSFT', 'XNYS'],
]);
const HOLIDAYS = csv(['exchangeID', 'date', 'description'], [['XNAS', '2024.03.08', 'test holiday']]);
const config = configFromJson({ summaryFunctions: { ...STANDARD_SUMMARY_FUNCTIONS, ...DEMO_SUMMARY_FUNCTIONS }, defaultSummaryFunctions: Object.keys(STANDARD_SUMMARY_FUNCTIONS) });
const engine = makeEngine({ OrderAnalytics: ROWS, Instrument: INSTRUMENTS, ExchangeHolidayCal: HOLIDAYS }, config);
const summary = (args: Record<string, unknown>): Array<Record<string, unknown>> => payloadRows(engine, 'getOrderAnalyticSummary', { table: 'OrderAnalytics', ...args });

function errorOf(e: Engine, args: Record<string, unknown>): TickscopeError {
  try {
    e.call('getOrderAnalyticSummary', { table: 'OrderAnalytics', ...args });
  } catch (x) {
    if (x instanceof TickscopeError) return x;
    throw x;
  }
  throw new Error('expected an error');
}

describe('getOrderAnalyticSummary', () => {
  it('computes the twelve default functions per instrument, with the null rules of SPEC 6.3', () => {
    const [aapl, msft] = summary({});
    expect(Object.keys(aapl!)).toEqual(['instrumentID', ...Object.keys(STANDARD_SUMMARY_FUNCTIONS)]);
    // AAPL: partRate over o1 and o3 (o2 has no interval volume); shortfall over o1, o2 (o3 has no fills):
    // mean 1, sample sd sqrt(32), stderr sqrt(32)/sqrt(2) = 4; spread-normalised only o1 (o2's spread is 0).
    expect(aapl).toEqual({
      instrumentID: 'AAPL', orderCount: 3, sharesExecuted: 150, fillRate: 150 / 400, orderCompletionRate: 1 / 3, durationMins: 15,
      partRate: 100 / 1500, executionShortfall: 1, executionShortfallStderr: expect.closeTo(4, 12), spreadNormalizedExecutionShortfall: 2.5,
      startToEndReturn: 1, startToEnd5MinReturn: 3, startToEnd30MinReturn: 1.5,
    });
    expect(msft).toEqual({
      instrumentID: 'MSFT', orderCount: 2, sharesExecuted: 400, fillRate: 1, orderCompletionRate: 1, durationMins: 35,
      partRate: 400 / 3400, executionShortfall: 4, executionShortfallStderr: expect.closeTo(3, 12), spreadNormalizedExecutionShortfall: 3.75,
      startToEndReturn: 3, startToEnd5MinReturn: 3, startToEnd30MinReturn: 3,
    });
  });

  it('takes named functions, configured extras, agg after them, several groups, no groups, and sortCols', () => {
    expect(summary({ summaryFunctions: ['orderCount', 'executionShortfallVW'], groupBy: ['algoStrategy', 'side'], agg: { n: ['count', 'i'] } })).toEqual([
      { algoStrategy: 'IS', side: 'Buy', orderCount: 3, executionShortfallVW: (1000 * 5 + 3000 * 7) / 4000, n: 3 },
      { algoStrategy: 'VWAP', side: 'Sell', orderCount: 2, executionShortfallVW: (600 * -3 + 100 * 1) / 700, n: 2 },
    ]);
    expect(summary({ summaryFunctions: ['orderCount', 'sharesExecuted'], groupBy: [] })).toEqual([{ orderCount: 5, sharesExecuted: 550 }]);
    expect(summary({ summaryFunctions: ['sharesExecuted'], sortCols: [['desc', 'sharesExecuted']] }).map((r) => r['instrumentID'])).toEqual(['MSFT', 'AAPL']);
    // one order per group: the standard error needs two
    const byOrder = summary({ summaryFunctions: ['executionShortfall', 'executionShortfallStderr'], groupBy: ['orderID'] });
    expect(byOrder[0]).toEqual({ orderID: 'o1', executionShortfall: 5, executionShortfallStderr: null });
  });

  it('treats omitted, null and [""] summaryFunctions as the defaults; an unknown name lists the configured ones', () => {
    const all = summary({});
    expect(summary({ summaryFunctions: null })).toEqual(all);
    expect(summary({ summaryFunctions: [''] })).toEqual(all);
    expect(Object.keys(all[0]!)).not.toContain('executionShortfallVW');
    const e = errorOf(engine, { summaryFunctions: ['orderCount', 'slippage'] });
    expect(e.ac).toBe(5);
    expect(e.message).toBe(`summaryFunctions: "slippage" is not a configured summary function; expected one of ${Object.keys(config.summaryFunctions).join(', ')} (config.json summaryFunctions)`);
  });

  it('windows on strikeTime and filters rows', () => {
    expect(summary({ summaryFunctions: ['orderCount'], startTS: '2024.03.06D10:30', endTS: '2024.03.07D10:00' })).toEqual([{ instrumentID: 'AAPL', orderCount: 2 }]);
    expect(summary({ summaryFunctions: ['orderCount'], groupBy: [], filter: [['=', 'side', 'Sell']] })).toEqual([{ orderCount: 2 }]);
  });

  it('racks by tradeDate (trading days of each instrument’s exchange) and fills forward', () => {
    const rows = summary({ summaryFunctions: ['orderCount', 'durationMins'], groupBy: ['instrumentID', 'tradeDate'], fill: 'forward', startTS: '2024.03.06', endTS: '2024.03.12' });
    // 09 and 10 are a weekend; 08 is a holiday of XNAS (AAPL's exchange), not of XNYS
    expect(rows).toEqual([
      { instrumentID: 'AAPL', tradeDate: '2024-03-06', orderCount: 3, durationMins: 15 },
      { instrumentID: 'AAPL', tradeDate: '2024-03-07', orderCount: 0, durationMins: 15 },
      { instrumentID: 'AAPL', tradeDate: '2024-03-11', orderCount: 0, durationMins: 15 },
      { instrumentID: 'MSFT', tradeDate: '2024-03-06', orderCount: 0, durationMins: null },
      { instrumentID: 'MSFT', tradeDate: '2024-03-07', orderCount: 1, durationMins: 30 },
      { instrumentID: 'MSFT', tradeDate: '2024-03-08', orderCount: 0, durationMins: 30 },
      { instrumentID: 'MSFT', tradeDate: '2024-03-11', orderCount: 1, durationMins: 40 },
    ]);
    const linear = summary({ summaryFunctions: ['durationMins'], groupBy: ['instrumentID', 'tradeDate'], fill: 'linear', startTS: '2024.03.06', endTS: '2024.03.12', filter: [['=', 'instrumentID', 'MSFT']] });
    // 30 on Thu 07, 40 on Mon 11: Fri 08 lies one day of four along
    expect(linear.map((r) => r['durationMins'])).toEqual([null, 30, 32.5, 40]);
  });

  it('fills zero without tradeDate, and refuses the fills that need it', () => {
    const rows = summary({ summaryFunctions: ['durationMins'], groupBy: ['orderID'], fill: 'zero' });
    expect(rows.find((r) => r['orderID'] === 'o3')).toEqual({ orderID: 'o3', durationMins: 0 });
    expect(errorOf(engine, { fill: 'forward' }).message).toMatch(/^fill: forward needs tradeDate in groupBy/);
  });

  it('names the table when it holds no order analytics', () => {
    const e = errorOf(engine, { table: 'Trade' });
    expect(e.message).toBe('table: "Trade" has no column orderID, which the summary function orderCount reads; expected a table of order analytics, such as OrderAnalytics');
  });
});

describe('summary functions from config.json', () => {
  it('adds a function by editing config.json, with no rebuild or restart', () => {
    const db = makeDb({ OrderAnalytics: csv(['strikeTime', 'instrumentID', 'orderID', 'vwapSlippage'], [['2024.03.06D10:00', 'AAPL', 'a', '2'], ['2024.03.06D11:00', 'AAPL', 'b', '4']]) });
    const e = new Engine([db]);
    expect(Object.keys(payloadRows(e, 'getOrderAnalyticSummary', { table: 'OrderAnalytics' })[0]!)).toContain('orderCount');
    writeFileSync(join(db.dir, 'config.json'), JSON.stringify({ summaryFunctions: { avgSlippage: { tree: ['avg', 'vwapSlippage'], kind: 'bps', adverse: 'high' } } }));
    expect(payloadRows(e, 'getOrderAnalyticSummary', { table: 'OrderAnalytics' })).toEqual([{ instrumentID: 'AAPL', avgSlippage: 3 }]);
    // a broken edit is the next query's error, naming the function, until it is fixed
    writeFileSync(join(db.dir, 'config.json'), JSON.stringify({ summaryFunctions: { avgSlippage: ['avg', 'slippage'] } }));
    expect(errorOf(e, {}).message).toMatch(/config\.json: summaryFunctions\.avgSlippage: \["avg","slippage"\] names "slippage", which is not a column/);
    expect(errorOf(e, {}).ac).toBe(32);
  });

  it('refuses a broken definition when the database opens, naming the function', () => {
    const db = makeDb({});
    const open = (summaryFunctions: unknown): string => {
      writeFileSync(join(db.dir, 'config.json'), JSON.stringify({ summaryFunctions }));
      try {
        new Engine([Database.open(db.dir)]);
      } catch (x) {
        return (x as Error).message;
      }
      return '';
    };
    expect(open({ bad: ['avg', 'slipage'] })).toMatch(/config\.json: summaryFunctions\.bad: \["avg","slipage"\] names "slipage", which is not a column/);
    expect(open({ rowwise: ['deltas', 'executedQty'] })).toMatch(/config\.json: summaryFunctions\.rowwise: \["deltas","executedQty"\] does not reduce to one value per group/);
    expect(open({ typo: ['avrg', 'executedQty'] })).toMatch(/summaryFunctions\.typo: .* has operator "avrg"/);
  });
});
