/**
 * Column files of one partition (storage format 2). Each column is stored as the Arrow buffers of its
 * type, raw and little-endian, so a reader can wrap them (or any row range of them) without parsing:
 *
 *   timestamp, timespan, long   <col>.i64        int64, null = INT64_MIN
 *   int, date                   <col>.i32        int32, null = INT32_MIN
 *   float                       <col>.f64        float64, null = NaN
 *   boolean                     <col>.u8         0 / 1
 *   symbol                      <col>.i32        dictionary codes
 *                               <col>.dict.offsets.i32 + <col>.dict.utf8   the dictionary: UTF-8
 *                                                strings, each once, ascending (so a lookup is a
 *                                                binary search and nothing is parsed on open), or
 *                                                for nearly unique values (rowOrderDicts) in order
 *                                                of first use, so a narrow query reads a small part
 *   string                      <col>.offsets.i32 + <col>.utf8
 *   float[] / long[]            <col>.offsets.i32 + <col>.f64 / <col>.i64
 *
 * `_meta.json` holds the format, the row count, the column list and, for partitioned tables, each
 * identifier's row range (rows are sorted by identifier, then time: kdb's parted layout).
 * `_order.i32`, when present, lists the rows in time order (ties by identifier, then storage order),
 * written once with the partition so that queries reading every identifier in time order do not
 * merge the runs again. `_sums.crc32` holds a CRC-32 per 16 KiB chunk of every other file
 * (checksums.ts), checked by every read.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Column, columnLength, type Int64Column } from '../core/column.js';
import { dictStrings, encodeDict, Utf8Dict } from '../core/dict.js';
import { environmentError, TickscopeError } from '../core/errors.js';
import type { ColumnDef, Table } from '../core/table.js';
import { STORAGE_FORMAT } from './format.js';
import { prepareForStorage, timeOrder } from './prepare.js';
import type { TableSchema } from './schema.js';
import { FolderGoneError } from './stored-column.js';
import { checkBytes, damagedFile, loadFolderSums, SUMS_FILE, SumsWriter } from './checksums.js';
import { checkIdRanges } from './structure.js';
import type { ImportRecord } from './import-hash.js';

export interface PartitionMeta {
  readonly format: typeof STORAGE_FORMAT;
  readonly rows: number;
  readonly columns: readonly ColumnDef[];
  /** identifier -> [first row, end row) */
  readonly idRanges?: Readonly<Record<string, readonly [number, number]>>;
  /** True when `_order.i32` holds the time order of the rows. */
  readonly timeOrder?: boolean;
  /** Symbol columns whose dictionary is in first-use order (nearly unique values), not sorted. */
  readonly rowOrderDicts?: readonly string[];
  /** True when `_sums.crc32` holds the checksums of the folder's files (absent in folders older releases wrote). */
  readonly checksums?: boolean;
}

/**
 * The file of a partition listing what each import wrote to it (import-hash.ts: a record per file an
 * import read), read only by an import: kept out of `_meta.json`, which every open reads.
 */
export const IMPORTS_FILE = '_imports.json';

/** The file of a partition holding its time order. */
export const TIME_ORDER_FILE = '_order.i32';

const TWO32 = 4294967296;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A test's stand-in for a failure of the file system (ENOSPC, EROFS, EPERM...): called before each
 * write of a database file with its path; what it throws is thrown as the write's own error would be.
 */
let writeFault: ((path: string) => void) | undefined;

/** Makes every database write call `fault` first (tests: an errno error as the disk would give); undefined: none. */
export function injectWriteFault(fault: ((path: string) => void) | undefined): void {
  writeFault = fault;
}

/**
 * The error to throw for a failure writing `path`: the environment's (disk full, read-only,
 * permission: an application error naming the path and the fix, SPEC 7) or the error as it was. A
 * write's errno errors often carry no path (write, fsync), so the path is added here.
 */
export function writeError(e: unknown, path: string, what = 'writing the database'): unknown {
  const err = e as NodeJS.ErrnoException;
  if (typeof err !== 'object' || err === null || !err.code) return e;
  return environmentError(err.path ? err : Object.assign(new Error(err.message), { code: err.code, path }), what) ?? e;
}

