/**
 * Cell rendering shared by every output (REST/CLI JSON, the app's grid, CSV), so a value reads the
 * same everywhere. Timestamps render in outputTZ local time with nine fractional digits.
 */
import { type Column, int32Pairs, longText } from '../core/column.js';
import { formatDate, formatTimespan, NS_PER_DAY } from '../core/time.js';
import { zoneOffsets } from '../core/tz.js';

const TWO32 = 4294967296;
const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

function nsOfDayText(nsOfDay: number): string {
  const sec = Math.floor(nsOfDay / 1e9);
  const frac = String(nsOfDay - sec * 1e9).padStart(9, '0');
  return `${pad2(Math.floor(sec / 3600))}:${pad2(Math.floor((sec % 3600) / 60))}:${pad2(sec % 60)}.${frac}`;
}

/**
 * A renderer of int64 UTC nanosecond timestamps (given as hi/lo words) in a zone. Rows mostly fall in
 * the same local day and the same DST period as the row before, so the common path is float
 * arithmetic on the words; BigInt is only used to set up a new day.
 */
export function timestampRenderer(zone: string): (hi: number, lo: number) => string {
  const offsets = zoneOffsets(zone);
  // UTC instant bounds [a, b) within which rows share `prefix` and `base` (local midnight in UTC).
  let aH = 0;
  let aL = 0;
  let bH = -2147483648;
  let bL = 0;
  let baseH = 0;
  let baseL = 0;
  let prefix = '';
  const ge = (h: number, l: number, th: number, tl: number): boolean => h > th || (h === th && l >= tl);
  const setup = (ns: bigint): void => {
    const off = offsets.offsetAt(ns);
    const local = ns + off;
    let days = local / NS_PER_DAY;
    if (local % NS_PER_DAY < 0n) days -= 1n;
    const midnightUtc = days * NS_PER_DAY - off;
    let start = midnightUtc;
    let end = midnightUtc + NS_PER_DAY;
    // Clip to the DST period so the offset is constant inside [start, end).
    const seg = offsets.segmentOf(ns);
    if (seg.start > start) start = seg.start;
    if (seg.end < end) end = seg.end;
    aH = Number(BigInt.asIntN(32, start >> 32n));
    aL = Number(BigInt.asUintN(32, start));
    bH = Number(BigInt.asIntN(32, end >> 32n));
    bL = Number(BigInt.asUintN(32, end));
    baseH = Number(BigInt.asIntN(32, midnightUtc >> 32n));
    baseL = Number(BigInt.asUintN(32, midnightUtc));
    prefix = `${formatDate(Number(days))}T`;
  };
  return (hi, lo) => {
    if (!(ge(hi, lo, aH, aL) && !ge(hi, lo, bH, bL))) setup((BigInt(hi) << 32n) | BigInt(lo));
    return prefix + nsOfDayText((hi - baseH) * TWO32 + (lo - baseL));
  };
}

const isNullPair = (hi: number, lo: number): boolean => hi === -2147483648 && lo === 0;

/** A function rendering row i of a column as text; null renders as `nullText`. */
export function textCells(c: Column, outputTZ: string, nullText = ''): (i: number) => string {
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
      const render = timestampRenderer(outputTZ);
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

function listJson(values: Float64Array, a: number, b: number): string {
  let s = '[';
  for (let k = a; k < b; k++) {
    const x = values[k]!;
    s += (k > a ? ',' : '') + (x !== x ? 'null' : String(x));
  }
  return `${s}]`;
}
