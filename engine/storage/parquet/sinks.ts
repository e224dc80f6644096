/**
 * Sinks: a column's decoded pages made into its rows. Definition levels say which rows are null,
 * repetition levels where a list's row starts, and dictionary indices which converted entry a row
 * takes; the common pages (no nulls, one value or index per row) are copied in bulk. A converted
 * entry marked bad is reported when a row takes it, naming that row.
 */
import type { DecodedArray } from 'hyparquet';
import type { Column } from '../../core/column.js';
import { TickscopeError } from '../../core/errors.js';
import { Utf8Interner } from '../utf8-interner.js';
import type { Page } from './pages.js';

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

const INT32_MIN = -2147483648;

/**
 * Physical values converted to a column's representation. Conversion never throws: an entry that
 * cannot be a value of the column is marked in `bad`, and reported only when a row uses it, so the
 * error names that row (a dictionary is converted before any row refers to it).
 */
export interface Converted<T> {
  readonly data: T;
  readonly bad?: Uint8Array | undefined;
  /** Why entry k is bad. */
  readonly why?: ((k: number) => string) | undefined;
}

/** Receives a column chunk's dictionary and pages and fills the column's arrays. */
export interface Sink {
  /** Converts a dictionary page's or plain page's values (see Converted). */
  convert(values: DecodedArray): Converted<unknown>;
  /** Rows from one page, the first of them file row `row`; returns how many rows the page starts. */
  put(row: number, page: Page, src: Converted<unknown>, at: (row: number) => string): number;
  column(): Column;
  /** Called before each column chunk (a list's first entry there must start a row). */
  startChunk?(): void;
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

const allDefined = (def: ArrayLike<number> | undefined): boolean => !def || def.length === 0;

/** Entry k of a page's values, through the dictionary indices when `indexed`; damaged when out of range. */
function entry(page: Page, j: number, limit: number): number {
  if (j >= page.values.length) throw new Error('fewer values than the page declares');
  const k = page.indexed ? Number(page.values[j]) : j;
  if (!(k < limit)) throw new Error(`dictionary index ${k} beyond the dictionary's ${limit} entries`);
  return k;
}

/** A page's dictionary indices when it has one per row and all are in range (the common fast path). */
function denseIndices(page: Page, limit: number): ArrayLike<number> | undefined {
  const idx = page.values as ArrayLike<number>;
  if (!page.indexed || !allDefined(page.def) || idx.length < page.n) return undefined;
  for (let i = 0; i < page.n; i++) if (!(idx[i]! < limit)) return undefined; // the slow path reports it
  return idx;
}

function reject(src: Converted<unknown>, k: number, where: string): never {
  return fail(`${where}: ${src.why!(k)}`);
}

/**
 * float, int, date and boolean columns. Rows are written once each (nulls too), so the arrays need
 * no initial fill.
 */
export class NumberSink implements Sink {
  private readonly out: Float64Array | Int32Array | Uint8Array;

  constructor(
    private readonly type: 'float' | 'int' | 'date' | 'boolean',
    rows: number,
    private readonly nullValue: number,
    private readonly maxDef: number,
    readonly convert: (v: DecodedArray) => Converted<Float64Array | Int32Array | Uint8Array>,
  ) {
    this.out = type === 'float' ? new Float64Array(rows) : type === 'boolean' ? new Uint8Array(rows) : new Int32Array(rows);
  }

  put(row: number, page: Page, src: Converted<unknown>, at: (row: number) => string): number {
    const { out, nullValue, maxDef } = this;
    const data = src.data as Float64Array | Int32Array | Uint8Array;
    const { n, def } = page;
    if (row + n > out.length) throw new Error('more rows than the file declares');
    if (!src.bad) {
      if (!page.indexed && allDefined(def) && data.length >= n) {
        out.set(data.subarray(0, n), row);
        return n;
      }
      const idx = denseIndices(page, data.length);
      if (idx) {
        for (let i = 0; i < n; i++) out[row + i] = data[idx[i]!]!;
        return n;
      }
    }
    const every = allDefined(def);
    let j = 0;
    for (let i = 0; i < n; i++) {
      if (!every && def![i] !== maxDef) {
        out[row + i] = nullValue;
        continue;
      }
      const k = entry(page, j++, data.length);
      if (src.bad?.[k]) reject(src, k, at(row + i));
      out[row + i] = data[k]!;
    }
    return n;
  }

