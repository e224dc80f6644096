/**
 * Columns in memory, each in its stored width: floats are Float64Array (NaN null); longs, timestamps
 * and timespans are BigInt64Array (null INT64_MIN), read in hot loops as hi/lo int32 pairs so no row
 * pays for a BigInt; ints and dates are Int32Array (null INT32_MIN). Numeric kernels read longs and
 * ints as float64 through `floats()` (exact within ±2^53, as any float64 arithmetic is). Symbols are
 * int32 codes into a dictionary; "" is the null symbol.
 */

import { concatDicts, type Dict, dictIndexOf, dictOf, dictStrings, PickDict } from './dict.js';
import { checkpoint } from './cancel.js';

const NULL_ONLY = dictOf(['']);

export { type ColumnType, COLUMN_TYPES } from './column-type.js';
import type { ColumnType } from './column-type.js';

export interface FloatColumn {
  readonly type: 'float';
  readonly data: Float64Array;
}
/** int64 columns: timestamps, timespans (nanoseconds) and longs; null INT64_MIN. */
export interface Int64Column {
  readonly type: 'timestamp' | 'timespan' | 'long';
  readonly data: BigInt64Array;
}
/** int32 columns: dates (days) and ints; null INT32_MIN. */
export interface Int32Column {
  readonly type: 'date' | 'int';
  readonly data: Int32Array;
}
export interface BooleanColumn {
  readonly type: 'boolean';
  readonly data: Uint8Array;
}
/**
 * Dictionary-encoded strings. The dictionary may hold the same string more than once (concatenated
 * partitions keep each partition's dictionary rather than paying to unify them), so consumers compare
 * dictionary strings, never codes, when asking whether two rows hold the same symbol.
 */
export interface SymbolColumn {
  readonly type: 'symbol';
  readonly codes: Int32Array;
  readonly dict: Dict;
}
export interface StringColumn {
  readonly type: 'string';
  readonly values: readonly string[];
}
export interface ListColumn {
  readonly type: 'float[]' | 'long[]';
  /** length rows + 1; row i holds values[offsets[i] .. offsets[i+1]) */
  readonly offsets: Int32Array;
  readonly values: Float64Array;
}

export type Column =
  | FloatColumn
  | Int64Column
  | Int32Column
  | BooleanColumn
  | SymbolColumn
  | StringColumn
  | ListColumn;

/** An int64 array of nulls (INT64_MIN), set on the high words (a BigInt fill costs ~100 ms a million). */
function nullInt64(n: number): BigInt64Array {
  const out = new BigInt64Array(n);
  const w = new Int32Array(out.buffer);
  for (let i = 1; i < w.length; i += 2) w[i] = -2147483648;
  return out;
}

/** A column of `n` nulls of a type (a file's column a table has and the file lacks, a partition's column older than it). */
export function nullColumn(type: ColumnType, n: number): Column {
  switch (type) {
    case 'float':
      return { type, data: new Float64Array(n).fill(NaN) };
    case 'timestamp':
    case 'timespan':
    case 'long':
      return { type, data: nullInt64(n) };
    case 'date':
    case 'int':
      return { type, data: new Int32Array(n).fill(-2147483648) };
    case 'boolean':
      return { type, data: new Uint8Array(n) };
    case 'symbol':
      return { type, codes: new Int32Array(n), dict: dictOf(['']) };
    case 'string':
      return { type, values: new Array<string>(n).fill('') };
    case 'float[]':
    case 'long[]':
      return { type, offsets: new Int32Array(n + 1), values: new Float64Array(0) };
  }
}

/** Number of rows in a column. */
export function columnLength(c: Column): number {
  switch (c.type) {
    case 'symbol':
      return c.codes.length;
    case 'string':
      return c.values.length;
    case 'float[]':
    case 'long[]':
      return c.offsets.length - 1;
    default:
      return c.data.length;
  }
}

/** The string of a symbol column's row `i` ("" is the null symbol). */
export function symbolText(c: SymbolColumn, i: number): string {
  return c.dict.get(c.codes[i]!);
}

const TWO32 = 4294967296;

