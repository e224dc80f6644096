/**
 * `tickscope import`: CSV (header row of column names, values as SPEC 2, empty = null) and Arrow IPC
 * files appended to a declared table. Every value is checked before anything is written; the first
 * bad one is reported with its line (CSV) or row (Arrow) and column, and the database is unchanged.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { tableFromIPC, type Table as ArrowTable, Type, type Vector } from 'apache-arrow';
import { columnFromValues, type Scalar } from '../core/builder.js';
import type { Column, ColumnType } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import { castValue } from '../core/values.js';
import { type ImportOutcome, importRows, type ReimportChoice } from './append.js';
import { readCsv } from './csv/read.js';
import type { Database } from './database.js';
import { parseParquet } from './parquet/read.js';
import type { TableSchema } from './schema.js';

export interface ImportOptions {
  /** Zone of timestamps written without a zone (default UTC). */
  readonly tz?: string;
  /** What to do with a re-import (append.ts importRows); absent: it writes nothing and the report lists it. */
  readonly reimport?: ReimportChoice;
}

export type ImportReport = ImportOutcome;

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

function parseList(text: string): number[] | undefined {
  if (text.trim() === '') return [];
  try {
    const v: unknown = JSON.parse(text);
    if (Array.isArray(v) && v.every((x) => x === null || typeof x === 'number')) return v.map((x) => (x === null ? NaN : x));
  } catch {
    // not JSON: fall through to the error
  }
  return undefined;
}

/**
 * Parses a CSV file's bytes (or its text) into a table with the target table's columns (absent
 * columns are null). The bytes go straight into typed columns (csv/read.ts); a cell its fast parsers
 * do not take goes through parseCell, so both read every value alike.
 */
export function parseCsv(t: TableSchema, input: Uint8Array | string, file: string, opts: ImportOptions = {}): Table {
  return readCsv(t, input, file, opts.tz ?? 'UTC', parseCell);
}

/** One CSV cell of a column type (empty = null), or the import error naming where() and the cell. */
export function parseCell(type: ColumnType, cell: string, tz: string, where: () => string): Scalar | number[] | null {
  if (type === 'float[]' || type === 'long[]') {
    const list = parseList(cell);
    if (!list || (type === 'long[]' && !list.every((x) => Number.isNaN(x) || Number.isSafeInteger(x)))) {
      return fail(`${where()}: ${JSON.stringify(cell)} is not a ${type} list; expected a JSON array such as [101.5,101.6]`);
    }
    return list;
  }
  if (cell === '' && type !== 'symbol' && type !== 'string') return null;
  if (type === 'long' && /^\s*[+-]?\d+\s*$/.test(cell)) return longValue(BigInt(cell.trim()), cell, where);
  try {
    const v = castValue(cell, type, { arg: 'value', column: '', inputTZ: tz });
    if (type === 'long' && typeof v === 'number' && !Number.isNaN(v)) {
      if (!Number.isSafeInteger(v)) return fail(`${where()}: ${cell} is not a long (a whole number)`);
    }
    if (type === 'int' && typeof v === 'number' && !Number.isNaN(v) && !(Number.isInteger(v) && v > -2147483648 && v <= 2147483647)) {
      return fail(`${where()}: ${cell} is not an int (a whole number within ±2147483647)`);
    }
    return v;
  } catch (e) {
    if (e instanceof TickscopeError && e.kind === 'importFailed') throw e;
    const expected = (e as Error).message.split('; expected ')[1] ?? type;
    return fail(`${where()}: ${JSON.stringify(cell)} is not a ${type}; expected ${expected}`);
  }
}

/** A long within int64 (INT64_MIN is the null, so not a value). */
function longValue(v: bigint, text: string, where: () => string): bigint {
  if (v <= -9223372036854775808n || v > 9223372036854775807n) {
    return fail(`${where()}: ${text} is outside the long range (±9223372036854775807)`);
  }
  return v;
}

const TIME_UNIT_NS = [1_000_000_000n, 1_000_000n, 1_000n, 1n]; // Arrow TimeUnit SECOND..NANOSECOND

/** The int64 values of a vector (timestamps, durations, int64), or undefined for other layouts. */
function rawInt64(v: Vector): BigInt64Array | undefined {
  const out = new BigInt64Array(v.length);
  let k = 0;
  for (const d of v.data) {
    const values: unknown = d.values;
    if (!(values instanceof BigInt64Array)) return undefined;
    out.set(values.subarray(d.offset, d.offset + d.length), k);
    k += d.length;
  }
  return out;
}

