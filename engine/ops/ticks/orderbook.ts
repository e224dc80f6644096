/**
 * orderbook: plotOrderbookSnapshots (INTERFACE 4.1.6, SPEC 4): per identifier, the latest snapshot
 * row in the window, with top of book appended: bestBid = max bid level price, bestAsk = min ask level
 * price, maxSize = max over every bid and ask level size, spread = bestAsk - bestBid, midPoint =
 * (bestBid + bestAsk) / 2. Level lists are kept so the app can draw the depth ladder.
 */
import { type ListColumn, longsFrom } from '../../core/column.js';
import { TickscopeError } from '../../core/errors.js';
import { Table } from '../../core/table.js';
import type { TableSchema } from '../../storage/schema.js';
import { groupRows } from './fill.js';

export const ORDERBOOK_MODES = ['plotOrderbookSnapshots', 'instrumentNames', 'orderbookUpdatesRefData'] as const;
export type OrderbookMode = (typeof ORDERBOOK_MODES)[number];

const LEVELS: ReadonlyArray<[string, 'float[]' | 'long[]']> = [
  ['bidPrice', 'float[]'],
  ['askPrice', 'float[]'],
  ['bidSize', 'long[]'],
  ['askSize', 'long[]'],
];

/** The level-list columns plotOrderbookSnapshots reads; an error naming the table when it lacks them. */
export function snapshotColumns(t: TableSchema): string[] {
  const missing = LEVELS.filter(([name, type]) => !t.columns.some((c) => c.name === name && c.type === type));
  if (missing.length > 0) {
    throw new TickscopeError(
      'requirement',
      `orderbook: plotOrderbookSnapshots needs level lists ${LEVELS.map(([n, ty]) => `${n} (${ty})`).join(', ')}, as OrderbookSnapshots has; ${t.name} lacks ${missing.map(([n]) => n).join(', ')}`,
    );
  }
  return LEVELS.map(([n]) => n);
}

/** The last row of each identifier (rows are in time order), kept in time order. */
export function latestPerIdentifier(t: Table, idColumn: string): Table {
  const last = groupRows(t, idColumn).map((g) => g[g.length - 1]!);
  return t.take(Int32Array.from(last.sort((a, b) => a - b)));
}

function extreme(l: ListColumn, row: number, pick: (a: number, b: number) => number): number {
  let v = NaN;
  for (let k = l.offsets[row]!; k < l.offsets[row + 1]!; k++) {
    const x = l.values[k]!;
    if (x === x) v = v === v ? pick(v, x) : x;
  }
  return v;
}

/** The snapshot rows with bestBid, bestAsk, maxSize, spread and midPoint appended. */
export function withTopOfBook(t: Table): Table {
  const [bidPrice, askPrice, bidSize, askSize] = LEVELS.map(([n]) => t.col(n) as ListColumn) as [ListColumn, ListColumn, ListColumn, ListColumn];
  const n = t.length;
  const bestBid = new Float64Array(n);
  const bestAsk = new Float64Array(n);
  const maxSize = new Float64Array(n);
  const spread = new Float64Array(n);
  const midPoint = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    bestBid[r] = extreme(bidPrice, r, Math.max);
    bestAsk[r] = extreme(askPrice, r, Math.min);
    const b = extreme(bidSize, r, Math.max);
    const a = extreme(askSize, r, Math.max);
    maxSize[r] = b === b ? (a === a ? Math.max(a, b) : b) : a;
    spread[r] = bestAsk[r]! - bestBid[r]!;
    midPoint[r] = (bestBid[r]! + bestAsk[r]!) / 2;
  }
  return new Table(
    [...t.names, 'bestBid', 'bestAsk', 'maxSize', 'spread', 'midPoint'],
    [
      ...t.columns,
      { type: 'float', data: bestBid },
      { type: 'float', data: bestAsk },
      { type: 'long', data: longsFrom(maxSize) },
      { type: 'float', data: spread },
      { type: 'float', data: midPoint },
    ],
    n,
  );
}
