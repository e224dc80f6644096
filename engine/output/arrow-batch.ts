/**
 * The buffers of an Arrow record batch, filled straight into one byte area: each column's rows of the
 * batch gathered (through the result's row index, if any) and its validity bitmap made, at 8-aligned
 * offsets listed in a small layout at the area's start. The writer of an Arrow stream (arrow.ts) fills
 * its own batches so, and render helper threads fill the others into the slots of their rings
 * (parallel on every core); the writer then makes the batch's Arrow data as views of the area.
 *
 * Nothing here loads apache-arrow: a helper thread only moves typed arrays.
 */
import { RingProducer } from './ring.js';

/** How a column's rows become its buffer. */
export const F64 = 0; // float64 values; null is NaN
export const I64 = 1; // 64-bit integers as int32 words (lo, hi); null is -2^63
export const I32 = 2; // int32 values; null is -2^31
export const BOOL = 3; // 0/1 bytes packed to bits; never null
export const CODE = 4; // dictionary codes; null where nullCode[code] is 1 (the empty symbol)
export type BatchKind = typeof F64 | typeof I64 | typeof I32 | typeof BOOL | typeof CODE;

/** One column as a batch reads it (the arrays travel to a helper by reference when shared). */
export interface BatchColumn {
  readonly kind: BatchKind;
  readonly data: Float64Array | Int32Array | Uint8Array;
  /** The data's rows in the result's order; null for the data's rows as they are. */
  readonly index: Int32Array | null;
  /** CODE only: 1 for a code whose symbol is null. */
  readonly nullCode: Uint8Array | null;
}

/** Words of the layout per column: its data's offset, its bitmap's offset (-1: no nulls), its null count. */
const LAYOUT = 3;
const align8 = (n: number): number => Math.ceil(n / 8) * 8;
const bitmapBytes = (rows: number): number => Math.ceil(rows / 8);
const width = (kind: BatchKind): number => (kind === F64 || kind === I64 ? 8 : 4);

/** Bytes a batch of up to `rows` rows takes: the layout, then each column's data and bitmap. */
export function batchBytes(columns: readonly BatchColumn[], rows: number): number {
  let bytes = align8(4 * LAYOUT * columns.length);
  for (const c of columns) bytes += (c.kind === BOOL ? 0 : align8(width(c.kind) * rows)) + align8(bitmapBytes(rows));
  return bytes;
}

/** Column `j`'s buffers in a filled area of `rows` rows: data, and its bitmap and null count. */
export function batchBuffers(area: Uint8Array, j: number, kind: BatchKind, rows: number): { data: Uint8Array; bitmap: Uint8Array | null; nullCount: number } {
  const layout = new Int32Array(area.buffer, area.byteOffset, LAYOUT * (j + 1));
  const at = layout[LAYOUT * j]!;
  const bits = layout[LAYOUT * j + 1]!;
  const size = kind === BOOL ? bitmapBytes(rows) : width(kind) * rows;
  return {
    data: area.subarray(at, at + size),
    bitmap: bits < 0 ? null : area.subarray(bits, bits + bitmapBytes(rows)),
    nullCount: layout[LAYOUT * j + 2]!,
  };
}

/**
 * Fills `area` (8-aligned, at least batchBytes long) with rows [from, to) of every column; returns the
 * bytes used.
 */
export function fillBatch(columns: readonly BatchColumn[], from: number, to: number, area: Uint8Array): number {
  const n = to - from;
  const layout = new Int32Array(area.buffer, area.byteOffset, LAYOUT * columns.length);
  let at = align8(4 * LAYOUT * columns.length);
  for (let j = 0; j < columns.length; j++) {
    const c = columns[j]!;
    const dataAt = at;
    const base = area.byteOffset + at;
    let nullCount = 0;
    if (c.kind === BOOL) {
      const out = area.subarray(at, at + bitmapBytes(n));
      fillBits(out, c.data as Uint8Array, c.index, from, to);
      at += align8(bitmapBytes(n));
      layout[LAYOUT * j] = dataAt;
      layout[LAYOUT * j + 1] = -1;
      layout[LAYOUT * j + 2] = 0;
      continue;
    }
    at += align8(width(c.kind) * n);
    const bits = area.subarray(at, at + bitmapBytes(n));
    switch (c.kind) {
      case F64: {
        const out = new Float64Array(area.buffer, base, n);
        fillFloats(out, c.data as Float64Array, c.index, from, to);
        nullCount = nanBits(out, bits);
        break;
      }
      case I64: {
        const out = new Int32Array(area.buffer, base, 2 * n);
        fillWords(out, c.data as Int32Array, c.index, from, to);
        nullCount = wordBits(out, n, bits);
        break;
      }
      case I32:
      case CODE: {
        // int32 values or dictionary codes: the same gather, another null test
        const out = new Int32Array(area.buffer, base, n);
        fillInts(out, c.data as Int32Array, c.index, from, to);
        nullCount = c.kind === CODE ? codeBits(out, c.nullCode!, bits) : intBits(out, bits);
        break;
      }
    }
    layout[LAYOUT * j] = dataAt;
    layout[LAYOUT * j + 1] = nullCount > 0 ? at : -1;
    layout[LAYOUT * j + 2] = nullCount;
    at += align8(bitmapBytes(n));
  }
  return at;
}

