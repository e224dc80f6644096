/**
 * Writes small kdb+ databases for tests, in the formats docs/kdb-format.md describes and q writes:
 * a `sym` file and `.d` files (serialized symbol lists, `ff 01 0b`), plain vectors (`fe 20 t 00`,
 * a count, the data: no compression, no attribute), enumerated symbol columns of the kdb+ 3.6
 * kind (`fd 20`, the domain name at 16, a vector header at 4080, int64 indices from 4096), with a
 * `p#` index when asked (section 2.3), and anymap nested columns (section 4.1: strings, float and
 * long lists). Nothing here is written by q: the fixtures are (test/fixtures/kdb-*); this makes the
 * cases they lack.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** ns from 1970-01-01 to 2000-01-01 (q's epoch). */
const Q_EPOCH_NS = 946_684_800_000_000_000n;
/** Days from 1970-01-01 to 2000-01-01. */
const Q_EPOCH_DAYS = 10_957;
const INT64_NULL = -(2n ** 63n);
const INT32_NULL = -2147483648;
/** Bytes of a kdb+ 3.6 file's first page. */
const PAGE = 4096;

/** A column to write: its q type and values (a null is `null`). */
export type KdbColumn =
  | { readonly type: 'timestamp'; readonly values: ReadonlyArray<bigint | null> } // ns since 1970
  | { readonly type: 'timespan'; readonly values: ReadonlyArray<bigint | null> } // ns of the day
  | { readonly type: 'float'; readonly values: ReadonlyArray<number | null> }
  | { readonly type: 'long'; readonly values: ReadonlyArray<bigint | number | null> }
  | { readonly type: 'int'; readonly values: ReadonlyArray<number | null> }
  | { readonly type: 'boolean'; readonly values: readonly boolean[] }
  | { readonly type: 'date'; readonly values: ReadonlyArray<number | null> } // days since 1970
  // enumerated against `sym`; `parted`: with a p# index (each value's rows together, as q's end-of-day save leaves the identifier)
  | { readonly type: 'symbol'; readonly values: ReadonlyArray<string | null>; readonly parted?: boolean }
  // anymap columns: a char vector per row; a float or long vector per row. `mapped`: every element as a
  // q vector at an 8-aligned offset (else compact, a code byte and a 1-byte count; q picks per element,
  // by rules unverified: the sample has both)
  | { readonly type: 'string'; readonly values: readonly string[]; readonly mapped?: boolean }
  | { readonly type: 'float[]'; readonly values: ReadonlyArray<readonly number[]>; readonly mapped?: boolean }
  | { readonly type: 'long[]'; readonly values: ReadonlyArray<readonly number[]>; readonly mapped?: boolean };

/** A serialized symbol list (`sym`, `.d`). */
function symbolList(names: readonly string[]): Uint8Array {
  const body = Buffer.from(names.map((n) => `${n}\0`).join(''), 'utf8');
  const head = Buffer.alloc(8);
  head.set([0xff, 0x01, 0x0b, 0x00]);
  head.writeInt32LE(names.length, 4);
  return Buffer.concat([head, body]);
}

/** A plain vector file: `fe 20 t 00`, four zeros, the count, the data. */
function vector(qType: number, width: number, n: number, put: (b: Buffer, at: number, i: number) => void): Uint8Array {
  const b = Buffer.alloc(16 + n * width);
  b.set([0xfe, 0x20, qType, 0x00]);
  b.writeBigInt64LE(BigInt(n), 8);
  for (let i = 0; i < n; i++) put(b, 16 + i * width, i);
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
 * An enumeration of int64 indices into the domain `sym` (kdb+ 3.6's `fd 20` file); `parted`, with a
 * p# index after the data (docs/kdb-format.md 2.3, as 3.6 writes it): an 8-byte gap, a u# object of
 * the distinct values in run order, then the run boundaries as a long vector ending the file. q puts
 * a hash table after the distinct values; a reader never needs it, so none is written.
 */
function enumeration(indices: readonly bigint[], parted: boolean): Uint8Array {
  const b = Buffer.alloc(PAGE + indices.length * 8);
  b.set([0xfd, 0x20]);
  b.write('sym\0', 16, 'latin1');
  b.set([0xfd, 0x00, 0x14, parted ? 0x03 : 0x00], 4080);
  b.writeBigInt64LE(BigInt(indices.length), 4088);
  indices.forEach((v, i) => b.writeBigInt64LE(v, PAGE + i * 8));
  if (!parted) return b;
  const distinct: bigint[] = [];
  const bounds: bigint[] = [];
  indices.forEach((v, i) => {
    if (i > 0 && v === indices[i - 1]) return;
    if (distinct.includes(v)) throw new Error(`kdb-writer: a p# column with the value ${v} in two runs`);
    distinct.push(v);
    bounds.push(BigInt(i));
  });
  bounds.push(BigInt(indices.length));
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

/** The bytes of one column file (and of its `#` file, for a nested column); symbols are added to `domain` as met. */
function columnFile(c: KdbColumn, domain: string[]): Uint8Array | { name: Uint8Array; arena: Uint8Array } {
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
      const index = indexOf(domain);
      const codes = c.values.map((s) => {
        if (s === null) return INT64_NULL;
        let k = index.get(s);
        if (k === undefined) index.set(s, (k = domain.push(s) - 1));
        return BigInt(k);
      });
      return enumeration(codes, c.parted ?? false);
    }
    case 'string':
      return anymap(10, c.values.map((s) => Buffer.from(s, 'utf8')), c.mapped ?? false);
    case 'float[]':
      return anymap(9, c.values.map((v) => items8(v, 9)), c.mapped ?? false);
    case 'long[]':
      return anymap(7, c.values.map((v) => items8(v, 7)), c.mapped ?? false);
  }
}

/** A splayed table's folder: its `.d` (the columns' order) and one file per column. */
export function writeSplayed(dir: string, columns: ReadonlyArray<readonly [string, KdbColumn]>, domain: string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.d'), symbolList(columns.map(([name]) => name)));
  for (const [name, c] of columns) {
    const bytes = columnFile(c, domain);
    if (bytes instanceof Uint8Array) writeFileSync(join(dir, name), bytes);
    else {
      writeFileSync(join(dir, name), bytes.name);
      writeFileSync(join(dir, `${name}#`), bytes.arena);
    }
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
): void {
  const domain: string[] = [];
  for (const [date, tables] of Object.entries(partitions)) for (const [table, cols] of Object.entries(tables)) writeSplayed(join(root, date, table), cols, domain);
  for (const [table, cols] of Object.entries(splayed)) writeSplayed(join(root, table), cols, domain);
  writeFileSync(join(root, 'sym'), symbolList(domain));
}
