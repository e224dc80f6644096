/**
 * Numbers, longs and timestamps written as ASCII bytes straight into a buffer, each byte-for-byte the
 * text the string renderers (output/text-cells.ts) give: floats as JavaScript's shortest
 * round-trip text (String(x)), longs exact, timestamps in a zone with nine fractional digits. The
 * common shapes take arithmetic fast paths; anything else writes the string renderer's own text.
 */
import { formatDate, formatOffset, NS_PER_DAY } from '../core/time.js';
import { copyBytes, ViewCache } from './words.js';
import { zoneOffsets } from '../core/tz.js';

const TWO32 = 4294967296;
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8];

/** Writes an ASCII string at p; returns the position after it. */
export function writeAscii(b: Uint8Array, p: number, s: string): number {
  for (let k = 0; k < s.length; k++) b[p++] = s.charCodeAt(k);
  return p;
}

/** Decimal digits of a non-negative integer below 2^53. */
function digitCount(v: number): number {
  if (v < 1e8) {
    if (v < 1e4) return v < 10 ? 1 : v < 100 ? 2 : v < 1e3 ? 3 : 4;
    return v < 1e5 ? 5 : v < 1e6 ? 6 : v < 1e7 ? 7 : 8;
  }
  let n = 9;
  for (let t = 1e9; v >= t && n < 16; t *= 10) n++;
  return n;
}

/** "00" .. "99" as ASCII pairs: two digits per division. */
const PAIRS = new Uint8Array(200);
for (let i = 0; i < 100; i++) {
  PAIRS[2 * i] = 48 + ((i / 10) | 0);
  PAIRS[2 * i + 1] = 48 + (i % 10);
}

/**
 * Writes a non-negative integer below 2^53 in decimal: below 2^31 as an int32 (its divisions by 100
 * compile to a multiply and shift), else as the int32 digits above the last eight, then those eight.
 */
export function writeUint(b: Uint8Array, p: number, v: number): number {
  if (v < 2147483648) return writeInt31(b, p, v | 0);
  const hi = Math.floor(v / 1e8); // below 2^53 / 10^8 < 2^31
  return writeFixed(b, writeInt31(b, p, hi | 0), v - hi * 1e8, 8);
}

/** Writes an integer 0 <= u < 2^31 in decimal. */
function writeInt31(b: Uint8Array, p: number, u: number): number {
  const end = p + digitCount(u);
  let k = end;
  while (u >= 100) {
    const q = (u / 100) | 0;
    const r = (u - q * 100) * 2;
    b[--k] = PAIRS[r + 1]!;
    b[--k] = PAIRS[r]!;
    u = q;
  }
  if (u >= 10) {
    b[--k] = PAIRS[2 * u + 1]!;
    b[--k] = PAIRS[2 * u]!;
  } else b[--k] = 48 + u;
  return end;
}

/**
 * Writes `v` (0 <= v < 10^width, width <= 9: an int32) with leading zeros to exactly `width` digits.
 * Held as an int32, its division by 100 compiles to a multiply and shift instead of a float division.
 */
function writeFixed(b: Uint8Array, p: number, v: number, width: number): number {
  let k = p + width;
  v |= 0;
  while (k - p >= 2) {
    const q = (v / 100) | 0;
    const r = (v - q * 100) * 2;
    b[--k] = PAIRS[r + 1]!;
    b[--k] = PAIRS[r]!;
    v = q;
  }
  if (k > p) b[--k] = 48 + v;
  return p + width;
}

/**
 * Writes a finite float as String(x) does. Fast path: 1e-6 <= |x| < 1e7 with at most 8 decimals,
 * found as the fewest decimals k whose rounding m / 10^k reads back as x (a correctly rounded
 * division of exact integers: the double the text m·10^-k parses to). Below 1e7 a double's spacing
 * is under 10^-8, so at most one k-decimal text reads back as x, and the fewest decimals is the
 * fewest significant digits: the text String(x) gives. Integers below 2^53 print their digits.
 */
export function writeFloat(b: Uint8Array, p: number, x: number): number {
  if (x === 0) {
    b[p] = 48; // -0 prints as 0
    return p + 1;
  }
  let a = x;
  if (a < 0) {
    a = -a;
    b[p++] = 45;
  }
  if (a < 9007199254740992 && Math.floor(a) === a) return writeUint(b, p, a);
  if (a >= 1e-6 && a < 1e7) {
    for (let k = 1; k <= 8; k++) {
      const s = POW10[k]!;
      const m = Math.round(a * s);
      if (m / s === a) {
        const ip = Math.floor(m / s);
        let frac = m - ip * s;
        let whole = ip;
        if (frac < 0) {
          whole--;
          frac += s;
        } else if (frac >= s) {
          whole++;
          frac -= s;
        }
        p = writeUint(b, p, whole);
        b[p++] = 46;
        return writeFixed(b, p, frac, k);
      }
    }
  }
  return writeAscii(b, p, String(a));
}

