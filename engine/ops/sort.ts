/**
 * sortCols (INTERFACE 4.1.4, SPEC 4): a stable multi-key sort of a result. Nulls sort first in
 * ascending order (they are the smallest value, as in q) and last in descending order.
 */
import { type Column, compareStrings, int32Pairs, symbolRanks } from '../core/column.js';
import { argError } from '../core/errors.js';
import type { Table } from '../core/table.js';
import type { SortKey } from '../registry/decode.js';

export type RowCompare = (a: number, b: number) => number;

/** Compares rows of a column (nulls smallest); the sort order of sortCols and of group keys. */
export function columnComparator(c: Column): RowCompare {
  switch (c.type) {
    case 'float': {
      const d = c.data;
      return (a, b) => {
        const x = d[a]!;
        const y = d[b]!;
        if (x !== x) return y !== y ? 0 : -1;
        if (y !== y) return 1;
        return x < y ? -1 : x > y ? 1 : 0;
      };
    }
    case 'timestamp':
    case 'timespan':
    case 'long': {
      // int64 as hi/lo words; the null (INT64_MIN) sorts smallest by itself
      const p = int32Pairs(c.data);
      return (a, b) => {
        const ha = p[2 * a + 1]!;
        const hb = p[2 * b + 1]!;
        if (ha !== hb) return ha < hb ? -1 : 1;
        const la = p[2 * a]! >>> 0;
        const lb = p[2 * b]! >>> 0;
        return la < lb ? -1 : la > lb ? 1 : 0;
      };
    }
    case 'date':
    case 'int':
    case 'boolean': {
      const d = c.data;
      return (a, b) => d[a]! - d[b]!;
    }
    case 'symbol': {
      const ranks = symbolRanks(c.dict);
      const codes = c.codes;
      return (a, b) => ranks[codes[a]!]! - ranks[codes[b]!]!;
    }
    case 'string':
      return (a, b) => compareStrings(c.values[a]!, c.values[b]!);
    case 'float[]':
    case 'long[]':
      throw new Error('list columns cannot be sorted');
  }
}

/** The result sorted by the keys (stable: equal rows keep their order). */
export function sortTable(t: Table, keys: readonly SortKey[], arg = 'sortCols'): Table {
  const comparators = keys.map((k) => {
    const c = t.get(k.column);
    if (!c) {
      throw argError('badSort', arg, [k.dir, k.column], `sorts on column ${JSON.stringify(k.column)}, which the result does not have`, `one of ${t.names.join(', ')}`);
    }
    if (c.type === 'float[]' || c.type === 'long[]') {
      throw argError('badSort', arg, [k.dir, k.column], `sorts on list column ${k.column}`, 'a scalar column');
    }
    const cmp = columnComparator(c);
    return k.dir === 'asc' ? cmp : (a: number, b: number) => cmp(b, a);
  });
  const order = Array.from({ length: t.length }, (_, i) => i);
  order.sort((a, b) => {
    for (const cmp of comparators) {
      const d = cmp(a, b);
      if (d !== 0) return d;
    }
    return a - b;
  });
  return t.take(Int32Array.from(order));
}
