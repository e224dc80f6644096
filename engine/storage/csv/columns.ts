/**
 * A CSV file's fields made into the table's columns: each table column takes the field of its name
 * (its place in the header), or is all nulls when the file lacks it. Each column parses its fields
 * of a batch in one loop of its own (so every loop sees one type): numbers, timestamps, dates and
 * timespans from the bytes (parse-values.ts), symbols into a dictionary keyed by their bytes, with
 * no string, array or object per row. A cell the fast parsers do not take goes to the per-cell path
 * (`parseCell` in import.ts), which returns its value or throws the error naming the line, column,
 * cell and expected forms.
 */
import type { Scalar } from '../../core/builder.js';
import { type Column, type ColumnType, nullColumn } from '../../core/column.js';
import { TickscopeError } from '../../core/errors.js';
import type { ColumnDef } from '../../core/table.js';
import { NULL_INT32 } from '../../core/time.js';
import type { TableSchema } from '../schema.js';
import { Utf8Interner } from '../utf8-interner.js';
import { parseBoolean, parseDate, parseFloatInto, parseInt32, parseLongInto, parseTimespanInto, parseTimestampInto } from './parse-values.js';

/**
 * The per-cell path: the value of one cell of a column type, or a thrown TickscopeError
 * ('importFailed') whose message starts with `where()`.
 */
export type CellParser = (type: ColumnType, cell: string, tz: string, where: () => string) => Scalar | number[] | null;

/** The header's first error as the previous implementation worded it, or undefined; `at` is `<file>: line N`. */
export function checkHeader(t: TableSchema, header: readonly string[], at: string): string | undefined {
  const known = new Map(t.columns.map((c) => [c.name, c.type]));
  for (let j = 0; j < header.length; j++) {
    const name = header[j]!;
    if (!known.has(name)) return `${at}, column ${j + 1}: ${JSON.stringify(name)} is not a column of ${t.name}; expected names from ${[...known.keys()].join(', ')}`;
    if (header.indexOf(name) !== j) return `${at}: column ${name} appears twice`;
  }
  for (const required of [t.timeColumn, t.idColumn]) {
    if (required && !header.includes(required)) return `${at}: the header lacks ${required}, which every ${t.name} row needs`;
  }
  return undefined;
}

/** The table's columns being built from the fields of a file with this header. */
export class CsvColumns {
  private readonly cols: ReadonlyArray<{ readonly def: ColumnDef; readonly j: number; readonly builder: Builder }>;
  /** The first bad value found, and in which column (see add). */
  private error: { col: number; e: TickscopeError } | undefined;

  /** `fields`: each table column's field (its position in a record, -1: none), where not found by name in the header. */
  constructor(
    t: TableSchema,
    header: readonly string[],
    private readonly tz: string,
    private readonly cell: CellParser,
    fields?: readonly number[],
  ) {
    const utc = tz === 'UTC';
    this.cols = t.columns.map((def, i) => ({ def, j: fields ? fields[i]! : header.indexOf(def.name), builder: builderFor(def.type, utc) }));
  }

  /** About `rows` rows in all are coming (`seen` so far): room for them. */
  expect(rows: number, seen: number): void {
    for (const c of this.cols) if (c.j >= 0) c.builder.expect(rows, seen);
  }

  /**
   * Parses a batch of `count` records of `ncols` fields, as the scanner wrote them; `at(rowStarts[r])`
   * is `<file>: line N` of record r, for an error.
   */
  add(buf: Buffer, starts: Int32Array, ends: Int32Array, rowStarts: Int32Array, ncols: number, count: number, at: (rowStart: number) => string): void {
    const { cols, cell, tz } = this;
    for (let ci = 0; ci < cols.length; ci++) {
      // the previous implementation checked column by column: a bad value in column c hides those
      // of the columns after it, wherever they are
      if (this.error && ci >= this.error.col) break;
      const { def, j, builder } = cols[ci]!;
      if (j < 0) continue;
      let r = builder.addBatch(buf, starts, ends, ncols, j, 0, count);
      while (r < count) {
        const k = r * ncols + j;
        const rowStart = rowStarts[r]!;
        const where = (): string => `${at(rowStart)}, column ${def.name}`;
        try {
          builder.push(cell(def.type, buf.toString('utf8', starts[k]!, ends[k]!), tz, where));
        } catch (e) {
          if (!(e instanceof TickscopeError && e.kind === 'importFailed')) throw e;
          this.error = { col: ci, e };
          break;
        }
        r = builder.addBatch(buf, starts, ends, ncols, j, r + 1, count);
      }
    }
  }

