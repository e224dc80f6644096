/**
 * Re-imports told apart from new rows (SPEC 8): each import records, in every partition it writes, an
 * order-independent hash of the rows each of its files wrote there (partition-io.ts IMPORTS_FILE). A
 * file whose rows hash the same in a partition as rows an earlier import wrote there is a re-import,
 * whether it comes alone or among new files: the user chooses to skip, replace or append.
 *
 * A row's hash is two 32-bit lanes mixed from each column's stored value in the table's column order
 * (a number's bits, a time's int64 words, a symbol's or string's text, a list's length and elements):
 * the same values give the same hash however they are encoded (a symbol's code, a dictionary's order,
 * -0 or another NaN do not count). A set of rows hashes to the sum of its rows' lanes, each modulo
 * 2^32: the same rows in any order, from one file or several, hash the same.
 */
import { type Column, int32Pairs } from '../core/column.js';
import type { Table } from '../core/table.js';

/** What one file of an import wrote to a partition (or a reference table). */
export interface ImportRecord {
  /** Rows written. */
  readonly rows: number;
  /** setHash of those rows: 16 hex digits. */
  readonly hash: string;
  /** When (ISO 8601, UTC). */
  readonly at: string;
  /** The file's name (not its folder: the message a re-import shows). */
  readonly file?: string;
}

/** Each row's hash, two lanes. */
export interface RowHashes {
  readonly a: Uint32Array;
  readonly b: Uint32Array;
}

const M1 = 0x85ebca6b;
const M2 = 0xc2b2ae35;
const SEED_A = 0x9e3779b1;
const SEED_B = 0x7f4a7c15;

/** A string's two lanes (its UTF-16 code units mixed in order, then its length). */
function textHash(s: string): [number, number] {
  let a = SEED_A;
  let b = SEED_B;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    a = Math.imul(a ^ c, M1);
    a = (a << 13) | (a >>> 19);
    b = Math.imul(b ^ c, M2);
    b = (b << 15) | (b >>> 17);
  }
  return [fmix(a ^ s.length), fmix(b ^ Math.imul(s.length, M1))];
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, M1);
  h ^= h >>> 13;
  h = Math.imul(h, M2);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The words of float64 values with -0 as 0 and every NaN as one NaN. */
function floatWords(data: Float64Array): Int32Array {
  const copy = new Float64Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const x = data[i]!;
    copy[i] = x === 0 ? 0 : x !== x ? NaN : x;
  }
  return new Int32Array(copy.buffer);
}

/** Mixes word `w` into row i's lanes. */
function mix(a: Uint32Array, b: Uint32Array, i: number, w: number): void {
  const x = Math.imul(a[i]! ^ w, M1);
  a[i] = (x << 13) | (x >>> 19);
  const y = Math.imul(b[i]! ^ w, M2);
  b[i] = (y << 15) | (y >>> 17);
}

function mixColumn(a: Uint32Array, b: Uint32Array, c: Column): void {
  const n = a.length;
  switch (c.type) {
    case 'timestamp':
    case 'timespan':
    case 'long': {
      const w = int32Pairs(c.data);
      for (let i = 0; i < n; i++) {
        mix(a, b, i, w[2 * i]!);
        mix(a, b, i, w[2 * i + 1]!);
      }
      return;
    }
    case 'float': {
      const w = floatWords(c.data);
      for (let i = 0; i < n; i++) {
        mix(a, b, i, w[2 * i]!);
        mix(a, b, i, w[2 * i + 1]!);
      }
      return;
    }
    case 'int':
    case 'date':
      for (let i = 0; i < n; i++) mix(a, b, i, c.data[i]!);
      return;
    case 'boolean':
      for (let i = 0; i < n; i++) mix(a, b, i, c.data[i]!);
      return;
    case 'symbol': {
      // each code's text hashed once, on first use
      const ha = new Int32Array(c.dict.length);
      const hb = new Int32Array(c.dict.length);
      const done = new Uint8Array(c.dict.length);
      for (let i = 0; i < n; i++) {
        const k = c.codes[i]!;
        if (!done[k]) {
          [ha[k], hb[k]] = textHash(c.dict.get(k));
          done[k] = 1;
        }
        mix(a, b, i, ha[k]!);
        mix(a, b, i, hb[k]!);
      }
      return;
    }
    case 'string':
      for (let i = 0; i < n; i++) {
        const [x, y] = textHash(c.values[i]!);
        mix(a, b, i, x);
        mix(a, b, i, y);
      }
      return;
    case 'float[]':
    case 'long[]': {
      const w = floatWords(c.values);
      for (let i = 0; i < n; i++) {
        const from = c.offsets[i]!;
        const to = c.offsets[i + 1]!;
        mix(a, b, i, to - from);
        for (let k = from; k < to; k++) {
          mix(a, b, i, w[2 * k]!);
          mix(a, b, i, w[2 * k + 1]!);
        }
      }
      return;
    }
  }
}

/** Every row's hash over the table's columns, mixed in its column order (two columns swapped are other rows). */
export function rowHashes(rows: Table): RowHashes {
  const a = new Uint32Array(rows.length).fill(SEED_A);
  const b = new Uint32Array(rows.length).fill(SEED_B);
  for (const name of rows.names) mixColumn(a, b, rows.col(name));
  return finish(a, b);
}

/** The lanes' last mixing, each row's two lanes crossed. */
function finish(a: Uint32Array, b: Uint32Array): RowHashes {
  for (let i = 0; i < a.length; i++) {
    const x = fmix(a[i]! ^ Math.imul(b[i]!, M2));
    const y = fmix(b[i]! ^ Math.imul(x, M1));
    a[i] = x;
    b[i] = y;
  }
  return { a, b };
}

/** The hash of a set of rows (all, or rows `idx`): their lanes summed, each modulo 2^32, as 16 hex digits. */
export function setHash(h: RowHashes, idx?: ArrayLike<number>): string {
  let sa = 0;
  let sb = 0;
  const n = idx ? idx.length : h.a.length;
  for (let k = 0; k < n; k++) {
    const i = idx ? idx[k]! : k;
    sa = (sa + h.a[i]!) >>> 0;
    sb = (sb + h.b[i]!) >>> 0;
  }
  return sa.toString(16).padStart(8, '0') + sb.toString(16).padStart(8, '0');
}

/** The rows' set hash (rowHashes, then setHash). */
export function tableHash(rows: Table): string {
  return setHash(rowHashes(rows));
}

/** A row's lanes as one key (for matching rows one for one). */
export function rowKey(h: RowHashes, i: number): number {
  // 53 bits of the two lanes: exact in a double, and as good as 64 for matching one partition's rows
  return h.a[i]! * 2097152 + (h.b[i]! >>> 11);
}
