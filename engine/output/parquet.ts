/**
 * Parquet export of a query result (SPEC 8): the values the JSON payload holds, typed. Timestamps are
 * INT64 TIMESTAMP(NANOS, isAdjustedToUTC=true) holding the UTC instants, with the result's outputTZ
 * in the file's key-value metadata (`outputTZ`); dates INT32 DATE; timespans INT64 nanoseconds whose
 * column chunks carry `tickscope.type` = `timespan`; symbols BYTE_ARRAY UTF8 always
 * dictionary-encoded; strings UTF8; floats, longs, ints and booleans as DOUBLE, INT64, INT32 and
 * BOOLEAN; float[] and long[] as 3-level LISTs of DOUBLE and INT64. Every column is optional and a
 * null is a Parquet null: NaN floats, 0N longs, timestamps, timespans, ints and dates, the empty
 * symbol and the empty string (the nulls of those types), NaN list elements. An empty list stays an
 * empty list. `tickscope.types` (JSON, column name -> Tickscope type) lets a reader tell symbol from
 * string and long from timespan.
 *
 * The file is written in row groups of `rowGroupRows` rows, each handed to the caller's `write` as
 * soon as it is encoded (awaited, so a slow consumer holds the writer back), so memory stays at
 * about one row group's values however long the result.
 */
import { createRequire } from 'node:module';
import type { ColumnSource, SchemaElement } from 'hyparquet-writer';
import { type Column, columnLength, type ColumnType, int32Pairs } from '../core/column.js';
import type { QueryResult } from '../core/result.js';

/** Rows per row group: DuckDB's and Arrow's readers parallelise by row group; 100k keeps each small. */
export const PARQUET_ROW_GROUP_ROWS = 100_000;

/** Key-value metadata keys of an exported file. */
export const PARQUET_KEYS = {
  /** file: the zone the result's timestamps render in (the instants themselves are UTC) */
  outputTZ: 'outputTZ',
  /** file: JSON object of column name -> Tickscope type */
  types: 'tickscope.types',
  /** column chunk: the Tickscope type where Parquet's own does not say it (`timespan`) */
  columnType: 'tickscope.type',
} as const;

export interface ParquetExportOptions {
  readonly rowGroupRows?: number;
  /** Told the rows written so far and the result's rows, after each row group. */
  readonly onRows?: (done: number, total: number) => void;
}

type HyparquetWriter = typeof import('hyparquet-writer');

let writerModule: Promise<HyparquetWriter> | undefined;

/**
 * hyparquet-writer, loaded on the first export (its ES modules take ~50 ms to load; most runs never
 * export Parquet). Required, as the reader's modules are (storage/parquet/hyparquet.ts), not imported: the
 * tickscope command runs from V8's code cache, where Node 20 gives a dynamic import() no loader.
 */
const hyparquetWriter = (): Promise<HyparquetWriter> => (writerModule ??= Promise.resolve(createRequire(import.meta.url)('hyparquet-writer') as HyparquetWriter));

const INT32_MIN = -2147483648;

