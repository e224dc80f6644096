/**
 * Writes kdb+ databases for the tests and the bench, in the formats docs/kdb-format.md describes and q
 * writes: a `sym` file and `.d` files (serialized symbol lists, `ff 01 0b`), plain vectors (`fe 20 t
 * 00`, a count, the data: no attribute), enumerated symbol columns of the kdb+ 3.6 kind (`fd 20`, the
 * domain name at 16, a vector header at 4080, int64 indices from 4096), with a `p#` index when asked
 * (section 2.3), and anymap nested columns (section 4.1: strings, float and long lists). Any column
 * file may be written compressed (`kxzipped`, section 5: zlib, snappy or zstd blocks of 2^17 bytes by
 * default, q's `.z.zd 17 2 6`); `.d` and `sym` stay plain, as q leaves them. Nothing here is written
 * by q: the fixtures are (test/fixtures/kdb-*); this makes the cases they lack, and the bench's HDBs
 * (bench/kdb-data.ts), whose columns come as Tickscope's own typed arrays rather than value lists.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { snappyCompressor } from 'hysnappy';

/** ns from 1970-01-01 to 2000-01-01 (q's epoch). */
const Q_EPOCH_NS = 946_684_800_000_000_000n;
/** Days from 1970-01-01 to 2000-01-01. */
const Q_EPOCH_DAYS = 10_957;
const INT64_NULL = -(2n ** 63n);
const INT32_NULL = -2147483648;
/** Bytes of a kdb+ 3.6 file's first page. */
const PAGE = 4096;

/** A symbol dictionary as Tickscope's symbol columns hold one: code -> name, "" the null symbol. */
export interface KdbDict {
  readonly length: number;
  get(code: number): string;
}

/** A column to write: its q type and values (a null is `null`). */
export type KdbColumn =
  | { readonly type: 'timestamp'; readonly values: ReadonlyArray<bigint | null> } // ns since 1970
  | { readonly type: 'timespan'; readonly values: ReadonlyArray<bigint | null> } // ns of the day
  | { readonly type: 'float'; readonly values: ReadonlyArray<number | null> }
  | { readonly type: 'long'; readonly values: ReadonlyArray<bigint | number | null> }
  | { readonly type: 'int'; readonly values: ReadonlyArray<number | null> }
  | { readonly type: 'boolean'; readonly values: readonly boolean[] }
  | { readonly type: 'date'; readonly values: ReadonlyArray<number | null> } // days since 1970
  // enumerated against `sym` (or the domain named: a file at the root, as q's .Q.ens writes one); `parted`: with a
  // p# index (each value's rows together, as q's end-of-day save leaves the identifier)
  | { readonly type: 'symbol'; readonly values: ReadonlyArray<string | null>; readonly parted?: boolean; readonly domain?: string }
  // anymap columns: a char vector per row; a float or long vector per row. `mapped`: every element as a
  // q vector at an 8-aligned offset (else compact, a code byte and a 1-byte count; q picks per element,
  // by rules unverified: the sample has both)
  | { readonly type: 'string'; readonly values: readonly string[]; readonly mapped?: boolean }
  | { readonly type: 'float[]'; readonly values: ReadonlyArray<readonly number[]>; readonly mapped?: boolean }
  | { readonly type: 'long[]'; readonly values: ReadonlyArray<readonly number[]>; readonly mapped?: boolean }
  // a Tickscope column as it is held (core/column.ts), for large tables: see TypedColumn
  | { readonly type: 'typed'; readonly column: TypedColumn; readonly parted?: boolean; readonly domain?: string };

/** Enumeration domains by name (`sym`...): each the names written so far, a name's index its position. */
export type KdbDomains = Map<string, string[]>;

/**
 * A column as Tickscope holds one (core/column.ts): typed arrays, nulls as Tickscope holds them
 * (INT64_MIN, NaN, INT32_MIN; a timestamp in ns since 1970, a date in days since 1970), a symbol
 * column's codes into its dictionary ("" the null symbol).
 */