/** Converts an Arrow vector to a column of the declared type. */
export function fromArrow(def: { name: string; type: ColumnType }, v: Vector, file: string): Column {
  const at = (row: number): string => `${file}: row ${row + 1}, column ${def.name}`;
  const n = v.length;
  const typeId = v.type.typeId;
  const values: Array<Scalar | number[] | null> = new Array(n);
  // Arrow's get() turns timestamps into float milliseconds; read the int64 words instead (exact ns).
  const raw = def.type === 'timestamp' || def.type === 'timespan' ? rawInt64(v) : undefined;
  const scale =
    typeId === Type.Timestamp || typeId === Type.Duration ? TIME_UNIT_NS[(v.type as unknown as { unit: number }).unit]! : 1n;
  if ((def.type === 'timestamp' || def.type === 'timespan') && (!raw || (typeId !== Type.Timestamp && typeId !== Type.Duration && typeId !== Type.Int))) {
    fail(`${file}: column ${def.name} is Arrow ${v.type}; expected a timestamp, duration or int64 of nanoseconds`);
  }
  for (let i = 0; i < n; i++) {
    const x: unknown = v.get(i);
    if (x === null || x === undefined) {
      values[i] = def.type === 'float[]' || def.type === 'long[]' ? [] : null;
      continue;
    }
    switch (def.type) {
      case 'timestamp':
      case 'timespan':
        values[i] = raw![i]! * scale;
        break;
      case 'float':
      case 'int': {
        const num = Number(x);
        if (typeof x !== 'number' && typeof x !== 'bigint') fail(`${at(i)}: ${String(x)} is not a number`);
        if (def.type === 'int' && (!Number.isInteger(num) || num <= -2147483648 || num > 2147483647 || BigInt(num) !== BigInt(x as bigint | number))) {
          fail(`${at(i)}: ${String(x)} is not an int (a whole number within ±2147483647)`);
        }
        values[i] = num;
        break;
      }
      case 'long': {
        if (typeof x === 'bigint') values[i] = longValue(x, String(x), () => at(i));
        else if (typeof x === 'number' && Number.isSafeInteger(x)) values[i] = BigInt(x);
        else fail(`${at(i)}: ${String(x)} is not a long (a whole number)`);
        break;
      }
      case 'date':
        if (typeId === Type.Date) {
          const ms = x instanceof Date ? x.getTime() : Number(x);
          values[i] = Math.floor(ms / 86_400_000);
        } else fail(`${at(i)}: Arrow ${v.type} is not a date`);
        break;
      case 'boolean':
        values[i] = Boolean(x);
        break;
      case 'symbol':
      case 'string':
        values[i] = String(x);
        break;
      case 'float[]':
      case 'long[]':
        values[i] = Array.from(x as Iterable<unknown>, (e) => (e === null ? NaN : Number(e)));
        break;
    }
  }
  return columnFromValues(def.type, values);
}

/** Reads an Arrow IPC file (file or stream format) into a table with the target table's columns. */
export function parseArrow(t: TableSchema, bytes: Uint8Array, file: string, opts: { readonly mapped?: boolean } = {}): Table {
  let at: ArrowTable;
  try {
    at = tableFromIPC(bytes);
  } catch (e) {
    return fail(`${file}: not an Arrow IPC file (${(e as Error).message})`);
  }
  const names = at.schema.fields.map((f) => f.name);
  // a mapped import reads the columns it names and skips the rest
  if (opts.mapped) {
    for (const c of t.columns) if (!names.includes(c.name)) fail(`${file}: has no column ${JSON.stringify(c.name)}; its columns are ${names.join(', ')}`);
  }
  for (const name of opts.mapped ? [] : names) {
    if (!t.columns.some((c) => c.name === name)) fail(`${file}: column ${name} is not a column of ${t.name}; expected names from ${t.columns.map((c) => c.name).join(', ')}`);
  }
  for (const required of opts.mapped ? [] : [t.timeColumn, t.idColumn]) {
    if (required && !names.includes(required)) fail(`${file}: lacks column ${required}, which every ${t.name} row needs`);
  }
  const columns = t.columns.map((def) => {
    const v = at.getChild(def.name);
    return v ? fromArrow(def, v, file) : columnFromValues(def.type, new Array(at.numRows).fill(null));
  });
  return new Table(t.columns.map((c) => c.name), columns, at.numRows);
}

/** Imports a CSV, Arrow IPC or Parquet file into a table (append, atomic; a re-import as importRows says). */
export function importFile(db: Database, tableName: string, path: string, opts: ImportOptions = {}): ImportReport {
  const t = db.table(tableName);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return fail(`${path}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const ext = extname(path).toLowerCase();
  const rows =
    ext === '.csv'
      ? parseCsv(t, bytes, path, opts)
      : ['.arrow', '.arrows', '.ipc', '.feather'].includes(ext)
        ? parseArrow(t, bytes, path)
        : ext === '.parquet'
          ? parseParquet(t, bytes, path)
          : fail(`${path}: unknown file type ${JSON.stringify(ext)}; expected .csv, Arrow IPC (.arrow, .arrows, .ipc, .feather) or .parquet`);
  return importRows(db, tableName, rows, { files: [{ path, rows: rows.length }], ...(opts.reimport ? { reimport: opts.reimport } : {}) });
}
