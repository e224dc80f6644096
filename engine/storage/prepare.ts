/**
 * Puts rows in storage order before a partition is written: sorted by identifier, then time, then
 * arrival order (stable), with each identifier's row range recorded and unused dictionary entries
 * dropped.
 */
import { type Column, compareStrings, gather, int32Pairs, type SymbolColumn } from '../core/column.js';
import { type Dict, dictOf, Utf8Dict } from '../core/dict.js';
import { type ColumnEntry, Table } from '../core/table.js';
import type { TableSchema } from './schema.js';

/**
 * Storage order for a table's rows, plus identifier ranges for partitioned tables, and the rows' time
 * order when it comes for free (see timeOrderOfSorted).
 *
 * Each column is copied once at most: a symbol column's codes go through its dictionary's remapping
 * (unused entries dropped, repeats merged, sorted or first-use order) and the row order in one pass;
 * a number or time column is returned as a view (rows `order` of it), gathered by whoever reads it.
 */
export function prepareForStorage(
  t: TableSchema,
  data: Table,
): { table: Table; idRanges?: Record<string, [number, number]>; rowOrderDicts?: string[]; timeOrder?: Int32Array } {
  const n = data.length;
  const partitioned = t.kind === 'partitioned' && !!t.timeColumn;
  const idIndex = data.names.indexOf(t.idColumn);
  const rowOrder = partitioned && data.columns[idIndex]?.type === 'symbol';
  // Symbol columns other than the identifier whose distinct values reach ROW_ORDER_MIN and a quarter
  // of the rows are stored in first-use order (inFirstUseOrder), so sorting their dictionary would be
  // wasted (for a million execution IDs, most of the time of a write): they are only reduced to their
  // distinct used entries.
  const plans = data.columns.map((c, i) => {
    if (c.type !== 'symbol') return undefined;
    const distinct = distinctPlan(c);
    if (rowOrder && i !== idIndex && distinct.dict.length >= Math.max(ROW_ORDER_MIN, n / 4)) return { ...distinct, firstUse: true };
    return { ...sortedPlan(distinct), firstUse: false };
  });
  let order: Int32Array | undefined;
  let rowsTimeOrder: Int32Array | undefined;
  if (partitioned) {
    const time = data.col(t.timeColumn!);
    if (time.type !== 'timestamp') throw new Error(`${t.name}.${t.timeColumn} is not a timestamp column`);
    const id = rowOrder ? (data.columns[idIndex] as SymbolColumn) : undefined;
    // the identifier's rank of each of its codes: its code in the sorted dictionary
    const idPlan = plans[idIndex];
    const ranks = id ? (idPlan?.remap ?? identity(id.dict.length)) : undefined;
    order = storageOrder(id?.codes, ranks, time.data);
    // written only for more than one identifier (partition-io.ts)
    if (id && idPlan && idPlan.dict.length > 1) rowsTimeOrder = timeOrderOfSorted(time.data, order);
  }
  const rowOrderDicts: string[] = [];
  const entries = data.columns.map((c, i): ColumnEntry => {
    const plan = plans[i];
    if (c.type !== 'symbol' || !plan) {
      if (!order) return { base: c };
      // numbers and times stay rows `order` of the column, gathered when used: the partition
      // writer gathers them a block at a time as it writes (partition-io.ts writeRowsDurable)
      return c.type === 'string' || c.type === 'float[]' || c.type === 'long[]' ? { base: gather(c, order) } : { base: c, index: order };
    }
    if (plan.firstUse) {
      rowOrderDicts.push(data.names[i]!);
      return { base: firstUseOf(c.codes, plan, order) };
    }
    if (!plan.remap && !order) return { base: c.dict === plan.dict ? c : { type: 'symbol', codes: c.codes, dict: plan.dict } };
    return { base: { type: 'symbol', codes: remapped(c.codes, plan.remap, order), dict: plan.dict } };
  });
  const table = new Table(data.names, [], n, entries);
  if (!rowOrder) return { table };
  const idCol = table.col(t.idColumn) as SymbolColumn;
  const idRanges: Record<string, [number, number]> = {};
  let start = 0;
  for (let i = 1; i <= n; i++) {
    if (i === n || idCol.codes[i] !== idCol.codes[start]) {
      idRanges[idCol.dict.get(idCol.codes[start]!)] = [start, i];
      start = i;
    }
  }
  return { table, idRanges, ...(rowOrderDicts.length ? { rowOrderDicts } : {}), ...(rowsTimeOrder ? { timeOrder: rowsTimeOrder } : {}) };
}

