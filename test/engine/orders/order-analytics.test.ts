/**
 * Order analytics (SPEC 6.1) on small hand-built orders and markets, with expected values worked out
 * from the SPEC's definitions; then the demo's stored OrderAnalytics checked against its orders and
 * market data.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { columnFromValues } from '../../../engine/core/builder.js';
import { type Column, numberAt } from '../../../engine/core/column.js';
import { Table } from '../../../engine/core/table.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { computeOrderAnalytics } from '../../../engine/orders/analytics.js';
import { InMemoryMarketView } from '../../../engine/orders/market-view.js';
import { marketViewFromTables } from '../../../engine/orders/view-from-tables.js';
import { loadAll } from '../../../engine/storage/append.js';
import { Database } from '../../../engine/storage/database.js';
import { standardSchema } from '../../../engine/storage/schema.js';
import { tempDir } from '../../helpers/db.js';

const NULL_TS = -9223372036854775808n;
/** 2024-03-11 14:00:00 UTC; hand-built times are seconds after it. */
const BASE = BigInt(Date.UTC(2024, 2, 11, 14, 0)) * 1_000_000n;
const at = (sec: number): bigint => BASE + BigInt(Math.round(sec * 1000)) * 1_000_000n;
const DAY_2024_03_11 = Date.UTC(2024, 2, 11) / 86_400_000;

interface Ev {
  t: number;
  order: string;
  inst: string;
  type: string;
  side?: string;
  qty?: number;
  limit?: number;
  lastQty?: number;
  lastPx?: number;
  isin?: string;
  mic?: string;
  ex?: string;
}

/** An Order table (standard columns) from events, in the row order given. */
function orders(evs: readonly Ev[]): Table {
  const t = standardSchema().tables.get('Order')!;
  const value = (name: string, e: Ev): number | bigint | string | null => {
    switch (name) {
      case 'eventTimestamp': return at(e.t);
      case 'instrumentID': return e.inst;
      case 'orderID': return e.order;
      case 'eventType': return e.type;
      case 'side': return e.side ?? '';
      case 'orderQty': return e.qty ?? null;
      case 'limitPrice': return e.limit ?? null;
      case 'lastQty': return e.lastQty ?? null;
      case 'lastPx': return e.lastPx ?? null;
      case 'algoStrategy': return 'VWAP';
      case 'executingBrokerCode': return 'GSCO';
      case 'exchangeID': return e.ex ?? 'XNAS';
      case 'MIC': return e.mic ?? 'XNAS';
      case 'ISIN': return e.isin ?? 'US0000XYZ001';
      case 'tradingVenueCode': return 'ARCX';
      case 'currency': return 'USD';
      default: throw new Error(name);
    }
  };
  return new Table(
    t.columns.map((c) => c.name),
    t.columns.map((c) => columnFromValues(c.type, evs.map((e) => value(c.name, e)))),
  );
}

const QUOTES: Array<[number, number, number]> = [
  [5, 100.0, 100.2],
  [30, 100.2, 100.4],
  [40, 100.3, 100.5],
  [340, 100.6, 100.8],
  [1000, 99.8, 100.0],
  [1841, 101.0, 101.2],
];
const TRADES: Array<[number, number, number]> = [
  [5, 100.1, 100],
  [10, 100.1, 200],
  [25, 100.3, 300],
  [40, 100.4, 500],
  [41, 101.0, 1000],
];

function market(): InMemoryMarketView {
  return new InMemoryMarketView()
    .setQuotes('XYZ', {
      time: BigInt64Array.from(QUOTES, ([t]) => at(t)),
      bid: Float64Array.from(QUOTES, ([, b]) => b),
      ask: Float64Array.from(QUOTES, ([, , a]) => a),
    })
    .setTrades('XYZ', {
      time: BigInt64Array.from(TRADES, ([t]) => at(t)),
      price: Float64Array.from(TRADES, ([, p]) => p),
      volume: Float64Array.from(TRADES, ([, , v]) => v),
    })
    .setInstrument('XYZ', { ISIN: 'US0000XYZ001', MIC: 'XNAS', exchangeID: 'XNAS' })
    .setInstrument('NOQ', { ISIN: 'GB00NOQ00001', MIC: 'XLON', exchangeID: 'XLON' });
}

