/**
 * Writes small kdb+ databases for tests, in the formats docs/kdb-format.md describes and q writes:
 * a `sym` file and `.d` files (serialized symbol lists, `ff 01 0b`), plain vectors (`fe 20 t 00`,
 * a count, the data: no compression, no attribute) and enumerated symbol columns of the kdb+ 3.6
 * kind (`fd 20`, the domain name at 16, a vector header at 4080, int64 indices from 4096). Nothing
 * here is written by q: the fixtures are (test/fixtures/kdb-*); this makes the cases they lack.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** ns from 1970-01-01 to 2000-01-01 (q's epoch). */
const Q_EPOCH_NS = 946_684_800_000_000_000n;
const INT64_NULL = -(2n ** 63n);

/** A column to write: its q type and values (a null is `null`). */
export type KdbColumn =
  | { readonly type: 'timestamp'; readonly values: ReadonlyArray<bigint | null> } // ns since 1970
  | { readonly type: 'timespan'; readonly values: ReadonlyArray<bigint | null> } // ns of the day
  | { readonly type: 'float'; readonly values: ReadonlyArray<number | null> }
  | { readonly type: 'long'; readonly values: ReadonlyArray<bigint | number | null> }
  | { readonly type: 'int'; readonly values: ReadonlyArray<number | null> }
  | { readonly type: 'symbol'; readonly values: ReadonlyArray<string | null> }; // enumerated against `sym`

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

/** An enumeration of int64 indices into the domain `sym` (kdb+ 3.6's `fd 20` file). */
function enumeration(indices: readonly bigint[]): Uint8Array {
  const b = Buffer.alloc(4096 + indices.length * 8);
  b.set([0xfd, 0x20]);
  b.write('sym\0', 16, 'latin1');
  b.set([0xfd, 0x00, 0x14, 0x00], 4080);
  b.writeBigInt64LE(BigInt(indices.length), 4088);
  indices.forEach((v, i) => b.writeBigInt64LE(v, 4096 + i * 8));
  return b;
}

/** The bytes of one column file; symbols are added to `domain` as met. */
function columnFile(c: KdbColumn, domain: string[]): Uint8Array {
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
      return vector(6, 4, n, (b, at, i) => b.writeInt32LE(c.values[i] ?? -2147483648, at));
    case 'symbol':
      return enumeration(
        c.values.map((s) => {
          if (s === null) return INT64_NULL;
          let k = domain.indexOf(s);
          if (k < 0) k = domain.push(s) - 1;
          return BigInt(k);
        }),
      );
  }
}

/** A splayed table's folder: its `.d` (the columns' order) and one file per column. */
export function writeSplayed(dir: string, columns: ReadonlyArray<readonly [string, KdbColumn]>, domain: string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.d'), symbolList(columns.map(([name]) => name)));
  for (const [name, c] of columns) writeFileSync(join(dir, name), columnFile(c, domain));
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
