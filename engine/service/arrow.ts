/**
 * A result as Arrow IPC stream bytes, typed: the renderer charts getStats buckets and groups from it
 * without per-row objects. Timestamps are timestamp[ns] (exact int64), symbols dictionary-encoded,
 * numbers float64 (longs included, exact to 2^53), nulls as validity bits.
 */
import {
  Bool,
  DateDay,
  Dictionary,
  DurationNanosecond,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  makeData,
  makeVector,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Table as ArrowTable,
  TimestampNanosecond,
  tableToIPC,
  Utf8,
  type Data,
  type DataType,
} from 'apache-arrow';
import { type Column, floats, gather, int32Pairs } from '../core/column.js';
import type { Table } from '../core/table.js';
import { type Dict, Utf8Dict } from '../core/dict.js';
import { FileDict } from '../storage/stored-column.js';
import { dictBytes } from '../output/dict-bytes.js';

type Validity = { nullBitmap: Uint8Array; nullCount: number };

/** No nulls: no bitmap at all (Arrow reads every row as valid). */
const ALL_VALID: Validity = { nullBitmap: new Uint8Array(0), nullCount: 0 };

/** The bitmap (bit set = valid) once row `first` is found null; rows before it are valid. */
function bitmapFrom(n: number, first: number): Uint8Array {
  const bits = new Uint8Array(Math.ceil(n / 8)).fill(0xff);
  bits[first >> 3]! &= ~(1 << (first & 7));
  return bits;
}

/** Validity bitmap and null count from a per-row null test (the columns of few rows: strings). */
function validity(n: number, isNull: (i: number) => boolean): Validity {
  let bits: Uint8Array | null = null;
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    if (!isNull(i)) continue;
    if (bits) bits[i >> 3]! &= ~(1 << (i & 7));
    else bits = bitmapFrom(n, i);
    nullCount++;
  }
  return bits ? { nullBitmap: bits, nullCount } : ALL_VALID;
}

