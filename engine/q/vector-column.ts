/**
 * One simple q vector's items, as they lie in a message or a file, into a Tickscope column (SPEC 11's
 * mapping) with no JavaScript value per item: the bytes are copied once into a fresh, aligned typed
 * array (byte-swapped when their order is not the machine's), then converted in place where the
 * epochs or units differ. q counts from 2000.01.01, Tickscope from 1970.01.01.
 *
 * Nulls and infinities become Tickscope's: a long, timestamp or timespan keeps q's own (INT64_MIN
 * null, ±INT64_MAX infinite, which are Tickscope's); a date or int q's INT32_MIN null and ±INT32_MAX;
 * a short's and a month's are widened to those; a minute, second or time's to the timespan's; a
 * real's NaN and ±Infinity stay. A value whose conversion leaves the 64-bit range (a timestamp
 * within 30 years of 0Wp, a minute past 290 years) becomes the infinity on its side.
 */
import type { Column } from '../core/column.js';
import { dictOf, Utf8Dict } from '../core/dict.js';
import { daysFromCivil } from '../core/time.js';
import { Q_EPOCH_DAYS, Q_EPOCH_NS } from './codec.js';
import { ITEM_BYTES } from './types.js';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const TWO32 = 4294967296;
const TWO63 = 2 ** 63;
const HOST_LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const EPOCH_LO = Number(Q_EPOCH_NS & 0xffffffffn);
const EPOCH_HI = Number(Q_EPOCH_NS >> 32n);
/** ms from 1970 to q's epoch. */
const EPOCH_MS = Q_EPOCH_DAYS * 86_400_000;
/** The most ms whose ns fit an int64 short of the infinities. */
const MAX_MS = 9_223_372_036_854;

/** The bytes of `n` items of `width` bytes from `src` in a fresh buffer, in the machine's byte order. */
function copied(src: Uint8Array, at: number, n: number, width: number, little: boolean): ArrayBuffer {
  const out = new Uint8Array(n * width);
  out.set(src.subarray(at, at + n * width));
  if (width > 1 && little !== HOST_LITTLE) {
    for (let i = 0; i < out.length; i += width) {
      for (let a = i, b = i + width - 1; a < b; a++, b--) {
        const x = out[a]!;
        out[a] = out[b]!;
        out[b] = x;
      }
    }
  }
  return out.buffer;
}

/** Sets int64 `i` of the hi/lo pairs `w` to p * 2^16 + q, for integers |p|, |q| < 2^53 whose sum fits. */
function setPair(w: Int32Array, i: number, p: number, q: number): void {
  const hiP = Math.floor(p / 65536);
  const loP = (p - hiP * 65536) * 65536;
  const hiQ = Math.floor(q / TWO32);
  let lo = loP + (q - hiQ * TWO32);
  let hi = hiP + hiQ;
  if (lo >= TWO32) {
    lo -= TWO32;
    hi++;
  }
  w[2 * i] = lo | 0;
  w[2 * i + 1] = hi;
}

/** Sets int64 `i` to a * m exactly (|a| < 2^47, 0 < m < 2^37), or to an infinity past the 64-bit range. */
function setProduct(w: Int32Array, i: number, a: number, m: number): void {
  if (Math.abs(a * m) >= TWO63) {
    setInfinity(w, i, a > 0);
    return;
  }
  const ah = Math.floor(a / 65536);
  setPair(w, i, ah * m, (a - ah * 65536) * m);
}

function setInfinity(w: Int32Array, i: number, positive: boolean): void {
  w[2 * i] = positive ? -1 : 1;
  w[2 * i + 1] = positive ? INT32_MAX : INT32_MIN;
}

const setNull = (w: Int32Array, i: number): void => {
  w[2 * i] = 0;
  w[2 * i + 1] = INT32_MIN;
};

/** q timestamps (ns from 2000) to Tickscope's (ns from 1970), in place; null and infinities kept. */
function shiftTimestamps(data: BigInt64Array): void {
  const w = new Int32Array(data.buffer, data.byteOffset, data.length * 2);
  for (let i = 0; i < data.length; i++) {
    const lo = w[2 * i]! >>> 0;
    const hi = w[2 * i + 1]!;
    if ((hi === INT32_MIN && lo <= 1) || (hi === INT32_MAX && lo === 0xffffffff)) continue;
    let l = lo + EPOCH_LO;
    let h = hi + EPOCH_HI;
    if (l >= TWO32) {
      l -= TWO32;
      h++;
    }
    if (h > INT32_MAX) setInfinity(w, i, true);
    else {
      w[2 * i] = l | 0;
      w[2 * i + 1] = h;
    }
  }
}

/** int32 times of day in `unitNs` units (minute, second, time) to timespans in ns. */
function timespans(src: Int32Array, unitNs: number): BigInt64Array {
  const out = new BigInt64Array(src.length);
  const w = new Int32Array(out.buffer);
  for (let i = 0; i < src.length; i++) {
    const x = src[i]!;
    if (x === INT32_MIN) setNull(w, i);
    else if (x === INT32_MAX || x === -INT32_MAX) setInfinity(w, i, x > 0);
    else setProduct(w, i, x, unitNs);
  }
  return out;
}

