/**
 * A Parquet file's columns made into the table's: each table column takes the file's column of its
 * name, or is all nulls when the file lacks it. Which Parquet types (physical type and logical or
 * converted annotation) each Tickscope type takes, and how their values convert: timestamps widened
 * exactly to nanoseconds on the int64's 32-bit words, DECIMALs divided by their scale, integers
 * range-checked. A column the table's type does not take is an error naming both types.
 */
import type { DecodedArray, FileMetaData, SchemaElement, SchemaTree } from 'hyparquet';
import { type Column, type ColumnType, nullColumn } from '../../core/column.js';
import { TickscopeError } from '../../core/errors.js';
import type { ColumnDef } from '../../core/table.js';
import type { TableSchema } from '../schema.js';
import { leafValues } from './footer.js';
import { type Converted, Int64Sink, ListSink, NumberSink, type Sink, StringSink, SymbolSink } from './sinks.js';

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

const TWO32 = 4294967296;
const INT32_MIN = -2147483648;

/** Where a Parquet column lands, and how its levels read. */
export interface Plan {
  readonly def: ColumnDef;
  readonly leaf: SchemaTree;
  readonly schemaPath: SchemaTree[];
  readonly sink: Sink;
}

/** Fails unless the file's columns are the table's (each once) and include its time and identifier columns. */
export function checkNames(t: TableSchema, tree: SchemaTree, file: string): void {
  const names = tree.children.map((c) => c.element.name);
  names.forEach((name, j) => {
    if (!t.columns.some((c) => c.name === name)) fail(`${file}: column ${name} is not a column of ${t.name}; expected names from ${t.columns.map((c) => c.name).join(', ')}`);
    if (names.indexOf(name) !== j) fail(`${file}: column ${name} appears twice`);
  });
  for (const required of [t.timeColumn, t.idColumn]) {
    if (required && !names.includes(required)) fail(`${file}: lacks column ${required}, which every ${t.name} row needs`);
  }
}

/** Every column of `t` (a mapped import's sources) is one of the file's. */
export function checkPresent(t: TableSchema, tree: SchemaTree, file: string): void {
  const names = tree.children.map((c) => c.element.name);
  for (const c of t.columns) if (!names.includes(c.name)) fail(`${file}: has no column ${JSON.stringify(c.name)}; its columns are ${names.join(', ')}`);
}

/** The plan of each table column the file has, in the table's order (an error for one whose type does not match). */
export function planColumns(t: TableSchema, meta: FileMetaData, tree: SchemaTree, rows: number, file: string): Plan[] {
  const plans: Plan[] = [];
  for (const def of t.columns) {
    const field = tree.children.find((c) => c.element.name === def.name);
    if (field) plans.push(planColumn(def, field, tree, rows, leafValues(meta, field), file));
  }
  return plans;
}

/** The table's columns, `rows` rows each, once every plan's sink has its rows. */
export function tableColumns(t: TableSchema, plans: readonly Plan[], rows: number): Column[] {
  return t.columns.map((def) => plans.find((p) => p.def === def)?.sink.column() ?? nullColumn(def.type, rows));
}

// ---------------------------------------------------------------------------------------------
// Which Parquet columns each Tickscope type accepts

type Unit = 'MILLIS' | 'MICROS' | 'NANOS';
const UNIT_NS: Record<Unit, number> = { MILLIS: 1_000_000, MICROS: 1_000, NANOS: 1 };

function timestampUnit(el: SchemaElement): Unit | undefined {
  const lt = el.logical_type;
  if (el.type !== 'INT64') return undefined;
  if (lt?.type === 'TIMESTAMP') return lt.unit;
  if (el.converted_type === 'TIMESTAMP_MILLIS') return 'MILLIS';
  if (el.converted_type === 'TIMESTAMP_MICROS') return 'MICROS';
  return undefined;
}

function timeUnit(el: SchemaElement): Unit | undefined {
  const lt = el.logical_type;
  if (lt?.type === 'TIME') return lt.unit;
  if (el.converted_type === 'TIME_MILLIS') return 'MILLIS';
  if (el.converted_type === 'TIME_MICROS') return 'MICROS';
  return undefined;
}

const INTEGER_ANNOTATIONS = new Set(['INT_8', 'INT_16', 'INT_32', 'INT_64', 'UINT_8', 'UINT_16', 'UINT_32', 'UINT_64']);