export type TypedColumn =
  | { readonly type: 'timestamp' | 'timespan' | 'long'; readonly data: BigInt64Array }
  | { readonly type: 'float'; readonly data: Float64Array }
  | { readonly type: 'int' | 'date'; readonly data: Int32Array }
  | { readonly type: 'boolean'; readonly data: Uint8Array }
  | { readonly type: 'symbol'; readonly codes: Int32Array; readonly dict: KdbDict };

/** How column files are compressed (docs/kdb-format.md 5): q's `.z.zd blockLog algorithm level`. */
export interface KdbCompression {
  /** 2 zlib (node:zlib), 3 snappy (hysnappy), 5 zstd (the `zstd` command: Node 20's zlib has no zstd, and no package here compresses it). */
  readonly algorithm: 2 | 3 | 5;
  /** log2 of the logical block size: 12 to 20 (default 17, q's). */
  readonly blockLog?: number;
  /** The codec's level (written in the trailer): zlib 0-9 (default 6, q's), zstd 1-19 (default 3, zstd's own); snappy has none. */
  readonly level?: number;
}

/** How files are written: column files compressed, or plain (the default). */
export interface KdbWriteOptions {
  readonly compression?: KdbCompression;
}

// ---- compressed files (docs/kdb-format.md 5) -------------------------------------------------------

/** One stored block of a kxzipped file: its bytes and its flag (0 raw, else the algorithm). */
export interface StoredBlock {
  readonly bytes: Uint8Array;
  readonly flag: number;
}

/** A kxzipped file of `length` uncompressed bytes in blocks of 2^blockLog stored as given (trailer as q writes it, format 3). */
export function kxzip(length: number, algorithm: number, blockLog: number, blocks: readonly StoredBlock[], level = 0): Buffer {
  const stored = blocks.reduce((s, b) => s + b.bytes.length, 0);
  const t = 8 + stored;
  const trailer = Buffer.alloc(32 + 8 * blocks.length + 8);
  trailer.writeInt32LE(3, 0);
  trailer[4] = algorithm;
  trailer[5] = level;
  trailer.writeBigInt64LE(BigInt(length), 8);
  trailer.writeBigInt64LE(BigInt(t), 16);
  trailer.writeBigInt64LE(BigInt(2 ** blockLog), 24);
  blocks.forEach((b, i) => {
    trailer.writeInt32LE(b.bytes.length, 32 + 8 * i);
    trailer.writeInt32LE(b.flag, 36 + 8 * i);
  });
  trailer.writeBigInt64LE(BigInt(blocks.length), 32 + 8 * blocks.length);
  return Buffer.concat([Buffer.from('kxzipped', 'latin1'), ...blocks.map((b) => b.bytes), trailer]);
}

/** An image cut into blocks of 2^blockLog, each compressed by `pack` (flag `algorithm`). */
export function kxzipWith(image: Uint8Array, algorithm: number, blockLog: number, pack: (block: Uint8Array, i: number) => Uint8Array): Buffer {
  const size = 2 ** blockLog;
  const blocks: StoredBlock[] = [];
  for (let at = 0, i = 0; at < image.length; at += size, i++) blocks.push({ bytes: pack(image.subarray(at, at + size), i), flag: algorithm });
  return kxzip(image.length, algorithm, blockLog, blocks);
}

let snappy: ((input: Uint8Array) => Uint8Array) | undefined;

/**
 * Blocks compressed with the `zstd` command, one frame each (its content size in the header, no
 * checksum: what the zstd library's one-shot compression writes, as q calls it). The blocks go through
 * files in a scratch folder, one command for all of them.
 */
