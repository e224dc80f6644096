/**
 * How many rows a vector file holds when an attribute index follows its data (docs/kdb-format.md
 * 2.3): a `u#`, `p#` or `g#` file's length is not its header plus count x width, and its header
 * count may be stale or zero, so the rows come from the index, found from the file's end and checked
 * whole before anything is trusted:
 *
 *   data | gap (0-8 bytes) | u# object: 16-byte header (type, attr 2, n = k), k distinct values, a hash
 *        | p#: a long vector of k + 1 run boundaries 0 = b0 < b1 < ... < bk = rows   (ends the file)
 *        | g#: the same boundaries of k groups, then a long vector of the rows' numbers (ends the file)
 *
 * A `u#` file's index is a hash only: its rows are its header count (0 is damage unless nothing
 * follows the header). Attribute 0 and `s#` add nothing: the file's length decides.
 */
import { badFile, type KdbBytes } from './io.js';
import { Pages } from './pages.js';

/** A `p#` file's runs: run i is rows [bounds[i], bounds[i + 1]), all holding distinct value i. */
export interface PartedIndex {
  /** k + 1 run boundaries, from 0 to the row count, strictly increasing. */
  readonly bounds: Float64Array;
  /** The k distinct values as stored (k x width bytes, little-endian), in run order. */
  readonly distinct: Uint8Array;
}

/** Where a vector's data lies, as its header says. */
export interface DataShape {
  readonly dataStart: number;
  readonly width: number;
  /** 0 none, 1 s#, 2 u#, 3 p#, 4 g#. */
  readonly attr: number;
  /** The header's count (0 when q left it so). */
  readonly headerCount: number;
  /** The type byte of the index's u# object (the column's type; 20 for an enumeration). */
  readonly indexType: number;
}

/** The rows of a vector whose header says `shape`, its attribute index (if any) found and checked. */
export function rowsOf(bytes: KdbBytes, shape: DataShape): { rows: number; parted?: PartedIndex } {
  const { dataStart, width, attr, headerCount } = shape;
  const len = bytes.length;
  const path = bytes.path;
  const room = len - dataStart;
  if (room < 0) throw badFile(path, `${len} bytes; its header needs ${dataStart}`);
  if (headerCount < 0 || headerCount * width > room) throw badFile(path, `its header counts ${headerCount < 0 ? 'a negative or huge number of' : headerCount} rows of ${width} bytes from byte ${dataStart}; the ${len}-byte file holds at most ${Math.floor(room / width)}`);
  switch (attr) {
    case 0:
    case 1: {
      if (room % width !== 0) throw badFile(path, `${room} bytes of data after the ${dataStart}-byte header, not a whole number of ${width}-byte items (truncated?)`);
      const rows = room / width;
      if (headerCount !== 0 && headerCount !== rows) throw badFile(path, `its header counts ${headerCount} rows; its ${len} bytes hold ${rows}`);
      return { rows };
    }
    case 2:
      if (headerCount === 0 && room > 0) throw badFile(path, 'a u# column whose header count is 0: its rows cannot be told from its length (the hash follows the data)');
      return { rows: headerCount };
    case 3: {
      const parted = findParted(new Pages(bytes), shape);
      return { rows: parted.bounds[parted.bounds.length - 1]!, parted };
    }
    case 4:
      return { rows: findGrouped(new Pages(bytes), shape) };
    default:
      throw badFile(path, `attribute ${attr}; expected 0 (none), 1 (s#), 2 (u#), 3 (p#) or 4 (g#)`);
  }
}

/** True when a long vector header (type 7) of `n` items starts at `p`. */
const longHeader = (b: Pages, p: number, n: number): boolean => b.u8(p + 2) === 7 && b.u8(p + 3) === 0 && b.i64(p + 8) === n;

/** Reads k + 1 boundaries at `p` + 16 if they run from 0, increase strictly, and end at `rows` (when known). */
function boundaries(b: Pages, p: number, count: number, rows: number | undefined, maxRows: number): Float64Array | undefined {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const x = b.i64(p + 16 + 8 * i);
    if (x < 0 || x > maxRows || (i === 0 ? x !== 0 : x <= out[i - 1]!)) return undefined;
    out[i] = x;
  }
  if (rows !== undefined && out[count - 1] !== rows) return undefined;
  return out;
}