/**
 * A q datetime (float days from 2000; not NaN) as whole ms from 1970, or ±Infinity for q's 0w and for
 * days whose ns would leave the timestamps' range.
 */
export function datetimeMs(x: number): number {
  const ms = Math.round(x * 86_400_000) + EPOCH_MS;
  return Math.abs(ms) <= MAX_MS ? ms : x > 0 ? Infinity : -Infinity;
}

/** q datetimes (float days from 2000) to timestamps, to the millisecond as q keeps them. */
function datetimes(src: Float64Array): BigInt64Array {
  const out = new BigInt64Array(src.length);
  const w = new Int32Array(out.buffer);
  for (let i = 0; i < src.length; i++) {
    const x = src[i]!;
    if (x !== x) {
      setNull(w, i);
      continue;
    }
    const ms = datetimeMs(x);
    if (ms === Infinity || ms === -Infinity) setInfinity(w, i, ms > 0);
    else setProduct(w, i, ms, 1_000_000);
  }
  return out;
}

/** Dates (days from 2000) to days from 1970, in place; null and infinities kept, overflow to 0Wd. */
function shiftDates(d: Int32Array): void {
  for (let i = 0; i < d.length; i++) {
    const x = d[i]!;
    if (x === INT32_MIN || x === INT32_MAX || x === -INT32_MAX) continue;
    d[i] = x > INT32_MAX - Q_EPOCH_DAYS ? INT32_MAX : x + Q_EPOCH_DAYS;
  }
}

/** Months from 2000.01 to the days (from 1970) of their firsts, in place. */
function monthsToDates(d: Int32Array): void {
  for (let i = 0; i < d.length; i++) {
    const m = d[i]!;
    if (m === INT32_MIN || m === INT32_MAX || m === -INT32_MAX) continue;
    const y = Math.floor(m / 12);
    const days = daysFromCivil(2000 + y, m - y * 12 + 1, 1);
    d[i] = days > INT32_MAX ? INT32_MAX : days < -INT32_MAX ? -INT32_MAX : days;
  }
}

/** Shorts widened to ints: 0Nh to 0Ni, ±0Wh to ±0Wi. */
function shortsToInts(s: Int16Array): Int32Array {
  const out = new Int32Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const x = s[i]!;
    out[i] = x === -32768 ? INT32_MIN : x === 32767 ? INT32_MAX : x === -32767 ? -INT32_MAX : x;
  }
  return out;
}

