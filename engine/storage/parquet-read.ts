/**
 * `tickscope import` of Parquet files (SPEC 8). Columns are matched to the table's by name and decoded
 * row group by row group, page by page, straight into the engine's column layout: int64 words for
 * timestamps, timespans and longs, float64 and int32 arrays, symbol codes into a UTF-8 dictionary
 * per column. hyparquet parses the footer and decodes pages (every encoding, V1 and V2 data pages) and
 * hyparquet-compressors decompresses them; the conversion to Tickscope types is ours, so that
 *
 * - no value becomes a JS object per row (hyparquet's own row assembly turns every timestamp into a
 *   Date and every dictionary entry into a per-row reference; 1M rows of 14 columns would be 14M),
 * - timestamps are widened exactly (MILLIS/MICROS times 10^6/10^3 on the int64's 32-bit words, never
 *   through float milliseconds), and
 * - a dictionary-encoded column is converted once per dictionary, then by index.
 *
 * Everything is checked before anything is written: the first bad value is reported with its file
 * row, row group and column, and a damaged file with its row group and column.
 */
import { createRequire } from 'node:module';
import type { ColumnMetaData, Compressors, DecodedArray, FileMetaData, SchemaElement, SchemaTree } from 'hyparquet';
import type { Column, ColumnType } from '../core/column.js';
import { dictOf } from '../core/dict.js';
import { TickscopeError } from '../core/errors.js';
import { Table, type ColumnDef } from '../core/table.js';
import type { TableSchema } from './schema.js';
import { Utf8Interner } from './utf8-interner.js';

type ParquetMetadataFn = typeof import('hyparquet/src/metadata.js').parquetMetadata;
type ParquetSchemaFn = typeof import('hyparquet/src/metadata.js').parquetSchema;
type ParquetHeaderFn = typeof import('hyparquet/src/column.js').parquetHeader;
type DataPageModule = typeof import('hyparquet/src/datapage.js');
type ReadPlainFn = typeof import('hyparquet/src/plain.js').readPlain;
type ColumnDecoder = Parameters<DataPageModule['readDataPage']>[2];

interface Hyparquet {
  readonly parquetMetadata: ParquetMetadataFn;
  readonly parquetSchema: ParquetSchemaFn;
  readonly parquetHeader: ParquetHeaderFn;
  readonly decompressPage: DataPageModule['decompressPage'];
  readonly readDataPage: DataPageModule['readDataPage'];
  readonly readDataPageV2: DataPageModule['readDataPageV2'];
  readonly readPlain: ReadPlainFn;
  readonly parsers: ColumnDecoder['parsers'];
  readonly compressors: Compressors;
}

let loaded: Hyparquet | undefined;

/**
 * hyparquet's modules, loaded on the first Parquet import: they are ES modules, which cost ~50 ms to
 * load with the decompressors, and storage/import.ts is loaded by every `tickscope serve` (remote
 * connections read Arrow through it), so they must not load with it. The page-level modules are
 * the package's exported `src/*.js` paths (package.json pins the version).
 */
function hyparquet(): Hyparquet {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const metadata = require('hyparquet/src/metadata.js') as typeof import('hyparquet/src/metadata.js');
    const column = require('hyparquet/src/column.js') as typeof import('hyparquet/src/column.js');
    const datapage = require('hyparquet/src/datapage.js') as DataPageModule;
    const plain = require('hyparquet/src/plain.js') as typeof import('hyparquet/src/plain.js');
    const convert = require('hyparquet/src/convert.js') as typeof import('hyparquet/src/convert.js');
    const { compressors } = require('hyparquet-compressors') as typeof import('hyparquet-compressors');
    loaded = {
      parquetMetadata: metadata.parquetMetadata,
      parquetSchema: metadata.parquetSchema,
      parquetHeader: column.parquetHeader,
      decompressPage: datapage.decompressPage,
      readDataPage: datapage.readDataPage,
      readDataPageV2: datapage.readDataPageV2,
      readPlain: plain.readPlain,
      parsers: convert.DEFAULT_PARSERS,
      compressors,
    };
  }
  return loaded;
}

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

