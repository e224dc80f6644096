/**
 * Time buckets of getStats (INTERFACE 4.2.3, SPEC 5.2). Sub-day units are fixed durations from startTS;
 * day buckets are calendar days of inputTZ starting at startTS's local time of day (23 or 25 hours
 * across DST). The last bucket is clipped at endTS; labels stay nominal (the bucket start, or with a
 * moving window its end).
 */
import { argError } from '../../core/errors.js';
import { civilFromDays, splitDay } from '../../core/time.js';
import { localToInstant, zoneOffsets } from '../../core/tz.js';

export const UNITS = ['millisecond', 'second', 'minute', 'hour', 'day'] as const;
export type Unit = (typeof UNITS)[number];

const UNIT_NS: Record<Exclude<Unit, 'day'>, bigint> = {
  millisecond: 1_000_000n,
  second: 1_000_000_000n,
  minute: 60_000_000_000n,
  hour: 3_600_000_000_000n,
};

/** Bucket boundaries of a window: bucket k is [boundary(k), boundary(k+1)) clipped to the window. */
export interface Buckets {
  readonly count: number;
  /** The nominal start of bucket k (its end is boundary(k + 1)). */
  boundary(k: number): bigint;
  /** Bucket index of each time (hi/lo words of int64 ns), -1 outside [start, end). */
  assign(words: Int32Array, rows: Int32Array | undefined, n: number, out?: Int32Array): Int32Array;
}

const hiOf = (v: bigint): number => Number(BigInt.asIntN(32, v >> 32n));
const loOf = (v: bigint): number => Number(BigInt.asUintN(32, v));

/** Fixed-length buckets of times within 2^53 ns of the start (hot loop kept out of closures). */
function assignFixed(words: Int32Array, rows: Int32Array | undefined, n: number, sh: number, sl: number, g: number, span: number, out: Int32Array): void {
  for (let i = 0; i < n; i++) {
    const r = rows ? rows[i]! : i;
    const dt = (words[2 * r + 1]! - sh) * 4294967296 + ((words[2 * r]! >>> 0) - sl);
    // [start, end): a time at or past endTS is in no bucket, even before the clipped last one's nominal end
    out[i] = dt < 0 || dt >= span ? -1 : Math.floor(dt / g);
  }
}

/** The buckets of `granularity` units over [start, end) in a zone. */
export function makeBuckets(unit: Unit, granularity: number, start: bigint, end: bigint, zone: string, arg = 'granularity'): Buckets {
  if (unit !== 'day') {
    const g = UNIT_NS[unit] * BigInt(granularity);
    const span = end - start;
    const count = Number((span + g - 1n) / g);
    const gNum = Number(g);
    const sh = hiOf(start);
    const sl = loOf(start);
    const exact = span < BigInt(Number.MAX_SAFE_INTEGER);
    const spanNum = Number(span);
    return {
      count,
      boundary: (k) => start + BigInt(k) * g,
      assign: (words, rows, n, into) => {
        const out = into ?? new Int32Array(n);
        if (exact) {
          assignFixed(words, rows, n, sh, sl, gNum, spanNum, out);
          return out;
        }
        for (let i = 0; i < n; i++) {
          const r = rows ? rows[i]! : i;
          const t = (BigInt(words[2 * r + 1]!) << 32n) | BigInt(words[2 * r]! >>> 0);
          out[i] = t < start || t >= end ? -1 : Number((t - start) / g);
        }
        return out;
      },
    };
  }
  // Calendar days of the zone from startTS's local time of day.
  const local = start + zoneOffsets(zone).offsetAt(start);
  const { days: day0, nsOfDay } = splitDay(local);
  const bounds: bigint[] = [];
  for (let k = 0; ; k++) {
    const { y, m, d } = civilFromDays(day0 + k * granularity);
    const b = localToInstant({ y, m, d, nsOfDay }, zone);
    bounds.push(k === 0 ? start : b);
    if (b >= end) break;
    if (k > 200_000) throw argError('badValue', arg, granularity, 'makes more than 200000 day buckets', 'a shorter window or a larger granularity');
  }
  const count = bounds.length - 1;
  const bw = bounds.map((b) => [hiOf(b), loOf(b)] as const);
  const endH = hiOf(end);
  const endL = loOf(end);
  return {
    count,
    boundary: (k) => bounds[k] ?? localToInstant({ ...civilFromDays(day0 + k * granularity), nsOfDay }, zone),
    assign: (words, rows, n, into) => {
      const out = into ?? new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const r = rows ? rows[i]! : i;
        const hi = words[2 * r + 1]!;
        const lo = words[2 * r]! >>> 0;
        const before = (h: number, l: number): boolean => hi < h || (hi === h && lo < l);
        if (before(bw[0]![0], bw[0]![1]) || !before(endH, endL)) {
          out[i] = -1;
          continue;
        }
        let a = 0;
        let b = count;
        while (b - a > 1) {
          const mid = (a + b) >> 1;
          if (before(bw[mid]![0], bw[mid]![1])) b = mid;
          else a = mid;
        }
        out[i] = a;
      }
      return out;
    },
  };
}

/** Greatest common divisor of two positive integers. */
export function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
