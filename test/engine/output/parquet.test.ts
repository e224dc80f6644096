/**
 * Parquet in and out (SPEC 8), against DuckDB as the other side: files DuckDB writes (every type,
 * every timestamp unit, V1 and V2 pages, every codec, dictionary and plain encodings, several row
 * groups) import into a real database with every value equal; files Tickscope writes from real
 * queries read back in DuckDB with every value equal; bad files are refused naming the file, row,
 * row group and column, and leave the database as it was. (No pandas-written file: python3 here has
 * neither pandas nor pyarrow; the legacy INT96 timestamps older pandas and Spark write are tested on
 * a file assembled below.)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { type ColumnChunk, parquetMetadata } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Column, type ColumnType, int32Pairs, type SymbolColumn } from '../../../engine/core/column.js';
import { TickscopeError } from '../../../engine/core/errors.js';
import type { Table } from '../../../engine/core/table.js';
import { formatDate, formatTimespan } from '../../../engine/core/time.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { textCells } from '../../../engine/output/text-cells.js';
import type { QueryResult } from '../../../engine/core/result.js';
import { PARQUET_KEYS, resultToParquet, writeResultParquet } from '../../../engine/output/parquet.js';
import { Database } from '../../../engine/storage/database.js';
import { importFile } from '../../../engine/storage/import.js';
import { parseParquet } from '../../../engine/storage/parquet/read.js';
import { standardSchema, type Schema, type TableSchema } from '../../../engine/storage/schema.js';
import { payloadRows, tempDir } from '../../helpers/db.js';

/** A table with a column of every type (the standard tables lack int, timespan and string columns). */
const FILLS: TableSchema = {
  name: 'Fills',
  kind: 'partitioned',
  timeColumn: 'eventTimestamp',
  idColumn: 'instrumentID',
  foreignKeys: {},
  columns: [
    { name: 'eventTimestamp', type: 'timestamp' },
    { name: 'instrumentID', type: 'symbol' },
    { name: 'exchTime', type: 'timestamp' },
    { name: 'price', type: 'float' },
    { name: 'volume', type: 'long' },
    { name: 'lots', type: 'int' },
    { name: 'tradeDate', type: 'date' },
    { name: 'held', type: 'timespan' },
    { name: 'flag', type: 'boolean' },
    { name: 'note', type: 'string' },
    { name: 'venue', type: 'symbol' },
    { name: 'execID', type: 'symbol' },
    { name: 'levels', type: 'float[]' },
    { name: 'sizes', type: 'long[]' },
  ],
};
/** The Fills columns of `src` (which also holds the row number `i`). */
const ALL = FILLS.columns.map((c) => c.name).join(', ');
const schema = (): Schema => ({ tables: new Map([...standardSchema().tables, ['Fills', FILLS]]) });
const newDb = (): Database => Database.create(join(tempDir(), 'db'), schema());
const NON_TIME = FILLS.columns.slice(1).map((c) => c.name);

const ROWS = 5000;
/**
 * The rows DuckDB writes, by column: nulls in every nullable column at different strides, the long
 * range's ends, an int's maximum, a date before 1970, infinity, non-ASCII text, empty lists and null
 * list elements. Timestamps 40 s apart, so the rows span three days (partitions). `instrumentID` and
 * `venue` repeat (DuckDB dictionary-encodes them), `note` and `execID` do not (plain).
 */
const SOURCE: Record<string, string> = {
  eventTimestamp: 'make_timestamp_ns(1709683200000000000 + i * 40000000007)',
  instrumentID: "['AAPL', 'MSFT', 'IBM'][i % 3 + 1]",
  exchTime: 'CASE WHEN i % 11 = 0 THEN NULL ELSE make_timestamp(1709683200000000 + i * 40000013) END',
  price: "CASE WHEN i % 7 = 3 THEN NULL WHEN i = 5 THEN 'inf'::DOUBLE WHEN i = 6 THEN '-0'::DOUBLE ELSE 100 + i / 8.0 END",
  volume: 'CASE WHEN i % 13 = 0 THEN NULL WHEN i = 1 THEN 9223372036854775807 WHEN i = 2 THEN -9223372036854775807 ELSE i * 100 END::BIGINT',
  lots: 'CASE WHEN i % 5 = 0 THEN NULL WHEN i = 3 THEN 2147483647 ELSE (i % 1000) - 500 END::INTEGER',
  tradeDate: "CASE WHEN i % 9 = 0 THEN NULL WHEN i = 4 THEN DATE '1969-12-31' ELSE DATE '2024-03-06' + (i % 40)::INTEGER END",
  held: 'CASE WHEN i % 17 = 0 THEN NULL ELSE i * 1000000001 END::BIGINT',
  flag: 'CASE WHEN i % 19 = 0 THEN NULL ELSE i % 2 = 0 END',
  note: "CASE WHEN i % 23 = 0 THEN NULL ELSE 'note ' || i || ' é€ 株' END",
  venue: "CASE WHEN i % 29 = 0 THEN NULL ELSE ['XNAS', 'XNYS', 'ARCX'][i % 3 + 1] END",
  execID: "CASE WHEN i % 41 = 0 THEN NULL ELSE 'E' || (i * 7919) END",
  levels: 'CASE WHEN i % 31 = 0 THEN NULL WHEN i % 31 = 1 THEN []::DOUBLE[] ELSE [i / 4.0, NULL, i / 2.0]::DOUBLE[] END',
  sizes: 'CASE WHEN i % 37 = 0 THEN NULL WHEN i % 37 = 1 THEN []::BIGINT[] ELSE [i, NULL, 9007199254740991]::BIGINT[] END',
};