const TWO32 = 4294967296;
const INT32_MIN = -2147483648;

/** One decoded data page: `n` level entries (one per row in a flat column), and the non-null values. */
interface Page {
  readonly n: number;
  /** Definition levels; empty or undefined when every entry is defined. */
  readonly def: ArrayLike<number> | undefined;
  readonly rep: ArrayLike<number>;
  /** The non-null values, or their dictionary indices when `indexed`. */
  readonly values: DecodedArray;
  readonly indexed: boolean;
}

/**
 * Physical values converted to a column's representation. Conversion never throws: an entry that
 * cannot be a value of the column is marked in `bad`, and reported only when a row uses it, so the
 * error names that row (a dictionary is converted before any row refers to it).
 */
interface Converted<T> {
  readonly data: T;
  readonly bad?: Uint8Array | undefined;
  /** Why entry k is bad. */
  readonly why?: ((k: number) => string) | undefined;
}

/** Marks bad entries of a conversion, allocating only when there is one. */
class BadMarks {
  marks: Uint8Array | undefined;
  constructor(private readonly n: number) {}
  mark(k: number): void {
    (this.marks ??= new Uint8Array(this.n))[k] = 1;
  }
}

/** Receives a column chunk's dictionary and pages and fills the column's arrays. */
interface Sink {
  /** Converts a dictionary page's or plain page's values (see Converted). */
  convert(values: DecodedArray): Converted<unknown>;
  /** Rows from one page, the first of them file row `row`; returns how many rows the page starts. */
  put(row: number, page: Page, src: Converted<unknown>, at: (row: number) => string): number;
  column(): Column;
  /** Called before each column chunk (a list's first entry there must start a row). */
  startChunk?(): void;
}

/** Where a Parquet column lands, and how its levels read. */
interface Plan {
  readonly def: ColumnDef;
  readonly leaf: SchemaTree;
  readonly schemaPath: SchemaTree[];
  readonly sink: Sink;
}

/**
 * A file's bytes as an ArrayBuffer of their own: readFileSync's Buffer is one for a large file, and
 * a view into Node's shared pool for a small one (copied then; Buffer#slice would not copy).
 */
function wholeBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return new Uint8Array(bytes).buffer;
}

