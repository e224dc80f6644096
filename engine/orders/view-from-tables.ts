/** An in-memory MarketView built from standard Quote, Trade and Instrument tables (tests, small databases). */
import { floats, int32Pairs, type SymbolColumn } from '../core/column.js';
import type { Table } from '../core/table.js';
import { rowsByIdentifier } from './group-rows.js';
import { InMemoryMarketView } from './market-view.js';

function gatherF64(src: Float64Array, rows: Int32Array): Float64Array {
  const out = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = src[rows[i]!]!;
  return out;
}

function gatherNs(src: BigInt64Array, rows: Int32Array): BigInt64Array {
  const out = new BigInt64Array(rows.length);
  const s = int32Pairs(src);
  const o = int32Pairs(out);
  for (let i = 0; i < rows.length; i++) {
    o[2 * i] = s[2 * rows[i]!]!;
    o[2 * i + 1] = s[2 * rows[i]! + 1]!;
  }
  return out;
}

const nums = (t: Table, name: string): Float64Array => {
  const c = t.col(name);
  if (c.type !== 'float' && c.type !== 'long' && c.type !== 'int') throw new Error(`${name} is not numeric`);
  return floats(c);
};
const stamps = (t: Table, name: string): BigInt64Array => {
  const c = t.col(name);
  if (c.type !== 'timestamp') throw new Error(`${name} is not a timestamp column`);
  return c.data;
};
const syms = (t: Table, name: string): SymbolColumn => {
  const c = t.col(name);
  if (c.type !== 'symbol') throw new Error(`${name} is not a symbol column`);
  return c;
};

/** An InMemoryMarketView from standard Quote, Trade and Instrument tables (any row order). */
export function marketViewFromTables(tables: { Quote?: Table; Trade?: Table; Instrument?: Table }): InMemoryMarketView {
  const view = new InMemoryMarketView();
  const { Quote, Trade, Instrument } = tables;
  if (Quote) {
    const time = stamps(Quote, 'eventTimestamp');
    const bid = nums(Quote, 'bidPrice');
    const ask = nums(Quote, 'askPrice');
    for (const [id, rows] of rowsByIdentifier(syms(Quote, 'instrumentID'), time)) {
      view.setQuotes(id, { time: gatherNs(time, rows), bid: gatherF64(bid, rows), ask: gatherF64(ask, rows) });
    }
  }
  if (Trade) {
    const time = stamps(Trade, 'eventTimestamp');
    const price = nums(Trade, 'price');
    const volume = nums(Trade, 'volume');
    for (const [id, rows] of rowsByIdentifier(syms(Trade, 'instrumentID'), time)) {
      view.setTrades(id, { time: gatherNs(time, rows), price: gatherF64(price, rows), volume: gatherF64(volume, rows) });
    }
  }
  if (Instrument) {
    const id = syms(Instrument, 'instrumentID');
    const isin = syms(Instrument, 'ISIN');
    const mic = syms(Instrument, 'MIC');
    const ex = syms(Instrument, 'exchangeID');
    for (let i = 0; i < Instrument.length; i++) {
      view.setInstrument(id.dict.get(id.codes[i]!), {
        ISIN: isin.dict.get(isin.codes[i]!),
        MIC: mic.dict.get(mic.codes[i]!),
        exchangeID: ex.dict.get(ex.codes[i]!),
      });
    }
  }
  return view;
}
