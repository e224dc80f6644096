/**
 * The market data order analytics needs (SPEC 6.1), behind one interface so the computation does
 * not care where the data lives: the demo generator answers from arrays it has just built, the
 * generateOrderAnalytics operation from the database. Timestamps stay int64 ns; lookups are binary
 * searches over time-sorted series, compared as int64 hi/lo words (no BigInt per row).
 */
import { int32Pairs } from '../core/column.js';

/** A quote's prices; NaN where the stored price is null. */
export interface QuotePrices {
  readonly bid: number;
  readonly ask: number;
}

/** Trades in an interval: total volume (0 when none) and VWAP (undefined when no priced volume). */
export interface IntervalTrades {
  readonly vwap: number | undefined;
  readonly volume: number;
}

/** The Instrument reference fields order analytics falls back to. */
export interface InstrumentRef {
  readonly ISIN: string;
  readonly MIC: string;
  readonly exchangeID: string;
}

export interface MarketView {
  /** The latest quote with eventTimestamp <= ns (ties: the last one in storage order), or undefined. */
  prevailingQuote(instrumentID: string, ns: bigint): QuotePrices | undefined;
  /** Volume and VWAP of the instrument's trades with from <= eventTimestamp <= to. */
  tradeStats(instrumentID: string, from: bigint, to: bigint): IntervalTrades;
  /**
   * Mean spread in bps, (ask - bid) / mid * 1e4, over the quote prevailing at `from` and every quote
   * with from <= eventTimestamp <= to; quotes without both prices are skipped; undefined when none.
   */
  meanSpreadBps(instrumentID: string, from: bigint, to: bigint): number | undefined;
  /** The instrument's reference fields, or undefined when it has no reference row. */
  instrument(instrumentID: string): InstrumentRef | undefined;
}

/** Quotes of one instrument in ascending eventTimestamp order. */
export interface QuoteSeries {
  readonly time: BigInt64Array;
  readonly bid: Float64Array;
  readonly ask: Float64Array;
}

/** Trades of one instrument in ascending eventTimestamp order. */
export interface TradeSeries {
  readonly time: BigInt64Array;
  readonly price: Float64Array;
  readonly volume: Float64Array;
}

interface QuoteIndex {
  readonly words: Int32Array;
  readonly n: number;
  readonly bid: Float64Array;
  readonly ask: Float64Array;
  /** Prefix sums over quotes with both prices: spread bps and count. */
  readonly cumBps: Float64Array;
  readonly cumValid: Int32Array;
}

interface TradeIndex {
  readonly words: Int32Array;
  readonly n: number;
  /** Prefix sums: all non-null volume; volume and value of rows with both price and volume. */
  readonly cumVol: Float64Array;
  readonly cumPricedVol: Float64Array;
  readonly cumValue: Float64Array;
}

const TWO32 = 4294967296n;

/** Number of elements <= ns (inclusive = true) or < ns (false) in an ascending int64 series. */
export function countUpTo(words: Int32Array, n: number, ns: bigint, inclusive: boolean): number {
  const hi = Number(BigInt.asIntN(32, ns >> 32n));
  const lo = Number(BigInt.asUintN(64, ns) % TWO32);
  let l = 0;
  let h = n;
  while (l < h) {
    const m = (l + h) >>> 1;
    const wh = words[2 * m + 1]!;
    const wl = words[2 * m]! >>> 0;
    const below = wh < hi || (wh === hi && (inclusive ? wl <= lo : wl < lo));
    if (below) l = m + 1;
    else h = m;
  }
  return l;
}

/** True when an int64 series never decreases. */
export function isAscending(time: BigInt64Array): boolean {
  const w = int32Pairs(time);
  for (let i = 1; i < time.length; i++) {
    const a = w[2 * i - 1]!;
    const b = w[2 * i + 1]!;
    if (a > b || (a === b && w[2 * i - 2]! >>> 0 > w[2 * i]! >>> 0)) return false;
  }
  return true;
}

/** Where a view's prefix sums go: new arrays, or scratch memory that outlives the view (a query's arena). */
export interface SumsAlloc {
  float64(n: number): Float64Array;
  int32(n: number): Int32Array;
}

const NEW_ARRAYS: SumsAlloc = { float64: (n) => new Float64Array(n), int32: (n) => new Int32Array(n) };