  column(): Column {
    const { type, out } = this;
    return type === 'float' ? { type, data: out as Float64Array } : type === 'boolean' ? { type, data: out as Uint8Array } : { type, data: out as Int32Array };
  }
}

/** long, timestamp and timespan columns, copied as 32-bit word pairs (no BigInt per row). */
export class Int64Sink implements Sink {
  private readonly out: BigInt64Array;
  private readonly words: Int32Array;

  constructor(
    private readonly type: 'long' | 'timestamp' | 'timespan',
    rows: number,
    private readonly maxDef: number,
    readonly convert: (v: DecodedArray) => Converted<BigInt64Array>,
  ) {
    this.out = new BigInt64Array(rows);
    this.words = new Int32Array(this.out.buffer);
  }

  put(row: number, page: Page, src: Converted<unknown>, at: (row: number) => string): number {
    const { words: o, maxDef } = this;
    const data = src.data as BigInt64Array;
    const w = new Int32Array(data.buffer, data.byteOffset, data.length * 2);
    const { n, def } = page;
    if (row + n > this.out.length) throw new Error('more rows than the file declares');
    if (!src.bad) {
      if (!page.indexed && allDefined(def) && data.length >= n) {
        o.set(w.subarray(0, 2 * n), 2 * row);
        return n;
      }
      const idx = denseIndices(page, data.length);
      if (idx) {
        for (let i = 0; i < n; i++) {
          const k = idx[i]!;
          o[2 * (row + i)] = w[2 * k]!;
          o[2 * (row + i) + 1] = w[2 * k + 1]!;
        }
        return n;
      }
    }
    const every = allDefined(def);
    let j = 0;
    for (let i = 0; i < n; i++) {
      if (!every && def![i] !== maxDef) {
        o[2 * (row + i)] = 0;
        o[2 * (row + i) + 1] = INT32_MIN; // INT64_MIN, the null
        continue;
      }
      const k = entry(page, j++, data.length);
      if (src.bad?.[k]) reject(src, k, at(row + i));
      o[2 * (row + i)] = w[2 * k]!;
      o[2 * (row + i) + 1] = w[2 * k + 1]!;
    }
    return n;
  }

  column(): Column {
    return { type: this.type, data: this.out };
  }
}

/**
 * Symbol columns: a UTF-8 dictionary (the layout a partition stores) of each distinct byte string
 * once, in order of first appearance, found again through an open-addressing hash table over the
 * bytes. No string is decoded, and the dictionary is known to hold no repeats and (but for a page's
 * dictionary entries no row uses) no unused entries, so storing it needs neither a dedupe by string
 * nor a compaction (prepare.ts). "" (the null) is added when a null first needs it. A dictionary
 * page's entries are looked up once, then its rows copy codes by index.
 */
export class SymbolSink implements Sink {
  private readonly codes: Int32Array;
  private readonly interner = new Utf8Interner();
  private nullCode = -1;

  constructor(
    rows: number,
    private readonly maxDef: number,
  ) {
    this.codes = new Int32Array(rows);
  }

  readonly convert = (v: DecodedArray): Converted<Int32Array> => {
    const out = new Int32Array(v.length);
    for (let k = 0; k < v.length; k++) {
      const b = v[k] as Uint8Array;
      out[k] = this.interner.code(b, 0, b.length);
    }
    return { data: out };
  };