/** The cell of a column as a plain value: symbol text, number (null = NaN, longs too), bigint, boolean, day number. */
function cell(c: Column, i: number): unknown {
  switch (c.type) {
    case 'symbol': return c.dict.get(c.codes[i]!);
    case 'string': return c.values[i];
    case 'float[]':
    case 'long[]': return undefined;
    case 'boolean': return c.data[i] === 1;
    case 'long':
    case 'int': return numberAt(c, i);
    default: return c.data[i];
  }
}

function rows(t: Table): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < t.length; i++) {
    const r: Record<string, unknown> = {};
    t.names.forEach((n, k) => (r[n] = cell(t.columns[k]!, i)));
    out.set(r['orderID'] as string, r);
  }
  return out;
}

const bps = (bid: number, ask: number): number => ((ask - bid) / ((ask + bid) / 2)) * 1e4;
const isNull = (v: unknown): boolean => v === NULL_TS || (typeof v === 'number' && Number.isNaN(v));

/** Expects numeric cells close to the given values (null when the expected value is null). */
function expectRow(r: Record<string, unknown> | undefined, want: Record<string, number | bigint | string | boolean | null>): void {
  expect(r).toBeDefined();
  for (const [k, v] of Object.entries(want)) {
    const got = r![k];
    if (v === null) expect(isNull(got), `${k} should be null, is ${String(got)}`).toBe(true);
    else if (typeof v === 'number' && !Number.isInteger(v)) expect(got as number, k).toBeCloseTo(v, 9);
    else expect(got, k).toBe(v);
  }
}

