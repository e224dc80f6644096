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
  type Vector,
} from 'apache-arrow';
import { type Column, floats, gather, int32Pairs } from '../core/column.js';
import type { Table } from '../core/table.js';
import { type Dict, Utf8Dict } from '../core/dict.js';
import { FileDict } from '../storage/stored-column.js';
import { dictBytes } from './dict-bytes.js';
import { type ArrowJob, batchBuffers, batchBytes, type BatchColumn, BOOL, claimBatch, claimNext, CODE, codeBits, F64, fillBatch, I32, I64, intBits, nanBits, newClaims, ownerOf, streamable, wordBits, WRITER } from './arrow-batch.js';
import type { RenderHelpers } from './parallel-text.js';
import { newRing } from './ring.js';
import { readExactly } from '../storage/parallel-read.js';

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

/** Validity of n rows from a function that marks the nulls in a bitmap and counts them (arrow-batch.ts): no bitmap without a null. */
function validityOf(n: number, nulls: (bits: Uint8Array) => number): Validity {
  const bits = new Uint8Array(Math.ceil(n / 8));
  const nullCount = nulls(bits);
  return nullCount > 0 ? { nullBitmap: bits, nullCount } : ALL_VALID;
}

/** Validity of float64 data: NaN is null. */
const floatValidity = (d: Float64Array, n: number): Validity => validityOf(n, (bits) => nanBits(d.subarray(0, n), bits));

/** Validity of 64-bit words (hi, lo pairs): the null is hi = -2^31, lo = 0. */
const wordsValidity = (w: Int32Array, n: number): Validity => validityOf(n, (bits) => wordBits(w, n, bits));

/** Validity of int32 data (ints, dates, or symbol codes against a per-code null mark). */
const intValidity = (d: Int32Array, n: number, nullCode?: Uint8Array): Validity =>
  nullCode?.length === 0 ? ALL_VALID : validityOf(n, (bits) => (nullCode ? codeBits(d.subarray(0, n), nullCode, bits) : intBits(d.subarray(0, n), bits)));

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

/** An Arrow dictionary: entry offsets and UTF-8 bytes, and `empty[k]` marking the null symbol "" (a null row in Arrow). */
interface ArrowDictionary {
  readonly offsets: Int32Array;
  readonly data: Uint8Array;
  readonly empty: Uint8Array;
}

/** Whether a symbol column's Arrow dictionary holds only the entries its `rows` rows use (a dictionary much larger than the rows). */
const usedOnly = (dict: Dict, rows: number): boolean => dict.length > 2 * rows + 1024;

/**
 * A symbol column's Arrow dictionary from its dictionary's UTF-8 bytes (no string decoded): every
 * entry, or, when the dictionary is much larger than the rows (a narrow query over nearly unique
 * values such as execution IDs), only the entries the rows use, renumbered in first-use order.
 */
function utf8Dictionary(codes: Int32Array, dict: Dict): ArrowDictionary & { codes: Int32Array } {
  return usedOnly(dict, codes.length) ? usedDictionary(codes, dict) : { codes, ...wholeDictionary(dict) };
}

/** The entries `codes` use, in first-use order, and the codes renumbered to them. */
function usedDictionary(codes: Int32Array, dict: Dict): ArrowDictionary & { codes: Int32Array } {
  const n = codes.length;
  const remap = new Int32Array(dict.length).fill(-1);
  const used: number[] = [];
  const outCodes = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const k = codes[i]!;
    let m = remap[k]!;
    if (m < 0) {
      m = remap[k] = used.length;
      used.push(k);
    }
    outCodes[i] = m;
  }
  return { codes: outCodes, ...dictionaryOf(dict, Int32Array.from(used)) };
}

/**
 * Bytes an Arrow stream writes from a file rather than memory: a buffer of this length (never
 * written: its pages cost nothing) stands for them, and SinkWriter copies the file's bytes out when
 * it meets it. A streamed result's dictionary of every entry (FileDict.streamedWhole).
 */
