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
import { Utf8Dict } from '../core/dict.js';
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

/**
 * Text's two lanes over its UTF-8 bytes, four at a time, then its byte length: the same for a string
 * and for a UTF-8 dictionary's bytes of it (no string is decoded for them).
 */
class TextHasher {
  private a = SEED_A;
  private b = SEED_B;
  private word = 0;
  private count = 0;

  private byte(x: number): void {
    this.word |= x << ((this.count & 3) << 3);
    if ((++this.count & 3) === 0) this.flush();
  }

  private flush(): void {
    const w = this.word;
    let a = Math.imul(this.a ^ w, M1);
    this.a = (a << 13) | (a >>> 19);
    a = Math.imul(this.b ^ w, M2);
    this.b = (a << 15) | (a >>> 17);
    this.word = 0;
  }

  bytes(data: Uint8Array, from: number, to: number): [number, number] {
    this.reset();
    for (let k = from; k < to; k++) this.byte(data[k]!);
    return this.done();
  }

  text(s: string): [number, number] {
    this.reset();
    for (let k = 0; k < s.length; k++) {
      let c = s.charCodeAt(k);
      if (c < 0x80) this.byte(c);
      else if (c < 0x800) {
        this.byte(0xc0 | (c >> 6));
        this.byte(0x80 | (c & 63));
      } else {
        // a surrogate pair is one code point (a lone surrogate: U+FFFD, as UTF-8 encoders write it)
        const d = s.charCodeAt(k + 1);
        if (c >= 0xd800 && c < 0xdc00 && d >= 0xdc00 && d < 0xe000) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          k++;
          this.byte(0xf0 | (c >> 18));
          this.byte(0x80 | ((c >> 12) & 63));
        } else {
          if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
          this.byte(0xe0 | (c >> 12));
        }
        this.byte(0x80 | ((c >> 6) & 63));
        this.byte(0x80 | (c & 63));
      }
    }
    return this.done();
  }

  private reset(): void {
    this.a = SEED_A;
    this.b = SEED_B;
    this.word = 0;
    this.count = 0;
  }

  private done(): [number, number] {
    if (this.count & 3) this.flush();
    return [fmix(this.a ^ this.count), fmix(this.b ^ Math.imul(this.count, M1))];
  }
}

const texts = new TextHasher();

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, M1);
  h ^= h >>> 13;
  h = Math.imul(h, M2);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The words of float64 values with -0 as 0 and every NaN as one NaN (a view of them when they hold neither). */
function floatWords(data: Float64Array): Int32Array {
  let plain = true;
  for (let i = 0; i < data.length && plain; i++) {
    const x = data[i]!;
    // -0 and NaN (any payload): 1/x is -Infinity for -0, x !== x for NaN
    plain = x === x && !(x === 0 && 1 / x < 0);
  }
  if (plain && data.byteOffset % 4 === 0) return new Int32Array(data.buffer, data.byteOffset, data.length * 2);
  const copy = new Float64Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const x = data[i]!;
    copy[i] = x === 0 ? 0 : x !== x ? NaN : x;
  }
  return new Int32Array(copy.buffer);
}

/** Mixes words w[i * step + k] (k < step) into row i's lanes, for rows 0..n-1 (or through `at`, the words of row i being at[i]'s). */
function mixWords(a: Uint32Array, b: Uint32Array, w: Int32Array | Uint8Array, step: number, at?: Int32Array): void {
  const n = a.length;
  for (let i = 0; i < n; i++) {
    let x = a[i]!;
    let y = b[i]!;
    const base = (at ? at[i]! : i) * step;
    for (let k = 0; k < step; k++) {
      const v = w[base + k]!;
      x = Math.imul(x ^ v, M1);
      x = (x << 13) | (x >>> 19);
      y = Math.imul(y ^ v, M2);
      y = (y << 15) | (y >>> 17);
    }
    a[i] = x;
    b[i] = y;
  }
}

function mixColumn(a: Uint32Array, b: Uint32Array, c: Column): void {
  const n = a.length;
  switch (c.type) {
    case 'timestamp':
    case 'timespan':
    case 'long':
      return mixWords(a, b, int32Pairs(c.data), 2);
    case 'float':
      return mixWords(a, b, floatWords(c.data), 2);
    case 'int':
    case 'date':
      return mixWords(a, b, c.data, 1);
    case 'boolean':
      return mixWords(a, b, c.data, 1);
    case 'symbol': {
      // each code's text hashed once, on first use: its two lanes as the code's two words
      const m = c.dict.length;
      const words = new Int32Array(2 * m);
      // a dictionary no longer than the rows: every entry (no pass over the rows to find the used ones)
      const done = m <= n ? undefined : new Uint8Array(m);
      const utf8 = c.dict instanceof Utf8Dict ? c.dict : undefined;
      for (let i = 0; i < (done ? n : m); i++) {
        const k = done ? c.codes[i]! : i;
        if (done?.[k]) continue;
        const [x, y] = utf8 ? texts.bytes(utf8.data, utf8.offsets[k]!, utf8.offsets[k + 1]!) : texts.text(c.dict.get(k));
        words[2 * k] = x;
        words[2 * k + 1] = y;
        if (done) done[k] = 1;
      }
      return mixWords(a, b, words, 2, c.codes);
    }
    case 'string': {
      const words = new Int32Array(2 * n);
      for (let i = 0; i < n; i++) [words[2 * i], words[2 * i + 1]] = texts.text(c.values[i]!);
      return mixWords(a, b, words, 2);
    }
    case 'float[]':
    case 'long[]': {
      // a row's list as one word pair: its length and elements mixed in order
      const w = floatWords(c.values);
      const words = new Int32Array(2 * n);
      for (let i = 0; i < n; i++) {
        const from = c.offsets[i]!;
        const to = c.offsets[i + 1]!;
        let x = Math.imul(SEED_A ^ (to - from), M1);
        let y = Math.imul(SEED_B ^ (to - from), M2);
        for (let k = 2 * from; k < 2 * to; k++) {
          x = Math.imul(((x << 13) | (x >>> 19)) ^ w[k]!, M1);
          y = Math.imul(((y << 15) | (y >>> 17)) ^ w[k]!, M2);
        }
        words[2 * i] = fmix(x);
        words[2 * i + 1] = fmix(y);
      }
      return mixWords(a, b, words, 2);
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
