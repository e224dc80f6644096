/** Grouping rows by a symbol column, each group in time order: how order events and market data are split per key. */
import { int32Pairs, type SymbolColumn } from '../core/column.js';

/** Row indices of a table per identifier, each in ascending time order (stable for ties). */
export function rowsByIdentifier(id: SymbolColumn, time: BigInt64Array): Map<string, Int32Array> {
  const n = id.codes.length;
  const counts = new Int32Array(id.dict.length + 1);
  for (let i = 0; i < n; i++) counts[id.codes[i]! + 1]!++;
  for (let k = 1; k < counts.length; k++) counts[k]! += counts[k - 1]!;
  const order = new Int32Array(n);
  const fill = counts.slice(0, id.dict.length);
  for (let i = 0; i < n; i++) order[fill[id.codes[i]!]!++] = i;
  const groups = new Map<string, Int32Array>();
  const words = int32Pairs(time);
  for (let code = 0; code < id.dict.length; code++) {
    const start = counts[code]!;
    const end = counts[code + 1]!;
    if (end === start) continue;
    const name = id.dict.get(code);
    const prev = groups.get(name);
    let rows = order.subarray(start, end);
    // a dictionary may repeat a string (unified columns): merge its rows
    if (prev) rows = Int32Array.from([...prev, ...rows]);
    groups.set(name, sortByTime(rows, words));
  }
  return groups;
}

function sortByTime(rows: Int32Array, words: Int32Array): Int32Array {
  const cmp = (a: number, b: number): number => {
    const ha = words[2 * a + 1]!;
    const hb = words[2 * b + 1]!;
    if (ha !== hb) return ha < hb ? -1 : 1;
    const la = words[2 * a]! >>> 0;
    const lb = words[2 * b]! >>> 0;
    return la !== lb ? (la < lb ? -1 : 1) : a - b;
  };
  for (let i = 1; i < rows.length; i++) if (cmp(rows[i - 1]!, rows[i]!) > 0) return Int32Array.from(rows).sort(cmp);
  return rows;
}
