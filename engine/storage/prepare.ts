/**
 * Puts rows in storage order before a partition is written: sorted by identifier, then time, then
 * arrival order (stable), with each identifier's row range recorded and unused dictionary entries
 * dropped.
 */
import { type Column, compareStrings, int32Pairs, type SymbolColumn, symbolRanks } from '../core/column.js';
import { Table } from '../core/table.js';
import type { TableSchema } from './schema.js';

/** Storage order for a table's rows, plus identifier ranges for partitioned tables. */
export function prepareForStorage(
  t: TableSchema,
  data: Table,
): { table: Table; idRanges?: Record<string, [number, number]> } {
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
  const idCol = table.col(t.idColumn) as SymbolColumn;
  const idRanges: Record<string, [number, number]> = {};
  let start = 0;
  for (let i = 1; i <= n; i++) {
    if (i === n || idCol.codes[i] !== idCol.codes[start]) {
      idRanges[idCol.dict[idCol.codes[start]!]!] = [start, i];
      start = i;
    }
  }
  return { table, idRanges };
}

/** The same symbol column with only the strings it uses, each once, in ascending order. */
export function compactDict(c: SymbolColumn): Column {
  const used = new Uint8Array(c.dict.length);
  for (let i = 0; i < c.codes.length; i++) used[c.codes[i]!] = 1;
  const strings = [...new Set(c.dict.filter((_, k) => used[k]))].sort(compareStrings);
  const index = new Map(strings.map((s, i) => [s, i]));
  const remap = new Int32Array(c.dict.length);
  c.dict.forEach((s, k) => (remap[k] = used[k] ? index.get(s)! : 0));
  const codes = new Int32Array(c.codes.length);
  for (let i = 0; i < codes.length; i++) codes[i] = remap[c.codes[i]!]!;
  return { type: 'symbol', codes, dict: strings };
}
