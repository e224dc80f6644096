/**
 * Growable typed arrays and the conversions the demo generator needs to turn them into columns
 * without per-row objects or per-row BigInt: times are kept as float64 nanoseconds since the UTC
 * midnight of their date (exact: a day has fewer than 2^53 ns) and written as int64 hi/lo words.
 */
import { type Column, int32Pairs } from '../core/column.js';
import { dictOf } from '../core/dict.js';

/** A Float64Array that grows by doubling. */
export class F64Buf {
  data: Float64Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Float64Array(Math.max(16, capacity));
  }

  /** Appends one value. */
  push(v: number): void {
    if (this.length === this.data.length) this.grow();
    this.data[this.length++] = v;
  }

  private grow(): void {
    const next = new Float64Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }

  /** The values pushed so far, as an exact-length copy. */
  finish(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

/** An Int32Array that grows by doubling (symbol codes). */
export class I32Buf {
  data: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Int32Array(Math.max(16, capacity));
  }

  /** Appends one value. */
  push(v: number): void {
    if (this.length === this.data.length) this.grow();
    this.data[this.length++] = v;
  }

  private grow(): void {
    const next = new Int32Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }

  /** The values pushed so far, as an exact-length copy. */
  finish(): Int32Array {
    return this.data.slice(0, this.length);
  }
}

const TWO32 = 4294967296;

/** Absolute int64 ns of `base` (a UTC midnight) plus float ns offsets; NaN offsets become the null timestamp. */
export function nsFromOffsets(base: bigint, offsets: Float64Array): BigInt64Array {
  const out = new BigInt64Array(offsets.length);
  const words = int32Pairs(out);
  const baseHi = Number(base >> 32n);
  const baseLo = Number(base & 0xffffffffn);
  for (let i = 0; i < offsets.length; i++) {
    const off = offsets[i]!;
    if (off !== off) {
      words[2 * i] = 0;
      words[2 * i + 1] = -2147483648;
      continue;
    }
    // baseLo + off stays below 2^47, so the carry into the high word is exact
    const sum = baseLo + off;
    const carry = Math.floor(sum / TWO32);
    words[2 * i] = (sum - carry * TWO32) | 0;
    words[2 * i + 1] = baseHi + carry;
  }
  return out;
}

/** A timestamp column from offsets against a UTC midnight. */
export function timestampColumn(base: bigint, offsets: Float64Array): Column {
  return { type: 'timestamp', data: nsFromOffsets(base, offsets) };
}

/** A symbol column over a fixed dictionary (code 0 should be the null symbol ""). */
export function symbolColumn(codes: Int32Array, dict: readonly string[]): Column {
  return { type: 'symbol', codes, dict: dictOf(dict) };
}

/** Index of the last element <= x in an ascending range [lo, hi) of a Float64Array, or lo - 1. */
export function lastAtOrBefore(a: Float64Array, lo: number, hi: number, x: number): number {
  let l = lo;
  let h = hi;
  while (l < h) {
    const mid = (l + h) >>> 1;
    if (a[mid]! <= x) l = mid + 1;
    else h = mid;
  }
  return l - 1;
}

/** Zero-padded decimal. */
export function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