// one small function per kind of array: each is compiled once, for its one type

function fillFloats(out: Float64Array, src: Float64Array, index: Int32Array | null, from: number, to: number): void {
  if (!index) out.set(src.subarray(from, to));
  else for (let i = from, o = 0; i < to; i++, o++) out[o] = src[index[i]!]!;
}

function fillWords(out: Int32Array, src: Int32Array, index: Int32Array | null, from: number, to: number): void {
  if (!index) out.set(src.subarray(2 * from, 2 * to));
  else {
    for (let i = from, o = 0; i < to; i++, o += 2) {
      const j = 2 * index[i]!;
      out[o] = src[j]!;
      out[o + 1] = src[j + 1]!;
    }
  }
}

function fillInts(out: Int32Array, src: Int32Array, index: Int32Array | null, from: number, to: number): void {
  if (!index) out.set(src.subarray(from, to));
  else for (let i = from, o = 0; i < to; i++, o++) out[o] = src[index[i]!]!;
}

function fillBits(out: Uint8Array, src: Uint8Array, index: Int32Array | null, from: number, to: number): void {
  out.fill(0);
  for (let i = from, o = 0; i < to; i++, o++) if (src[index ? index[i]! : i]) out[o >> 3]! |= 1 << (o & 7);
}

/*
 * Validity: each marks the nulls of its data in `bits` (bit set = valid) and returns how many; with
 * none, `bits` is left as it was (no bitmap is written). Trailing bits of the last byte are set.
 */

/** A bitmap with every row valid but `first`, the first null found. */
function startBitmap(bits: Uint8Array, first: number): void {
  bits.fill(0xff);
  bits[first >> 3]! &= ~(1 << (first & 7));
}

export function nanBits(d: Float64Array, bits: Uint8Array): number {
  const n = d.length;
  let i = 0;
  while (i < n && d[i] === d[i]) i++;
  if (i === n) return 0;
  startBitmap(bits, i);
  let nulls = 1;
  for (i++; i < n; i++) {
    if (d[i] !== d[i]) {
      bits[i >> 3]! &= ~(1 << (i & 7));
      nulls++;
    }
  }
  return nulls;
}

export function wordBits(w: Int32Array, n: number, bits: Uint8Array): number {
  let i = 0;
  while (i < n && !(w[2 * i + 1] === -2147483648 && w[2 * i] === 0)) i++;
  if (i === n) return 0;
  startBitmap(bits, i);
  let nulls = 1;
  for (i++; i < n; i++) {
    if (w[2 * i + 1] === -2147483648 && w[2 * i] === 0) {
      bits[i >> 3]! &= ~(1 << (i & 7));
      nulls++;
    }
  }
  return nulls;
}

export function intBits(d: Int32Array, bits: Uint8Array): number {
  const n = d.length;
  let i = 0;
  while (i < n && d[i] !== -2147483648) i++;
  if (i === n) return 0;
  startBitmap(bits, i);
  let nulls = 1;
  for (i++; i < n; i++) {
    if (d[i] === -2147483648) {
      bits[i >> 3]! &= ~(1 << (i & 7));
      nulls++;
    }
  }
  return nulls;
}

export function codeBits(d: Int32Array, nullCode: Uint8Array, bits: Uint8Array): number {
  const n = d.length;
  let i = 0;
  while (i < n && nullCode[d[i]!] !== 1) i++;
  if (i === n) return 0;
  startBitmap(bits, i);
  let nulls = 1;
  for (i++; i < n; i++) {
    if (nullCode[d[i]!] === 1) {
      bits[i >> 3]! &= ~(1 << (i & 7));
      nulls++;
    }
  }
  return nulls;
}

/** The job a render helper is sent for an Arrow stream: its batches are place, place + threads, ... */
export interface ArrowJob {
  readonly kind: 'arrow';
  readonly columns: readonly BatchColumn[];
  readonly length: number;
  readonly batchRows: number;
  readonly place: number;
  readonly threads: number;
  readonly ring: SharedArrayBuffer;
}

/** The helper's side: fills its batches into its ring, in order, one per slot. */
export function fillJob(job: ArrowJob): void {
  const ring = new RingProducer(job.ring);
  try {
    for (let b = job.place, batches = Math.ceil(job.length / job.batchRows); b < batches; b += job.threads) {
      const slot = ring.free();
      if (!slot) return;
      const from = b * job.batchRows;
      const to = Math.min(job.length, from + job.batchRows);
      ring.publish(from, to, fillBatch(job.columns, from, to, slot), 0);
    }
  } catch (e) {
    ring.fail();
    throw e;
  }
}