/** An INT32/INT64 column holding plain integers (no annotation, or an integer one); 'u' if unsigned. */
function integerKind(el: SchemaElement): 's' | 'u' | undefined {
  if (el.type !== 'INT32' && el.type !== 'INT64') return undefined;
  const lt = el.logical_type;
  if (lt && lt.type !== 'INTEGER') return undefined;
  if (el.converted_type && !INTEGER_ANNOTATIONS.has(el.converted_type)) return undefined;
  const unsigned = (lt?.type === 'INTEGER' && !lt.isSigned) || el.converted_type?.startsWith('UINT_');
  return unsigned ? 'u' : 's';
}

/** The scale of a DECIMAL held in an INT32 or INT64 (DuckDB's and Spark's up to 18 digits). */
function decimalScale(el: SchemaElement): number | undefined {
  if (el.type !== 'INT32' && el.type !== 'INT64') return undefined;
  if (el.logical_type?.type === 'DECIMAL') return el.logical_type.scale;
  return el.converted_type === 'DECIMAL' ? (el.scale ?? 0) : undefined;
}

const isFloating = (el: SchemaElement): boolean => (el.type === 'DOUBLE' || el.type === 'FLOAT') && !el.logical_type && !el.converted_type;

function isText(el: SchemaElement): boolean {
  if (el.type !== 'BYTE_ARRAY') return false;
  const lt = el.logical_type?.type;
  const ct = el.converted_type;
  // unannotated BYTE_ARRAY is how older writers (Hive, Impala) store strings
  return (lt === undefined || lt === 'STRING' || lt === 'ENUM' || lt === 'JSON') && (ct === undefined || ct === 'UTF8' || ct === 'ENUM' || ct === 'JSON');
}

const EXPECTED: Record<ColumnType, string> = {
  timestamp: 'INT64 TIMESTAMP (NANOS, MICROS or MILLIS) or INT96',
  timespan: 'INT64 (nanoseconds) or TIME',
  date: 'INT32 DATE',
  symbol: 'BYTE_ARRAY UTF8 (STRING)',
  string: 'BYTE_ARRAY UTF8 (STRING)',
  float: 'DOUBLE, FLOAT, DECIMAL (in INT32 or INT64) or an integer type',
  long: 'INT64, INT32 or DOUBLE holding whole numbers',
  int: 'INT32, or INT64 or DOUBLE holding whole numbers within ±2147483647',
  boolean: 'BOOLEAN',
  'float[]': 'a LIST of DOUBLE, FLOAT, DECIMAL (in INT32 or INT64) or an integer type',
  'long[]': 'a LIST of INT64, INT32 or DOUBLE holding whole numbers',
};

/** How a Parquet column reads: its type and annotation, as in the Parquet format's names. */
function describe(field: SchemaTree): string {
  if (field.children.length) {
    const chain = singleChain(field);
    if (!chain) return field.element.converted_type === 'MAP' || field.element.logical_type?.type === 'MAP' ? 'MAP' : 'struct (group)';
    const leaf = chain.at(-1)!;
    const repeated = chain.filter((n) => n.element.repetition_type === 'REPEATED').length;
    return repeated === 1 ? `LIST of ${describe(leaf)}` : repeated > 1 ? 'LIST of LISTs' : 'struct (group)';
  }
  const el = field.element;
  const lt = el.logical_type;
  const note =
    lt?.type === 'TIMESTAMP' || lt?.type === 'TIME'
      ? `${lt.type} ${lt.unit}`
      : lt?.type === 'INTEGER'
        ? `INTEGER(${lt.bitWidth}, ${lt.isSigned ? 'signed' : 'unsigned'})`
        : lt?.type === 'DECIMAL'
          ? `DECIMAL(${lt.precision}, ${lt.scale})`
          : (lt?.type ?? el.converted_type);
  const repeated = el.repetition_type === 'REPEATED' ? 'repeated ' : '';
  return `${repeated}${el.type ?? 'group'}${note ? ` (${note})` : ''}`;
}

/** The nodes from `field` down to its one leaf, or undefined when a node has several children. */
function singleChain(field: SchemaTree): SchemaTree[] | undefined {
  const chain = [field];
  let node = field;
  while (node.children.length) {
    if (node.children.length !== 1) return undefined;
    node = node.children[0]!;
    chain.push(node);
  }
  return chain;
}