const identity = (n: number): Int32Array => Int32Array.from({ length: n }, (_, k) => k);

/** codes[order[i]] (or codes[i]) through remap (or not), for every row i. */
function remapped(codes: Int32Array, remap: Int32Array | null, order: Int32Array | undefined): Int32Array {
  const n = order ? order.length : codes.length;
  const out = new Int32Array(n);
  if (remap && order) for (let i = 0; i < n; i++) out[i] = remap[codes[order[i]!]!]!;
  else if (remap) for (let i = 0; i < n; i++) out[i] = remap[codes[i]!]!;
  else if (order) for (let i = 0; i < n; i++) out[i] = codes[order[i]!]!;
  else out.set(codes);
  return out;
}

/**
 * The rows in storage order (identifier rank, then time, then row: a stable sort), or undefined when
 * they already are. A stable counting sort by identifier, then each identifier's run checked and, only
 * where its times are out of order, sorted: a file in time order (the usual import) costs two passes.
 */
function storageOrder(codes: Int32Array | undefined, ranks: Int32Array | undefined, time: BigInt64Array): Int32Array | undefined {
  const n = time.length;
  const pairs = int32Pairs(time);
  // time of row a before time of row b (hi words signed, lo words unsigned)
  const before = (a: number, b: number): boolean => {
    const ha = pairs[2 * a + 1]!;
    const hb = pairs[2 * b + 1]!;
    return ha < hb || (ha === hb && pairs[2 * a]! >>> 0 < pairs[2 * b]! >>> 0);
  };
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) {
    const d = ranks && codes ? ranks[codes[i - 1]!]! - ranks[codes[i]!]! : 0;
    sorted = d < 0 || (d === 0 && !before(i, i - 1));
  }
  if (sorted) return undefined;
  const order = new Int32Array(n);
  const runs: number[] = [0];
  if (ranks && codes) {
    let rankCount = 0;
    for (let k = 0; k < ranks.length; k++) rankCount = Math.max(rankCount, ranks[k]! + 1);
    const at = new Int32Array(rankCount + 1);
    for (let i = 0; i < n; i++) at[ranks[codes[i]!]! + 1]!++;
    for (let r = 0; r < rankCount; r++) {
      at[r + 1]! += at[r]!;
      if (at[r + 1]! > runs[runs.length - 1]!) runs.push(at[r + 1]!);
    }
    for (let i = 0; i < n; i++) order[at[ranks[codes[i]!]!]!++] = i;
  } else {
    for (let i = 0; i < n; i++) order[i] = i;
    runs.push(n);
  }
  for (let r = 0; r + 1 < runs.length; r++) {
    const a = runs[r]!;
    const b = runs[r + 1]!;
    let inOrder = true;
    for (let i = a + 1; i < b && inOrder; i++) inOrder = !before(order[i]!, order[i - 1]!);
    if (!inOrder) order.subarray(a, b).sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : x - y));
  }
  return order;
}

/**
 * When the rows come in time order (a file written in time order, the usual import), their storage
 * positions in that order are the partition's time order (timeOrder's, ties by identifier then
 * storage order: each run of equal times sorted by storage position, which is that order), without
 * merging the identifier runs. Undefined when they do not.
 */
