/**
 * Tiny inline tables for kernel tests, and one assertion that two tables are equal (names, types,
 * values) with a readable diff: which column, which row, want vs got.
 *
 * Cells are written as columnFromValues takes them (null is the type's null, SPEC 2: NaN for floats,
 * INT64_MIN for long/timestamp/timespan, INT32_MIN for int/date, "" for symbols), and time cells may
 * also be written as text: timestamps `2024-01-02T09:30:00.000000001Z` or `2024.01.02D09:30` (a
 * timestamp without an offset is read as UTC), dates `2024-01-02`, timespans `00:00:01.5`.
 */
import { columnFromValues } from '../../engine/core/builder.js';
import { type Column, type ColumnType, columnLength, int32Pairs } from '../../engine/core/column.js';
import { Table } from '../../engine/core/table.js';
import { formatDate, formatLocalNs, formatTimespan, localAsUtcNs, NULL_INT32, NULL_TS, parseDate, parseTimespan, parseTimestampLiteral } from '../../engine/core/time.js';

/** A cell written inline: a number, bigint, string, boolean, a list (list columns) or null. */
export type Cell = number | bigint | string | boolean | null | readonly number[];

/** Column names and types, in order (integer-like names would be reordered by JS: avoid them). */
export type Schema = Readonly<Record<string, ColumnType>>;

/** A timestamp written as text (UTC when it has no offset), as ns. */
export function ts(text: string): bigint {
  const lit = parseTimestampLiteral(text);
  if (!lit) throw new Error(`table-equal: ${JSON.stringify(text)} is not a timestamp`);
  return lit.kind === 'instant' ? lit.ns : localAsUtcNs(lit.local);
}

function cellValue(type: ColumnType, v: Cell, column: string, row: number): Cell {
  if (typeof v !== 'string') return v;
  const bad = (): never => {
    throw new Error(`table-equal: column ${column} row ${row}: ${JSON.stringify(v)} is not a ${type}`);
  };
  switch (type) {
    case 'timestamp':
      return ts(v);
    case 'timespan':
      return parseTimespan(v) ?? bad();
    case 'date':
      return parseDate(v) ?? bad();
    default:
      return v;
  }
}

/** A column of a type from inline cells (time cells may be text, see the file's comment). */
export function columnOf(type: ColumnType, cells: readonly Cell[], name = '?'): Column {
  return columnFromValues(
    type,
    cells.map((v, i) => cellValue(type, v, name, i)),
  );
}

/** A table from rows: `schema` names the columns and their types, each row lists its cells in that order. */
export function tableFromRows(schema: Schema, rows: ReadonlyArray<readonly Cell[]>): Table {
  const names = Object.keys(schema);
  rows.forEach((r, i) => {
    if (r.length !== names.length) throw new Error(`table-equal: row ${i} has ${r.length} cells for ${names.length} columns (${names.join(', ')})`);
  });
  return new Table(
    names,
    names.map((name, j) =>
      columnOf(
        schema[name]!,
        rows.map((r) => r[j]!),
        name,
      ),
    ),
    rows.length,
  );
}

/** A table from columns: name -> [type, cells]. */
export function tableFromColumns(columns: Readonly<Record<string, readonly [ColumnType, readonly Cell[]]>>): Table {
  const names = Object.keys(columns);
  return new Table(
    names,
    names.map((name) => columnOf(columns[name]![0], columns[name]![1], name)),
  );
}

export interface TableEqualOptions {
  /** Floats (and list elements) within this absolute distance are equal; when absent, exact (===, so 0 equals -0; NaN equals NaN). */
  readonly tolerance?: number;
  /** At most this many differing cells are listed (default 20). */
  readonly maxLines?: number;
}

/** A cell read back from a column, comparable and printable. */
type Read = { readonly kind: 'num'; readonly v: number } | { readonly kind: 'big'; readonly v: bigint } | { readonly kind: 'text'; readonly v: string } | { readonly kind: 'list'; readonly v: readonly number[] };

function reader(c: Column): (i: number) => Read {
  switch (c.type) {
    case 'float':
      return (i) => ({ kind: 'num', v: c.data[i]! });
    case 'timestamp':
    case 'timespan':
    case 'long': {
      // read the words, not the bigint view, so a view of a shared buffer reads as it is stored
      const w = int32Pairs(c.data);
      return (i) => ({ kind: 'big', v: (BigInt(w[2 * i + 1]!) << 32n) | BigInt(w[2 * i]! >>> 0) });
    }
    case 'date':
    case 'int':
      return (i) => ({ kind: 'num', v: c.data[i]! });
    case 'boolean':
      return (i) => ({ kind: 'num', v: c.data[i]! });
    case 'symbol':
      return (i) => {
        const code = c.codes[i]!;
        return { kind: 'text', v: code >= 0 && code < c.dict.length ? c.dict.get(code) : `<code ${code} outside a dictionary of ${c.dict.length}>` };
      };
    case 'string':
      return (i) => ({ kind: 'text', v: c.values[i]! });
    case 'float[]':
    case 'long[]':
      return (i) => ({ kind: 'list', v: Array.from(c.values.subarray(c.offsets[i]!, c.offsets[i + 1]!)) });
  }
}

