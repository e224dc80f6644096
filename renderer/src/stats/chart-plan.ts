/**
 * Which series go in which pane of the stats chart. Pane 0 holds the prices: the candle set, or the
 * top of book (bestBid, bestAsk, midPoint) of a plotOrderbookSnapshots result, or the first line.
 * Columns summarising the same input column share a pane (avgPrice joins the price candles; avgVolume
 * gets its own); columns of unknown input (vwap, twap, nested trees) join pane 0 when their values lie
 * within its range for most groups, else get their own pane. Volume-like columns are histograms, each
 * in its own pane; the spread has its own pane. Pane counts are capped; extra columns share the last.
 */
import type { TreeArg } from '../form/agg-tree';
import { type CandleSet, findCandles, isVolumeLike, sourceColumn } from './series-roles';
import type { StatsModel } from './stats-model';

export type PaneKind = 'price' | 'lines' | 'spread' | 'volume';

export interface Pane {
  readonly kind: PaneKind;
  readonly title: string;
  readonly lines: readonly string[];
  readonly histograms: readonly string[];
}

export interface BookLines {
  readonly bestBid: string;
  readonly bestAsk: string;
  readonly midPoint: string | null;
}

export interface ChartPlan {
  readonly candles: CandleSet | null;
  readonly book: BookLines | null;
  /** Pane 0 first. */
  readonly panes: readonly Pane[];
  /** Numeric columns not drawn (maxSize of the book): the grid shows them. */
  readonly unplotted: readonly string[];
}

const MAX_LINE_PANES = 2;
const MAX_VOLUME_PANES = 2;
/** A value within [low / RANGE, high * RANGE] of pane 0 shares its scale. */
const RANGE = 1.5;

interface Building {
  kind: PaneKind;
  title: string;
  unit: string | null;
  lines: string[];
  histograms: string[];
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

const finite = (a: Float64Array | undefined): number[] => (a ? Array.from(a).filter(Number.isFinite) : []);

/** True when a column's values sit within the range of the reference columns for most groups. */
export function withinRange(m: StatsModel, column: string, reference: readonly string[]): boolean {
  const c = m.columns.indexOf(column);
  const refs = reference.map((r) => m.columns.indexOf(r)).filter((i) => i >= 0);
  if (c < 0 || refs.length === 0) return false;
  let inside = 0;
  let judged = 0;
  m.groups.forEach((_, g) => {
    const own = median(finite(m.values[c]![g]));
    const ref = refs.flatMap((r) => finite(m.values[r]![g]));
    if (!Number.isFinite(own) || ref.length === 0) return;
    judged++;
    const lo = Math.min(...ref);
    const hi = Math.max(...ref);
    if (lo > 0 && own >= lo / RANGE && own <= hi * RANGE) inside++;
    else if (lo <= 0 && own >= lo - (hi - lo) && own <= hi + (hi - lo)) inside++;
  });
  return judged > 0 && inside * 2 > judged;
}

/** The chart plan of a stats model; `trees` are the agg outputs' trees, `orderbook` the request's mode. */
export function planChart(m: StatsModel, trees: ReadonlyMap<string, TreeArg>, orderbook: boolean): ChartPlan {
  const has = (c: string): boolean => m.columns.includes(c);
  const panes: Building[] = [];
  const unplotted: string[] = [];
  let rest = [...m.columns];
  let book: BookLines | null = null;
  if (orderbook && has('bestBid') && has('bestAsk')) {
    book = { bestBid: 'bestBid', bestAsk: 'bestAsk', midPoint: has('midPoint') ? 'midPoint' : null };
    panes.push({ kind: 'price', title: 'top of book', unit: null, lines: ['bestBid', 'bestAsk', ...(book.midPoint ? [book.midPoint] : [])], histograms: [] });
    const used = new Set(['bestBid', 'bestAsk', 'midPoint', 'spread', 'maxSize']);
    if (has('maxSize')) unplotted.push('maxSize');
    rest = rest.filter((c) => !used.has(c));
  }
  const candles = book ? null : findCandles(rest, trees);
  const members = new Set(candles ? [candles.open, candles.high, candles.low, candles.close] : []);
  const volume = rest.filter((c) => !members.has(c) && isVolumeLike(c, trees.get(c)));
  const lines = rest.filter((c) => !members.has(c) && !volume.includes(c));
  if (candles) panes.push({ kind: 'price', title: candles.stem || 'price', unit: candles.stem, lines: [], histograms: [] });
  else if (!book && lines.length > 0) {
    const first = lines.shift()!;
    panes.push({ kind: 'price', title: first, unit: sourceColumn(first, trees.get(first)), lines: [first], histograms: [] });
  }
  const main = panes[0];
  const mainRefs = candles ? [candles.high, candles.low] : (main?.lines ?? []);
  for (const c of lines) {
    const unit = sourceColumn(c, trees.get(c));
    const joinsMain = main !== undefined && (unit !== null && main.unit !== null ? unit === main.unit : withinRange(m, c, mainRefs));
    if (joinsMain) {
      main.lines.push(c);
      continue;
    }
    const same = unit === null ? undefined : panes.find((p) => p.kind === 'lines' && p.unit === unit);
    const linePanes = panes.filter((p) => p.kind === 'lines');
    if (same) same.lines.push(c);
    else if (linePanes.length < MAX_LINE_PANES) panes.push({ kind: 'lines', title: c, unit, lines: [c], histograms: [] });
    else linePanes[linePanes.length - 1]!.lines.push(c);
  }
  if (book && has('spread')) panes.push({ kind: 'spread', title: 'spread', unit: null, lines: ['spread'], histograms: [] });
  for (const c of volume) {
    const volumePanes = panes.filter((p) => p.kind === 'volume');
    if (volumePanes.length < MAX_VOLUME_PANES) panes.push({ kind: 'volume', title: c, unit: null, lines: [], histograms: [c] });
    else volumePanes[volumePanes.length - 1]!.histograms.push(c);
  }
  return { candles, book, panes: panes.map(({ kind, title, lines: l, histograms }) => ({ kind, title, lines: l, histograms })), unplotted };
}

/** The column whose level stands for pane 0 (close of the candles, the mid of the book, or its first line). */
export function levelColumn(plan: ChartPlan): string | null {
  if (plan.candles) return plan.candles.close;
  if (plan.book) return plan.book.midPoint ?? plan.book.bestBid;
  return plan.panes[0]?.kind === 'price' ? (plan.panes[0].lines[0] ?? null) : null;
}

/**
 * True when pane 0 reads better in percent: two or more shown groups whose levels differ by more than
 * half (AAPL at 170 and VOD at 0.71 on one price scale would flatten one of them).
 */
export function suggestPercent(m: StatsModel, plan: ChartPlan, shown: readonly number[]): boolean {
  const col = levelColumn(plan);
  const c = col === null ? -1 : m.columns.indexOf(col);
  if (c < 0 || shown.length < 2) return false;
  const levels = shown.map((g) => median(finite(m.values[c]![g]).map(Math.abs))).filter((x) => Number.isFinite(x) && x > 0);
  return levels.length >= 2 && Math.max(...levels) / Math.min(...levels) > RANGE;
}