describe('computeOrderAnalytics', () => {
  const buy: Ev[] = [
    { t: 10, order: 'A1', inst: 'XYZ', type: 'New', side: 'Buy', qty: 1000, limit: 100.5 },
    { t: 20, order: 'A1', inst: 'XYZ', type: 'Fill', side: 'Buy', qty: 1000, limit: 100.5, lastQty: 400, lastPx: 100.2 },
    { t: 40, order: 'A1', inst: 'XYZ', type: 'Fill', side: 'Buy', qty: 1000, limit: 100.5, lastQty: 600, lastPx: 100.4 },
    { t: 40, order: 'A1', inst: 'XYZ', type: 'Done', side: 'Buy', qty: 1000, limit: 100.5 },
  ];
  const sell: Ev[] = [
    { t: 10, order: 'B1', inst: 'XYZ', type: 'New', side: 'Sell', qty: 1000, limit: 99.9 },
    { t: 20, order: 'B1', inst: 'XYZ', type: 'Fill', side: 'Sell', qty: 1000, lastQty: 300, lastPx: 100.0 },
    { t: 50, order: 'B1', inst: 'XYZ', type: 'Cancel', side: 'Sell', qty: 1000 },
  ];

  it('outputs exactly the standard OrderAnalytics columns, ordered by strikeTime then orderID', () => {
    const t = computeOrderAnalytics(orders([...sell, ...buy]), market());
    const defs = standardSchema().tables.get('OrderAnalytics')!.columns;
    expect(t.defs).toEqual(defs.map((d) => ({ name: d.name, type: d.type })));
    expect(t.length).toBe(2);
    expect(cell(t.col('orderID'), 0)).toBe('A1');
    expect(cell(t.col('orderID'), 1)).toBe('B1');
  });

  it('computes a fully filled buy order', () => {
    const r = rows(computeOrderAnalytics(orders(buy), market())).get('A1');
    const avg = (400 * 100.2 + 600 * 100.4) / 1000;
    const vwap = (200 * 100.1 + 300 * 100.3 + 500 * 100.4) / 1000;
    const arrivalMid = (100.0 + 100.2) / 2;
    expectRow(r, {
      strikeTime: at(10), instrumentID: 'XYZ', side: 'Buy', algoStrategy: 'VWAP', exchangeID: 'XNAS', MIC: 'XNAS',
      ISIN: 'US0000XYZ001', tradingVenueCode: 'ARCX', executingBrokerCode: 'GSCO', currency: 'USD', limitPrice: 100.5,
      tradeDate: DAY_2024_03_11, placementQty: 1000, orderCompletedTime: at(40), executedQty: 1000, numFills: 2,
      avgExecPrice: avg, executedValue: 400 * 100.2 + 600 * 100.4, orderCompletion: true, durationMins: 0.5,
      arrivalBidPrice: 100.0, arrivalAskPrice: 100.2, arrivalMid, arrivalSpreadBPS: bps(100.0, 100.2),
      // the quote at exactly orderCompletedTime prevails
      endBidPrice: 100.3, endAskPrice: 100.5, endMid: 100.4,
      // trades at exactly strikeTime and orderCompletedTime count; those before and after do not
      intervalVWAP: vwap, intervalVolume: 1000,
      intervalSpreadBPS: (bps(100.0, 100.2) + bps(100.2, 100.4) + bps(100.3, 100.5)) / 3,
      participationRate: 1,
      executionShortfall: ((avg - arrivalMid) / arrivalMid) * 1e4,
      vwapSlippage: ((avg - vwap) / vwap) * 1e4,
      strikeToEndReturn: ((100.4 - arrivalMid) / arrivalMid) * 1e4,
      // +300 s lands exactly on the 340 s quote; +1800 s (1840 s) is before the 1841 s quote
      reversionReturn_300: ((100.7 - arrivalMid) / arrivalMid) * 1e4,
      reversionReturn_1800: ((99.9 - arrivalMid) / arrivalMid) * 1e4,
    });
    expect(r!['executionShortfall'] as number).toBeGreaterThan(0); // paying above the arrival mid is a cost
  });

  it('computes a sell order cancelled after a partial fill, with the signs flipped', () => {
    const r = rows(computeOrderAnalytics(orders(sell), market())).get('B1');
    const vwap = (200 * 100.1 + 300 * 100.3 + 500 * 100.4 + 1000 * 101.0) / 2000;
    const mid0 = 100.1;
    expectRow(r, {
      side: 'Sell', placementQty: 1000, executedQty: 300, numFills: 1, avgExecPrice: 100.0, executedValue: 30000,
      orderCompletion: false, orderCompletedTime: at(50), durationMins: 40 / 60,
      endBidPrice: 100.3, endAskPrice: 100.5, endMid: 100.4,
      intervalVolume: 2000, intervalVWAP: vwap, participationRate: 0.15,
      executionShortfall: (-(100.0 - mid0) / mid0) * 1e4,
      vwapSlippage: (-(100.0 - vwap) / vwap) * 1e4,
      strikeToEndReturn: (-(100.4 - mid0) / mid0) * 1e4,
      reversionReturn_300: (-(100.7 - mid0) / mid0) * 1e4,
      // 50 s + 1800 s = 1850 s: the 1841 s quote prevails
      reversionReturn_1800: (-(101.1 - mid0) / mid0) * 1e4,
    });
    expect(r!['executionShortfall'] as number).toBeGreaterThan(0); // selling below the arrival mid is a cost
  });

  it('leaves market values null when there is no quote or trade, and falls back to the Instrument reference', () => {
    const r = rows(
      computeOrderAnalytics(
        orders([
          { t: 100, order: 'C1', inst: 'NOQ', type: 'New', side: 'Buy', qty: 500, isin: '', mic: '', ex: '' },
          { t: 110, order: 'C1', inst: 'NOQ', type: 'Fill', side: 'Buy', lastQty: 500, lastPx: 10, isin: '', mic: '', ex: '' },
          { t: 110, order: 'C1', inst: 'NOQ', type: 'Done', side: 'Buy', isin: '', mic: '', ex: '' },
        ]),
        market(),
      ),
    ).get('C1');
    expectRow(r, {
      ISIN: 'GB00NOQ00001', MIC: 'XLON', exchangeID: 'XLON', limitPrice: null, executedQty: 500, avgExecPrice: 10,
      orderCompletion: true, durationMins: 10 / 60, orderCompletedTime: at(110),
      arrivalBidPrice: null, arrivalAskPrice: null, arrivalMid: null, arrivalSpreadBPS: null,
      endBidPrice: null, endAskPrice: null, endMid: null, intervalSpreadBPS: null,
      intervalVolume: 0, intervalVWAP: null, participationRate: null,
      executionShortfall: null, vwapSlippage: null, strikeToEndReturn: null, reversionReturn_300: null, reversionReturn_1800: null,
    });
  });

  it('leaves completion-dependent values null for an open order without fills', () => {
    const r = rows(computeOrderAnalytics(orders([{ t: 60, order: 'D1', inst: 'XYZ', type: 'New', side: 'Buy', qty: 100, limit: 99 }]), market())).get('D1');
    expectRow(r, {
      orderCompletedTime: null, durationMins: null, executedQty: 0, numFills: 0, avgExecPrice: null, executedValue: 0,
      orderCompletion: false, arrivalBidPrice: 100.3, arrivalAskPrice: 100.5, arrivalMid: 100.4,
      endBidPrice: null, endAskPrice: null, endMid: null, intervalVWAP: null, intervalVolume: null, intervalSpreadBPS: null,
      participationRate: null, executionShortfall: null, vwapSlippage: null, strikeToEndReturn: null,
      reversionReturn_300: null, reversionReturn_1800: null,
    });
  });

  it('ends at the last fill when there is no Done or Cancel; zero interval volume gives null participation', () => {
    const t = rows(
      computeOrderAnalytics(
        orders([
          { t: 10, order: 'G1', inst: 'XYZ', type: 'New', side: 'Sell', qty: 500 },
          { t: 25, order: 'G1', inst: 'XYZ', type: 'Fill', side: 'Sell', lastQty: 200, lastPx: 100.0 },
          { t: 35, order: 'G1', inst: 'XYZ', type: 'Fill', side: 'Sell', lastQty: 100, lastPx: 100.2 },
          { t: 2000, order: 'Z1', inst: 'XYZ', type: 'New', side: 'Buy', qty: 100 },
          { t: 2010, order: 'Z1', inst: 'XYZ', type: 'Fill', side: 'Buy', lastQty: 100, lastPx: 101.2 },
          { t: 2010, order: 'Z1', inst: 'XYZ', type: 'Done', side: 'Buy' },
        ]),
        market(),
      ),
    );
    expectRow(t.get('G1'), {
      orderCompletedTime: at(35), executedQty: 300, numFills: 2, orderCompletion: false, avgExecPrice: (200 * 100 + 100 * 100.2) / 300,
      intervalVolume: 500, intervalVWAP: (200 * 100.1 + 300 * 100.3) / 500, participationRate: 300 / 500,
      endBidPrice: 100.2, endAskPrice: 100.4,
    });
    expectRow(t.get('Z1'), {
      intervalVolume: 0, intervalVWAP: null, participationRate: null, vwapSlippage: null,
      arrivalBidPrice: 101.0, arrivalAskPrice: 101.2, executionShortfall: ((101.2 - 101.1) / 101.1) * 1e4,
      intervalSpreadBPS: bps(101.0, 101.2),
    });
  });

  it('counts a quote at exactly strikeTime once, as the prevailing one', () => {
    const r = rows(
      computeOrderAnalytics(
        orders([
          { t: 30, order: 'H1', inst: 'XYZ', type: 'New', side: 'Buy', qty: 100 },
          { t: 40, order: 'H1', inst: 'XYZ', type: 'Cancel', side: 'Buy' },
        ]),
        market(),
      ),
    ).get('H1');
    expectRow(r, {
      arrivalBidPrice: 100.2, arrivalAskPrice: 100.4, intervalSpreadBPS: (bps(100.2, 100.4) + bps(100.3, 100.5)) / 2,
      executedQty: 0, executedValue: 0, avgExecPrice: null, orderCompletion: false, orderCompletedTime: at(40),
      // trades in [30 s, 40 s]: only the 40 s one
      intervalVolume: 500,
    });
  });

  it('uses the events in time order whatever the row order; orders without New (or an orderID) give no row', () => {
    const t = computeOrderAnalytics(
      orders([
        { t: 30, order: 'E1', inst: 'UNK', type: 'Fill', side: 'Buy', lastQty: 5, lastPx: 1.5, mic: '' },
        { t: 30, order: 'E1', inst: 'UNK', type: 'Done', side: 'Buy', mic: '' },
        { t: 20, order: 'E1', inst: 'UNK', type: 'New', side: 'Buy', qty: 5, isin: 'XX0000000000', mic: '' },
        { t: 25, order: 'F1', inst: 'XYZ', type: 'Fill', side: 'Buy', lastQty: 5, lastPx: 100.2 },
        { t: 26, order: '', inst: 'XYZ', type: 'New', side: 'Buy', qty: 5 },
      ]),
      market(),
    );
    const r = rows(t);
    expect([...r.keys()]).toEqual(['E1']);
    expectRow(r.get('E1'), {
      strikeTime: at(20), orderCompletedTime: at(30), ISIN: 'XX0000000000', MIC: '', executedQty: 5, orderCompletion: true,
      durationMins: 10 / 60, arrivalMid: null,
    });
  });

  it('dates an order by the UTC date of its strikeTime', () => {
    const late = (Date.UTC(2024, 2, 11, 23, 59, 59) - Date.UTC(2024, 2, 11, 14, 0)) / 1000;
    const r = rows(computeOrderAnalytics(orders([{ t: late, order: 'T1', inst: 'XYZ', type: 'New', side: 'Sell', qty: 1 }]), market())).get('T1');
    expectRow(r, { tradeDate: DAY_2024_03_11, arrivalBidPrice: 101.0 });
    const next = rows(computeOrderAnalytics(orders([{ t: late + 1, order: 'T2', inst: 'XYZ', type: 'New', side: 'Sell', qty: 1 }]), market())).get('T2');
    expectRow(next, { tradeDate: DAY_2024_03_11 + 1 });
  });
});

