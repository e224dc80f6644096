/**
 * A mapped import (SPEC 8, issue 30): files of a user's own layout (a vendor's CSVs without a header,
 * prices × 10,000, times in ms since midnight, the symbol in the folder name and the date in the file
 * name; a Parquet or Arrow file with columns named otherwise) read into a table as the mapping says
 * (import-map.ts), every file of one import written in one atomic commit.
 *
 * Each file's source columns are read by the format's own reader, typed for what the mapping makes of
 * them (a count of time units as a long, a scaled number as a float), then made into the table's
 * columns: scaled, placed in time (since the epoch, or midnight of the file's date in the mapping's
 * zone), cased; constants and parts of the path filled in; columns the mapping does not name null.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { columnFromValues, type Scalar } from '../core/builder.js';
import { type Column, type ColumnType, nullColumn, symbolText } from '../core/column.js';
import { dictOf } from '../core/dict.js';
import { TickscopeError } from '../core/errors.js';
import { type ColumnDef, Table } from '../core/table.js';
import { NS_PER_DAY } from '../core/time.js';
import { isUtcZone, zoneOffsets } from '../core/tz.js';
import { wallToInstants } from '../core/wall-clock.js';
import { type ImportOutcome, importRows, type ReimportChoice } from './append.js';
import { setInt64 } from './csv/parse-values.js';
import { readCsvFields } from './csv/read.js';
import type { Database } from './database.js';
import { type ColumnMap, dateDays, type ImportMap, pathValue, UNIT_NS, type ValueFrom } from './import-map.js';
import { parseArrow, parseCell } from './import.js';
import { parseParquet } from './parquet/read.js';
import type { TableSchema } from './schema.js';

/** File name extensions an import reads, by format. */
const FORMATS: Readonly<Record<string, 'csv' | 'parquet' | 'arrow'>> = { '.csv': 'csv', '.parquet': 'parquet', '.arrow': 'arrow', '.arrows': 'arrow', '.ipc': 'arrow', '.feather': 'arrow' };

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

/** The files of an import: each path a file, or a folder whose files of a known format are taken (its subfolders too), in name order. */
export function importPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && FORMATS[extname(e.name).toLowerCase()]) out.push(p);
    }
  };
  for (const given of paths) {
    const p = resolve(given);
    let st;
    try {
      st = statSync(p);
    } catch {
      return fail(`${given}: no such file or folder`);
    }
    if (st.isDirectory()) walk(p);
    else out.push(p);
  }
  if (out.length === 0) fail(`${paths.join(', ')}: no CSV, Parquet or Arrow file there`);
  return out;
}

/** What a source column is read as, for what the mapping makes of it. */
function readType(c: ColumnMap, target: ColumnType): ColumnType {
  if (c.time) return c.time.unit === 's' ? 'float' : 'long';
  if (c.scale !== undefined) return 'float';
  return target;
}

/** The mapping checked against the table: its columns, the ones every row needs, what each transform applies to. */
export function checkMapAgainst(map: ImportMap, t: TableSchema, where: string): void {
  const bad = (item: string, msg: string): never => {
    throw new TickscopeError('badRequest', `${where}: ${item} ${msg}`);
  };
  for (const [name, c] of map.columns) {
    const def = t.columns.find((d) => d.name === name);
    if (!def) bad(`columns.${name}`, `is not a column of ${t.name}; expected names from ${t.columns.map((d) => d.name).join(', ')}`);
    if (c.scale !== undefined && def!.type !== 'float') bad(`columns.${name}.scale`, `applies to float columns; ${name} is a ${def!.type}`);
    if (c.time && def!.type !== 'timestamp') bad(`columns.${name}.unit`, `makes a timestamp; ${name} is a ${def!.type}`);
    if (c.case && def!.type !== 'symbol' && def!.type !== 'string') bad(`columns.${name}.case`, `applies to text; ${name} is a ${def!.type}`);
  }
  for (const required of [t.timeColumn, t.idColumn]) {
    if (required && !map.columns.has(required)) bad('columns', `lack ${required}, which every ${t.name} row needs`);
  }
}

