/**
 * The rows of one demo date, accumulated column by column while instruments are simulated one after
 * another (ticker order, then time order: the storage order, so the commit need not sort the big
 * tables). Times are float64 ns since the UTC midnight of the date.
 */
import { F64Buf, I32Buf } from './buffers.js';

/** Depth of every orderbook snapshot, per side. */
export const BOOK_LEVELS = 10;

/** Where one instrument's rows sit in the day buffers (for the market view the analytics read). */
export interface InstrumentRange {
  readonly code: number;
  readonly tradeStart: number;
  readonly tradeEnd: number;
  readonly quoteStart: number;
  readonly quoteEnd: number;
}

/** Trade rows (schema order of the Trade table). */
export class DayTrades {
  readonly time: F64Buf;
  readonly exchTime: F64Buf;
  readonly inst: I32Buf;
  readonly price: F64Buf;
  readonly volume: F64Buf;
  readonly cond: I32Buf;
  readonly norm: I32Buf;
  readonly tick: I32Buf;
  readonly mic: I32Buf;
  readonly seq: F64Buf;
  readonly accVol: F64Buf;
  readonly count: F64Buf;
  readonly src: I32Buf;

  constructor(cap: number) {
    this.time = new F64Buf(cap);
    this.exchTime = new F64Buf(cap);
    this.inst = new I32Buf(cap);
    this.price = new F64Buf(cap);
    this.volume = new F64Buf(cap);
    this.cond = new I32Buf(cap);
    this.norm = new I32Buf(cap);
    this.tick = new I32Buf(cap);
    this.mic = new I32Buf(cap);
    this.seq = new F64Buf(cap);
    this.accVol = new F64Buf(cap);
    this.count = new F64Buf(cap);
    this.src = new I32Buf(cap);
  }
}

/** Quote rows. */
export class DayQuotes {
  readonly time: F64Buf;
  readonly exchTime: F64Buf;
  readonly inst: I32Buf;
  readonly bid: F64Buf;
  readonly bidSize: F64Buf;
  readonly ask: F64Buf;
  readonly askSize: F64Buf;
  readonly mic: I32Buf;
  readonly src: I32Buf;

  constructor(cap: number) {
    this.time = new F64Buf(cap);
    this.exchTime = new F64Buf(cap);
    this.inst = new I32Buf(cap);
    this.bid = new F64Buf(cap);
    this.bidSize = new F64Buf(cap);
    this.ask = new F64Buf(cap);
    this.askSize = new F64Buf(cap);
    this.mic = new I32Buf(cap);
    this.src = new I32Buf(cap);
  }
}

/** OrderbookUpdates rows. */
export class DayUpdates {
  readonly time: F64Buf;
  readonly inst: I32Buf;
  readonly mic: I32Buf;
  readonly side: I32Buf;
  readonly action: I32Buf;
  readonly level: F64Buf;
  readonly price: F64Buf;
  readonly size: F64Buf;
  readonly orders: F64Buf;
  readonly seq: F64Buf;
  readonly src: I32Buf;

  constructor(cap: number) {
    this.time = new F64Buf(cap);
    this.inst = new I32Buf(cap);
    this.mic = new I32Buf(cap);
    this.side = new I32Buf(cap);
    this.action = new I32Buf(cap);
    this.level = new F64Buf(cap);
    this.price = new F64Buf(cap);
    this.size = new F64Buf(cap);
    this.orders = new F64Buf(cap);
    this.seq = new F64Buf(cap);
    this.src = new I32Buf(cap);
  }
}

/** Snapshot rows; the level lists hold exactly BOOK_LEVELS values per row. */
export class DaySnapshots {
  readonly time: F64Buf;
  readonly inst: I32Buf;
  readonly mic: I32Buf;
  readonly bidPrice: F64Buf;
  readonly bidSize: F64Buf;
  readonly bidCount: F64Buf;
  readonly totalBid: F64Buf;
  readonly askPrice: F64Buf;
  readonly askSize: F64Buf;
  readonly askCount: F64Buf;
  readonly totalAsk: F64Buf;
  readonly src: I32Buf;

  constructor(cap: number) {
    const lv = cap * BOOK_LEVELS;
    this.time = new F64Buf(cap);
    this.inst = new I32Buf(cap);
    this.mic = new I32Buf(cap);
    this.bidPrice = new F64Buf(lv);
    this.bidSize = new F64Buf(lv);
    this.bidCount = new F64Buf(lv);
    this.totalBid = new F64Buf(cap);
    this.askPrice = new F64Buf(lv);
    this.askSize = new F64Buf(lv);
    this.askCount = new F64Buf(lv);
    this.totalAsk = new F64Buf(cap);
    this.src = new I32Buf(cap);
  }
}

/** TradeCanCor rows; the executionID is rebuilt from the instrument and the trade's sequence number. */
export class DayCanCor {
  readonly time = new F64Buf(256);
  readonly inst = new I32Buf(256);
  readonly tradeSeq = new F64Buf(256);
  readonly action = new I32Buf(256);
  readonly price = new F64Buf(256);
  readonly volume = new F64Buf(256);
}

/** Order event rows; string-valued symbols are codes into per-day dictionaries. */
export class DayOrders {
  readonly time = new F64Buf(4096);
  readonly inst = new I32Buf(4096);
  readonly orderID = new I32Buf(4096);
  readonly eventType = new I32Buf(4096);
  readonly side = new I32Buf(4096);
  readonly orderQty = new F64Buf(4096);
  readonly limitPrice = new F64Buf(4096);
  readonly lastQty = new F64Buf(4096);
  readonly lastPx = new F64Buf(4096);
  readonly algo = new I32Buf(4096);
  readonly broker = new I32Buf(4096);
  readonly mic = new I32Buf(4096);
  readonly isin = new I32Buf(4096);
  readonly venue = new I32Buf(4096);
  readonly currency = new I32Buf(4096);
  /** orderID dictionary: "" then the day's order IDs. */
  readonly ids: string[] = [''];
}

/** All rows of one date. */
export class DayData {
  readonly trades: DayTrades;
  readonly quotes: DayQuotes;
  readonly updates: DayUpdates;
  readonly snapshots: DaySnapshots;
  readonly cancor = new DayCanCor();
  readonly orders = new DayOrders();
  readonly ranges: InstrumentRange[] = [];

  constructor(
    readonly days: number,
    readonly baseNs: bigint,
    tradeCap: number,
    quoteCap: number,
    snapshotCap: number,
  ) {
    this.trades = new DayTrades(tradeCap);
    this.quotes = new DayQuotes(quoteCap);
    this.updates = new DayUpdates(Math.ceil(quoteCap * 1.3));
    this.snapshots = new DaySnapshots(snapshotCap);
  }
}
