/**
 * The grid's columns on screen: the order (the time column frozen beside `#`), widths sized to fit
 * the header and the widest value read so far, widths, number formats, hidden columns and the order
 * the user chose remembered for the session by column name.
 */
import type { ColumnType, ResultColumn } from '../../../engine/contract';
import { type ColumnFormat, type ColumnStats, type FormatOverride, formatNumber, groupDigits } from './number-format';

export const ROW_HEIGHT = 22;
/** Horizontal padding of a cell (8 px either side). */
export const CELL_PAD = 16;
/** Room in a header for the format menu's button and the resize handle. */
export const HEADER_EXTRA = 20;
export const MIN_WIDTH = 36;
/** Auto widths stop here for long text (the header is always whole; cells show the rest on hover). */
export const MAX_AUTO_WIDTH = 360;

/** Characters of a column's widest cell before any row is read. */
const TYPE_CHARS: Readonly<Record<ColumnType, number>> = {
  timestamp: 29,
  timespan: 20,
  date: 10,
  symbol: 6,
  string: 16,
  float: 8,
  long: 6,
  int: 6,
  boolean: 5,
  'float[]': 32,
  'long[]': 28,
};

/** Positions of the result's columns in display order: the time column first, then the result's order. */
export function displayOrder(columns: readonly ResultColumn[], timeColumn: string | null): number[] {
  const at = timeColumn ? columns.findIndex((c) => c.name === timeColumn) : -1;
  const rest = columns.map((_, i) => i).filter((i) => i !== at);
  return at >= 0 ? [at, ...rest] : rest;
}

/** Characters of the widest cell a column shows: its format applied to the largest value, or the longest text. */
export function cellChars(type: ColumnType, f: ColumnFormat, stats: ColumnStats | undefined, longestText: number): number {
  if (!stats || stats.count === 0 || f.style === 'exact') return Math.max(longestText, longestText > 0 ? 0 : TYPE_CHARS[type]);
  const sign = stats.negative ? 1 : 0;
  if (f.style === 'integer') {
    const digits = String(Math.round(stats.maxAbs));
    return sign + (f.grouping ? groupDigits(digits) : digits).length;
  }
  // the largest magnitude, formatted, is the widest (a carry such as 999.996 -> 1,000.00 included)
  return sign + formatNumber(f, stats.maxAbs).length;
}

/** Characters of the `#` column for a result of `rows` rows (with separators). */
export const rowNumberChars = (rows: number): number => groupDigits(String(Math.max(1, rows))).length;

/** Text widths in pixels, from the fonts the grid draws with. */
export interface Metrics {
  /** Width of a header's text. */
  header(text: string): number;
  /** Width of one digit of the cells' monospace font. */
  readonly monoChar: number;
}

/** Rough metrics where no canvas measures text (server rendering, tests). */
export const ROUGH_METRICS: Metrics = { header: (t) => t.length * 7.2, monoChar: 7 };

let measured: Metrics | null = null;

/** Metrics from the page's fonts (the CSS variables --sans and --mono), measured once on a canvas. */
export function domMetrics(): Metrics {
  if (measured) return measured;
  const ctx = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  if (!ctx) return ROUGH_METRICS;
  const css = getComputedStyle(document.documentElement);
  const sans = css.getPropertyValue('--sans').trim() || 'sans-serif';
  const mono = css.getPropertyValue('--mono').trim() || 'monospace';
  ctx.font = `11.5px ${mono}`;
  const monoChar = ctx.measureText('0123456789').width / 10;
  const headerFont = `600 11.5px ${sans}`;
  const widths = new Map<string, number>();
  measured = {
    monoChar,
    header: (text) => {
      let w = widths.get(text);
      if (w === undefined) {
        ctx.font = headerFont;
        w = ctx.measureText(text).width;
        widths.set(text, w);
      }
      return w;
    },
  };
  return measured;
}

/** A column's width when the user has not set one: the whole header, and its widest cell up to MAX_AUTO_WIDTH. */
export function autoWidth(name: string, chars: number, m: Metrics): number {
  const header = Math.ceil(m.header(name)) + CELL_PAD + HEADER_EXTRA;
  const content = Math.min(MAX_AUTO_WIDTH, Math.ceil(chars * m.monoChar) + CELL_PAD + 2);
  return Math.max(MIN_WIDTH, header, content);
}

/** A map kept in sessionStorage (in memory where storage is refused): the grid's choices for the session. */
class SessionMap<V> {
  private readonly memory = new Map<string, V>();
  private loaded = false;

  constructor(private readonly storageKey: string) {}

  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    try {
      const text = typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(this.storageKey);
      if (text) for (const [k, v] of Object.entries(JSON.parse(text) as Record<string, V>)) this.memory.set(k, v);
    } catch {
      // unreadable: start empty
    }
  }

  get(key: string): V | undefined {
    this.load();
    return this.memory.get(key);
  }

  set(key: string, value: V | null): void {
    this.load();
    if (value === null) this.memory.delete(key);
    else this.memory.set(key, value);
    try {
      if (typeof sessionStorage !== 'undefined') sessionStorage.setItem(this.storageKey, JSON.stringify(Object.fromEntries(this.memory)));
    } catch {
      // storage full or refused: the choice lasts as long as the page
    }
  }
}

/** Widths set by dragging a header's edge, by column name. */
export const columnWidths = new SessionMap<number>('tickscope.grid.widths');
/** Number formats chosen from a header's menu, by column name. */
export const columnFormats = new SessionMap<FormatOverride>('tickscope.grid.formats');
/** Columns hidden from a header's menu, by column name. */
export const columnHidden = new SessionMap<boolean>('tickscope.grid.hidden');
/** The order columns were dragged into (under the one key ORDER_KEY): see grid/column-layout.ts. */
export const columnOrder = new SessionMap<readonly string[]>('tickscope.grid.order');
export const ORDER_KEY = 'order';