/**
 * The expected value of each column in exact JS form (timestamps and timespans as int64 ns, dates
 * as days), computed by DuckDB from the columns it wrote, with Tickscope's nulls for the types that
 * have none (false, "", the empty list).
 */
const EXPECTED: Record<ColumnType, (c: string) => string> = {
  timestamp: (c) => `epoch_ns(${c})`,
  timespan: (c) => `${c}`,
  date: (c) => `(${c} - DATE '1970-01-01')::INTEGER`,
  symbol: (c) => `coalesce(${c}, '')`,
  string: (c) => `coalesce(${c}, '')`,
  float: (c) => c,
  long: (c) => c,
  int: (c) => c,
  boolean: (c) => `coalesce(${c}, false)`,
  'float[]': (c) => `coalesce(${c}, []::DOUBLE[])`,
  'long[]': (c) => `coalesce(${c}, []::BIGINT[])`,
};

/** Exact JS form of a cell of ours, the same as EXPECTED's (and the same as `fromDuck`'s). */
function cellsOf(t: Table): Array<Record<string, unknown>> {
  const read = t.names.map((name) => {
    const c = t.col(name);
    return [name, cellReader(c)] as const;
  });
  return Array.from({ length: t.length }, (_, i) => Object.fromEntries(read.map(([name, f]) => [name, f(i)])));
}

function cellReader(c: Column): (i: number) => unknown {
  switch (c.type) {
    case 'timestamp':
    case 'timespan':
    case 'long': {
      const w = int32Pairs(c.data);
      return (i) => (w[2 * i + 1] === -2147483648 && w[2 * i] === 0 ? null : c.data[i]);
    }
    case 'float':
      return (i) => (Number.isNaN(c.data[i]) ? null : c.data[i]);
    case 'int':
    case 'date':
      return (i) => (c.data[i] === -2147483648 ? null : c.data[i]);
    case 'boolean':
      return (i) => c.data[i] === 1;
    case 'symbol':
      return (i) => c.dict.get(c.codes[i]!);
    case 'string':
      return (i) => c.values[i];
    case 'float[]':
    case 'long[]':
      return (i) => Array.from(c.values.subarray(c.offsets[i], c.offsets[i + 1]), (x) => (Number.isNaN(x) ? null : x));
  }
}

/** A DuckDB row in the same form (list elements as numbers: Tickscope holds long[] as float64). */
function fromDuck(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, Array.isArray(v) ? v.map((x: unknown) => (typeof x === 'bigint' ? Number(x) : x)) : v]),
  );
}

let duck: DuckDBConnection;
const rowsOf = async (sql: string): Promise<Array<Record<string, unknown>>> => (await duck.runAndReadAll(sql)).getRowObjectsJS();

beforeAll(async () => {
  duck = await (await DuckDBInstance.create(':memory:')).connect();
  const select = Object.entries(SOURCE).map(([name, expr]) => `${expr} AS ${name}`).join(', ');
  await duck.run(`CREATE TABLE src AS SELECT i, ${select} FROM range(${ROWS}) r(i)`);
});
afterAll(() => duck?.closeSync());

/** The whole Fills table as getTicks returns it (time order). */
function ourFills(db: Database): QueryResult {
  return new Engine([db]).call('getTicks', { table: 'Fills', columns: NON_TIME });
}

