/**
 * Puts rows in storage order before a partition is written: sorted by identifier, then time, then
 * arrival order (stable), with each identifier's row range recorded and unused dictionary entries
 * dropped.
 */
import { type Column, compareStrings, int32Pairs, type SymbolColumn, symbolRanks } from '../core/column.js';
import { dictOf } from '../core/dict.js';
import { Table } from '../core/table.js';
import type { TableSchema } from './schema.js';

/** Storage order for a table's rows, plus identifier ranges for partitioned tables. */
export function prepareForStorage(
  t: TableSchema,
  data: Table,
): { table: Table; idRanges?: Record<string, [number, number]>; rowOrderDicts?: string[] } {
  const compacted = new Table(
    data.names,
    data.columns.map((c) => (c.type === 'symbol' ? compactDict(c) : c)),
    data.length,
  );
  if (t.kind !== 'partitioned' || !t.timeColumn) return { table: compacted };
  const id = compacted.get(t.idColumn);
  const time = compacted.col(t.timeColumn);
  if (time.type !== 'timestamp') throw new Error(`${t.name}.${t.timeColumn} is not a timestamp column`);
  const pairs = int32Pairs(time.data);
  const ranks = id?.type === 'symbol' ? symbolRanks(id.dict) : undefined;
  const codes = id?.type === 'symbol' ? id.codes : undefined;
  const n = compacted.length;
  const cmp = (a: number, b: number): number => {
    if (ranks && codes) {
      const d = ranks[codes[a]!]! - ranks[codes[b]!]!;
      if (d !== 0) return d;
    }
    const ha = pairs[2 * a + 1]!;
    const hb = pairs[2 * b + 1]!;
    if (ha !== hb) return ha < hb ? -1 : 1;
    const la = pairs[2 * a]! >>> 0;
    const lb = pairs[2 * b]! >>> 0;
    if (la !== lb) return la < lb ? -1 : 1;
    return a - b;
  };
  let sorted = true;
  for (let i = 1; i < n && sorted; i++) sorted = cmp(i - 1, i) < 0;
  let table = compacted;
  if (!sorted) {
    const order = Array.from({ length: n }, (_, i) => i).sort(cmp);
    table = compacted.take(Int32Array.from(order));
  }
  if (!codes || id?.type !== 'symbol') return { table };
  const rowOrderDicts: string[] = [];
  table = new Table(
    table.names,
    table.columns.map((c, i) => {
      if (c.type !== 'symbol' || table.names[i] === t.idColumn || c.dict.length < Math.max(ROW_ORDER_MIN, n / 4)) return c;
      rowOrderDicts.push(table.names[i]!);
      return inFirstUseOrder(c);
    }),
    n,
  );
  const idCol = table.col(t.idColumn) as SymbolColumn;
  const idRanges: Record<string, [number, number]> = {};
  let start = 0;
  for (let i = 1; i <= n; i++) {
    if (i === n || idCol.codes[i] !== idCol.codes[start]) {
      idRanges[idCol.dict.get(idCol.codes[start]!)] = [start, i];
      start = i;
    }
  }
  return { table, idRanges, ...(rowOrderDicts.length ? { rowOrderDicts } : {}) };
}

/** Dictionaries at least this large (and a quarter of the rows) are stored in first-use order. */
const ROW_ORDER_MIN = 4096;

/**
 * The column with its dictionary in order of first use by the rows (storage order). For nearly
 * unique values (execution IDs) the codes of one identifier's rows then span a narrow range of the
 * dictionary, so a narrow query reads only that part of it (storage/stored-column.ts).
 */
export function inFirstUseOrder(c: SymbolColumn): SymbolColumn {
  const remap = new Int32Array(c.dict.length).fill(-1);
  const strings: string[] = [];
  const codes = new Int32Array(c.codes.length);
  for (let i = 0; i < codes.length; i++) {
    const k = c.codes[i]!;
    let m = remap[k]!;
    if (m < 0) {
      m = remap[k] = strings.length;
      strings.push(c.dict.get(k));
    }
    codes[i] = m;
  }
  return { type: 'symbol', codes, dict: dictOf(strings) };
}

/** The same symbol column with only the strings it uses, each once, in ascending order. */
export function compactDict(c: SymbolColumn): Column {
  const used = new Uint8Array(c.dict.length);
  for (let i = 0; i < c.codes.length; i++) used[c.codes[i]!] = 1;
  if (c.dict.sorted && !used.includes(0)) return c;
  const strings = new Set<string>();
  for (let k = 0; k < used.length; k++) if (used[k]) strings.add(c.dict.get(k));
  const sorted = [...strings].sort(compareStrings);
  const index = new Map(sorted.map((s, i) => [s, i]));
  const remap = new Int32Array(c.dict.length);
  for (let k = 0; k < used.length; k++) if (used[k]) remap[k] = index.get(c.dict.get(k))!;
  const codes = new Int32Array(c.codes.length);
  for (let i = 0; i < codes.length; i++) codes[i] = remap[c.codes[i]!]!;
  return { type: 'symbol', codes, dict: dictOf(sorted, true) };
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
