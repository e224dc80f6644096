/** A column's rows as plain values for assertions: bigints, numbers, strings, booleans, number arrays. */
import { type Column, columnLength } from '../../engine/core/column.js';

/** Each row of `c`: symbols as their text, booleans as booleans, list rows as arrays, the rest as stored. */
export function columnRows(c: Column): unknown[] {
  const n = columnLength(c);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    switch (c.type) {
      case 'symbol':
        out.push(c.dict.get(c.codes[i]!));
        break;
      case 'string':
        out.push(c.values[i]);
        break;
      case 'boolean':
        out.push(c.data[i] === 1);
        break;
      case 'float[]':
      case 'long[]':
        out.push(Array.from(c.values.subarray(c.offsets[i]!, c.offsets[i + 1]!)));
        break;
      default:
        out.push(c.data[i]);
    }
  }
  return out;
}
