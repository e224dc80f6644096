/** Turns one date's buffers into Tables with exactly the standard schema's columns. */
import { type Column, longsFrom } from '../core/column.js';
import { Table } from '../core/table.js';
import type { TableSchema } from '../storage/schema.js';
import { pad, symbolColumn, timestampColumn } from './buffers.js';
import { BOOK_LEVELS, type DayData } from './day.js';
import { ALGO_DICT, BROKER_DICT, CURRENCY_DICT, EVENT_DICT, ORDER_SIDE_DICT, VENUE_DICT } from './orders.js';
import { ACTION_DICT, CANCOR_DICT, COND_DICT, MIC_DICT, NORM_DICT, SIDE_DICT, SRC_DICT, TICK_DICT } from './vocab.js';

/** The executionID of a trade: unique over the demo, and rebuilt identically for its TradeCanCor rows. */
export function executionId(ticker: string, dateTag: string, seq: number): string {
  return `${ticker}-${dateTag}-${pad(seq, 7)}`;
}

/** A Table in the schema's column order; fails loudly when a column is missing or mistyped. */
export function schemaTable(t: TableSchema, cols: Readonly<Record<string, Column>>): Table {
  return new Table(
    t.columns.map((c) => c.name),
    t.columns.map((c) => {
      const col = cols[c.name];
      if (!col || col.type !== c.type) throw new Error(`demo: ${t.name}.${c.name} missing or not ${c.type}`);
      return col;
    }),
  );
}

const float = (data: Float64Array): Column => ({ type: 'float', data });
const long = (data: Float64Array): Column => ({ type: 'long', data: longsFrom(data) });
const longList = (values: Float64Array, rows: number): Column => ({ type: 'long[]', offsets: levelOffsets(rows), values });

function levelOffsets(rows: number): Int32Array {
  const off = new Int32Array(rows + 1);
  for (let i = 0; i <= rows; i++) off[i] = i * BOOK_LEVELS;
  return off;
}

export interface DayTables {
  readonly Trade: Table;
  readonly Quote: Table;
  readonly OrderbookSnapshots: Table;
  readonly OrderbookUpdates: Table;
  readonly TradeCanCor: Table;
  readonly Order: Table;
}

/** Context for building a date's tables: schemas, instrument dictionary and symbol dictionaries. */
export interface TableContext {
  readonly schema: (name: string) => TableSchema;
  /** instrumentID dictionary: "" then the tickers, in code order. */
  readonly instDict: readonly string[];
  readonly isinDict: readonly string[];
  readonly dateTag: string;
}