/** Row slices of integer columns (sliceColumn) and their stored parent array. */
const sliceOf = new WeakMap<ArrayBufferView, { parent: BigInt64Array | Int32Array; from: number }>();
/** Float64 copies of integer slices, per parent array: the runs a streamed getStats reads again each query. */
const floatsOfSlices = new WeakMap<BigInt64Array | Int32Array, Map<number, Float64Array>>();

/**
 * The values of a float, long or int column as float64 (NaN for null); a float column's own array.
 * Slices of stored integer columns are converted once and kept with their parent (their rows never
 * change once read), so repeated queries do not convert the same runs again.
 */
export function floats(c: Column): Float64Array {
  if (c.type === 'long' || c.type === 'int') {
    const slice = sliceOf.get(c.data);
    if (slice) {
      let byStart = floatsOfSlices.get(slice.parent);
      if (!byStart) floatsOfSlices.set(slice.parent, (byStart = new Map()));
      const hit = byStart.get(slice.from);
      if (hit && hit.length === c.data.length) return hit;
      const out = toFloats(c);
      byStart.set(slice.from, out);
      return out;
    }
  }
  return toFloats(c);
}

function toFloats(c: Column): Float64Array {
  switch (c.type) {
    case 'float':
      return c.data;
    case 'long': {
      const w = int32Pairs(c.data);
      const out = new Float64Array(c.data.length);
      for (let i = 0; i < out.length; i++) {
        const hi = w[2 * i + 1]!;
        const lo = w[2 * i]!;
        out[i] = hi === -2147483648 && lo === 0 ? NaN : hi * TWO32 + (lo >>> 0);
      }
      return out;
    }
    case 'int': {
      const d = c.data;
      const out = new Float64Array(d.length);
      for (let i = 0; i < out.length; i++) out[i] = d[i] === -2147483648 ? NaN : d[i]!;
      return out;
    }
    default:
      throw new Error(`floats: ${c.type} is not a numeric column`);
  }
}

/** Row i of a float, long or int column as a number (NaN for null; longs exact within ±2^53). */
export function numberAt(c: Column, i: number): number {
  switch (c.type) {
    case 'float':
      return c.data[i]!;
    case 'long': {
      const w = int32Pairs(c.data);
      const hi = w[2 * i + 1]!;
      const lo = w[2 * i]!;
      return hi === -2147483648 && lo === 0 ? NaN : hi * TWO32 + (lo >>> 0);
    }
    case 'int':
      return c.data[i] === -2147483648 ? NaN : c.data[i]!;
    default:
      throw new Error(`numberAt: ${c.type} is not a numeric column`);
  }
}

/** Row i of a long column as decimal text ("" for null), exact over the whole int64 range. */
export function longText(w: Int32Array, i: number): string {
  const hi = w[2 * i + 1]!;
  const lo = w[2 * i]!;
  if (hi === -2147483648 && lo === 0) return '';
  // within ±2^53 the float64 is exact (and fast); beyond, one BigInt for this cell
  if (hi >= -2097152 && hi < 2097152) return String(hi * TWO32 + (lo >>> 0));
  return String((BigInt(hi) << 32n) | BigInt(lo >>> 0));
}

/** A long column from numbers (NaN null; integers within ±2^53). */
export function longsFrom(values: ArrayLike<number>): BigInt64Array {
  const out = new BigInt64Array(values.length);
  const w = int32Pairs(out);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v) {
      w[2 * i + 1] = -2147483648;
      continue;
    }
    const hi = Math.floor(v / TWO32);
    w[2 * i] = (v - hi * TWO32) | 0;
    w[2 * i + 1] = hi;
  }
  return out;
}

/** An int column from numbers (NaN null). */
export function intsFrom(values: ArrayLike<number>): Int32Array {
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] !== values[i] ? -2147483648 : values[i]!;
  return out;
}

/** hi/lo int32 view of an int64 column: element 2i is the low word, 2i+1 the high word (little-endian). */
export function int32Pairs(data: BigInt64Array): Int32Array {
  return new Int32Array(data.buffer, data.byteOffset, data.length * 2);
}

