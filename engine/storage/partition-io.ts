/**
 * Column files of one partition. Each column is stored as the Arrow buffers of its type, raw and
 * little-endian, so a reader can wrap them without parsing:
 *
 *   timestamp, timespan, long   <col>.i64        int64, null = INT64_MIN
 *   int, date                   <col>.i32        int32, null = INT32_MIN
 *   float                       <col>.f64        float64, null = NaN
 *   boolean                     <col>.u8         0 / 1
 *   symbol                      <col>.i32 + <col>.dict.json   dictionary codes + dictionary
 *   string                      <col>.offsets.i32 + <col>.utf8
 *   float[] / long[]            <col>.offsets.i32 + <col>.f64 / <col>.i64
 *
 * `_meta.json` holds the row count, the column list and, for partitioned tables, each identifier's
 * row range (rows are sorted by identifier, then time: kdb's parted layout).
 */
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Column, ColumnType } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import type { ColumnDef } from '../core/table.js';

export interface PartitionMeta {
  readonly format: 1;
  readonly rows: number;
  readonly columns: readonly ColumnDef[];
  /** identifier -> [first row, end row) */
  readonly idRanges?: Readonly<Record<string, readonly [number, number]>>;
}

const TWO32 = 4294967296;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Writes a file and flushes it to disk before returning. */
export function writeFileDurable(path: string, data: Uint8Array | string): void {
  const fd = openSync(path, 'w');
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a directory entry list (so renames and new files inside it survive a crash). */
export function fsyncDir(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Float64 longs -> int64 bytes; NaN becomes the int64 null. */
function longsToInt64(values: Float64Array, where: string): BigInt64Array {
  const out = new BigInt64Array(values.length);
  const w = new Int32Array(out.buffer);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v) {
      w[2 * i] = 0;
      w[2 * i + 1] = -2147483648;
      continue;
    }
    if (!Number.isInteger(v) || v > MAX_SAFE || v < -MAX_SAFE) {
      throw new TickscopeError('importFailed', `${where}: ${v} is not a long Tickscope stores exactly (integers within ±2^53)`);
    }
    const hi = Math.floor(v / TWO32);
    w[2 * i] = (v - hi * TWO32) | 0;
    w[2 * i + 1] = hi;
  }
  return out;
}

/** int64 bytes -> Float64 longs; the int64 null becomes NaN. */
function int64ToLongs(raw: Int32Array, n: number, where: string): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const lo = raw[2 * i]!;
    const hi = raw[2 * i + 1]!;
    if (hi === -2147483648 && lo === 0) {
      out[i] = NaN;
      continue;
    }
    const v = hi * TWO32 + (lo >>> 0);
    if (v > MAX_SAFE || v < -MAX_SAFE) throw new TickscopeError('badDatabase', `${where}: long ${v} exceeds ±2^53`);
    out[i] = v;
  }
  return out;
}

function int32ToNumbers(raw: Int32Array): Float64Array {
  const out = new Float64Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i]!;
    out[i] = v === -2147483648 ? NaN : v;
  }
  return out;
}

function numbersToInt32(values: Float64Array, where: string): Int32Array {
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v) out[i] = -2147483648;
    else if (!Number.isInteger(v) || v > 2147483647 || v <= -2147483648) {
      throw new TickscopeError('importFailed', `${where}: ${v} is not an int (32-bit integer)`);
    } else out[i] = v;
  }
  return out;
}

/** The files (name -> bytes) that store one column. */
export function encodeColumn(name: string, c: Column, where: string): Array<[string, Uint8Array | string]> {
  switch (c.type) {
    case 'float':
      return [[`${name}.f64`, bytesOf(c.data)]];
    case 'long':
      return [[`${name}.i64`, bytesOf(longsToInt64(c.data, `${where}.${name}`))]];
    case 'int':
      return [[`${name}.i32`, bytesOf(numbersToInt32(c.data, `${where}.${name}`))]];
    case 'timestamp':
    case 'timespan':
      return [[`${name}.i64`, bytesOf(c.data)]];
    case 'date':
      return [[`${name}.i32`, bytesOf(c.data)]];
    case 'boolean':
      return [[`${name}.u8`, bytesOf(c.data)]];
    case 'symbol':
      return [
        [`${name}.i32`, bytesOf(c.codes)],
        [`${name}.dict.json`, JSON.stringify(c.dict)],
      ];
    case 'string': {
      const enc = new TextEncoder();
      const parts = c.values.map((s) => enc.encode(s));
      const offsets = new Int32Array(parts.length + 1);
      parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
      const data = new Uint8Array(offsets[parts.length]!);
      parts.forEach((p, i) => data.set(p, offsets[i]!));
      return [
        [`${name}.offsets.i32`, bytesOf(offsets)],
        [`${name}.utf8`, data],
      ];
    }
    case 'float[]':
      return [
        [`${name}.offsets.i32`, bytesOf(c.offsets)],
        [`${name}.f64`, bytesOf(c.values)],
      ];
    case 'long[]':
      return [
        [`${name}.offsets.i32`, bytesOf(c.offsets)],
        [`${name}.i64`, bytesOf(longsToInt64(c.values, `${where}.${name}`))],
      ];
  }
}

