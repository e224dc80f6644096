/**
 * q objects read as Tickscope columns (SPEC 11's types): a table, a keyed table, a dictionary of
 * vectors or a list of vectors, each vector into one typed column (vector-column.ts) with no
 * JavaScript value per item of a simple vector. What a kdb+ reader and a tickerplant subscriber read
 * (decode.ts reads a call's small arguments item by item, into the values the registry decodes).
 *
 * A general list column reads as strings when its rows are char vectors (or char atoms), as a
 * float[] or long[] list column when they are real/float or byte/short/int/long vectors, and with no
 * typed row at all (no rows, or only `()`) as strings, as q's empty string columns come (a char
 * atom row is a one-char string; a char vector column, one char per row, reads as symbols, q's null
 * char, a space, as the null symbol). Any other
 * column (mixed rows, symbol lists, nested tables, enumerations, functions) is refused with an
 * error naming the column and its q type (ac 8, notSupported).
 *
 * The bytes are trusted for nothing: every count and length is checked against the bytes that remain
 * before anything is allocated for it, so a malformed object fails with an error naming the column
 * and what was expected (ac 13 for a message, or the kind the caller names: a file's badDatabase).
 */
import { type Column, columnLength } from '../core/column.js';
import { type ErrorKindName, TickscopeError } from '../core/errors.js';
import { decompressBlock } from './decompress.js';
import { ITEM_BYTES, isSimpleVector, qTypeName, VECTOR_TYPE_NAMES } from './types.js';
import { numbersInto, symbolColumn, vectorColumn } from './vector-column.js';

/** What the columns came as. */
export type QColumnsShape = 'table' | 'keyedTable' | 'dictionary' | 'list';

/** Columns read from a q object. */
export interface QColumns {
  readonly shape: QColumnsShape;
  /** Column names; a list's columns are named as q names unnamed columns: x, x1, x2, ... */
  readonly names: readonly string[];
  readonly columns: readonly Column[];
  /** Each column's q type as it came (17 for minutes read as timespans; 0 for strings and lists). */
  readonly qTypes: readonly number[];
  /** A keyed table's key columns, which come first; 0 for other shapes. */
  readonly keyColumns: number;
  readonly rows: number;
}

/** Where the bytes come from and how to read them. */
export interface ColumnarOptions {
  /** What errors name as the bytes' source: "q message" unless given (a file's path). */
  readonly source?: string;
  /** The error kind of malformed bytes: badRequest (ac 13) unless given (a file reader's badDatabase). */
  readonly malformed?: ErrorKindName;
  /** The bytes' order (a message header's byte 0): little-endian unless false. */
  readonly littleEndian?: boolean;
}

const NUMBER_LIST: Readonly<Record<number, 'long[]' | 'float[]'>> = { 4: 'long[]', 5: 'long[]', 6: 'long[]', 7: 'long[]', 8: 'float[]', 9: 'float[]' };
const SHAPES = 'a table, a keyed table, a dictionary of columns (symbols to vectors) or a list of columns';

/** The read position in one q object's bytes, with the checks and errors every read uses. */
class Cursor {
  pos: number;
  readonly view: DataView;
  readonly text: Buffer;
  readonly little: boolean;
  /** The column being read, named in errors. */
  column: string | null = null;

  constructor(
    readonly b: Uint8Array,
    at: number,
    readonly options: ColumnarOptions,
  ) {
    this.pos = at;
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.text = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    this.little = options.littleEndian !== false;
  }

  private message(why: string): string {
    return `${this.options.source ?? 'q message'}${this.column === null ? '' : ` column ${this.column}`}: ${why}`;
  }

  /** Malformed bytes. */
  bad(why: string): TickscopeError {
    return new TickscopeError(this.options.malformed ?? 'badRequest', this.message(why));
  }

  /** A well-formed q object Tickscope has no column for. */
  refuse(why: string): TickscopeError {
    return new TickscopeError('notSupported', this.message(why));
  }

  need(n: number, what: string): void {
    if (this.pos + n > this.b.length) throw this.bad(`ends early in ${what}: ${n} bytes needed at byte ${this.pos}, ${Math.max(0, this.b.length - this.pos)} remain`);
  }

