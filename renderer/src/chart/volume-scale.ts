/**
 * A volume scale that ordinary bars fill. Auction prints (the open and close crosses) are tens or
 * hundreds of times an ordinary trade, so a scale up to the largest bar leaves every other bar a pixel
 * high at a full-day zoom. The scale goes up to a robust maximum instead: the largest bar within
 * CLIP_FACTOR times the 99th percentile. Bars above it are drawn clipped at the top of the scale, in
 * the clipped colour, and their readout says so with the true value.
 */

/** Bars above this many times the reference quantile are clipped. */
export const CLIP_FACTOR = 3;
/** The reference quantile; with few bars it drops so the top 3 bars are always left out of it. */
const QUANTILE = 0.99;
const LEFT_OUT = 3;

export interface VolumeScale {
  /** The top of the scale: no bar drawn is taller (0 when there are no bars). */
  readonly top: number;
  /** How many bars are above it (drawn clipped). */
  readonly clipped: number;
  /** The largest bar (its true value). */
  readonly max: number;
}

/** The robust scale of some bar values (NaN and infinities are no bars; negative bars count by size). */
export function volumeScale(values: ArrayLike<number>): VolumeScale {
  const sorted = new Float64Array(values.length);
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isFinite(v)) sorted[n++] = Math.abs(v);
  }
  if (n === 0) return { top: 0, clipped: 0, max: 0 };
  const s = sorted.subarray(0, n).sort();
  const max = s[n - 1]!;
  const q = Math.max(0, Math.min(QUANTILE, 1 - LEFT_OUT / n));
  const reference = s[Math.floor((n - 1) * q)]!;
  if (!(reference > 0)) return { top: max, clipped: 0, max };
  const limit = reference * CLIP_FACTOR;
  // the largest bar within the limit: the tallest ordinary bar reaches the top
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid]! <= limit) lo = mid + 1;
    else hi = mid;
  }
  const top = s[lo - 1]!;
  return { top, clipped: n - lo, max };
}

/** True when a bar is drawn clipped on this scale. */
export const isClipped = (scale: VolumeScale, v: number): boolean => Number.isFinite(v) && Math.abs(v) > scale.top;

/** A bar's drawn value: the value itself, or the top of the scale (with its sign) when clipped. */
export const drawnValue = (scale: VolumeScale, v: number): number => (isClipped(scale, v) ? Math.sign(v) * scale.top : v);
