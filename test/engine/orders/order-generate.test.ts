/** generateOrderAnalytics (SPEC 6.1, 6.3) through the engine: window, selection, market reads, writes. */
import { spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { configFromJson } from '../../../engine/storage/config.js';
import { Database } from '../../../engine/storage/database.js';
import { csv, makeEngine, payloadRows, tempDir } from '../../helpers/db.js';

const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');

function errorOf(e: Engine, op: string, args: Record<string, unknown>): TickscopeError {
  try {
    e.call(op, args);
  } catch (x) {
    if (x instanceof TickscopeError) return x;
    throw x;
  }
  throw new Error('expected an error');
}

const ORDER_COLS = ['eventTimestamp', 'instrumentID', 'orderID', 'eventType', 'side', 'orderQty', 'lastQty', 'lastPx', 'algoStrategy', 'exchangeID'];
// o1: struck on 03-06, filled partly that day and partly the next, done the next morning.
// o2: a MSFT sell on 03-06 with no quote at all before it and no fills (open).
// o3: struck on 03-07 (outside dt 03-06).
const ORDERS = csv(ORDER_COLS, [
  ['2024.03.06D15:00', 'AAPL', 'o1', 'New', 'Buy', '100', '', '', 'IS', 'XNAS'],
  ['2024.03.06D15:30', 'AAPL', 'o1', 'Fill', 'Buy', '', '60', '10.1', 'IS', 'XNAS'],
  ['2024.03.07D09:00', 'AAPL', 'o1', 'Fill', 'Buy', '', '40', '10.2', 'IS', 'XNAS'],
  ['2024.03.07D09:00:01', 'AAPL', 'o1', 'Done', 'Buy', '', '', '', 'IS', 'XNAS'],
  ['2024.03.06D16:00', 'MSFT', 'o2', 'New', 'Sell', '50', '', '', 'VWAP', 'XNYS'],
  ['2024.03.07D10:00', 'AAPL', 'o3', 'New', 'Sell', '10', '', '', 'VWAP', 'XNAS'],
]);
// the quote prevailing at o1's strike lies in the previous day's partition
const QUOTES = csv(['eventTimestamp', 'instrumentID', 'bidPrice', 'askPrice'], [
  ['2024.03.05D20:00', 'AAPL', '9.9', '10.1'],
  ['2024.03.07D09:00:00.5', 'AAPL', '10.0', '10.4'],
]);
const TRADES = csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [
  ['2024.03.06D15:10', 'AAPL', '10.0', '100'],
  ['2024.03.07D08:59', 'AAPL', '10.3', '300'],
  ['2024.03.07D09:30', 'AAPL', '11.0', '1000'],
]);

