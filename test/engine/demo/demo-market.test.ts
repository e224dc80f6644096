/**
 * Consistency of the demo's market data, read back from disk: trades inside the prevailing quote,
 * trade bookkeeping columns, equal timestamps and nulls, TradeCanCor against Trade, snapshot ladders
 * against quotes, book updates against quote changes, and orders filling at the touch.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Column, floats, type SymbolColumn } from '../../../engine/core/column.js';
import type { Table } from '../../../engine/core/table.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { loadAll } from '../../../engine/storage/append.js';
import { Database, type Partition } from '../../../engine/storage/database.js';
import { tempDir } from '../../helpers/db.js';

const OPTS = { seed: 11, days: 3, instruments: 6, tradesPerDay: 6000, startDate: '2024-03-07' } as const;
const NULL_TS = -9223372036854775808n;

const strs = (c: Column): string[] => {
  if (c.type !== 'symbol') throw new Error('expected a symbol column');
  const s: SymbolColumn = c;
  return Array.from(s.codes, (k) => s.dict.get(k));
};
const nums = (c: Column): Float64Array => {
  if (c.type !== 'float' && c.type !== 'long') throw new Error('expected a numeric column');
  return floats(c);
};
const stamps = (c: Column): BigInt64Array => {
  if (c.type !== 'timestamp') throw new Error('expected a timestamp column');
  return c.data;
};
/** A cheap assertion for per-row loops (expect() per row is slow); names the row on failure. */
function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}
const lists = (c: Column): { offsets: Int32Array; values: Float64Array } => {
  if (c.type !== 'float[]' && c.type !== 'long[]') throw new Error('expected a list column');
  return c;
};

/** Index of the last element <= t in ts[lo, hi), or lo - 1. */
function lastAtOrBefore(ts: BigInt64Array, lo: number, hi: number, t: bigint): number {
  let l = lo;
  let h = hi;
  while (l < h) {
    const m = (l + h) >> 1;
    if (ts[m]! <= t) l = m + 1;
    else h = m;
  }
  return l - 1;
}

let db: Database;
let dates: string[] = [];
const lotOf = new Map<string, number>();
const tickOf = new Map<string, number>();
const exchangeOf = new Map<string, string>();

beforeAll(() => {
  const dir = join(tempDir(), 'demo');
  dates = generateDemo(dir, OPTS).dates;
  db = Database.open(dir);
  const inst = loadAll(db.table('Instrument'), db.reference('Instrument')!);
  const ids = strs(inst.col('instrumentID'));
  ids.forEach((id, i) => {
    lotOf.set(id, nums(inst.col('lotSize'))[i]!);
    tickOf.set(id, nums(inst.col('tickSize'))[i]!);
    exchangeOf.set(id, strs(inst.col('exchangeID'))[i]!);
  });
});

/** Each date's partitions of two tables, with the identifiers in both. */
function* byDay(a: string, b: string): Generator<[string, Partition, Partition]> {
  for (const key of dates) yield [key, db.partition(a, key)!, db.partition(b, key)!];
}