/** Reads one file as the mapping says, into a table of `t`'s columns. */
export function readMapped(map: ImportMap, t: TableSchema, path: string, bytes: Uint8Array, opts: { readonly namedOnly?: boolean } = {}): Table {
  // the source columns to read, once each (by source and type), named for errors: a header's name, or
  // a field's position and the table column it makes ("1 (price)")
  const reads: Array<{ source: string | number; def: ColumnDef }> = [];
  const readOf = (source: string | number, type: ColumnType, target: string): string => {
    let r = reads.find((x) => x.source === source && x.def.type === type);
    if (!r) {
      const base = typeof source === 'number' ? `${source} (${target})` : source;
      const name = reads.some((x) => x.def.name === base) ? `${base} as ${type}` : base;
      reads.push((r = { source, def: { name, type } }));
    }
    return r.def.name;
  };
  const plan = t.columns.map((def) => {
    const c = map.columns.get(def.name);
    if (!c) return { def };
    const src = c.from.kind === 'source' ? readOf(c.from.source, readType(c, def.type), def.name) : undefined;
    const date = c.time?.date?.kind === 'source' ? readOf(c.time.date.source, 'symbol', `${def.name}'s date`) : undefined;
    return { def, c, src, date };
  });
  const srcSchema: TableSchema = { name: t.name, kind: 'reference', columns: reads.map((r) => r.def), idColumn: '', foreignKeys: {} };
  const format = FORMATS[extname(path).toLowerCase()];
  let source: Table;
  if (format === 'csv') source = readCsvFields(srcSchema, reads.map((r) => r.source), bytes, path, map.header, map.zone, parseCell);
  else if (format === 'parquet' || format === 'arrow') {
    const named = reads.find((r) => typeof r.source === 'number');
    if (named) fail(`${path}: a ${format === 'parquet' ? 'Parquet' : 'Arrow'} file's columns are named: give "source" as a name, not position ${String(named.source)}`);
    // read under their own names, then named as the CSV reads are
    const byName: TableSchema = { ...srcSchema, columns: reads.map((r) => ({ name: String(r.source), type: r.def.type })) };
    const got = format === 'parquet' ? parseParquet(byName, bytes, path, { mapped: true }) : parseArrow(byName, bytes, path, { mapped: true });
    source = new Table(reads.map((r) => r.def.name), got.columns, got.length);
  } else return fail(`${path}: not a file an import reads; expected ${Object.keys(FORMATS).join(', ')}`);
  const n = source.length;
  // a column the mapping does not name: nulls, straight into its typed array (no value per row); or
  // left out (namedOnly), for the caller to make once for all its files
  const kept = opts.namedOnly ? plan.filter((p) => p.c) : plan;
  const columns = kept.map(({ def, c, src, date }) => (c ? made(def, c, src ? source.col(src) : undefined, date ? source.col(date) : undefined, n, map.zone, path) : nullColumn(def.type, n)));
  return new Table(kept.map((p) => p.def.name), columns, n);
}

/** The text a constant or a part of the path gives. */
function fixedText(from: Exclude<ValueFrom, { kind: 'source' }>, path: string, at: string): string {
  return from.kind === 'constant' ? from.value : pathValue(from, path, at);
}

/** A table column from its mapping: the source column read (or the fixed text), transformed. */
function made(def: ColumnDef, c: ColumnMap, read: Column | undefined, dates: Column | undefined, n: number, zone: string, path: string): Column {
  const at = `columns.${def.name}`;
  let col: Column;
  if (c.time) col = timestamps(c, read, dates, n, zone, path, at);
  else if (read) col = read;
  else {
    // one value for every row of the file (a constant, a part of its path): parsed once, then filled
    const text = fixedText(c.from as Exclude<ValueFrom, { kind: 'source' }>, path, at);
    const v = parseCell(def.type, text, zone, () => `${path}: ${at} (${JSON.stringify(text)})`);
    col = filled(def.type, v, n);
  }
  if (c.scale !== undefined && col.type === 'float') {
    // a scale of 1/k divides by k: 335500 / 10000 is 33.55, where 335500 * 0.0001 is 33.550000000000004
    const k = Math.round(1 / c.scale);
    const divide = Math.abs(c.scale) < 1 && Math.abs(1 / c.scale - k) < 1e-9 * Math.abs(k);
    const from = col.data;
    const out = new Float64Array(from.length);
    if (divide) for (let i = 0; i < out.length; i++) out[i] = from[i]! / k;
    else for (let i = 0; i < out.length; i++) out[i] = from[i]! * c.scale;
    col = { type: 'float', data: out };
  }
  if (c.case && col.type === 'symbol') {
    // the dictionary's entries cased, the codes kept (two entries may become equal: storing merges them)
    const dict = col.dict;
    col = { type: 'symbol', codes: col.codes, dict: dictOf(Array.from({ length: dict.length }, (_, k) => cased(dict.get(k), c.case!))) };
  } else if (c.case && col.type === 'string') {
    col = { type: 'string', values: col.values.map((s) => cased(s, c.case!)) };
  }
  return col;
}

