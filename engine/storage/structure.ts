/**
 * Structural checks of a partition's indexes and dictionaries against its row count, run when they
 * are read (and by tickscope verify): what checksums cannot vouch for in a database written before
 * them, and what a writer's bug would break. Each throws badDatabase naming the file and the fault;
 * each is one pass over what was read, with no allocation beyond a bitmap for the time order.
 */
import { damagedFile } from './checksums.js';

/**
 * Offsets of a dictionary, string or list file: `count + 1` entries from 0, never decreasing, the last
 * equal to the values' length (`valuesLength`, in the values file's units).
 */
export function checkOffsets(path: string, offsets: Int32Array, valuesLength: number, valuesPath: string): void {
  if (offsets.length === 0) throw damagedFile(path, 'empty (offsets need at least one entry)');
  if (offsets[0] !== 0) throw damagedFile(path, `the first offset is ${offsets[0]}, not 0`);
  const bad = firstDecrease(offsets, 0);
  if (bad >= 0) throw damagedFile(path, `offset ${bad} (${offsets[bad]}) is below offset ${bad - 1} (${offsets[bad - 1]})`);
  const last = offsets[offsets.length - 1]!;
  if (last !== valuesLength) throw damagedFile(path, `its last offset is ${last}, but ${valuesPath} holds ${valuesLength}`);
}

/**
 * A block of offsets (entries `from` on of a first-use-order dictionary): never decreasing, from at
 * least 0, ending within the values file (`valuesLength`; when the block holds the last offset, at it).
 */
export function checkOffsetsBlock(path: string, offsets: Int32Array, from: number, valuesLength: number, last: boolean, valuesPath: string): void {
  if (offsets.length === 0) return;
  if (from === 0 && offsets[0] !== 0) throw damagedFile(path, `the first offset is ${offsets[0]}, not 0`);
  if (offsets[0]! < 0) throw damagedFile(path, `offset ${from} is ${offsets[0]}, below 0`);
  const bad = firstDecrease(offsets, 0);
  if (bad >= 0) throw damagedFile(path, `offset ${from + bad} (${offsets[bad]}) is below offset ${from + bad - 1} (${offsets[bad - 1]})`);
  const end = offsets[offsets.length - 1]!;
  if (end > valuesLength || (last && end !== valuesLength)) {
    throw damagedFile(path, `offset ${from + offsets.length - 1} is ${end}, but ${valuesPath} holds ${valuesLength} bytes`);
  }
}

/** The first index i > 0 where a[i] < a[i - 1], or -1. */
function firstDecrease(a: Int32Array, from: number): number {
  for (let i = from + 1; i < a.length; i++) if (a[i]! < a[i - 1]!) return i;
  return -1;
}

/** Dictionary codes (rows [from, from + codes.length) of a symbol column) within the dictionary's `size` entries. */
export function checkCodes(path: string, codes: Int32Array, size: number, from: number, dictPath: string): void {
  for (let i = 0; i < codes.length; i++) {
    // unsigned: a negative code fails the same test
    if (codes[i]! >>> 0 >= size) throw damagedFile(path, `row ${from + i} has code ${codes[i]}, but its dictionary (${dictPath}) has ${size} entries: one of the two`);
  }
}

/** A stored time order: exactly `rows` entries, each row once. */
export function checkTimeOrder(path: string, bytes: number, order: Int32Array, rows: number): void {
  if (bytes !== rows * 4) throw damagedFile(path, `${bytes} bytes, _meta.json says ${rows} rows of 4`);
  const seen = new Uint32Array((rows + 31) >>> 5);
  for (let i = 0; i < order.length; i++) {
    const r = order[i]!;
    if (r >>> 0 >= rows) throw damagedFile(path, `entry ${i} is row ${r}, outside the partition's ${rows} rows`);
    const bit = 1 << (r & 31);
    if ((seen[r >>> 5]! & bit) !== 0) throw damagedFile(path, `row ${r} appears twice`);
    seen[r >>> 5]! |= bit;
  }
}

/** A partition's identifier runs (_meta.json idRanges): ascending, adjacent, covering rows 0 to `rows`. */
export function checkIdRanges(path: string, idRanges: Readonly<Record<string, readonly [number, number]>>, rows: number): void {
  const runs = Object.entries(idRanges);
  for (const [id, r] of runs) {
    if (!Array.isArray(r) || r.length !== 2 || !Number.isInteger(r[0]) || !Number.isInteger(r[1]) || r[0] < 0 || r[1] < r[0] || r[1] > rows) {
      throw damagedFile(path, `identifier ${JSON.stringify(id)} has rows ${JSON.stringify(r)}, not a range within its ${rows} rows`);
    }
  }
  runs.sort((x, y) => x[1][0] - y[1][0]);
  let at = 0;
  for (const [id, [a, b]] of runs) {
    if (a !== at) throw damagedFile(path, `identifier ${JSON.stringify(id)} starts at row ${a}, expected ${at} (runs must follow each other)`);
    at = b;
  }
  if (runs.length > 0 && at !== rows) throw damagedFile(path, `its identifier runs hold ${at} rows, _meta.json says ${rows}`);
}