/** Matches a Parquet field to a table column: the sink that converts it, or an error naming both types. */
function planColumn(def: ColumnDef, field: SchemaTree, root: SchemaTree, rows: number, leafEntries: number, file: string): Plan {
  const mismatch = (): never => fail(`${file}: column ${def.name} is Parquet ${describe(field)}; a ${def.type} column takes ${EXPECTED[def.type]}`);
  const chain = singleChain(field);
  if (!chain) return mismatch();
  const leaf = chain.at(-1)!;
  const el = leaf.element;
  const schemaPath = [root, ...chain];
  const repeated = chain.filter((n) => n.element.repetition_type === 'REPEATED').length;
  const isList = def.type === 'float[]' || def.type === 'long[]';
  if (isList ? repeated !== 1 : chain.length !== 1 || repeated !== 0) return mismatch();
  let maxDef = 0;
  let elementDef = 0;
  for (const node of chain) {
    if (node.element.repetition_type !== 'REQUIRED') maxDef++;
    if (node.element.repetition_type === 'REPEATED') elementDef = maxDef;
  }
  const int = integerKind(el);
  const scale = decimalScale(el);
  const sink = ((): Sink | undefined => {
    switch (def.type) {
      case 'float':
        if (scale !== undefined) return new NumberSink('float', rows, NaN, maxDef, (v) => toFloats(v, false, 10 ** scale));
        return isFloating(el) || int ? new NumberSink('float', rows, NaN, maxDef, (v) => toFloats(v, int === 'u')) : undefined;
      case 'int':
        return isFloating(el) || int ? new NumberSink('int', rows, INT32_MIN, maxDef, (v) => toInts(v, int === 'u', 'int')) : undefined;
      case 'date':
        return el.type === 'INT32' && (el.logical_type?.type === 'DATE' || el.converted_type === 'DATE')
          ? new NumberSink('date', rows, INT32_MIN, maxDef, (v) => toInts(v, false, 'date'))
          : undefined;
      case 'boolean':
        // a boolean column has no null: a Parquet null reads as false
        return el.type === 'BOOLEAN' ? new NumberSink('boolean', rows, 0, maxDef, toBooleans) : undefined;
      case 'long':
        return isFloating(el) || int ? new Int64Sink('long', rows, maxDef, (v) => toLongs(v, int === 'u', 1, 'long')) : undefined;
      case 'timestamp': {
        // isAdjustedToUTC=false (a local time without a zone) reads as UTC, as Arrow's zone-less timestamps do
        const unit = timestampUnit(el);
        if (unit) return new Int64Sink('timestamp', rows, maxDef, (v) => toLongs(v, false, UNIT_NS[unit], 'timestamp'));
        return el.type === 'INT96' && !el.logical_type && !el.converted_type ? new Int64Sink('timestamp', rows, maxDef, fromInt96) : undefined;
      }
      case 'timespan': {
        const unit = timeUnit(el);
        if (unit && (el.type === 'INT64' || el.type === 'INT32')) return new Int64Sink('timespan', rows, maxDef, (v) => toLongs(v, false, UNIT_NS[unit], 'timespan'));
        return int ? new Int64Sink('timespan', rows, maxDef, (v) => toLongs(v, int === 'u', 1, 'timespan')) : undefined;
      }
      case 'symbol':
        return isText(el) ? new SymbolSink(rows, maxDef) : undefined;
      case 'string':
        return isText(el) ? new StringSink(rows, maxDef) : undefined;
      case 'float[]':
        if (scale !== undefined) return new ListSink(def.type, rows, leafEntries, maxDef, elementDef, (v) => toFloats(v, false, 10 ** scale));
        return isFloating(el) || int ? new ListSink(def.type, rows, leafEntries, maxDef, elementDef, (v) => toFloats(v, int === 'u')) : undefined;
      case 'long[]':
        return isFloating(el) || int ? new ListSink(def.type, rows, leafEntries, maxDef, elementDef, (v) => wholeFloats(v, int === 'u')) : undefined;
    }
  })();
  if (!sink) return mismatch();
  return { def, leaf, schemaPath, sink };
}



// ---------------------------------------------------------------------------------------------
// Conversions from physical values (hyparquet's decoded arrays) to column representations

