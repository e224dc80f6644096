/**
 * What the app's Import… shows before anything is written (issue 30): the files a set of paths holds,
 * the first rows of the first file as read (a CSV's fields split, a Parquet or Arrow file's columns as
 * text), a type guessed per source column (for a new table), and the same rows as a mapping makes them
 * (mapped-import.ts's reader, so the preview is what the import writes). A mapping that does not read
 * answers its error naming the item, never a throw: the dialog shows it beside the form.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import { type Table as ArrowTable, tableFromIPC } from 'apache-arrow';
import type { Column } from '../core/column.js';
import type { ColumnType } from '../core/column-type.js';
import { asTickscopeError, TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import { importMapFromJson } from './import-map.js';
import type { ImportFileInfo, ImportPreview } from './import-types.js';
import { checkMapAgainst, importPaths, readMapped } from './mapped-import.js';
import { readFooter } from './parquet/footer.js';
import { hyparquet } from './parquet/hyparquet.js';
import { parseParquet } from './parquet/read.js';
import type { TableSchema } from './schema.js';

/** Rows a preview shows unless asked for another count. */
export const PREVIEW_ROWS = 20;
/** Files a preview lists (the count and bytes cover them all). */
export const MAX_PREVIEW_FILES = 200;
/** Bytes of a CSV read for its first rows. */
const CSV_HEAD_BYTES = 256 * 1024;

const FORMATS: Readonly<Record<string, ImportFileInfo['format']>> = { '.csv': 'csv', '.parquet': 'parquet', '.arrow': 'arrow', '.arrows': 'arrow', '.ipc': 'arrow', '.feather': 'arrow' };

/** A file's format by its extension, or undefined. */
export function importFormat(path: string): ImportFileInfo['format'] | undefined {
  return FORMATS[extname(path).toLowerCase()];
}

/** Renders a column's rows as text in a zone (the caller's renderer: the grid's, engine/output's, sits above storage). */
export type CellText = (c: Column, zone: string) => (i: number) => string;

export interface PreviewOptions {
  /** How cells become text (timestamps in the mapping's zone, with their offset). */
  readonly text: CellText;
  /** The mapping's JSON, when the form has one; its `header` says how a CSV is read. */
  readonly map?: unknown;
  /** The table the rows go to (an existing one's schema, or a new table's). */
  readonly table?: TableSchema;
  /** Without a mapping: whether a CSV's first row names its columns (default true). */
  readonly header?: boolean;
  readonly rows?: number;
}

/** The files of `paths`, the first file's rows as read, and, with a mapping and a table, as mapped. */
export function previewImport(paths: readonly string[], opts: PreviewOptions): ImportPreview {
  const files = importPaths(paths);
  const n = opts.rows ?? PREVIEW_ROWS;
  const infos: ImportFileInfo[] = [];
  let totalBytes = 0;
  for (const f of files) {
    const bytes = statSync(f).size;
    totalBytes += bytes;
    const format = importFormat(f);
    if (!format) throw new TickscopeError('importFailed', `${f}: not a file an import reads; expected ${Object.keys(FORMATS).join(', ')}`);
    if (infos.length < MAX_PREVIEW_FILES) infos.push({ path: f, format, bytes });
  }
  const first = infos[0]!;
  const mapDoc = opts.map as { header?: unknown } | undefined;
  const header = typeof mapDoc?.header === 'boolean' ? mapDoc.header : (opts.header ?? true);
  const raw = readRaw(first, header, n, opts.text);
  let mapped: ImportPreview['mapped'] = null;
  let mapError: string | null = null;
  if (opts.map !== undefined && opts.table) {
    try {
      mapped = previewMapped(opts.map, opts.table, first, n, opts.text);
    } catch (e) {
      mapError = asTickscopeError(e).message;
    }
  }
  return { files: infos, fileCount: files.length, totalBytes, sourceColumns: raw.columns, sourceTypes: inferColumns(raw), sourceRows: raw.rows, mapped, mapError };
}

/** A file's first rows as text, and its columns' names. */
export interface RawRows {
  readonly columns: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
}

/** The first `n` rows of a file as read: a CSV's fields (its header's names or positions), a Parquet or Arrow file's columns as text. */
export function readRaw(file: ImportFileInfo, header: boolean, n: number, text: CellText): RawRows {
  if (file.format === 'csv') {
    const lines = csvRecords(headBytes(file.path, CSV_HEAD_BYTES, file.bytes), n + (header ? 1 : 0));
    const names = header ? (lines.shift() ?? []) : [];
    const width = Math.max(names.length, ...lines.map((l) => l.length));
    const columns = Array.from({ length: width }, (_, i) => (header ? (names[i] ?? `${i}`) : `${i}`));
    return { columns, rows: lines.map((l) => columns.map((_, i) => l[i] ?? '')) };
  }
  const bytes = readFileSync(file.path);
  const table = file.format === 'arrow' ? arrowTable(bytes, file.path) : parquetTable(bytes, file.path);
  const shown = Math.min(n, table.length);
  const cells = table.readers((c) => text(c, 'UTC'));
  return { columns: table.names, rows: Array.from({ length: shown }, (_, i) => cells.map((f) => f(i))) };
}

