/**
 * Values from a CSV field's bytes: numbers, timestamps, dates, timespans and booleans, written
 * straight into a column's typed array (no value is returned, so no float is boxed).
 *
 * The accepted forms and the values are exactly those of the per-cell path (`parseCell` in import.ts
 * over castValue): each parser takes only text that castValue reads to the same value (stricter
 * grammars: no surrounding blanks, at most 15 significant digits of a float, years 1678-2261 of a
 * timestamp ...), and says "cannot" (false, or INT32_MIN for the int32 ones) for anything else: the
 * per-cell path decides those.
 */
import { daysFromCivil, NULL_INT32 } from '../../core/time.js';

const SPACE = 32;
const PLUS = 43;
const MINUS = 45;
const DOT = 46;
const COLON = 58;
const ZERO = 48;

/** Exact powers of ten as float64 (10^22 is the largest). */
const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/**
 * A decimal number as Number() reads it: [+-] digits [. digits] [e [+-] digits], into out[i]. Taken
 * when it has at most 15 significant digits and the power of ten is within ±22: then the digits and
 * the power are both exact float64 values and one multiplication or division rounds once, correctly
 * (Clinger's fast path), to the value Number() gives. Longer numbers are read by Number() itself.
 */
export function parseFloatInto(buf: Uint8Array, s: number, e: number, out: Float64Array, i: number): boolean {
  let p = s;
  let neg = false;
  const c = buf[p]!;
  if (c === MINUS || c === PLUS) {
    neg = c === MINUS;
    p++;
  }
  let mant = 0;
  let sig = 0; // significant digits taken into mant
  let exp = 0;
  let digits = 0;
  for (; p < e; p++) {
    const d = buf[p]! - ZERO;
    if (d < 0 || d > 9) break;
    digits++;
    if (sig > 0 || d !== 0) {
      if (++sig > 15) return slowFloat(buf, s, e, out, i);
      mant = mant * 10 + d;
    }
  }
  if (p < e && buf[p] === DOT) {
    p++;
    for (; p < e; p++) {
      const d = buf[p]! - ZERO;
      if (d < 0 || d > 9) break;
      digits++;
      if (sig > 0 || d !== 0) {
        if (++sig > 15) return slowFloat(buf, s, e, out, i);
        mant = mant * 10 + d;
      }
      exp--;
    }
  }
  if (digits === 0) return false;
  if (p < e && (buf[p] === 101 || buf[p] === 69)) {
    // e or E
    p++;
    let eneg = false;
    if (p < e && (buf[p] === MINUS || buf[p] === PLUS)) {
      eneg = buf[p] === MINUS;
      p++;
    }
    let x = 0;
    let xd = 0;
    for (; p < e; p++) {
      const d = buf[p]! - ZERO;
      if (d < 0 || d > 9) break;
      if (++xd > 6) return slowFloat(buf, s, e, out, i);
      x = x * 10 + d;
    }
    if (xd === 0) return false;
    exp += eneg ? -x : x;
  }
  if (p !== e) return false;
  let v: number;
  if (mant === 0) v = 0;
  else if (exp >= 0 && exp <= 22) v = mant * POW10[exp]!;
  else if (exp < 0 && exp >= -22) v = mant / POW10[-exp]!;
  else return slowFloat(buf, s, e, out, i);
  out[i] = neg ? -v : v;
  return true;
}

/** A decimal the fast path cannot round exactly: Number() over its text, as castValue reads it. */
function slowFloat(buf: Uint8Array, s: number, e: number, out: Float64Array, i: number): boolean {
  const v = Number((buf as Buffer).toString('utf8', s, e));
  if (v !== v) return false;
  out[i] = v;
  return true;
}

const TWO32 = 4294967296;

/**
 * Writes sec * 1e9 + frac as int64 words (low, high) without BigInt or rounding: for |sec| <= 2^34
 * and |frac| < 2^40 every intermediate below is an integer under 2^53, exact in float64 (and the
 * divisions by powers of two are multiplications, exact too). Exported for its test.
 */