/** The Parquet schema element(s) of a column: one, or three for a LIST. */
function schemaOf(name: string, type: ColumnType): SchemaElement[] {
  const optional = { name, repetition_type: 'OPTIONAL' } as const;
  switch (type) {
    case 'timestamp':
      return [{ ...optional, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' } }];
    case 'timespan':
    case 'long':
      return [{ ...optional, type: 'INT64' }];
    case 'date':
      return [{ ...optional, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } }];
    case 'int':
      return [{ ...optional, type: 'INT32' }];
    case 'float':
      return [{ ...optional, type: 'DOUBLE' }];
    case 'boolean':
      return [{ ...optional, type: 'BOOLEAN' }];
    case 'symbol':
    case 'string':
      return [{ ...optional, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } }];
    case 'float[]':
    case 'long[]':
      return [
        { ...optional, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', repetition_type: 'OPTIONAL', type: type === 'float[]' ? 'DOUBLE' : 'INT64' },
      ];
  }
}

/** A column's rows as the JS values hyparquet-writer takes (null for a null). */
function valuesOf(c: Column): unknown[] {
  const n = columnLength(c);
  const out = new Array<unknown>(n);
  switch (c.type) {
    case 'float':
      for (let i = 0; i < n; i++) out[i] = c.data[i] !== c.data[i] ? null : c.data[i];
      break;
    case 'long':
    case 'timestamp':
    case 'timespan': {
      const w = int32Pairs(c.data);
      for (let i = 0; i < n; i++) out[i] = w[2 * i + 1] === INT32_MIN && w[2 * i] === 0 ? null : c.data[i];
      break;
    }
    case 'int':
    case 'date':
      for (let i = 0; i < n; i++) out[i] = c.data[i] === INT32_MIN ? null : c.data[i];
      break;
    case 'boolean':
      for (let i = 0; i < n; i++) out[i] = c.data[i] !== 0;
      break;
    case 'symbol': {
      // one string per dictionary entry, so the writer's dictionary sees each value once
      const text = new Array<string | null | undefined>(c.dict.length);
      for (let i = 0; i < n; i++) {
        const code = c.codes[i]!;
        let s = text[code];
        if (s === undefined) {
          const t = c.dict.get(code);
          s = text[code] = t === '' ? null : t;
        }
        out[i] = s;
      }
      break;
    }
    case 'string':
      for (let i = 0; i < n; i++) out[i] = c.values[i] === '' ? null : c.values[i];
      break;
    case 'float[]':
    case 'long[]': {
      // long[] lists are held as float64 of whole numbers (storage.md): exact as int64
      const asLong = c.type === 'long[]';
      for (let i = 0; i < n; i++) {
        const a = c.offsets[i]!;
        const list = new Array<number | bigint | null>(c.offsets[i + 1]! - a);
        for (let k = 0; k < list.length; k++) {
          const x = c.values[a + k]!;
          list[k] = x !== x ? null : asLong ? BigInt(x) : x;
        }
        out[i] = list;
      }
      break;
    }
  }
  return out;
}

/**
 * Writes a result as Parquet, one row group at a time: `write` receives the file's bytes in order
 * (the header with the first row group, each further row group, then the footer) and may return a
 * promise, which is awaited before the next row group is encoded.
 */
export async function writeResultParquet(r: QueryResult, write: (bytes: Uint8Array) => void | Promise<void>, opts: ParquetExportOptions = {}): Promise<void> {
  const { ByteWriter, ParquetWriter } = await hyparquetWriter();
  const { table } = r;
  const defs = table.defs;
  const groupRows = Math.max(1, opts.rowGroupRows ?? PARQUET_ROW_GROUP_ROWS);

  /** Hands what is buffered to `write` after each row group and at the end, then reuses its buffer. */
  class ChunkWriter extends ByteWriter {
    take(): Uint8Array {
      const bytes = new Uint8Array(this.buffer, 0, this.index).slice();
      this.index = 0;
      return bytes;
    }
    flush(): void | Promise<void> {
      return write(this.take());
    }
    override finish(): void | Promise<void> {
      return this.index > 0 ? write(this.take()) : undefined;
    }
  }

  const pq = new ParquetWriter({
    writer: new ChunkWriter(1 << 20),
    schema: [{ name: 'schema', num_children: defs.length }, ...defs.flatMap((d) => schemaOf(d.name, d.type))],
    kvMetadata: [
      { key: PARQUET_KEYS.outputTZ, value: r.outputTZ },
      { key: PARQUET_KEYS.types, value: JSON.stringify(Object.fromEntries(defs.map((d) => [d.name, d.type]))) },
    ],
    createdBy: 'Tickscope',
  });
  for (let from = 0; from < table.length; from += groupRows) {
    const n = Math.min(groupRows, table.length - from);
    const range = new Int32Array(n);
    for (let i = 0; i < n; i++) range[i] = from + i;
    // rows of views (a result over stored partitions) are gathered one row group at a time
    const columns = table.take(range).columns;
    const columnData: ColumnSource[] = defs.map((d, j) => ({
      name: d.name,
      data: valuesOf(columns[j]!),
      // symbols always as a dictionary (SPEC 8); other columns when it at least halves their size
      ...(d.type === 'symbol' ? { encoding: 'RLE_DICTIONARY' as const } : {}),
    }));
    await pq.write({ columnData, rowGroupSize: n });
    opts.onRows?.(from + n, table.length);
    const chunks = pq.row_groups.at(-1)!.columns;
    for (const d of defs) {
      if (d.type !== 'timespan') continue;
      const meta = chunks.find((c) => c.meta_data?.path_in_schema[0] === d.name)?.meta_data;
      if (meta) meta.key_value_metadata = [{ key: PARQUET_KEYS.columnType, value: 'timespan' }];
    }
  }
  await pq.finish();
}

/** A result as one Parquet file's bytes. */
export async function resultToParquet(r: QueryResult, opts: ParquetExportOptions = {}): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  await writeResultParquet(r, (bytes) => void parts.push(bytes), opts);
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