  type(what: string): number {
    this.need(1, what);
    return this.view.getInt8(this.pos++);
  }

  /** The type of the next object, not consumed. */
  peekType(what: string): number {
    this.need(1, what);
    return this.view.getInt8(this.pos);
  }

  /** A vector's attribute byte and count, the count checked against the bytes left (`itemBytes` each at least). */
  count(what: string, itemBytes: number): number {
    this.need(5, what);
    this.pos++; // attribute (s#, u#, p#, g#): the items read the same
    const n = this.view.getInt32(this.pos, this.little);
    this.pos += 4;
    const left = this.b.length - this.pos;
    if (n < 0) throw this.bad(`${what} of ${n} items`);
    if (n * itemBytes > left) throw this.bad(`${what} claims ${n} items (at least ${n * itemBytes} bytes) but ${left} bytes remain`);
    return n;
  }

  /** One symbol's text. */
  symbol(what: string): string {
    const end = this.b.indexOf(0, this.pos);
    if (end < 0) throw this.bad(`${what} without its terminating 0`);
    const s = this.text.toString('utf8', this.pos, end);
    this.pos = end + 1;
    return s;
  }
}

/**
 * The columns of the q object that is the whole of `body` (a message's bytes after its 8-byte
 * header): a table, a keyed table, a dictionary of vectors or a list of vectors.
 */
export function decodeColumns(body: Uint8Array, options: ColumnarOptions = {}): QColumns {
  const { columns, end } = decodeColumnsAt(body, 0, options);
  if (end !== body.length) throw new Cursor(body, end, options).bad(`${body.length - end} bytes after the object`);
  return columns;
}

/**
 * The columns of the q object at `at` in `bytes`, and where it ends: for an object inside a larger
 * one (a tickerplant's `(`upd; `trade; data)`, a file's header before its object).
 */
export function decodeColumnsAt(bytes: Uint8Array, at: number, options: ColumnarOptions = {}): { columns: QColumns; end: number } {
  const c = new Cursor(bytes, at, options);
  const t = c.type('the object');
  let columns: QColumns;
  if (t === 98) columns = table(c);
  else if (t === 99 || t === 127) columns = dictionary(c);
  else if (t === 0) columns = list(c);
  else throw notColumns(c, t);
  return { columns, end: c.pos };
}

/** One q vector (simple or a general list), the whole of `body`, as a column. */
export function decodeColumn(body: Uint8Array, options: ColumnarOptions & { readonly name?: string } = {}): Column {
  const c = new Cursor(body, 0, options);
  const col = column(c, options.name ?? null).column;
  if (c.pos !== body.length) throw c.bad(`${body.length - c.pos} bytes after the vector`);
  return col;
}

/**
 * The columns of a whole q message, its 8-byte header included: its byte order read from byte 0
 * (1 little-endian, 0 big-endian), its length checked, a compressed body unpacked first (to at
 * most `maxBytes`, the message's claimed length past it refused before anything is allocated).
 */
export function decodeColumnsMessage(msg: Uint8Array, options: ColumnarOptions & { readonly maxBytes: number }): QColumns {
  const c = new Cursor(msg, 0, options);
  c.need(8, 'the message header');
  if (msg[0] !== 0 && msg[0] !== 1) throw c.bad(`byte 0 (the byte order) is ${msg[0]}; expected 1 (little-endian) or 0 (big-endian)`);
  const little = msg[0] === 1;
  const length = c.view.getUint32(4, little);
  if (length !== msg.length) throw c.bad(`the header claims ${length} bytes; the message has ${msg.length}`);
  const read = { ...options, littleEndian: little };
  if (msg[2] === 0) return decodeColumns(msg.subarray(8), read);
  c.need(12, 'a compressed message header');
  const size = c.view.getInt32(8, little);
  if (size < 9) throw c.bad(`a compressed message claims ${size} bytes unpacked; a message has at least 9`);
  return decodeColumns(decompressBlock(msg.subarray(12), size - 8, options.maxBytes - 8), read);
}

