/**
 * Damaged Arrow IPC and Parquet files are clear errors (issue 30): every count and length the file
 * claims is checked against the bytes present before anything is allocated from it, so a file cut
 * short or with a length overwritten is an importFailed error naming the file, the field and the
 * lengths, never a RangeError, an allocation the bytes cannot back, or a short import. The files are
 * real ones (hyparquet-writer through Tickscope's Parquet export, apache-arrow's tableToIPC in both
 * formats), damaged here.
 */
import { Float64, Int64, makeData, makeVector, Table as ArrowTable, tableToIPC, TimestampMicrosecond, TimestampNanosecond, TimestampSecond, Utf8, vectorFromArray } from 'apache-arrow';
import { type FileMetaData, type PageHeader, parquetMetadata } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import type { Table } from '../../../engine/core/table.js';
import { resultToParquet } from '../../../engine/output/parquet.js';
import { parseArrow } from '../../../engine/storage/import.js';
import { parseParquet } from '../../../engine/storage/parquet/read.js';
import type { TableSchema } from '../../../engine/storage/schema.js';
import { type Cell, expectTableEqual, tableFromColumns } from '../../helpers/table-equal.js';

const T: TableSchema = {
  name: 'T',
  kind: 'partitioned',
  timeColumn: 'time',
  idColumn: 'sym',
  foreignKeys: {},
  columns: [
    { name: 'time', type: 'timestamp' },
    { name: 'sym', type: 'symbol' },
    { name: 'price', type: 'float' },
    { name: 'size', type: 'long' },
  ],
};

const ROWS = 40;
const BASE = 1709735400000000000n; // 2024-03-06T14:30:00Z
const times = Array.from({ length: ROWS }, (_, i) => BASE + BigInt(i) * 1_000_000_000n + BigInt((i * 7919) % 1_000_000));
const syms = Array.from({ length: ROWS }, (_, i) => ['AAPL', 'MSFT', 'IBM'][i % 3]!);
const prices = Array.from({ length: ROWS }, (_, i) => 100 + i * 0.25);
const sizes = Array.from({ length: ROWS }, (_, i) => BigInt(100 * (i + 1)));

/** Rows [from, to) of the test data as an engine table. */
const want = (from = 0, to = ROWS): Table =>
  tableFromColumns({
    time: ['timestamp', times.slice(from, to) as Cell[]],
    sym: ['symbol', syms.slice(from, to)],
    price: ['float', prices.slice(from, to)],
    size: ['long', sizes.slice(from, to) as Cell[]],
  });

/** The error `run` throws: an importFailed TickscopeError (anything else fails the test). */
function refusal(run: () => unknown): string {
  let thrown: unknown;
  try {
    run();
  } catch (e) {
    thrown = e;
  }
  if (!(thrown instanceof TickscopeError)) throw new Error(`expected a TickscopeError, got ${thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown)}`);
  expect(thrown.kind).toBe('importFailed');
  return thrown.message;
}

const le = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);

// ---------------------------------------------------------------------------------------------
// Parquet

const PQ = 'x.parquet';
let pq: Uint8Array;
let meta: FileMetaData;
let dataEnd: number;

/** The file with its footer rewritten after `change` (hyparquet's reading of it, written back by hyparquet-writer). */
function withFooter(change: (m: FileMetaData) => void): Uint8Array {
  const m = parquetMetadata(pq.slice().buffer);
  change(m);
  const footer = new ByteWriter();
  writeMetadata(footer, m);
  footer.appendUint32(0x31524150); // PAR1
  return concat(pq.subarray(0, dataEnd), new Uint8Array(footer.getBytes()));
}

const concat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

/** The largest value whose zigzag varint takes as many bytes as `v`'s (so a header keeps its length). */
function sameWidthMax(v: number): number {
  let bytes = 1;
  while (2 * v >= 2 ** (7 * bytes)) bytes++;
  return Math.floor((2 ** (7 * bytes) - 1) / 2);
}

/** The file with the page header at `at` changed in place (its encoded length kept). */
function withHeader(at: number, change: (h: PageHeader) => void): Uint8Array {
  const out = pq.slice();
  const reader = { view: new DataView(out.buffer, at), offset: 0 };
  const header = parquetHeader(reader);
  change(header);
  const w = new ByteWriter();
  writePageHeader(w, header);
  const encoded = new Uint8Array(w.getBytes());
  expect(encoded.length).toBe(reader.offset);
  out.set(encoded, at);
  return out;
}