/** A new column holding rows `idx` of `c`, in that order (one small function per kind of array, as gatherParts). */
export function gather(c: Column, idx: Int32Array): Column {
  switch (c.type) {
    case 'float':
      return { type: c.type, data: gatherFloats(c.data, idx) };
    case 'timestamp':
    case 'timespan':
    case 'long':
      return { type: c.type, data: gatherInt64s(c.data, idx) };
    case 'date':
    case 'int':
      return { type: c.type, data: gatherInt32s(c.data, idx) };
    case 'boolean':
      return { type: 'boolean', data: gatherBytes(c.data, idx) };
    case 'symbol': {
      const out = gatherInt32s(c.codes, idx);
      c.dict.prefetch?.(out);
      return { type: 'symbol', codes: out, dict: c.dict };
    }
    case 'string': {
      const out = new Array<string>(idx.length);
      for (let i = 0; i < idx.length; i++) out[i] = c.values[idx[i]!]!;
      return { type: 'string', values: out };
    }
    case 'float[]':
    case 'long[]':
      return { type: c.type, ...gatherLists(c.offsets, c.values, idx) };
  }
}

function gatherFloats(src: Float64Array, idx: Int32Array): Float64Array {
  const out = new Float64Array(idx.length);
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
  return out;
}

function gatherInt64s(src: BigInt64Array, idx: Int32Array): BigInt64Array {
  const out = new BigInt64Array(idx.length);
  const s = int32Pairs(src);
  const o = int32Pairs(out);
  for (let i = 0; i < idx.length; i++) {
    const j = idx[i]! * 2;
    o[2 * i] = s[j]!;
    o[2 * i + 1] = s[j + 1]!;
  }
  return out;
}

function gatherInt32s(src: Int32Array, idx: Int32Array): Int32Array {
  const out = new Int32Array(idx.length);
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
  return out;
}

function gatherBytes(src: Uint8Array, idx: Int32Array): Uint8Array {
  const out = new Uint8Array(idx.length);
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
  return out;
}

function gatherLists(srcOffsets: Int32Array, srcValues: Float64Array, idx: Int32Array): { offsets: Int32Array; values: Float64Array } {
  const n = idx.length;
  const offsets = new Int32Array(n + 1);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const r = idx[i]!;
    total += srcOffsets[r + 1]! - srcOffsets[r]!;
    offsets[i + 1] = total;
  }
  const values = new Float64Array(total);
  for (let i = 0; i < n; i++) {
    const r = idx[i]!;
    values.set(srcValues.subarray(srcOffsets[r]!, srcOffsets[r + 1]!), offsets[i]!);
  }
  return { offsets, values };
}

const runsCache = new WeakMap<Int32Array, Int32Array | null>();

/**
 * `rows` as runs of consecutive row numbers (pairs: first row, length) when they are mostly long runs
 * (worth copying as blocks), else null. Computed once per row array: every column of a view shares it.
 */
export function rowRuns(rows: Int32Array): Int32Array | null {
  let runs = runsCache.get(rows);
  if (runs !== undefined) return runs;
  let breaks = 0;
  for (let i = 1; i < rows.length; i++) if (rows[i] !== rows[i - 1]! + 1) breaks++;
  runs = null;
  if (breaks * 16 < rows.length) {
    runs = new Int32Array(2 * (breaks + 1));
    let start = 0;
    for (let i = 1, k = 0; i <= rows.length; i++) {
      if (i === rows.length || rows[i] !== rows[i - 1]! + 1) {
        runs[k++] = rows[start]!;
        runs[k++] = i - start;
        start = i;
      }
    }
  }
  runsCache.set(rows, runs);
  return runs;
}

/** Copies the rows of `runs` of `src` (each `width` elements) to `out` at `at`, run by run. */
function copyRuns<T extends Float64Array | Int32Array | Uint8Array>(out: T, src: T, runs: Int32Array, at: number, width: number): void {
  let o = at * width;
  for (let k = 0; k < runs.length; k += 2) {
    const first = runs[k]! * width;
    const len = runs[k + 1]! * width;
    out.set(src.subarray(first, first + len), o);
    o += len;
  }
}

/** The codes of `rows` of a symbol column plus `base`, into `out` at `at`. */
function gatherCodes(out: Int32Array, codes: Int32Array, rows: Int32Array, at: number, base = 0): void {
  const runs = rowRuns(rows);
  if (runs) {
    copyRuns(out, codes, runs, at, 1);
    if (base !== 0) for (let i = at; i < at + rows.length; i++) out[i] = out[i]! + base;
  } else for (let i = 0; i < rows.length; i++) out[at + i] = codes[rows[i]!]! + base;
}