/** The u# object's start in the 0-8 bytes after the data: its header names the column's type, attribute 2 and `k` values. */
function uniqueAfter(b: Pages, shape: DataShape, rows: number, k: number, before: number): number | undefined {
  const dataEnd = shape.dataStart + rows * shape.width;
  for (let s = dataEnd; s <= dataEnd + 8; s++) {
    if (s + 16 + k * shape.width > before) return undefined;
    if (b.u8(s + 2) === shape.indexType && b.u8(s + 3) === 2 && b.i64(s + 8) === k) return s;
  }
  return undefined;
}

/**
 * A `p#` file's index: the boundaries vector found by scanning back from the end (j = 1, 2, ...: a long
 * vector of j items ending the file, from 0, increasing, its last the row count), confirmed by the u#
 * object of k = j - 1 values right after the data.
 */
function findParted(b: Pages, shape: DataShape): PartedIndex {
  const len = b.bytes.length;
  const known = shape.headerCount > 0 ? shape.headerCount : undefined;
  const maxRows = Math.floor((len - shape.dataStart) / shape.width);
  for (let j = 1; ; j++) {
    const p = len - 16 - 8 * j;
    if (p < shape.dataStart) break;
    if (!longHeader(b, p, j)) continue;
    const bounds = boundaries(b, p, j, known, maxRows);
    if (!bounds) continue;
    const rows = bounds[j - 1]!;
    const s = uniqueAfter(b, shape, rows, j - 1, p);
    if (s === undefined) continue;
    return { bounds, distinct: b.bytes.read(s + 16, s + 16 + (j - 1) * shape.width) };
  }
  throw badFile(b.bytes.path, `a p# column without its index: no run boundaries (a long vector from 0 to the row count${known === undefined ? '' : ` ${known}`}) end the file after a u# object of the distinct values (truncated or damaged)`);
}

/**
 * A `g#` file's rows: the last object is a long vector of the rows' numbers (n = rows), after the
 * groups' boundaries and the u# object of their values (right after the data). With no header count,
 * the candidates run from the most rows the length allows down.
 */
function findGrouped(b: Pages, shape: DataShape): number {
  const len = b.bytes.length;
  const { dataStart, width, headerCount } = shape;
  // data, the u# and boundaries headers, one boundary, the row numbers' header: 16 + 16 + 8 + 16 + (width + 8) * rows
  const most = Math.floor((len - dataStart - 56) / (width + 8));
  const least = headerCount > 0 ? headerCount : 0;
  for (let j = headerCount > 0 ? headerCount : most; j >= least; j--) {
    const p = len - 16 - 8 * j;
    if (p < dataStart + j * width || !longHeader(b, p, j)) continue;
    const u = uniqueKAfter(b, shape, j, p);
    if (!u) continue;
    const q = p - 16 - 8 * (u.k + 1);
    if (q >= u.s + 16 + u.k * width && longHeader(b, q, u.k + 1) && boundaries(b, q, u.k + 1, j, j)) return j;
  }
  throw badFile(b.bytes.path, `a g# column without its index: no group boundaries and row numbers (long vectors, the last of the row count${headerCount > 0 ? ` ${headerCount}` : ''}) end the file after a u# object of the distinct values (truncated or damaged)`);
}

/** The u# object (its start and k) in the 0-8 bytes after `rows` rows of data, whatever k is. */
function uniqueKAfter(b: Pages, shape: DataShape, rows: number, before: number): { s: number; k: number } | undefined {
  const dataEnd = shape.dataStart + rows * shape.width;
  for (let s = dataEnd; s <= dataEnd + 8 && s + 16 <= before; s++) {
    if (b.u8(s + 2) !== shape.indexType || b.u8(s + 3) !== 2) continue;
    const k = b.i64(s + 8);
    if (k >= 0 && s + 16 + k * shape.width <= before) return { s, k };
  }
  return undefined;
}