describe('demo market data: trades and quotes', () => {
  it('prices every trade at or inside the prevailing quote of its instrument', () => {
    let n = 0;
    let atTouch = 0;
    let inside = 0;
    for (const [, tp, qp] of byDay('Trade', 'Quote')) {
      const tt = stamps(tp.column('eventTimestamp'));
      const price = nums(tp.column('price'));
      const qt = stamps(qp.column('eventTimestamp'));
      const bid = nums(qp.column('bidPrice'));
      const ask = nums(qp.column('askPrice'));
      for (const [id, [s, e]] of tp.idRanges) {
        const [qs, qe] = qp.idRanges.get(id)!;
        for (let i = s; i < e; i++) {
          const qi = lastAtOrBefore(qt, qs, qe, tt[i]!);
          expect(qi, `${id}: trade without a prevailing quote`).toBeGreaterThanOrEqual(qs);
          const p = price[i]!;
          if (!(bid[qi]! <= p && p <= ask[qi]!)) throw new Error(`${id} trade ${p} outside ${bid[qi]} / ${ask[qi]}`);
          if (p === bid[qi] || p === ask[qi]) atTouch++;
          else inside++;
          n++;
        }
      }
    }
    expect(n).toBe(18000);
    expect(atTouch).toBeGreaterThan(inside);
    expect(inside).toBeGreaterThan(0);
  });

  it('keeps quotes on the tick grid with 1-3 tick spreads', () => {
    for (const key of dates) {
      const qp = db.partition('Quote', key)!;
      const bid = nums(qp.column('bidPrice'));
      const ask = nums(qp.column('askPrice'));
      const spreads = new Set<number>();
      for (const [id, [s, e]] of qp.idRanges) {
        const tick = tickOf.get(id)!;
        for (let i = s; i < e; i++) {
          const sp = Math.round((ask[i]! - bid[i]!) / tick);
          expect(Math.abs(bid[i]! / tick - Math.round(bid[i]! / tick))).toBeLessThan(1e-6);
          spreads.add(sp);
        }
      }
      expect([...spreads].sort()).toEqual([1, 2, 3]);
    }
  });

  it('numbers trades per instrument and date, with cumulative volume and tick count, in whole lots', () => {
    const execIds = new Set<string>();
    /** Per instrument: last trade price and whether the price has moved yet (directions carry across dates). */
    const last = new Map<string, { price: number; moved: boolean }>();
    let total = 0;
    for (const key of dates) {
      const p = db.partition('Trade', key)!;
      const seq = nums(p.column('sequenceNumber'));
      const acc = nums(p.column('accVol'));
      const count = nums(p.column('tickCount'));
      const vol = nums(p.column('volume'));
      const price = nums(p.column('price'));
      const dir = strs(p.column('tickDirection'));
      const exch = strs(p.column('tradedExchange'));
      for (const id of strs(p.column('executionID'))) execIds.add(id);
      total += p.rows;
      for (const [id, [s, e]] of p.idRanges) {
        let sum = 0;
        for (let i = s; i < e; i++) {
          sum += vol[i]!;
          const at = `${key} ${id} row ${i}`;
          check(seq[i] === i - s + 1 && count[i] === i - s + 1, `${at}: sequenceNumber/tickCount`);
          check(acc[i] === sum, `${at}: accVol`);
          check(vol[i]! > 0 && vol[i]! % lotOf.get(id)! === 0, `${at}: volume in lots`);
          const prev = last.get(id);
          if (prev) {
            const d = price[i]! - prev.price;
            if (d !== 0) prev.moved = true;
            const want = d > 0 ? ['+'] : d < 0 ? ['-'] : prev.moved ? ['0+', '0-'] : [''];
            check(want.includes(dir[i]!), `${at}: tickDirection ${dir[i]} after ${prev.price} -> ${price[i]}`);
          } else {
            check(dir[i] === '', `${at}: the very first trade has no tick direction`);
          }
          last.set(id, { price: price[i]!, moved: prev?.moved ?? false });
        }
        expect(new Set(exch.slice(s, e)).size).toBe(1);
      }
    }
    expect(execIds.size).toBe(total);
  });

  it('has equal timestamps: sweeps within an instrument, and the opening prints across instruments', () => {
    let sweeps = 0;
    for (const key of dates) {
      const p = db.partition('Trade', key)!;
      const t = stamps(p.column('eventTimestamp'));
      const cond = strs(p.column('conditions'));
      for (const [, [s, e]] of p.idRanges) {
        for (let i = s + 2; i < e - 1; i++) if (t[i] === t[i - 1]) sweeps++;
      }
      expect(cond).toContain('F');
      const opens = [...p.idRanges.values()].map(([s]) => t[s]!);
      expect(new Set(opens).size).toBeLessThan(opens.length);
    }
    expect(sweeps).toBeGreaterThan(10);
  });

  it('has some nulls: exchTime, conditions, quote sizes, limit prices', () => {
    const count = (name: string, col: string, isNull: (c: Column, i: number) => boolean): number => {
      let n = 0;
      for (const key of db.partitionKeys(name)) {
        const p = db.partition(name, key)!;
        const c = p.column(col);
        for (let i = 0; i < p.rows; i++) if (isNull(c, i)) n++;
      }
      return n;
    };
    const nullTs = (c: Column, i: number): boolean => stamps(c)[i] === NULL_TS;
    const nullNum = (c: Column, i: number): boolean => Number.isNaN(nums(c)[i]);
    const nullSym = (c: Column, i: number): boolean => c.type === 'symbol' && c.dict.get(c.codes[i]!) === '';
    const trades = db.rowCount('Trade');
    const nullExch = count('Trade', 'exchTime', nullTs);
    expect(nullExch).toBeGreaterThan(trades * 0.001);
    expect(nullExch).toBeLessThan(trades * 0.02);
    expect(count('Trade', 'conditions', nullSym)).toBeGreaterThan(trades * 0.003);
    expect(count('Quote', 'bidSize', nullNum) + count('Quote', 'askSize', nullNum)).toBeGreaterThan(0);
    expect(count('Quote', 'bidPrice', nullNum)).toBe(0);
    expect(count('Order', 'limitPrice', nullNum)).toBeGreaterThan(0);
    expect(count('Trade', 'price', nullNum)).toBe(0);
  });
});