describe('generateOrderAnalytics on hand-checked orders', () => {
  const tables = { Order: ORDERS, Quote: QUOTES, Trade: TRADES };

  it('counts fills after the window, looks back for the prevailing quote, and returns and stores the rows', () => {
    const engine = makeEngine(tables);
    const rows = payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', dt: '2024.03.06' });
    expect(rows.map((r) => r['orderID'])).toEqual(['o1', 'o2']);
    const o1 = rows[0]!;
    const spread = (200 + (0.4 / 10.2) * 1e4) / 2;
    expect(o1).toMatchObject({
      strikeTime: '2024-03-06T15:00:00.000000000',
      tradeDate: '2024-03-06',
      orderCompletedTime: '2024-03-07T09:00:01.000000000',
      executedQty: 100,
      numFills: 2,
      orderCompletion: true,
      arrivalBidPrice: 9.9,
      arrivalAskPrice: 10.1,
      endBidPrice: 10,
      endAskPrice: 10.4,
      intervalVolume: 400,
    });
    expect(o1['avgExecPrice']).toBeCloseTo(10.14, 12);
    expect(o1['executionShortfall']).toBeCloseTo(140, 9);
    expect(o1['intervalVWAP']).toBeCloseTo(4090 / 400, 12);
    expect(o1['participationRate']).toBeCloseTo(0.25, 12);
    expect(o1['strikeToEndReturn']).toBeCloseTo(200, 9);
    expect(o1['reversionReturn_300']).toBeCloseTo(200, 9);
    expect(o1['intervalSpreadBPS']).toBeCloseTo(spread, 9);
    expect(o1['durationMins']).toBeCloseTo(18 * 60 + 1 / 60, 9);
    // o2: no quote ever, no fills, no completion: nulls, never made-up numbers
    expect(rows[1]).toMatchObject({ orderID: 'o2', executedQty: 0, numFills: 0, avgExecPrice: null, arrivalMid: null, orderCompletedTime: null, durationMins: null, executionShortfall: null });
    // stored in the partition of its strikeTime, readable at once
    const stored = payloadRows(engine, 'getTicks', { table: 'OrderAnalytics', startTS: '2024.03.06', endTS: '2024.03.08', columns: ['orderID', 'executedQty'] });
    expect(stored.map((r) => ({ orderID: r['orderID'], executedQty: r['executedQty'] }))).toEqual([
      { orderID: 'o1', executedQty: 100 },
      { orderID: 'o2', executedQty: 0 },
    ]);
  });

  it('takes the window as dt or startTS and endTS, never both or half', () => {
    const engine = makeEngine(tables);
    expect(payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', startTS: '2024.03.06D15:30', endTS: '2024.03.07D12:00' }).map((r) => r['orderID'])).toEqual(['o2', 'o3']);
    const msg = (args: Record<string, unknown>): string => errorOf(engine, 'generateOrderAnalytics', { table: 'Order', ...args }).message;
    expect(msg({})).toMatch(/^generateOrderAnalytics: needs dt \(a date such as 2024\.03\.06\) or startTS and endTS/);
    expect(msg({ dt: '2024.03.06', startTS: '2024.03.06' })).toBe('dt: give either dt or startTS and endTS, not both (got dt and startTS)');
    expect(msg({ startTS: '2024.03.06' })).toBe('endTS: missing; startTS needs endTS too (or give dt instead of both)');
    expect(msg({ endTS: '2024.03.06' })).toBe('startTS: missing; endTS needs startTS too (or give dt instead of both)');
    expect(msg({ startTS: '2024.03.07', endTS: '2024.03.06' })).toBe('startTS >= endTS');
    expect(msg({ dt: '2024.03.06', instrumentBatchSz: '0' })).toMatch(/^instrumentBatchSz: 0 is not positive; expected an integer >= 1/);
    expect(errorOf(engine, 'generateOrderAnalytics', { table: 'Trade', dt: '2024.03.06' }).message).toMatch(/^table: "Trade" has no column orderID; expected the Order table/);
  });

  it('selects by idList and by filter on the New event', () => {
    const engine = makeEngine(tables);
    expect(payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', dt: '2024.03.06', idList: ['MSFT'] }).map((r) => r['orderID'])).toEqual(['o2']);
    expect(payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', dt: '2024.03.06', filter: [['=', 'algoStrategy', 'IS']] }).map((r) => r['orderID'])).toEqual(['o1']);
  });

  it('appends (rows may repeat) or regenerates (replaces the same orderIDs), and batches give the same rows', () => {
    const engine = makeEngine(tables);
    const count = (): unknown => payloadRows(engine, 'getOrderAnalyticSummary', { table: 'OrderAnalytics', groupBy: [], summaryFunctions: ['orderCount'], agg: { rows: ['count', 'i'] } })[0];
    const first = payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', dt: '2024.03.06' });
    payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', dt: '2024.03.06' });
    expect(count()).toEqual({ orderCount: 2, rows: 4 });
    const again = payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', dt: '2024.03.06', regenExistingIDs: '1b', instrumentBatchSz: '1' });
    expect(again).toEqual(first);
    expect(count()).toEqual({ orderCount: 2, rows: 2 });
  });

  it('writes composite identifiers and always regenerates when config asks for it', () => {
    const config = configFromJson({ mapToCompositeTicker: true, compositeTickerMap: { AAPL: 'AAPL.COMP' } });
    const engine = makeEngine(tables, config);
    payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', dt: '2024.03.06' });
    const rows = payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', dt: '2024.03.06' });
    expect(rows.map((r) => r['instrumentID'])).toEqual(['AAPL.COMP', 'MSFT']);
    // market data was read by the order's own identifier
    expect(rows[0]!['arrivalMid']).toBe(10);
    const stored = payloadRows(engine, 'getTicks', { table: 'OrderAnalytics', startTS: '2024.03.06', endTS: '2024.03.07', columns: ['instrumentID', 'orderID'] });
    expect(stored.map((r) => ({ instrumentID: r['instrumentID'], orderID: r['orderID'] }))).toEqual([
      { instrumentID: 'AAPL.COMP', orderID: 'o1' },
      { instrumentID: 'MSFT', orderID: 'o2' },
    ]);
  });
});

describe('generateOrderAnalytics on the demo', () => {
  let dir = '';
  beforeAll(() => {
    dir = join(tempDir(), 'demo');
    generateDemo(dir, { seed: 5, days: 2, instruments: 4, tradesPerDay: 6000 });
  });

  it('gives exactly the rows the demo generator stored (one implementation)', () => {
    const engine = Engine.open([dir]);
    const dates = Database.open(dir).partitionKeys('OrderAnalytics');
    expect(dates.length).toBe(2);
    // each date twice: later calls take their market series and sums from scratch memory an earlier
    // call wrote (the query arena), which must not show through
    for (const date of [...dates, ...dates]) {
      const dt = date.replaceAll('-', '.');
      const stored = payloadRows(engine, 'getTicks', { table: 'OrderAnalytics', startTS: dt, endTS: `${dt}D23:59:59.999999999` });
      const made = payloadRows(engine, 'generateOrderAnalytics', { table: 'Order', dt, regenExistingIDs: '1b' });
      expect(made.length).toBeGreaterThan(20);
      const key = (r: Record<string, unknown>): string => `${r['strikeTime']} ${r['instrumentID']} ${r['orderID']}`;
      expect(made.map(key)).toEqual([...stored].sort((a, b) => (key(a) < key(b) ? -1 : 1)).map(key));
      const byId = new Map(stored.map((r) => [r['orderID'], r]));
      for (const r of made) {
        const s = byId.get(r['orderID'])!;
        expect(Object.keys(r)).toEqual(Object.keys(s));
        for (const [k, v] of Object.entries(r)) {
          // prefix sums over a different span of the same series: equal to float rounding
          if (typeof v === 'number' && !Number.isInteger(v)) expect(Math.abs(v - (s[k] as number)), `${r['orderID']} ${k}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v)));
          else expect(v, `${r['orderID']} ${k}`).toEqual(s[k]);
        }
      }
    }
  });

  it('leaves OrderAnalytics as before or as after when the writing process is killed at any moment', async () => {
    const copy = join(tempDir(), 'killed');
    cpSync(dir, copy, { recursive: true });
    const rowsNow = (): number => Database.open(copy).rowCount('OrderAnalytics');
    const before = rowsNow();
    const seen = new Set<number>();
    // kills from the start of a run to past the end of most, then a run left to finish
    for (const delay of [...Array.from({ length: 14 }, (_, i) => i * 40), null]) {
      const child = spawn(process.execPath, [CLI, 'call', '--db', copy, 'generateOrderAnalytics', JSON.stringify({ table: 'Order', startTS: '2024.01.01', endTS: '2030.01.01' })], { stdio: 'ignore' });
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      if (delay === null) expect(await exited).toBe(0);
      else {
        await new Promise((r) => setTimeout(r, delay));
        child.kill('SIGKILL');
        await exited;
      }
      const n = rowsNow();
      if (delay === null) expect(n - Math.max(...seen), 'the run left to finish appends every order once').toBe(before);
      seen.add(n);
      // every generation appends all orders of both days: a whole number of full appends, never part of one
      expect((n - before) % before, `after a kill at ${delay} ms: ${n} rows`).toBe(0);
      // and the table reads in full
      expect(payloadRows(Engine.open([copy]), 'getOrderAnalyticSummary', { table: 'OrderAnalytics', groupBy: [], summaryFunctions: ['orderCount'] })[0]).toEqual({ orderCount: before });
    }
    // the run killed at once wrote nothing, the one left to finish wrote all: at least two row counts seen
    expect(seen.has(before)).toBe(true);
    expect(seen.size).toBeGreaterThan(1);
  });
});
