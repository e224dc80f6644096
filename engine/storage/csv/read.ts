/**
 * The CSV reader of `tickscope import`: the file's bytes go straight into typed column builders.
 *
 * Two steps per batch of records. The scanner (scan.ts) finds the fields and writes where each one
 * starts and ends into two int32 arrays; then each column parses its fields of the batch (columns.ts).
 * The accepted forms and the values are exactly those of the per-cell path it replaces (`parseCell` in
 * import.ts over castValue): the fast parsers (parse-values.ts) take only text they read to the same
 * value, and leave any other cell to that path.
 *
 * Errors, in the order the previous implementation found them (it parsed the whole file first, then
 * checked the header, then the values column by column in schema order): a structural error anywhere
 * in the file; then the header; then the bad value of the first column in schema order that has one,
 * at its first bad row. Line numbers are lines of the file (where the record starts), so they stay
 * right across skipped empty lines and quoted line breaks.
 */
import { TickscopeError } from '../../core/errors.js';
import { Table } from '../../core/table.js';
import type { TableSchema } from '../schema.js';
import { type CellParser, checkHeader, CsvColumns } from './columns.js';
import { nullColumn } from '../../core/column.js';
import { Scanner, unescapeFields, utf8Bytes } from './scan.js';

/**
 * Fields scanned per batch (a batch is this many fields' worth of records, at least 64): small enough
 * that a batch's bytes stay in cache while its columns are parsed.
 */
const BATCH_FIELDS = 1 << 17;

/** The most rows the columns are sized for up front (beyond, they grow by doubling). */
const MAX_EXPECTED_ROWS = 1 << 24;

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

/**
 * Reads CSV (bytes or text) into a table with the target table's columns (absent columns are null).
 * `cell` is the per-cell path for what the fast parsers leave (see the file comment).
 */
export function readCsv(t: TableSchema, input: Uint8Array | string, file: string, tz: string, cell: CellParser): Table {
  const bytes = utf8Bytes(input);
  const scanner = new Scanner(bytes.buf, file);
  const header = scanner.header();
  if (!header) return fail(`${file}: the file is empty; expected a header row of column names`);
  const headerError = checkHeader(t, header, `${file}: line ${scanner.lineAt(scanner.recordStart)}`);
  if (headerError) {
    scanner.skipRest(header.length); // a malformed record anywhere was reported before the header
    return fail(headerError);
  }
  return readRecords(t, bytes, scanner, header.length, new CsvColumns(t, header, tz, cell));
}

/**
 * Reads the fields a mapped import names (SPEC 8): each of `t`'s columns from its field, named in the
 * header or, in a file without one (`header` false), by position; the file's other fields skipped.
 */
export function readCsvFields(t: TableSchema, fields: ReadonlyArray<string | number>, input: Uint8Array | string, file: string, header: boolean, tz: string, cell: CellParser): Table {
  const bytes = utf8Bytes(input);
  const scanner = new Scanner(bytes.buf, file);
  const first = header ? scanner.header() : scanner.peek();
  if (!first) return new Table(t.columns.map((c) => c.name), t.columns.map((c) => nullColumn(c.type, 0)), 0);
  const at = `${file}: line ${scanner.lineAt(scanner.recordStart)}`;
  const index = fields.map((f) => {
    const j = typeof f === 'number' ? f : first.indexOf(f);
    if (typeof f === 'number' && j >= first.length) fail(`${at}: field ${f} is not there; its records have ${first.length} fields (0 to ${first.length - 1})`);
    if (j < 0) fail(`${at}: the header has no column ${JSON.stringify(f)}; its columns are ${first.join(', ')}`);
    return j;
  });
  return readRecords(t, bytes, scanner, first.length, new CsvColumns(t, first, tz, cell, index));
}

/** Where the scanner writes a batch's fields (starts, ends: `fields` each) and records (`rows`). */
interface BatchArrays {
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly rowStarts: Int32Array;
}

let spare: BatchArrays | undefined;

/**
 * The batch arrays, those of the last read when large enough: a mapped import reads many small files
 * in turn, and a megabyte of fresh, zeroed arrays for each adds up (100 files: 110 MB allocated and
 * zeroed). A read fills every slot it parses before parsing it, so what the last file left is never
 * seen.
 */
function batchArrays(fields: number, rows: number): BatchArrays {
  if (spare && spare.starts.length >= fields && spare.rowStarts.length >= rows) return spare;
  return (spare = { starts: new Int32Array(fields), ends: new Int32Array(fields), rowStarts: new Int32Array(rows) });
}

/** Reads the records after the scanner's position into the columns (`ncols` fields each). */
function readRecords(t: TableSchema, bytes: ReturnType<typeof utf8Bytes>, scanner: Scanner, ncols: number, columns: CsvColumns): Table {
  const file = scanner.fileName;
  const at = (rowStart: number): string => `${file}: line ${scanner.lineAt(rowStart)}`;
  const batchRows = Math.max(64, Math.floor(BATCH_FIELDS / ncols));
  const { starts, ends, rowStarts } = batchArrays(batchRows * ncols, batchRows);
  let rows = 0;
  for (;;) {
    scanner.escaped = false;
    const count = scanner.batch(starts, ends, rowStarts, batchRows, ncols);
    if (count === 0) break;
    if (scanner.escaped) {
      unescapeFields(bytes, starts, ends, count * ncols);
      scanner.useBuffer(bytes.buf);
    }
    const buf = bytes.buf;
    if (rows === 0 && count === batchRows) {
      // a long file: size every column for the rows the first batch's width promises (no copies
      // while growing; a nearly unique symbol's hash table never rehashed). Memory asked for and
      // not used is never touched, so costs nothing; finish() hands out only the rows filled.
      const perRow = (scanner.offset - rowStarts[0]!) / count;
      const expected = Math.min(MAX_EXPECTED_ROWS, Math.ceil(((buf.length - rowStarts[0]!) / perRow) * 1.02));
      columns.expect(expected, count);
    }
    columns.add(buf, starts, ends, rowStarts, ncols, count, at);
    rows += count;
  }
  return new Table(t.columns.map((c) => c.name), columns.finish(rows), rows);
}
