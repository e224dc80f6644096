/** Building columns from JS values (import, demo data, tests). */
import type { Column, ColumnType } from './column.js';
import { NULL_INT32, NULL_TS } from './time.js';
import { dictOf } from './dict.js';

/** A scalar as held in a column: number (NaN null), bigint ns, string ("" null) or boolean. */
export type Scalar = number | bigint | string | boolean;

/** A column of a type from values; list types take arrays of numbers (null = empty list). */
export function columnFromValues(type: ColumnType, values: ReadonlyArray<Scalar | readonly number[] | null>): Column {
  const n = values.length;
  switch (type) {
    case 'float':
      return { type, data: Float64Array.from(values, (v) => (v === null ? NaN : Number(v))) };
    case 'timestamp':
    case 'timespan':
      return { type, data: BigInt64Array.from(values, (v) => (v === null ? NULL_TS : BigInt(v as bigint))) };
    case 'long':
      return { type, data: BigInt64Array.from(values, (v) => (v === null || (typeof v === 'number' && v !== v) ? NULL_TS : BigInt(v as bigint | number))) };
    case 'date':
    case 'int':
      return { type, data: Int32Array.from(values, (v) => (v === null || (typeof v === 'number' && v !== v) ? NULL_INT32 : Number(v))) };
    case 'boolean':
      return { type, data: Uint8Array.from(values, (v) => (v === true || v === 1 ? 1 : 0)) };
    case 'string':
      return { type, values: values.map((v) => (v === null ? '' : String(v))) };
    case 'symbol': {
      const dict: string[] = [''];
      const index = new Map<string, number>([['', 0]]);
      const codes = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const s = values[i] === null ? '' : String(values[i]);
        let code = index.get(s);
        if (code === undefined) {
          code = dict.length;
          dict.push(s);
          index.set(s, code);
        }
        codes[i] = code;
      }
      return { type, codes, dict: dictOf(dict) };
    }
    case 'float[]':
    case 'long[]': {
      const offsets = new Int32Array(n + 1);
      const lists = values.map((v) => (Array.isArray(v) ? (v as readonly number[]) : []));
      lists.forEach((l, i) => (offsets[i + 1] = offsets[i]! + l.length));
      const flat = new Float64Array(offsets[n]!);
      lists.forEach((l, i) => flat.set(l, offsets[i]!));
      return { type, offsets, values: flat };
    }
  }
}
