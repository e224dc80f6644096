/**
 * Cells and frames of getStats. A cell is one group in one bucket; output cells are ordered by bucket,
 * then group key (SPEC 5.2). Three frames feed the aggregates:
 * - plain: each row in the cell of its bucket and group;
 * - moving, combinable: rows reduced into cells of small "atoms" (gcd of window and granularity), each
 *   bucket's window combining the atoms it covers (no row is copied);
 * - moving, expanded: each window lists its rows (for med, distinct and ordered operators).
 */
import type { Table } from '../../core/table.js';
import type { Frame } from './aggregates.js';

/** The output cells: bucket and group of each, in output order. */
export interface Layout {
  readonly out: number;
  readonly bucket: Int32Array;
  readonly group: Int32Array;
}

/** Output cells from (bucket, group) keys, ordered by bucket then group rank (then key order). */
export function layoutOf(keys: ReadonlyArray<readonly [number, number]>, rank: Int32Array): Layout {
  const n = keys.length;
  const bucket = new Int32Array(n);
  const group = new Int32Array(n);
  let ordered = true;
  let maxBucket = 0;
  let maxRank = 0;
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    bucket[i] = k[0];
    group[i] = k[1];
    if (k[0] > maxBucket) maxBucket = k[0];
    if (rank[k[1]]! > maxRank) maxRank = rank[k[1]]!;
    if (i > 0 && ordered) ordered = bucket[i - 1]! < k[0] || (bucket[i - 1] === k[0] && rank[group[i - 1]!]! < rank[k[1]]!);
  }
  if (ordered) return { out: n, bucket, group };
  // a numeric sort of packed (bucket, rank, position) keys: no comparator call, no tuple per cell
  const span = (maxBucket + 1) * (maxRank + 1) * n;
  let order: Int32Array;
  if (span < Number.MAX_SAFE_INTEGER) {
    const packed = new Float64Array(n);
    for (let i = 0; i < n; i++) packed[i] = (bucket[i]! * (maxRank + 1) + rank[group[i]!]!) * n + i;
    packed.sort();
    order = Int32Array.from(packed, (k) => k % n);
  } else {
    order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => bucket[a]! - bucket[b]! || rank[group[a]!]! - rank[group[b]!]! || a - b);
  }
  return { out: n, bucket: Int32Array.from(order, (i) => bucket[i]!), group: Int32Array.from(order, (i) => group[i]!) };
}

/** Cells of (bucket, group) pairs: a lookup, and the dense table behind it when there is one. */
export interface CellLookup {
  (bucket: number, group: number): number;
  /** cell of (b, g) at b * groups + g, for b < buckets; -1 where none */
  readonly dense?: { readonly table: Int32Array; readonly buckets: number; readonly groups: number };
}

function lookupOf(pairs: (add: (b: number, g: number, cell: number) => void) => void, buckets: number, groups: number): CellLookup {
  if (buckets * groups <= 20_000_000) {
    const table = new Int32Array(Math.max(1, buckets * groups)).fill(-1);
    pairs((b, g, c) => (table[b * groups + g] = c));
    const f = (b: number, g: number): number => (b < 0 || b >= buckets ? -1 : table[b * groups + g]!);
    return Object.assign(f, { dense: { table, buckets, groups } });
  }
  const map = new Map<number, number>();
  pairs((b, g, c) => map.set(b * groups + g, c));
  return (b, g) => map.get(b * groups + g) ?? -1;
}

/** A cell index per (bucket, group): a dense table when small, a map otherwise. */
export function cellIndex(layout: Layout, groups: number): CellLookup {
  const maxBucket = layout.bucket.reduce((m, b) => Math.max(m, b), -1) + 1;
  return lookupOf((add) => {
    for (let o = 0; o < layout.out; o++) add(layout.bucket[o]!, layout.group[o]!, o);
  }, maxBucket, groups);
}

/** The (bucket, group) pairs rows fall in. */
export function presentKeys(bucketOf: Int32Array, groupOf: Int32Array, groups: number): Array<[number, number]> {
  let maxBucket = -1;
  for (let i = 0; i < bucketOf.length; i++) if (bucketOf[i]! > maxBucket) maxBucket = bucketOf[i]!;
  const domain = (maxBucket + 1) * groups;
  if (domain <= 32_000_000) {
    // mark the cells in a dense array, then list them: no hashing per row
    const marks = new Uint8Array(domain);
    for (let i = 0; i < bucketOf.length; i++) if (bucketOf[i]! >= 0) marks[bucketOf[i]! * groups + groupOf[i]!] = 1;
    const keys: Array<[number, number]> = [];
    for (let key = 0; key < domain; key++) if (marks[key]) keys.push([Math.floor(key / groups), key % groups]);
    return keys;
  }
  const seen = new Set<number>();
  const keys: Array<[number, number]> = [];
  for (let i = 0; i < bucketOf.length; i++) {
    const b = bucketOf[i]!;
    if (b < 0) continue;
    const key = b * groups + groupOf[i]!;
    if (!seen.has(key)) {
      seen.add(key);
      keys.push([b, groupOf[i]!]);
    }
  }
  return keys;
}