/** Where column `name`'s chunk of row group `g` starts, and its first page header. */
function chunkStart(g: number, name: string): number {
  const m = meta.row_groups[g]!.columns.find((c) => c.meta_data?.path_in_schema[0] === name)!.meta_data!;
  return Number(m.dictionary_page_offset || m.data_page_offset);
}

describe('damaged Parquet files', () => {
  beforeAll(async () => {
    pq = await resultToParquet({ table: want(), outputTZ: 'UTC', tableName: 'T', timeColumn: 'time', idColumn: 'sym' }, { rowGroupRows: 10 });
    meta = parquetMetadata(pq.slice().buffer);
    dataEnd = pq.length - 8 - le(pq).getUint32(pq.length - 8, true);
  });

  it('the undamaged file imports every row', () => {
    expect(meta.row_groups).toHaveLength(4);
    expectTableEqual(parseParquet(T, pq, PQ), want());
  });

  it('a file cut anywhere is refused: its end is not "PAR1"', () => {
    for (let cut = 0; cut < pq.length; cut++) {
      const msg = refusal(() => parseParquet(T, pq.subarray(0, cut), PQ));
      expect(msg).toMatch(/^x\.parquet: not a Parquet file, or one cut short \((too short|it does not start with "PAR1"|it does not end with "PAR1")/);
      expect(msg).toContain(`the file is ${cut.toLocaleString('en-US')} bytes`);
    }
  });

  it('a file cut anywhere in its row groups, its footer kept: the chunks past the cut are named', () => {
    const footer = pq.subarray(dataEnd);
    for (let cut = 4; cut < dataEnd; cut += 3) {
      const msg = refusal(() => parseParquet(T, concat(pq.subarray(0, cut), footer), PQ));
      expect(msg).toMatch(/^x\.parquet: row group \d of 4, column \w+: damaged \(its (column chunk|offset index|column index) at byte [\d,]+ of [\d,]+ bytes \((total_compressed_size|offset_index_length|column_index_length)\) runs outside the file's column data, bytes 4 to [\d,]+; the file is [\d,]+ bytes\)$/);
      expect(msg).toContain(`bytes 4 to ${cut.toLocaleString('en-US')}`);
    }
  });

  it('a footer length past the file, a footer that does not parse, a first "PAR1" gone', () => {
    const huge = pq.slice();
    le(huge).setUint32(huge.length - 8, 123456, true);
    expect(refusal(() => parseParquet(T, huge, PQ))).toBe(`x.parquet: damaged: footer length 123,456 is past the file's start (the file is ${pq.length.toLocaleString('en-US')} bytes)`);
    le(huge).setUint32(huge.length - 8, 0xffffffff, true);
    expect(refusal(() => parseParquet(T, huge, PQ))).toMatch(/^x\.parquet: damaged: footer length 4,294,967,295 is past the file's start/);

    // the footer's first bytes overwritten
    const garbled = pq.slice();
    garbled.fill(0xff, dataEnd, dataEnd + 16);
    expect(refusal(() => parseParquet(T, garbled, PQ))).toMatch(/^x\.parquet: damaged: its footer \([\d,]+ bytes of metadata before the last 8\) does not parse \(/);

    const head = pq.slice();
    head[0] = 0x50 ^ 0xff;
    expect(refusal(() => parseParquet(T, head, PQ))).toMatch(/^x\.parquet: not a Parquet file, or one cut short \(it does not start with "PAR1"; the file is/);
  });

  it("a row group's num_rows, a chunk's offsets, sizes and value count past what the file holds", () => {
    const cases: Array<[string, (m: FileMetaData) => void, RegExp]> = [
      [
        'num_rows a billion',
        (m) => {
          m.row_groups[1]!.num_rows = 1_000_000_000n;
          m.num_rows = 30n + 1_000_000_000n;
        },
        /^x\.parquet: row group 2 of 4, column time: damaged \(its column chunk holds 10 values \(num_values\) where the row group has 1,000,000,000 rows \(num_rows\)\)$/,
      ],
      [
        'num_rows negative',
        (m) => {
          m.row_groups[2]!.num_rows = -5n;
          m.num_rows = 25n;
        },
        /^x\.parquet: row group 3 of 4: damaged \(its num_rows is -5\)$/,
      ],
      [
        'num_rows and num_values a billion alike',
        (m) => {
          m.row_groups[0]!.num_rows = 1_000_000_000n;
          m.num_rows = 30n + 1_000_000_000n;
          for (const c of m.row_groups[0]!.columns) c.meta_data!.num_values = 1_000_000_000n;
        },
        /^x\.parquet: row group 1 of 4, column time: damaged \(its pages end after 10 of its 1,000,000,000 values \(num_values\); the column chunk is [\d,]+ bytes\)$/,
      ],
      [
        'total_compressed_size past the end',
        (m) => void (m.row_groups[3]!.columns[2]!.meta_data!.total_compressed_size = 1n << 40n),
        /^x\.parquet: row group 4 of 4, column price: damaged \(its column chunk at byte [\d,]+ of 1,099,511,627,776 bytes \(total_compressed_size\) runs outside the file's column data/,
      ],
      [
        'total_compressed_size negative',
        (m) => void (m.row_groups[3]!.columns[2]!.meta_data!.total_compressed_size = -1n),
        /^x\.parquet: row group 4 of 4, column price: damaged \(its column chunk at byte [\d,]+ of -1 bytes \(total_compressed_size\) runs outside/,
      ],
      [
        'data_page_offset past the end',
        (m) => {
          const c = m.row_groups[1]!.columns[3]!.meta_data!;
          c.data_page_offset = 1n << 50n;
          delete c.dictionary_page_offset;
        },
        /^x\.parquet: row group 2 of 4, column size: damaged \(its column chunk at byte 1,125,899,906,842,624 of [\d,]+ bytes \(total_compressed_size\) runs outside/,
      ],
    ];
    for (const [name, change, expected] of cases) {
      const msg = refusal(() => parseParquet(T, withFooter(change), PQ));
      expect(msg, name).toMatch(expected);
    }
  });

  it("a page's sizes and value counts past its chunk or its bytes", () => {
    const time = chunkStart(2, 'time');
    const sym = chunkStart(1, 'sym');
    const page = (at: number): string => `^x\\.parquet: row group \\d of 4, column \\w+: damaged \\(page 1 at byte ${at.toLocaleString('en-US')}`;

    expect(refusal(() => parseParquet(T, withHeader(time, (h) => void (h.compressed_page_size = sameWidthMax(h.compressed_page_size))), PQ))).toMatch(
      new RegExp(`${page(time)}: compressed_page_size [\\d,]+ runs past its column chunk, of which [\\d,]+ bytes are left\\)$`),
    );
    expect(refusal(() => parseParquet(T, withHeader(time, (h) => void (h.uncompressed_page_size = sameWidthMax(h.uncompressed_page_size))), PQ))).toMatch(
      new RegExp(`${page(time)}: uncompressed_page_size [\\d,]+ is more than SNAPPY makes of its [\\d,]+ bytes, compressed_page_size \\(at most 24 times\\)\\)$`),
    );
    expect(refusal(() => parseParquet(T, withHeader(time, (h) => void ((h.data_page_header ?? h.data_page_header_v2)!.num_values = sameWidthMax(10))), PQ))).toMatch(
      /^x\.parquet: row group 3 of 4, column time: damaged \(its data pages hold 63 values where the column chunk claims 10, num_values\)$/,
    );
    // the symbol column's dictionary page, first in its chunk
    expect(refusal(() => parseParquet(T, withHeader(sym, (h) => void (h.dictionary_page_header!.num_values = sameWidthMax(h.dictionary_page_header!.num_values))), PQ))).toMatch(
      new RegExp(`${page(sym)}: its dictionary's num_values [\\d,]+ do not fit in its [\\d,]+ bytes, uncompressed_page_size\\)$`),
    );
    // a page header overwritten
    const garbled = pq.slice();
    garbled.fill(0xff, time, time + 12);
    expect(refusal(() => parseParquet(T, garbled, PQ))).toMatch(new RegExp(`${page(time)}: its header does not parse: `));
  });
});

// ---------------------------------------------------------------------------------------------
// Arrow IPC

const AR = 'x.arrow';

/** Rows [from, to) as an Arrow table of one record batch. */
function arrowRows(from: number, to: number): ArrowTable {
  return new ArrowTable({
    time: makeVector(makeData({ type: new TimestampNanosecond(), length: to - from, data: BigInt64Array.from(times.slice(from, to)) })),
    sym: vectorFromArray(syms.slice(from, to), new Utf8()),
    price: vectorFromArray(prices.slice(from, to), new Float64()),
    size: vectorFromArray(sizes.slice(from, to), new Int64()),
  });
}

/** Three record batches of the rows. */
const arrowTable = (): ArrowTable => arrowRows(0, 10).concat(arrowRows(10, 25), arrowRows(25, ROWS));

interface Msg {
  /** Where the message starts (its continuation marker), its metadata length's place, its flatbuffer and its body. */
  readonly at: number;
  readonly lengthAt: number;
  readonly meta: number;
  readonly body: number;
  readonly bodyLength: number;
  readonly type: number;
}

/** A flatbuffer table field's place: the root table's field `id` (and a nested table's with `path`); -1 when absent (its default). */
function fieldAt(b: Uint8Array, start: number, ...path: number[]): number {
  const v = le(b);
  let t = start + v.getUint32(start, true);
  for (let k = 0; ; k++) {
    const vt = t - v.getInt32(t, true);
    const slot = 4 + 2 * path[k]!;
    const off = slot + 2 <= v.getUint16(vt, true) ? v.getUint16(vt + slot, true) : 0;
    if (off === 0) return -1;
    const p = t + off;
    if (k === path.length - 1) return p;
    t = p + v.getUint32(p, true);
  }
}

/** The messages of a stream (or of a file's message part from byte 8). */
function messages(b: Uint8Array, from = 0, end = b.length): Msg[] {
  const v = le(b);
  const out: Msg[] = [];
  let at = from;
  while (at + 8 <= end) {
    const length = v.getInt32(at + 4, true);
    if (length === 0) break;
    const meta = at + 8;
    const field = fieldAt(b, meta, 3);
    const bodyLength = field < 0 ? 0 : Number(v.getBigInt64(field, true));
    const type = v.getUint8(fieldAt(b, meta, 1));
    out.push({ at, lengthAt: at + 4, meta, body: meta + length, bodyLength, type });
    at = meta + length + bodyLength;
  }
  return out;
}

describe('damaged Arrow IPC files', () => {
  const stream = tableToIPC(arrowTable(), 'stream');
  const file = tableToIPC(arrowTable(), 'file');
  const batches = messages(stream).filter((m) => m.type === 3);

  it('the undamaged files, stream and file format, import every row', () => {
    expect(batches).toHaveLength(3);
    expectTableEqual(parseArrow(T, stream, AR), want());
    expectTableEqual(parseArrow(T, file, AR), want());
  });

  it('timestamps in seconds or microseconds widen exactly; one past the nanosecond range is an error naming its row, not a crash', () => {
    const at = (type: TimestampSecond | TimestampMicrosecond, data: bigint[]): Uint8Array =>
      tableToIPC(
        new ArrowTable({
          time: makeVector(makeData({ type, length: data.length, data: BigInt64Array.from(data) })),
          sym: vectorFromArray(data.map(() => 'AAPL'), new Utf8()),
        }),
        'stream',
      );
    const secs = parseArrow(T, at(new TimestampSecond(), [1709735400n, 1709735401n]), AR);
    expect(Array.from((secs.col('time') as { data: BigInt64Array }).data)).toEqual([BASE, BASE + 1_000_000_000n]);
    const micros = parseArrow(T, at(new TimestampMicrosecond(), [1709735400000001n]), AR);
    expect((micros.col('time') as { data: BigInt64Array }).data[0]).toBe(BASE + 1000n);
    // a well-formed file whose seconds are nanoseconds' worth: apache-arrow's get() threw a TypeError
    expect(refusal(() => parseArrow(T, at(new TimestampSecond(), [1709735400n, 1709735400000000000n]), AR))).toBe(
      'x.arrow: row 2, column time: 1709735400000000000 s is outside the timestamp range (±292 years around 1970 in nanoseconds)',
    );
  });

  it('a stream cut anywhere: an error naming the message and both lengths, or at a message boundary the batches before it', () => {
    // a stream may end without its end-of-stream marker: a cut between messages is not detectable,
    // and reads as the record batches before it (the schema alone: no rows)
    const ends = new Map(batches.map((m, k) => [m.body + m.bodyLength, [10, 25, ROWS][k]!]));
    ends.set(messages(stream)[0]!.body, 0);
    expect(refusal(() => parseArrow(T, stream.subarray(0, 0), AR))).toBe('x.arrow: not an Arrow IPC file (it is empty)');
    for (let cut = 1; cut < stream.length; cut++) {
      const bytes = stream.subarray(0, cut);
      if (ends.has(cut)) {
        expectTableEqual(parseArrow(T, bytes, AR), want(0, ends.get(cut)));
        continue;
      }
      const msg = refusal(() => parseArrow(T, bytes, AR));
      expect(msg, `cut at ${cut}`).toMatch(/^x\.arrow: (not an Arrow IPC file \(|damaged: )/);
      expect(msg, `cut at ${cut}`).toMatch(/(metadata length|bodyLength [\d,]+ bytes, [\d,]+ bytes are left)/);
      expect(msg, `cut at ${cut}`).toContain(`the file is ${cut.toLocaleString('en-US')} bytes`);
    }
    // cut inside record batch 2's body: named, with both lengths
    const b2 = batches[1]!;
    const msg = refusal(() => parseArrow(T, stream.subarray(0, b2.body + 20), AR));
    expect(msg).toBe(`x.arrow: damaged: record batch 2 (message 3 at byte ${b2.at.toLocaleString('en-US')}): its body is cut short: bodyLength ${b2.bodyLength.toLocaleString('en-US')} bytes, 20 bytes are left (the file is ${(b2.body + 20).toLocaleString('en-US')} bytes)`);
  });

  it('a metadata length or bodyLength past the end, or negative; a row count or buffer its body cannot hold', () => {
    const b3 = batches[2]!;
    const at = (m: Msg): string => `record batch ${batches.indexOf(m) + 1} (message ${batches.indexOf(m) + 2} at byte ${m.at.toLocaleString('en-US')})`;
    const damaged = (change: (v: DataView) => void): string => {
      const b = stream.slice();
      change(le(b));
      return refusal(() => parseArrow(T, b, AR));
    };
    expect(damaged((v) => v.setBigInt64(fieldAt(stream, b3.meta, 3), 1n << 40n, true))).toMatch(
      new RegExp(`^x\\.arrow: damaged: ${escape(at(b3))}: its body is cut short: bodyLength 1,099,511,627,776 bytes, [\\d,]+ bytes are left`),
    );
    expect(damaged((v) => v.setBigInt64(fieldAt(stream, b3.meta, 3), -1n, true))).toMatch(new RegExp(`^x\\.arrow: damaged: ${escape(at(b3))}: its bodyLength is -1 `));
    expect(damaged((v) => v.setInt32(b3.lengthAt, 0x7fffff00, true))).toMatch(/^x\.arrow: damaged: message 4 at byte [\d,]+: its metadata length 2,147,483,392 runs past the end \([\d,]+ bytes are left\)/);
    expect(damaged((v) => v.setInt32(b3.lengthAt, -8, true))).toMatch(/^x\.arrow: damaged: message 4 at byte [\d,]+: its metadata length is -8, negative/);
    // the record batch's length (rows), its first field node's and its first buffer's
    expect(damaged((v) => v.setBigInt64(fieldAt(stream, b3.meta, 2, 0), 1_000_000_000n, true))).toMatch(
      new RegExp(`^x\\.arrow: damaged: ${escape(at(b3))}: it claims 1,000,000,000 rows in a body of ${b3.bodyLength.toLocaleString('en-US')} bytes`),
    );
    const nodes = (v: DataView): number => {
      const p = fieldAt(stream, b3.meta, 2, 1);
      return p + v.getUint32(p, true) + 4;
    };
    expect(damaged((v) => v.setBigInt64(nodes(v), 1n << 40n, true))).toMatch(new RegExp(`^x\\.arrow: damaged: ${escape(at(b3))}: its field node 1 claims 1,099,511,627,776 values in a body of`));
    const buffers = (v: DataView): number => {
      const p = fieldAt(stream, b3.meta, 2, 2);
      return p + v.getUint32(p, true) + 4;
    };
    expect(damaged((v) => v.setBigInt64(buffers(v) + 16 + 8, BigInt(b3.bodyLength + 1), true))).toMatch(
      new RegExp(`^x\\.arrow: damaged: ${escape(at(b3))}: its buffer 2 \\(offset [\\d,]+, length ${(b3.bodyLength + 1).toLocaleString('en-US')}\\) lies outside its body of ${b3.bodyLength.toLocaleString('en-US')} bytes`),
    );
    // a buffer shorter than its field's values: time's values, price's (a float each), sym's offsets
    for (const [k, field, values] of [
      [2, 'time', 15 * 8],
      [4, 'sym', 16 * 4],
      [7, 'price', 15 * 8],
    ] as const) {
      expect(damaged((v) => v.setBigInt64(buffers(v) + 16 * (k - 1) + 8, 8n, true))).toMatch(
        new RegExp(`^x\\.arrow: damaged: ${escape(at(b3))}: its buffer ${k} \\(of field "${field}"\\) is 8 bytes, less than the ${values} its (15|16) values take`),
      );
    }
    // not Arrow at all
    expect(refusal(() => parseArrow(T, new TextEncoder().encode('time,sym\n2024.03.06,AAPL\n'), AR))).toMatch(/^x\.arrow: not an Arrow IPC file \(message 1 at byte 0: its metadata length [\d,]+ runs past the end/);
  });

  it('the file format: cut anywhere, a footer length past the start, a block past the end or disagreeing with its message', () => {
    for (let cut = 6; cut < file.length; cut++) {
      const msg = refusal(() => parseArrow(T, file.subarray(0, cut), AR));
      expect(msg, `cut at ${cut}`).toMatch(/^x\.arrow: damaged: (too short for an Arrow IPC file|it starts with "ARROW1" but does not end with it)/);
      expect(msg, `cut at ${cut}`).toContain(`(the file is ${cut.toLocaleString('en-US')} bytes)`);
    }
    const size = file.length.toLocaleString('en-US');
    const damaged = (change: (b: Uint8Array, v: DataView) => void): string => {
      const b = file.slice();
      change(b, le(b));
      return refusal(() => parseArrow(T, b, AR));
    };
    expect(damaged((_, v) => v.setInt32(file.length - 10, 1 << 30, true))).toBe(`x.arrow: damaged: its footer length 1,073,741,824 is past the file's start (the file is ${size} bytes)`);
    expect(damaged((_, v) => v.setInt32(file.length - 10, -4, true))).toBe(`x.arrow: damaged: its footer length -4 is past the file's start (the file is ${size} bytes)`);

    // the footer's record batch blocks: offset (8 bytes), metaDataLength (4, then 4 of padding), bodyLength (8)
    const footerStart = file.length - 10 - le(file).getInt32(file.length - 10, true);
    const blocks = (v: DataView): number => {
      const p = fieldAt(file, footerStart, 3);
      return p + v.getUint32(p, true) + 4;
    };
    expect(damaged((_, v) => v.setBigInt64(blocks(v) + 24 + 16, 1n << 40n, true))).toMatch(
      /^x\.arrow: damaged: record batch 2: its body is cut short: its footer block's bodyLength 1,099,511,627,776 bytes, [\d,]+ bytes are left before the footer/,
    );
    expect(damaged((_, v) => v.setInt32(blocks(v) + 24 + 8, 1 << 30, true))).toMatch(/^x\.arrow: damaged: record batch 2: its footer block's metaDataLength 1,073,741,824 runs past the messages' end/);
    expect(damaged((_, v) => v.setBigInt64(blocks(v) + 48, -16n, true))).toMatch(/^x\.arrow: damaged: record batch 3: its footer block's offset -16 is outside the file's messages/);
    const inFile = messages(file, 8, footerStart).filter((m) => m.type === 3);
    // a block's message of another type (apache-arrow's reader would read a schema there again and again)
    // (its record batch then read as a schema or a dictionary batch: damaged either way)
    for (const type of [1, 2]) {
      expect(damaged((_, v) => v.setUint8(fieldAt(file, inFile[1]!.meta, 1), type))).toMatch(/^x\.arrow: damaged: record batch 2: (its footer block points at a message of header type \d, not a record batch|its metadata's [\w ]+ points outside its \d+ bytes) \(the file is/);
    }
    expect(damaged((_, v) => v.setUint8(fieldAt(file, inFile[1]!.meta, 1), 179))).toMatch(/^x\.arrow: damaged: record batch 2: its header type 179 is not a schema \(1\), dictionary batch \(2\) or record batch \(3\)/);
    // a message's bodyLength no longer its block's (longer: its buffers still lie within it)
    expect(damaged((_, v) => v.setBigInt64(fieldAt(file, inFile[0]!.meta, 3), BigInt(inFile[0]!.bodyLength + 8), true))).toMatch(
      new RegExp(`^x\\.arrow: damaged: record batch 1: its message's bodyLength ${(inFile[0]!.bodyLength + 8).toLocaleString('en-US')} is not its footer block's ${inFile[0]!.bodyLength.toLocaleString('en-US')}`),
    );
  });
});

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
