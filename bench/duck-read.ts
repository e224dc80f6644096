/**
 * DuckDB's side of a timed run: run the SQL to a materialized result, then read every column of every
 * result chunk into one JS array per column. This is the counterpart of Tickscope's engine.call, whose
 * result is already a Table of typed arrays; both timed regions end with every column of the result in
 * JS memory, column by column, and neither goes through per-row JS objects or JSON.
 *
 * The read takes DuckDB's fastest path: fixed-width vectors (BIGINT, TIMESTAMP_NS, DOUBLE, INTEGER,
 * DATE, BOOLEAN) are copied as whole buffers from each chunk's vector data (@duckdb/node-bindings, the
 * layer @duckdb/node-api wraps: the same vectors DuckDBDataChunk.getColumnVector reads, without a JS
 * call per value), then nulls are applied from the validity mask. VARCHAR vectors are decoded string
 * by string (DuckDB has no dictionary in its C result API; Tickscope's symbol columns stay codes plus
 * a dictionary, its native in-memory form). Anything else (HUGEINT sums, a few rows) goes through
 * DuckDBVector.getItem.
 */
import duckdb from '@duckdb/node-bindings';
import { type DuckDBConnection, type DuckDBMaterializedResult, DuckDBTypeId, type DuckDBValue } from '@duckdb/node-api';
import type { Cell, CellColumn, CellKind } from './cells.js';

export type DuckColumnData = BigInt64Array | Float64Array | Int32Array | Uint8Array | Array<string | null> | DuckDBValue[];

export interface DuckColumns {
  readonly names: readonly string[];
  readonly types: readonly DuckDBTypeId[];
  readonly columns: readonly DuckColumnData[];
  readonly rows: number;
}

const INT64_MIN = -9223372036854775808n;
const INT32_MIN = -2147483648;
const decoder = new TextDecoder();

type Fixed = BigInt64Array | Float64Array | Int32Array | Uint8Array;

function allocate(type: DuckDBTypeId, rows: number): DuckColumnData {
  switch (type) {
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.TIMESTAMP_NS:
      return new BigInt64Array(rows);
    case DuckDBTypeId.DOUBLE:
      return new Float64Array(rows);
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.DATE:
      return new Int32Array(rows);
    case DuckDBTypeId.BOOLEAN:
      return new Uint8Array(rows);
    case DuckDBTypeId.VARCHAR:
      return new Array<string | null>(rows);
    default:
      return new Array<DuckDBValue>(rows);
  }
}

/** Sets the null sentinel of `out` at rows whose validity bit is clear. */
function applyNulls(out: Fixed, validity: Uint8Array | null, at: number, n: number): void {
  if (!validity) return;
  const bytes = (n + 7) >> 3;
  for (let b = 0; b < bytes; b++) {
    const v = validity[b]!;
    if (v === 0xff) continue;
    for (let bit = 0; bit < 8; bit++) {
      const r = b * 8 + bit;
      if (r >= n) break;
      if ((v & (1 << bit)) !== 0) continue;
      if (out instanceof BigInt64Array) out[at + r] = INT64_MIN;
      else if (out instanceof Float64Array) out[at + r] = NaN;
      else if (out instanceof Int32Array) out[at + r] = INT32_MIN;
      else out[at + r] = 2; // boolean null
    }
  }
}

/**
 * Decodes a VARCHAR vector (16-byte string_t entries: length, then up to 12 inlined bytes or a 4-byte
 * prefix and a pointer). Made as fast as JS allows, so DuckDB is not slowed by the reader: a row equal
 * to the one before reuses its string, short inlined strings are looked up in a small per-read cache,
 * other ASCII is sliced without a decoder.
 */
function readStrings(out: Array<string | null>, data: Uint8Array, validity: Uint8Array | null, at: number, n: number, cache: Map<number, string>): void {
  const words = new Uint32Array(data.buffer, data.byteOffset, n * 4);
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let p0 = -1;
  let p1 = 0;
  let p2 = 0;
  let p3 = 0;
  let prev: string | null = null;
  for (let r = 0; r < n; r++) {
    if (validity && (validity[r >> 3]! & (1 << (r & 7))) === 0) {
      out[at + r] = null;
      continue;
    }
    const w = r * 4;
    const len = words[w]!;
    const w1 = words[w + 1]!;
    const w2 = words[w + 2]!;
    const w3 = words[w + 3]!;
    if (len <= 12 && len === p0 && w1 === p1 && w2 === p2 && w3 === p3) {
      out[at + r] = prev;
      continue;
    }
    let s: string;
    if (len <= 4) {
      const key = len * 4294967296 + (len === 4 ? w1 : w1 & ((1 << (len * 8)) - 1));
      let hit = cache.get(key);
      if (hit === undefined) {
        hit = decodeInline(bytes, r * 16 + 4, len);
        cache.set(key, hit);
      }
      s = hit;
    } else if (len <= 12) {
      s = decodeInline(bytes, r * 16 + 4, len);
    } else {
      s = decoder.decode(duckdb.get_data_from_pointer(data.buffer as ArrayBuffer, data.byteOffset + r * 16 + 8, len));
    }
    out[at + r] = s;
    p0 = len;
    p1 = w1;
    p2 = w2;
    p3 = w3;
    prev = s;
  }
}