/** Reads a whole file into an 8-byte-aligned buffer (typed array views need aligned offsets). */
function readAligned(path: string): ArrayBuffer {
  const buf = readFileSync(path);
  if (buf.byteOffset % 8 === 0 && buf.byteLength === buf.buffer.byteLength) return buf.buffer as ArrayBuffer;
  const copy = new ArrayBuffer(buf.byteLength);
  new Uint8Array(copy).set(buf);
  return copy;
}

/** Reads one column of a partition folder. */
export function readColumn(dir: string, def: ColumnDef, rows: number): Column {
  const p = (suffix: string): string => join(dir, `${def.name}${suffix}`);
  const where = `${dir}/${def.name}`;
  const check = (got: number, what: string): void => {
    if (got !== rows) throw new TickscopeError('badDatabase', `${where}: ${what} holds ${got} rows, _meta.json says ${rows}`);
  };
  const type: ColumnType = def.type;
  switch (type) {
    case 'float': {
      const data = new Float64Array(readAligned(p('.f64')));
      check(data.length, 'column file');
      return { type, data };
    }
    case 'long': {
      const raw = new Int32Array(readAligned(p('.i64')));
      check(raw.length / 2, 'column file');
      return { type, data: int64ToLongs(raw, rows, where) };
    }
    case 'int': {
      const raw = new Int32Array(readAligned(p('.i32')));
      check(raw.length, 'column file');
      return { type, data: int32ToNumbers(raw) };
    }
    case 'timestamp':
    case 'timespan': {
      const data = new BigInt64Array(readAligned(p('.i64')));
      check(data.length, 'column file');
      return { type, data };
    }
    case 'date': {
      const data = new Int32Array(readAligned(p('.i32')));
      check(data.length, 'column file');
      return { type, data };
    }
    case 'boolean': {
      const data = new Uint8Array(readAligned(p('.u8')));
      check(data.length, 'column file');
      return { type, data };
    }
    case 'symbol': {
      const codes = new Int32Array(readAligned(p('.i32')));
      check(codes.length, 'column file');
      const dict = JSON.parse(readFileSync(p('.dict.json'), 'utf8')) as string[];
      return { type, codes, dict };
    }
    case 'string': {
      const offsets = new Int32Array(readAligned(p('.offsets.i32')));
      check(offsets.length - 1, 'offsets file');
      const data = readFileSync(p('.utf8'));
      const values = new Array<string>(rows);
      for (let i = 0; i < rows; i++) values[i] = data.toString('utf8', offsets[i]!, offsets[i + 1]!);
      return { type, values };
    }
    case 'float[]':
    case 'long[]': {
      const offsets = new Int32Array(readAligned(p('.offsets.i32')));
      check(offsets.length - 1, 'offsets file');
      const n = offsets[rows]!;
      const values =
        type === 'float[]'
          ? new Float64Array(readAligned(p('.f64')))
          : int64ToLongs(new Int32Array(readAligned(p('.i64'))), n, where);
      return { type, offsets, values };
    }
  }
}

/** Reads and checks a partition's `_meta.json`. */
export function readMeta(dir: string): PartitionMeta {
  let meta: PartitionMeta;
  try {
    meta = JSON.parse(readFileSync(join(dir, '_meta.json'), 'utf8')) as PartitionMeta;
  } catch (e) {
    throw new TickscopeError('badDatabase', `${dir}: cannot read _meta.json (${(e as Error).message})`);
  }
  if (meta.format !== 1 || !Number.isInteger(meta.rows) || !Array.isArray(meta.columns)) {
    throw new TickscopeError('badDatabase', `${dir}/_meta.json: unsupported format`);
  }
  return meta;
}