  /** The columns, `rows` rows each; throws the first bad value's error instead when there was one. */
  finish(rows: number): Column[] {
    if (this.error) throw this.error.e;
    return this.cols.map(({ def, j, builder }) => (j < 0 ? nullColumn(def.type, rows) : builder.finish()));
  }
}

/**
 * A column being built. `addBatch` parses fields from..count of column j (`stride` fields per record)
 * and returns the first one its fast path does not take (count when it took them all); that field's
 * value, from the per-cell path, comes through `push`. Each builder's loop calls one parser, which
 * writes into the column's array (no value is returned, so no float is boxed).
 */
interface Builder {
  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number;
  push(v: Scalar | number[] | null): void;
  /** About `rows` rows in all are coming (`seen` so far): room for them. */
  expect(rows: number, seen: number): void;
  finish(): Column;
}

function builderFor(type: ColumnType, utc: boolean): Builder {
  switch (type) {
    case 'float':
      return new FloatBuilder();
    case 'long':
      return new LongBuilder('long');
    case 'timestamp':
      return new TimestampBuilder('timestamp', !utc);
    case 'timespan':
      return new TimespanBuilder('timespan');
    case 'int':
      return new IntBuilder('int');
    case 'date':
      return new DateBuilder('date');
    case 'boolean':
      return new BooleanBuilder();
    case 'symbol':
      return new SymbolBuilder();
    case 'string':
      return new StringBuilder();
    case 'float[]':
    case 'long[]':
      return new ListBuilder(type);
  }
}


/** The filled part of a grown array: a view when little is unused, else a copy. */
function trimmed<T extends Float64Array | Int32Array | Uint8Array | BigInt64Array>(a: T, n: number): T {
  return (n >= a.length * 0.75 ? a.subarray(0, n) : a.slice(0, n)) as T;
}

/** An array of at least `need` elements holding the first `n` of `a` (doubling, so appends cost O(1) each). */
function grown<T extends Float64Array | Int32Array | Uint8Array | BigInt64Array>(a: T, n: number, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  next.set(a.subarray(0, n) as never);
  return next;
}

/** Rows a column has room for at first (a small file stays small; a long one is sized by expect()). */
const INITIAL = 1 << 12;

class FloatBuilder implements Builder {
  private data = new Float64Array(INITIAL);
  private n = 0;

  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    const data = (this.data = grown(this.data, this.n, this.n + count - from));
    let n = this.n;
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      const s = starts[k]!;
      const e = ends[k]!;
      if (s === e) data[n] = NaN;
      else if (!parseFloatInto(buf, s, e, data, n)) {
        this.n = n;
        return r;
      }
      n++;
    }
    this.n = n;
    return count;
  }

  push(v: Scalar | number[] | null): void {
    this.data = grown(this.data, this.n, this.n + 1);
    this.data[this.n++] = v === null ? NaN : Number(v);
  }

  expect(rows: number): void {
    this.data = grown(this.data, this.n, rows);
  }

  finish(): Column {
    return { type: 'float', data: trimmed(this.data, this.n) };
  }
}

/** Timestamps, timespans and longs: int64, written as two int32 words (low, high) per value. */
abstract class Int64Builder implements Builder {
  protected data = new BigInt64Array(INITIAL);
  protected words = new Int32Array(this.data.buffer);
  protected n = 0;

  constructor(private readonly type: 'long' | 'timestamp' | 'timespan') {}

  abstract addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number;

