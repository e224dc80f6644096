/**
 * The depth ladder's model, from result rows as the backend pages them (text cells; list cells as
 * JSON array text such as "[101.5,101.4]"; null as ""). Works on what plotOrderbookSnapshots returns
 * (level lists plus bestBid, bestAsk, spread, midPoint, maxSize) and on raw OrderbookSnapshots rows
 * (those figures are then computed the same way, SPEC 4).
 */
import type { ResultColumn } from '../../../engine/contract';

/** Where the ladder's columns sit in a result row (-1 when absent). */
export interface LadderColumns {
  readonly bidPrice: number;
  readonly bidSize: number;
  readonly askPrice: number;
  readonly askSize: number;
  readonly bidCount: number;
  readonly askCount: number;
  readonly bestBid: number;
  readonly bestAsk: number;
  readonly spread: number;
  readonly midPoint: number;
  readonly maxSize: number;
  readonly totalBidSize: number;
  readonly totalAskSize: number;
  readonly time: number;
  readonly id: number;
}

/** The ladder's column positions, or null when the result has no level lists to draw. */
export function ladderColumns(columns: readonly ResultColumn[], timeColumn: string | null, idColumn: string | null): LadderColumns | null {
  const at = (name: string | null, types?: readonly string[]): number =>
    name === null ? -1 : columns.findIndex((c) => c.name === name && (!types || types.includes(c.type)));
  const lists = {
    bidPrice: at('bidPrice', ['float[]']),
    bidSize: at('bidSize', ['long[]', 'float[]']),
    askPrice: at('askPrice', ['float[]']),
    askSize: at('askSize', ['long[]', 'float[]']),
  };
  if (Object.values(lists).some((i) => i < 0)) return null;
  return {
    ...lists,
    bidCount: at('bidCount', ['long[]']),
    askCount: at('askCount', ['long[]']),
    bestBid: at('bestBid'),
    bestAsk: at('bestAsk'),
    spread: at('spread'),
    midPoint: at('midPoint'),
    maxSize: at('maxSize'),
    totalBidSize: at('totalBidSize'),
    totalAskSize: at('totalAskSize'),
    time: at(timeColumn),
    id: at(idColumn),
  };
}

/** A list cell's numbers ("[1.5,2]" → [1.5, 2]); nulls become NaN; "" is an empty list. */
export function parseNumberList(text: string | undefined): number[] {
  const t = (text ?? '').trim();
  if (t === '' || t === '[]') return [];
  try {
    const v: unknown = JSON.parse(t);
    return Array.isArray(v) ? v.map((x) => (typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN)) : [];
  } catch {
    return t.replace(/^\[|\]$/g, '').split(/[,\s]+/).map((s) => (s === '' || s === 'null' ? NaN : Number(s)));
  }
}