describe('market views', () => {
  it('refuses series that are not in time order', () => {
    const v = new InMemoryMarketView();
    expect(() => v.setQuotes('X', { time: BigInt64Array.from([at(2), at(1)]), bid: new Float64Array(2), ask: new Float64Array(2) })).toThrow(/time order/);
  });

  it('builds the same view from tables in any row order', () => {
    const q = standardSchema().tables.get('Quote')!;
    const shuffled = [3, 0, 5, 1, 4, 2].map((i) => QUOTES[i]!);
    const quote = new Table(
      q.columns.map((c) => c.name),
      q.columns.map((c) => {
        const vals = shuffled.map(([t, b, a]) =>
          c.name === 'eventTimestamp' ? at(t) : c.name === 'instrumentID' ? 'XYZ' : c.name === 'bidPrice' ? b : c.name === 'askPrice' ? a : null,
        );
        return columnFromValues(c.type, vals);
      }),
    );
    const view = marketViewFromTables({ Quote: quote });
    const ref = market();
    for (const sec of [0, 5, 29.999, 30, 1000, 5000]) expect(view.prevailingQuote('XYZ', at(sec))).toEqual(ref.prevailingQuote('XYZ', at(sec)));
    expect(view.meanSpreadBps('XYZ', at(10), at(40))).toBeCloseTo(ref.meanSpreadBps('XYZ', at(10), at(40))!, 12);
    expect(view.tradeStats('XYZ', at(0), at(100))).toEqual({ vwap: undefined, volume: 0 });
  });
});