  put(row: number, page: Page, src: Converted<unknown>): number {
    const data = src.data as Int32Array;
    const { codes, maxDef } = this;
    const { n, def } = page;
    if (row + n > codes.length) throw new Error('more rows than the file declares');
    if (!page.indexed && allDefined(def) && data.length >= n) {
      codes.set(data.subarray(0, n), row);
      return n;
    }
    const idx = denseIndices(page, data.length);
    if (idx) {
      for (let i = 0; i < n; i++) codes[row + i] = data[idx[i]!]!;
      return n;
    }
    const every = allDefined(def);
    let j = 0;
    for (let i = 0; i < n; i++) {
      if (every || def![i] === maxDef) codes[row + i] = data[entry(page, j++, data.length)]!;
      else codes[row + i] = this.nullCode < 0 ? (this.nullCode = this.interner.code(new Uint8Array(0), 0, 0)) : this.nullCode;
    }
    return n;
  }

  column(): Column {
    return { type: 'symbol', codes: this.codes, dict: this.interner.dict() };
  }
}

/** String columns ("" is the null). */
export class StringSink implements Sink {
  private readonly values: string[];

  constructor(
    rows: number,
    private readonly maxDef: number,
  ) {
    this.values = new Array<string>(rows).fill('');
  }

  readonly convert = (v: DecodedArray): Converted<string[]> => ({ data: Array.from(v as Uint8Array[], (b) => utf8.decode(b)) });

  put(row: number, page: Page, src: Converted<unknown>): number {
    const data = src.data as string[];
    const { n, def } = page;
    if (row + n > this.values.length) throw new Error('more rows than the file declares');
    const every = allDefined(def);
    let j = 0;
    for (let i = 0; i < n; i++) this.values[row + i] = every || def![i] === this.maxDef ? data[entry(page, j++, data.length)]! : '';
    return n;
  }

  column(): Column {
    return { type: 'string', values: this.values };
  }
}

/**
 * float[] and long[] columns from a one-level list (the 3-level LIST, the 2-level one or a bare
 * repeated field): a repetition level of 0 starts a row; a definition level below `elementDef` is a
 * null or empty list (both the empty list here), from `elementDef` up to `maxDef` a null element
 * (NaN), `maxDef` a value. A row may continue on the next page of its column chunk (data page V1).
 */
export class ListSink implements Sink {
  private readonly offsets: Int32Array;
  private readonly values: Float64Array;
  private rows = 0;
  private count = 0;
  private chunkStart = true;

  constructor(
    private readonly type: 'float[]' | 'long[]',
    private readonly total: number,
    capacity: number,
    private readonly maxDef: number,
    private readonly elementDef: number,
    readonly convert: (v: DecodedArray) => Converted<Float64Array>,
  ) {
    this.offsets = new Int32Array(total + 1);
    this.values = new Float64Array(capacity);
  }

  startChunk(): void {
    this.chunkStart = true;
  }

  put(row: number, page: Page, src: Converted<unknown>, at: (row: number) => string): number {
    const data = src.data as Float64Array;
    const { n, def, rep } = page;
    const { maxDef, elementDef, values, offsets } = this;
    if (this.rows !== row) throw new Error('list rows out of step');
    const every = allDefined(def);
    let j = 0;
    let started = 0;
    for (let i = 0; i < n; i++) {
      if (rep[i] === 0) {
        if (this.rows >= this.total) throw new Error('more rows than the file declares');
        offsets[this.rows++] = this.count;
        started++;
      } else if (this.chunkStart) {
        throw new Error('the column chunk starts inside a row');
      }
      this.chunkStart = false;
      const d = every ? maxDef : def![i]!;
      if (d < elementDef) continue;
      if (this.count >= values.length) throw new Error('more list values than the file declares');
      if (d === maxDef) {
        const k = entry(page, j++, data.length);
        if (src.bad?.[k]) reject(src, k, at(this.rows - 1));
        values[this.count++] = data[k]!;
      } else {
        values[this.count++] = NaN;
      }
    }
    offsets[this.rows] = this.count;
    return started;
  }

  column(): Column {
    this.offsets[this.total] = this.count;
    return { type: this.type, offsets: this.offsets, values: this.values.subarray(0, this.count) };
  }
}