/** Validity of float64 data: NaN is null (a tight loop; no bitmap without a null). */
function floatValidity(d: Float64Array, n: number): Validity {
  let i = 0;
  while (i < n && d[i] === d[i]) i++;
  if (i === n) return ALL_VALID;
  const bits = bitmapFrom(n, i);
  let nullCount = 1;
  for (i++; i < n; i++) {
    if (d[i] !== d[i]) {
      bits[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    }
  }
  return { nullBitmap: bits, nullCount };
}

/** Validity of 64-bit words (hi, lo pairs): the null is hi = -2^31, lo = 0. */
function wordsValidity(w: Int32Array, n: number): Validity {
  let i = 0;
  while (i < n && !(w[2 * i + 1] === -2147483648 && w[2 * i] === 0)) i++;
  if (i === n) return ALL_VALID;
  const bits = bitmapFrom(n, i);
  let nullCount = 1;
  for (i++; i < n; i++) {
    if (w[2 * i + 1] === -2147483648 && w[2 * i] === 0) {
      bits[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    }
  }
  return { nullBitmap: bits, nullCount };
}

/** Validity of int32 data (ints, dates, or symbol codes against a per-code null mark). */
function intValidity(d: Int32Array, n: number, nullCode?: Uint8Array): Validity {
  const isNull = (x: number): boolean => (nullCode ? nullCode[x] === 1 : x === -2147483648);
  let i = 0;
  while (i < n && !isNull(d[i]!)) i++;
  if (i === n) return ALL_VALID;
  const bits = bitmapFrom(n, i);
  let nullCount = 1;
  for (i++; i < n; i++) {
    if (isNull(d[i]!)) {
      bits[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    }
  }
  return { nullBitmap: bits, nullCount };
}

function utf8Data(values: readonly string[], nulls: boolean): Data<Utf8> {
  const enc = new TextEncoder();
  const parts = values.map((s) => enc.encode(s));
  const valueOffsets = new Int32Array(values.length + 1);
  parts.forEach((p, i) => (valueOffsets[i + 1] = valueOffsets[i]! + p.length));
  const data = new Uint8Array(valueOffsets[values.length]!);
  parts.forEach((p, i) => data.set(p, valueOffsets[i]!));
  const v = nulls ? validity(values.length, (i) => values[i] === '') : { nullBitmap: new Uint8Array(0), nullCount: 0 };
  return makeData({ type: new Utf8(), length: values.length, valueOffsets, data, ...v });
}

/**
 * A symbol column's Arrow dictionary from its dictionary's UTF-8 bytes (no string decoded): every
 * entry, or, when the dictionary is much larger than the rows (a narrow query over nearly unique
 * values such as execution IDs), only the entries the rows use, renumbered in first-use order.
 * `empty[k]` marks the null symbol "" (a null row in Arrow).
 */
function utf8Dictionary(codes: Int32Array, dict: Dict): { codes: Int32Array; offsets: Int32Array; data: Uint8Array; empty: Uint8Array } {
  const n = codes.length;
  let entries: Int32Array;
  let outCodes = codes;
  if (dict.length > 2 * n + 1024) {
    const remap = new Int32Array(dict.length).fill(-1);
    const used: number[] = [];
    outCodes = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const k = codes[i]!;
      let m = remap[k]!;
      if (m < 0) {
        m = remap[k] = used.length;
        used.push(k);
      }
      outCodes[i] = m;
    }
    entries = Int32Array.from(used);
  } else {
    // the whole dictionary: a stored one's own buffers as they are
    const whole = dict instanceof FileDict ? dict.whole() : dict instanceof Utf8Dict && dict.offsets[0] === 0 ? dict : null;
    if (whole) {
      const empty = new Uint8Array(dict.length);
      for (let k = 0; k < dict.length; k++) if (whole.offsets[k + 1] === whole.offsets[k]) empty[k] = 1;
      return { codes, offsets: whole.offsets, data: whole.data, empty };
    }
    entries = Int32Array.from({ length: dict.length }, (_, k) => k);
  }
  const bytes = dictBytes(dict);
  const offsets = new Int32Array(entries.length + 1);
  const empty = new Uint8Array(entries.length);
  for (let e = 0; e < entries.length; e++) {
    bytes.at(entries[e]!);
    const len = bytes.end - bytes.start;
    offsets[e + 1] = offsets[e]! + len;
    if (len === 0) empty[e] = 1;
  }
  const data = new Uint8Array(offsets[entries.length]!);
  for (let e = 0, q = 0; e < entries.length; e++) {
    bytes.at(entries[e]!);
    const src = bytes.data;
    for (let k = bytes.start; k < bytes.end; k++) data[q++] = src[k]!;
  }
  return { codes: outCodes, offsets, data, empty };
}

/** How columns are typed: for the app's charts (numbers as float64), or exact for the gateway. */
export interface ArrowOptions {
  /** longs as Int64 and ints as Int32 (default: every number as float64, for charts) */
  readonly exact?: boolean;
  /** the zone of timestamp columns (Timestamp(ns, zone)); default none */
  readonly zone?: string;
  /** schema metadata (the gateway's header) */
  readonly metadata?: ReadonlyMap<string, string>;
}

/** One column's Arrow data. */
function columnData(c: Column, n: number, opts: ArrowOptions = {}): Data<DataType> {
  if (opts.exact && c.type === 'long') {
    return makeData({ type: new Int64(), length: n, data: c.data, ...wordsValidity(int32Pairs(c.data), n) }) as Data<DataType>;
  }
  if (opts.exact && c.type === 'int') {
    return makeData({ type: new Int32(), length: n, data: c.data, ...intValidity(c.data, n) }) as Data<DataType>;
  }
  switch (c.type) {
    case 'float':
    case 'long':
    case 'int': {
      // the renderer charts numbers: longs and ints travel as float64 (exact within ±2^53)
      const data = floats(c);
      return makeData({ type: new Float64(), length: n, data, ...floatValidity(data, n) });
    }
    case 'timestamp':
    case 'timespan': {
      const v = wordsValidity(int32Pairs(c.data), n);
      return c.type === 'timestamp'
        ? (makeData({ type: new TimestampNanosecond(opts.zone ?? null), length: n, data: c.data, ...v }) as Data<DataType>)
        : (makeData({ type: new DurationNanosecond(), length: n, data: c.data, ...v }) as Data<DataType>);
    }
    case 'date':
      return makeData({ type: new DateDay(), length: n, data: c.data, ...intValidity(c.data, n) });
    case 'boolean': {
      const bits = new Uint8Array(Math.ceil(n / 8));
      for (let i = 0; i < n; i++) if (c.data[i]) bits[i >> 3]! |= 1 << (i & 7);
      return makeData({ type: new Bool(), length: n, data: bits });
    }
    case 'symbol': {
      const d = utf8Dictionary(c.codes, c.dict);
      return makeData({
        type: new Dictionary(new Utf8(), new Int32()),
        length: n,
        data: d.codes,
        dictionary: makeVector(makeData({ type: new Utf8(), length: d.offsets.length - 1, valueOffsets: d.offsets, data: d.data })),
        ...intValidity(d.codes, n, d.empty),
      }) as Data<DataType>;
    }
    case 'string':
      return utf8Data(c.values, true);
    case 'float[]':
    case 'long[]': {
      const child = makeData({ type: new Float64(), length: c.values.length, data: c.values });
      return makeData({ type: new List(new Field('item', new Float64(), true)), length: n, valueOffsets: c.offsets, child });
    }
  }
}

/** The whole table as Arrow IPC stream bytes. */
export function tableToArrow(t: Table, opts: ArrowOptions = {}): Uint8Array {
  const n = t.length;
  const datas = t.columns.map((c) => columnData(c, n, opts));
  const schema = new Schema(
    t.names.map((name, i) => new Field(name, datas[i]!.type, true)),
    opts.metadata ? new Map(opts.metadata) : undefined,
  );
  const struct = makeData({ type: new Struct(schema.fields), length: n, children: datas });
  return tableToIPC(new ArrowTable([new RecordBatch(schema, struct)]), 'stream');
}

/** Rows per record batch of a streamed result: each column's batch stays in cache while it is written. */
export const ARROW_BATCH_ROWS = 1 << 16;

/** A stream writer that hands each piece it writes to `write` (no queue, no concatenation). */
class SinkWriter extends RecordBatchStreamWriter {
  constructor(private readonly sinkWrite: (bytes: Uint8Array) => void) {
    super();
  }

  protected override _write(chunk: Parameters<RecordBatchStreamWriter['_write']>[0]): this {
    if (!this._started) return this;
    if (!ArrayBuffer.isView(chunk)) throw new Error(`Arrow writer: unexpected ${typeof chunk} piece`);
    if (chunk.byteLength > 0) {
      this.sinkWrite(chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this._position += chunk.byteLength;
    }
    return this;
  }
}

/**
 * One column's record-batch data for rows [from, to) of a table, and the Arrow type every batch
 * shares. A symbol column's dictionary is built once, for all the rows, and shared by every batch (the
 * stream carries it once).
 */
function batchColumn(column: Column, index: Int32Array | null, opts: ArrowOptions): { readonly type: DataType; make(from: number, to: number): Data<DataType> } {
  const rows = (from: number, to: number): Column => {
    if (index) return gather(column, index.subarray(from, to));
    switch (column.type) {
      case 'string':
      case 'float[]':
      case 'long[]':
        return gather(column, Int32Array.from({ length: to - from }, (_, k) => from + k));
      case 'symbol':
        return { type: 'symbol', codes: column.codes.subarray(from, to), dict: column.dict };
      default:
        return { type: column.type, data: column.data.subarray(from, to) } as Column;
    }
  };
  if (column.type === 'symbol') {
    const all = index ? (gather(column, index) as typeof column).codes : column.codes;
    const d = utf8Dictionary(all, column.dict);
    const type = new Dictionary(new Utf8(), new Int32());
    const dictionary = makeVector(makeData({ type: new Utf8(), length: d.offsets.length - 1, valueOffsets: d.offsets, data: d.data }));
    return {
      type,
      make: (from, to) => {
        const codes = d.codes.subarray(from, to);
        return makeData({ type, length: to - from, data: codes, dictionary, ...intValidity(codes, to - from, d.empty) }) as Data<DataType>;
      },
    };
  }
  return { type: columnData(rows(0, 0), 0, opts).type, make: (from, to) => columnData(rows(from, to), to - from, opts) };
}

/**
 * A table as an Arrow IPC stream written a record batch at a time through `write` (schema, each
 * symbol column's dictionary once, then batches of ARROW_BATCH_ROWS rows): the columns are gathered a
 * batch at a time and no buffer of the whole stream is made. The same values as tableToArrow.
 */
export function writeArrowStream(t: Table, opts: ArrowOptions, write: (bytes: Uint8Array) => void, batchRows = ARROW_BATCH_ROWS): void {
  const n = t.length;
  if (n === 0) {
    write(tableToArrow(t, opts));
    return;
  }
  const columns = t.sources().map(({ column, index }) => batchColumn(column, index, opts));
  const schema = new Schema(
    t.names.map((name, i) => new Field(name, columns[i]!.type, true)),
    opts.metadata ? new Map(opts.metadata) : undefined,
  );
  const writer = new SinkWriter(write);
  for (let from = 0; from < n; from += batchRows) {
    const to = Math.min(n, from + batchRows);
    const struct = makeData({ type: new Struct(schema.fields), length: to - from, children: columns.map((c) => c.make(from, to)) });
    writer.write(new RecordBatch(schema, struct));
  }
  writer.finish();
}
