/**
 * The top of one instrument's book during a session: every quote change is written as a Quote row
 * plus the OrderbookUpdates it implies at level 1, and 10-level snapshots are drawn around the
 * current best bid and ask (so a snapshot's best level always equals the prevailing quote).
 */
import type { Rng } from './rng.js';
import { BOOK_LEVELS, type DayData } from './day.js';
import { ACT_ADD, ACT_DELETE, ACT_MODIFY, SIDE_ASK, SIDE_BID } from './vocab.js';

export interface BookSpec {
  readonly code: number;
  readonly mic: number;
  readonly quoteSrc: number;
  readonly bookSrc: number;
  readonly ticksPerUnit: number;
  readonly lotSize: number;
  /** Typical displayed size at one level, in lots. */
  readonly typLots: number;
}

export class Book {
  /** Best bid and ask in ticks, and their displayed sizes in lots. */
  bid = 0;
  ask = 0;
  bidLots = 0;
  askLots = 0;
  private updateSeq = 0;
  private started = false;

  constructor(
    private readonly day: DayData,
    private readonly spec: BookSpec,
    private readonly rng: Rng,
  ) {}

  /** A displayed size for a fresh price level, in lots. */
  drawLots(depth = 0): number {
    return 1 + Math.floor(this.spec.typLots * (1 + 0.3 * depth) * this.rng.exp());
  }

  /** Orders resting at a level of that many lots (at least 1, at most one per lot). */
  private orderCount(lots: number): number {
    return 1 + Math.floor(this.rng.next() * Math.min(lots, 12));
  }

  /**
   * Moves the top of book and records it: a Quote row (sizes null where `nullBid`/`nullAsk`, a
   * feed gap, which also suppresses that side's update rows) and the level-1 updates.
   */
  quote(t: number, exchT: number, bid: number, ask: number, bidLots: number, askLots: number, nullBid: boolean, nullAsk: boolean): void {
    const q = this.day.quotes;
    const s = this.spec;
    const lot = s.lotSize;
    q.time.push(t);
    q.exchTime.push(exchT);
    q.inst.push(s.code);
    q.bid.push(bid / s.ticksPerUnit);
    q.bidSize.push(nullBid ? NaN : bidLots * lot);
    q.ask.push(ask / s.ticksPerUnit);
    q.askSize.push(nullAsk ? NaN : askLots * lot);
    q.mic.push(s.mic);
    q.src.push(s.quoteSrc);
    if (!nullBid) this.sideUpdates(t, SIDE_BID, 1, this.bid, bid, this.bidLots, bidLots);
    if (!nullAsk) this.sideUpdates(t, SIDE_ASK, -1, this.ask, ask, this.askLots, askLots);
    this.bid = bid;
    this.ask = ask;
    this.bidLots = bidLots;
    this.askLots = askLots;
    this.started = true;
  }

  /** dir = +1 for bids (higher is better), -1 for asks. */
  private sideUpdates(t: number, side: number, dir: number, prevP: number, newP: number, prevLots: number, newLots: number): void {
    if (!this.started || (newP - prevP) * dir > 0) {
      this.update(t, side, ACT_ADD, newP, newLots);
    } else if (newP === prevP) {
      if (newLots !== prevLots) this.update(t, side, ACT_MODIFY, newP, newLots);
    } else {
      // the best level emptied: it is deleted and the next level, now best, is refreshed
      this.update(t, side, ACT_DELETE, prevP, 0);
      this.update(t, side, ACT_MODIFY, newP, newLots);
    }
  }

  private update(t: number, side: number, action: number, priceTicks: number, lots: number): void {
    const u = this.day.updates;
    const s = this.spec;
    u.time.push(t);
    u.inst.push(s.code);
    u.mic.push(s.mic);
    u.side.push(side);
    u.action.push(action);
    u.level.push(1);
    u.price.push(priceTicks / s.ticksPerUnit);
    u.size.push(lots * s.lotSize);
    u.orders.push(lots === 0 ? 0 : this.orderCount(lots));
    u.seq.push(++this.updateSeq);
    u.src.push(s.bookSrc);
  }

  /** A BOOK_LEVELS-deep snapshot at time t, best level = the current quote. */
  snapshot(t: number): void {
    const sn = this.day.snapshots;
    const s = this.spec;
    const tpu = s.ticksPerUnit;
    const lot = s.lotSize;
    sn.time.push(t);
    sn.inst.push(s.code);
    sn.mic.push(s.mic);
    sn.src.push(s.bookSrc);
    let total = 0;
    let p = this.bid;
    for (let j = 0; j < BOOK_LEVELS; j++) {
      // mostly a level on every tick, sometimes an empty tick between levels
      if (j > 0) p -= this.rng.next() < 0.12 ? 2 : 1;
      const lots = j === 0 ? this.bidLots : this.drawLots(j);
      sn.bidPrice.push(p / tpu);
      sn.bidSize.push(lots * lot);
      sn.bidCount.push(this.orderCount(lots));
      total += lots * lot;
    }
    sn.totalBid.push(total);
    total = 0;
    p = this.ask;
    for (let j = 0; j < BOOK_LEVELS; j++) {
      if (j > 0) p += this.rng.next() < 0.12 ? 2 : 1;
      const lots = j === 0 ? this.askLots : this.drawLots(j);
      sn.askPrice.push(p / tpu);
      sn.askSize.push(lots * lot);
      sn.askCount.push(this.orderCount(lots));
      total += lots * lot;
    }
    sn.totalAsk.push(total);
  }
}
