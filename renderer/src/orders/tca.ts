/**
 * The transaction-cost analysis workspace's numbers: summary values formatted by their function's
 * kind (bps with one decimal, rates as %, shares and counts with thousands separators, minutes, prices
 * with one number of decimals per column so they line up), coloured by the adverse direction, sorted
 * by a column, and the distribution of shortfalls as histogram bins.
 */
import type { SummaryFunctionInfo } from '../../../engine/contract';
import { columnNeeds, formatNumber, kindFormat, statsOf } from '../grid/number-format';

export type Kind = SummaryFunctionInfo['kind'];

/**
 * Decimals of a price column, shared by the column so it lines up: what its values need at 10
 * significant digits (the grid's rule), at least 2 and at most 6 (averaged prices carry long tails).
 */
export function priceDecimals(values: ArrayLike<number | null>): number {
  return Math.min(6, Math.max(2, columnNeeds(statsOf(Array.from(values))).decimals));
}

/** Unit shown in a column's header. */
export const KIND_UNIT: Readonly<Record<Kind, string>> = {
  bps: 'bps',
  pct: '%',
  shares: 'sh',
  count: '#',
  minutes: 'min',
  price: 'px',
  value: 'value',
  number: '',
};

/** The text of one value of a function of that kind ('' for null), as the grid formats that kind. */
export function formatValue(kind: Kind, v: number | null | undefined, priceDp = 2): string {
  return formatNumber(kindFormat(kind, undefined, priceDp), v);
}

export type Tone = 'adverse' | 'favourable' | null;

/**
 * Whether a value is a cost: bps are signed costs and returns (positive = adverse when higher is
 * adverse); other kinds are judged against the same function over all orders.
 */
export function toneOf(f: Pick<SummaryFunctionInfo, 'kind' | 'adverse'>, v: number | null | undefined, total: number | null | undefined): Tone {
  if (!f.adverse || v === null || v === undefined || !Number.isFinite(v)) return null;
  const ref = f.kind === 'bps' ? 0 : total;
  if (ref === null || ref === undefined || !Number.isFinite(ref)) return null;
  const eps = 1e-12 * Math.max(1, Math.abs(ref));
  if (Math.abs(v - ref) <= eps) return null;
  const higher = v > ref;
  return higher === (f.adverse === 'high') ? 'adverse' : 'favourable';
}

export interface SortState {
  readonly column: string;
  readonly dir: 'asc' | 'desc';
}

/** The next sort after a click on a column's header: descending, ascending, then the result's order. */
export function nextSort(s: SortState | null, column: string, numeric: boolean): SortState | null {
  const first = numeric ? 'desc' : 'asc';
  if (!s || s.column !== column) return { column, dir: first };
  if (s.dir === first) return { column, dir: first === 'desc' ? 'asc' : 'desc' };
  return null;
}

/** Row order for a sort: nulls last either way, ties in the result's order. */
export function sortedRows(count: number, value: (row: number) => number | string | null, s: SortState | null): number[] {
  const rows = Array.from({ length: count }, (_, i) => i);
  if (!s) return rows;
  const sign = s.dir === 'asc' ? 1 : -1;
  return rows.sort((a, b) => {
    const x = value(a);
    const y = value(b);
    const xn = x === null || (typeof x === 'number' && Number.isNaN(x));
    const yn = y === null || (typeof y === 'number' && Number.isNaN(y));
    if (xn || yn) return xn === yn ? a - b : xn ? 1 : -1;
    if (x! < y!) return -sign;
    if (x! > y!) return sign;
    return a - b;
  });
}

export interface Histogram {
  /** Bin edges: bins[i] covers [edges[i], edges[i+1]); the first and last bins also hold values beyond. */
  readonly edges: readonly number[];
  readonly counts: readonly number[];
  readonly n: number;
  readonly mean: number | null;
  readonly median: number | null;
  /** Values below the first edge and above the last, folded into the end bins. */
  readonly below: number;
  readonly above: number;
}

const NICE = [1, 2, 2.5, 5, 10];

/** A round bin width near `raw` (1, 2, 2.5 or 5 times a power of ten). */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  return NICE.map((k) => k * p).find((s) => s >= raw * 0.999) ?? 10 * p;
}

/**
 * Histogram of values (nulls skipped) with about `target` round-width bins over the 1st to 99th
 * percentile, so one wild order does not squash the rest; the outliers are counted in the end bins.
 */
export function histogram(values: ArrayLike<number | null>, target = 30): Histogram {
  const xs: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v !== null && v !== undefined && Number.isFinite(v)) xs.push(v);
  }
  xs.sort((a, b) => a - b);
  const n = xs.length;
  if (n === 0) return { edges: [], counts: [], n: 0, mean: null, median: null, below: 0, above: 0 };
  const q = (p: number): number => xs[Math.min(n - 1, Math.max(0, Math.round(p * (n - 1))))]!;
  const lo = n >= 50 ? q(0.01) : xs[0]!;
  const hi = n >= 50 ? q(0.99) : xs[n - 1]!;
  const step = niceStep((hi - lo || Math.abs(lo) || 1) / target);
  const start = Math.floor(lo / step) * step;
  const bins = Math.max(1, Math.ceil((hi - start) / step + 1e-9));
  const edges = Array.from({ length: bins + 1 }, (_, i) => start + i * step);
  const counts = new Array<number>(bins).fill(0);
  let below = 0;
  let above = 0;
  for (const x of xs) {
    let b = Math.floor((x - start) / step);
    if (b < 0) {
      below++;
      b = 0;
    } else if (b >= bins) {
      if (x > edges[bins]!) above++;
      b = bins - 1;
    }
    counts[b]!++;
  }
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  const median = n % 2 ? xs[(n - 1) / 2]! : (xs[n / 2 - 1]! + xs[n / 2]!) / 2;
  return { edges, counts, n, mean, median, below, above };
}
