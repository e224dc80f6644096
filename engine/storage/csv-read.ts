/**
 * The CSV reader of `tickscope import`: the file's bytes go straight into typed column builders.
 *
 * Two steps per batch of records. The scanner finds the fields (RFC 4180: `"` quotes, `""` inside
 * quotes is one quote, CRLF or LF or CR records, a UTF-8 BOM, empty lines skipped) and writes where
 * each one starts and ends into two int32 arrays; then each column parses its fields of the batch in
 * one loop of its own (so every loop sees one type): numbers, timestamps, dates and timespans from the
 * bytes, symbols into a dictionary keyed by their bytes, with no string, array or object per row.
 *
 * The accepted forms and the values are exactly those of the per-cell path it replaces (`parseCell` in
 * import.ts over castValue): each fast parser takes only text it reads to the same value (stricter
 * grammars: no surrounding blanks, at most 15 significant digits of a float, years 1678-2261 of a
 * timestamp ...), and any other cell goes to that per-cell path, which returns its value or throws
 * the error naming the line, column, cell and expected forms. Record structure errors keep the words
 * of csv-parse, which `import` used before (`Invalid Record Length: expect 3, got 2 on line 4` ...).
 *
 * Errors, in the order the previous implementation found them (it parsed the whole file first, then
 * checked the header, then the values column by column in schema order): a structural error anywhere
 * in the file; then the header; then the bad value of the first column in schema order that has one,
 * at its first bad row. Line numbers are lines of the file (where the record starts), so they stay
 * right across skipped empty lines and quoted line breaks.
 */