/** The codes of `rows` of a symbol column, in a new array. */
export function codesAt(c: SymbolColumn, rows: Int32Array): Int32Array {
  const out = new Int32Array(rows.length);
  gatherCodes(out, c.codes, rows, 0);
  return out;
}

/**
 * Renumbers codes[from, to) to the entries they use, in first-use order, adding `base`; returns the
 * entries used. Codes within a narrow span (nearly unique values stored in first-use order, as a
 * narrow query's execution IDs) renumber through a table of that span, others through a hash table.
 */
function pickCodes(codes: Int32Array, from: number, to: number, base: number, dictLength: number): Int32Array {
  let min = dictLength;
  let max = -1;
  let ascending = true;
  for (let i = from; i < to; i++) {
    const c = codes[i]!;
    if (c < min) min = c;
    if (c > max) max = c;
    if (i > from && c !== codes[i - 1]! + 1) ascending = false;
  }
  const n = to - from;
  if (n === 0) return new Int32Array(0);
  if (ascending) {
    // consecutive entries: the picks are the codes themselves
    const picks = codes.slice(from, to);
    for (let i = from; i < to; i++) codes[i] = base + i - from;
    return picks;
  }
  // every row a different entry (nearly unique values such as execution IDs): the picks are the codes
  const distinct = pickDistinct(codes, from, to, base, min, max);
  if (distinct) return distinct;
  // at most one entry per row, in first-use order
  const picks = new Int32Array(n);
  const count = max - min < 8 * n ? pickBySpan(codes, from, to, base, min, max, picks) : pickByHash(codes, from, to, base, picks);
  return picks.slice(0, count);
}

/**
 * pickCodes when no code repeats in codes[from, to) (checked in a bitmap of the codes' span, which
 * stays in cache where a hash table of the rows does not); null, nothing changed, when one does.
 */
function pickDistinct(codes: Int32Array, from: number, to: number, base: number, min: number, max: number): Int32Array | null {
  const seen = new Int32Array(((max - min) >> 5) + 1);
  for (let i = from; i < to; i++) {
    const k = codes[i]! - min;
    const bit = 1 << (k & 31);
    const w = seen[k >> 5]!;
    if ((w & bit) !== 0) return null;
    seen[k >> 5] = w | bit;
  }
  const picks = codes.slice(from, to);
  for (let i = from; i < to; i++) codes[i] = base + i - from;
  return picks;
}

/** pickCodes through a table of the codes' span; returns the entries picked. */
function pickBySpan(codes: Int32Array, from: number, to: number, base: number, min: number, max: number, picks: Int32Array): number {
  const remap = new Int32Array(max - min + 1).fill(-1);
  let count = 0;
  for (let i = from; i < to; i++) {
    const k = codes[i]! - min;
    let m = remap[k]!;
    if (m < 0) {
      m = remap[k] = count;
      picks[count++] = codes[i]!;
    }
    codes[i] = m + base;
  }
  return count;
}

/**
 * pickCodes through an open-addressing hash table of at least twice the rows (codes spread over a
 * wide span: a slice of every instrument's execution IDs). A Map did the same ~5× slower, and its
 * growth made garbage for the collector on every worker at once.
 */
function pickByHash(codes: Int32Array, from: number, to: number, base: number, picks: Int32Array): number {
  let bits = 1;
  while (1 << bits < 2 * (to - from)) bits++;
  const mask = (1 << bits) - 1;
  const keys = new Int32Array(1 << bits).fill(-1); // codes are >= 0: -1 is a free slot
  const values = new Int32Array(1 << bits);
  let count = 0;
  for (let i = from; i < to; i++) {
    const code = codes[i]!;
    let h = Math.imul(code, 0x9e3779b1) >>> (32 - bits); // Fibonacci hashing: the product's high bits
    while (keys[h] !== -1 && keys[h] !== code) h = (h + 1) & mask;
    let m: number;
    if (keys[h] === -1) {
      keys[h] = code;
      m = values[h] = count;
      picks[count++] = code;
    } else m = values[h]!;
    codes[i] = m + base;
  }
  return count;
}

