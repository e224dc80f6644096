/**
 * A Parquet file's claims checked against its bytes before anything is allocated from them
 * (issue 30): the magic at both ends and the footer length (before the footer is parsed), then every
 * column chunk's offsets and sizes, every page header's sizes and value counts, and each row group's
 * num_rows against its chunks' and pages' value counts (before a column of num_rows is allocated).
 * What does not fit is an importFailed error naming the file, the row group, the column, the field
 * and both the value claimed and what the file holds.
 */
import type { ColumnMetaData, FileMetaData, PageHeader, ParquetType, SchemaTree } from 'hyparquet';
import { TickscopeError } from '../../core/errors.js';
import type { Hyparquet } from './hyparquet.js';

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

/** A claimed value for a message: a damaged footer or header may hold any type where a number belongs. */
const n = (v: unknown): string => (typeof v === 'number' || typeof v === 'bigint' ? v.toLocaleString('en-US') : String(v));
/** A page header's number, NaN when the field is missing or of another type (so every check on it fails). */
const int = (v: unknown): number => (typeof v === 'number' ? v : NaN);
const MAGIC = 0x31524150; // "PAR1", little-endian

/**
 * The most a page of each codec can grow when decompressed (snappy's 64-byte copy in 3 bytes,
 * deflate's 258 in ~2 bits, LZ4's 255 a byte, a zstd block of 128 KiB of one byte in 4), with room
 * to spare; BROTLI and LZO are not bounded here (their decompressors check the output's length).
 */
const MAX_RATIO: Partial<Record<string, number>> = { UNCOMPRESSED: 1, SNAPPY: 24, GZIP: 1100, LZ4: 256, LZ4_RAW: 256, ZSTD: 40000 };
/** Bytes a page may grow by beyond its codec's ratio (a tiny page's framing). */
const RATIO_SLACK = 1024;

/** The fewest bits a PLAIN value of each physical type takes (a dictionary page's values are PLAIN). */
const PLAIN_BITS: Partial<Record<ParquetType, number>> = { BOOLEAN: 1, INT32: 32, INT64: 64, INT96: 96, FLOAT: 32, DOUBLE: 64, BYTE_ARRAY: 32, FIXED_LEN_BYTE_ARRAY: 8 };

/**
 * The magic at both ends and the footer's length against the file's size, before the footer is
 * parsed; the footer's first byte.
 */
export function checkEnds(v: DataView, file: string): number {
  const size = v.byteLength;
  const notParquet = (why: string): never => fail(`${file}: not a Parquet file, or one cut short (${why}; the file is ${n(size)} bytes)`);
  if (size < 12) notParquet('too short to hold "PAR1" at both ends and a footer length');
  if (v.getUint32(0, true) !== MAGIC) notParquet('it does not start with "PAR1"');
  if (v.getUint32(size - 4, true) !== MAGIC) notParquet('it does not end with "PAR1": cut short or damaged at its end');
  const footerLength = v.getUint32(size - 8, true);
  if (footerLength > size - 12) fail(`${file}: damaged: footer length ${n(footerLength)} is past the file's start (the file is ${n(size)} bytes)`);
  return size - 8 - footerLength;
}

/** Whether a chunk's column holds one level entry per row: a top-level column that is not repeated. */
function isFlat(tree: SchemaTree, path: readonly string[]): boolean {
  if (path.length !== 1) return false;
  const node = tree.children.find((c) => c.element.name === path[0]);
  return !!node && node.children.length === 0 && node.element.repetition_type !== 'REPEATED';
}

/**
 * Every row group's num_rows, column chunks and page headers against the file's bytes, before any
 * page is decoded or any column allocated. `dataEnd` is where the footer starts.
 */
export function checkLayout(h: Hyparquet, buffer: ArrayBuffer, meta: FileMetaData, tree: SchemaTree, dataEnd: number, file: string): void {
  const size = buffer.byteLength;
  const groups = meta.row_groups;
  groups.forEach((group, g) => {
    const where = `${file}: row group ${g + 1} of ${groups.length}`;
    const rows = Number(group.num_rows);
    if (!(Number.isSafeInteger(rows) && rows >= 0)) fail(`${where}: damaged (its num_rows is ${String(group.num_rows)})`);
    if (rows > 0 && !group.columns.some((c) => c.meta_data)) fail(`${where}: damaged (it claims ${n(rows)} rows, num_rows, but holds no column chunk)`);
    for (const chunk of group.columns) {
      const m = chunk.meta_data;
      if (!m || chunk.file_path) continue; // parseParquet names these when it needs the column
      const at = `${where}, column ${m.path_in_schema.join('.')}: damaged`;
      try {
        checkChunk(h, buffer, m, rows, isFlat(tree, m.path_in_schema), dataEnd, at, size);
      } catch (e) {
        // a field of another type than the format's (a damaged footer or header) is damage too
        if (e instanceof TickscopeError) throw e;
        fail(`${at} (its column chunk's fields do not read: ${(e as Error).message})`);
      }
      // the indexes are not read, but a cut or overwritten file is damaged wherever it is
      const within = (what: string, offset: bigint | undefined, length: number | undefined, field: string): void => {
        if (offset === undefined || length === undefined) return;
        const start = Number(offset);
        const bytes = Number(length);
        if (!(start >= 4 && bytes >= 0 && start + bytes <= dataEnd)) fail(`${at} (its ${what} at byte ${n(start)} of ${n(bytes)} bytes (${field}) runs outside the file's column data, bytes 4 to ${n(dataEnd)}; the file is ${n(size)} bytes)`);
      };
      within('offset index', chunk.offset_index_offset, chunk.offset_index_length, 'offset_index_length');
      within('column index', chunk.column_index_offset, chunk.column_index_length, 'column_index_length');
      within('bloom filter', m.bloom_filter_offset, m.bloom_filter_length, 'bloom_filter_length');
    }
  });
}

