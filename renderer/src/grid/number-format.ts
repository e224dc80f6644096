/**
 * How the grid shows numbers: one format per column, inferred from the column's values (as the
 * backend renders them: the CSV's exact text), so a column lines up. Floats get the fewest decimals
 * that show every value exactly at 10 significant digits (169.07999999999998 is 169.08,
 * 0.009999999999990905 is 0.01), prices at least their instruments' tick-size decimals, sizes and
 * counts thousands separators, summary functions the format of their kind. Only the display changes:
 * JSON, CSV and the clipboard keep the exact text.
 */
import type { ColumnType, SummaryFunctionInfo } from '../../../engine/contract';

export type Kind = SummaryFunctionInfo['kind'];

/** Significant digits a displayed value keeps: float noise lives beyond them. */
export const SIG_DIGITS = 10;
/** More decimals than this, or integer parts of 1e15 and beyond, switch a column to scientific notation. */
export const MAX_FIXED_DECIMALS = 12;
const MAX_FIXED_ABS = 1e15;
/** Floats this large get thousands separators whatever their name. */
const GROUP_FROM = 10_000;

/** What a column's values need, gathered over the rows read so far (merge as more arrive). */
export interface ColumnStats {
  /** Finite numbers seen. */
  readonly count: number;
  /** Largest finite |value| (0 when none). */
  readonly maxAbs: number;
  /** Every finite value is an integer. */
  readonly integral: boolean;
  /** Some value is below zero. */
  readonly negative: boolean;
  /**
   * By decimal exponent of the values' magnitudes (floor(log10 |v|)): the most decimals and
   * significant digits its values need at SIG_DIGITS significant digits.
   */
  readonly byExponent: ReadonlyMap<number, readonly [decimals: number, sig: number]>;
}

export const NO_STATS: ColumnStats = { count: 0, maxAbs: 0, integral: true, negative: false, byExponent: new Map() };

/**
 * The digits of a positive value rounded to SIG_DIGITS significant digits, trailing zeros dropped
 * (169.07999999999998 -> "169.08", 1.5e-7 -> "1.5e-7"; never through a float, so 1.8e308 stays finite).
 */
function roundedText(v: number): string {
  const s = v.toPrecision(SIG_DIGITS);
  const e = s.indexOf('e');
  const mantissa = e < 0 ? s : s.slice(0, e);
  const trimmed = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '') : mantissa;
  return e < 0 ? trimmed : trimmed + s.slice(e);
}

/**
 * Decimals and significant digits `v` needs to show exactly at SIG_DIGITS significant digits, from
 * the shortest text of its rounding (mantissa digits, less the exponent for 1.5e-7 forms).
 */
function shape(v: number): readonly [decimals: number, sig: number] {
  const s = roundedText(Math.abs(v));
  const e = s.indexOf('e');
  const mantissa = e < 0 ? s : s.slice(0, e);
  const exponent = e < 0 ? 0 : Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const decimals = Math.max(0, (dot < 0 ? 0 : mantissa.length - dot - 1) - exponent);
  const sig = mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
  return [decimals, Math.max(1, sig)];
}

/** Decimals `v` needs to show exactly at SIG_DIGITS significant digits (0 for integers, NaN, ±inf). */
export const decimalsNeeded = (v: number): number => (v === 0 || !Number.isFinite(v) ? 0 : shape(v)[0]);

/** Significant digits `v` needs, at most SIG_DIGITS (1 for 0, 170.65 -> 5, 1e21 -> 1). */
export const sigNeeded = (v: number): number => (v === 0 || !Number.isFinite(v) ? 1 : shape(v)[1]);

/** A cell's number: null for the empty text (null), ±Infinity for inf, NaN for text that is no number. */
export function cellNumber(text: string | undefined): number | null {
  if (text === undefined || text === '') return null;
  if (text === 'inf' || text === '0w') return Infinity;
  if (text === '-inf' || text === '-0w') return -Infinity;
  return Number(text);
}

/** floor(log10 a) for a > 0, exact at powers of ten. */
function exponentOf(a: number): number {
  const e = Math.floor(Math.log10(a));
  return 10 ** e > a ? e - 1 : e;
}

/** The stats of some values (nulls, NaN and ±inf are skipped: they show as themselves). */
export function statsOf(values: Iterable<number | null | undefined>, base: ColumnStats = NO_STATS): ColumnStats {
  let { count, maxAbs, integral, negative } = base;
  const byExponent = new Map(base.byExponent);
  for (const v of values) {
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    count++;
    if (v === 0) continue;
    if (v < 0) negative = true;
    const a = Math.abs(v);
    if (a > maxAbs) maxAbs = a;
    let d = 0;
    let g: number;
    if (Number.isInteger(a) && a < 1e15) {
      // whole numbers need no decimals; their digits only matter in scientific notation
      g = Math.min(SIG_DIGITS, String(a).replace(/0+$/, '').length);
    } else {
      integral &&= Number.isInteger(a);
      [d, g] = shape(a);
    }
    const e = exponentOf(a);
    const seen = byExponent.get(e);
    if (!seen || d > seen[0] || g > seen[1]) byExponent.set(e, [Math.max(d, seen?.[0] ?? 0), Math.max(g, seen?.[1] ?? 1)]);
  }
  return { count, maxAbs, integral, negative, byExponent };
}