/** Runs a write of `path`, its environment failures reported as such (writeError). */
export function writing<T>(path: string, fn: () => T, what?: string): T {
  try {
    writeFault?.(path);
    return fn();
  } catch (e) {
    throw writeError(e, path, what);
  }
}

/** Writes a file and flushes it to disk before returning; `sums`, when given, gets its bytes. */
export function writeFileDurable(path: string, data: Uint8Array | string, sums?: SumsWriter): void {
  writing(path, () => {
    const fd = openSync(path, 'w');
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
      sums?.add(basename(path), bytes);
    } finally {
      closeSync(fd);
    }
  });
}

/** Flushes a directory entry list (so renames and new files inside it survive a crash). */
export function fsyncDir(path: string): void {
  writing(path, () => {
    const fd = openSync(path, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  });
}

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** Float64 longs -> int64 bytes; NaN becomes the int64 null. */
function longsToInt64(values: Float64Array, where: string): BigInt64Array {
  const out = new BigInt64Array(values.length);
  const w = new Int32Array(out.buffer);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v) {
      w[2 * i] = 0;
      w[2 * i + 1] = -2147483648;
      continue;
    }
    if (!Number.isInteger(v) || v > MAX_SAFE || v < -MAX_SAFE) {
      throw new TickscopeError('importFailed', `${where}: ${v} is not a long Tickscope stores exactly (integers within ±2^53)`);
    }
    const hi = Math.floor(v / TWO32);
    w[2 * i] = (v - hi * TWO32) | 0;
    w[2 * i + 1] = hi;
  }
  return out;
}

/** A UTF-8 dictionary's own buffers as stored (offsets from 0), without decoding a string. */
function utf8DictBuffers(d: Utf8Dict): { offsets: Int32Array; data: Uint8Array } {
  const base = d.offsets[0]!;
  const end = d.offsets[d.length]!;
  if (base === 0 && end === d.data.length) return { offsets: d.offsets, data: d.data };
  return { offsets: d.offsets.map((o) => o - base), data: d.data.subarray(base, end) };
}

/** The files (name -> bytes) that store one column. */
export function encodeColumn(name: string, c: Column, where: string): Array<[string, Uint8Array | string]> {
  const fixed = fixedWidthFile(name, c);
  if (fixed) return [[fixed.file, fixed.bytes]];
  switch (c.type) {
    case 'symbol': {
      const dict = c.dict instanceof Utf8Dict ? utf8DictBuffers(c.dict) : encodeDict(dictStrings(c.dict));
      return [
        [`${name}.i32`, bytesOf(c.codes)],
        [`${name}.dict.offsets.i32`, bytesOf(dict.offsets)],
        [`${name}.dict.utf8`, dict.data],
      ];
    }
    case 'string': {
      const enc = new TextEncoder();
      const parts = c.values.map((s) => enc.encode(s));
      const offsets = new Int32Array(parts.length + 1);
      parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
      const data = new Uint8Array(offsets[parts.length]!);
      parts.forEach((p, i) => data.set(p, offsets[i]!));
      return [
        [`${name}.offsets.i32`, bytesOf(offsets)],
        [`${name}.utf8`, data],
      ];
    }
    case 'float[]':
      return [
        [`${name}.offsets.i32`, bytesOf(c.offsets)],
        [`${name}.f64`, bytesOf(c.values)],
      ];
    case 'long[]':
      return [
        [`${name}.offsets.i32`, bytesOf(c.offsets)],
        [`${name}.i64`, bytesOf(longsToInt64(c.values, `${where}.${name}`))],
      ];
    default:
      throw new Error(`encodeColumn: ${c.type} is written as a fixed-width file`);
  }
}


/** A fixed-width column's values file and bytes per row, or undefined for other types. */
function fixedWidthFile(name: string, c: Column): { file: string; width: number; bytes: Uint8Array } | undefined {
  switch (c.type) {
    case 'float':
      return { file: `${name}.f64`, width: 8, bytes: bytesOf(c.data) };
    case 'timestamp':
    case 'timespan':
    case 'long':
      return { file: `${name}.i64`, width: 8, bytes: bytesOf(c.data) };
    case 'date':
    case 'int':
      return { file: `${name}.i32`, width: 4, bytes: bytesOf(c.data) };
    case 'boolean':
      return { file: `${name}.u8`, width: 1, bytes: bytesOf(c.data) };
    default:
      return undefined;
  }
}

