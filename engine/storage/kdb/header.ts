/**
 * What a kdb+ file's image holds, told by its first bytes (docs/kdb-format.md section 0), with its
 * rows counted from its length (and its attribute index, attr-index.ts), never from a header count
 * alone:
 *
 *   ff 01 t            a serialized q object (sym, .d, a table written whole)        object.ts
 *   fe 20 t attr       a plain vector, t 1-19 (not 11), data at 16                    [fixture]
 *   fe 20 (77+t)       a typed nested column of t vectors (before kdb+ 3.6)           [unverified]
 *   fe name 00 ...     an enumeration of 32-bit indices into domain `name` (before 3.6) [fixture]
 *   fd 20 ... page     a 4096-byte first page, its type at 4082: 20 an enumeration of
 *                      64-bit indices (domain name at 16), 77 an anymap column,
 *                      4 an anymap column's `#` arena                                 [fixture: 20]
 */
import { ITEM_BYTES, isSimpleVector, qTypeName } from '../../q/types.js';
import { type PartedIndex, rowsOf } from './attr-index.js';
import { isCompressionMagic } from './file.js';
import { badFile, hexOf, isDomainName, type KdbBytes } from './io.js';

/** Bytes of a 3.6+ file's first page. */
export const PAGE_BYTES = 4096;

/** A vector-like file: its data starts at `dataStart`, `rows` items of `width` bytes. */
interface Rows {
  readonly attr: number;
  readonly dataStart: number;
  readonly width: number;
  readonly rows: number;
  /** The header's count (0 when q left it so; the file's length decided `rows`). */
  readonly headerCount: number;
  /** A `p#` file's runs. */
  readonly parted?: PartedIndex;
}

/** A plain vector of a simple type (1-19 but 3 and 11). */
export interface VectorLayout extends Rows {
  readonly kind: 'vector';
  readonly qType: number;
}

/** An enumerated symbol column: indices (4 bytes before kdb+ 3.6, 8 after) into the domain file `domain`. */
export interface EnumLayout extends Rows {
  readonly kind: 'enum';
  readonly domain: string;
  readonly width: 4 | 8;
}

/** A kdb+ 3.6+ anymap column (type 77): one 8-byte locator per row into the `name#` file. */
export interface AnymapLayout extends Rows {
  readonly kind: 'anymap';
}

/** A typed nested column (type 77 + t, before 3.6): one int64 end offset per row into the `name#` file. */
export interface NestedLayout extends Rows {
  readonly kind: 'nested';
  /** The items' type t (the file's type is 77 + t). */
  readonly itemType: number;
}

/** A serialized q object (`ff 01`): its type byte (11 symbols, 98 a table, 99 a dictionary, 0 a list). */
export interface ObjectLayout {
  readonly kind: 'object';
  readonly qType: number;
}

/** An anymap column's `#` file (the elements' bytes, from byte 4096). */
export interface ArenaLayout {
  readonly kind: 'arena';
}

export type FileLayout = VectorLayout | EnumLayout | AnymapLayout | NestedLayout | ObjectLayout | ArenaLayout;

/** Reads an int64 header count as a number (-1 when negative or past 2^53: never trusted). */
function count64(v: DataView, at: number): number {
  const hi = v.getInt32(at + 4, true);
  return hi < 0 || hi >= 2 ** 21 ? -1 : hi * 4294967296 + v.getUint32(at, true);
}

/** A domain name from a file: one path component of printable characters (never a path). */
function domainName(path: string, b: Uint8Array, from: number, to: number): string {
  const nul = b.subarray(from, to).indexOf(0);
  if (nul < 0) throw badFile(path, `its enumeration's domain name is not terminated within bytes ${from}-${to}`);
  const name = Buffer.from(b.subarray(from, from + nul)).toString('latin1');
  if (!isDomainName(name)) {
    throw badFile(path, `its enumeration names the domain ${JSON.stringify(name)}; expected a file name at the database's root (e.g. sym)`);
  }
  return name;
}

/** What the image of `bytes` holds, its rows counted and checked against its length. */
export function readLayout(bytes: KdbBytes): FileLayout {
  const { path, length } = bytes;
  const head = bytes.read(0, Math.min(length, PAGE_BYTES));
  const v = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const need = (n: number, what: string): void => {
    if (length < n) throw badFile(path, `${length} bytes; ${what} takes ${n}`);
  };
  need(2, 'a header');
  if (isCompressionMagic(head)) throw badFile(path, 'a compressed image that is compressed again; expected one q data file inside');
  const [b0, b1] = [head[0]!, head[1]!];
  if (b0 === 0xff && b1 === 0x01) {
    need(3, 'a serialized object');
    return { kind: 'object', qType: v.getInt8(2) };
  }
  if (b0 === 0xfe && b1 === 0x20) {
    need(16, 'a vector header');
    const t = head[2]!;
    const attr = head[3]!;
    const headerCount = count64(v, 8);
    if (t >= 78 && t <= 96 && isSimpleVector(t - 77)) {
      return { kind: 'nested', itemType: t - 77, ...rows(bytes, 16, 8, attr, headerCount, t) };
    }
    if (!isSimpleVector(t) || t === 11) throw badFile(path, `a vector header (fe 20) of type ${t}, ${qTypeName(t)}; expected a column type 1-19 (not 11: symbol columns are enumerated)`);
    return { kind: 'vector', qType: t, ...rows(bytes, 16, ITEM_BYTES[t]!, attr, headerCount, t) };
  }
  if (b0 === 0xfe && ((b1 >= 0x41 && b1 <= 0x5a) || (b1 >= 0x61 && b1 <= 0x7a))) {
    // [fixture] `fe sym 00 ...`, the 8-byte block `00 00 00 attr 00 00 00 00` at the first multiple of
    // 8 after the name's 0, the count 8 bytes on, the indices 8 bytes after it. Longer names: unverified.
    const domain = domainName(path, head, 1, Math.min(head.length, 256));
    const block = (1 + domain.length + 8) & ~7;
    need(block + 16, `an enumeration header for domain ${domain}`);
    return { kind: 'enum', domain, ...rows(bytes, block + 16, 4, head[block + 3]!, count64(v, block + 8), 20), width: 4 };
  }
  if (b0 === 0xfd && b1 === 0x20) {
    need(PAGE_BYTES, 'a kdb+ 3.6 first page');
    const t = head[4082]!;
    const attr = head[4083]!;
    const headerCount = count64(v, 4088);
    if (t === 20) {
      const domain = domainName(path, head, 16, 4080);
      return { kind: 'enum', domain, ...rows(bytes, PAGE_BYTES, 8, attr, headerCount, 20), width: 8 };
    }
    if (t === 77) return { kind: 'anymap', ...rows(bytes, PAGE_BYTES, 8, attr, headerCount, 77) };
    if (t === 4) return { kind: 'arena' };
    throw badFile(path, `a kdb+ 3.6 page (fd 20) of type ${t} at byte 4082; expected 20 (an enumeration), 77 (an anymap column) or 4 (an anymap's # file)`);
  }
  throw badFile(path, `starts ${hexOf(head)}; expected a kdb+ data file (ff 01 object, fe 20 vector, fe + domain name enumeration, fd 20 page, kxzipped)`);
}

function rows(bytes: KdbBytes, dataStart: number, width: number, attr: number, headerCount: number, indexType: number): Rows {
  const r = rowsOf(bytes, { dataStart, width, attr, headerCount, indexType });
  return { attr, dataStart, width, headerCount, rows: r.rows, ...(r.parted ? { parted: r.parted } : {}) };
}