function timeOrderOfSorted(time: BigInt64Array, order: Int32Array | undefined): Int32Array | undefined {
  const n = time.length;
  const w = int32Pairs(time);
  for (let i = 1; i < n; i++) {
    const h0 = w[2 * i - 1]!;
    const h1 = w[2 * i + 1]!;
    if (h1 < h0 || (h1 === h0 && w[2 * i]! >>> 0 < w[2 * i - 2]! >>> 0)) return undefined;
  }
  const out = new Int32Array(n);
  if (order) for (let s = 0; s < n; s++) out[order[s]!] = s;
  else for (let r = 0; r < n; r++) out[r] = r;
  let a = 0;
  for (let r = 1; r <= n; r++) {
    if (r < n && w[2 * r + 1] === w[2 * a + 1] && w[2 * r] === w[2 * a]) continue;
    if (r - a > 1) out.subarray(a, r).sort();
    a = r;
  }
  return out;
}

/** Dictionaries at least this large (and a quarter of the rows) are stored in first-use order. */
const ROW_ORDER_MIN = 4096;

/** Whether no string appears twice in a dictionary (as far as is known). */
const isUnique = (d: Dict): boolean => d.sorted || d.unique === true;

/** A symbol column's new dictionary and, when the codes change, old code -> new code (-1: unused). */
interface DictPlan {
  readonly remap: Int32Array | null;
  readonly dict: Dict;
}

/**
 * Each string the column uses once and no other, in code order (a sorted dictionary stays sorted).
 * A dictionary known to have no repeats needs no lookup by string, and a UTF-8 one keeps its bytes
 * (no string is decoded).
 */
function distinctPlan(c: SymbolColumn): DictPlan {
  const m = c.dict.length;
  const remap = new Int32Array(m).fill(-1);
  for (let i = 0; i < c.codes.length; i++) remap[c.codes[i]!] = 0;
  let used = 0;
  if (isUnique(c.dict)) {
    for (let k = 0; k < m; k++) if (remap[k] === 0) remap[k] = used++;
    if (used === m) return { remap: null, dict: c.dict };
  } else {
    const index = new Map<string, number>();
    for (let k = 0; k < m; k++) {
      if (remap[k] !== 0) continue;
      const s = c.dict.get(k);
      let code = index.get(s);
      if (code === undefined) index.set(s, (code = used++));
      remap[k] = code;
    }
  }
  return { remap, dict: pickEntries(c.dict, remap, used, c.dict.sorted, true) };
}

/** A plan's dictionary sorted (ascending), its remapping composed; the dictionary has no repeats. */
function sortedPlan(p: DictPlan): DictPlan {
  if (p.dict.sorted) return p;
  const strings = allStrings(p.dict);
  const order = strings.map((_, k) => k).sort((a, b) => compareStrings(strings[a]!, strings[b]!));
  const rank = new Int32Array(strings.length);
  order.forEach((k, r) => (rank[k] = r));
  const remap = p.remap ? p.remap.map((k) => (k < 0 ? -1 : rank[k]!)) : rank;
  return { remap, dict: dictOf(order.map((k) => strings[k]!), true) };
}

/**
 * The dictionary of `size` entries whose entry remap[k] is entry k of `d` (k with remap -1 dropped;
 * where several k map to one entry, the first), with what is known of its order and repeats.
 */
function pickEntries(d: Dict, remap: Int32Array, size: number, sorted: boolean, unique: boolean): Dict {
  if (d instanceof Utf8Dict) {
    const src = d.data;
    const from = new Int32Array(size).fill(-1);
    let bytes = 0;
    for (let k = 0; k < remap.length; k++) {
      const to = remap[k]!;
      if (to >= 0 && from[to]! < 0) {
        from[to] = k;
        bytes += d.offsets[k + 1]! - d.offsets[k]!;
      }
    }
    const offsets = new Int32Array(size + 1);
    const data = new Uint8Array(bytes);
    let o = 0;
    for (let j = 0; j < size; j++) {
      const b = d.offsets[from[j]! + 1]!;
      for (let x = d.offsets[from[j]!]!; x < b; x++) data[o++] = src[x]!;
      offsets[j + 1] = o;
    }
    return new Utf8Dict(offsets, data, sorted, unique);
  }
  const strings = new Array<string>(size);
  for (let k = 0; k < remap.length; k++) if (remap[k]! >= 0 && strings[remap[k]!] === undefined) strings[remap[k]!] = d.get(k);
  return dictOf(strings, sorted);
}