/** Rows gathered per write by writeRowsDurable. */
const GATHER_ROWS = 1 << 16;

/**
 * Writes rows `index` of a fixed-width column (what encodeColumn writes for the gathered column) a
 * block of rows at a time through one small buffer, and flushes the file: a partition's columns in
 * storage order are never all held gathered at once (for a million-row import, 64 MB of fresh
 * memory less to fault in and write out of).
 */
function writeRowsDurable(dir: string, name: string, c: Column, index: Int32Array, sums: SumsWriter): boolean {
  const f = fixedWidthFile(name, c);
  if (!f || f.bytes.byteOffset % 4 !== 0) return false;
  const path = join(dir, f.file);
  writing(path, () => gatherDurable(path, f, index, sums));
  return true;
}

function gatherDurable(path: string, f: { file: string; width: number; bytes: Uint8Array }, index: Int32Array, sums: SumsWriter): void {
  const { width } = f;
  const block = new Uint8Array(GATHER_ROWS * width);
  const src32 = width === 1 ? undefined : new Int32Array(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength >> 2);
  const out32 = new Int32Array(block.buffer);
  const fd = openSync(path, 'w');
  sums.begin(f.file);
  try {
    for (let a = 0; a < index.length; a += GATHER_ROWS) {
      const b = Math.min(index.length, a + GATHER_ROWS);
      if (width === 8) {
        for (let i = a; i < b; i++) {
          const j = 2 * index[i]!;
          const o = 2 * (i - a);
          out32[o] = src32![j]!;
          out32[o + 1] = src32![j + 1]!;
        }
      } else if (width === 4) {
        for (let i = a; i < b; i++) out32[i - a] = src32![index[i]!]!;
      } else {
        for (let i = a; i < b; i++) block[i - a] = f.bytes[index[i]!]!;
      }
      const bytes = (b - a) * width;
      let off = 0;
      while (off < bytes) off += writeSync(fd, block, off, bytes - off);
      sums.feed(block.subarray(0, bytes));
    }
    fsyncSync(fd);
    sums.end();
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads and checks a partition's `_meta.json`: against the folder's checksums (loaded here for this
 * thread's reads of the folder; a folder an older release wrote has none), and its identifier runs
 * against its row count.
 */
export function readMeta(dir: string): PartitionMeta {
  const path = join(dir, '_meta.json');
  let meta: PartitionMeta;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new FolderGoneError(path);
    throw environmentError(e, 'reading the database') ?? new TickscopeError('badDatabase', `${dir}: cannot read _meta.json (${(e as Error).message})`);
  }
  const sums = loadFolderSums(dir);
  if (sums) {
    const own = sums.files.get('_meta.json');
    const wrong = own ? checkBytes(bytes, own) : `not listed in ${SUMS_FILE}`;
    if (wrong) throw damagedFile(path, wrong);
  }
  try {
    meta = JSON.parse(bytes.toString('utf8')) as PartitionMeta;
  } catch (e) {
    throw damagedFile(path, `not JSON (${(e as Error).message})`);
  }
  if (meta.format !== STORAGE_FORMAT || !Number.isInteger(meta.rows) || meta.rows < 0 || !Array.isArray(meta.columns)) {
    throw new TickscopeError('badDatabase', `${path}: format ${String(meta.format)}, this release reads format ${STORAGE_FORMAT}`);
  }
  if (meta.checksums && !sums) throw damagedFile(join(dir, SUMS_FILE), 'missing (_meta.json says the folder has checksums)');
  if (meta.idRanges) checkIdRanges(path, meta.idRanges, meta.rows);
  return meta;
}

/** A partition's import records (IMPORTS_FILE; none: []), checked against the folder's checksums and their shape. */
export function readImports(dir: string): ImportRecord[] {
  const path = join(dir, IMPORTS_FILE);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw environmentError(e, 'reading the database') ?? new TickscopeError('badDatabase', `${path}: cannot read (${(e as Error).message})`);
  }
  const sums = loadFolderSums(dir);
  if (sums) {
    const own = sums.files.get(IMPORTS_FILE);
    const wrong = own ? checkBytes(bytes, own) : `not listed in ${SUMS_FILE}`;
    if (wrong) throw damagedFile(path, wrong);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw damagedFile(path, `not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(doc)) throw damagedFile(path, 'not a list of import records');
  doc.forEach((r: unknown, k) => {
    const rec = r as Partial<Record<keyof ImportRecord, unknown>> | null;
    const ok =
      typeof rec === 'object' &&
      rec !== null &&
      Number.isSafeInteger(rec.rows) &&
      (rec.rows as number) >= 0 &&
      typeof rec.hash === 'string' &&
      /^[0-9a-f]{16}$/.test(rec.hash) &&
      typeof rec.at === 'string' &&
      (rec.file === undefined || typeof rec.file === 'string');
    if (!ok) throw damagedFile(path, `record ${k + 1} is not an import record (rows, a 16-digit hex hash, at, file)`);
  });
  return doc as ImportRecord[];
}

/**
 * Writes one partition folder (columns in storage order, metadata, time order), flushed to disk;
 * `imports` are the records of the imports whose rows it holds.
 */
export function writePartitionFolder(dir: string, t: TableSchema, data: Table, imports?: readonly ImportRecord[]): void {
  const created = writing(dir, () => {
    rmSync(dir, { recursive: true, force: true });
    return mkdirSync(dir, { recursive: true }) ?? dir;
  });
  const sums = new SumsWriter();
  const { table, idRanges, rowOrderDicts, timeOrder: knownTimeOrder } = prepareForStorage(t, data);
  const sources = table.sources();
  for (const def of t.columns) {
    const i = table.names.indexOf(def.name);
    if (i < 0) throw new Error(`${t.name}.${def.name}: no such column to write`);
    // a column still to be gathered into storage order (rows `index` of it) is gathered as written
    const { column, index } = sources[i]!;
    if (column.type !== def.type) throw new Error(`${t.name}.${def.name}: expected ${def.type}, got ${column.type}`);
    if ((index ? index.length : columnLength(column)) !== table.length) throw new Error(`${t.name}.${def.name}: length mismatch`);
    if (index && writeRowsDurable(dir, def.name, column, index, sums)) continue;
    const col = index ? table.col(def.name) : column;
    if (col.type === 'symbol' && !col.dict.sorted && !rowOrderDicts?.includes(def.name)) throw new Error(`${t.name}.${def.name}: a stored dictionary must be sorted`);
    for (const [file, bytes] of encodeColumn(def.name, col, `${t.name}`)) writeFileDurable(join(dir, file), bytes, sums);
  }
  const ordered = idRanges !== undefined && Object.keys(idRanges).length > 1;
  if (ordered) {
    const order = knownTimeOrder ?? timeOrder((table.col(t.timeColumn!) as Int64Column).data, idRanges);
    writeFileDurable(join(dir, TIME_ORDER_FILE), new Uint8Array(order.buffer, order.byteOffset, order.byteLength), sums);
  }
  const meta: PartitionMeta = {
    format: STORAGE_FORMAT,
    rows: table.length,
    columns: t.columns,
    ...(idRanges ? { idRanges } : {}),
    ...(ordered ? { timeOrder: true } : {}),
    ...(rowOrderDicts ? { rowOrderDicts } : {}),
    checksums: true,
  };
  if (imports?.length) writeFileDurable(join(dir, IMPORTS_FILE), JSON.stringify(imports), sums);
  writeFileDurable(join(dir, '_meta.json'), JSON.stringify(meta), sums);
  // last, once every file's checksums are in (the folder is not named by the manifest yet)
  writeFileDurable(join(dir, SUMS_FILE), sums.encode());
  fsyncDir(dir);
  // the new folder's entry (and that of a table folder made for it) must reach the disk before the
  // manifest that names it does: each folder made here, flushed in its parent
  for (let d = dir; ; d = dirname(d)) {
    fsyncDir(dirname(d));
    if (d === created || dirname(d) === d) break;
  }
}
