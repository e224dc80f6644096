/**
 * The tick chart's zoom maths, pure. The axis has one slot per tick, so a view is a logical range
 * `{from, to}` of tick indices as lightweight-charts keeps it: `to - from + 1` slots fill the width,
 * ticks `from` and `to` sit half a slot inside the edges. Every zoom keeps at least a floor of
 * ticks in view and at most all of them, inside the data (the chart's edges are fixed).
 */

/** How much one wheel notch (or one + / − key) zooms: 1.25×, about 33 notches from a day to a minute. */
export const ZOOM_FACTOR = 1.25;
/** The fewest ticks a zoom shows. */
export const MIN_TICKS = 20;

/** A view: logical indices of the first and last slot in view (fractional while zooming). */
export interface View {
  readonly from: number;
  readonly to: number;
}

/** Slots in view. */
export function slots(v: View): number {
  return v.to - v.from + 1;
}

/** The indices of the ticks in view: those whose slot centres lie inside it. */
export function ticksInView(v: View, total: number): { first: number; last: number } {
  const first = Math.max(0, Math.ceil(v.from - 1e-6));
  const last = Math.min(total - 1, Math.floor(v.to + 1e-6));
  return { first, last };
}

/** The view `v` holds `total` ticks in: at least the floor (or all when fewer), at most all, inside the data. */
export function clampView(v: View, total: number, floor = MIN_TICKS): View {
  if (total <= 0) return v;
  const count = Math.min(total, Math.max(Math.min(floor, total), slots(v)));
  // keep the centre where it was, then slide back inside the data
  const centre = (v.from + v.to) / 2;
  const from = Math.min(Math.max(onFloor(centre - (count - 1) / 2, count, floor), 0), total - count);
  return { from, to: from + count - 1 };
}

/**
 * The view after zooming `v` by `factor` (> 1 in, < 1 out) about the logical position `anchor`: the
 * point under the pointer stays under it, unless the floor, the data's size or its edges stop it.
 */
export function zoomAbout(v: View, anchor: number, factor: number, total: number, floor = MIN_TICKS): View {
  // in slot edges (u, w), the anchor's share of the width is kept
  const u = v.from - 0.5;
  const w = v.to + 0.5;
  const a = Math.min(Math.max(anchor, u), w);
  const count = Math.min(total, Math.max(Math.min(floor, total), (w - u) / factor));
  const share = w > u ? (a - u) / (w - u) : 0.5;
  const nu = a - share * count;
  const from = Math.min(Math.max(onFloor(nu + 0.5, count, floor), 0), total - count);
  return { from, to: from + count - 1 };
}

/** The view `v` moved by `delta` slots (later when positive), its width kept, inside the data. */
export function panBy(v: View, delta: number, total: number): View {
  const count = slots(v);
  const from = Math.min(Math.max(v.from + delta, 0), Math.max(0, total - count));
  return { from, to: from + count - 1 };
}

/** At the floor a view starts on a tick: `floor` slots from a fractional start would hold a tick fewer. */
function onFloor(from: number, count: number, floor: number): number {
  return count <= floor ? Math.round(from) : from;
}

/** How many notches a wheel event is (a mouse's notch is 100 px in Chromium, 3 lines elsewhere; a trackpad gives fractions). */
export function wheelNotches(deltaY: number, deltaMode: number): number {
  if (deltaMode === 1) return deltaY / 3;
  if (deltaMode === 2) return deltaY * 3;
  return deltaY / 100;
}

/**
 * The tick range showing `span` (ms) of time ending at tick `end`: the first tick at most `span`
 * before it, found by binary search on the ascending times. When the data starts less than `span`
 * before `end`, the range runs forward from the first tick instead, as far as `span` reaches. Always
 * at least the floor of ticks.
 */
export function spanEndingAt(times: Float64Array, end: number, span: number, floor = MIN_TICKS): { first: number; last: number } {
  const n = times.length;
  if (n === 0) return { first: 0, last: -1 };
  let last = Math.min(Math.max(end, 0), n - 1);
  let first = firstAtOrAfter(times, times[last]! - span, 0, last);
  if (first === 0 && times[last]! - times[0]! < span) last = lastAtOrBefore(times, times[0]! + span, 0, n - 1);
  const want = Math.min(floor, n);
  if (last - first + 1 < want) {
    first = Math.max(0, Math.min(first, last - want + 1));
    last = Math.min(n - 1, first + want - 1);
  }
  return { first, last };
}

/** The ticks of the local day that holds tick `at` (`times` local ms, ascending). */
export function dayOf(times: Float64Array, at: number): { first: number; last: number } {
  const DAY_MS = 86_400_000;
  const i = Math.min(Math.max(at, 0), times.length - 1);
  const start = Math.floor(times[i]! / DAY_MS) * DAY_MS;
  return { first: firstAtOrAfter(times, start, 0, i), last: lastAtOrBefore(times, start + DAY_MS - 1e-6, i, times.length - 1) };
}

/** The first index in [lo, hi] whose time is >= t (hi when none). */
function firstAtOrAfter(times: Float64Array, t: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! >= t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The last index in [lo, hi] whose time is <= t (lo when none). */
function lastAtOrBefore(times: Float64Array, t: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (times[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The named views of the toolbar: a span of time in ms, the session (the day in view), or all. */
export const PRESETS = [
  ['1m', 60_000],
  ['5m', 300_000],
  ['15m', 900_000],
  ['1h', 3_600_000],
  ['session', 'session'],
  ['all', 'all'],
] as const;

export type PresetName = (typeof PRESETS)[number][0];

/** The tick range a preset shows from the view `v`: a span ends at the last tick in view; the session is the day of the tick at the view's centre. */
export function presetRange(name: PresetName, v: View, times: Float64Array, floor = MIN_TICKS): { first: number; last: number } {
  const n = times.length;
  const spec = PRESETS.find(([p]) => p === name)![1];
  if (spec === 'all') return { first: 0, last: n - 1 };
  const inView = ticksInView(v, n);
  if (spec === 'session') return dayOf(times, Math.round((inView.first + inView.last) / 2));
  return spanEndingAt(times, inView.last, spec, floor);
}

/** A span of time (ns) as the toolbar shows it: "850 ms", "12.3 s", "5m 00s", "2h 05m". */
export function formatSpan(ns: bigint): string {
  const ms = Number(ns) / 1e6;
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const s = Math.round(ms / 1_000);
  if (s < 3_600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}