const fileBacked = new WeakMap<ArrayBufferLike, { readonly fd: number; readonly path: string }>();

/** Every entry: a stored dictionary's own buffers as they are (its bytes left in their file, for a streamed result). */
function wholeDictionary(dict: Dict): ArrowDictionary {
  const streamed = dict instanceof FileDict ? dict.streamedWhole() : undefined;
  if (streamed) {
    const data = new Uint8Array(streamed.bytes);
    fileBacked.set(data.buffer, streamed);
    return { offsets: streamed.offsets, data, empty: emptyEntries(streamed.offsets, dict.length) };
  }
  const whole = dict instanceof FileDict ? dict.whole() : dict instanceof Utf8Dict && dict.offsets[0] === 0 ? dict : null;
  if (!whole) return dictionaryOf(dict, Int32Array.from({ length: dict.length }, (_, k) => k));
  return { offsets: whole.offsets, data: whole.data, empty: emptyEntries(whole.offsets, dict.length) };
}

/**
 * 1 for each entry of no bytes (the null symbol), shared: render helpers read it in place (a full
 * day of execution IDs is 2M entries). Without such an entry, no entry at all (no code is null: a
 * 2 MB map of zeros each thread would search).
 */
function emptyEntries(offsets: Int32Array, length: number): Uint8Array {
  let any = false;
  for (let k = 0; k < length && !any; k++) any = offsets[k + 1] === offsets[k];
  const empty = new Uint8Array(new SharedArrayBuffer(any ? length : 0));
  if (any) for (let k = 0; k < length; k++) if (offsets[k + 1] === offsets[k]) empty[k] = 1;
  return empty;
}

/** Entries `entries` of a dictionary, copied into new buffers. */
function dictionaryOf(dict: Dict, entries: Int32Array): ArrowDictionary {
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
  return { offsets, data, empty };
}

