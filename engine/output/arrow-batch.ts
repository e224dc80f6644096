/**
 * The buffers of an Arrow record batch, filled straight into one byte area: each column's rows of the
 * batch gathered (through the result's row index, if any) and its validity bitmap made, at 8-aligned
 * offsets listed in a small layout at the area's start. The writer of an Arrow stream (arrow.ts) fills
 * its own batches so, and render helper threads fill the others into the slots of their rings
 * (parallel on every core); the writer then makes the batch's Arrow data as views of the area.
 *
 * Nothing here loads apache-arrow: a helper thread only moves typed arrays.
 */
import type { StreamFile } from '../core/table.js';
import { readExactly } from '../storage/parallel-read.js';
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
  /**
   * The data's rows are in this file, not in `data` (a streamed result's column the query did not
   * read): each batch reads the rows it needs (readRows), through `index`, which is then required.
   */
  readonly file?: StreamFile;
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
    // a file's rows are read for this batch (into a scratch buffer, cache-hot) and gathered from there
    const read = c.file ? readRows(c.file, c.index!, from, to) : null;
    const [src, index, a, b] = read ? [read.data, read.local, 0, n] : [c.data, c.index, from, to];
    // each gather says whether its rows may hold a null (a value equal to the null; for 8-byte values
    // moved as float64, a NaN or a zero: -0 is -2^63's bits); only then is the bitmap pass made
    switch (c.kind) {
      case F64: {
        const out = new Float64Array(area.buffer, base, n);
        if (fillFloat64s(out, src as Float64Array, index, a, b)) nullCount = nanBits(out, bits);
        break;
      }
      case I64: {
        const words = src as Int32Array | Float64Array;
        const maybe = read
          ? fillFloat64s(new Float64Array(area.buffer, base, n), read.data as Float64Array, index, a, b)
          : words.byteOffset % 8 === 0
            ? fillFloat64s(new Float64Array(area.buffer, base, n), new Float64Array(words.buffer, words.byteOffset, words.length >> 1), index, a, b)
            : fillWords(new Int32Array(area.buffer, base, 2 * n), words as Int32Array, index, a, b);
        if (maybe) nullCount = wordBits(new Int32Array(area.buffer, base, 2 * n), n, bits);
        break;
      }
      case I32: {
        const out = new Int32Array(area.buffer, base, n);
        if (fillInts(out, src as Int32Array, index, a, b, NULL_INT)) nullCount = intBits(out, bits);
        break;
      }
      case CODE: {
        // the dictionary's one null code (the empty symbol) is looked for while gathering
        const out = new Int32Array(area.buffer, base, n);
        const sole = soleNullCode(c.nullCode!);
        if (fillInts(out, src as Int32Array, index, a, b, sole) || sole === SEVERAL) nullCount = codeBits(out, c.nullCode!, bits);
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

/*
 * Streamed columns: a batch's rows of a file are read in blocks of BLOCK rows, the blocks its rows fall
 * in, adjacent ones in one positioned read, into a scratch buffer of the thread that fills the batch
 * (reused batch after batch: no fresh memory, and the bytes are in cache when gathered). Rows of a
 * time-ordered batch come from every identifier's run, so a batch of a day of 100 instruments is
 * about 100 reads per column. Which blocks, where each lands and where each row of the batch is then
 * (the local index) is worked out once per batch and shared by its columns.
 */

const BLOCK_SHIFT = 6;
const BLOCK = 1 << BLOCK_SHIFT;

/** Rows a streamed gather reads beyond those it needs, at most (as a multiple of them): see streamable. */
export const STREAM_OVERREAD = 2;

/**
 * Whether rows `index` of a file of `rows` rows are worth streaming: the blocks they fall in hold at
 * most STREAM_OVERREAD times as many rows (a sparse selection, such as a filter keeping one row in
 * ten, reads its column whole instead).
 */
export function streamable(index: Int32Array, rows: number): boolean {
  // a block holds at most BLOCK rows: this many rows are dense enough whichever they are
  if (rows <= STREAM_OVERREAD * index.length) return true;
  const marks = new Uint8Array((rows >> BLOCK_SHIFT) + 1);
  let blocks = 0;
  for (let i = 0; i < index.length; i++) {
    const b = index[i]! >> BLOCK_SHIFT;
    if (marks[b] === 0) {
      marks[b] = 1;
      blocks++;
    }
  }
  return blocks * BLOCK <= STREAM_OVERREAD * index.length + BLOCK;
}

/** This thread's read plan (for the batch it last planned) and scratch. */
const plan = {
  index: null as Int32Array | null,
  from: -1,
  to: -1,
  /** Per block of the file: 1 while planning when a row of the batch is in it; then its slot (in blocks) in the scratch. */
  marks: new Uint8Array(0),
  slots: new Int32Array(0),
  /** Reads: file rows [starts[q], ends[q]) to scratch rows from places[q]. */
  starts: new Int32Array(0),
  ends: new Int32Array(0),
  places: new Int32Array(0),
  reads: 0,
  /** Rows held by the scratch. */
  held: 0,
  /** Each row of the batch: where it is in the scratch. */
  local: new Int32Array(0),
  scratch: new ArrayBuffer(0),
};

/** Works out which blocks of the file batch rows [from, to) of `index` fall in, and where each row lands. */
function planReads(index: Int32Array, from: number, to: number, rows: number): void {
  const blocks = (rows + BLOCK - 1) >> BLOCK_SHIFT;
  if (plan.marks.length < blocks) {
    plan.marks = new Uint8Array(blocks);
    plan.slots = new Int32Array(blocks);
    plan.starts = new Int32Array(blocks);
    plan.ends = new Int32Array(blocks);
    plan.places = new Int32Array(blocks);
  }
  if (plan.local.length < to - from) plan.local = new Int32Array(to - from);
  const { marks, slots, starts, ends, places, local } = plan;
  for (let i = from; i < to; i++) marks[index[i]! >> BLOCK_SHIFT] = 1;
  let slot = 0;
  let q = 0;
  for (let b = 0; b < blocks; b++) {
    if (marks[b] === 0) continue;
    marks[b] = 0;
    const start = b << BLOCK_SHIFT;
    const end = Math.min(rows, start + BLOCK);
    if (q > 0 && ends[q - 1] === start) ends[q - 1] = end;
    else {
      starts[q] = start;
      ends[q] = end;
      places[q] = slot << BLOCK_SHIFT;
      q++;
    }
    slots[b] = slot++;
  }
  for (let i = from, o = 0; i < to; i++, o++) {
    const r = index[i]!;
    local[o] = (slots[r >> BLOCK_SHIFT]! << BLOCK_SHIFT) | (r & (BLOCK - 1));
  }
  plan.reads = q;
  plan.held = slot << BLOCK_SHIFT;
  plan.index = index;
  plan.from = from;
  plan.to = to;
}

/** A file's rows for batch rows [from, to) of `index`, read into this thread's scratch, and the batch's rows' places there. */
function readRows(file: StreamFile, index: Int32Array, from: number, to: number): { data: Float64Array | Int32Array; local: Int32Array } {
  if (plan.index !== index || plan.from !== from || plan.to !== to) planReads(index, from, to, file.rows);
  const bytes = plan.held * file.width;
  if (plan.scratch.byteLength < bytes) plan.scratch = new ArrayBuffer(Math.max(bytes, 2 * plan.scratch.byteLength));
  const into = new Uint8Array(plan.scratch, 0, bytes);
  for (let q = 0; q < plan.reads; q++) {
    const w = file.width;
    readExactly(file.fd, into.subarray(plan.places[q]! * w, (plan.places[q]! + plan.ends[q]! - plan.starts[q]!) * w), plan.starts[q]! * w, file.path);
  }
  const data = file.width === 8 ? new Float64Array(plan.scratch, 0, plan.held) : new Int32Array(plan.scratch, 0, plan.held);
  return { data, local: plan.local };
}

const NULL_INT = -2147483648;
/** soleNullCode's answer where more than one code is null (-1, none, is never a code either). */
const SEVERAL = -2;

const soleNullCodes = new WeakMap<Uint8Array, number>();

/** The one code of a dictionary whose symbol is null, -1 for none, or SEVERAL (once per dictionary and thread). */
function soleNullCode(nullCode: Uint8Array): number {
  let sole = soleNullCodes.get(nullCode);
  if (sole === undefined) {
    sole = nullCode.indexOf(1);
    if (sole >= 0 && nullCode.indexOf(1, sole + 1) >= 0) sole = SEVERAL;
    soleNullCodes.set(nullCode, sole);
  }
  return sole;
}

/*
 * The gathers: one small function per kind of array, each compiled once for its one type, unrolled
 * by eight (the loads of a time-ordered gather miss the cache: eight at a time overlap), each
 * returning whether a row it moved may be null. A gather without an index copies and answers true
 * (the bitmap pass then looks).
 */

/**
 * 8-byte values: float64s, and 64-bit integers moved as float64 (V8 moves a float64 between typed
 * arrays with its bits as they are, NaN payloads included, which the tests check): one load and
 * store a row where int32 words take two. A row may be null where its float is NaN (a float's null)
 * or 0 (+0 is the integer 0, -0 is -2^63, an integer's null).
 */
function fillFloat64s(out: Float64Array, src: Float64Array, index: Int32Array | null, from: number, to: number): boolean {
  if (!index) {
    out.set(src.subarray(from, to));
    return true;
  }
  let i = from;
  let o = 0;
  let maybe = false;
  for (; i + 8 <= to; i += 8, o += 8) {
    const a = src[index[i]!]!, b = src[index[i + 1]!]!, c = src[index[i + 2]!]!, d = src[index[i + 3]!]!;
    const e = src[index[i + 4]!]!, f = src[index[i + 5]!]!, g = src[index[i + 6]!]!, h = src[index[i + 7]!]!;
    out[o] = a;
    out[o + 1] = b;
    out[o + 2] = c;
    out[o + 3] = d;
    out[o + 4] = e;
    out[o + 5] = f;
    out[o + 6] = g;
    out[o + 7] = h;
    // |x| > 0 is false for a NaN and for a zero of either sign, and only for those (no arithmetic:
    // most integers are subnormal floats, slow to compute with)
    if (!(Math.abs(a) > 0 && Math.abs(b) > 0 && Math.abs(c) > 0 && Math.abs(d) > 0 && Math.abs(e) > 0 && Math.abs(f) > 0 && Math.abs(g) > 0 && Math.abs(h) > 0)) maybe = true;
  }
  for (; i < to; i++, o++) {
    const a = src[index[i]!]!;
    out[o] = a;
    if (!(Math.abs(a) > 0)) maybe = true;
  }
  return maybe;
}

/** 64-bit integers as int32 word pairs (a column whose words are not 8-aligned); always maybe null. */
function fillWords(out: Int32Array, src: Int32Array, index: Int32Array | null, from: number, to: number): boolean {
  if (!index) out.set(src.subarray(2 * from, 2 * to));
  else {
    for (let i = from, o = 0; i < to; i++, o += 2) {
      const j = 2 * index[i]!;
      out[o] = src[j]!;
      out[o + 1] = src[j + 1]!;
    }
  }
  return true;
}

/** int32 values or dictionary codes; whether one equals `nul`. */
function fillInts(out: Int32Array, src: Int32Array, index: Int32Array | null, from: number, to: number, nul: number): boolean {
  if (!index) {
    out.set(src.subarray(from, to));
    return true;
  }
  let i = from;
  let o = 0;
  let seen = false;
  for (; i + 8 <= to; i += 8, o += 8) {
    const a = src[index[i]!]!, b = src[index[i + 1]!]!, c = src[index[i + 2]!]!, d = src[index[i + 3]!]!;
    const e = src[index[i + 4]!]!, f = src[index[i + 5]!]!, g = src[index[i + 6]!]!, h = src[index[i + 7]!]!;
    out[o] = a;
    out[o + 1] = b;
    out[o + 2] = c;
    out[o + 3] = d;
    out[o + 4] = e;
    out[o + 5] = f;
    out[o + 6] = g;
    out[o + 7] = h;
    if (a === nul || b === nul || c === nul || d === nul || e === nul || f === nul || g === nul || h === nul) seen = true;
  }
  for (; i < to; i++, o++) {
    const a = src[index[i]!]!;
    out[o] = a;
    if (a === nul) seen = true;
  }
  return seen;
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

/**
 * Who fills which batch, decided as they go: a helper or the writer takes the next batch nobody has
 * taken when it is free, so a thread that runs slower (it started later, its core is busier) fills
 * fewer, where a fixed deal made the faster one wait. Word 0 is the next batch nobody has taken; word
 * 1 + b says who took batch b: 0 nobody yet, WRITER, or the helper's place (1, 2, ...).
 */
export const WRITER = -1;

/** The claims of a stream of `batches` batches. */
export function newClaims(batches: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * (batches + 1)));
}

/** Takes the next batch nobody has taken, for `who`; -1 when none is left. */
export function claimNext(claims: Int32Array, who: number): number {
  const b = Atomics.add(claims, 0, 1);
  if (b >= claims.length - 1) return -1;
  Atomics.store(claims, 1 + b, who);
  Atomics.notify(claims, 1 + b);
  return b;
}

/** Takes batch b for `who` if it is the next nobody has taken. */
export function claimBatch(claims: Int32Array, b: number, who: number): boolean {
  if (Atomics.compareExchange(claims, 0, b, b + 1) !== b) return false;
  Atomics.store(claims, 1 + b, who);
  return true;
}

/**
 * Who took batch b: 0 when nobody has, waiting out the moment between a take and its owner's mark
 * (at most `waitMs`: a thread ended in between leaves the batch to the caller, as nobody's).
 */
export function ownerOf(claims: Int32Array, b: number, waitMs: number): number {
  const until = performance.now() + waitMs;
  for (;;) {
    const who = Atomics.load(claims, 1 + b);
    if (who !== 0 || Atomics.load(claims, 0) <= b || performance.now() > until) return who;
    Atomics.wait(claims, 1 + b, 0, 10);
  }
}

/** The job a render helper is sent for an Arrow stream: it takes batches as claims allows, one per slot. */
export interface ArrowJob {
  readonly kind: 'arrow';
  readonly columns: readonly BatchColumn[];
  readonly length: number;
  readonly batchRows: number;
  /** This helper's mark in the claims (1, 2, ...). */
  readonly place: number;
  readonly claims: Int32Array;
  readonly ring: SharedArrayBuffer;
}

/** The helper's side: with a free slot in hand, takes the next batch, fills it there and hands it over. */
export function fillJob(job: ArrowJob): void {
  const ring = new RingProducer(job.ring);
  try {
    for (;;) {
      const slot = ring.free();
      if (!slot) return;
      const b = claimNext(job.claims, job.place);
      if (b < 0) return;
      const from = b * job.batchRows;
      const to = Math.min(job.length, from + job.batchRows);
      ring.publish(from, to, fillBatch(job.columns, from, to, slot), 0);
    }
  } catch (e) {
    ring.fail();
    throw e;
  }
}