function zstdBlocks(blocks: readonly Uint8Array[], level: number): Uint8Array[] {
  const dir = mkdtempSync(join(tmpdir(), 'kdb-zstd-'));
  try {
    const files = blocks.map((b, i) => {
      const f = join(dir, `b${i}`);
      writeFileSync(f, b);
      return f;
    });
    const r = spawnSync('zstd', ['-q', '-f', `-${level}`, '--no-check', ...files], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.error) throw new Error(`kdb-writer: zstd blocks need the zstd command (Node 20's zlib has no zstd, and no package here compresses it): ${r.error.message}`);
    if (r.status !== 0) throw new Error(`kdb-writer: zstd exited ${r.status}: ${r.stderr.toString()}`);
    return files.map((f) => readFileSync(`${f}.zst`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A file's image as a `kxzipped` file: cut into blocks of 2^blockLog bytes, each compressed (zlib: one
 * zlib stream, `78 9c` at level 6; snappy: a raw snappy block; zstd: one frame), or stored raw (flag 0)
 * where compressing does not shrink it, as q does.
 */
export function compressFile(image: Uint8Array, compression: KdbCompression): Buffer {
  const { algorithm } = compression;
  const blockLog = compression.blockLog ?? 17;
  if (!Number.isInteger(blockLog) || blockLog < 12 || blockLog > 20) throw new Error(`kdb-writer: block size 2^${blockLog}; kdb+ takes 2^12 to 2^20`);
  const level = compression.level ?? (algorithm === 2 ? 6 : algorithm === 5 ? 3 : 0);
  const size = 2 ** blockLog;
  const raw: Uint8Array[] = [];
  for (let at = 0; at < image.length; at += size) raw.push(image.subarray(at, at + size));
  let packed: Uint8Array[];
  if (algorithm === 2) packed = raw.map((b) => deflateSync(b, { level }));
  else if (algorithm === 3) packed = raw.map((b) => (snappy ??= snappyCompressor())(b).slice());
  else if (algorithm === 5) packed = zstdBlocks(raw, level);
  else throw new Error(`kdb-writer: compression algorithm ${String(algorithm)}; written here: 2 zlib, 3 snappy, 5 zstd`);
  const blocks = raw.map((b, i): StoredBlock => (packed[i]!.length < b.length ? { bytes: packed[i]!, flag: algorithm } : { bytes: b, flag: 0 }));
  return kxzip(image.length, algorithm, blockLog, blocks, level);
}

// ---- plain files --------------------------------------------------------------------------------------

/** A serialized symbol list (`sym`, `.d`), built a slice of names at a time (a domain may hold millions). */
function symbolList(names: readonly string[]): Uint8Array {
  const head = Buffer.alloc(8);
  head.set([0xff, 0x01, 0x0b, 0x00]);
  head.writeInt32LE(names.length, 4);
  const parts: Buffer[] = [head];
  for (let i = 0; i < names.length; i += 65536) parts.push(Buffer.from(`${names.slice(i, i + 65536).join('\0')}\0`, 'utf8'));
  return Buffer.concat(parts);
}

/** A plain vector file: `fe 20 t 00`, four zeros, the count, the data. */
function vector(qType: number, width: number, n: number, put: (b: Buffer, at: number, i: number) => void): Uint8Array {
  const b = Buffer.alloc(16 + n * width);
  b.set([0xfe, 0x20, qType, 0x00]);
  b.writeBigInt64LE(BigInt(n), 8);
  for (let i = 0; i < n; i++) put(b, 16 + i * width, i);
  return b;
}

/**
 * A plain vector file of typed items: their bytes copied, then `shift` added to every item but the
 * null (int64 items through their int32 halves, no BigInt per row: a timestamp from 1970's epoch to q's).
 */
function typedVector(qType: number, data: BigInt64Array | Float64Array | Int32Array | Uint8Array, shift?: bigint | number): Uint8Array {
  const b = Buffer.alloc(16 + data.byteLength);
  b.set([0xfe, 0x20, qType, 0x00]);
  b.writeBigInt64LE(BigInt(data.length), 8);
  b.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), 16);
  if (shift !== undefined && data instanceof BigInt64Array) {
    const w = new Int32Array(b.buffer, b.byteOffset + 16, 2 * data.length);
    const by = BigInt(shift);
    const lo = Number(BigInt.asUintN(32, by));
    const hi = Number(BigInt.asIntN(32, by >> 32n));
    for (let i = 0; i < data.length; i++) {
      if (w[2 * i] === 0 && w[2 * i + 1] === INT32_NULL) continue; // INT64_MIN, the null
      const l = (w[2 * i]! >>> 0) + lo;
      w[2 * i] = l | 0;
      w[2 * i + 1] = (w[2 * i + 1]! + hi + (l > 0xffffffff ? 1 : 0)) | 0;
    }
  } else if (shift !== undefined && data instanceof Int32Array) {
    const w = new Int32Array(b.buffer, b.byteOffset + 16, data.length);
    for (let i = 0; i < data.length; i++) if (w[i] !== INT32_NULL) w[i] = w[i]! + Number(shift);
  }
  return b;
}

/** A 16-byte q vector header (`m a t attr`, a zero reference count, the count) and int64 items. */
function longObject(type: number, attr: number, items: readonly bigint[]): Buffer {
  const b = Buffer.alloc(16 + 8 * items.length);
  b.set([0x03, 0x00, type, attr]); // the first two bytes are q's memory bookkeeping: never read
  b.writeBigInt64LE(BigInt(items.length), 8);
  items.forEach((v, i) => b.writeBigInt64LE(v, 16 + 8 * i));
  return b;
}

/**
 * An enumeration of indices into the domain `domain` (kdb+ 3.6's `fd 20` file: int64 items; -1 here is
 * the null index); `parted`, with a p# index after the data (docs/kdb-format.md 2.3, as 3.6 writes
 * it): an 8-byte gap, a u# object of the distinct values in run order, then the run boundaries as a
 * long vector ending the file. q puts a hash table after the distinct values; a reader never needs it,
 * so none is written.
 */
function enumeration(indices: Int32Array, parted: boolean, domain: string): Uint8Array {
  const n = indices.length;
  const b = Buffer.alloc(PAGE + n * 8);
  b.set([0xfd, 0x20]);
  b.write(`${domain}\0`, 16, 'latin1');
  b.set([0xfd, 0x00, 0x14, parted ? 0x03 : 0x00], 4080);
  b.writeBigInt64LE(BigInt(n), 4088);
  // int64 items through their int32 halves: an index, or q's null (INT64_MIN: low 0, high INT32_MIN)
  const w = new Int32Array(b.buffer, b.byteOffset + PAGE, 2 * n);
  for (let i = 0; i < n; i++) {
    const v = indices[i]!;
    if (v >= 0) w[2 * i] = v;
    else w[2 * i + 1] = INT32_NULL;
  }
  if (!parted) return b;
  const distinct: bigint[] = [];
  const bounds: bigint[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    const v = indices[i]!;
    if (i > 0 && v === indices[i - 1]) continue;
    if (seen.has(v)) throw new Error(`kdb-writer: a p# column with the value ${v} in two runs`);
    seen.add(v);
    distinct.push(v < 0 ? INT64_NULL : BigInt(v));
    bounds.push(BigInt(i));
  }
  bounds.push(BigInt(n));
  return Buffer.concat([b, Buffer.alloc(8), longObject(20, 2, distinct), longObject(7, 0, bounds)]);
}

/**
 * An anymap column (kdb+ 3.6's type 77): the `name` file (an `fd 20` page, `fd 01 4d 00` at 4080, a
 * count left 0 as q leaves it, then one 8-byte locator per row: the element's offset from `name#`'s
 * byte 4096, the top byte 1 compact or 0 mapped) and the `name#` file (an `fd 20` page, `fd 00 04 00`
 * at 4080, the elements from 4096). Every element is a vector of q type `t` (10 char, 9 float, 7 long).
 */
function anymap(t: number, rows: ReadonlyArray<Uint8Array>, mapped: boolean): { name: Uint8Array; arena: Uint8Array } {
  const width = t === 10 ? 1 : 8;
  const name = Buffer.alloc(PAGE + 8 * rows.length);
  name.set([0xfd, 0x20]);
  name.set([0xfd, 0x01, 77, 0x00], 4080);
  const parts: Buffer[] = [];
  let at = 0;
  rows.forEach((items, i) => {
    const n = items.length / width;
    if (mapped || n > 255) {
      const pad = (8 - (at % 8)) % 8; // a mapped element starts 8-aligned
      const head = Buffer.alloc(pad + 16);
      head.set([0xfb, 0x00, t, 0x00], pad);
      head.writeBigInt64LE(BigInt(n), pad + 8);
      at += pad;
      name.writeUInt32LE(at, PAGE + 8 * i);
      parts.push(head, Buffer.from(items));
      at += 16 + items.length;
    } else {
      name.writeUInt32LE(at, PAGE + 8 * i);
      name[PAGE + 8 * i + 7] = 1; // compact: the code byte 127 + t, the count, the items
      parts.push(Buffer.from([127 + t, n]), Buffer.from(items));
      at += 2 + items.length;
    }
  });
  const page = Buffer.alloc(PAGE);
  page.set([0xfd, 0x20]);
  page.set([0xfd, 0x00, 0x04, 0x00], 4080);
  return { name, arena: Buffer.concat([page, ...parts]) };
}

/** Numbers as the little-endian bytes of float64 (t 9) or int64 (t 7) items. */
function items8(values: readonly number[], t: 7 | 9): Uint8Array {
  const b = Buffer.alloc(8 * values.length);
  values.forEach((v, i) => (t === 9 ? b.writeDoubleLE(v, 8 * i) : b.writeBigInt64LE(Number.isNaN(v) ? INT64_NULL : BigInt(v), 8 * i)));
  return b;
}

/** Each domain's names -> their indices, kept as the domain grows (a column's symbols are looked up, not searched for). */
const indexes = new WeakMap<string[], Map<string, number>>();
function indexOf(domain: string[]): Map<string, number> {
  let index = indexes.get(domain);
  if (!index || index.size !== domain.length) indexes.set(domain, (index = new Map(domain.map((s, k) => [s, k]))));
  return index;
}

/** A name's index in the domain, the name added when new; -1 for the null symbol. */
function enumerate(domain: string[], index: Map<string, number>, s: string | null): number {
  if (s === null) return -1;
  let k = index.get(s);
  if (k === undefined) index.set(s, (k = domain.push(s) - 1));
  return k;
}

/** The file of a column held as Tickscope holds it. */
function typedFile(c: TypedColumn, parted: boolean, domains: KdbDomains, name = 'sym'): Uint8Array {
  switch (c.type) {
    case 'timestamp':
      return typedVector(12, c.data, -Q_EPOCH_NS);
    case 'timespan':
      return typedVector(16, c.data);
    case 'long':
      return typedVector(7, c.data);
    case 'float':
      return typedVector(9, c.data);
    case 'int':
      return typedVector(6, c.data);
    case 'date':
      return typedVector(14, c.data, -Q_EPOCH_DAYS);
    case 'boolean':
      return typedVector(1, c.data.map((v) => (v ? 1 : 0)));
    case 'symbol': {
      // each code of the column's dictionary enumerated once ("" is the null symbol)
      const domain = domainOf(domains, name);
      const index = indexOf(domain);
      const of = new Int32Array(c.dict.length);
      for (let k = 0; k < c.dict.length; k++) {
        const s = c.dict.get(k);
        of[k] = enumerate(domain, index, s === '' ? null : s);
      }
      return enumeration(c.codes.map((k) => of[k]!), parted, name);
    }
  }
}

/** A domain's names so far (a new domain starts empty). */
function domainOf(domains: KdbDomains, name: string): string[] {
  let d = domains.get(name);
  if (!d) domains.set(name, (d = []));
  return d;
}

/** The bytes of one column file (and of its `#` file, for a nested column); symbols are added to their domain as met. */
function columnFile(c: KdbColumn, domains: KdbDomains): Uint8Array | { name: Uint8Array; arena: Uint8Array } {
  if (c.type === 'typed') return typedFile(c.column, c.parted ?? false, domains, c.domain);
  const n = c.values.length;
  switch (c.type) {
    case 'timestamp':
      return vector(12, 8, n, (b, at, i) => b.writeBigInt64LE(c.values[i] === null ? INT64_NULL : c.values[i]! - Q_EPOCH_NS, at));
    case 'timespan':
      return vector(16, 8, n, (b, at, i) => b.writeBigInt64LE(c.values[i] ?? INT64_NULL, at));
    case 'float':
      return vector(9, 8, n, (b, at, i) => b.writeDoubleLE(c.values[i] ?? NaN, at));
    case 'long':
      return vector(7, 8, n, (b, at, i) => b.writeBigInt64LE(c.values[i] === null ? INT64_NULL : BigInt(c.values[i]!), at));
    case 'int':
      return vector(6, 4, n, (b, at, i) => b.writeInt32LE(c.values[i] ?? INT32_NULL, at));
    case 'boolean':
      return vector(1, 1, n, (b, at, i) => b.writeUInt8(c.values[i] ? 1 : 0, at));
    case 'date':
      return vector(14, 4, n, (b, at, i) => b.writeInt32LE(c.values[i] === null ? INT32_NULL : c.values[i]! - Q_EPOCH_DAYS, at));
    case 'symbol': {
      const domain = domainOf(domains, c.domain ?? 'sym');
      const index = indexOf(domain);
      return enumeration(Int32Array.from(c.values, (s) => enumerate(domain, index, s)), c.parted ?? false, c.domain ?? 'sym');
    }
    case 'string':
      return anymap(10, c.values.map((s) => Buffer.from(s, 'utf8')), c.mapped ?? false);
    case 'float[]':
      return anymap(9, c.values.map((v) => items8(v, 9)), c.mapped ?? false);
    case 'long[]':
      return anymap(7, c.values.map((v) => items8(v, 7)), c.mapped ?? false);
  }
}

/**
 * A splayed table's folder: its `.d` (the columns' order) and one file per column (compressed when
 * asked). Symbols are added to their domains as met: `domains` by name, or the `sym` list alone.
 */
export function writeSplayed(dir: string, columns: ReadonlyArray<readonly [string, KdbColumn]>, domains: string[] | KdbDomains, options: KdbWriteOptions = {}): void {
  const byName = Array.isArray(domains) ? new Map([['sym', domains]]) : domains;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.d'), symbolList(columns.map(([name]) => name)));
  const write = (file: string, image: Uint8Array): void => writeFileSync(join(dir, file), options.compression ? compressFile(image, options.compression) : image);
  for (const [name, c] of columns) {
    const bytes = columnFile(c, byName);
    if (bytes instanceof Uint8Array) write(name, bytes);
    else {
      write(name, bytes.name);
      write(`${name}#`, bytes.arena);
    }
  }
}

/**
 * A date-partitioned database written a table at a time (a large one need not be held whole): each
 * partition's tables, splayed tables at the root, then `finish` writes the `sym` file of every symbol
 * written (and each other domain's file).
 */
export class HdbWriter {
  /** The domains so far by name: `sym`, and any a column names. */
  readonly domains: KdbDomains = new Map([['sym', []]]);

  constructor(
    readonly root: string,
    private readonly options: KdbWriteOptions = {},
  ) {
    mkdirSync(root, { recursive: true });
  }

  /** A table of the partition `date` (`2024.03.06`): its columns in order. */
  partition(date: string, table: string, columns: ReadonlyArray<readonly [string, KdbColumn]>): void {
    writeSplayed(join(this.root, date, table), columns, this.domains, this.options);
  }

  /** A splayed table at the root. */
  splayed(table: string, columns: ReadonlyArray<readonly [string, KdbColumn]>): void {
    writeSplayed(join(this.root, table), columns, this.domains, this.options);
  }

  /** Writes the domain files, `sym` and any other (plain, as q leaves them). */
  finish(): void {
    for (const [name, names] of this.domains) writeFileSync(join(this.root, name), symbolList(names));
  }
}

/**
 * A date-partitioned database: partitions (`2024.03.06`) -> table -> its columns in order, splayed
 * tables at the root (table -> columns), and the `sym` file of every symbol written.
 */
export function writeHdb(
  root: string,
  partitions: Readonly<Record<string, Readonly<Record<string, ReadonlyArray<readonly [string, KdbColumn]>>>>>,
  splayed: Readonly<Record<string, ReadonlyArray<readonly [string, KdbColumn]>>> = {},
  options: KdbWriteOptions = {},
): void {
  const w = new HdbWriter(root, options);
  for (const [date, tables] of Object.entries(partitions)) for (const [table, cols] of Object.entries(tables)) w.partition(date, table, cols);
  for (const [table, cols] of Object.entries(splayed)) w.splayed(table, cols);
  w.finish();
}
