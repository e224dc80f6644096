/**
 * Client parent orders for one instrument-date: a New event, child Fill events that trade at the
 * prevailing touch (the ask for a buy, the bid for a sell, never through the limit), then Done when
 * fully filled or Cancel (some deliberately after partial fills, others at the end of their
 * schedule when the limit kept them from completing).
 */
import { lastAtOrBefore, pad } from './buffers.js';
import type { DayData, InstrumentRange } from './day.js';
import type { DemoInstrument } from './instruments.js';
import type { Rng } from './rng.js';

export const EVENT_DICT = ['', 'New', 'Fill', 'Cancel', 'Done'] as const;
export const ORDER_SIDE_DICT = ['', 'Buy', 'Sell'] as const;
export const ALGO_DICT = ['', 'IS', 'LIQSEEK', 'POV', 'TWAP', 'VWAP'] as const;
export const BROKER_DICT = ['', 'BARC', 'BOFA', 'GSCO', 'JPMS', 'MSCO', 'UBSS'] as const;
export const VENUE_DICT = ['', 'AQXE', 'ARCX', 'BATE', 'BATS', 'CHIX', 'IEXG', 'TRQX', 'XLON', 'XNAS', 'XNYS'] as const;
export const CURRENCY_DICT = ['', 'GBP', 'USD'] as const;

const NEW = 1;
const FILL = 2;
const CANCEL = 3;
const DONE = 4;
const US_VENUES = [9, 10, 2, 4, 6];
const UK_VENUES = [8, 5, 3, 7, 1];
const MINUTE = 60e9;

export interface OrderContext {
  readonly inst: DemoInstrument;
  readonly range: InstrumentRange;
  /** Session open and close, ns since the UTC midnight of the date. */
  readonly open: number;
  readonly close: number;
  /** The instrument's volume this date (sizes the orders to realistic participation rates). */
  readonly dayVolume: number;
  /** ISIN and MIC dictionary codes of the instrument; `YYYYMMDD` of the date. */
  readonly isinCode: number;
  readonly micCode: number;
  readonly dateTag: string;
  readonly rng: Rng;
}

interface Fixed {
  id: number;
  side: number;
  qty: number;
  limit: number;
  algo: number;
  broker: number;
  isin: number;
  venue: number;
  currency: number;
}

/** Adds 20-40 orders (with all their events) of one instrument on this date. */
export function addOrders(day: DayData, c: OrderContext): void {
  const { inst, rng, range } = c;
  const o = day.orders;
  const q = day.quotes;
  const tpu = inst.ticksPerUnit;
  const lot = inst.lotSize;
  const len = c.close - c.open;
  const us = inst.exchange.region === 'US';
  const count = 20 + rng.int(21);
  const starts = Array.from({ length: count }, () => c.open + MINUTE + Math.floor(rng.next() * (len - 40 * MINUTE)));
  starts.sort((a, b) => a - b);

  const push = (f: Fixed, t: number, event: number, lastQty: number, lastPx: number): void => {
    o.time.push(t);
    o.inst.push(range.code);
    o.orderID.push(f.id);
    o.eventType.push(event);
    o.side.push(f.side);
    o.orderQty.push(f.qty);
    o.limitPrice.push(f.limit);
    o.lastQty.push(lastQty);
    o.lastPx.push(lastPx);
    o.algo.push(f.algo);
    o.broker.push(f.broker);
    o.mic.push(c.micCode);
    o.isin.push(f.isin);
    o.venue.push(f.venue);
    o.currency.push(f.currency);
  };
  const touchAt = (t: number, buy: boolean): number => {
    const i = lastAtOrBefore(q.time.data, range.quoteStart, range.quoteEnd, t);
    return buy ? q.ask.data[i]! : q.bid.data[i]!;
  };

  for (let k = 0; k < count; k++) {
    const strike = starts[k]!;
    const buy = rng.next() < 0.5;
    // 1 minute to 3 hours, median 20 minutes, ending at least a minute before the close
    const dur = Math.min(Math.exp(Math.log(20) + 0.8 * rng.normal()) * MINUTE, 180 * MINUTE, c.close - MINUTE - strike);
    const participation = rng.range(0.02, 0.2);
    const lots = Math.max(1, Math.round((c.dayVolume * (dur / len) * participation) / lot));
    const arrival = touchAt(strike, buy);
    // ~30% market orders; limits mostly some way beyond the arrival touch (0-2%), a few at or inside it
    const market = rng.next() < 0.3;
    const offset = rng.next() < 0.15 ? rng.int(2) - 1 : Math.round(arrival * tpu * rng.pick([0.001, 0.0025, 0.005, 0.01, 0.02]));
    const limit = market ? NaN : (Math.round(arrival * tpu) + (buy ? offset : -offset)) / tpu;
    o.ids.push(`O${c.dateTag}-${inst.id}-${pad(k + 1, 3)}`);
    const f: Fixed = {
      id: o.ids.length - 1,
      side: buy ? 1 : 2,
      qty: lots * lot,
      limit,
      algo: 1 + rng.int(ALGO_DICT.length - 1),
      broker: 1 + rng.int(BROKER_DICT.length - 1),
      // a few orders arrive without an ISIN (analytics falls back to the Instrument reference)
      isin: rng.next() < 0.05 ? 0 : c.isinCode,
      venue: rng.next() < 0.5 ? (us ? (inst.exchange.mic === 'XNAS' ? 9 : 10) : 8) : rng.pick(us ? US_VENUES : UK_VENUES),
      currency: us ? 2 : 1,
    };
    push(f, strike, NEW, NaN, NaN);

    const planned = 2 + rng.int(10);
    const cancelAfter = rng.next() < 0.1 ? Math.max(1, Math.floor(planned / 2)) : planned;
    const times = new Float64Array(planned + 1);
    for (let j = 0; j < planned; j++) times[j] = strike + 1e6 + Math.floor((dur - 1e6) * ((j + rng.next()) / planned));
    times[planned] = strike + Math.floor(dur);
    const weights = Array.from({ length: planned }, () => 0.5 + rng.next());
    const wTotal = weights.reduce((a, b) => a + b, 0);
    let cumW = 0;
    let filled = 0;
    let lastFill = NaN;
    for (let j = 0; j < cancelAfter; j++) {
      cumW += weights[j]!;
      // the schedule's cumulative target; what a blocked slice could not fill rolls into the next
      const target = j === planned - 1 ? lots : Math.round((lots * cumW) / wTotal);
      const want = target - filled;
      if (want <= 0) continue;
      const t = times[j]!;
      const px = touchAt(t, buy);
      if (limit === limit && (buy ? px > limit : px < limit)) continue;
      push(f, t, FILL, want * lot, px);
      filled += want;
      lastFill = t;
    }
    if (filled === lots) push(f, lastFill, DONE, NaN, NaN);
    else push(f, cancelAfter < planned ? times[cancelAfter]! : times[planned]!, CANCEL, NaN, NaN);
  }
}