/** A MarketView over in-memory, time-sorted series per instrument. */
export class InMemoryMarketView implements MarketView {
  private readonly quotes = new Map<string, QuoteIndex>();
  private readonly trades = new Map<string, TradeIndex>();
  private readonly refs = new Map<string, InstrumentRef>();

  /** `alloc`: where the prefix sums go (their contents need not be zero). */
  constructor(private readonly alloc: SumsAlloc = NEW_ARRAYS) {}

  /** Sets an instrument's quotes (ascending time; throws otherwise). */
  setQuotes(instrumentID: string, s: QuoteSeries): this {
    if (!isAscending(s.time)) throw new Error(`quotes of ${instrumentID} are not in time order`);
    const n = s.time.length;
    const cumBps = this.alloc.float64(n + 1);
    const cumValid = this.alloc.int32(n + 1);
    cumBps[0] = 0;
    cumValid[0] = 0;
    for (let i = 0; i < n; i++) {
      const b = s.bid[i]!;
      const a = s.ask[i]!;
      const bps = ((a - b) / ((a + b) / 2)) * 1e4;
      const ok = Number.isFinite(bps);
      cumBps[i + 1] = cumBps[i]! + (ok ? bps : 0);
      cumValid[i + 1] = cumValid[i]! + (ok ? 1 : 0);
    }
    this.quotes.set(instrumentID, { words: int32Pairs(s.time), n, bid: s.bid, ask: s.ask, cumBps, cumValid });
    return this;
  }

  /** Sets an instrument's trades (ascending time; throws otherwise). */
  setTrades(instrumentID: string, s: TradeSeries): this {
    if (!isAscending(s.time)) throw new Error(`trades of ${instrumentID} are not in time order`);
    const n = s.time.length;
    const cumVol = this.alloc.float64(n + 1);
    const cumPricedVol = this.alloc.float64(n + 1);
    const cumValue = this.alloc.float64(n + 1);
    cumVol[0] = cumPricedVol[0] = cumValue[0] = 0;
    for (let i = 0; i < n; i++) {
      const v = s.volume[i]!;
      const p = s.price[i]!;
      const hasV = v === v;
      const priced = hasV && p === p;
      cumVol[i + 1] = cumVol[i]! + (hasV ? v : 0);
      cumPricedVol[i + 1] = cumPricedVol[i]! + (priced ? v : 0);
      cumValue[i + 1] = cumValue[i]! + (priced ? v * p : 0);
    }
    this.trades.set(instrumentID, { words: int32Pairs(s.time), n, cumVol, cumPricedVol, cumValue });
    return this;
  }

  /** Sets an instrument's reference fields. */
  setInstrument(instrumentID: string, ref: InstrumentRef): this {
    this.refs.set(instrumentID, ref);
    return this;
  }

  prevailingQuote(instrumentID: string, ns: bigint): QuotePrices | undefined {
    const q = this.quotes.get(instrumentID);
    if (!q) return undefined;
    const i = countUpTo(q.words, q.n, ns, true) - 1;
    return i < 0 ? undefined : { bid: q.bid[i]!, ask: q.ask[i]! };
  }

  tradeStats(instrumentID: string, from: bigint, to: bigint): IntervalTrades {
    const t = this.trades.get(instrumentID);
    if (!t) return { vwap: undefined, volume: 0 };
    const lo = countUpTo(t.words, t.n, from, false);
    const hi = Math.max(lo, countUpTo(t.words, t.n, to, true));
    const pricedVol = t.cumPricedVol[hi]! - t.cumPricedVol[lo]!;
    return {
      vwap: pricedVol > 0 ? (t.cumValue[hi]! - t.cumValue[lo]!) / pricedVol : undefined,
      volume: t.cumVol[hi]! - t.cumVol[lo]!,
    };
  }

  meanSpreadBps(instrumentID: string, from: bigint, to: bigint): number | undefined {
    const q = this.quotes.get(instrumentID);
    if (!q) return undefined;
    let lo = countUpTo(q.words, q.n, from, false);
    const atFrom = countUpTo(q.words, q.n, from, true);
    // no quote exactly at `from`: the one prevailing then (if any) opens the set
    if (atFrom === lo && lo > 0) lo--;
    const hi = Math.max(lo, countUpTo(q.words, q.n, to, true));
    const count = q.cumValid[hi]! - q.cumValid[lo]!;
    return count > 0 ? (q.cumBps[hi]! - q.cumBps[lo]!) / count : undefined;
  }

  instrument(instrumentID: string): InstrumentRef | undefined {
    return this.refs.get(instrumentID);
  }
}