function sameNumber(a: number, b: number, tolerance: number | undefined): boolean {
  if (a !== a || b !== b) return a !== a && b !== b;
  if (a === b) return true;
  return tolerance !== undefined && Math.abs(a - b) <= tolerance;
}

function same(a: Read, b: Read, type: ColumnType, tolerance: number | undefined): boolean {
  if (a.kind === 'num' && b.kind === 'num') return type === 'boolean' ? (a.v !== 0) === (b.v !== 0) : sameNumber(a.v, b.v, type === 'float' ? tolerance : undefined);
  if (a.kind === 'list' && b.kind === 'list') return a.v.length === b.v.length && a.v.every((x, k) => sameNumber(x, b.v[k]!, tolerance));
  return a.v === b.v;
}

/** A cell as the diff prints it, nulls named. */
function show(r: Read, type: ColumnType): string {
  switch (type) {
    case 'float':
      return r.v !== r.v ? 'null (NaN)' : Object.is(r.v, -0) ? '-0' : String(r.v);
    case 'int':
    case 'date': {
      const v = r.v as number;
      if (v === NULL_INT32) return 'null (INT32_MIN)';
      return type === 'date' ? `${formatDate(v)} (${v})` : String(v);
    }
    case 'long':
    case 'timestamp':
    case 'timespan': {
      const v = r.v as bigint;
      if (v === NULL_TS) return 'null (INT64_MIN)';
      if (type === 'long') return String(v);
      return `${type === 'timestamp' ? `${formatLocalNs(v)}Z` : formatTimespan(v)} (${v}n)`;
    }
    case 'boolean':
      return r.v ? 'true' : 'false';
    case 'symbol':
    case 'string':
      return r.v === '' ? 'null ("")' : JSON.stringify(r.v);
    case 'float[]':
    case 'long[]':
      return JSON.stringify(r.v);
  }
}

/** The differences between `got` and `want`, one line each (empty when the tables are equal). */
export function tableDiff(got: Table, want: Table, opts: TableEqualOptions = {}): string[] {
  const lines: string[] = [];
  const max = opts.maxLines ?? 20;
  let cells = 0;
  const gotNames = [...got.names];
  const wantNames = [...want.names];
  if (gotNames.join('\u0000') !== wantNames.join('\u0000')) lines.push(`columns: want [${wantNames.join(', ')}], got [${gotNames.join(', ')}]`);
  if (got.length !== want.length) lines.push(`rows: want ${want.length}, got ${got.length}`);
  for (const name of wantNames) {
    const g = got.get(name);
    if (!g) continue;
    const w = want.col(name);
    if (g.type !== w.type) {
      lines.push(`column ${name}: type want ${w.type}, got ${g.type}`);
      continue;
    }
    if (columnLength(g) !== got.length) lines.push(`column ${name}: ${columnLength(g)} values in a table of ${got.length} rows`);
    const rg = reader(g);
    const rw = reader(w);
    const rows = Math.min(got.length, want.length);
    for (let i = 0; i < rows; i++) {
      const a = rg(i);
      const b = rw(i);
      if (same(a, b, w.type, opts.tolerance)) continue;
      if (cells++ < max) lines.push(`column ${name} row ${i}: want ${show(b, w.type)}, got ${show(a, w.type)}`);
    }
  }
  if (cells > max) lines.push(`... and ${cells - max} more differing cells`);
  return lines;
}

/** The rows of a table as printed text (for a failure message). */
export function showTable(t: Table): string {
  const readers = t.names.map((n) => {
    const c = t.col(n);
    const r = reader(c);
    return (i: number): string => show(r(i), c.type);
  });
  const rows = Array.from({ length: t.length }, (_, i) => readers.map((r) => r(i)).join(' | '));
  return [t.defs.map((d) => `${d.name}:${d.type}`).join(' | '), ...rows].join('\n');
}

/** Asserts `got` equals `want` (names, types, values; floats exactly unless `tolerance`); throws a readable diff otherwise. */
export function expectTableEqual(got: Table, want: Table, opts: TableEqualOptions = {}): void {
  const lines = tableDiff(got, want, opts);
  if (lines.length === 0) return;
  const err = new Error(`tables differ:\n  ${lines.join('\n  ')}\nwant:\n${showTable(want)}\ngot:\n${showTable(got)}`);
  err.name = 'TableMismatch';
  throw err;
}