/** Marks bad entries of a conversion, allocating only when there is one. */
class BadMarks {
  marks: Uint8Array | undefined;
  constructor(private readonly n: number) {}
  mark(k: number): void {
    (this.marks ??= new Uint8Array(this.n))[k] = 1;
  }
}

/** Entry k of physical values as text for an error (unsigned ones as such: ≥ 2^63 reads negative). */
function shown(v: DecodedArray, k: number, unsigned: boolean): string {
  const x: unknown = v[k];
  if (typeof x === 'bigint') return String(unsigned ? BigInt.asUintN(64, x) : x);
  return String(unsigned && v instanceof Int32Array ? (x as number) >>> 0 : x);
}

/**
 * float values; a DECIMAL's unscaled integers divided by 10^scale (`divisor`): one correctly rounded
 * division of two exact doubles, so the nearest float64 to the decimal (its integer within ±2^53).
 */
function toFloats(v: DecodedArray, unsigned: boolean, divisor = 1): Converted<Float64Array> {
  if (v instanceof Float64Array) return { data: v };
  const out = new Float64Array(v.length);
  if (v instanceof BigInt64Array) {
    for (let k = 0; k < v.length; k++) out[k] = Number(unsigned ? BigInt.asUintN(64, v[k]!) : v[k]!);
  } else if (v instanceof Int32Array && unsigned) {
    for (let k = 0; k < v.length; k++) out[k] = v[k]! >>> 0;
  } else {
    for (let k = 0; k < v.length; k++) out[k] = Number(v[k]);
  }
  if (divisor !== 1) for (let k = 0; k < out.length; k++) out[k]! /= divisor;
  return { data: out };
}

/** int or date values: whole doubles and int64s within int32 are taken; INT32_MIN is the null, not a value. */
function toInts(v: DecodedArray, unsigned: boolean, type: 'int' | 'date'): Converted<Int32Array> {
  const bad = new BadMarks(v.length);
  let out: Int32Array;
  if (v instanceof Int32Array) {
    out = v;
    for (let k = 0; k < v.length; k++) if (v[k] === INT32_MIN || (unsigned && v[k]! < 0)) bad.mark(k);
  } else {
    out = new Int32Array(v.length);
    for (let k = 0; k < v.length; k++) {
      const x: unknown = v[k];
      const num = typeof x === 'bigint' ? Number(unsigned ? BigInt.asUintN(64, x) : x) : Number(x);
      if (num !== num) out[k] = INT32_MIN; // a NaN double: null
      else if (Number.isInteger(num) && num > INT32_MIN && num <= 2147483647) out[k] = num;
      else bad.mark(k);
    }
  }
  const why =
    type === 'date'
      ? (k: number): string => `${shown(v, k, false)} is not a date (days since 1970-01-01 within ±2147483647)`
      : (k: number): string => `${shown(v, k, unsigned)} is not an int (a whole number within ±2147483647)`;
  return { data: out, bad: bad.marks, why };
}

function toBooleans(v: DecodedArray): Converted<Uint8Array> {
  const out = new Uint8Array(v.length);
  for (let k = 0; k < v.length; k++) out[k] = v[k] ? 1 : 0;
  return { data: out };
}

const RANGE: Record<'long' | 'timestamp' | 'timespan', string> = {
  long: 'outside the long range (±9223372036854775807)',
  timestamp: 'outside the timestamp range (1677-09-21 to 2262-04-11 in nanoseconds)',
  timespan: 'outside the timespan range (±292 years in nanoseconds)',
};
const UNIT_TEXT: Record<number, string> = { 1: '', 1000: ' µs', 1000000: ' ms' };

/**
 * int64 values times `scale` (nanoseconds per unit), on the 32-bit words: the low word times the
 * scale is exact in float64 (< 2^52), its carry goes to the high word, and a high word beyond int32
 * is an overflow. INT64_MIN is the null, never a value. Whole doubles are taken (a pandas integer
 * column with missing values is float64; NaN is its null).
 */