describe('Parquet import of files DuckDB writes', () => {
  // Each file holds the same rows; the time columns take each unit DuckDB writes: TIMESTAMP_NS is
  // INT64 NANOS, TIMESTAMP MICROS, TIMESTAMP_MS MILLIS (all isAdjustedToUTC=false), TIMESTAMPTZ
  // MICROS with isAdjustedToUTC=true. `held` is a TIME (INT64 TIME_MICROS) in one file.
  const variants: Array<{ name: string; casts: Record<string, string>; options: string }> = [
    { name: 'ns-v1-snappy', casts: {}, options: '' },
    { name: 'us-v2-zstd', casts: { eventTimestamp: 'TIMESTAMP', exchTime: 'TIMESTAMPTZ' }, options: ', PARQUET_VERSION V2, COMPRESSION zstd' },
    { name: 'ms-gzip', casts: { eventTimestamp: 'TIMESTAMP::TIMESTAMP_MS' }, options: ', COMPRESSION gzip' },
    { name: 'tz-brotli', casts: { eventTimestamp: 'TIMESTAMPTZ', held: 'TIME' }, options: ', COMPRESSION brotli' },
    { name: 'lz4', casts: {}, options: ', COMPRESSION lz4' },
    { name: 'lz4-raw-v2', casts: {}, options: ', COMPRESSION lz4_raw, PARQUET_VERSION V2' },
    { name: 'uncompressed', casts: {}, options: ', COMPRESSION uncompressed' },
  ];

  for (const v of variants) {
    it(`imports every type exactly: ${v.name}`, async () => {
      const file = join(tempDir(), `fills-${v.name}.parquet`);
      const cols = FILLS.columns.map(({ name }) => {
        const cast = v.casts[name];
        // a TIME from the timespan's nanoseconds (whole microseconds within a day)
        if (cast === 'TIME') return `TIME '00:00:00' + to_microseconds((${name} // 1000) % 86400000000) AS ${name}`;
        return cast ? `${name}::${cast} AS ${name}` : name;
      });
      await duck.run(`CREATE OR REPLACE TABLE written AS SELECT ${cols.join(', ')} FROM src`);
      await duck.run(`COPY written TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 2048${v.options})`);
      const held = v.casts['held'] === 'TIME' ? 'epoch_us(held) * 1000' : 'held';
      const expected = (
        await rowsOf(`SELECT ${FILLS.columns.map((c) => `${c.name === 'held' ? held : EXPECTED[c.type](c.name)} AS ${c.name}`).join(', ')} FROM written ORDER BY eventTimestamp`)
      ).map(fromDuck);

      // the file exercises what it says: several row groups, dictionary and plain pages
      const meta = await rowsOf(`SELECT row_group_id, path_in_schema, encodings FROM parquet_metadata('${file}')`);
      expect(new Set(meta.map((m) => m['row_group_id'])).size).toBe(3);
      const encodings = (col: string): string => String(meta.find((m) => m['path_in_schema'] === col)!['encodings']);
      expect(encodings('instrumentID')).toMatch(/DICTIONARY/);
      expect(encodings('note')).not.toMatch(/DICTIONARY/);
      if (v.options.includes('V2')) {
        // data pages V2 bring DuckDB's other encodings
        const all = new Set(meta.flatMap((m) => String(m['encodings']).split(', ')));
        for (const e of ['BYTE_STREAM_SPLIT', 'DELTA_BINARY_PACKED', 'DELTA_LENGTH_BYTE_ARRAY', 'RLE_DICTIONARY']) expect(all).toContain(e);
      }

      // symbol dictionaries are built from the bytes, each string once (storage relies on it)
      const parsed = parseParquet(FILLS, readFileSync(file), file);
      for (const name of ['instrumentID', 'venue', 'execID']) {
        const c = parsed.col(name) as SymbolColumn;
        const strings = Array.from({ length: c.dict.length }, (_, k) => c.dict.get(k));
        expect(c.dict.unique).toBe(true);
        expect(new Set(strings).size, name).toBe(strings.length);
      }

      const db = newDb();
      const report = importFile(db, 'Fills', file);
      expect(report.rows).toBe(ROWS);
      expect(report.partitions).toEqual(['2024-03-06', '2024-03-07', '2024-03-08']);
      const ours = cellsOf(ourFills(db).table);
      expect(ours.length).toBe(ROWS);
      for (let i = 0; i < ROWS; i++) {
        if (JSON.stringify(ours[i], big) !== JSON.stringify(expected[i], big)) expect(ours[i], `row ${i}`).toEqual(expected[i]);
      }
      // spot checks on values the loop above compares in bulk
      expect(ours[0]!['eventTimestamp']).toBe(1709683200000000000n);
      expect(ours[1]!['volume']).toBe(9223372036854775807n);
      expect(ours[2]!['volume']).toBe(-9223372036854775807n);
      expect(ours[5]!['price']).toBe(Infinity);
      expect(Object.is(ours[6]!['price'], -0)).toBe(true);
      expect(ours[4]!['tradeDate']).toBe(-1);
      expect(ours[23]!['note']).toBe('');
      expect(ours[24]!['note']).toBe('note 24 é€ 株');
      expect(ours[31]!['levels']).toEqual([]);
      expect(ours[33]!['levels']).toEqual([33 / 4, null, 33 / 2]);
      expect(ours[39]!['sizes']).toEqual([39, null, 9007199254740991]);
      expect(ours[38]!['sizes']).toEqual([]);
      expect(ours[37]!['sizes']).toEqual([]);
    });
  }

  it('widens MILLIS and MICROS exactly, to the last nanosecond digit', async () => {
    // ns values with every digit set, truncated by DuckDB to each unit: the import must give back
    // exactly the truncation times 10^3 / 10^6 (a float millisecond path would lose the last digits)
    const file = join(tempDir(), 'units.parquet');
    const base = '(1709735400123456789 + i * 86400000000001)';
    await duck.run(`COPY (SELECT make_timestamp_ns(${base}) AS eventTimestamp, 'X' AS instrumentID,
      make_timestamp_ns(${base})::TIMESTAMP AS exchTime FROM range(3) r(i)) TO '${file}' (FORMAT parquet)`);
    const db = Database.create(join(tempDir(), 'db'));
    importFile(db, 'Trade', file);
    const t = new Engine([db]).call('getTicks', { table: 'Trade', columns: ['exchTime'] }).table;
    expect(cellsOf(t).map((r) => [r['eventTimestamp'], r['exchTime']])).toEqual([
      [1709735400123456789n, 1709735400123456000n],
      [1709821800123456790n, 1709821800123456000n],
      [1709908200123456791n, 1709908200123456000n],
    ]);
  });

  it('takes integers of every width and sign, FLOAT and DECIMAL, where the column can hold them', async () => {
    const file = join(tempDir(), 'widths.parquet');
    await duck.run(`COPY (SELECT eventTimestamp, instrumentID, (i * 1000003)::UINTEGER AS volume, (i - 100)::SMALLINT AS lots,
      (i / 4)::REAL AS price, (i % 100)::TINYINT AS held, [i / 2, NULL]::REAL[] AS levels, [i, 4294967295]::UINTEGER[] AS sizes
      FROM src WHERE i < 300) TO '${file}' (FORMAT parquet)`);
    const db = newDb();
    importFile(db, 'Fills', file);
    const rows = cellsOf(ourFills(db).table);
    expect(rows.length).toBe(300);
    rows.forEach((r, i) => {
      expect(r).toMatchObject({ volume: BigInt(i * 1000003), lots: i - 100, price: i / 4, held: BigInt(i % 100), levels: [i / 2, null], sizes: [i, 4294967295] });
    });
    // DECIMALs in INT32 and INT64 (DuckDB's literals and fixed-point columns) into float columns
    const decimals = join(tempDir(), 'decimals.parquet');
    await duck.run(`COPY (SELECT eventTimestamp, instrumentID, (i * 0.37)::DECIMAL(9, 2) AS price, [(i * 1.0001)::DECIMAL(18, 4), NULL] AS levels
      FROM src WHERE i < 300) TO '${decimals}' (FORMAT parquet)`);
    const types = await rowsOf(`SELECT name, type, converted_type FROM parquet_schema('${decimals}') WHERE name IN ('price', 'element')`);
    expect(types.map((x) => `${x['type']} ${x['converted_type']}`)).toEqual(['INT32 DECIMAL', 'INT64 DECIMAL']);
    const dec = newDb();
    importFile(dec, 'Fills', decimals);
    cellsOf(ourFills(dec).table).forEach((r, i) => {
      expect(r).toMatchObject({ price: Number(((i * 37) / 100).toFixed(2)), levels: [Number(((i * 10001) / 10000).toFixed(4)), null] });
    });
    const beyond = join(tempDir(), 'u64.parquet');
    await duck.run(`COPY (SELECT eventTimestamp, instrumentID, CASE WHEN i = 7 THEN 9223372036854775808 ELSE i END::UBIGINT AS volume FROM src WHERE i < 10)
      TO '${beyond}' (FORMAT parquet)`);
    expect(() => importFile(db, 'Fills', beyond)).toThrow(`${beyond}: row 8 (row group 1 of 1), column volume: 9223372036854775808 is outside the long range (±9223372036854775807)`);
  });

  it('reads legacy INT96 timestamps (Impala, Spark) exactly, from a file with REQUIRED columns', () => {
    // DuckDB no longer writes INT96, so the file is assembled here: one row group, plain pages
    const instants = [1709735400123456789n, -86399999999999n, 0n];
    const file = join(tempDir(), 'int96.parquet');
    writeFileSync(file, int96File(instants, ['AAPL', 'MSFT', 'IBM']));
    const db = Database.create(join(tempDir(), 'db'));
    importFile(db, 'Trade', file);
    const t = new Engine([db]).call('getTicks', { table: 'Trade', columns: ['instrumentID'] }).table;
    expect(cellsOf(t)).toEqual([
      { eventTimestamp: -86399999999999n, instrumentID: 'MSFT' },
      { eventTimestamp: 0n, instrumentID: 'IBM' },
      { eventTimestamp: 1709735400123456789n, instrumentID: 'AAPL' },
    ]);
  });

  it('reads a column the file lacks as null, and appends to what is stored', async () => {
    const file = join(tempDir(), 'few.parquet');
    await duck.run(`COPY (SELECT eventTimestamp, instrumentID, price FROM src WHERE i < 10) TO '${file}' (FORMAT parquet)`);
    const db = newDb();
    importFile(db, 'Fills', file);
    // the same file again is a re-import, written again only when asked
    expect(importFile(db, 'Fills', file)).toMatchObject({ written: false, rows: 0 });
    expect(importFile(db, 'Fills', file, { reimport: 'append' })).toMatchObject({ written: true, rows: 10 });
    const rows = cellsOf(ourFills(db).table);
    expect(rows.length).toBe(20);
    expect(rows[0]).toMatchObject({ volume: null, lots: null, tradeDate: null, held: null, flag: false, note: '', venue: '', levels: [], sizes: [] });
  });

  it('imports a file with no rows as nothing', async () => {
    const file = join(tempDir(), 'empty.parquet');
    await duck.run(`COPY (SELECT ${ALL} FROM src WHERE i < 0) TO '${file}' (FORMAT parquet)`);
    const db = newDb();
    expect(importFile(db, 'Fills', file)).toMatchObject({ rows: 0, partitions: [] });
  });

});

