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
  Schema,
  Struct,
  Table as ArrowTable,
  TimestampNanosecond,
  tableToIPC,
  Utf8,
  type Data,
  type DataType,
} from 'apache-arrow';
import { type Column, floats, int32Pairs } from '../core/column.js';
import type { Table } from '../core/table.js';
import { type Dict, Utf8Dict } from '../core/dict.js';
import { FileDict } from '../storage/stored-column.js';
import { dictBytes } from '../output/dict-bytes.js';

/** Validity bitmap (bit set = valid) and null count from a per-row null test. */
function validity(n: number, isNull: (i: number) => boolean): { nullBitmap: Uint8Array; nullCount: number } {
  const nullBitmap = new Uint8Array(Math.ceil(n / 8)).fill(0xff);
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    if (isNull(i)) {
      nullBitmap[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    }
  }
  return { nullBitmap, nullCount };
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
    const w = int32Pairs(c.data);
    return makeData({ type: new Int64(), length: n, data: c.data, ...validity(n, (i) => w[2 * i + 1] === -2147483648 && w[2 * i] === 0) }) as Data<DataType>;
  }
  if (opts.exact && c.type === 'int') {
    return makeData({ type: new Int32(), length: n, data: c.data, ...validity(n, (i) => c.data[i] === -2147483648) }) as Data<DataType>;
  }
  switch (c.type) {
    case 'float':
    case 'long':
    case 'int': {
      // the renderer charts numbers: longs and ints travel as float64 (exact within ±2^53)
      const data = floats(c);
      return makeData({ type: new Float64(), length: n, data, ...validity(n, (i) => data[i] !== data[i]) });
    }
    case 'timestamp':
    case 'timespan': {
      const w = int32Pairs(c.data);
      const v = validity(n, (i) => w[2 * i + 1] === -2147483648 && w[2 * i] === 0);
      return c.type === 'timestamp'
        ? (makeData({ type: new TimestampNanosecond(opts.zone ?? null), length: n, data: c.data, ...v }) as Data<DataType>)
        : (makeData({ type: new DurationNanosecond(), length: n, data: c.data, ...v }) as Data<DataType>);
    }
    case 'date':
      return makeData({ type: new DateDay(), length: n, data: c.data, ...validity(n, (i) => c.data[i] === -2147483648) });
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
        ...validity(n, (i) => d.empty[d.codes[i]!] === 1),
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