/**
 * What a column needs to show every value exactly at SIG_DIGITS significant digits: the most decimals
 * and significant digits among its values, leaving out those below the 10th significant digit of its
 * largest value. Such values (float noise such as 1.8e-15 beside 25.3) show as 0 at the column's
 * decimals, their exact text on hover, instead of forcing the whole column into scientific notation.
 */
export function columnNeeds(s: ColumnStats): { readonly decimals: number; readonly sig: number } {
  let decimals = 0;
  let sig = 1;
  if (s.maxAbs === 0) return { decimals, sig };
  const floor = exponentOf(s.maxAbs) - (SIG_DIGITS - 1);
  for (const [e, [d, g]] of s.byExponent) {
    if (e < floor) continue;
    if (d > decimals) decimals = d;
    if (g > sig) sig = g;
  }
  return { decimals, sig };
}

/** The stats of cells as text (a page's column). */
export function statsOfCells(cells: Iterable<string | undefined>, base: ColumnStats = NO_STATS): ColumnStats {
  function* numbers(): Generator<number | null> {
    for (const c of cells) yield cellNumber(c);
  }
  return statsOf(numbers(), base);
}

/** How a column's cells are shown. */
export type ColumnFormat =
  /** Fixed decimals; `scale` 100 with suffix "%" shows rates as percentages. */
  | { readonly style: 'fixed'; readonly decimals: number; readonly grouping: boolean; readonly scale?: number; readonly suffix?: string }
  /** Scientific notation with `digits` significant digits. */
  | { readonly style: 'sci'; readonly digits: number }
  /** Integers (long, int) from their exact digits, never through a float. */
  | { readonly style: 'integer'; readonly grouping: boolean }
  /** The text exactly as the CSV writes it. */
  | { readonly style: 'exact' };

/** A user's choice for one column from its header menu. */
export interface FormatOverride {
  /** Decimals instead of the inferred ones (fixed and percentage formats). */
  readonly decimals?: number;
  /** Thousands separators on or off. */
  readonly grouping?: boolean;
  /** The exact text, as in the CSV. */
  readonly exact?: boolean;
}

/** What the grid knows of a column besides its values. */
export interface ColumnHints {
  readonly name: string;
  readonly type: ColumnType;
  /** The kind of the summary function the column holds (getOrderAnalyticSummary). */
  readonly kind?: Kind | null;
  /** Most decimals of the tick sizes of the column's instruments, when Instrument is known. */
  readonly tickDecimals?: number | null;
  readonly override?: FormatOverride | null;
}

/** Numbers the grid formats (lists and text show as the CSV writes them). */
export const isNumericType = (t: ColumnType): t is 'float' | 'long' | 'int' => t === 'float' || t === 'long' || t === 'int';

// camelCase names: a price anywhere in the name unless the name ends in a size, count or rate
const PRICE_LIKE = /price|px|vwap|twap|mid|spread|bid$|ask$|open$|high$|low$|close$/i;
const NOT_PRICE = /size|qty|quantity|count|volume|bps|pct|percent|return|rate|ratio|slippage|shortfall|time|mins?$|minutes/i;
/** Price columns take at least their instruments' tick-size decimals. */
export const isPriceLike = (name: string): boolean => PRICE_LIKE.test(name) && !NOT_PRICE.test(name);

const SIZE_LIKE = /size|qty|quantity|volume|vol$|count|shares|turnover|notional|value/i;
// identifiers and sequence numbers read as codes, not quantities: no separators
const CODE_LIKE = /(^|[a-z])(id|ID|Id)$|^id$|seq|sequence|code$|^level$|year/i;

/** The format of a summary function's kind (SPEC 3.2): bps and minutes one decimal, rates as %, shares and counts whole. */
export function kindFormat(kind: Kind, stats: ColumnStats = NO_STATS, priceDecimals?: number): ColumnFormat {
  switch (kind) {
    case 'bps':
    case 'minutes':
      return { style: 'fixed', decimals: 1, grouping: true };
    case 'pct':
      return { style: 'fixed', decimals: 1, grouping: true, scale: 100, suffix: '%' };
    case 'shares':
    case 'count':
      return { style: 'fixed', decimals: 0, grouping: true };
    case 'value':
      return { style: 'fixed', decimals: 2, grouping: true };
    case 'price':
      return { style: 'fixed', decimals: priceDecimals ?? Math.min(6, Math.max(2, columnNeeds(stats).decimals)), grouping: true };
    case 'number':
      return { style: 'fixed', decimals: 2, grouping: true };
  }
}