  protected room(need: number): Int32Array {
    if (need > this.data.length) {
      this.data = grown(this.data, this.n, need);
      this.words = new Int32Array(this.data.buffer);
    }
    return this.words;
  }

  expect(rows: number): void {
    this.room(rows);
  }

  push(v: Scalar | number[] | null): void {
    this.room(this.n + 1);
    // as columnFromValues stores them: null (and a NaN long, `0N`) is INT64_MIN; a bigint beyond
    // int64 wraps, as a BigInt64Array element does
    this.data[this.n++] = v === null || (typeof v === 'number' && v !== v) ? -9223372036854775808n : BigInt(v as bigint | number);
  }

  finish(): Column {
    return { type: this.type, data: trimmed(this.data, this.n) };
  }
}

// Three copies of one loop, each calling its own parser: a loop shared by the three would call
// through a polymorphic site and inline none of them.

class LongBuilder extends Int64Builder {
  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    const words = this.room(this.n + count - from);
    let n = this.n;
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      const s = starts[k]!;
      const e = ends[k]!;
      if (s === e) {
        words[2 * n] = 0;
        words[2 * n + 1] = -2147483648; // INT64_MIN: the null
      } else if (!parseLongInto(buf, s, e, words, n)) {
        this.n = n;
        return r;
      }
      n++;
    }
    this.n = n;
    return count;
  }
}

class TimestampBuilder extends Int64Builder {
  constructor(
    type: 'timestamp',
    /** A zone other than UTC: local times go to the per-cell path, only instants are taken here. */
    private readonly zonedOnly: boolean,
  ) {
    super(type);
  }

  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    const words = this.room(this.n + count - from);
    const zonedOnly = this.zonedOnly;
    let n = this.n;
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      const s = starts[k]!;
      const e = ends[k]!;
      if (s === e) {
        words[2 * n] = 0;
        words[2 * n + 1] = -2147483648;
      } else if (!parseTimestampInto(buf, s, e, words, n, zonedOnly)) {
        this.n = n;
        return r;
      }
      n++;
    }
    this.n = n;
    return count;
  }
}

class TimespanBuilder extends Int64Builder {
  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    const words = this.room(this.n + count - from);
    let n = this.n;
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      const s = starts[k]!;
      const e = ends[k]!;
      if (s === e) {
        words[2 * n] = 0;
        words[2 * n + 1] = -2147483648;
      } else if (!parseTimespanInto(buf, s, e, words, n)) {
        this.n = n;
        return r;
      }
      n++;
    }
    this.n = n;
    return count;
  }
}

/** Ints and dates: int32, INT32_MIN the null (never a parsed value, so the parsers' "cannot"). */
abstract class Int32Builder implements Builder {
  protected data = new Int32Array(INITIAL);
  protected n = 0;

  constructor(private readonly type: 'int' | 'date') {}

  abstract addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number;

  push(v: Scalar | number[] | null): void {
    this.data = grown(this.data, this.n, this.n + 1);
    this.data[this.n++] = v === null || (typeof v === 'number' && v !== v) ? NULL_INT32 : Number(v);
  }

  expect(rows: number): void {
    this.data = grown(this.data, this.n, rows);
  }

  finish(): Column {
    return { type: this.type, data: trimmed(this.data, this.n) };
  }
}

class IntBuilder extends Int32Builder {
  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    const data = (this.data = grown(this.data, this.n, this.n + count - from));
    let n = this.n;
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      const s = starts[k]!;
      const e = ends[k]!;
      const v = s === e ? NULL_INT32 : parseInt32(buf, s, e);
      if (v === NULL_INT32 && s !== e) {
        this.n = n;
        return r;
      }
      data[n++] = v;
    }
    this.n = n;
    return count;
  }
}

class DateBuilder extends Int32Builder {
  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    const data = (this.data = grown(this.data, this.n, this.n + count - from));
    let n = this.n;
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      const s = starts[k]!;
      const e = ends[k]!;
      const v = s === e ? NULL_INT32 : parseDate(buf, s, e);
      if (v === NULL_INT32 && s !== e) {
        this.n = n;
        return r;
      }
      data[n++] = v;
    }
    this.n = n;
    return count;
  }
}