/**
 * Rows of several columns of one type, gathered straight into one column (no per-part copies). Rows
 * read in storage order come as long runs of consecutive rows, which are copied as blocks.
 */
export function gatherParts(type: ColumnType, parts: ReadonlyArray<{ readonly column: Column; readonly rows: Int32Array }>, into?: GatherInto): Column {
  checkpoint();
  if (!into && parts.length === 1 && type !== 'symbol' && !rowRuns(parts[0]!.rows)) return gather(parts[0]!.column, parts[0]!.rows);
  const n = parts.reduce((s, p) => s + p.rows.length, 0);
  if (into && into.length !== n) throw new Error(`gatherParts: ${n} rows into a place of ${into.length}`);
  // one small function per type: each sees one kind of array, so it is compiled once and stays
  // compiled (one function for all types was compiled again as each new type reached it)
  switch (type) {
    case 'float':
      return { type, data: gatherFloatParts(parts as Parts<FloatColumn>, (into as Float64Array | undefined) ?? new Float64Array(n)) };
    case 'timestamp':
    case 'timespan':
    case 'long':
      return { type, data: gatherInt64Parts(parts as Parts<Int64Column>, (into as BigInt64Array | undefined) ?? new BigInt64Array(n)) };
    case 'date':
    case 'int':
      return { type, data: gatherInt32Parts(parts as Parts<Int32Column>, (into as Int32Array | undefined) ?? new Int32Array(n)) };
    case 'boolean':
      return { type, data: gatherByteParts(parts as Parts<BooleanColumn>, (into as Uint8Array | undefined) ?? new Uint8Array(n)) };
    case 'symbol':
      return gatherSymbolParts(parts as Parts<SymbolColumn>, (into as Int32Array | undefined) ?? new Int32Array(n));
    default:
      if (into) throw new Error(`gatherParts: a ${type} column has no place to be gathered into`);
      return concatColumns(
        type,
        parts.map((p) => gather(p.column, p.rows)),
      );
  }
}

type Parts<C extends Column> = ReadonlyArray<{ readonly column: C; readonly rows: Int32Array }>;

/** Where gatherParts writes, instead of a new array: the data of a fixed-width column, a symbol's codes, of the parts' rows. */
export type GatherInto = Float64Array | BigInt64Array | Int32Array | Uint8Array;

function gatherFloatParts(parts: Parts<FloatColumn>, out: Float64Array): Float64Array {
  let o = 0;
  for (const { column, rows } of parts) {
    const src = column.data;
    const runs = rowRuns(rows);
    if (runs) copyRuns(out, src, runs, o, 1);
    else for (let i = 0; i < rows.length; i++) out[o + i] = src[rows[i]!]!;
    o += rows.length;
  }
  return out;
}

function gatherInt64Parts(parts: Parts<Int64Column>, out: BigInt64Array): BigInt64Array {
  const w = int32Pairs(out);
  let o = 0;
  for (const { column, rows } of parts) {
    const s = int32Pairs(column.data);
    const runs = rowRuns(rows);
    if (runs) copyRuns(w, s, runs, o, 2);
    else {
      for (let i = 0, k = 2 * o; i < rows.length; i++, k += 2) {
        const j = rows[i]! * 2;
        w[k] = s[j]!;
        w[k + 1] = s[j + 1]!;
      }
    }
    o += rows.length;
  }
  return out;
}

function gatherInt32Parts(parts: Parts<Int32Column>, out: Int32Array): Int32Array {
  let o = 0;
  for (const { column, rows } of parts) {
    const src = column.data;
    const runs = rowRuns(rows);
    if (runs) copyRuns(out, src, runs, o, 1);
    else for (let i = 0; i < rows.length; i++) out[o + i] = src[rows[i]!]!;
    o += rows.length;
  }
  return out;
}

function gatherByteParts(parts: Parts<BooleanColumn>, out: Uint8Array): Uint8Array {
  let o = 0;
  for (const { column, rows } of parts) {
    const src = column.data;
    const runs = rowRuns(rows);
    if (runs) copyRuns(out, src, runs, o, 1);
    else for (let i = 0; i < rows.length; i++) out[o + i] = src[rows[i]!]!;
    o += rows.length;
  }
  return out;
}