/** A guid's text (8-4-4-4-12 hex); the null guid (all zeros) is "", a string column's null. */
export function guidText(b: Uint8Array, at: number): string {
  let zero = true;
  for (let k = 0; k < 16; k++) if (b[at + k] !== 0) zero = false;
  if (zero) return '';
  const h = Buffer.from(b.buffer, b.byteOffset + at, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A char vector as a column of one char per row: a symbol column ("" for q's null char, a space). */
function charColumn(b: Uint8Array, at: number, n: number): Column {
  const codeOf = new Int32Array(256).fill(-1);
  const strings: string[] = [];
  const codes = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = b[at + i]!;
    let code = codeOf[c]!;
    if (code < 0) {
      code = codeOf[c] = strings.length;
      strings.push(c === 0x20 ? '' : String.fromCharCode(c));
    }
    codes[i] = code;
  }
  return { type: 'symbol', codes, dict: dictOf(strings) };
}

/**
 * `n` symbols from `at` (each ending in a 0) as codes into a dictionary of their distinct texts,
 * found by hashing their bytes (no string is made for a row); throws `unterminated` when the bytes
 * end before the n-th 0. Answers the column and the position after the last symbol.
 */
export function symbolColumn(b: Uint8Array, at: number, n: number, unterminated: () => Error): { column: Column; end: number } {
  let cap = 16;
  while (cap < 2 * n) cap *= 2;
  const mask = cap - 1;
  const slots = new Int32Array(cap).fill(-1);
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  const codes = new Int32Array(n);
  let distinct = 0;
  let bytes = 0;
  let pos = at;
  for (let i = 0; i < n; i++) {
    const s = pos;
    let h = 0x811c9dc5;
    while (pos < b.length && b[pos] !== 0) h = Math.imul(h ^ b[pos++]!, 0x01000193);
    if (pos >= b.length) throw unterminated();
    const len = pos - s;
    pos++;
    let slot = h & mask;
    for (;;) {
      const e = slots[slot]!;
      if (e < 0) {
        slots[slot] = distinct;
        starts[distinct] = s;
        ends[distinct] = s + len;
        codes[i] = distinct++;
        bytes += len;
        break;
      }
      if (ends[e]! - starts[e]! === len && sameBytes(b, starts[e]!, s, len)) {
        codes[i] = e;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  const offsets = new Int32Array(distinct + 1);
  const data = new Uint8Array(bytes);
  for (let e = 0, o = 0; e < distinct; e++) {
    data.set(b.subarray(starts[e]!, ends[e]!), o);
    o += ends[e]! - starts[e]!;
    offsets[e + 1] = o;
  }
  return { column: { type: 'symbol', codes, dict: new Utf8Dict(offsets, data, false, true) }, end: pos };
}

function sameBytes(b: Uint8Array, x: number, y: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (b[x + k] !== b[y + k]) return false;
  return true;
}

/**
 * `n` items of the simple vector type `type` (1-19 but 3 and 11: symbols are symbolColumn's) at
 * `at` in `b`, whose bytes the caller has checked are there (n * ITEM_BYTES[type]), as a column.
 * `little` is the bytes' order.
 */
export function vectorColumn(type: number, b: Uint8Array, at: number, n: number, little: boolean): Column {
  const buf = (): ArrayBuffer => copied(b, at, n, ITEM_BYTES[type]!, little);
  switch (type) {
    case 1: {
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i++) data[i] = b[at + i] !== 0 ? 1 : 0;
      return { type: 'boolean', data };
    }
    case 2: {
      const values = new Array<string>(n);
      for (let i = 0; i < n; i++) values[i] = guidText(b, at + 16 * i);
      return { type: 'string', values };
    }
    case 4: {
      const data = new Int32Array(n);
      for (let i = 0; i < n; i++) data[i] = b[at + i]!;
      return { type: 'int', data };
    }
    case 5:
      return { type: 'int', data: shortsToInts(new Int16Array(buf())) };
    case 6:
      return { type: 'int', data: new Int32Array(buf()) };
    case 7:
      return { type: 'long', data: new BigInt64Array(buf()) };
    case 8:
      return { type: 'float', data: Float64Array.from(new Float32Array(buf())) };
    case 9:
      return { type: 'float', data: new Float64Array(buf()) };
    case 10:
      return charColumn(b, at, n);
    case 12: {
      const data = new BigInt64Array(buf());
      shiftTimestamps(data);
      return { type: 'timestamp', data };
    }
    case 13: {
      const data = new Int32Array(buf());
      monthsToDates(data);
      return { type: 'date', data };
    }
    case 14: {
      const data = new Int32Array(buf());
      shiftDates(data);
      return { type: 'date', data };
    }
    case 15:
      return { type: 'timestamp', data: datetimes(new Float64Array(buf())) };
    case 16:
      return { type: 'timespan', data: new BigInt64Array(buf()) };
    case 17:
      return { type: 'timespan', data: timespans(new Int32Array(buf()), 60_000_000_000) };
    case 18:
      return { type: 'timespan', data: timespans(new Int32Array(buf()), 1_000_000_000) };
    case 19:
      return { type: 'timespan', data: timespans(new Int32Array(buf()), 1_000_000) };
    default:
      throw new Error(`vectorColumn: ${type} is not a simple vector type read here`);
  }
}

/**
 * `n` items of a numeric simple vector (byte, short, int, long, real, float) at `at` into `out` from
 * `to`, as float64: a list column's values. Nulls are NaN, infinities ±Infinity; longs are exact
 * within ±2^53 (as a long[] column holds them).
 */
export function numbersInto(type: number, b: Uint8Array, at: number, n: number, little: boolean, out: Float64Array, to: number): void {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  switch (type) {
    case 4:
      for (let i = 0; i < n; i++) out[to + i] = b[at + i]!;
      return;
    case 5:
      for (let i = 0; i < n; i++) {
        const x = v.getInt16(at + 2 * i, little);
        out[to + i] = x === -32768 ? NaN : x === 32767 ? Infinity : x === -32767 ? -Infinity : x;
      }
      return;
    case 6:
      for (let i = 0; i < n; i++) {
        const x = v.getInt32(at + 4 * i, little);
        out[to + i] = x === INT32_MIN ? NaN : x === INT32_MAX ? Infinity : x === -INT32_MAX ? -Infinity : x;
      }
      return;
    case 7:
      for (let i = 0; i < n; i++) {
        const lo = v.getUint32(at + 8 * i + (little ? 0 : 4), little);
        const hi = v.getInt32(at + 8 * i + (little ? 4 : 0), little);
        out[to + i] = hi === INT32_MIN && lo <= 1 ? (lo === 0 ? NaN : -Infinity) : hi === INT32_MAX && lo === 0xffffffff ? Infinity : hi * TWO32 + lo;
      }
      return;
    case 8:
      for (let i = 0; i < n; i++) out[to + i] = v.getFloat32(at + 4 * i, little);
      return;
    case 9:
      for (let i = 0; i < n; i++) out[to + i] = v.getFloat64(at + 8 * i, little);
      return;
    default:
      throw new Error(`numbersInto: ${type} is not a numeric vector type`);
  }
}