/** A column chunk's byte range and value count, then its page headers, walked without decoding a page. */
function checkChunk(h: Hyparquet, buffer: ArrayBuffer, m: ColumnMetaData, rows: number, flat: boolean, dataEnd: number, at: string, size: number): void {
  const start = Number(m.dictionary_page_offset || m.data_page_offset);
  const length = Number(m.total_compressed_size);
  const dataOffset = Number(m.data_page_offset);
  if (!(start >= 4 && length >= 0 && start + length <= dataEnd)) {
    fail(`${at} (its column chunk at byte ${n(start)} of ${n(length)} bytes (total_compressed_size) runs outside the file's column data, bytes 4 to ${n(dataEnd)}; the file is ${n(size)} bytes)`);
  }
  if (!(dataOffset >= start && dataOffset < start + Math.max(length, 1))) fail(`${at} (its data_page_offset ${n(dataOffset)} lies outside its column chunk, bytes ${n(start)} to ${n(start + length)})`);
  const total = Number(m.num_values);
  if (!(Number.isSafeInteger(total) && total >= 0)) fail(`${at} (its num_values is ${String(m.num_values)})`);
  if (flat ? total !== rows : total < rows) fail(`${at} (its column chunk holds ${n(total)} values (num_values) where the row group has ${n(rows)} rows (num_rows))`);
  const reader = { view: new DataView(buffer, start, length), offset: 0 };
  const ratio = MAX_RATIO[m.codec];
  let seen = 0;
  for (let k = 1; seen < total; k++) {
    const pageAt = start + reader.offset;
    const page = (why: string): never => fail(`${at} (page ${k} at byte ${n(pageAt)}: ${why})`);
    if (reader.offset >= length) fail(`${at} (its pages end after ${n(seen)} of its ${n(total)} values (num_values); the column chunk is ${n(length)} bytes)`);
    let header: PageHeader;
    try {
      header = h.parquetHeader(reader);
    } catch (e) {
      return page(`its header does not parse: ${(e as Error).message}`);
    }
    const compressed = int(header.compressed_page_size);
    const uncompressed = int(header.uncompressed_page_size);
    const left = length - reader.offset;
    if (!(Number.isSafeInteger(compressed) && compressed >= 0 && compressed <= left)) page(`compressed_page_size ${n(header.compressed_page_size)} runs past its column chunk, of which ${n(left)} bytes are left`);
    if (!(Number.isSafeInteger(uncompressed) && uncompressed >= 0)) page(`uncompressed_page_size is ${n(header.uncompressed_page_size)}`);
    if (ratio !== undefined && uncompressed > compressed * ratio + RATIO_SLACK) {
      page(`uncompressed_page_size ${n(uncompressed)} is more than ${m.codec} makes of its ${n(compressed)} bytes, compressed_page_size (at most ${ratio} times)`);
    }
    reader.offset += compressed;
    if (header.type === 'DICTIONARY_PAGE') {
      const count = int(header.dictionary_page_header?.num_values ?? 0);
      const bits = PLAIN_BITS[m.type] ?? 1;
      if (!(count >= 0 && count * bits <= uncompressed * 8)) page(`its dictionary's num_values ${n(header.dictionary_page_header?.num_values)} do not fit in its ${n(uncompressed)} bytes, uncompressed_page_size`);
    } else if (header.type === 'DATA_PAGE' || header.type === 'DATA_PAGE_V2') {
      const v2 = header.data_page_header_v2;
      const count = int(header.data_page_header?.num_values ?? v2?.num_values ?? 0);
      if (!(Number.isSafeInteger(count) && count >= 0)) page(`its num_values is ${n(header.data_page_header?.num_values ?? v2?.num_values)}`);
      if (v2) {
        const nulls = int(v2.num_nulls);
        const pageRows = int(v2.num_rows);
        const def = int(v2.definition_levels_byte_length);
        const rep = int(v2.repetition_levels_byte_length);
        if (!(nulls >= 0 && nulls <= count && pageRows >= 0 && pageRows <= count)) page(`num_nulls ${n(v2.num_nulls)} and num_rows ${n(v2.num_rows)} do not fit its num_values ${n(count)}`);
        if (!(def >= 0 && rep >= 0 && def + rep <= compressed && def + rep <= uncompressed)) {
          page(`its levels (definition_levels_byte_length ${n(v2.definition_levels_byte_length)}, repetition_levels_byte_length ${n(v2.repetition_levels_byte_length)}) do not fit in the page's ${n(compressed)} bytes`);
        }
      }
      seen += count;
    }
  }
  if (seen !== total) fail(`${at} (its data pages hold ${n(seen)} values where the column chunk claims ${n(total)}, num_values)`);
}