/** JSON.stringify replacer keeping bigints distinct from numbers. */
function big(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}

// ---------------------------------------------------------------------------------------------

/**
 * A Parquet file of two REQUIRED columns, INT96 timestamps (nanoseconds of the day, then the Julian
 * day, little-endian) and UTF8 identifiers, each one uncompressed PLAIN data page.
 */
function int96File(instants: readonly bigint[], ids: readonly string[]): Uint8Array {
  const day = 86_400_000_000_000n;
  const n = instants.length;
  const times = new DataView(new ArrayBuffer(12 * n));
  instants.forEach((ns, i) => {
    const days = ns >= 0n ? ns / day : -((-ns + day - 1n) / day);
    times.setBigInt64(12 * i, ns - days * day, true);
    times.setInt32(12 * i + 8, Number(days) + 2440588, true);
  });
  const text = new TextEncoder();
  const names = ids.flatMap((id) => {
    const b = text.encode(id);
    const len = new Uint8Array(4);
    new DataView(len.buffer).setUint32(0, b.length, true);
    return [len, b];
  });
  const idBytes = new Uint8Array(names.reduce((a, b) => a + b.length, 0));
  names.reduce((at, b) => (idBytes.set(b, at), at + b.length), 0);
  const w = new ByteWriter();
  w.appendUint32(0x31524150); // PAR1
  const chunk = (name: string, type: 'INT96' | 'BYTE_ARRAY', values: Uint8Array): ColumnChunk => {
    const start = w.offset;
    writePageHeader(w, {
      type: 'DATA_PAGE',
      uncompressed_page_size: values.length,
      compressed_page_size: values.length,
      data_page_header: { num_values: n, encoding: 'PLAIN', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
    });
    w.appendBytes(values);
    const size = BigInt(w.offset - start);
    return {
      file_offset: BigInt(start),
      meta_data: {
        type, encodings: ['PLAIN'], path_in_schema: [name], codec: 'UNCOMPRESSED', num_values: BigInt(n),
        total_uncompressed_size: size, total_compressed_size: size, data_page_offset: BigInt(start),
      },
    };
  };
  const columns = [chunk('eventTimestamp', 'INT96', new Uint8Array(times.buffer)), chunk('instrumentID', 'BYTE_ARRAY', idBytes)];
  const before = w.offset;
  writeMetadata(w, {
    version: 1,
    schema: [
      { name: 'schema', num_children: 2 },
      { name: 'eventTimestamp', type: 'INT96', repetition_type: 'REQUIRED' },
      { name: 'instrumentID', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    ],
    num_rows: BigInt(n),
    row_groups: [{ columns, total_byte_size: BigInt(before - 4), num_rows: BigInt(n) }],
    metadata_length: 0,
  });
  w.appendUint32(0x31524150);
  return w.getBytes().slice();
}

/**
 * A copy of a Parquet file whose timestamp columns are annotated as plain INT64: DuckDB 1.5 reads
 * TIMESTAMP(NANOS, isAdjustedToUTC=true) as TIMESTAMPTZ, which holds microseconds, so to see every
 * nanosecond DuckDB decodes the very same pages as int64. Only the footer changes.
 */
function withPlainTimestamps(bytes: Uint8Array): Uint8Array {
  const buffer = bytes.slice().buffer;
  const meta = parquetMetadata(buffer);
  for (const el of meta.schema) {
    if (el.logical_type?.type === 'TIMESTAMP') {
      delete el.logical_type;
      delete el.converted_type;
    }
  }
  for (const g of meta.row_groups) for (const c of g.columns) if (c.meta_data) delete c.meta_data.statistics;
  const footer = new ByteWriter();
  writeMetadata(footer, meta);
  footer.appendUint32(0x31524150); // PAR1
  const body = bytes.subarray(0, bytes.length - 8 - meta.metadata_length);
  const out = new Uint8Array(body.length + footer.index);
  out.set(body);
  out.set(footer.getBytes(), body.length);
  return out;
}

/** Writes a result with our writer, then reads it in DuckDB: its schema, metadata and every value. */
async function roundTrip(r: QueryResult, name: string, opts: { rowGroupRows?: number } = {}) {
  const file = join(tempDir(), `${name}.parquet`);
  const bytes = await resultToParquet(r, opts);
  writeFileSync(file, bytes);
  const plain = join(tempDir(), `${name}-plain.parquet`);
  writeFileSync(plain, withPlainTimestamps(bytes));
  const defs = r.table.defs;
  const types = new Map(defs.map((d) => [d.name, d.type]));
  // DuckDB's view of the exact file: ns timestamps as BIGINT from the copy, everything else as is
  const select = defs.map((d) => (d.type === 'symbol' || d.type === 'string' ? `coalesce(${d.name}, '') AS ${d.name}` : d.type === 'date' ? `(${d.name} - DATE '1970-01-01')::INTEGER AS ${d.name}` : d.name));
  const values = (await rowsOf(`SELECT ${select.join(', ')} FROM read_parquet('${plain}')`)).map(fromDuck);
  return { file, bytes, types, values };
}

describe('Parquet export read back in DuckDB', () => {
  const demoDir = join(tempDir(), 'demo');
  generateDemo(demoDir, { seed: 5, days: 2, instruments: 4, tradesPerDay: 6000 });
  const demo = Engine.open([demoDir]);

  it('getTicks Trade in New York time: every value, timestamps to the nanosecond, the zone in the metadata', async () => {
    const args = { table: 'Trade', outputTZ: 'America/New_York' };
    const r = demo.call('getTicks', args);
    expect(r.table.length).toBeGreaterThan(10000);
    // 3 row groups of 5000 and a shorter last one, streamed
    const { file, values } = await roundTrip(r, 'trade', { rowGroupRows: 5000 });
    expect(values).toEqual(cellsOf(r.table));

    const types = Object.fromEntries((await rowsOf(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).map((x) => [x['column_name'], x['column_type']]));
    expect(types).toMatchObject({ eventTimestamp: 'TIMESTAMP WITH TIME ZONE', instrumentID: 'VARCHAR', price: 'DOUBLE', volume: 'BIGINT' });
    const schemaRows = await rowsOf(`SELECT name, type, logical_type, repetition_type FROM parquet_schema('${file}')`);
    const ts = schemaRows.find((x) => x['name'] === 'eventTimestamp')!;
    expect(ts['type']).toBe('INT64');
    expect(String(ts['logical_type'])).toMatch(/isAdjustedToUTC=1.*NANOS=NanoSeconds/);
    expect(schemaRows.filter((x) => x['name'] !== 'schema').every((x) => x['repetition_type'] === 'OPTIONAL')).toBe(true);
    const kv = Object.fromEntries((await rowsOf(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${file}')`)).map((x) => [x['k'], x['v']]));
    expect(kv[PARQUET_KEYS.outputTZ]).toBe('America/New_York');
    expect(JSON.parse(String(kv[PARQUET_KEYS.types]))).toMatchObject({ eventTimestamp: 'timestamp', instrumentID: 'symbol', volume: 'long' });
    const meta = await rowsOf(`SELECT row_group_id, path_in_schema, encodings, num_values FROM parquet_metadata('${file}')`);
    expect(new Set(meta.map((m) => m['row_group_id'])).size).toBe(Math.ceil(r.table.length / 5000));
    for (const m of meta.filter((x) => ['instrumentID', 'conditions', 'srcSys'].includes(String(x['path_in_schema'])))) expect(m['encodings']).toMatch(/RLE_DICTIONARY/);

    // DuckDB's own reading of the unmodified file: the same instants, to its microsecond
    const micros = await rowsOf(`SELECT epoch_us(eventTimestamp) AS us FROM read_parquet('${file}')`);
    const ns = r.table.col('eventTimestamp') as { data: BigInt64Array };
    micros.forEach((m, i) => expect(m['us']).toBe(ns.data[i]! / 1000n));

    // and exactly the JSON payload: the UTC instants rendered in the file's outputTZ
    const payload = payloadRows(demo, 'getTicks', args);
    const rendered = textCells({ type: 'timestamp', data: BigInt64Array.from(values, (v) => v['eventTimestamp'] as bigint) }, String(kv[PARQUET_KEYS.outputTZ]));
    payload.forEach((p, i) => expect(p['eventTimestamp'], `row ${i}`).toBe(rendered(i)));
    expect(payload.map((p) => p['price'])).toEqual(values.map((v) => v['price']));
  });

  it('getTicks OrderbookSnapshots: float[] and long[] as LISTs of DOUBLE and INT64', async () => {
    const r = demo.call('getTicks', { table: 'OrderbookSnapshots' });
    expect(r.table.length).toBeGreaterThan(100);
    const { file, values } = await roundTrip(r, 'book');
    expect(values).toEqual(cellsOf(r.table));
    const types = Object.fromEntries((await rowsOf(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).map((x) => [x['column_name'], x['column_type']]));
    expect(types).toMatchObject({ bidPrice: 'DOUBLE[]', bidSize: 'BIGINT[]', askCount: 'BIGINT[]' });
  });

  it('getStats minute bars (a computed result) and an empty result', async () => {
    const day = demo.defaultDatabase.partitionKeys('Trade')[0]!.replace(/-/g, '.');
    const r = demo.call('getStats', { table: 'Trade', startTS: `${day}D13:00`, endTS: `${day}D17:00`, granularityUnit: 'minute', analytics: ['firstPrice', 'maxPrice', 'lastPrice', 'sumVolume'], agg: { n: ['count', 'i'] } });
    expect(r.table.length).toBeGreaterThan(100);
    const { values } = await roundTrip(r, 'bars');
    expect(values).toEqual(cellsOf(r.table));

    const none = demo.call('getTicks', { table: 'Trade', startTS: '2000.01.01', endTS: '2000.01.02' });
    expect(none.table.length).toBe(0);
    const empty = await roundTrip(none, 'none');
    expect(empty.values).toEqual([]);
    const described = await rowsOf(`DESCRIBE SELECT * FROM read_parquet('${empty.file}')`);
    expect(described.map((x) => x['column_name'])).toEqual(none.table.names);
  });

  it('every type and null (a table imported from DuckDB), and back through our own import', async () => {
    const file = join(tempDir(), 'fills-src.parquet');
    await duck.run(`COPY (SELECT ${ALL} FROM src) TO '${file}' (FORMAT parquet)`);
    const db = newDb();
    importFile(db, 'Fills', file);
    const r = new Engine([db]).call('getTicks', { table: 'Fills', columns: NON_TIME, outputTZ: 'Asia/Tokyo' });
    const { file: out, values, types } = await roundTrip(r, 'fills-out', { rowGroupRows: 1500 });
    const ours = cellsOf(r.table);
    for (let i = 0; i < ours.length; i++) {
      if (JSON.stringify(values[i], big) !== JSON.stringify(ours[i], big)) expect(values[i], `row ${i}`).toEqual(ours[i]);
    }
    expect(values.length).toBe(ROWS);

    // the JSON payload, cell for cell, from what DuckDB read: nulls, infinity, dates, timespans
    const payload = payloadRows(new Engine([db]), 'getTicks', { table: 'Fills', columns: NON_TIME, outputTZ: 'Asia/Tokyo' });
    const asJson = jsonFromDuck(values, types, 'Asia/Tokyo');
    for (let i = 0; i < ROWS; i++) expect(asJson[i], `row ${i}`).toEqual(payload[i]);

    // DuckDB's types; the timespan column marked in its column chunks' metadata
    const described = Object.fromEntries((await rowsOf(`DESCRIBE SELECT * FROM read_parquet('${out}')`)).map((x) => [x['column_name'], x['column_type']]));
    expect(described).toEqual({
      eventTimestamp: 'TIMESTAMP WITH TIME ZONE', instrumentID: 'VARCHAR', exchTime: 'TIMESTAMP WITH TIME ZONE', price: 'DOUBLE',
      volume: 'BIGINT', lots: 'INTEGER', tradeDate: 'DATE', held: 'BIGINT', flag: 'BOOLEAN', note: 'VARCHAR', venue: 'VARCHAR',
      execID: 'VARCHAR', levels: 'DOUBLE[]', sizes: 'BIGINT[]',
    });
    const chunkMeta = await rowsOf(`SELECT path_in_schema, map_extract(key_value_metadata, 'tickscope.type'::BLOB)[1]::VARCHAR AS t FROM parquet_metadata('${out}')`);
    for (const m of chunkMeta) expect(m['t'] ?? null, String(m['path_in_schema'])).toBe(m['path_in_schema'] === 'held' ? 'timespan' : null);

    // our import reads our file back to the same table
    const again = newDb();
    expect(importFile(again, 'Fills', out).rows).toBe(ROWS);
    expect(cellsOf(ourFills(again).table).map((x) => JSON.stringify(x, big))).toEqual(ours.map((x) => JSON.stringify(x, big)));
  });

  it('streams row groups to a consumer that is slower than the writer', async () => {
    const r = demo.call('getTicks', { table: 'Quote' });
    const chunks: number[] = [];
    await writeResultParquet(
      r,
      (bytes) =>
        new Promise<void>((resolve) => {
          chunks.push(bytes.length);
          setTimeout(resolve, 1);
        }),
      { rowGroupRows: 4000 },
    );
    // one chunk per row group, then the footer
    expect(chunks.length).toBe(Math.ceil(r.table.length / 4000) + 1);
  });
});

/** DuckDB's exact values rendered as the JSON payload renders them (SPEC 2). */
function jsonFromDuck(rows: Array<Record<string, unknown>>, types: ReadonlyMap<string, ColumnType>, zone: string): Array<Record<string, unknown>> {
  const tsColumns = [...types].filter(([, t]) => t === 'timestamp').map(([name]) => name);
  const rendered = new Map(
    tsColumns.map((name) => {
      const data = BigInt64Array.from(rows, (r) => (r[name] === null ? -9223372036854775808n : (r[name] as bigint)));
      return [name, textCells({ type: 'timestamp', data }, zone)] as const;
    }),
  );
  return rows.map((row, i) =>
    Object.fromEntries(
      Object.entries(row).map(([name, v]) => {
        if (v === null) return [name, null];
        switch (types.get(name)) {
          case 'timestamp':
            return [name, rendered.get(name)!(i)];
          case 'timespan':
            return [name, formatTimespan(v as bigint)];
          case 'date':
            return [name, formatDate(v as number)];
          case 'long':
            return [name, Number(v)];
          case 'float':
            // the payload writes infinities as strings, and -0 as 0 (String(-0))
            return [name, v === Infinity ? 'inf' : v === -Infinity ? '-inf' : Object.is(v, -0) ? 0 : v];
          default:
            return [name, v];
        }
      }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------

describe('Parquet import errors', () => {
  /** Runs the import expecting an importFailed error; checks the database did not change. */
  function refused(db: Database, table: string, file: string): string {
    const manifest = readFileSync(join(db.dir, 'manifest.json'), 'utf8');
    const rows = db.rowCount(table);
    let message = '';
    try {
      importFile(db, table, file);
    } catch (e) {
      expect(e).toBeInstanceOf(TickscopeError);
      expect((e as TickscopeError).kind).toBe('importFailed');
      message = (e as Error).message;
    }
    expect(message, 'the import should have failed').not.toBe('');
    expect(message.startsWith(`${file}: `)).toBe(true);
    expect(readFileSync(join(db.dir, 'manifest.json'), 'utf8')).toBe(manifest);
    expect(db.rowCount(table)).toBe(rows);
    return message;
  }

  // a database holding 100 rows, so "unchanged" means something
  let db: Database;
  beforeAll(async () => {
    db = newDb();
    const ok = join(tempDir(), 'first.parquet');
    await duck.run(`COPY (SELECT ${ALL} FROM src WHERE i < 100) TO '${ok}' (FORMAT parquet)`);
    importFile(db, 'Fills', ok);
    expect(db.rowCount('Fills')).toBe(100);
  });

  const copy = async (name: string, select: string, options = ''): Promise<string> => {
    const file = join(tempDir(), name);
    await duck.run(`COPY (${select}) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 2048${options})`);
    return file;
  };

  it('an unknown file type names .parquet among the ones it takes', () => {
    const file = join(tempDir(), 'trades.xlsx');
    writeFileSync(file, 'x');
    expect(refused(db, 'Fills', file)).toBe(`${file}: unknown file type ".xlsx"; expected .csv, Arrow IPC (.arrow, .arrows, .ipc, .feather) or .parquet`);
  });

  it('an unknown column, naming it and the expected names', async () => {
    const file = await copy('unknown.parquet', 'SELECT eventTimestamp, instrumentID, price AS prize FROM src');
    expect(refused(db, 'Fills', file)).toBe(`${file}: column prize is not a column of Fills; expected names from ${FILLS.columns.map((c) => c.name).join(', ')}`);
  });

  it('a missing time column, and a missing identifier column', async () => {
    const noTime = await copy('notime.parquet', 'SELECT instrumentID, price FROM src');
    expect(refused(db, 'Fills', noTime)).toBe(`${noTime}: lacks column eventTimestamp, which every Fills row needs`);
    const noId = await copy('noid.parquet', 'SELECT eventTimestamp, price FROM src');
    expect(refused(db, 'Fills', noId)).toBe(`${noId}: lacks column instrumentID, which every Fills row needs`);
  });

  it('a column of the wrong type, naming both types', async () => {
    const file = await copy('text-price.parquet', "SELECT eventTimestamp, instrumentID, 'x' || i AS price FROM src");
    expect(refused(db, 'Fills', file)).toBe(`${file}: column price is Parquet BYTE_ARRAY (UTF8); a float column takes DOUBLE, FLOAT, DECIMAL (in INT32 or INT64) or an integer type`);
    const list = await copy('list-volume.parquet', 'SELECT eventTimestamp, instrumentID, [i] AS volume FROM src');
    expect(refused(db, 'Fills', list)).toMatch(/column volume is Parquet LIST of INT64 \(INT_64\); a long column takes INT64, INT32 or DOUBLE/);
    const date = await copy('date-ts.parquet', "SELECT DATE '2024-03-06' AS eventTimestamp, instrumentID FROM src");
    expect(refused(db, 'Fills', date)).toMatch(/column eventTimestamp is Parquet INT32 \(DATE\); a timestamp column takes INT64 TIMESTAMP/);
  });

  it('a value its column cannot hold, with its row, row group and column', async () => {
    // rows are 0-based i; row group 2 of 3 holds i = 2048..4095; the first bad value is i = 2500
    const base = 'SELECT eventTimestamp, instrumentID';
    const fraction = await copy('fraction.parquet', `${base}, CASE WHEN i >= 2500 THEN i + 0.5 ELSE i END::DOUBLE AS volume FROM src`);
    expect(refused(db, 'Fills', fraction)).toBe(`${fraction}: row 2501 (row group 2 of 3), column volume: 2500.5 is not a long (a whole number)`);
    const wide = await copy('wide.parquet', `${base}, CASE WHEN i = 4500 THEN 3000000000 ELSE i END::BIGINT AS lots FROM src`);
    expect(refused(db, 'Fills', wide)).toBe(`${wide}: row 4501 (row group 3 of 3), column lots: 3000000000 is not an int (a whole number within ±2147483647)`);
    const late = await copy('late.parquet', `SELECT CASE WHEN i = 3000 THEN TIMESTAMP '2300-01-01' ELSE eventTimestamp::TIMESTAMP END AS eventTimestamp, instrumentID FROM src`);
    expect(refused(db, 'Fills', late)).toBe(`${late}: row 3001 (row group 2 of 3), column eventTimestamp: 10413792000000000 µs is outside the timestamp range (1677-09-21 to 2262-04-11 in nanoseconds)`);
    const list = await copy('half.parquet', `${base}, CASE WHEN i = 10 THEN [1.0, 2.5] ELSE [1.0] END::DOUBLE[] AS sizes FROM src`);
    expect(refused(db, 'Fills', list)).toBe(`${list}: row 11 (row group 1 of 3), column sizes: 2.5 is not a whole number, as a long[] element must be`);
    const nullTime = await copy('nulltime.parquet', 'SELECT CASE WHEN i = 4097 THEN NULL ELSE eventTimestamp END AS eventTimestamp, instrumentID FROM src');
    expect(refused(db, 'Fills', nullTime)).toBe(`${nullTime}: row 4098 (row group 3 of 3), column eventTimestamp: null; every Fills row needs its time column`);
  });

  it('a damaged file: not Parquet, cut short, or a broken page, naming the row group and column', async () => {
    const good = await copy('good.parquet', `SELECT ${ALL} FROM src`);
    const bytes = readFileSync(good);

    const notParquet = join(tempDir(), 'text.parquet');
    writeFileSync(notParquet, 'eventTimestamp,instrumentID\n2024.03.06,AAPL\n');
    expect(refused(db, 'Fills', notParquet)).toMatch(/: not a Parquet file, or one cut short \(/);

    const cut = join(tempDir(), 'cut.parquet');
    writeFileSync(cut, bytes.subarray(0, bytes.length - 100));
    expect(refused(db, 'Fills', cut)).toMatch(/: not a Parquet file, or one cut short \(/);

    // overwrite the first page header of price's chunk in row group 2
    const [chunk] = await rowsOf(`SELECT data_page_offset, dictionary_page_offset FROM parquet_metadata('${good}') WHERE row_group_id = 1 AND path_in_schema = 'price'`);
    const offset = Number(chunk!['dictionary_page_offset'] || chunk!['data_page_offset']);
    const broken = Buffer.from(bytes);
    broken.fill(0xff, offset, offset + 12);
    const brokenFile = join(tempDir(), 'broken.parquet');
    writeFileSync(brokenFile, broken);
    expect(refused(db, 'Fills', brokenFile)).toMatch(new RegExp(`^${escape(brokenFile)}: row group 2 of 3, column price: damaged \\(`));
  });
});

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