function notColumns(c: Cursor, t: number): TickscopeError {
  if (t === -128) return c.refuse(`an error (q type -128): ${JSON.stringify(c.symbol('an error'))}`);
  if (t === 101 && c.b[c.pos] === 0) return c.refuse(`the generic null :: (q type 101); expected ${SHAPES}`);
  return c.refuse(`${qTypeName(t)}; expected ${SHAPES}`);
}

/** A table's names and columns, its type byte read. */
function table(c: Cursor): QColumns {
  c.need(1, 'a table');
  c.pos++; // attribute
  if (c.type('a table') !== 99) throw c.bad(`a table (q type 98) that is not a dictionary of columns`);
  const names = columnNames(c, 'a table');
  const t = c.peekType('the columns of a table');
  if (t !== 0) throw c.bad(`a table whose columns are ${qTypeName(t)}; expected a general list of vectors`);
  c.pos++;
  const n = c.count('the columns of a table', 2);
  if (n !== names.length) throw c.bad(`a table of ${names.length} column names and ${n} columns`);
  return columnsOf(c, 'table', names);
}

/** A dictionary of columns, or a keyed table (a dictionary of two tables), its type byte read. */
function dictionary(c: Cursor): QColumns {
  const keyType = c.peekType('a dictionary');
  if (keyType === 98) {
    c.pos++;
    const keys = table(c);
    const t = c.type('the values of a keyed table');
    if (t !== 98) throw c.refuse(`a dictionary of a table to ${qTypeName(t)}; a keyed table maps a table to a table`);
    const values = table(c);
    if (values.rows !== keys.rows) throw c.bad(`a keyed table of ${keys.rows} keys and ${values.rows} rows of values`);
    const names = [...keys.names, ...values.names];
    checkUnique(c, names);
    return { shape: 'keyedTable', names, columns: [...keys.columns, ...values.columns], qTypes: [...keys.qTypes, ...values.qTypes], keyColumns: keys.names.length, rows: keys.rows };
  }
  if (keyType !== 11) throw c.refuse(`a dictionary whose keys are ${qTypeName(keyType)}; expected ${SHAPES}`);
  const names = columnNames(c, 'a dictionary');
  const t = c.peekType('the values of a dictionary');
  if (t !== 0) throw c.refuse(`a dictionary whose values are ${qTypeName(t)}, not a list of vectors; expected ${SHAPES}`);
  c.pos++;
  const n = c.count('the values of a dictionary', 2);
  if (n !== names.length) throw c.bad(`a dictionary of ${names.length} keys and ${n} values`);
  return columnsOf(c, 'dictionary', names);
}

/** A list of vectors, its type byte read: columns named x, x1, x2, ... */
function list(c: Cursor): QColumns {
  const n = c.count('a list', 2);
  return columnsOf(c, 'list', Array.from({ length: n }, (_, k) => (k === 0 ? 'x' : `x${k}`)));
}

/** A symbol vector of column names. */
function columnNames(c: Cursor, what: string): string[] {
  const t = c.type(`the column names of ${what}`);
  if (t !== 11) throw c.refuse(`${what} whose keys are ${qTypeName(t)}; column names are a symbol vector`);
  const n = c.count(`the column names of ${what}`, 1);
  const names: string[] = [];
  for (let k = 0; k < n; k++) names.push(c.symbol('a column name'));
  checkUnique(c, names);
  return names;
}

function checkUnique(c: Cursor, names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw c.bad(`the column name ${JSON.stringify(name)} twice`);
    seen.add(name);
  }
}

/** The columns of `names`, one vector each, all of one length. */
function columnsOf(c: Cursor, shape: QColumnsShape, names: readonly string[]): QColumns {
  const columns: Column[] = [];
  const qTypes: number[] = [];
  let rows = 0;
  for (const [k, name] of names.entries()) {
    const { column: col, qType } = column(c, name);
    const n = columnLength(col);
    if (k === 0) rows = n;
    else if (n !== rows) throw c.bad(`${n} rows; column ${names[0]} has ${rows}`);
    columns.push(col);
    qTypes.push(qType);
  }
  c.column = null;
  return { shape, names, columns, qTypes, keyColumns: 0, rows };
}