export function setInt64(words: Int32Array, i: number, sec: number, frac: number): void {
  const q = Math.floor(sec * (1 / 4194304)); // sec = q * 2^22 + r
  const r = sec - q * 4194304;
  const low = r * 1e9 + frac; // |low| < 2^52 + 2^40
  const p = q * 1e9; // |p| < 2^43; sec * 1e9 = p * 2^22 + low
  const ph = Math.floor(p * (1 / 1024)); // p * 2^22 = ph * 2^32 + pl * 2^22
  const pl = p - ph * 1024;
  const l = pl * 4194304 + low;
  const carry = Math.floor(l * (1 / TWO32));
  words[2 * i] = (l - carry * TWO32) | 0;
  words[2 * i + 1] = (ph + carry) | 0;
}

/** `[+-]digits` (up to 18 digits): exact, as BigInt(text) reads it. */
export function parseLongInto(buf: Uint8Array, s: number, e: number, words: Int32Array, i: number): boolean {
  let p = s;
  const c = buf[p]!;
  const neg = c === MINUS;
  if (neg || c === PLUS) p++;
  const n = e - p;
  if (n === 0 || n > 18) return false;
  // the digits as high * 1e9 + low, each part exact
  let high = 0;
  let low = 0;
  const split = e - 9;
  for (; p < e; p++) {
    const d = buf[p]! - ZERO;
    if (d < 0 || d > 9) return false;
    if (p < split) high = high * 10 + d;
    else low = low * 10 + d;
  }
  if (high === 0) {
    // up to 9 digits (most cells): one word and its sign
    words[2 * i] = neg ? -low : low;
    words[2 * i + 1] = neg && low !== 0 ? -1 : 0;
  } else if (neg) setInt64(words, i, -high, -low);
  else setInt64(words, i, high, low);
  return true;
}

/** `[+-]digits` within an int's range; INT32_MIN (the null, never a value) when not. */
export function parseInt32(buf: Uint8Array, s: number, e: number): number {
  let p = s;
  const c = buf[p]!;
  const neg = c === MINUS;
  if (neg || c === PLUS) p++;
  if (p === e || e - p > 10) return NULL_INT32;
  let v = 0;
  for (; p < e; p++) {
    const d = buf[p]! - ZERO;
    if (d < 0 || d > 9) return NULL_INT32;
    v = v * 10 + d;
  }
  if (neg) v = -v;
  return v > -2147483648 && v <= 2147483647 ? v : NULL_INT32;
}