function decodeInline(bytes: Buffer, from: number, len: number): string {
  for (let i = 0; i < len; i++) if (bytes[from + i]! > 0x7f) return bytes.toString('utf8', from, from + len);
  return bytes.toString('latin1', from, from + len);
}

/** Reads every chunk of a materialized result into one JS array per column. */
export function readColumns(result: DuckDBMaterializedResult): DuckColumns {
  const rows = result.rowCount;
  const width = result.columnCount;
  const names = result.columnNames();
  const types: DuckDBTypeId[] = [];
  for (let c = 0; c < width; c++) types.push(result.columnTypeId(c));
  const columns = types.map((t) => allocate(t, rows));
  const caches = types.map(() => new Map<number, string>());
  let at = 0;
  const chunks = result.chunkCount;
  for (let k = 0; k < chunks; k++) {
    const chunk = result.getChunk(k);
    const n = chunk.rowCount;
    for (let c = 0; c < width; c++) {
      const out = columns[c]!;
      const vector = duckdb.data_chunk_get_vector(chunk.chunk, c);
      const validity = duckdb.vector_get_validity(vector, ((n + 63) >> 6) * 8) as Uint8Array | null;
      if (out instanceof BigInt64Array) {
        const data = duckdb.vector_get_data(vector, n * 8);
        out.set(new BigInt64Array(data.buffer, data.byteOffset, n), at);
        applyNulls(out, validity, at, n);
      } else if (out instanceof Float64Array) {
        const data = duckdb.vector_get_data(vector, n * 8);
        out.set(new Float64Array(data.buffer, data.byteOffset, n), at);
        applyNulls(out, validity, at, n);
      } else if (out instanceof Int32Array) {
        const data = duckdb.vector_get_data(vector, n * 4);
        out.set(new Int32Array(data.buffer, data.byteOffset, n), at);
        applyNulls(out, validity, at, n);
      } else if (out instanceof Uint8Array) {
        out.set(duckdb.vector_get_data(vector, n), at);
        applyNulls(out, validity, at, n);
      } else if (types[c] === DuckDBTypeId.VARCHAR) {
        readStrings(out as Array<string | null>, duckdb.vector_get_data(vector, n * 16), validity, at, n, caches[c]!);
      } else {
        const v = chunk.getColumnVector(c);
        for (let r = 0; r < n; r++) out[at + r] = v.getItem(r);
      }
    }
    at += n;
  }
  return { names, types, columns, rows };
}

/** The timed DuckDB region: the query to a materialized result, and every column read into JS. */
export async function duckQuery(conn: DuckDBConnection, sql: string): Promise<DuckColumns> {
  return readColumns(await conn.run(sql));
}

/** The cells of a DuckDB result (for the value check). */
export function duckCells(r: DuckColumns): CellColumn[] {
  return r.columns.map((data, c) => {
    const name = r.names[c]!;
    const col = (kind: CellKind, cell: (i: number) => Cell): CellColumn => ({ name, kind, length: r.rows, cell });
    if (data instanceof BigInt64Array) return col(r.types[c] === DuckDBTypeId.BIGINT ? 'int' : 'time', (i) => (data[i] === INT64_MIN ? null : data[i]!));
    if (data instanceof Float64Array) return col('float', (i) => (data[i]! !== data[i]! ? null : data[i]!));
    if (data instanceof Int32Array) return col('int', (i) => (data[i] === INT32_MIN ? null : BigInt(data[i]!)));
    if (data instanceof Uint8Array) return col('bool', (i) => (data[i] === 2 ? null : data[i] === 1));
    if (r.types[c] === DuckDBTypeId.VARCHAR) {
      const s = data as Array<string | null>;
      return col('text', (i) => (s[i] === '' ? null : s[i]!));
    }
    const values = data as DuckDBValue[];
    return col(r.types[c] === DuckDBTypeId.HUGEINT ? 'int' : 'other', (i) => {
      const v = values[i];
      if (v === null || v === undefined) return null;
      if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
      return String(v);
    });
  });
}