const cased = (s: string, to: 'upper' | 'lower'): string => (to === 'upper' ? s.toUpperCase() : s.toLowerCase());

/** A column of `n` rows all holding `v` (as columnFromValues would make it of n copies, without them). */
function filled(type: ColumnType, v: Scalar | number[] | null, n: number): Column {
  if (type === 'symbol') {
    const s = v === null ? '' : String(v);
    return s === '' ? { type, codes: new Int32Array(n), dict: dictOf(['']) } : { type, codes: new Int32Array(n).fill(1), dict: dictOf(['', s]) };
  }
  if (type === 'string') return { type, values: new Array<string>(n).fill(v === null ? '' : String(v)) };
  if (type === 'float[]' || type === 'long[]') return columnFromValues(type, new Array(n).fill(v));
  const one = columnFromValues(type, [v as Scalar | null]);
  switch (one.type) {
    case 'float':
      return { type: one.type, data: new Float64Array(n).fill(one.data[0]!) };
    case 'long':
    case 'timestamp':
    case 'timespan':
      return { type: one.type, data: new BigInt64Array(n).fill(one.data[0]!) };
    case 'int':
    case 'date':
      return { type: one.type, data: new Int32Array(n).fill(one.data[0]!) };
    case 'boolean':
      return { type: one.type, data: new Uint8Array(n).fill(one.data[0]!) };
    default:
      return columnFromValues(type, new Array(n).fill(v));
  }
}

/** Seconds within which countsToInstants computes exactly and int64 holds the nanoseconds (year 2255). */
const MAX_SECONDS = 9e9;

/**
 * Counts of a unit (`unitNs` nanoseconds each) since midnight of `day` (days since 1970; 0 and no zone:
 * since the epoch) as instants, as the general loop of timestamps() and wallToInstants make them, but
 * in int64 words without a BigInt per row. A zone's wall-clock times take the one offset of that day:
 * only when the zone keeps it from two days before to three after (no transition near, so
 * wallToInstants would give every time of the day that offset) and every time is within the day.
 * Returns undefined where that does not hold (a DST day, a time past the day, a count beyond 2^53):
 * then the general loop decides.
 */
function countsToInstants(counts: BigInt64Array, unitNs: number, day: number, zone: string | undefined): BigInt64Array | undefined {
  const perSecond = 1e9 / unitNs;
  let offsetSeconds = 0;
  let maxCount = Infinity;
  let minCount = -Infinity;
  if (zone !== undefined) {
    const midnight = BigInt(day) * NS_PER_DAY;
    const seg = zoneOffsets(zone).segmentOf(midnight);
    if (seg.start >= midnight - 2n * NS_PER_DAY || seg.end <= midnight + 3n * NS_PER_DAY || seg.offsetNs % 1_000_000_000n !== 0n) return undefined;
    offsetSeconds = Number(seg.offsetNs / 1_000_000_000n);
    minCount = 0;
    maxCount = 86_400 * perSecond;
  }
  const base = day * 86_400 - offsetSeconds;
  const n = counts.length;
  const from = new Int32Array(counts.buffer, counts.byteOffset, 2 * n);
  const out = new BigInt64Array(n);
  const words = new Int32Array(out.buffer);
  for (let i = 0; i < n; i++) {
    const hi = from[2 * i + 1]!;
    const lo = from[2 * i]! >>> 0;
    if (hi === -2147483648 && lo === 0) {
      words[2 * i + 1] = -2147483648; // null stays null
      continue;
    }
    if (hi < -2097152 || hi >= 2097152) return undefined; // beyond ±2^53: not exact as a double
    const v = hi * 4294967296 + lo;
    if (v < minCount || v > maxCount) return undefined;
    let q = Math.floor(v / perSecond);
    let r = v - q * perSecond;
    if (r < 0) {
      q--;
      r += perSecond;
    } else if (r >= perSecond) {
      q++;
      r -= perSecond;
    }
    const sec = base + q;
    if (sec > MAX_SECONDS || sec < -MAX_SECONDS) return undefined;
    setInt64(words, i, sec, r * unitNs);
  }
  return out;
}

const INT64_NULL = -(2n ** 63n);