/** The inferred format of a float column from its stats (no kind, no override). */
function floatFormat(h: ColumnHints, s: ColumnStats): ColumnFormat {
  const price = isPriceLike(h.name);
  const needs = columnNeeds(s);
  const decimals = Math.max(needs.decimals, price ? (h.tickDecimals ?? 0) : 0);
  if (decimals > MAX_FIXED_DECIMALS || s.maxAbs >= MAX_FIXED_ABS) return { style: 'sci', digits: needs.sig };
  return { style: 'fixed', decimals, grouping: s.maxAbs >= GROUP_FROM || (!price && SIZE_LIKE.test(h.name)) };
}

/** A column's format: its override first, then its summary function's kind, then what its values need. */
export function columnFormat(h: ColumnHints, stats: ColumnStats): ColumnFormat {
  const o = h.override ?? {};
  if (o.exact) return { style: 'exact' };
  if (!isNumericType(h.type)) return { style: 'exact' };
  // a bare tree's kind is `number`: nothing declared, so its values decide
  const kind = h.kind && h.kind !== 'number' ? h.kind : null;
  let f: ColumnFormat;
  if (h.type !== 'float') f = { style: 'integer', grouping: kind !== null || !CODE_LIKE.test(h.name) };
  else if (kind) f = kindFormat(kind, stats, kind === 'price' ? Math.max(2, h.tickDecimals ?? 0, Math.min(6, columnNeeds(stats).decimals)) : undefined);
  else f = floatFormat(h, stats);
  if (o.grouping !== undefined && (f.style === 'fixed' || f.style === 'integer')) f = { ...f, grouping: o.grouping };
  if (o.decimals !== undefined) {
    const decimals = clampDecimals(o.decimals);
    if (f.style === 'fixed') f = { ...f, decimals };
    else if (f.style === 'sci') f = { style: 'sci', digits: Math.max(1, Math.min(SIG_DIGITS + 7, decimals + 1)) };
  }
  return f;
}

/** Decimals a user may ask for. */
export const clampDecimals = (d: number): number => Math.max(0, Math.min(MAX_FIXED_DECIMALS + 4, Math.round(d)));

/** The decimals a format shows (for the header menu's − and +), or null when it has none to change. */
export function formatDecimals(f: ColumnFormat): number | null {
  if (f.style === 'fixed') return f.decimals;
  if (f.style === 'sci') return f.digits - 1;
  return null;
}

const FORMATTERS = new Map<string, Intl.NumberFormat>();
function formatter(decimals: number, grouping: boolean): Intl.NumberFormat {
  const key = `${decimals}${grouping ? 'g' : ''}`;
  let f = FORMATTERS.get(key);
  if (!f) {
    // signDisplay 'negative': -0.04 at one decimal is 0.0, not -0.0
    f = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals, useGrouping: grouping, signDisplay: 'negative' });
    FORMATTERS.set(key, f);
  }
  return f;
}

/** Thousands separators in a string of digits (with an optional sign), exact at any length. */
export function groupDigits(text: string): string {
  const m = /^([-+]?)(\d+)$/.exec(text);
  if (!m) return text;
  return m[1] + m[2]!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** One number as a format shows it ('' for null and NaN, ∞ for infinities). */
export function formatNumber(f: ColumnFormat, v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '-∞';
  switch (f.style) {
    case 'fixed':
      return formatter(f.decimals, f.grouping).format(v * (f.scale ?? 1)) + (f.suffix ?? '');
    case 'sci':
      return v.toExponential(Math.max(0, f.digits - 1));
    case 'integer':
      return f.grouping ? formatter(0, true).format(v) : String(v);
    case 'exact':
      return String(v);
  }
}

/** A cell's text (as the CSV writes it) as the column's format shows it. */
export function formatCell(f: ColumnFormat, text: string | undefined): string {
  if (text === undefined) return '';
  if (f.style === 'exact' || text === '') return text;
  if (f.style === 'integer') return f.grouping ? groupDigits(text) : text;
  const v = cellNumber(text);
  return v !== null && Number.isNaN(v) ? text : formatNumber(f, v);
}

/** Decimals of a tick size (0.01 -> 2, 0.0005 -> 4, 0.25 -> 2, 1 -> 0). */
export const tickDecimals = (tick: number): number => (tick > 0 && Number.isFinite(tick) ? Math.min(MAX_FIXED_DECIMALS, decimalsNeeded(tick)) : 0);

/** What a format says in the header's tooltip ("2 decimals, separators"). */
export function describeFormat(f: ColumnFormat): string {
  switch (f.style) {
    case 'fixed':
      return `${f.decimals} decimal${f.decimals === 1 ? '' : 's'}${f.suffix ? ` as ${f.suffix}` : ''}${f.grouping ? ', separators' : ''}`;
    case 'sci':
      return `scientific, ${f.digits} significant digits`;
    case 'integer':
      return f.grouping ? 'whole, separators' : 'whole';
    case 'exact':
      return 'exact, as in the CSV';
  }
}