const dictionaryVector = (d: ArrowDictionary): Vector<Utf8> => makeVector(makeData({ type: new Utf8(), length: d.offsets.length - 1, valueOffsets: d.offsets, data: d.data }));

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
        dictionary: dictionaryVector(d),
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
      const file = fileBacked.get(chunk.buffer);
      if (file) this.copyFile(file, chunk.byteOffset, chunk.byteLength);
      else this.sinkWrite(chunk instanceof Uint8Array ? chunk : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this._position += chunk.byteLength;
    }
    return this;
  }

  /** Bytes [from, from + length) of a file, written a piece at a time through one buffer. */
  private copyFile(file: { readonly fd: number; readonly path: string }, from: number, length: number): void {
    const piece = new Uint8Array(Math.min(length, 1 << 20));
    for (let done = 0; done < length; ) {
      const n = Math.min(piece.length, length - done);
      readExactly(file.fd, piece.subarray(0, n), from + done, file.path);
      this.sinkWrite(piece.subarray(0, n));
      done += n;
    }
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
    const dictionary = dictionaryVector(d);
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

/** Slots of a render helper's ring: a helper fills up to this many batches ahead of the writer. */
const ARROW_SLOTS = 3;
/** Batches the writer fills ahead of the one it waits for from a helper. */
const AHEAD = 4;

/** How every record batch of a stream is made: each column's source and Arrow type, and symbol columns' dictionaries. */
interface BatchPlan {
  readonly columns: BatchColumn[];
  readonly types: DataType[];
  readonly dictionaries: Array<Vector | null>;
}

/**
 * The plan of a table's batches filled by fillBatch (on this thread or render helpers), or null when
 * a column is not of fixed width (strings, lists) or numbers are not kept exact: those batches are
 * made by batchColumn.
 */
function batchPlan(t: Table, opts: ArrowOptions): BatchPlan | null {
  if (!opts.exact) return null;
  const plan: BatchPlan = { columns: [], types: [], dictionaries: [] };
  const dense = new Map<Int32Array, boolean>();
  for (const { column: c, index, deferred } of t.streamSources()) {
    // a column the query left unread is read a batch at a time where its rows are dense enough (and
    // the column is not a symbol whose used entries are renumbered first, which needs every code)
    const stream = deferred && index && !(c.type === 'symbol' && usedOnly(c.dict, t.length)) && (dense.get(index) ?? dense.set(index, streamable(index, deferred.file.rows)).get(index)!);
    if (deferred && !stream) deferred.load();
    const file = stream ? { file: deferred.file } : {};
    let col: BatchColumn;
    let type: DataType;
    let dictionary: Vector | null = null;
    switch (c.type) {
      case 'float':
        [col, type] = [{ kind: F64, data: c.data, index, nullCode: null, ...file }, new Float64()];
        break;
      case 'timestamp':
      case 'timespan':
      case 'long':
        col = { kind: I64, data: int32Pairs(c.data), index, nullCode: null, ...file };
        type = c.type === 'timestamp' ? new TimestampNanosecond(opts.zone ?? null) : c.type === 'timespan' ? new DurationNanosecond() : new Int64();
        break;
      case 'int':
      case 'date':
        [col, type] = [{ kind: I32, data: c.data, index, nullCode: null, ...file }, c.type === 'int' ? new Int32() : new DateDay()];
        break;
      case 'boolean':
        [col, type] = [{ kind: BOOL, data: c.data, index, nullCode: null }, new Bool()];
        break;
      case 'symbol': {
        // the whole dictionary: the stored codes, gathered a batch at a time; or only the entries
        // used: every row's code renumbered here first
        if (usedOnly(c.dict, t.length)) {
          const d = usedDictionary(index ? (gather(c, index) as typeof c).codes : c.codes, c.dict);
          col = { kind: CODE, data: d.codes, index: null, nullCode: d.empty };
          dictionary = dictionaryVector(d);
        } else {
          const d = wholeDictionary(c.dict);
          col = { kind: CODE, data: c.codes, index, nullCode: d.empty, ...file };
          dictionary = dictionaryVector(d);
        }
        // the id is the column's place: the same result streams as the same bytes
        type = new Dictionary(new Utf8(), new Int32(), plan.columns.length);
        break;
      }
      default:
        return null;
    }
    plan.columns.push(col);
    plan.types.push(type);
    plan.dictionaries.push(dictionary);
  }
  return plan;
}

/** A record batch of `rows` rows whose buffers fillBatch put in `area` (views of it: no copy). */
function batchFrom(schema: Schema, plan: BatchPlan, area: Uint8Array, rows: number): RecordBatch {
  const children = plan.columns.map((c, j) => {
    const { data, bitmap, nullCount } = batchBuffers(area, j, c.kind, rows);
    const v: Validity = bitmap ? { nullBitmap: bitmap, nullCount } : ALL_VALID;
    const type = plan.types[j]!;
    switch (c.kind) {
      case F64:
        return makeData({ type: type as Float64, length: rows, data: new Float64Array(data.buffer, data.byteOffset, rows), ...v }) as Data<DataType>;
      case I64:
        return makeData({ type: type as Int64, length: rows, data: new BigInt64Array(data.buffer, data.byteOffset, rows), ...v }) as Data<DataType>;
      case I32:
        return makeData({ type: type as Int32, length: rows, data: new Int32Array(data.buffer, data.byteOffset, rows), ...v }) as Data<DataType>;
      case BOOL:
        return makeData({ type: type as Bool, length: rows, data }) as Data<DataType>;
      case CODE:
        return makeData({ type: type as Dictionary<Utf8, Int32>, length: rows, data: new Int32Array(data.buffer, data.byteOffset, rows), dictionary: plan.dictionaries[j]! as Vector<Utf8>, ...v }) as Data<DataType>;
    }
  });
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows, children }));
}

/**
 * A table as an Arrow IPC stream written a record batch at a time through `write` (schema, each
 * symbol column's dictionary once, then batches of batchRows rows): the columns are gathered a batch
 * at a time and no buffer of the whole stream is made. The same values as tableToArrow.
 *
 * With `helpers` (render helper threads), a table of fixed-width columns (every one but strings and
 * lists) has its batches filled on them and on this thread, each by whichever is free first (claims
 * in arrow-batch.ts), written here in order: the same bytes as on one thread. `write` must be done
 * with the bytes it is given when it returns (their buffer is filled again). The helpers are closed
 * when it returns. Returns how many batches helpers filled.
 */