import { isUtf8 } from 'node:buffer';
import type { Scalar } from '../core/builder.js';
import type { Column, ColumnType } from '../core/column.js';
import { Utf8Dict } from '../core/dict.js';
import { TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import { daysFromCivil, NULL_INT32 } from '../core/time.js';
import type { TableSchema } from './schema.js';
import { Utf8Interner } from './utf8-interner.js';

/**
 * The per-cell path: the value of one cell of a column type, or a thrown TickscopeError
 * ('importFailed') whose message starts with `where()`.
 */
export type CellParser = (type: ColumnType, cell: string, tz: string, where: () => string) => Scalar | number[] | null;

const LF = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const COMMA = 44;
const PLUS = 43;
const MINUS = 45;
const DOT = 46;
const COLON = 58;
const ZERO = 48;

/**
 * Fields scanned per batch (a batch is this many fields' worth of records, at least 64): small enough
 * that a batch's bytes stay in cache while its columns are parsed.
 */
const BATCH_FIELDS = 1 << 17;

/** The most rows the columns are sized for up front (beyond, they grow by doubling). */
const MAX_EXPECTED_ROWS = 1 << 24;

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

/**
 * Reads CSV (bytes or text) into a table with the target table's columns (absent columns are null).
 * `cell` is the per-cell path for what the fast parsers leave (see the file comment).
 */
export function readCsv(t: TableSchema, input: Uint8Array | string, file: string, tz: string, cell: CellParser): Table {
  const bytes = utf8Bytes(input);
  const scanner = new Scanner(bytes.buf, file);
  const header = scanner.header();
  if (!header) return fail(`${file}: the file is empty; expected a header row of column names`);
  const headerError = checkHeader(t, header, `${file}: line ${scanner.lineAt(scanner.recordStart)}`);
  if (headerError) {
    scanner.skipRest(header.length); // a malformed record anywhere was reported before the header
    return fail(headerError);
  }
  const ncols = header.length;
  const utc = tz === 'UTC';
  const cols = t.columns.map((def) => ({ def, j: header.indexOf(def.name), builder: builderFor(def.type, utc) }));
  const batchRows = Math.max(64, Math.floor(BATCH_FIELDS / ncols));
  const starts = new Int32Array(batchRows * ncols);
  const ends = new Int32Array(batchRows * ncols);
  const rowStarts = new Int32Array(batchRows);
  let rows = 0;
  let error: { col: number; e: TickscopeError } | undefined;
  for (;;) {
    scanner.escaped = false;
    const count = scanner.batch(starts, ends, rowStarts, batchRows, ncols);
    if (count === 0) break;
    if (scanner.escaped) {
      unescapeFields(bytes, starts, ends, count * ncols);
      scanner.useBuffer(bytes.buf);
    }
    const buf = bytes.buf;
    if (rows === 0 && count === batchRows) {
      // a long file: size every column for the rows the first batch's width promises (no copies
      // while growing; a nearly unique symbol's hash table never rehashed). Memory asked for and
      // not used is never touched, so costs nothing; finish() hands out only the rows filled.
      const perRow = (scanner.offset - rowStarts[0]!) / count;
      const expected = Math.min(MAX_EXPECTED_ROWS, Math.ceil(((buf.length - rowStarts[0]!) / perRow) * 1.02));
      for (const c of cols) if (c.j >= 0) c.builder.expect(expected, count);
    }
    for (let ci = 0; ci < cols.length; ci++) {
      // the previous implementation checked column by column: a bad value in column c hides those
      // of the columns after it, wherever they are
      if (error && ci >= error.col) break;
      const { def, j, builder } = cols[ci]!;
      if (j < 0) continue;
      let r = builder.addBatch(buf, starts, ends, ncols, j, 0, count);
      while (r < count) {
        const k = r * ncols + j;
        const rowStart = rowStarts[r]!;
        const where = (): string => `${file}: line ${scanner.lineAt(rowStart)}, column ${def.name}`;
        try {
          builder.push(cell(def.type, buf.toString('utf8', starts[k]!, ends[k]!), tz, where));
        } catch (e) {
          if (!(e instanceof TickscopeError && e.kind === 'importFailed')) throw e;
          error = { col: ci, e };
          break;
        }
        r = builder.addBatch(buf, starts, ends, ncols, j, r + 1, count);
      }
    }
    rows += count;
  }
  if (error) throw error.e;
  return new Table(
    t.columns.map((c) => c.name),
    cols.map(({ def, j, builder }) => (j < 0 ? nullColumn(def.type, rows) : builder.finish())),
    rows,
  );
}

/** The header's first error as the previous implementation worded it, or undefined; `at` is `<file>: line N`. */
function checkHeader(t: TableSchema, header: readonly string[], at: string): string | undefined {
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

/**
 * The input as a Buffer of valid UTF-8, and whether it is ours to change. Invalid sequences become
 * U+FFFD, as they did when the file was decoded to a string before parsing (the check costs a few
 * milliseconds; the copy is made only for such files).
 */
function utf8Bytes(input: Uint8Array | string): { buf: Buffer; owned: boolean } {
  if (typeof input === 'string') return { buf: Buffer.from(input, 'utf8'), owned: true };
  const b = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return isUtf8(b) ? { buf: b, owned: false } : { buf: Buffer.from(b.toString('utf8'), 'utf8'), owned: true };
}

// ---------------------------------------------------------------------------------------------------
// Scanning records

const enum Rd {
  Unknown = 0,
  Lf = 1,
  CrLf = 2,
  Cr = 3,
}

/**
 * Finds records and fields; it never changes the bytes. The record delimiter is the first line break
 * found outside quotes (CRLF, LF or CR), as csv-parse settled it; a line break of another kind is then
 * data. A quoted field holding doubled quotes is recorded with its start complemented (~start) and
 * `escaped` set, for unescapeFields.
 */
class Scanner {
  private readonly len: number;
  private pos = 0;
  private rd = Rd.Unknown;
  /** The last quoted field's content (doubled quotes still doubled when qEscaped). */
  private qs = 0;
  private qe = 0;
  private qEscaped = false;
  /** Whether a field scanned since the last reset holds doubled quotes. */
  escaped = false;
  /** Where the last record starts, and ends (its delimiter, or the end of the input). */
  recordStart = 0;
  private recordEnd = 0;
  private lineMemo = { pos: 0, line: 1 };
  /** buf as 4-byte words, for the scan's word-at-a-time step (see wordsOf). */
  private words: Int32Array;

  private buf: Buffer;

  constructor(
    buf: Buffer,
    private readonly file: string,
  ) {
    if (buf.length >= 0x7fffffff) fail(`${file}: larger than 2 GB; split it into smaller files`);
    this.len = buf.length;
    this.buf = buf;
    this.words = wordsOf(buf);
    if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) this.pos = 3;
  }

  /** Goes on over a copy of the bytes (unescapeFields makes one). */
  useBuffer(buf: Buffer): void {
    this.buf = buf;
    this.words = wordsOf(buf);
  }

  /** Where scanning goes on. */
  get offset(): number {
    return this.pos;
  }

  /** The header's names, or undefined when the file holds no record. */
  header(): string[] | undefined {
    // room for any width: scan again with more when the first try was too narrow
    let cap = 256;
    for (;;) {
      const starts = new Int32Array(cap);
      const ends = new Int32Array(cap);
      const at = this.pos;
      const n = this.record(starts, ends, 0, cap);
      if (n < 0) return undefined;
      if (n <= cap) return Array.from({ length: n }, (_, j) => fieldText(this.buf, starts[j]!, ends[j]!));
      this.pos = at;
      cap = n;
    }
  }

  /**
   * Scans up to `max` records of `ncols` fields into starts/ends (`ncols` per record) and where each
   * record starts into rowStarts; returns how many (0 at the end).
   */
  batch(starts: Int32Array, ends: Int32Array, rowStarts: Int32Array, max: number, ncols: number): number {
    let r = 0;
    while (r < max) {
      const n = this.record(starts, ends, r * ncols, ncols);
      if (n < 0) break;
      if (n !== ncols) this.recordLength(ncols, n);
      rowStarts[r] = this.recordStart;
      r++;
    }
    return r;
  }

  /** Scans the remaining records only for their structure (what csv-parse reported first). */
  skipRest(ncols: number): void {
    const none = new Int32Array(0);
    for (;;) {
      const n = this.record(none, none, 0, 0);
      if (n < 0) return;
      if (n !== ncols) this.recordLength(ncols, n);
    }
  }

  /**
   * One record: its fields' content ranges go to starts/ends from `base` (at most `ncols` of them);
   * returns its number of fields, or -1 when no record is left. Empty lines are skipped.
   */
  private record(starts: Int32Array, ends: Int32Array, base: number, ncols: number): number {
    const len = this.len;
    const buf = this.buf;
    const words = this.words;
    let p = this.pos;
    for (;;) {
      if (p >= len) {
        this.pos = p;
        return -1;
      }
      const c = buf[p]!;
      if (c !== LF && c !== CR) break;
      const d = this.delimiterAt(p);
      if (d === 0) break; // a line break of another kind than the file's: data
      p += d;
    }
    this.recordStart = p;
    let nf = 0;
    for (;;) {
      let s = p;
      let e: number;
      let c = -1;
      if (p < len && buf[p] === QUOTE) {
        p = this.quoted(p);
        s = this.qs;
        e = this.qe;
        if (this.qEscaped) {
          s = ~s;
          this.escaped = true;
        }
        if (p < len) {
          c = buf[p]!;
          if (c !== COMMA && this.delimiterAt(p) === 0) {
            fail(`${this.file}: Invalid Closing Quote: got "${String.fromCharCode(c)}" at line ${this.lineAt(p)} instead of delimiter, record delimiter, trimable character (if activated) or comment`);
          }
        }
      } else {
        // Four bytes at a time while none of them is a delimiter, quote or line break: those are
        // the only bytes below 45 that end a field, and (x - 0x2d2d2d2d) & ~x & 0x80808080 is
        // nonzero exactly when a byte of x is below 45 (the lowest such byte borrows; no byte
        // from 45 up, ASCII or UTF-8, sets its top bit in both terms). Fields average ~10 bytes.
        while ((p & 3) !== 0 && p < len && buf[p]! > COMMA) p++;
        if ((p & 3) === 0) {
          const last = words.length;
          let w = p >> 2;
          while (w < last) {
            const x = words[w]!;
            if (((x - 0x2d2d2d2d) & ~x & 0x80808080) !== 0) break;
            w++;
          }
          p = w << 2;
        }
        // then byte by byte: every byte above ',' (digits, letters, '.', '-', ':', UTF-8) is content
        for (;;) {
          if (p >= len) {
            c = -1;
            break;
          }
          c = buf[p]!;
          if (c > COMMA) {
            p++;
            continue;
          }
          if (c === COMMA) break;
          if (c === QUOTE) {
            const bom = p - s === 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf ? ' (utf8 bom)' : '';
            fail(`${this.file}: Invalid Opening Quote: a quote is found on field ${nf} at line ${this.lineAt(p)}, value is ${JSON.stringify(buf.toString('utf8', s, p))}${bom}`);
          }
          if ((c === LF || c === CR) && this.delimiterAt(p) !== 0) break;
          p++;
        }
        e = p;
      }
      if (nf < ncols) {
        starts[base + nf] = s;
        ends[base + nf] = e;
      }
      nf++;
      if (c === COMMA) {
        p++;
        continue;
      }
      this.recordEnd = p;
      this.pos = c < 0 ? len : p + this.delimiterAt(p);
      return nf;
    }
  }

  /**
   * A quoted field from its opening quote at p0: sets qs/qe to its content (doubled quotes still
   * doubled; qEscaped says whether there are any) and returns the position after the closing quote.
   */
  private quoted(p0: number): number {
    const buf = this.buf;
    const len = this.len;
    let p = p0 + 1;
    let escaped = false;
    for (;;) {
      p = buf.indexOf(QUOTE, p);
      if (p < 0) fail(`${this.file}: Quote Not Closed: the parsing is finished with an opening quote at line ${this.lineAt(len - 1)}`);
      if (p + 1 < len && buf[p + 1] === QUOTE) {
        escaped = true;
        p += 2;
        continue;
      }
      break;
    }
    this.qs = p0 + 1;
    this.qe = p;
    this.qEscaped = escaped;
    return p + 1;
  }

  /** The length of the record delimiter at p (0 when there is none), settling the delimiter on first sight. */
  private delimiterAt(p: number): number {
    const buf = this.buf;
    const c = buf[p];
    switch (this.rd) {
      case Rd.Lf:
        return c === LF ? 1 : 0;
      case Rd.CrLf:
        return c === CR && p + 1 < this.len && buf[p + 1] === LF ? 2 : 0;
      case Rd.Cr:
        return c === CR ? 1 : 0;
      default:
        if (c === LF) {
          this.rd = Rd.Lf;
          return 1;
        }
        if (c === CR) {
          if (p + 1 < this.len && buf[p + 1] === LF) {
            this.rd = Rd.CrLf;
            return 2;
          }
          this.rd = Rd.Cr;
          return 1;
        }
        return 0;
    }
  }

  private recordLength(expected: number, got: number): never {
    const at = this.recordEnd < this.len ? this.recordEnd : this.len - 1;
    return fail(`${this.file}: Invalid Record Length: expect ${expected}, got ${got} on line ${this.lineAt(at)}`);
  }

  /**
   * The line (from 1) holding byte p: one more than the line breaks before it (LF, CRLF or a lone
   * CR). Only errors ask, so it counts then (on from the last answer when p is past it).
   */
  lineAt(p: number): number {
    const buf = this.buf;
    let { pos: i, line } = this.lineMemo;
    if (p < i) {
      i = 0;
      line = 1;
    }
    for (; i < p; i++) {
      const c = buf[i];
      if (c === LF || (c === CR && buf[i + 1] !== LF)) line++;
    }
    this.lineMemo = { pos: i, line };
    return line;
  }
}

/** The whole 4-byte words of a buffer whose first byte is 4-aligned (else none: bytes are scanned one by one). */
function wordsOf(buf: Buffer): Int32Array {
  return buf.byteOffset % 4 === 0 ? new Int32Array(buf.buffer, buf.byteOffset, buf.length >> 2) : new Int32Array(0);
}

/** A field's text; `s` complemented marks doubled quotes to undo. */
function fieldText(buf: Buffer, s: number, e: number): string {
  return s < 0 ? buf.toString('utf8', ~s, e).replaceAll('""', '"') : buf.toString('utf8', s, e);
}

/**
 * Undoes doubled quotes in the marked fields of a batch, in place: the content moves left within its
 * own field and the bytes it leaves become blanks (so line counts over them stay as they were).
 * Needs a buffer of our own: the caller's bytes are copied the first time.
 */
function unescapeFields(input: { buf: Buffer; owned: boolean }, starts: Int32Array, ends: Int32Array, n: number): void {
  if (!input.owned) {
    input.buf = Buffer.from(input.buf);
    input.owned = true;
  }
  const buf = input.buf;
  for (let k = 0; k < n; k++) {
    if (starts[k]! >= 0) continue;
    const s = ~starts[k]!;
    const e = ends[k]!;
    let w = s;
    for (let p = s; p < e; p++) {
      buf[w++] = buf[p]!;
      if (buf[p] === QUOTE) p++; // the second of a pair
    }
    buf.fill(SPACE, w, e);
    starts[k] = s;
    ends[k] = w;
  }
}

// ---------------------------------------------------------------------------------------------------
// Column builders

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

/** A column of `rows` nulls (a column the file does not have). */
function nullColumn(type: ColumnType, rows: number): Column {
  switch (type) {
    case 'float':
      return { type, data: new Float64Array(rows).fill(NaN) };
    case 'long':
    case 'timestamp':
    case 'timespan':
      return { type, data: new BigInt64Array(rows).fill(-9223372036854775808n) };
    case 'int':
    case 'date':
      return { type, data: new Int32Array(rows).fill(NULL_INT32) };
    case 'boolean':
      return { type, data: new Uint8Array(rows) };
    case 'symbol':
      return { type, codes: new Int32Array(rows), dict: new Utf8Dict(Int32Array.of(0, 0), new Uint8Array(0), true) };
    case 'string':
      return { type, values: new Array<string>(rows).fill('') };
    case 'float[]':
    case 'long[]':
      return { type, offsets: new Int32Array(rows + 1), values: new Float64Array(0) };
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

// ---------------------------------------------------------------------------------------------------
// Values from bytes. Each parser takes only text that castValue reads to the same value, and says
// "cannot" (false, or INT32_MIN for the int32 ones) for anything else: the per-cell path decides those.

/** Exact powers of ten as float64 (10^22 is the largest). */
const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/**
 * A decimal number as Number() reads it: [+-] digits [. digits] [e [+-] digits], into out[i]. Taken
 * when it has at most 15 significant digits and the power of ten is within ±22: then the digits and
 * the power are both exact float64 values and one multiplication or division rounds once, correctly
 * (Clinger's fast path), to the value Number() gives. Longer numbers are read by Number() itself.
 */
function parseFloatInto(buf: Uint8Array, s: number, e: number, out: Float64Array, i: number): boolean {
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
function parseLongInto(buf: Uint8Array, s: number, e: number, words: Int32Array, i: number): boolean {
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
function parseInt32(buf: Uint8Array, s: number, e: number): number {
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
function parseDate(buf: Uint8Array, s: number, e: number): number {
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
function parseTimestampInto(buf: Uint8Array, s: number, e: number, words: Int32Array, i: number, zonedOnly: boolean): boolean {
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
function parseTimespanInto(buf: Uint8Array, s: number, e: number, words: Int32Array, i: number): boolean {
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
function parseBoolean(buf: Uint8Array, s: number, e: number): number {
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