function headBytes(path: string, max: number, size: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(Math.min(max, size));
    const got = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** The first `max` whole records of CSV text (quoted fields, "" inside quotes; a record cut by the end of what was read is left out). */
export function csvRecords(bytes: Uint8Array, max: number): string[][] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').replace(/^\uFEFF/, '');
  const out: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  for (; i < text.length && out.length < max; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      if (!(fields.length === 1 && fields[0] === '')) out.push(fields);
      fields = [];
      field = '';
    } else field += ch;
  }
  // the last record when the whole file was read and it has no final newline
  if (out.length < max && i >= text.length && bytes.byteLength < CSV_HEAD_BYTES && !quoted && (field !== '' || fields.length > 0)) out.push([...fields, field]);
  return out;
}

function readArrow(bytes: Uint8Array, file: string): ArrowTable {
  try {
    return tableFromIPC(bytes);
  } catch (e) {
    throw new TickscopeError('importFailed', `${file}: not an Arrow IPC file (${(e as Error).message})`);
  }
}

function arrowTable(bytes: Uint8Array, file: string): Table {
  const at = readArrow(bytes, file);
  const names = at.schema.fields.map((f) => f.name);
  const rows = at.numRows;
  const columns = names.map((name) => {
    const v = at.getChild(name)!;
    const values: string[] = [];
    for (let i = 0; i < Math.min(rows, PREVIEW_ROWS * 5); i++) {
      const x: unknown = v.get(i);
      values.push(x === null || x === undefined ? '' : x instanceof Date ? x.toISOString() : typeof x === 'object' ? JSON.stringify(x, (_k, y: unknown) => (typeof y === 'bigint' ? String(y) : y)) : String(x));
    }
    return { type: 'string' as const, values };
  });
  return new Table(names, columns);
}

/** The Tickscope type a Parquet column is read as for a preview (undefined: not shown). */
function parquetType(el: { type?: string; converted_type?: string; logical_type?: { type: string } }): ColumnType | undefined {
  const logical = el.logical_type?.type;
  if (logical === 'TIMESTAMP' || el.converted_type === 'TIMESTAMP_MILLIS' || el.converted_type === 'TIMESTAMP_MICROS') return 'timestamp';
  if (logical === 'DATE' || el.converted_type === 'DATE') return 'date';
  switch (el.type) {
    case 'INT64':
      return 'long';
    case 'INT32':
      return 'int';
    case 'DOUBLE':
    case 'FLOAT':
      return 'float';
    case 'BOOLEAN':
      return 'boolean';
    case 'BYTE_ARRAY':
      return 'string';
    default:
      return undefined;
  }
}

function parquetTable(bytes: Uint8Array, file: string): Table {
  const { tree } = readFooter(hyparquet(), bytes, file);
  const columns = tree.children.flatMap((c) => {
    const type = c.children.length === 0 ? parquetType(c.element as unknown as Parameters<typeof parquetType>[0]) : undefined;
    return type ? [{ name: c.element.name, type }] : [];
  });
  const t: TableSchema = { name: file, kind: 'reference', columns, idColumn: '', foreignKeys: {} };
  return parseParquet(t, bytes, file, { mapped: true });
}

/** The first `n` rows of the first file as the mapping makes them, as text (timestamps in the mapping's zone, with their offset). */
function previewMapped(mapJson: unknown, t: TableSchema, file: ImportFileInfo, n: number, text: CellText): NonNullable<ImportPreview['mapped']> {
  const map = importMapFromJson(mapJson, 'the mapping');
  checkMapAgainst(map, t, 'the mapping');
  // a CSV is cut to its first rows: the preview of a 2 GB file reads a few kB of it
  const bytes = file.format === 'csv' ? csvHead(file, n + (map.header ? 1 : 0)) : readFileSync(file.path);
  const table = readMapped(map, t, file.path, bytes);
  const cells = table.readers((c) => text(c, map.zone));
  const shown = Math.min(n, table.length);
  return { columns: table.names, rows: Array.from({ length: shown }, (_, i) => cells.map((f) => f(i))) };
}

/** The bytes of a CSV's first `lines` lines (the whole file when it is shorter). */
function csvHead(file: ImportFileInfo, lines: number): Uint8Array {
  const head = headBytes(file.path, CSV_HEAD_BYTES, file.bytes);
  let at = 0;
  for (let k = 0; k < lines; k++) {
    const nl = head.indexOf(10, at);
    if (nl < 0) return head.byteLength < file.bytes ? head.subarray(0, at) : head;
    at = nl + 1;
  }
  return head.subarray(0, at);
}

const LONG = /^[-+]?\d{1,18}$/;
const FLOAT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const DATE = /^\d{4}[-.]\d{2}[-.]\d{2}$/;
const TIMESTAMP = /^\d{4}[-.]\d{2}[-.]\d{2}[DT ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[-+]\d{2}:?\d{2})?$/;
const BOOLEAN = /^(true|false)$/i;

/** A type per source column from its rows shown: long, float, timestamp, date, boolean, else symbol (empty cells say nothing). */
export function inferColumns(raw: RawRows): ColumnType[] {
  return raw.columns.map((_, j) => {
    const cells = raw.rows.map((r) => (r[j] ?? '').trim()).filter((c) => c !== '');
    if (cells.length === 0) return 'symbol';
    const all = (re: RegExp): boolean => cells.every((c) => re.test(c));
    if (all(BOOLEAN)) return 'boolean';
    if (all(LONG)) return 'long';
    if (all(FLOAT)) return 'float';
    if (all(DATE)) return 'date';
    if (all(TIMESTAMP)) return 'timestamp';
    return 'symbol';
  });
}