/** Counts of a time unit as instants: since the epoch, or since midnight of a date, a wall-clock time of the zone. */
function timestamps(c: ColumnMap, read: Column | undefined, dates: Column | undefined, n: number, zone: string, path: string, at: string): Column {
  const t = c.time!;
  if (!read) return fail(`${path}: ${at}: a time in ${t.unit} comes from a source column`);
  const unit = UNIT_NS[t.unit];
  let fixedDay: number | undefined;
  if (t.since === 'midnight' && t.date && t.date.kind !== 'source') {
    const text = fixedText(t.date, path, `${at}.date`);
    fixedDay = dateDays(text);
    if (fixedDay === undefined) fail(`${path}: ${at}.date: ${JSON.stringify(text)} is not a date; expected 20131008, 2013-10-08 or 2013.10.08`);
  }
  // counts of ms, us or ns read as longs, from the epoch or a fixed date's midnight: without BigInt
  if (read.type === 'long' && (t.since === 'epoch' || fixedDay !== undefined)) {
    const fast = countsToInstants(read.data, Number(unit), t.since === 'epoch' ? 0 : fixedDay!, t.since === 'midnight' && !isUtcZone(zone) ? zone : undefined);
    if (fast) return { type: 'timestamp', data: fast };
  }
  const out = new BigInt64Array(n);
  for (let i = 0; i < n; i++) {
    let ns: bigint;
    if (read.type === 'long') {
      const v = read.data[i]!;
      if (v === INT64_NULL) {
        out[i] = INT64_NULL;
        continue;
      }
      ns = v * unit;
    } else if (read.type === 'float') {
      const v = read.data[i]!;
      if (Number.isNaN(v)) {
        out[i] = INT64_NULL;
        continue;
      }
      // seconds with a fraction (read as a float for them only): to the nanosecond a double holds
      ns = BigInt(Math.round(v * 1e9));
    } else return fail(`${path}: ${at}: a ${read.type} column is not a count of ${t.unit}`);
    if (t.since === 'midnight') {
      let day = fixedDay;
      if (day === undefined && dates?.type === 'symbol') {
        const text = symbolText(dates, i);
        day = dateDays(text);
        if (day === undefined) fail(`${path}: row ${i + 1}, ${at}.date: ${JSON.stringify(text)} is not a date; expected 20131008, 2013-10-08 or 2013.10.08`);
      }
      ns += BigInt(day!) * NS_PER_DAY;
    }
    out[i] = ns;
  }
  // times since midnight are wall-clock times of the zone; counts since the epoch are instants
  if (t.since === 'midnight' && !isUtcZone(zone)) wallToInstants(out, zone);
  return { type: 'timestamp', data: out };
}

/** How an import runs: the choice for re-imports, its progress and its cancel check. */
export interface ImportRun {
  /** Absent: when rows were imported before into the same partitions nothing is written and the report says which. */
  readonly reimport?: ReimportChoice;
  /** Files read of all, after each. */
  readonly progress?: (done: number, total: number) => void;
  /** Throws to stop (the query's cancel check); called before each file and before the write, so a stop writes nothing. */
  readonly checkpoint?: () => void;
}

export interface MappedImportReport extends ImportOutcome {
  /** Files read. */
  readonly files: number;
}

/** Imports files as a mapping says, all in one atomic write (nothing written when any file fails or the import is stopped). */
export function importMapped(db: Database, map: ImportMap, paths: readonly string[], where: string, run: ImportRun = {}): MappedImportReport {
  const t = db.table(map.table);
  checkMapAgainst(map, t, where);
  const files = importPaths(paths);
  const tables: Table[] = [];
  files.forEach((f, k) => {
    run.checkpoint?.();
    let bytes: Buffer;
    try {
      bytes = readFileSync(f);
    } catch (e) {
      return fail(`${f}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    tables.push(readMapped(map, t, f, bytes, { namedOnly: true }));
    run.progress?.(k + 1, files.length);
  });
  // the named columns of every file joined, the others made once at the whole length
  const named = t.columns.filter((d) => map.columns.has(d.name));
  const part = tables.length === 1 ? tables[0]! : Table.concat(named, tables);
  const all = new Table(
    t.columns.map((d) => d.name),
    t.columns.map((d) => (map.columns.has(d.name) ? part.col(d.name) : nullColumn(d.type, part.length))),
    part.length,
  );
  run.checkpoint?.();
  const sources = files.map((path, k) => ({ path, rows: tables[k]!.length }));
  return { files: files.length, ...importRows(db, t.name, all, { files: sources, ...(run.reimport ? { reimport: run.reimport } : {}) }) };
}