const num = (text: string | undefined): number | null => {
  if (text === undefined || text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
};

export interface Level {
  readonly price: number;
  readonly size: number;
  readonly count: number | null;
}

/** One snapshot of the book: levels best-first, and its headline figures. */
export interface Snapshot {
  readonly row: number;
  readonly id: string;
  readonly time: string;
  readonly bids: readonly Level[];
  readonly asks: readonly Level[];
  readonly bestBid: number | null;
  readonly bestAsk: number | null;
  readonly spread: number | null;
  readonly midPoint: number | null;
  readonly maxSize: number;
  readonly totalBid: number;
  readonly totalAsk: number;
}

function levels(row: readonly string[], price: number, size: number, count: number): Level[] {
  const p = parseNumberList(row[price]);
  const s = parseNumberList(row[size]);
  const c = count >= 0 ? parseNumberList(row[count]) : [];
  const out: Level[] = [];
  p.forEach((px, i) => {
    const sz = s[i];
    if (!Number.isFinite(px) || sz === undefined || !Number.isFinite(sz)) return;
    const n = c[i];
    out.push({ price: px, size: sz, count: n !== undefined && Number.isFinite(n) ? n : null });
  });
  return out;
}

/** The snapshot a result row holds; `row` is its index in the result. */
export function snapshotOf(cells: readonly string[], cols: LadderColumns, row: number): Snapshot {
  const bids = levels(cells, cols.bidPrice, cols.bidSize, cols.bidCount);
  const asks = levels(cells, cols.askPrice, cols.askSize, cols.askCount);
  const given = (i: number): number | null => (i >= 0 ? num(cells[i]) : null);
  const bestBid = given(cols.bestBid) ?? (bids.length ? Math.max(...bids.map((l) => l.price)) : null);
  const bestAsk = given(cols.bestAsk) ?? (asks.length ? Math.min(...asks.map((l) => l.price)) : null);
  const both = bestBid !== null && bestAsk !== null;
  const sizes = [...bids, ...asks].map((l) => l.size);
  const sum = (ls: readonly Level[]): number => ls.reduce((a, l) => a + l.size, 0);
  return {
    row,
    id: cols.id >= 0 ? (cells[cols.id] ?? '') : '',
    time: cols.time >= 0 ? (cells[cols.time] ?? '') : '',
    bids,
    asks,
    bestBid,
    bestAsk,
    spread: given(cols.spread) ?? (both ? bestAsk - bestBid : null),
    midPoint: given(cols.midPoint) ?? (both ? (bestBid + bestAsk) / 2 : null),
    maxSize: given(cols.maxSize) ?? (sizes.length ? Math.max(...sizes) : 0),
    totalBid: given(cols.totalBidSize) ?? sum(bids),
    totalAsk: given(cols.totalAskSize) ?? sum(asks),
  };
}

/** One price line of the ladder: the bid and ask resting there, bars as fractions of maxSize. */
export interface LadderRow {
  readonly price: number;
  readonly bid: Level | null;
  readonly ask: Level | null;
  readonly bidBar: number;
  readonly askBar: number;
  readonly best: 'bid' | 'ask' | 'both' | null;
}

export interface LadderModel {
  /** Price lines, highest price first. */
  readonly rows: readonly LadderRow[];
  /** The mid marker goes before this row (rows above it are priced above the mid). */
  readonly midAt: number;
  /** Spread in basis points of the mid, or null. */
  readonly spreadBps: number | null;
  /** Best bid at or above best ask. */
  readonly crossed: boolean;
  /** Decimal places that show every price of the snapshot. */
  readonly decimals: number;
  /** Share of the displayed size on the bid side (0..1), or null with no size. */
  readonly bidShare: number | null;
}

/** Decimal places needed to show a number exactly (at most 8). */
export function decimalsOf(n: number): number {
  for (let d = 0; d < 8; d++) if (Math.abs(Math.round(n * 10 ** d) / 10 ** d - n) < 1e-9 * Math.max(1, Math.abs(n))) return d;
  return 8;
}

/** The ladder of a snapshot: bid and ask levels merged on one descending price axis. */
export function ladderModel(s: Snapshot): LadderModel {
  const decimals = Math.max(0, ...[...s.bids, ...s.asks].map((l) => decimalsOf(l.price)));
  const key = (p: number): string => p.toFixed(decimals);
  const byPrice = new Map<string, { price: number; bid: Level | null; ask: Level | null }>();
  const slot = (p: number): { price: number; bid: Level | null; ask: Level | null } => {
    let r = byPrice.get(key(p));
    if (!r) byPrice.set(key(p), (r = { price: p, bid: null, ask: null }));
    return r;
  };
  for (const l of s.bids) slot(l.price).bid = l;
  for (const l of s.asks) slot(l.price).ask = l;
  const scale = s.maxSize > 0 ? s.maxSize : 1;
  const bar = (l: Level | null): number => (l ? Math.max(0, Math.min(1, l.size / scale)) : 0);
  const isBest = (p: number, best: number | null): boolean => best !== null && key(p) === key(best);
  const rows: LadderRow[] = [...byPrice.values()]
    .sort((a, b) => b.price - a.price)
    .map((r) => {
      const bb = r.bid !== null && isBest(r.price, s.bestBid);
      const ba = r.ask !== null && isBest(r.price, s.bestAsk);
      return { ...r, bidBar: bar(r.bid), askBar: bar(r.ask), best: bb && ba ? 'both' : bb ? 'bid' : ba ? 'ask' : null };
    });
  const mid = s.midPoint;
  const midAt = mid === null ? -1 : rows.filter((r) => r.price > mid).length;
  const total = s.totalBid + s.totalAsk;
  return {
    rows,
    midAt,
    spreadBps: s.spread !== null && mid ? (s.spread / mid) * 1e4 : null,
    crossed: s.bestBid !== null && s.bestAsk !== null && s.bestBid >= s.bestAsk,
    decimals,
    bidShare: total > 0 ? s.totalBid / total : null,
  };
}

/** The latest snapshot of each identifier among rows (rows in time order: the last one wins). */
export function latestById(snaps: readonly Snapshot[]): Map<string, Snapshot> {
  const out = new Map<string, Snapshot>();
  for (const s of snaps) out.set(s.id, s);
  return out;
}