/** One vector as a column, named `name` in errors. */
function column(c: Cursor, name: string | null): { column: Column; qType: number } {
  c.column = name;
  const t = c.type('a column');
  if (t === 0) return { column: generalColumn(c), qType: 0 };
  if (!isSimpleVector(t)) throw c.refuse(`${qTypeName(t)}; a column is a simple vector (q types 1-19), or a general list of strings or of numeric vectors`);
  const n = c.count(`a ${VECTOR_TYPE_NAMES[t]} vector`, ITEM_BYTES[t]!);
  if (t === 11) {
    const { column: col, end } = symbolColumn(c.b, c.pos, n, () => c.bad(`a symbol vector of ${n} items ends before its last terminating 0`));
    c.pos = end;
    return { column: col, qType: t };
  }
  const col = vectorColumn(t, c.b, c.pos, n, c.little);
  c.pos += n * ITEM_BYTES[t]!;
  return { column: col, qType: t };
}

type GeneralKind = 'string' | 'long[]' | 'float[]';

/**
 * A general list column: strings (char vectors and char atoms) or number lists (numeric vectors of
 * one family), anything else refused. Read twice: once to check every row and size the column, once
 * to fill it.
 */
function generalColumn(c: Cursor): Column {
  const n = c.count('a general list', 2);
  const start = c.pos;
  let kind: GeneralKind | null = null;
  let first = -1;
  let values = 0;
  for (let i = 0; i < n; i++) {
    const t = c.type(`row ${i}`);
    let rowKind: GeneralKind;
    if (t === -10) {
      c.need(1, `row ${i}`);
      c.pos++;
      rowKind = 'string';
    } else if (t === 10) {
      const len = c.count(`row ${i}: a char vector`, 1);
      c.pos += len;
      rowKind = 'string';
    } else if (t === 0) {
      if (c.count(`row ${i}: a general list`, 2) !== 0) throw c.refuse(`row ${i} is a general list (q type 0) in a general list; nested lists read only as strings or number lists`);
      continue;
    } else if (NUMBER_LIST[t] !== undefined) {
      const len = c.count(`row ${i}: a ${VECTOR_TYPE_NAMES[t]} vector`, ITEM_BYTES[t]!);
      c.pos += len * ITEM_BYTES[t]!;
      values += len;
      rowKind = NUMBER_LIST[t]!;
    } else {
      throw c.refuse(`row ${i} is ${qTypeName(t)} in a general list (q type 0); a general list column reads as strings (char vectors) or number lists (byte, short, int, long or real, float vectors)`);
    }
    if (kind === null) {
      kind = rowKind;
      first = i;
    } else if (rowKind !== kind) {
      throw c.refuse(`a general list (q type 0) of mixed rows: row ${first} reads as ${kind}, row ${i} (${qTypeName(t)}) as ${rowKind}`);
    }
  }
  const end = c.pos;
  c.pos = start;
  let out: Column;
  if (kind === 'long[]' || kind === 'float[]') {
    const offsets = new Int32Array(n + 1);
    const data = new Float64Array(values);
    let to = 0;
    for (let i = 0; i < n; i++) {
      const t = c.type(`row ${i}`);
      const len = c.count(`row ${i}`, t === 0 ? 2 : ITEM_BYTES[t]!);
      if (t !== 0) {
        numbersInto(t, c.b, c.pos, len, c.little, data, to);
        c.pos += len * ITEM_BYTES[t]!;
        to += len;
      }
      offsets[i + 1] = to;
    }
    out = { type: kind, offsets, values: data };
  } else {
    const strings = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const t = c.type(`row ${i}`);
      if (t === -10) strings[i] = String.fromCharCode(c.b[c.pos++]!);
      else {
        const len = c.count(`row ${i}`, 1);
        strings[i] = t === 10 ? c.text.toString('utf8', c.pos, c.pos + len) : '';
        if (t === 10) c.pos += len;
      }
    }
    out = { type: 'string', values: strings };
  }
  if (c.pos !== end) throw new Error('generalColumn: the two passes disagree');
  return out;
}