/** Writes a long given as its two 32-bit words (not the null); exact beyond 2^53 too. */
export function writeLongWords(b: Uint8Array, p: number, hi: number, lo: number): number {
  if (hi >= -2097152 && hi < 2097152) {
    const v = hi * TWO32 + (lo >>> 0);
    if (v < 0) {
      b[p++] = 45;
      return writeUint(b, p, -v);
    }
    return writeUint(b, p, v);
  }
  return writeAscii(b, p, String((BigInt(hi) << 32n) | BigInt(lo >>> 0)));
}

/** Writes an int32. */
export function writeInt(b: Uint8Array, p: number, v: number): number {
  if (v < 0) {
    b[p++] = 45;
    return writeUint(b, p, -v);
  }
  return writeUint(b, p, v);
}

/** Bytes of a timestamp's text: `2024-03-06T14:30:00.123456789` (29 for years 0..9999). */
export const TIMESTAMP_BYTES = 29;

/**
 * A writer of int64 UTC nanosecond timestamps (their two words, not the null or infinities) as local
 * time in a zone, followed by that instant's UTC offset when `withOffset` (`-05:00`: CSV, SPEC 8).
 * Rows mostly share the local day and the DST period of the row before, so the common path is float
 * arithmetic on the words and a cached date prefix; BigInt only sets up a new day.
 */
export function timestampWriter(zone: string, withOffset = false): (b: Uint8Array, p: number, hi: number, lo: number) => number {
  const offsets = zoneOffsets(zone);
  // UTC instant bounds [a, b) within which rows share `prefix` and `base` (local midnight in UTC)
  let aH = 0;
  let aL = 0;
  let bH = -2147483648;
  let bL = 0;
  let baseH = 0;
  let baseL = 0;
  let prefix = new Uint8Array(0);
  // the offset's text, constant within [a, b) (clipped to one DST period); empty without withOffset
  let suffix = new Uint8Array(0);
  // the second of the row before, within the day: rows in time order mostly share it, and then its
  // text `YYYY-MM-DDTHH:MM:SS.` is copied whole and only the nine decimals are written
  const second = new Uint8Array(TIMESTAMP_BYTES + 16);
  let secondLen = 0;
  const secondView = new DataView(second.buffer);
  const views = new ViewCache();
  let secondFrom = 1;
  let secondTo = 0;
  const ge = (h: number, l: number, th: number, tl: number): boolean => h > th || (h === th && l >= tl);
  const setup = (ns: bigint): void => {
    const off = offsets.offsetAt(ns);
    const local = ns + off;
    let days = local / NS_PER_DAY;
    if (local % NS_PER_DAY < 0n) days -= 1n;
    const midnightUtc = days * NS_PER_DAY - off;
    let start = midnightUtc;
    let end = midnightUtc + NS_PER_DAY;
    // clipped to the DST period, so the offset is constant inside [start, end)
    const seg = offsets.segmentOf(ns);
    if (seg.start > start) start = seg.start;
    if (seg.end < end) end = seg.end;
    aH = Number(BigInt.asIntN(32, start >> 32n));
    aL = Number(BigInt.asUintN(32, start));
    bH = Number(BigInt.asIntN(32, end >> 32n));
    bL = Number(BigInt.asUintN(32, end));
    baseH = Number(BigInt.asIntN(32, midnightUtc >> 32n));
    baseL = Number(BigInt.asUintN(32, midnightUtc));
    const text = `${formatDate(Number(days))}T`;
    prefix = new Uint8Array(text.length);
    writeAscii(prefix, 0, text);
    if (withOffset) {
      const offText = formatOffset(off);
      suffix = new Uint8Array(offText.length);
      writeAscii(suffix, 0, offText);
    }
    secondFrom = 1;
    secondTo = 0;
  };
  return (b, p, hi, lo) => {
    lo >>>= 0; // the low word unsigned, as the bounds hold it
    if (!(ge(hi, lo, aH, aL) && !ge(hi, lo, bH, bL))) setup((BigInt(hi) << 32n) | BigInt(lo));
    const ns = (hi - baseH) * TWO32 + (lo - baseL);
    if (ns < secondFrom || ns >= secondTo) {
      const sec = Math.floor(ns / 1e9);
      secondFrom = sec * 1e9;
      secondTo = secondFrom + 1e9;
      second.set(prefix);
      secondLen = writeSecondOfDay(second, prefix.length, sec);
    }
    p = copyBytes(views.view(b), b, p, secondView, second, 0, secondLen);
    p = writeFixed(b, p, ns - secondFrom, 9);
    for (let k = 0; k < suffix.length; k++) b[p++] = suffix[k]!;
    return p;
  };
}

/** Writes a second within a day as `HH:MM:SS.`. */
function writeSecondOfDay(b: Uint8Array, p: number, sec: number): number {
  const h = (sec / 3600) >>> 0;
  const rest = sec - h * 3600;
  const m = (rest / 60) >>> 0;
  const s = rest - m * 60;
  p = writeFixed(b, p, h, 2);
  b[p++] = 58;
  p = writeFixed(b, p, m, 2);
  b[p++] = 58;
  p = writeFixed(b, p, s, 2);
  b[p++] = 46;
  return p;
}
