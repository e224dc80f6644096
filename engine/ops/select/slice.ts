/**
 * temporality slice (INTERFACE 4.1.3, SPEC 4): for each calendar date of inputTZ in the window, the
 * rows whose local time of day is in [slice0, slice1); slice0 > slice1 crosses midnight (an overnight
 * session from slice0 to slice1 of the next date). Each date's slice becomes one instant range, so a
 * slice is read by binary search like any window.
 */
import { argError } from '../../core/errors.js';
import { civilFromDays, formatTimespan, NS_PER_DAY, splitDay } from '../../core/time.js';
import { localToInstant, zoneOffsets } from '../../core/tz.js';
import type { Window } from '../window.js';

const DAY = 86_400_000_000_000;

/** Checks a slice pair: times of day from 00:00 to 24:00, start different from end. */
export function checkSlice(slice: readonly [bigint, bigint]): [number, number] {
  const [s0, s1] = slice;
  const expected = 'two times of day from 00:00 to 24:00, such as ["09:30","16:00"] (start after end crosses midnight)';
  if (s0 < 0n || s0 >= NS_PER_DAY || s1 <= 0n || s1 > NS_PER_DAY) {
    throw argError('badValue', 'slice', slice.map(formatTimespan), 'has a time outside the day', expected);
  }
  if (s0 === s1) throw argError('badValue', 'slice', slice.map(formatTimespan), 'starts where it ends', expected);
  return [Number(s0), Number(s1)];
}

/** The local calendar date (day number) of an instant in a zone. */
function localDay(ns: bigint, zone: string): number {
  return splitDay(ns + zoneOffsets(zone).offsetAt(ns)).days;
}

function instantAt(day: number, nsOfDay: number, zone: string): bigint {
  const extra = Math.floor(nsOfDay / DAY);
  const { y, m, d } = civilFromDays(day + extra);
  return localToInstant({ y, m, d, nsOfDay: nsOfDay - extra * DAY }, zone);
}

/**
 * The instant ranges of a slice inside a window, ascending and disjoint. `bounds` limits an infinite
 * window (the table's first and last stored dates).
 */
export function sliceRanges(
  window: Window,
  slice: readonly [number, number],
  zone: string,
  bounds: { first: bigint; last: bigint },
): Array<[bigint, bigint]> {
  const start = window.start > bounds.first ? window.start : bounds.first;
  const end = window.end < bounds.last ? window.end : bounds.last;
  if (start >= end) return [];
  const [s0, s1] = slice;
  const out: Array<[bigint, bigint]> = [];
  // The date before the window's first date: its overnight slice may reach into the window.
  for (let day = localDay(start, zone) - 1; day <= localDay(end - 1n, zone); day++) {
    const a = instantAt(day, s0, zone);
    const b = s1 > s0 ? instantAt(day, s1, zone) : instantAt(day + 1, s1, zone);
    const lo = a > start ? a : start;
    const hi = b < end ? b : end;
    if (hi > lo) out.push([lo, hi]);
  }
  return out;
}