describe('demo market data: TradeCanCor', () => {
  it('cancels and corrects existing trades after they happened', () => {
    const trades = new Map<string, { id: string; t: bigint; price: number; volume: number; day: string }>();
    for (const key of dates) {
      const p = db.partition('Trade', key)!;
      const ex = strs(p.column('executionID'));
      const ids = strs(p.column('instrumentID'));
      const t = stamps(p.column('eventTimestamp'));
      const price = nums(p.column('price'));
      const vol = nums(p.column('volume'));
      ex.forEach((e, i) => trades.set(e, { id: ids[i]!, t: t[i]!, price: price[i]!, volume: vol[i]!, day: key }));
    }
    const actions = new Map<string, number>();
    for (const key of db.partitionKeys('TradeCanCor')) {
      const p = db.partition('TradeCanCor', key)!;
      const ex = strs(p.column('executionID'));
      const ids = strs(p.column('instrumentID'));
      const action = strs(p.column('action'));
      const t = stamps(p.column('eventTimestamp'));
      const price = nums(p.column('price'));
      const vol = nums(p.column('volume'));
      for (let i = 0; i < p.rows; i++) {
        const tr = trades.get(ex[i]!);
        expect(tr, ex[i]).toBeDefined();
        expect(ids[i]).toBe(tr!.id);
        expect(t[i]! > tr!.t).toBe(true);
        expect(key).toBe(tr!.day);
        actions.set(action[i]!, (actions.get(action[i]!) ?? 0) + 1);
        if (action[i] === 'cancel') {
          expect(Number.isNaN(price[i])).toBe(true);
          expect(Number.isNaN(vol[i])).toBe(true);
        } else {
          expect(action[i]).toBe('correct');
          expect(price[i]! > 0 && vol[i]! > 0).toBe(true);
          expect(price[i] !== tr!.price || vol[i] !== tr!.volume).toBe(true);
        }
      }
    }
    expect(actions.get('cancel')).toBeGreaterThan(3);
    expect(actions.get('correct')).toBeGreaterThan(3);
    const total = db.rowCount('TradeCanCor') / db.rowCount('Trade');
    expect(total).toBeGreaterThan(0.001);
    expect(total).toBeLessThan(0.004);
  });
});