/** Every string of a dictionary; a UTF-8 one decoded straight from its bytes (not kept in its cache). */
function allStrings(d: Dict): string[] {
  if (!(d instanceof Utf8Dict)) return Array.from({ length: d.length }, (_, k) => d.get(k));
  const text = Buffer.from(d.data.buffer, d.data.byteOffset, d.data.byteLength);
  return Array.from({ length: d.length }, (_, k) => text.toString('utf8', d.offsets[k]!, d.offsets[k + 1]!));
}

/**
 * Codes (rows `order`, through the plan's remapping) renumbered in order of first use, with the
 * plan's dictionary entries in that order. For nearly unique values (execution IDs) the codes of one
 * identifier's rows then span a narrow range of the dictionary, so a narrow query reads only that
 * part of it (storage/stored-column.ts). A UTF-8 dictionary stays bytes.
 */
function firstUseOf(codes: Int32Array, plan: DictPlan, order?: Int32Array): SymbolColumn {
  const { remap, dict } = plan;
  const n = order ? order.length : codes.length;
  const first = new Int32Array(dict.length).fill(-1);
  const out = new Int32Array(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const c = codes[order ? order[i]! : i]!;
    const k = remap ? remap[c]! : c;
    let to = first[k]!;
    if (to < 0) to = first[k] = m++;
    out[i] = to;
  }
  return { type: 'symbol', codes: out, dict: pickEntries(dict, first, m, false, isUnique(dict)) };
}

/** The column with its dictionary in order of first use by the rows (see firstUseOf). */
export function inFirstUseOrder(c: SymbolColumn): SymbolColumn {
  return firstUseOf(c.codes, { remap: null, dict: c.dict });
}

/** The same symbol column with only the strings it uses, each once, in ascending order. */
export function compactDict(c: SymbolColumn): Column {
  const plan = sortedPlan(distinctPlan(c));
  return plan.remap ? { type: 'symbol', codes: remapped(c.codes, plan.remap, undefined), dict: plan.dict } : c.dict === plan.dict ? c : { type: 'symbol', codes: c.codes, dict: plan.dict };
}

/**
 * The partition's rows in time order (ties by identifier, then storage order), as row numbers: what a
 * query reading every identifier in time order would otherwise merge each time (SPEC 4's order).
 * Rows are in storage order (identifier runs, each time-sorted), so this merges the runs once.
 */
export function timeOrder(time: BigInt64Array, idRanges: Readonly<Record<string, readonly [number, number]>>): Int32Array {
  const runs = Object.values(idRanges).map(([a, b]) => [a, b] as [number, number]).sort((x, y) => x[0] - y[0]);
  const n = time.length;
  const rows = new Int32Array(n);
  for (let i = 0; i < n; i++) rows[i] = i;
  if (runs.length <= 1) return rows;
  const pairs = int32Pairs(time);
  // a bottom-up merge of the runs (each already in time order); ties keep row order
  let cur = runs;
  let src = rows;
  let dst = new Int32Array(n);
  while (cur.length > 1) {
    const next: Array<[number, number]> = [];
    for (let k = 0; k < cur.length; k += 2) {
      const [a0, a1] = cur[k]!;
      if (k + 1 === cur.length) {
        dst.set(src.subarray(a0, a1), a0);
        next.push([a0, a1]);
        continue;
      }
      const [b0, b1] = cur[k + 1]!;
      let i = a0;
      let j = b0;
      let o = a0;
      while (i < a1 && j < b1) {
        const ri = src[i]!;
        const rj = src[j]!;
        const hi1 = pairs[2 * ri + 1]!;
        const hi2 = pairs[2 * rj + 1]!;
        if (hi2 < hi1 || (hi2 === hi1 && pairs[2 * rj]! >>> 0 < pairs[2 * ri]! >>> 0)) dst[o++] = src[j++]!;
        else dst[o++] = src[i++]!;
      }
      while (i < a1) dst[o++] = src[i++]!;
      while (j < b1) dst[o++] = src[j++]!;
      next.push([a0, b1]);
    }
    [src, dst] = [dst, src];
    cur = next;
  }
  return src;
}
