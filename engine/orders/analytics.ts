/**
 * Order analytics (SPEC 6.1): one OrderAnalytics row per order from all of its events and the
 * market around it. Pure: the caller selects the orders (all events of each) and supplies a
 * MarketView. Any value whose inputs are missing is null (NaN / null timestamp / ""), never a
 * made-up number; non-finite results (a zero mid, say) are null too.
 */
import { type Column, floats, longsFrom, type SymbolColumn } from '../core/column.js';
import { columnFromValues } from '../core/builder.js';
import { type ColumnDef, Table } from '../core/table.js';
import { NS_PER_DAY, NULL_INT32, NULL_TS } from '../core/time.js';
import { standardSchema } from '../storage/schema.js';
import { rowsByIdentifier } from './group-rows.js';
import type { MarketView } from './market-view.js';

/** Seconds after orderCompletedTime at which the reversion mids are taken. */
export const REVERSION_HORIZONS_S = [300, 1800] as const;
const NS_PER_MINUTE = 60_000_000_000;

/** The OrderAnalytics column definitions of the standard schema, in order. */
export function orderAnalyticsColumns(): readonly ColumnDef[] {
  return standardSchema().tables.get('OrderAnalytics')!.columns;
}

const fin = (x: number): number => (Number.isFinite(x) ? x : NaN);
const mid = (bid: number, ask: number): number => fin((bid + ask) / 2);
/** Signed return in bps of `x` against `ref` (positive = cost / adverse for the order's side). */
const bps = (sign: number, x: number, ref: number): number => fin((sign * (x - ref) * 1e4) / ref);

/** Column accessors over the Order events table. */
class Events {
  readonly time: BigInt64Array;
  private readonly sym = new Map<string, SymbolColumn>();
  private readonly num = new Map<string, Float64Array>();

  constructor(readonly t: Table) {
    const c = t.col('eventTimestamp');
    if (c.type !== 'timestamp') throw new Error('Order.eventTimestamp must be a timestamp column');
    this.time = c.data;
  }

  /** The symbol value of a column at a row ("" when null or the column is absent). */
  s(name: string, row: number): string {
    let c = this.sym.get(name);
    if (!c) {
      const col = this.t.get(name);
      if (!col || col.type !== 'symbol') return '';
      this.sym.set(name, (c = col));
    }
    return c.dict.get(c.codes[row]!);
  }

  /** The numeric value of a column at a row (NaN when null or the column is absent). */
  n(name: string, row: number): number {
    let c = this.num.get(name);
    if (!c) {
      const col = this.t.get(name);
      if (!col || (col.type !== 'float' && col.type !== 'long' && col.type !== 'int')) return NaN;
      this.num.set(name, (c = floats(col)));
    }
    return c[row]!;
  }
}

interface Row {
  strike: bigint;
  orderID: string;
  values: Record<string, number | bigint | string | boolean>;
}

/** The signed return in bps from the arrival mid to the mid prevailing `seconds` after the order's end. */
function reversionReturn(market: MarketView, instrumentID: string, end: bigint | undefined, seconds: number, sign: number, arrivalMid: number): number {
  if (end === undefined) return NaN;
  const q = market.prevailingQuote(instrumentID, end + BigInt(seconds) * 1_000_000_000n);
  return bps(sign, mid(q?.bid ?? NaN, q?.ask ?? NaN), arrivalMid);
}