/** All tables of one date (OrderAnalytics is computed from these afterwards). */
export function dayTables(day: DayData, ctx: TableContext): DayTables {
  const base = day.baseNs;
  const { instDict } = ctx;
  const tr = day.trades;
  const seq = tr.seq.finish();
  const tInst = tr.inst.finish();
  const execDict = new Array<string>(seq.length + 1);
  execDict[0] = '';
  const execCodes = new Int32Array(seq.length);
  for (let i = 0; i < seq.length; i++) {
    execDict[i + 1] = executionId(instDict[tInst[i]!]!, ctx.dateTag, seq[i]!);
    execCodes[i] = i + 1;
  }
  const Trade = schemaTable(ctx.schema('Trade'), {
    eventTimestamp: timestampColumn(base, tr.time.finish()),
    instrumentID: symbolColumn(tInst, instDict),
    exchTime: timestampColumn(base, tr.exchTime.finish()),
    price: float(tr.price.finish()),
    volume: long(tr.volume.finish()),
    conditions: symbolColumn(tr.cond.finish(), COND_DICT),
    normalisedCondition: symbolColumn(tr.norm.finish(), NORM_DICT),
    tickDirection: symbolColumn(tr.tick.finish(), TICK_DICT),
    tradedExchange: symbolColumn(tr.mic.finish(), MIC_DICT),
    sequenceNumber: long(seq),
    accVol: long(tr.accVol.finish()),
    tickCount: long(tr.count.finish()),
    executionID: symbolColumn(execCodes, execDict),
    srcSys: symbolColumn(tr.src.finish(), SRC_DICT),
  });

  const q = day.quotes;
  const Quote = schemaTable(ctx.schema('Quote'), {
    eventTimestamp: timestampColumn(base, q.time.finish()),
    instrumentID: symbolColumn(q.inst.finish(), instDict),
    exchTime: timestampColumn(base, q.exchTime.finish()),
    bidPrice: float(q.bid.finish()),
    bidSize: long(q.bidSize.finish()),
    askPrice: float(q.ask.finish()),
    askSize: long(q.askSize.finish()),
    exchangeID: symbolColumn(q.mic.finish(), MIC_DICT),
    srcSys: symbolColumn(q.src.finish(), SRC_DICT),
  });

  const s = day.snapshots;
  const rows = s.time.length;
  const OrderbookSnapshots = schemaTable(ctx.schema('OrderbookSnapshots'), {
    eventTimestamp: timestampColumn(base, s.time.finish()),
    instrumentID: symbolColumn(s.inst.finish(), instDict),
    exchangeID: symbolColumn(s.mic.finish(), MIC_DICT),
    bidPrice: { type: 'float[]', offsets: levelOffsets(rows), values: s.bidPrice.finish() },
    bidSize: longList(s.bidSize.finish(), rows),
    bidCount: longList(s.bidCount.finish(), rows),
    totalBidSize: long(s.totalBid.finish()),
    askPrice: { type: 'float[]', offsets: levelOffsets(rows), values: s.askPrice.finish() },
    askSize: longList(s.askSize.finish(), rows),
    askCount: longList(s.askCount.finish(), rows),
    totalAskSize: long(s.totalAsk.finish()),
    srcSys: symbolColumn(s.src.finish(), SRC_DICT),
  });

  const u = day.updates;
  const OrderbookUpdates = schemaTable(ctx.schema('OrderbookUpdates'), {
    eventTimestamp: timestampColumn(base, u.time.finish()),
    instrumentID: symbolColumn(u.inst.finish(), instDict),
    exchangeID: symbolColumn(u.mic.finish(), MIC_DICT),
    side: symbolColumn(u.side.finish(), SIDE_DICT),
    action: symbolColumn(u.action.finish(), ACTION_DICT),
    level: long(u.level.finish()),
    price: float(u.price.finish()),
    size: long(u.size.finish()),
    orderCount: long(u.orders.finish()),
    sequenceNumber: long(u.seq.finish()),
    srcSys: symbolColumn(u.src.finish(), SRC_DICT),
  });

  const c = day.cancor;
  const cInst = c.inst.finish();
  const cSeq = c.tradeSeq.finish();
  const TradeCanCor = schemaTable(ctx.schema('TradeCanCor'), {
    eventTimestamp: timestampColumn(base, c.time.finish()),
    instrumentID: symbolColumn(cInst, instDict),
    executionID: symbolColumn(
      Int32Array.from(cSeq, (_, i) => i + 1),
      ['', ...Array.from(cSeq, (sq, i) => executionId(instDict[cInst[i]!]!, ctx.dateTag, sq))],
    ),
    action: symbolColumn(c.action.finish(), CANCOR_DICT),
    price: float(c.price.finish()),
    volume: long(c.volume.finish()),
  });

  const o = day.orders;
  const mic = symbolColumn(o.mic.finish(), MIC_DICT);
  const Order = schemaTable(ctx.schema('Order'), {
    eventTimestamp: timestampColumn(base, o.time.finish()),
    instrumentID: symbolColumn(o.inst.finish(), instDict),
    orderID: symbolColumn(o.orderID.finish(), o.ids),
    eventType: symbolColumn(o.eventType.finish(), EVENT_DICT),
    side: symbolColumn(o.side.finish(), ORDER_SIDE_DICT),
    orderQty: long(o.orderQty.finish()),
    limitPrice: float(o.limitPrice.finish()),
    lastQty: long(o.lastQty.finish()),
    lastPx: float(o.lastPx.finish()),
    algoStrategy: symbolColumn(o.algo.finish(), ALGO_DICT),
    executingBrokerCode: symbolColumn(o.broker.finish(), BROKER_DICT),
    exchangeID: mic,
    MIC: mic,
    ISIN: symbolColumn(o.isin.finish(), ctx.isinDict),
    tradingVenueCode: symbolColumn(o.venue.finish(), VENUE_DICT),
    currency: symbolColumn(o.currency.finish(), CURRENCY_DICT),
  });
  return { Trade, Quote, OrderbookSnapshots, OrderbookUpdates, TradeCanCor, Order };
}