describe('demo market data: orderbook', () => {
  it('snapshots every 30 s: 10 ordered levels per side, best level = prevailing quote, totals = sums', () => {
    let n = 0;
    for (const [, sp, qp] of byDay('OrderbookSnapshots', 'Quote')) {
      const st = stamps(sp.column('eventTimestamp'));
      const bp = lists(sp.column('bidPrice'));
      const ap = lists(sp.column('askPrice'));
      const bs = lists(sp.column('bidSize'));
      const as = lists(sp.column('askSize'));
      const bc = lists(sp.column('bidCount'));
      const tb = nums(sp.column('totalBidSize'));
      const ta = nums(sp.column('totalAskSize'));
      const qt = stamps(qp.column('eventTimestamp'));
      const qb = nums(qp.column('bidPrice'));
      const qa = nums(qp.column('askPrice'));
      for (const [id, [s, e]] of sp.idRanges) {
        const [qs, qe] = qp.idRanges.get(id)!;
        for (let i = s; i < e; i++) {
          const at = `${id} snapshot ${i}`;
          check(i === s || st[i]! - st[i - 1]! === 30_000_000_000n, `${at}: 30 s apart`);
          const o = bp.offsets[i]!;
          check(bp.offsets[i + 1]! - o === 10 && ap.offsets[i + 1]! - ap.offsets[i]! === 10, `${at}: 10 levels`);
          const qi = lastAtOrBefore(qt, qs, qe, st[i]!);
          check(bp.values[o] === qb[qi] && ap.values[o] === qa[qi], `${at}: best level is the prevailing quote`);
          let sumB = 0;
          let sumA = 0;
          for (let j = 0; j < 10; j++) {
            if (j > 0) {
              check(bp.values[o + j]! < bp.values[o + j - 1]!, `${at}: bids descending`);
              check(ap.values[o + j]! > ap.values[o + j - 1]!, `${at}: asks ascending`);
            }
            check(bc.values[o + j]! >= 1 && bc.values[o + j]! <= bs.values[o + j]! / lotOf.get(id)!, `${at}: order counts`);
            sumB += bs.values[o + j]!;
            sumA += as.values[o + j]!;
          }
          check(tb[i] === sumB && ta[i] === sumA, `${at}: totals`);
          n++;
        }
      }
    }
    // US 6.5 h and London 8.5 h sessions: 780 and 1020 snapshots per instrument and date
    const expected = dates.reduce((sum, key) => {
      const ids = [...db.partition('Trade', key)!.idRanges.keys()];
      return sum + ids.reduce((a, id) => a + (exchangeOf.get(id) === 'XLON' ? 1020 : 780), 0);
    }, 0);
    expect(n).toBe(expected);
  });

  it('writes level-1 updates that follow the quotes', () => {
    let rows = 0;
    const actions = new Set<string>();
    for (const [, up, qp] of byDay('OrderbookUpdates', 'Quote')) {
      const ut = stamps(up.column('eventTimestamp'));
      const side = strs(up.column('side'));
      const action = strs(up.column('action'));
      const price = nums(up.column('price'));
      const size = nums(up.column('size'));
      const seq = nums(up.column('sequenceNumber'));
      const qt = stamps(qp.column('eventTimestamp'));
      const qb = nums(qp.column('bidPrice'));
      const qa = nums(qp.column('askPrice'));
      const qbs = nums(qp.column('bidSize'));
      const qas = nums(qp.column('askSize'));
      for (const [id, [s, e]] of up.idRanges) {
        const [qs, qe] = qp.idRanges.get(id)!;
        for (let i = s; i < e; i++) {
          const at = `${id} update ${i}`;
          check(i === s || seq[i] === seq[i - 1]! + 1, `${at}: sequenceNumber`);
          actions.add(action[i]!);
          // every update happens at a quote, and an add/modify states that quote's new best level
          const qi = lastAtOrBefore(qt, qs, qe, ut[i]!);
          check(qt[qi] === ut[i], `${at}: at a quote`);
          if (action[i] !== 'delete') {
            check(price[i] === (side[i] === 'bid' ? qb[qi] : qa[qi]), `${at}: price is the new best`);
            check(size[i] === (side[i] === 'bid' ? qbs[qi] : qas[qi]), `${at}: size is the new best size`);
          } else {
            check(size[i] === 0 && price[i] === (side[i] === 'bid' ? qb[qi - 1] : qa[qi - 1]), `${at}: deletes the old best`);
          }
          rows++;
        }
      }
    }
    expect([...actions].sort()).toEqual(['add', 'delete', 'modify']);
    expect(rows).toBeGreaterThan(db.rowCount('Quote') / 2);
  });
});

