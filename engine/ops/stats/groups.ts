/**
 * Grouping rows of getStats by the groupBy columns (SPEC 5.2): a dense group id per row, a row holding
 * each group's key values, and the groups in ascending key order. Symbols group by their string (a
 * dictionary may repeat one), numbers by value, timestamps by their exact int64.
 */
import { type Column, int32Pairs } from '../../core/column.js';
import type { Table } from '../../core/table.js';
import { columnComparator } from '../sort.js';

export interface Groups {
  readonly count: number;
  /** group of each row */
  readonly ofRow: Int32Array;
  /** a row of each group (its first), from which its key values are read */
  readonly keyRow: Int32Array;
  /** rank of each group in ascending key order */
  readonly rank: Int32Array;
}

/** Dense ids of a column's values, and how many there are. */
function valueIds(c: Column, n: number): { ids: Int32Array; count: number } {
  const ids = new Int32Array(n);
  const index = new Map<string | number, number>();
  const id = (key: string | number): number => {
    let v = index.get(key);
    if (v === undefined) index.set(key, (v = index.size));
    return v;
  };
  switch (c.type) {
    case 'symbol': {
      // ids only for values some row holds (a dictionary may list unused or repeated strings)
      const perCode = new Int32Array(c.dict.length).fill(-1);
      for (let i = 0; i < n; i++) {
        const code = c.codes[i]!;
        let v = perCode[code]!;
        if (v < 0) v = perCode[code] = id(c.dict.get(code));
        ids[i] = v;
      }
      break;
    }
    case 'string':
      for (let i = 0; i < n; i++) ids[i] = id(c.values[i]!);
      break;
    case 'timestamp':
    case 'timespan':
    case 'long': {
      const w = int32Pairs(c.data);
      for (let i = 0; i < n; i++) ids[i] = id(`${w[2 * i + 1]}:${w[2 * i]}`);
      break;
    }
    case 'float[]':
    case 'long[]':
      throw new Error('list columns do not group');
    default:
      for (let i = 0; i < n; i++) {
        const x = c.data[i]!;
        ids[i] = id(x !== x ? 'null' : x);
      }
  }
  return { ids, count: index.size };
}

/** Groups of a table's rows by columns (none: one group of every row). */
export function groupBy(t: Table, columns: readonly string[]): Groups {
  const n = t.length;
  let ofRow: Int32Array = new Int32Array(n);
  let count = n > 0 || columns.length === 0 ? 1 : 0;
  for (const [k, name] of columns.entries()) {
    const { ids, count: card } = valueIds(t.col(name), n);
    if (k === 0) {
      // the first column's value ids are already dense group ids
      ofRow = ids;
      count = card;
      continue;
    }
    const next = new Int32Array(n);
    if (count * card <= 16_000_000) {
      // a dense table of (group so far, value) -> new group: no hashing per row
      const table = new Int32Array(count * card).fill(-1);
      let groups = 0;
      for (let i = 0; i < n; i++) {
        const key = ofRow[i]! * card + ids[i]!;
        let g = table[key]!;
        if (g < 0) g = table[key] = groups++;
        next[i] = g;
      }
      count = groups;
    } else {
      const combined = new Map<number, number>();
      for (let i = 0; i < n; i++) {
        const key = ofRow[i]! * card + ids[i]!;
        let g = combined.get(key);
        if (g === undefined) combined.set(key, (g = combined.size));
        next[i] = g;
      }
      count = combined.size;
    }
    ofRow = next;
  }
  const keyRow = new Int32Array(count).fill(-1);
  for (let i = 0; i < n; i++) if (keyRow[ofRow[i]!]! < 0) keyRow[ofRow[i]!] = i;
  const cmps = columns.map((name) => columnComparator(t.col(name)));
  const order = Array.from({ length: count }, (_, g) => g).sort((a, b) => {
    for (const cmp of cmps) {
      const d = cmp(keyRow[a]!, keyRow[b]!);
      if (d !== 0) return d;
    }
    return a - b;
  });
  const rank = new Int32Array(count);
  order.forEach((g, r) => (rank[g] = r));
  return { count, ofRow, keyRow, rank };
}
