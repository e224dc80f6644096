/**
 * One instrument's continuous session on one date: a geometric random-walk mid on the tick grid,
 * quotes with 1-3 tick spreads, trades at or inside the prevailing quote with a U-shaped intraday
 * intensity, opening and closing auction prints at exactly the session open and close, sweeps
 * (several trades at the same nanosecond), 10-level snapshots every 30 s and level-1 book updates.
 */
import { Book } from './book.js';
import type { DayData } from './day.js';
import type { DemoInstrument } from './instruments.js';
import type { Rng } from './rng.js';
import {
  type ConditionCodes, conditionCodes, micCode, srcCode, TICK_DOWN, TICK_UP, TICK_ZERO_DOWN, TICK_ZERO_UP, TradeKind,
} from './vocab.js';

/** Price state carried from one date to the next. */
export interface InstrumentState {
  logPrice: number;
  /** Last trade price in ticks (NaN before the first trade) and the last non-zero tick direction. */
  lastTradeTicks: number;
  lastDir: number;
}

export interface SessionSpec {
  readonly inst: DemoInstrument;
  /** instrumentID dictionary code. */
  readonly code: number;
  /** Session open and close, ns since the UTC midnight of the date. */
  readonly open: number;
  readonly close: number;
  /** Trades (>= 2: the opening and closing prints) and quotes (>= 1) to generate. */
  readonly trades: number;
  readonly quotes: number;
  readonly rng: Rng;
}

const SNAPSHOT_EVERY_NS = 30e9;
/** Continuous events keep this far from the open and close, so exchTime = eventTimestamp - latency stays in session. */
const MARGIN_NS = 1e6;
const MIN_MID_TICKS = 40;
const SWEEP_P = 0.03;
const OVERNIGHT_VOL = 0.006;

const U_STEPS = 2048;
/** Inverse CDF of the intraday intensity 1 + 3(2u-1)^2: four times busier at the open and close than at midday. */
const U_INVERSE = ((): Float64Array => {
  const cdf = (x: number): number => (x + ((2 * x - 1) ** 3 + 1) / 2) / 2;
  const inv = new Float64Array(U_STEPS + 1);
  for (let j = 0; j <= U_STEPS; j++) {
    let lo = 0;
    let hi = 1;
    for (let k = 0; k < 52; k++) {
      const mid = (lo + hi) / 2;
      if (cdf(mid) < j / U_STEPS) lo = mid;
      else hi = mid;
    }
    inv[j] = (lo + hi) / 2;
  }
  return inv;
})();

function intradayFraction(u: number): number {
  const p = u * U_STEPS;
  const j = Math.floor(p);
  if (j >= U_STEPS) return 1;
  const a = U_INVERSE[j]!;
  return a + (U_INVERSE[j + 1]! - a) * (p - j);
}

const codesByMic = new Map<string, ConditionCodes>();
function codesFor(inst: DemoInstrument): ConditionCodes {
  let c = codesByMic.get(inst.exchange.mic);
  if (!c) codesByMic.set(inst.exchange.mic, (c = conditionCodes(inst.exchange)));
  return c;
}

function drawSpread(rng: Rng): number {
  const u = rng.next();
  return u < 0.6 ? 1 : u < 0.9 ? 2 : 3;
}

/** Reusable scratch arrays (one set per generator run). */
export class SessionScratch {
  groups = new Int32Array(1024);
  cum = new Float64Array(1024);

  ensure(n: number): void {
    if (this.groups.length < n) this.groups = new Int32Array(n * 2);
    if (this.cum.length < n) this.cum = new Float64Array(n * 2);
  }
}

