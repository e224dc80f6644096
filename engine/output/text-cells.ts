/**
 * Cell text for the grid's pages and the list cells of JSON and CSV, so a value reads the same as in
 * the byte renderers of engine/output (whose timestamp writer it shares). Timestamps render in
 * outputTZ local time with nine fractional digits (and, for CSV text outside UTC, the offset).
 */
import { type Column, int32Pairs, longText } from '../core/column.js';
import { formatDate, formatTimespan } from '../core/time.js';
import { isUtcZone } from '../core/tz.js';
import { timestampWriter } from './numbers.js';

/**
 * A renderer of int64 UTC nanosecond timestamps (given as hi/lo words) in a zone, as text: the byte
 * writer of engine/output (a cached day prefix, float arithmetic on the words) into a small buffer;
 * with `withOffset`, each followed by its instant's UTC offset (CSV outside UTC, SPEC 8).
 */
export function timestampRenderer(zone: string, withOffset = false): (hi: number, lo: number) => string {
  const write = timestampWriter(zone, withOffset);
  const buf = new Uint8Array(64);
  return (hi, lo) => String.fromCharCode.apply(null, buf.subarray(0, write(buf, 0, hi, lo)) as unknown as number[]);
}

const isNullPair = (hi: number, lo: number): boolean => hi === -2147483648 && lo === 0;

/**
 * A function rendering row i of a column as text; null renders as `nullText`. `csv`: timestamps as the
 * CSV writes them, with their UTC offset outside UTC (a copy of rows); otherwise the wall-clock time
 * the JSON payload and the grid show.
 */
export function textCells(c: Column, outputTZ: string, nullText = '', csv = false): (i: number) => string {
  switch (c.type) {
    case 'float':
      return (i) => {
        const x = c.data[i]!;
        return x !== x ? nullText : x === Infinity ? 'inf' : x === -Infinity ? '-inf' : String(x);
      };
    case 'long': {
      const w = int32Pairs(c.data);
      return (i) => longText(w, i) || nullText;
    }
    case 'int':
      return (i) => {
        const x = c.data[i]!;
        return x === -2147483648 ? nullText : String(x);
      };
    case 'timestamp': {
      const p = int32Pairs(c.data);
      const render = timestampRenderer(outputTZ, csv && !isUtcZone(outputTZ));
      return (i) => {
        const hi = p[2 * i + 1]!;
        const lo = p[2 * i]! >>> 0;
        if (isNullPair(hi, lo)) return nullText;
        if (hi === 2147483647 && lo === 4294967295) return '0Wp';
        if (hi === -2147483648 && lo === 1) return '-0Wp';
        return render(hi, lo);
      };
    }
    case 'timespan': {
      const p = int32Pairs(c.data);
      return (i) => (isNullPair(p[2 * i + 1]!, p[2 * i]! >>> 0) ? nullText : formatTimespan(c.data[i]!));
    }
    case 'date':
      return (i) => (c.data[i] === -2147483648 ? nullText : formatDate(c.data[i]!));
    case 'boolean':
      return (i) => (c.data[i] ? 'true' : 'false');
    case 'symbol':
      return (i) => c.dict.get(c.codes[i]!);
    case 'string':
      return (i) => c.values[i]!;
    case 'float[]':
    case 'long[]':
      return (i) => listJson(c.values, c.offsets[i]!, c.offsets[i + 1]!);
  }
}

/** A list cell as JSON: null as null, infinities as "inf" and "-inf" (as a float cell's are: JSON has no infinity). */
function listJson(values: Float64Array, a: number, b: number): string {
  let s = '[';
  for (let k = a; k < b; k++) {
    const x = values[k]!;
    s += (k > a ? ',' : '') + (x !== x ? 'null' : x === Infinity ? '"inf"' : x === -Infinity ? '"-inf"' : String(x));
  }
  return `${s}]`;
}