describe('demo OrderAnalytics', () => {
  let db: Database;
  const read = (name: string): Table => {
    const t = db.table(name);
    if (t.kind === 'reference') return loadAll(t, db.reference(name)!);
    return Table.concat(t.columns, db.partitionKeys(name).map((k) => loadAll(t, db.partition(name, k)!)));
  };

  beforeAll(() => {
    const dir = join(tempDir(), 'demo');
    generateDemo(dir, { seed: 3, days: 2, instruments: 4, tradesPerDay: 4000 });
    db = Database.open(dir);
  });

  it('stores one row per order, matching a recomputation from the stored orders and market data', () => {
    const stored = rows(read('OrderAnalytics'));
    const order = read('Order');
    const again = rows(computeOrderAnalytics(order, marketViewFromTables({ Quote: read('Quote'), Trade: read('Trade'), Instrument: read('Instrument') })));
    expect(stored.size).toBeGreaterThan(100);
    expect([...stored.keys()].sort()).toEqual([...again.keys()].sort());
    for (const [id, r] of stored) {
      const a = again.get(id)!;
      for (const [k, v] of Object.entries(r)) {
        if (typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v)) expect(a[k] as number, `${id} ${k}`).toBeCloseTo(v, 6);
        else expect(a[k], `${id} ${k}`).toEqual(v);
      }
    }
  });

  it('agrees with the order events and quotes, checked directly', () => {
    const stored = rows(read('OrderAnalytics'));
    const order = read('Order');
    const quote = read('Quote');
    const ids = order.col('orderID');
    const fills = new Map<string, { qty: number; n: number; placed: number }>();
    for (let i = 0; i < order.length; i++) {
      const id = cell(ids, i) as string;
      const f = fills.get(id) ?? { qty: 0, n: 0, placed: NaN };
      const type = cell(order.col('eventType'), i);
      if (type === 'Fill') {
        f.qty += cell(order.col('lastQty'), i) as number;
        f.n++;
      }
      if (type === 'New') f.placed = cell(order.col('orderQty'), i) as number;
      fills.set(id, f);
    }
    expect(stored.size).toBe(fills.size);
    const qt = quote.col('eventTimestamp') as { data: BigInt64Array };
    let positiveSpreads = 0;
    for (const [id, r] of stored) {
      const f = fills.get(id)!;
      expect(r['executedQty']).toBe(f.qty);
      expect(r['numFills']).toBe(f.n);
      expect(r['placementQty']).toBe(f.placed);
      expect(r['orderCompletion']).toBe(f.qty >= f.placed);
      expect(r['ISIN']).not.toBe('');
      // arrival quote: the last quote of the instrument at or before strikeTime, found by a plain scan
      let best = -1;
      for (let i = 0; i < quote.length; i++) {
        if (cell(quote.col('instrumentID'), i) === r['instrumentID'] && qt.data[i]! <= (r['strikeTime'] as bigint)) best = i;
      }
      expect(r['arrivalBidPrice']).toBe(cell(quote.col('bidPrice'), best));
      expect(r['arrivalAskPrice']).toBe(cell(quote.col('askPrice'), best));
      if ((r['arrivalSpreadBPS'] as number) > 0) positiveSpreads++;
      expect(r['orderCompletedTime']).not.toBe(NULL_TS);
      expect(r['intervalVolume'] as number).toBeGreaterThan(0);
    }
    expect(positiveSpreads).toBe(stored.size);
  });
});