function toLongs(v: DecodedArray, unsigned: boolean, scale: number, type: 'long' | 'timestamp' | 'timespan'): Converted<BigInt64Array> {
  const n = v.length;
  const bad = new BadMarks(n);
  const why = (k: number): string => {
    const x: unknown = v[k];
    if (typeof x === 'number' && !Number.isInteger(x)) return `${shown(v, k, unsigned)} is not a ${type} (a whole number)`;
    if (typeof x === 'bigint' && x === -9223372036854775808n && !unsigned) return `${x} is the int64 null (0N), not a value; write a Parquet null instead`;
    return `${shown(v, k, unsigned)}${UNIT_TEXT[scale] ?? ''} is ${RANGE[type]}`;
  };
  if (v instanceof BigInt64Array && scale === 1) {
    const w = new Int32Array(v.buffer, v.byteOffset, n * 2);
    for (let k = 0; k < n; k++) if ((w[2 * k + 1] === INT32_MIN && w[2 * k] === 0) || (unsigned && w[2 * k + 1]! < 0)) bad.mark(k);
    return { data: v, bad: bad.marks, why };
  }
  const out = new BigInt64Array(n);
  const o = new Int32Array(out.buffer);
  if (v instanceof BigInt64Array) {
    const w = new Int32Array(v.buffer, v.byteOffset, n * 2);
    for (let k = 0; k < n; k++) {
      const p = (w[2 * k]! >>> 0) * scale;
      const carry = Math.floor(p / TWO32);
      const hi = w[2 * k + 1]! * scale + carry;
      const lo = p - carry * TWO32;
      if (hi > 2147483647 || hi < INT32_MIN || (hi === INT32_MIN && lo === 0) || (unsigned && w[2 * k + 1]! < 0)) {
        bad.mark(k);
        o[2 * k + 1] = INT32_MIN;
      } else {
        o[2 * k] = lo | 0;
        o[2 * k + 1] = hi;
      }
    }
    return { data: out, bad: bad.marks, why };
  }
  // INT32 (times any scale stays below 2^53, so float64 is exact) or doubles
  for (let k = 0; k < n; k++) {
    let x = Number(v[k]);
    if (unsigned) x >>>= 0;
    if (x !== x) {
      o[2 * k + 1] = INT32_MIN; // a NaN double: null
      continue;
    }
    x *= scale;
    if (!Number.isSafeInteger(x)) {
      bad.mark(k);
      o[2 * k + 1] = INT32_MIN;
      continue;
    }
    const hi = Math.floor(x / TWO32);
    o[2 * k] = (x - hi * TWO32) | 0;
    o[2 * k + 1] = hi;
  }
  return { data: out, bad: bad.marks, why };
}

const JULIAN_EPOCH_DAY = 2440588n; // Julian day number of 1970-01-01
const NS_PER_DAY = 86_400_000_000_000n;

/** Legacy INT96 timestamps (Impala, Spark, older pandas): Julian day and nanoseconds of that day. */
function fromInt96(v: DecodedArray): Converted<BigInt64Array> {
  const out = new BigInt64Array(v.length);
  const bad = new BadMarks(v.length);
  for (let k = 0; k < v.length; k++) {
    const x = v[k] as bigint;
    const ns = ((x >> 64n) - JULIAN_EPOCH_DAY) * NS_PER_DAY + BigInt.asUintN(64, x);
    if (ns <= -9223372036854775808n || ns > 9223372036854775807n) {
      bad.mark(k);
      out[k] = -9223372036854775808n;
    } else out[k] = ns;
  }
  return { data: out, bad: bad.marks, why: (k) => `INT96 ${String(v[k])} is ${RANGE.timestamp}` };
}

/** long[] elements: held as float64 (storage.md), so whole numbers within ±2^53. */
function wholeFloats(v: DecodedArray, unsigned: boolean): Converted<Float64Array> {
  const bad = new BadMarks(v.length);
  const out = new Float64Array(v.length);
  for (let k = 0; k < v.length; k++) {
    const x: unknown = v[k];
    const num = typeof x === 'bigint' ? Number(unsigned ? BigInt.asUintN(64, x) : x) : unsigned ? Number(x) >>> 0 : Number(x);
    if (num !== num) out[k] = NaN;
    else if (Number.isSafeInteger(num) && (typeof x !== 'bigint' || BigInt(num) === (unsigned ? BigInt.asUintN(64, x) : x))) out[k] = num;
    else bad.mark(k);
  }
  const why = (k: number): string =>
    typeof v[k] === 'number' && !Number.isInteger(v[k])
      ? `${shown(v, k, unsigned)} is not a whole number, as a long[] element must be`
      : `${shown(v, k, unsigned)} is beyond ±9007199254740991, the range of a long[] element`;
  return { data: out, bad: bad.marks, why };
}