/** Simulates one session into the day buffers; returns the instrument's total traded volume. */
export function simulateSession(day: DayData, spec: SessionSpec, st: InstrumentState, scratch: SessionScratch): number {
  const { inst, rng, open, close } = spec;
  const tpu = inst.ticksPerUnit;
  const lot = inst.lotSize;
  const ex = inst.exchange;
  const codes = codesFor(inst);
  const mic = micCode(ex);
  const tradeSrc = srcCode(ex.tradeSrc);
  const tr = day.trades;

  st.logPrice += OVERNIGHT_VOL * rng.normal();
  const price0 = Math.exp(st.logPrice);
  // typical trade: about $30k in the US, £8k in London, but never below one lot
  const typLots = Math.max(1.2, (ex.region === 'US' ? 30000 : 8000) / (price0 * lot));
  const book = new Book(day, {
    code: spec.code, mic, quoteSrc: srcCode(ex.quoteSrc), bookSrc: srcCode(ex.bookSrc), ticksPerUnit: tpu, lotSize: lot,
    typLots: typLots * 3,
  }, rng);
  const sigmaDay = inst.annualVol / Math.sqrt(252);
  const len = close - open;

  let seq = 0;
  let accVol = 0;
  const pushTrade = (t: number, exchT: number, ticks: number, lots: number, kind: number): void => {
    const vol = lots * lot;
    accVol += vol;
    seq++;
    let dir = 0;
    if (st.lastTradeTicks === st.lastTradeTicks) {
      if (ticks > st.lastTradeTicks) dir = TICK_UP;
      else if (ticks < st.lastTradeTicks) dir = TICK_DOWN;
      else dir = st.lastDir > 0 ? TICK_ZERO_UP : st.lastDir < 0 ? TICK_ZERO_DOWN : 0;
      if (ticks !== st.lastTradeTicks) st.lastDir = ticks > st.lastTradeTicks ? 1 : -1;
    }
    st.lastTradeTicks = ticks;
    tr.time.push(t);
    tr.exchTime.push(exchT);
    tr.inst.push(spec.code);
    tr.price.push(ticks / tpu);
    tr.volume.push(vol);
    tr.cond.push(codes.cond[kind]!);
    tr.norm.push(codes.norm[kind]!);
    tr.tick.push(dir);
    tr.mic.push(mic);
    tr.seq.push(seq);
    tr.accVol.push(accVol);
    tr.count.push(seq);
    tr.src.push(tradeSrc);
  };
  const tradeLots = (): number => Math.max(1, Math.round(typLots * Math.exp(0.9 * rng.normal() - 0.405)));

  // opening auction: the first quote and the uncross print, both at exactly the open
  let mid = Math.max(MIN_MID_TICKS, price0 * tpu);
  let spread = drawSpread(rng);
  let bid = Math.round(mid - spread / 2);
  book.quote(open, open, bid, bid + spread, book.drawLots(), book.drawLots(), false, false);
  // the opening cross is 1-2% of the day's volume, the closing cross 5-10%, as on real exchanges
  const openLots = Math.max(1, Math.round(typLots * spec.trades * rng.range(0.01, 0.02)));
  pushTrade(open, open, bid + Math.floor(spread / 2), openLots, TradeKind.Open);

  // sweeps: groups of 2-4 trades sharing one timestamp; each group is one event
  const continuous = Math.max(0, spec.trades - 2);
  scratch.ensure(continuous + spec.quotes + 1);
  const groups = scratch.groups;
  let nGroups = 0;
  for (let left = continuous; left > 0; ) {
    const k = left >= 2 && rng.next() < SWEEP_P ? Math.min(left, 2 + rng.int(3)) : 1;
    groups[nGroups++] = k;
    left -= k;
  }
  const events = nGroups + Math.max(0, spec.quotes - 1);
  // sorted uniforms from normalised exponential spacings: O(n), no sort
  const cum = scratch.cum;
  let total = 0;
  for (let k = 0; k < events; k++) cum[k] = total += rng.exp();
  total += rng.exp();

  const span = len - 2 * MARGIN_NS;
  let prevT = open;
  let lastQuoteT = open;
  let nextSnap = open;
  let groupsLeft = nGroups;
  let gi = 0;
  for (let k = 0; k < events; k++) {
    let t = Math.floor(open + MARGIN_NS + intradayFraction(cum[k]! / total) * span);
    // one instrument's events never share a nanosecond except inside a sweep (so the prevailing quote of a trade is unambiguous)
    if (t <= prevT) t = prevT + 1;
    prevT = t;
    const latency = 20_000 + rng.int(880_000);
    if (rng.next() * (events - k) < groupsLeft) {
      groupsLeft--;
      const size = groups[gi++]!;
      const exchT = rng.next() < 0.005 ? NaN : t - latency;
      const buy = rng.next() < 0.5;
      const touch = buy ? book.ask : book.bid;
      if (size > 1) {
        for (let j = 0; j < size; j++) pushTrade(t, exchT, touch, tradeLots(), TradeKind.Sweep);
        continue;
      }
      const sp = book.ask - book.bid;
      const ticks = sp < 2 || rng.next() < 0.82 ? touch : book.bid + 1 + rng.int(sp - 1);
      const v = rng.next();
      const kind = v < 0.01 ? TradeKind.Unknown : v < 0.02 ? TradeKind.OffBook : v < 0.025 ? TradeKind.OutOfSequence : TradeKind.Regular;
      // an out-of-sequence print is reported seconds after it happened
      const late = kind === TradeKind.OutOfSequence && exchT === exchT ? Math.max(open, exchT - rng.range(1e9, 30e9)) : exchT;
      pushTrade(t, Math.floor(late), ticks, tradeLots(), kind);
      continue;
    }
    while (nextSnap < t) {
      book.snapshot(nextSnap);
      nextSnap += SNAPSHOT_EVERY_NS;
    }
    st.logPrice += sigmaDay * Math.sqrt((t - lastQuoteT) / len) * rng.normal();
    lastQuoteT = t;
    mid = Math.exp(st.logPrice) * tpu;
    if (mid < MIN_MID_TICKS) {
      // a floor keeps ten positive price levels under the bid
      mid = MIN_MID_TICKS;
      st.logPrice = Math.log(MIN_MID_TICKS / tpu);
    }
    if (rng.next() < 0.08) spread = drawSpread(rng);
    bid = Math.round(mid - spread / 2);
    const ask = bid + spread;
    let bidLots = bid === book.bid ? book.bidLots : book.drawLots();
    let askLots = ask === book.ask ? book.askLots : book.drawLots();
    if (bid === book.bid && ask === book.ask) {
      if (rng.next() < 0.5) bidLots = book.drawLots();
      else askLots = book.drawLots();
    }
    const exchT = rng.next() < 0.001 ? NaN : t - latency;
    book.quote(t, exchT, bid, ask, bidLots, askLots, rng.next() < 0.002, rng.next() < 0.002);
  }
  while (nextSnap < close) {
    book.snapshot(nextSnap);
    nextSnap += SNAPSHOT_EVERY_NS;
  }
  // closing auction print at exactly the close, inside the last quote
  const sp = book.ask - book.bid;
  const closeLots = Math.max(1, Math.round((accVol / lot) * rng.range(0.05, 0.1)));
  pushTrade(close, close, book.bid + Math.floor(sp / 2), closeLots, TradeKind.Close);
  return accVol;
}