/** The plain frame: every row with a bucket, in the output cell of its (bucket, group). */
export function plainFrame(table: Table, layout: Layout, bucketOf: Int32Array, groupOf: Int32Array, groups: number): Frame {
  const index = cellIndex(layout, groups);
  const n = bucketOf.length;
  const cell = new Int32Array(n);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const c = bucketOf[i]! < 0 ? -1 : index(bucketOf[i]!, groupOf[i]!);
    cell[i] = c;
    if (c >= 0) kept++;
  }
  if (kept === n) return { table, n, cell, cells: layout.out, out: layout.out };
  const rows = new Int32Array(kept);
  const cells = new Int32Array(kept);
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (cell[i]! < 0) continue;
    rows[k] = i;
    cells[k++] = cell[i]!;
  }
  return { table, rows, n: kept, cell: cells, cells: layout.out, out: layout.out };
}

/** Reduce cells of moving windows: the (atom, group) pairs rows fall in, ordered by group then atom. */
export interface AtomCells {
  readonly keys: ReadonlyArray<readonly [number, number]>;
  /** the reduce cell of (atom, group), or -1 */
  readonly cellOf: CellLookup;
}

/** Atom cells from the (atom, group) pairs present. */
export function atomCells(present: Array<[number, number]>, groups: number): AtomCells {
  const keys = present.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  const maxAtom = keys.reduce((m, [a]) => Math.max(m, a), -1) + 1;
  return { keys, cellOf: lookupOf((add) => keys.forEach(([a, g], c) => add(a, g, c)), maxAtom, groups) };
}

/**
 * For each output cell (bucket k, group g), the atom cells of its window: atoms
 * [(k+1)·perBucket - perWindow, (k+1)·perBucket) of group g, as a range of the ordered atom cells.
 */
export function windowRanges(atoms: AtomCells, layout: Layout, groups: number, perBucket: number, perWindow: number): NonNullable<Frame['windows']> {
  const { keys } = atoms;
  const cells = keys.length;
  const groupStart = new Int32Array(groups + 1).fill(-1);
  keys.forEach(([, g], c) => {
    if (groupStart[g]! < 0) groupStart[g] = c;
  });
  groupStart[groups] = cells;
  for (let g = groups - 1; g >= 0; g--) if (groupStart[g]! < 0) groupStart[g] = groupStart[g + 1]!;
  const lowerBound = (from: number, to: number, atom: number): number => {
    let a = from;
    let b = to;
    while (a < b) {
      const m = (a + b) >> 1;
      if (keys[m]![0] < atom) a = m + 1;
      else b = m;
    }
    return a;
  };
  const lo = new Int32Array(layout.out);
  const hi = new Int32Array(layout.out);
  for (let o = 0; o < layout.out; o++) {
    const g = layout.group[o]!;
    const last = (layout.bucket[o]! + 1) * perBucket;
    const to = groupStart[g + 1]!;
    lo[o] = lowerBound(groupStart[g]!, to, Math.max(0, last - perWindow));
    hi[o] = lowerBound(lo[o]!, to, last);
  }
  return { order: Int32Array.from({ length: cells }, (_, c) => c), lo, hi };
}

/**
 * Moving-window frames over one gathered table: `combined` reads each row once into its atom cell;
 * `expanded` lists every window's rows (for trees that do not combine).
 */
export function movingFrames(
  table: Table,
  layout: Layout,
  atomOf: Int32Array,
  groupOf: Int32Array,
  groups: number,
  perBucket: number,
  perWindow: number,
): { combined: Frame; expanded: () => Frame } {
  const atoms = atomCells(presentKeys(atomOf, groupOf, groups), groups);
  const cells = atoms.keys.length;
  const windows = windowRanges(atoms, layout, groups, perBucket, perWindow);
  const n = atomOf.length;
  const cell = new Int32Array(n);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    cell[i] = atomOf[i]! < 0 ? -1 : atoms.cellOf(atomOf[i]!, groupOf[i]!);
    if (cell[i]! >= 0) kept++;
  }
  const rowsKept = new Int32Array(kept);
  const cellsKept = new Int32Array(kept);
  for (let i = 0, k = 0; i < n; i++) {
    if (cell[i]! < 0) continue;
    rowsKept[k] = i;
    cellsKept[k++] = cell[i]!;
  }
  const combined: Frame = { table, ...(kept === n ? {} : { rows: rowsKept }), n: kept, cell: cellsKept, cells, out: layout.out, windows };
  const expanded = (): Frame => {
    // rows of each atom cell in time order, then each window's rows in turn
    const counts = new Int32Array(cells + 1);
    for (const c of cellsKept) counts[c + 1]!++;
    for (let c = 1; c <= cells; c++) counts[c]! += counts[c - 1]!;
    const byCell = new Int32Array(kept);
    const at = counts.slice(0, cells);
    rowsKept.forEach((r, k) => (byCell[at[cellsKept[k]!]!++] = r));
    let total = 0;
    for (let o = 0; o < layout.out; o++) total += counts[windows.hi[o]!]! - counts[windows.lo[o]!]!;
    const rows = new Int32Array(total);
    const outCell = new Int32Array(total);
    let e = 0;
    for (let o = 0; o < layout.out; o++) {
      for (let j = counts[windows.lo[o]!]!; j < counts[windows.hi[o]!]!; j++) {
        rows[e] = byCell[j]!;
        outCell[e++] = o;
      }
    }
    return { table, rows, n: total, cell: outCell, cells: layout.out, out: layout.out };
  };
  return { combined, expanded };
}