/** Reads a Parquet file into a table with the target table's columns (absent columns are null). */
export function parseParquet(t: TableSchema, bytes: Uint8Array, file: string): Table {
  const h = hyparquet();
  const buffer = wholeBuffer(bytes);
  let meta: FileMetaData;
  let tree: SchemaTree;
  try {
    meta = h.parquetMetadata(buffer);
    tree = h.parquetSchema(meta);
  } catch (e) {
    return fail(`${file}: not a Parquet file, or one cut short (${(e as Error).message})`);
  }
  const names = tree.children.map((c) => c.element.name);
  names.forEach((name, j) => {
    if (!t.columns.some((c) => c.name === name)) fail(`${file}: column ${name} is not a column of ${t.name}; expected names from ${t.columns.map((c) => c.name).join(', ')}`);
    if (names.indexOf(name) !== j) fail(`${file}: column ${name} appears twice`);
  });
  for (const required of [t.timeColumn, t.idColumn]) {
    if (required && !names.includes(required)) fail(`${file}: lacks column ${required}, which every ${t.name} row needs`);
  }

  const rows = Number(meta.num_rows);
  const groups = meta.row_groups;
  const groupStart = [0];
  for (const g of groups) groupStart.push(groupStart.at(-1)! + Number(g.num_rows));
  if (groupStart.at(-1) !== rows) fail(`${file}: damaged: its row groups hold ${groupStart.at(-1)} rows, its footer says ${rows}`);
  const where = (g: number): string => `row group ${g + 1} of ${groups.length}`;
  const groupOf = (row: number): number => {
    let g = 0;
    while (groupStart[g + 1]! <= row) g++;
    return g;
  };
  const at = (name: string) => (row: number): string => `${file}: row ${row + 1} (${where(groupOf(row))}), column ${name}`;

  // every column is checked against the file's schema before any page is decoded
  const plans: Plan[] = [];
  for (const def of t.columns) {
    const field = tree.children.find((c) => c.element.name === def.name);
    if (field) plans.push(planColumn(def, field, tree, rows, leafValues(meta, field), file));
  }

  for (let g = 0; g < groups.length; g++) {
    const group = groups[g]!;
    const groupRows = Number(group.num_rows);
    if (groupRows === 0) continue;
    for (const plan of plans) {
      const name = plan.def.name;
      const chunk = group.columns.find((c) => c.meta_data && samePath(c.meta_data.path_in_schema, plan.leaf.path));
      const damaged = (why: string): never => fail(`${file}: ${where(g)}, column ${name}: damaged (${why})`);
      if (!chunk?.meta_data) return damaged('the row group has no data for it');
      if (chunk.file_path) return fail(`${file}: column ${name} keeps its data in another file (${chunk.file_path}); only self-contained Parquet files can be imported`);
      let row = groupStart[g]!;
      const end = groupStart[g + 1]!;
      plan.sink.startChunk?.();
      try {
        readChunk(h, buffer, chunk.meta_data, plan, (page, src) => {
          row += plan.sink.put(row, page, src, at(name));
        });
      } catch (e) {
        if (e instanceof TickscopeError) throw e;
        damaged((e as Error).message);
      }
      if (row !== end) damaged(`${row - groupStart[g]!} rows where the row group has ${groupRows}`);
    }
  }

  const columns = t.columns.map((def) => plans.find((p) => p.def === def)?.sink.column() ?? nullColumn(def.type, rows));
  const time = t.timeColumn ? columns[t.columns.findIndex((c) => c.name === t.timeColumn)] : undefined;
  if (time?.type === 'timestamp') {
    const w = new Int32Array(time.data.buffer, time.data.byteOffset, time.data.length * 2);
    for (let i = 0; i < rows; i++) {
      if (w[2 * i + 1] === INT32_MIN && w[2 * i] === 0) fail(`${at(t.timeColumn!)(i)}: null; every ${t.name} row needs its time column`);
    }
  }
  return new Table(t.columns.map((c) => c.name), columns, rows);
}

const samePath = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);

/** Level entries of a field's leaf over all row groups (the capacity a list column's values need). */
function leafValues(meta: FileMetaData, field: SchemaTree): number {
  let leaf = field;
  while (leaf.children.length === 1) leaf = leaf.children[0]!;
  let n = 0;
  for (const g of meta.row_groups) {
    for (const c of g.columns) if (c.meta_data && samePath(c.meta_data.path_in_schema, leaf.path)) n += Number(c.meta_data.num_values);
  }
  return n;
}

/**
 * Decodes one column chunk: its dictionary page (converted once) and data pages, in order. Stops
 * after the chunk's declared value count; a chunk that ends before it is damaged.
 */