/** Two ASCII digits at p as a number, or -1. */
function digits2(buf: Uint8Array, p: number): number {
  const a = buf[p]! - ZERO;
  const b = buf[p + 1]! - ZERO;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** The last date dateAt computed (as yyyymmdd) and its day number: a file's cells mostly repeat a few dates. */
let lastDateKey = -1;
let lastDays = 0;

/** Days since 1970 of `YYYY?MM?DD` at p with those two separators, or NULL_INT32. */
function dateAt(buf: Uint8Array, p: number, sep1: number, sep2: number): number {
  const yh = digits2(buf, p);
  const yl = digits2(buf, p + 2);
  const m = digits2(buf, p + 5);
  const d = digits2(buf, p + 8);
  if (yh < 0 || yl < 0 || m < 0 || d < 0 || buf[p + 4] !== sep1 || buf[p + 7] !== sep2) return NULL_INT32;
  const key = ((yh * 100 + yl) * 100 + m) * 100 + d;
  if (key === lastDateKey) return lastDays;
  const y = yh * 100 + yl;
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return NULL_INT32;
  lastDateKey = key;
  return (lastDays = daysFromCivil(y, m, d));
}

/** `2024.01.02` or `2024-01-02` (either separator in either place, as parseDate takes). */
export function parseDate(buf: Uint8Array, s: number, e: number): number {
  if (e - s !== 10) return NULL_INT32;
  const a = buf[s + 4]!;
  const b = buf[s + 7]!;
  if ((a !== DOT && a !== MINUS) || (b !== DOT && b !== MINUS)) return NULL_INT32;
  return dateAt(buf, s, a, b);
}

/**
 * Days of the years 1678-2261: their nanoseconds, give or take a day's offset, stay inside int64 and
 * off its null (9.16e18 against 9.22e18). Beyond them the per-cell path decides.
 */
const MIN_DAYS = -106_000;
const MAX_DAYS = 106_000;

/**
 * The timestamp forms of SPEC 2, as parseTimestampLiteral takes them: `2024.01.02[(D|T)hh:mm[:ss[.f]]]`
 * and ISO `2024-01-02[(T| )hh:mm[:ss[.f]]][Z|±hh[:]mm|±hh:mm:ss]` (f: 1 to 9 digits): with a zone
 * the instant it names, nanoseconds kept (what exports outside UTC write, SPEC 8). A local time is read as
 * UTC, unless `zonedOnly` (a zone other than UTC, whose rules the per-cell path applies).
 */
export function parseTimestampInto(buf: Uint8Array, s: number, e: number, words: Int32Array, i: number, zonedOnly: boolean): boolean {
  if (e - s === 29 && !zonedOnly && fullTimestamp(buf, s, words, i)) return true;
  if (e - s < 10) return false;
  const sep = buf[s + 4];
  const kdb = sep === DOT;
  if (!kdb && sep !== MINUS) return false;
  const days = dateAt(buf, s, sep, sep);
  if (days === NULL_INT32 || days < MIN_DAYS || days > MAX_DAYS) return false;
  let sec = days * 86400;
  let frac = 0;
  let zoned = false;
  let p = s + 10;
  if (p < e) {
    const c = buf[p];
    if (kdb ? c === 68 || c === 84 : c === 84 || c === SPACE) {
      // D or T; T or space: hh:mm[:ss[.f]]
      if (e - p < 6 || buf[p + 3] !== COLON) return false;
      const h = digits2(buf, p + 1);
      const mi = digits2(buf, p + 4);
      if (h < 0 || h > 23 || mi < 0 || mi > 59) return false;
      sec += (h * 60 + mi) * 60;
      p += 6;
      if (p < e && buf[p] === COLON) {
        const ss = digits2(buf, p + 1);
        if (e - p < 3 || ss < 0 || ss > 59) return false;
        sec += ss;
        p += 3;
        if (p < e && buf[p] === DOT) {
          p++;
          const f0 = p;
          for (; p < e && p - f0 < 10; p++) {
            const d = buf[p]! - ZERO;
            if (d < 0 || d > 9) break;
            frac = frac * 10 + d;
          }
          const nd = p - f0;
          if (nd === 0 || nd > 9) return false;
          frac *= POW10[9 - nd]!;
        }
      }
    }
    if (!kdb && p < e) {
      const z = buf[p];
      if (z === 90) {
        // Z
        p++;
        zoned = true;
      } else if (z === PLUS || z === MINUS) {
        // ±hh:mm, ±hhmm, or ±hh:mm:ss (an offset of old, local mean time, as exports write it)
        const colon = buf[p + 3] === COLON ? 1 : 0;
        const oh = digits2(buf, p + 1);
        const om = digits2(buf, p + 3 + colon);
        const withSeconds = colon === 1 && e - p === 9 && buf[p + 6] === COLON;
        const os = withSeconds ? digits2(buf, p + 7) : 0;
        if ((e - p !== 5 + colon && !withSeconds) || oh < 0 || om < 0 || os < 0 || oh > 23 || om > 59 || os > 59) return false;
        sec -= (z === MINUS ? -1 : 1) * ((oh * 60 + om) * 60 + os);
        p = e;
        zoned = true;
      }
    }
  }
  if (p !== e || (zonedOnly && !zoned)) return false;
  setInt64(words, i, sec, frac);
  return true;
}

/**
 * The commonest form, every digit present (what exports write): `2024-03-06T14:30:00.123456789`
 * (T or space) or `2024.03.06D14:30:00.123456789` (D or T), read at fixed places, as UTC.
 */
function fullTimestamp(buf: Uint8Array, s: number, words: Int32Array, i: number): boolean {
  const sep = buf[s + 4]!;
  const t = buf[s + 10];
  if (sep === MINUS ? t !== 84 && t !== SPACE : sep !== DOT || (t !== 68 && t !== 84)) return false;
  if (buf[s + 13] !== COLON || buf[s + 16] !== COLON || buf[s + 19] !== DOT) return false;
  const days = dateAt(buf, s, sep, sep);
  const h = digits2(buf, s + 11);
  const mi = digits2(buf, s + 14);
  const sec = digits2(buf, s + 17);
  const f1 = digits2(buf, s + 20);
  const f2 = digits2(buf, s + 22);
  const f3 = digits2(buf, s + 24);
  const f4 = digits2(buf, s + 26);
  const f5 = buf[s + 28]! - ZERO;
  if (days === NULL_INT32 || days < MIN_DAYS || days > MAX_DAYS || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return false;
  if (f1 < 0 || f2 < 0 || f3 < 0 || f4 < 0 || f5 < 0 || f5 > 9) return false;
  setInt64(words, i, days * 86400 + (h * 60 + mi) * 60 + sec, (((f1 * 100 + f2) * 100 + f3) * 100 + f4) * 10 + f5);
  return true;
}

/** The end of the run of ASCII digits from p (before e). */
function digitsEnd(buf: Uint8Array, p: number, e: number): number {
  while (p < e && buf[p]! >= ZERO && buf[p]! <= ZERO + 9) p++;
  return p;
}

/**
 * parseTimespan's form `[-][<days>D]h[h]:mm[:ss[.f{1,9}]]` (hours not range-checked, as there), up
 * to 99999 days.
 */
export function parseTimespanInto(buf: Uint8Array, s: number, e: number, words: Int32Array, i: number): boolean {
  let p = s;
  const neg = buf[p] === MINUS;
  if (neg) p++;
  let q = digitsEnd(buf, p, e);
  let days = 0;
  if (q < e && buf[q] === 68) {
    // D
    if (q === p || q - p > 5) return false;
    for (; p < q; p++) days = days * 10 + (buf[p]! - ZERO);
    p = q + 1;
    q = digitsEnd(buf, p, e);
  }
  if (q - p < 1 || q - p > 2 || q >= e || buf[q] !== COLON) return false;
  const h = q - p === 2 ? digits2(buf, p) : buf[p]! - ZERO;
  p = q + 1;
  if (e - p < 2) return false;
  const mi = digits2(buf, p);
  if (mi < 0 || mi > 59) return false;
  p += 2;
  let sec = 0;
  let frac = 0;
  if (p < e) {
    if (buf[p] !== COLON || e - p < 3) return false;
    sec = digits2(buf, p + 1);
    if (sec < 0 || sec > 59) return false;
    p += 3;
    if (p < e) {
      if (buf[p] !== DOT) return false;
      p++;
      const nd = e - p;
      if (nd < 1 || nd > 9 || digitsEnd(buf, p, e) !== e) return false;
      for (; p < e; p++) frac = frac * 10 + (buf[p]! - ZERO);
      frac *= POW10[9 - nd]!;
    }
  }
  const total = days * 86400 + (h * 60 + mi) * 60 + sec;
  if (neg) setInt64(words, i, -total, -frac);
  else setInt64(words, i, total, frac);
  return true;
}

/** 1, 0, or -1 for text castValue does not take as a boolean; an empty cell (null) is 0 (false). */
export function parseBoolean(buf: Uint8Array, s: number, e: number): number {
  switch (e - s) {
    case 0:
      return 0;
    case 1:
      return buf[s] === 49 ? 1 : buf[s] === ZERO ? 0 : -1;
    case 2:
      if (buf[s + 1] !== 98) return -1; // 1b / 0b
      return buf[s] === 49 ? 1 : buf[s] === ZERO ? 0 : -1;
    case 4:
      return buf[s] === 116 && buf[s + 1] === 114 && buf[s + 2] === 117 && buf[s + 3] === 101 ? 1 : -1;
    case 5:
      return buf[s] === 102 && buf[s + 1] === 97 && buf[s + 2] === 108 && buf[s + 3] === 115 && buf[s + 4] === 101 ? 0 : -1;
    default:
      return -1;
  }
}