describe('demo orders', () => {
  it('fills at the prevailing touch within the limit, with quantities that add up', () => {
    const stats = { orders: 0, done: 0, cancelAfterFill: 0, market: 0, fills: 0 };
    for (const key of dates) {
      const op = db.partition('Order', key)!;
      const qp = db.partition('Quote', key)!;
      const ord = loadAll(db.table('Order'), op);
      const ids = strs(ord.col('orderID'));
      const type = strs(ord.col('eventType'));
      const side = strs(ord.col('side'));
      const inst = strs(ord.col('instrumentID'));
      const t = stamps(ord.col('eventTimestamp'));
      const qty = nums(ord.col('orderQty'));
      const limit = nums(ord.col('limitPrice'));
      const lastQty = nums(ord.col('lastQty'));
      const lastPx = nums(ord.col('lastPx'));
      const qt = stamps(qp.column('eventTimestamp'));
      const qb = nums(qp.column('bidPrice'));
      const qa = nums(qp.column('askPrice'));
      const byOrder = new Map<string, number[]>();
      ids.forEach((id, i) => byOrder.set(id, [...(byOrder.get(id) ?? []), i]));
      for (const [id, rows] of byOrder) {
        stats.orders++;
        const evs = rows.map((i) => type[i]);
        expect(evs[0], id).toBe('New');
        expect(evs.filter((e) => e === 'New').length).toBe(1);
        const last = evs[evs.length - 1];
        expect(['Done', 'Cancel']).toContain(last);
        expect(evs.slice(1, -1).every((e) => e === 'Fill')).toBe(true);
        const first = rows[0]!;
        if (Number.isNaN(limit[first])) stats.market++;
        let filled = 0;
        for (const i of rows) {
          expect(t[i]! >= t[first]!).toBe(true);
          if (type[i] !== 'Fill') continue;
          stats.fills++;
          const [qs, qe] = qp.idRanges.get(inst[i]!)!;
          const qi = lastAtOrBefore(qt, qs, qe, t[i]!);
          const buy = side[i] === 'Buy';
          expect(lastPx[i]).toBe(buy ? qa[qi] : qb[qi]);
          if (!Number.isNaN(limit[i])) expect(buy ? lastPx[i]! <= limit[i]! : lastPx[i]! >= limit[i]!).toBe(true);
          expect(lastQty[i]! % lotOf.get(inst[i]!)!).toBe(0);
          filled += lastQty[i]!;
        }
        expect(filled).toBeLessThanOrEqual(qty[first]!);
        if (last === 'Done') {
          stats.done++;
          expect(filled).toBe(qty[first]);
        } else {
          expect(filled).toBeLessThan(qty[first]!);
          if (filled > 0) stats.cancelAfterFill++;
        }
      }
    }
    expect(stats.orders).toBeGreaterThan(100);
    expect(stats.done / stats.orders).toBeGreaterThan(0.5);
    expect(stats.cancelAfterFill).toBeGreaterThan(3);
    expect(stats.market / stats.orders).toBeGreaterThan(0.15);
    expect(stats.market / stats.orders).toBeLessThan(0.45);
  });

  it('carries the instrument reference fields on order events (a few New events lack the ISIN)', () => {
    const ord: Table = loadAll(db.table('Order'), db.partition('Order', dates[0]!)!);
    const isin = strs(ord.col('ISIN'));
    const mic = strs(ord.col('MIC'));
    expect(isin.filter((s) => s === '').length).toBeGreaterThan(0);
    expect(mic.every((m) => ['XNAS', 'XNYS', 'XLON'].includes(m))).toBe(true);
    expect(strs(ord.col('exchangeID'))).toEqual(mic);
    for (const col of ['algoStrategy', 'executingBrokerCode', 'tradingVenueCode', 'currency']) {
      expect(strs(ord.col(col)).every((s) => s !== ''), col).toBe(true);
    }
  });
});