export function writeArrowStream(t: Table, opts: ArrowOptions, write: (bytes: Uint8Array) => void, batchRows = ARROW_BATCH_ROWS, helpers: RenderHelpers | null = null): number {
  const n = t.length;
  const plan = n > 0 ? batchPlan(t, opts) : null;
  if (!plan) {
    helpers?.close();
    writeColumnBatches(t, opts, write, batchRows);
    return 0;
  }
  const schema = new Schema(
    t.names.map((name, i) => new Field(name, plan.types[i]!, true)),
    opts.metadata ? new Map(opts.metadata) : undefined,
  );
  const writer = new SinkWriter(write);
  const batches = Math.ceil(n / batchRows);
  const areaBytes = batchBytes(plan.columns, Math.min(n, batchRows));
  const claims = newClaims(batches);
  const rings =
    helpers && helpers.count > 0 && batches > 1
      ? helpers.rings((place): ArrowJob => ({ kind: 'arrow', columns: plan.columns, length: n, batchRows, place, claims, ring: newRing(ARROW_SLOTS, areaBytes) }))
      : null;
  if (!rings) helpers?.close();
  const live = rings ? rings.map(() => true) : [];
  const silentMs = helpers?.silentMs ?? 0;
  // the writer's own batches: the one it writes, and up to AHEAD filled ahead while a helper's batch
  // is not ready (one filled ahead left it waiting on a slow first batch: the helper's code compiles
  // as it starts)
  const spare: Uint8Array[] = [];
  const take = (): Uint8Array => spare.pop() ?? new Uint8Array(areaBytes);
  const filled = new Map<number, Uint8Array>(); // batch -> own buffer filled ahead
  let helped = 0;
  const rowsOf = (b: number): number => Math.min(n, (b + 1) * batchRows) - b * batchRows;
  const fill = (b: number, into: Uint8Array): Uint8Array => {
    fillBatch(plan.columns, b * batchRows, b * batchRows + rowsOf(b), into);
    return into;
  };
  const writeOwn = (b: number, area: Uint8Array): void => {
    writer.write(batchFrom(schema, plan, area, rowsOf(b)));
    spare.push(area);
  };
  try {
    for (let b = 0; b < batches; b++) {
      const ready = filled.get(b);
      if (ready) {
        filled.delete(b);
        writeOwn(b, ready);
        continue;
      }
      // the writer's if nobody took it; else whoever did (nobody's still, past the wait: filled here)
      const who = claimBatch(claims, b, WRITER) ? WRITER : ownerOf(claims, b, silentMs);
      if (who > 0 && live[who - 1]) {
        const ring = rings![who - 1]!;
        // while the helper's batch is not ready, fill the next batches nobody has taken
        while (filled.size < AHEAD && !ring.ready()) {
          const c = claimNext(claims, WRITER);
          if (c < 0) break;
          filled.set(c, fill(c, take()));
        }
        const piece = ring.next();
        if (piece && piece.from === b * batchRows && piece.to === b * batchRows + rowsOf(b)) {
          writer.write(batchFrom(schema, plan, piece.bytes, rowsOf(b)));
          ring.release();
          helped++;
          continue;
        }
        // the helper failed or went silent: the batches it took and did not hand over are filled here
        live[who - 1] = false;
        ring.stop();
      }
      writeOwn(b, fill(b, take()));
    }
    writer.finish();
    return helped;
  } finally {
    for (const r of rings ?? []) r.stop();
    helpers?.close();
  }
}

/** writeArrowStream's batches made column by column (batchColumn): any table, any options. */
function writeColumnBatches(t: Table, opts: ArrowOptions, write: (bytes: Uint8Array) => void, batchRows: number): void {
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
