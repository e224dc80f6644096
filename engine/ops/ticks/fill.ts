/**
 * getTicks fill (INTERFACE 4.1.2, SPEC 4): nulls are replaced per identifier in time order. No rows
 * are added here (racking is getStats's). zero: numeric nulls become 0. forward: the previous non-null
 * value. linear: interpolated on the time column between the neighbouring non-null values; linearStep:
 * the same on row position. Leading and trailing nulls stay null (no extrapolation); non-numeric
 * columns are forward filled under linear and linearStep; interpolated longs round half away from zero.
 */
import { type Column, int32Pairs } from '../../core/column.js';
import { Table } from '../../core/table.js';
import { roundHalfAway } from '../round.js';

export const FILL_MODES = ['null', 'zero', 'forward', 'linear', 'linearStep'] as const;
export type FillMode = (typeof FILL_MODES)[number];

/** Row indices per identifier (by string), each ascending; one group when there is no identifier. */
export function groupRows(t: Table, idColumn: string | null): Int32Array[] {
  const id = idColumn ? t.get(idColumn) : undefined;
  if (!id || id.type !== 'symbol') return [Int32Array.from({ length: t.length }, (_, i) => i)];
  const groupOfCode = new Int32Array(id.dict.length);
  const byName = new Map<string, number>();
  id.dict.forEach((s, code) => {
    let g = byName.get(s);
    if (g === undefined) byName.set(s, (g = byName.size));
    groupOfCode[code] = g;
  });
  const counts = new Int32Array(byName.size + 1);
  for (let i = 0; i < t.length; i++) counts[groupOfCode[id.codes[i]!]! + 1]!++;
  for (let g = 1; g < counts.length; g++) counts[g]! += counts[g - 1]!;
  const order = new Int32Array(t.length);
  const fill = counts.slice(0, byName.size);
  for (let i = 0; i < t.length; i++) order[fill[groupOfCode[id.codes[i]!]!]!++] = i;
  const groups: Int32Array[] = [];
  for (let g = 0; g < byName.size; g++) if (counts[g + 1]! > counts[g]!) groups.push(order.subarray(counts[g]!, counts[g + 1]!));
  return groups;
}

/** Forward fill of any column: each null takes the previous non-null value of its group. */
function forward(c: Column, groups: readonly Int32Array[]): Column {
  switch (c.type) {
    case 'float':
    case 'long':
    case 'int': {
      const d = Float64Array.from(c.data);
      for (const g of groups) {
        let last = NaN;
        for (const r of g) {
          if (d[r] !== d[r]) d[r] = last;
          else last = d[r]!;
        }
      }
      return { type: c.type, data: d };
    }
    case 'timestamp':
    case 'timespan': {
      const out = BigInt64Array.from(c.data);
      const w = int32Pairs(out);
      for (const g of groups) {
        let lastHi = -2147483648;
        let lastLo = 0;
        for (const r of g) {
          if (w[2 * r + 1] === -2147483648 && w[2 * r] === 0) {
            w[2 * r + 1] = lastHi;
            w[2 * r] = lastLo;
          } else {
            lastHi = w[2 * r + 1]!;
            lastLo = w[2 * r]!;
          }
        }
      }
      return { type: c.type, data: out };
    }
    case 'date': {
      const d = Int32Array.from(c.data);
      for (const g of groups) {
        let last = -2147483648;
        for (const r of g) {
          if (d[r] === -2147483648) d[r] = last;
          else last = d[r]!;
        }
      }
      return { type: 'date', data: d };
    }
    case 'symbol': {
      const codes = Int32Array.from(c.codes);
      const isNull = c.dict.map((s) => s === '');
      for (const g of groups) {
        let last = -1;
        for (const r of g) {
          if (isNull[codes[r]!]) {
            if (last >= 0) codes[r] = last;
          } else last = codes[r]!;
        }
      }
      return { type: 'symbol', codes, dict: c.dict };
    }
    case 'string': {
      const values = [...c.values];
      for (const g of groups) {
        let last = '';
        for (const r of g) {
          if (values[r] === '') values[r] = last;
          else last = values[r]!;
        }
      }
      return { type: 'string', values };
    }
    default:
      return c;
  }
}

/** Linear interpolation of a numeric column inside each group, by time (ns) or by position. */
function interpolate(c: { type: 'float' | 'long' | 'int'; data: Float64Array }, groups: readonly Int32Array[], time: BigInt64Array | null): Column {
  const d = Float64Array.from(c.data);
  const round = c.type !== 'float';
  for (const g of groups) {
    let prev = -1;
    for (let k = 0; k < g.length; k++) {
      const r = g[k]!;
      if (d[r] !== d[r]) continue;
      if (prev >= 0 && k - prev > 1) {
        const ra = g[prev]!;
        const a = d[ra]!;
        const b = d[r]!;
        for (let j = prev + 1; j < k; j++) {
          const rj = g[j]!;
          let frac: number;
          if (time) {
            const span = Number(time[r]! - time[ra]!);
            frac = span === 0 ? 0 : Number(time[rj]! - time[ra]!) / span;
          } else frac = (j - prev) / (k - prev);
          const v = a + (b - a) * frac;
          d[rj] = round ? roundHalfAway(v, 0) : v;
        }
      }
      prev = k;
    }
  }
  return { type: c.type, data: d };
}

/** The table with nulls filled per identifier, in its current (time) order. */
export function fillTable(t: Table, mode: FillMode, idColumn: string | null, timeColumn: string | null): Table {
  if (mode === 'null') return t;
  const groups = groupRows(t, idColumn);
  const time = timeColumn ? t.get(timeColumn) : undefined;
  const timeData = time?.type === 'timestamp' ? time.data : null;
  const columns = t.columns.map((c, i) => {
    const name = t.names[i]!;
    if (name === idColumn || name === timeColumn) return c;
    const numeric = c.type === 'float' || c.type === 'long' || c.type === 'int';
    if (mode === 'zero') return numeric ? { type: c.type, data: c.data.map((x) => (x !== x ? 0 : x)) } : c;
    if (mode === 'forward' || !numeric) return forward(c, groups);
    return interpolate(c, groups, mode === 'linear' ? timeData : null);
  });
  return new Table(t.names, columns, t.length);
}
