/**
 * Storage format v1 (JSON symbol dictionaries, no time order): read only by `tickscope migrate`,
 * which converts a v1 database to the current format. The engine itself reads only the current one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Column, ColumnType } from '../core/column.js';
import { dictOf } from '../core/dict.js';
import { TickscopeError } from '../core/errors.js';
import type { ColumnDef } from '../core/table.js';

export interface V1Meta {
  readonly format: 1;
  readonly rows: number;
  readonly columns: readonly ColumnDef[];
  readonly idRanges?: Readonly<Record<string, readonly [number, number]>>;
}

const TWO32 = 4294967296;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

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


/** Reads a whole file into an 8-byte-aligned buffer (typed array views need aligned offsets). */
function readAligned(path: string): ArrayBuffer {
  const buf = readFileSync(path);
  if (buf.byteOffset % 8 === 0 && buf.byteLength === buf.buffer.byteLength) return buf.buffer as ArrayBuffer;
  const copy = new ArrayBuffer(buf.byteLength);
  new Uint8Array(copy).set(buf);
  return copy;
}

/** Reads one column of a v1 partition folder. */
export function readColumnV1(dir: string, def: ColumnDef, rows: number): Column {
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
      return { type, data: new BigInt64Array(raw.buffer, raw.byteOffset, rows) };
    }
    case 'int': {
      const raw = new Int32Array(readAligned(p('.i32')));
      check(raw.length, 'column file');
      return { type, data: raw };
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
      const dict = dictOf(JSON.parse(readFileSync(p('.dict.json'), 'utf8')) as string[]);
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

/** Reads and checks a v1 partition's `_meta.json`. */
export function readMetaV1(dir: string): V1Meta {
  let meta: V1Meta;
  try {
    meta = JSON.parse(readFileSync(join(dir, '_meta.json'), 'utf8')) as V1Meta;
  } catch (e) {
    throw new TickscopeError('badDatabase', `${dir}: cannot read _meta.json (${(e as Error).message})`);
  }
  if (meta.format !== 1 || !Number.isInteger(meta.rows) || !Array.isArray(meta.columns)) {
    throw new TickscopeError('badDatabase', `${dir}/_meta.json: unsupported format`);
  }
  return meta;
}