class BooleanBuilder implements Builder {
  private data = new Uint8Array(INITIAL);
  private n = 0;

  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    const data = (this.data = grown(this.data, this.n, this.n + count - from));
    let n = this.n;
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      const v = parseBoolean(buf, starts[k]!, ends[k]!);
      if (v < 0) {
        this.n = n;
        return r;
      }
      data[n++] = v;
    }
    this.n = n;
    return count;
  }

  push(v: Scalar | number[] | null): void {
    this.data = grown(this.data, this.n, this.n + 1);
    this.data[this.n++] = v === true || v === 1 ? 1 : 0;
  }

  expect(rows: number): void {
    this.data = grown(this.data, this.n, rows);
  }

  finish(): Column {
    return { type: 'boolean', data: trimmed(this.data, this.n) };
  }
}

/**
 * Symbols: interned as their bytes (utf8-interner.ts); runs of one value (a source system, an
 * exchange) skip the hash by comparing with the cell before.
 */
class SymbolBuilder implements Builder {
  private codes = new Int32Array(INITIAL);
  private n = 0;
  private readonly interner = new Utf8Interner();

  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    const codes = (this.codes = grown(this.codes, this.n, this.n + count - from));
    let n = this.n;
    // (none yet: a length of -1 matches no cell)
    let lastS = 0;
    let lastLen = -1;
    let lastCode = -1;
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      const s = starts[k]!;
      const len = ends[k]! - s;
      if (len === lastLen) {
        let x = 0;
        while (x < len && buf[s + x] === buf[lastS + x]) x++;
        if (x === len) {
          codes[n++] = lastCode;
          continue;
        }
      }
      lastCode = this.interner.code(buf, s, len);
      lastS = s;
      lastLen = len;
      codes[n++] = lastCode;
    }
    this.n = n;
    return count;
  }

  push(): void {
    throw new Error('symbols have no per-cell path'); // addBatch takes every cell
  }

  expect(rows: number, seen: number): void {
    this.codes = grown(this.codes, this.n, rows);
    // mostly distinct so far (execution IDs): as many entries to come, in proportion
    const m = this.interner.entries;
    if (m * 4 > seen) this.interner.reserve(Math.ceil((m / seen) * rows));
  }

  finish(): Column {
    return { type: 'symbol', codes: trimmed(this.codes, this.n), dict: this.interner.dict() };
  }
}

class StringBuilder implements Builder {
  private readonly values: string[] = [];

  addBatch(buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    const text = buf as Buffer;
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      this.values.push(text.toString('utf8', starts[k]!, ends[k]!));
    }
    return count;
  }

  push(): void {
    throw new Error('strings have no per-cell path'); // addBatch takes every cell
  }

  expect(): void {}

  finish(): Column {
    return { type: 'string', values: this.values };
  }
}

/** float[] and long[]: JSON arrays, each through the per-cell path (JSON.parse decides what a list is). */
class ListBuilder implements Builder {
  private readonly lists: number[][] = [];

  constructor(private readonly type: 'float[]' | 'long[]') {}

  addBatch(_buf: Uint8Array, starts: Int32Array, ends: Int32Array, stride: number, j: number, from: number, count: number): number {
    for (let r = from; r < count; r++) {
      const k = r * stride + j;
      if (starts[k] !== ends[k]) return r;
      this.lists.push([]);
    }
    return count;
  }

  push(v: Scalar | number[] | null): void {
    this.lists.push(Array.isArray(v) ? v : []);
  }

  expect(): void {}

  finish(): Column {
    const n = this.lists.length;
    const offsets = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + this.lists[i]!.length;
    const values = new Float64Array(offsets[n]!);
    for (let i = 0; i < n; i++) values.set(this.lists[i]!, offsets[i]!);
    return { type: this.type, offsets, values };
  }
}