/** The OrderAnalytics row of one order (its events in time order), or undefined without a New event. */
function analyseOrder(ev: Events, orderID: string, rows: Int32Array, market: MarketView): Row | undefined {
  let newRow = -1;
  let terminal = -1;
  let lastFill = -1;
  let numFills = 0;
  let executedQty = 0;
  let value = 0;
  let valueKnown = true;
  for (const r of rows) {
    const type = ev.s('eventType', r);
    if (type === 'New') {
      if (newRow < 0) newRow = r;
    } else if (type === 'Done' || type === 'Cancel') {
      terminal = r;
    } else if (type === 'Fill') {
      numFills++;
      lastFill = r;
      const q = ev.n('lastQty', r);
      const px = ev.n('lastPx', r);
      if (q === q) {
        executedQty += q;
        // a fill of known size but unknown price leaves the executed value unknown
        if (px === px) value += q * px;
        else valueKnown = false;
      }
    }
  }
  if (newRow < 0) return undefined;
  const strike = ev.time[newRow]!;
  const end = terminal >= 0 ? ev.time[terminal]! : lastFill >= 0 ? ev.time[lastFill]! : undefined;
  const instrumentID = ev.s('instrumentID', newRow);
  const ref = market.instrument(instrumentID);
  const side = ev.s('side', newRow);
  const sign = side === 'Buy' ? 1 : side === 'Sell' ? -1 : NaN;
  const placementQty = ev.n('orderQty', newRow);
  const executedValue = valueKnown ? value : NaN;
  const avgExecPrice = executedQty > 0 ? fin(executedValue / executedQty) : NaN;

  const arrival = market.prevailingQuote(instrumentID, strike);
  const arrivalBid = arrival?.bid ?? NaN;
  const arrivalAsk = arrival?.ask ?? NaN;
  const arrivalMid = mid(arrivalBid, arrivalAsk);
  const endQuote = end === undefined ? undefined : market.prevailingQuote(instrumentID, end);
  const endMid = mid(endQuote?.bid ?? NaN, endQuote?.ask ?? NaN);
  const interval = end === undefined ? undefined : market.tradeStats(instrumentID, strike, end);
  const intervalVolume = interval?.volume ?? NaN;
  const intervalVWAP = interval?.vwap ?? NaN;
  const spread = end === undefined ? undefined : market.meanSpreadBps(instrumentID, strike, end);
  const [short, long] = REVERSION_HORIZONS_S;

  return {
    strike,
    orderID,
    values: {
      strikeTime: strike,
      instrumentID,
      orderID,
      algoStrategy: ev.s('algoStrategy', newRow),
      tradeDate: Number(strike >= 0n ? strike / NS_PER_DAY : (strike - NS_PER_DAY + 1n) / NS_PER_DAY),
      exchangeID: ev.s('exchangeID', newRow) || ref?.exchangeID || '',
      MIC: ev.s('MIC', newRow) || ref?.MIC || '',
      ISIN: ev.s('ISIN', newRow) || ref?.ISIN || '',
      tradingVenueCode: ev.s('tradingVenueCode', newRow),
      executingBrokerCode: ev.s('executingBrokerCode', newRow),
      placementQty,
      side,
      currency: ev.s('currency', newRow),
      limitPrice: ev.n('limitPrice', newRow),
      orderCompletedTime: end ?? NULL_TS,
      executedQty,
      numFills,
      avgExecPrice,
      executedValue,
      orderCompletion: executedQty >= placementQty,
      durationMins: end === undefined ? NaN : Number(end - strike) / NS_PER_MINUTE,
      arrivalBidPrice: arrivalBid,
      arrivalAskPrice: arrivalAsk,
      arrivalMid,
      arrivalSpreadBPS: fin(((arrivalAsk - arrivalBid) / arrivalMid) * 1e4),
      endBidPrice: endQuote?.bid ?? NaN,
      endAskPrice: endQuote?.ask ?? NaN,
      endMid,
      intervalVWAP,
      intervalVolume,
      intervalSpreadBPS: spread ?? NaN,
      participationRate: intervalVolume > 0 ? fin(executedQty / intervalVolume) : NaN,
      executionShortfall: bps(sign, avgExecPrice, arrivalMid),
      vwapSlippage: bps(sign, avgExecPrice, intervalVWAP),
      strikeToEndReturn: bps(sign, endMid, arrivalMid),
      reversionReturn_300: reversionReturn(market, instrumentID, end, short, sign, arrivalMid),
      reversionReturn_1800: reversionReturn(market, instrumentID, end, long, sign, arrivalMid),
    },
  };
}

/**
 * OrderAnalytics rows (standard schema columns, in order) for the orders in `orders` (Order table
 * rows: every event of each selected order), ordered by strikeTime then orderID. Orders without a
 * New event, and events without an orderID, produce no row.
 */
export function computeOrderAnalytics(orders: Table, market: MarketView): Table {
  const ev = new Events(orders);
  const idCol = orders.col('orderID');
  if (idCol.type !== 'symbol') throw new Error('Order.orderID must be a symbol column');
  const out: Row[] = [];
  for (const [orderID, rows] of rowsByIdentifier(idCol, ev.time)) {
    if (orderID === '') continue;
    const row = analyseOrder(ev, orderID, rows, market);
    if (row) out.push(row);
  }
  out.sort((a, b) => (a.strike < b.strike ? -1 : a.strike > b.strike ? 1 : a.orderID < b.orderID ? -1 : a.orderID > b.orderID ? 1 : 0));
  const defs = orderAnalyticsColumns();
  const columns: Column[] = defs.map((d) => {
    const vals = out.map((r) => r.values[d.name]!);
    if (d.type === 'date') return { type: 'date', data: Int32Array.from(vals, (v) => (typeof v === 'number' ? v : NULL_INT32)) };
    if (d.type === 'float') return { type: 'float', data: Float64Array.from(vals as number[]) };
    if (d.type === 'long') return { type: 'long', data: longsFrom(vals as number[]) };
    return columnFromValues(d.type, vals);
  });
  return new Table(
    defs.map((d) => d.name),
    columns,
    out.length,
  );
}