/**
 * Each part keeps only the dictionary entries its rows use when its dictionary is the larger (unique
 * values such as execution IDs), as a pick over it; a small dictionary is appended whole. Neither
 * decodes a string.
 */
function gatherSymbolParts(parts: Parts<SymbolColumn>, codes: Int32Array): SymbolColumn {
  const dicts: Dict[] = [];
  let base = 0;
  let o = 0;
  for (const { column: c, rows } of parts) {
    if (c.dict.length <= rows.length) {
      gatherCodes(codes, c.codes, rows, o, base);
      c.dict.prefetch?.();
      dicts.push(c.dict);
      base += c.dict.length;
    } else {
      gatherCodes(codes, c.codes, rows, o);
      const picks = pickCodes(codes, o, o + rows.length, base, c.dict.length);
      dicts.push(new PickDict(c.dict, picks));
      base += picks.length;
    }
    o += rows.length;
  }
  return { type: 'symbol', codes, dict: concatDicts(dicts) };
}

/** Rows from..to-1 of `c`: a view sharing its buffers where the type allows, else a copy. */
export function sliceColumn(c: Column, from: number, to: number): Column {
  switch (c.type) {
    case 'symbol': {
      const codes = c.codes.subarray(from, to);
      c.dict.prefetch?.(codes);
      return { type: 'symbol', codes, dict: c.dict };
    }
    case 'string':
      return { type: 'string', values: c.values.slice(from, to) };
    case 'float[]':
    case 'long[]':
      return gather(c, Int32Array.from({ length: to - from }, (_, i) => from + i));
    case 'long':
    case 'int': {
      const data = c.data.subarray(from, to);
      sliceOf.set(data, { parent: c.data, from });
      return { type: c.type, data } as Column;
    }
    default:
      return { ...c, data: c.data.subarray(from, to) } as Column;
  }
}

/** Rows `idx` of `c`; an index of -1 gives a null (left joins). */
export function gatherOrNull(c: Column, idx: Int32Array): Column {
  const n = idx.length;
  switch (c.type) {
    case 'float': {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = idx[i]! < 0 ? NaN : c.data[idx[i]!]!;
      return { type: c.type, data: out };
    }
    case 'timestamp':
    case 'timespan':
    case 'long': {
      const out = new BigInt64Array(n);
      const s = int32Pairs(c.data);
      const o = int32Pairs(out);
      for (let i = 0; i < n; i++) {
        const j = idx[i]!;
        o[2 * i] = j < 0 ? 0 : s[2 * j]!;
        o[2 * i + 1] = j < 0 ? -2147483648 : s[2 * j + 1]!;
      }
      return { type: c.type, data: out };
    }
    case 'date':
    case 'int': {
      const out = new Int32Array(n);
      for (let i = 0; i < n; i++) out[i] = idx[i]! < 0 ? -2147483648 : c.data[idx[i]!]!;
      return { type: c.type, data: out };
    }
    case 'boolean': {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = idx[i]! < 0 ? 0 : c.data[idx[i]!]!;
      return { type: 'boolean', data: out };
    }
    case 'symbol': {
      // code 0 of the extended dictionary is the null symbol
      const out = new Int32Array(n);
      for (let i = 0; i < n; i++) out[i] = idx[i]! < 0 ? 0 : c.codes[idx[i]!]! + 1;
      return { type: 'symbol', codes: out, dict: concatDicts([NULL_ONLY, c.dict]) };
    }
    case 'string': {
      const out = new Array<string>(n);
      for (let i = 0; i < n; i++) out[i] = idx[i]! < 0 ? '' : c.values[idx[i]!]!;
      return { type: 'string', values: out };
    }
    case 'float[]':
    case 'long[]': {
      const safe = Int32Array.from(idx, (j) => (j < 0 ? -1 : j));
      const offsets = new Int32Array(n + 1);
      for (let i = 0; i < n; i++) {
        const j = safe[i]!;
        offsets[i + 1] = offsets[i]! + (j < 0 ? 0 : c.offsets[j + 1]! - c.offsets[j]!);
      }
      const values = new Float64Array(offsets[n]!);
      for (let i = 0; i < n; i++) {
        const j = safe[i]!;
        if (j >= 0) values.set(c.values.subarray(c.offsets[j]!, c.offsets[j + 1]!), offsets[i]!);
      }
      return { type: c.type, offsets, values };
    }
  }
}