function readChunk(h: Hyparquet, buffer: ArrayBuffer, meta: ColumnMetaData, plan: Plan, onPage: (page: Page, src: Converted<unknown>) => void): void {
  // Some writers record a dictionary offset of 0 for "none" (hyparquet reads them the same way).
  const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
  const size = Number(meta.total_compressed_size);
  if (!(start >= 4 && size >= 0 && start + size <= buffer.byteLength)) throw new Error(`its bytes ${start}..${start + size} lie outside the file's ${buffer.byteLength}`);
  const reader = { view: new DataView(buffer, start, size), offset: 0 };
  const decoder: ColumnDecoder = {
    pathInSchema: meta.path_in_schema,
    type: meta.type,
    element: plan.leaf.element,
    schemaPath: plan.schemaPath,
    codec: meta.codec,
    parsers: h.parsers,
    compressors: h.compressors,
  };
  const total = Number(meta.num_values);
  let seen = 0;
  let dictionary: Converted<unknown> | undefined;
  while (seen < total) {
    if (reader.offset >= size) throw new Error(`the column chunk ends after ${seen} of its ${total} values`);
    const header = h.parquetHeader(reader);
    const length = header.compressed_page_size;
    if (!(length >= 0 && reader.offset + length <= size)) throw new Error(`a page of ${length} bytes runs past the column chunk`);
    const body = new Uint8Array(buffer, start + reader.offset, length);
    reader.offset += length;
    if (header.type === 'DICTIONARY_PAGE') {
      const dph = header.dictionary_page_header;
      if (!dph) throw new Error('a dictionary page without its header');
      const page = h.decompressPage(body, header.uncompressed_page_size, meta.codec, h.compressors);
      const values = h.readPlain({ view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 }, meta.type, dph.num_values, plan.leaf.element.type_length);
      dictionary = plan.sink.convert(values);
    } else if (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
      const v1 = header.data_page_header;
      const v2 = header.data_page_header_v2;
      const encoding = v1?.encoding ?? v2?.encoding;
      const n = v1?.num_values ?? v2?.num_values;
      if (encoding === undefined || n === undefined) throw new Error('a data page without its header');
      const { definitionLevels, repetitionLevels, dataPage } = v1
        ? h.readDataPage(h.decompressPage(body, header.uncompressed_page_size, meta.codec, h.compressors), v1, decoder)
        : h.readDataPageV2(body, header, decoder);
      const indexed = encoding === 'PLAIN_DICTIONARY' || encoding === 'RLE_DICTIONARY';
      if (indexed && !dictionary) throw new Error('a dictionary-encoded page before any dictionary page');
      const src = indexed ? dictionary! : plan.sink.convert(dataPage);
      // V1 pages drop their definition levels when nothing is null; V2 pages always carry them, but
      // say how many nulls there are, and none is the common case the sinks copy in bulk
      const def = v2?.num_nulls === 0 ? undefined : definitionLevels;
      onPage({ n, def, rep: repetitionLevels, values: dataPage, indexed }, src);
      seen += n;
    }
    // index pages and unknown page types carry no values
  }
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

/** An int64 column of nulls (INT64_MIN), set on the high words (a BigInt fill costs ~100 ms a million). */
function nullInt64(rows: number): BigInt64Array {
  const out = new BigInt64Array(rows);
  const w = new Int32Array(out.buffer);
  for (let i = 1; i < w.length; i += 2) w[i] = INT32_MIN;
  return out;
}

/** A column the file lacks: every row null. */
function nullColumn(type: ColumnType, rows: number): Column {
  switch (type) {
    case 'float':
      return { type, data: new Float64Array(rows).fill(NaN) };
    case 'int':
    case 'date':
      return { type, data: new Int32Array(rows).fill(INT32_MIN) };
    case 'boolean':
      return { type, data: new Uint8Array(rows) };
    case 'long':
    case 'timestamp':
    case 'timespan':
      return { type, data: nullInt64(rows) };
    case 'symbol':
      return { type, codes: new Int32Array(rows), dict: dictOf(['']) };
    case 'string':
      return { type, values: new Array<string>(rows).fill('') };
    case 'float[]':
    case 'long[]':
      return { type, offsets: new Int32Array(rows + 1), values: new Float64Array(0) };
  }
}

// ---------------------------------------------------------------------------------------------
// Conversions from physical values (hyparquet's decoded arrays) to column representations

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

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

// ---------------------------------------------------------------------------------------------
// Sinks: pages to rows

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
class NumberSink implements Sink {
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
class Int64Sink implements Sink {
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
class SymbolSink implements Sink {
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
class StringSink implements Sink {
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
class ListSink implements Sink {
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
