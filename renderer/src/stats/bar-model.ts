/**
 * The bar chart of a getStats result without buckets: one panel per aggregate (small multiples), one
 * bar per group, every panel in the same group order: by the values of one aggregate (descending,
 * groups without a value last) or by the group key. Bars grow from zero, so panels with negative
 * values diverge from a zero line inside the panel.
 */
import type { StatsModel } from './stats-model';

export interface BarSort {
  /** The panel (model column index) whose values order the groups. */
  readonly column: number;
  /** By value, descending; false: by group key (the model's order). */
  readonly byValue: boolean;
}

/** The value of a group in a column of a model without buckets (its single slot). */
export const barValue = (m: StatsModel, column: number, group: number): number => m.values[column]?.[group]?.[0] ?? NaN;

/**
 * The order of the groups: by value descending (NaN last; ties keep key order), or by key (the
 * model's groups are sorted by their values already).
 */
export function barOrder(values: ArrayLike<number>, byValue: boolean): number[] {
  const order = Array.from({ length: values.length }, (_, g) => g);
  if (!byValue) return order;
  const v = (g: number): number => (Number.isNaN(values[g]!) ? -Infinity : values[g]!);
  // NaN after -Infinity: a missing value is below any value
  return order.sort((a, b) => {
    const na = Number.isNaN(values[a]!);
    const nb = Number.isNaN(values[b]!);
    if (na !== nb) return na ? 1 : -1;
    return v(b) - v(a) || a - b;
  });
}

export interface BarDomain {
  /** The smallest value drawn (0 when none is negative). */
  readonly lo: number;
  /** The largest (0 when none is positive). */
  readonly hi: number;
}

/** The domain of a panel: its finite values and zero. */
export function barDomain(values: ArrayLike<number>): BarDomain {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return { lo, hi };
}

/** Where a bar starts and how wide it is, as fractions of the panel's track (0 width for none). */
export function barSpan(d: BarDomain, v: number): { readonly start: number; readonly width: number } {
  const range = d.hi - d.lo;
  const zero = range > 0 ? (0 - d.lo) / range : 0;
  if (!Number.isFinite(v) || range === 0) {
    // infinities fill their side of the panel
    if (v === Infinity) return { start: zero, width: 1 - zero };
    if (v === -Infinity) return { start: 0, width: zero };
    return { start: zero, width: 0 };
  }
  const at = (v - d.lo) / range;
  return { start: Math.min(zero, at), width: Math.abs(at - zero) };
}

/** The panel's column values per group (its single slot). */
export function panelValues(m: StatsModel, column: number): Float64Array {
  return Float64Array.from(m.groups, (_, g) => barValue(m, column, g));
}

/** Row height for `n` groups in `height` pixels: as tall as fits, between the bounds (more scroll). */
export function barRowHeight(n: number, height: number, min = 14, max = 22): number {
  if (n <= 0) return max;
  return Math.max(min, Math.min(max, Math.floor(height / n)));
}