/** Concatenates columns of one type; symbol dictionaries are appended (strings may repeat). */
export function concatColumns(type: ColumnType, parts: readonly Column[]): Column {
  const total = parts.reduce((s, p) => s + columnLength(p), 0);
  switch (type) {
    case 'float':
      return { type, data: concatTyped(parts.map((p) => (p as FloatColumn).data), Float64Array, total) };
    case 'timestamp':
    case 'timespan':
    case 'long':
      return { type, data: concatTyped(parts.map((p) => (p as Int64Column).data), BigInt64Array, total) };
    case 'date':
    case 'int':
      return { type, data: concatTyped(parts.map((p) => (p as Int32Column).data), Int32Array, total) };
    case 'boolean':
      return { type, data: concatTyped(parts.map((p) => (p as BooleanColumn).data), Uint8Array, total) };
    case 'string':
      return { type, values: parts.flatMap((p) => (p as StringColumn).values) };
    case 'symbol':
      return concatSymbols(parts as SymbolColumn[], total);
    case 'float[]':
    case 'long[]': {
      const lists = parts as ListColumn[];
      const offsets = new Int32Array(total + 1);
      const values = concatTyped(
        lists.map((l) => l.values.subarray(l.offsets[0]!, l.offsets[l.offsets.length - 1]!)),
        Float64Array,
        lists.reduce((s, l) => s + l.offsets[l.offsets.length - 1]! - l.offsets[0]!, 0),
      );
      let row = 0;
      let base = 0;
      for (const l of lists) {
        const n = l.offsets.length - 1;
        const first = l.offsets[0]!;
        for (let i = 1; i <= n; i++) offsets[row + i] = base + l.offsets[i]! - first;
        row += n;
        base = offsets[row]!;
      }
      return { type, offsets, values };
    }
  }
}

type TypedCtor<T> = new (n: number) => T;

function concatTyped<T extends { length: number; set(a: T, off: number): void }>(
  parts: readonly T[],
  ctor: TypedCtor<T>,
  total: number,
): T {
  if (parts.length === 1 && parts[0]!.length === total) return parts[0]!;
  const out = new ctor(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function concatSymbols(parts: readonly SymbolColumn[], total: number): SymbolColumn {
  if (parts.length === 1) return parts[0]!;
  // Append the dictionaries (lazily, nothing decoded) and offset the codes: O(rows), where unifying
  // through a Map costs a hash per dictionary entry. Repeated strings are allowed.
  const codes = new Int32Array(total);
  let off = 0;
  let base = 0;
  for (const p of parts) {
    const src = p.codes;
    for (let i = 0; i < src.length; i++) codes[off + i] = src[i]! + base;
    off += src.length;
    base += p.dict.length;
  }
  return { type: 'symbol', codes, dict: concatDicts(parts.map((p) => p.dict)) };
}

/** Rank of each dictionary code in ascending string order; equal strings share a rank. */
export function symbolRanks(dict: Dict): Int32Array {
  const ranks = new Int32Array(dict.length);
  if (dict.sorted) {
    for (let k = 0; k < ranks.length; k++) ranks[k] = k;
    return ranks;
  }
  const strings = dictStrings(dict);
  const order = strings.map((_, i) => i).sort((a, b) => compareStrings(strings[a]!, strings[b]!));
  let rank = 0;
  order.forEach((code, i) => {
    if (i > 0 && strings[code] !== strings[order[i - 1]!]) rank++;
    ranks[code] = rank;
  });
  return ranks;
}

/** Codes of a dictionary whose string is one of `names`, as a mask indexed by code. */
export function codesOf(dict: Dict, names: ReadonlySet<string>): Uint8Array {
  const mask = new Uint8Array(dict.length);
  if (dict.sorted) {
    for (const s of names) {
      const k = dictIndexOf(dict, s);
      if (k >= 0) mask[k] = 1;
    }
    return mask;
  }
  for (let k = 0; k < dict.length; k++) mask[k] = names.has(dict.get(k)) ? 1 : 0;
  return mask;
}

/** Code-point string order (as q compares symbols), independent of locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
