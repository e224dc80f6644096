/**
 * getTicks fill (INTERFACE 4.1.2, SPEC 4): nulls are replaced per identifier in time order. No rows
 * are added here (racking is getStats's). zero: numeric nulls become 0. forward: the previous non-null
 * value. linear: interpolated on the time column between the neighbouring non-null values; linearStep:
 * the same on row position. Leading and trailing nulls stay null (no extrapolation); non-numeric
 * columns are forward filled under linear and linearStep; interpolated longs round half away from zero.
 *
 * Rows are walked in their (time) order once per pass, with each identifier's running state in a
 * small per-group array, so memory is read sequentially however identifiers interleave.
 */
import { checkpoint } from '../../core/cancel.js';
import { type Column, floats, int32Pairs, intsFrom, longsFrom } from '../../core/column.js';
import { Table } from '../../core/table.js';
import { roundHalfAway } from '../round.js';
import { type Dict, dictStrings, nullCodes } from '../../core/dict.js';

export const FILL_MODES = ['null', 'zero', 'forward', 'linear', 'linearStep'] as const;
export type FillMode = (typeof FILL_MODES)[number];

/** The group (identifier, by string) of every row, and the number of groups; one group without one. */
export function groupOfRows(t: Table, idColumn: string | null, alloc: (n: number) => Int32Array = (n) => new Int32Array(n)): { group: Int32Array; count: number } {
  const id = idColumn ? t.get(idColumn) : undefined;
  if (!id || id.type !== 'symbol') return { group: alloc(t.length).fill(0), count: 1 };
  const { groupOfCode, count } = groupsOfCodes(id.dict);
  const group = alloc(t.length);
  for (let i = 0; i < t.length; i++) group[i] = groupOfCode[id.codes[i]!]!;
  return { group, count };
}

/** A group per dictionary code, by string (a dictionary may repeat one), and the number of groups. */
function groupsOfCodes(dict: Dict): { groupOfCode: Int32Array; count: number } {
  const groupOfCode = new Int32Array(dict.length);
  const byName = new Map<string, number>();
  dictStrings(dict).forEach((s, code) => {
    let g = byName.get(s);
    if (g === undefined) byName.set(s, (g = byName.size));
    groupOfCode[code] = g;
  });
  return { groupOfCode, count: byName.size };
}

/** Row indices per identifier, each ascending (for callers that need whole groups). */
export function groupRows(t: Table, idColumn: string | null): Int32Array[] {
  const { group, count } = groupOfRows(t, idColumn);
  const sizes = new Int32Array(count + 1);
  for (let i = 0; i < group.length; i++) sizes[group[i]! + 1]!++;
  for (let g = 1; g <= count; g++) sizes[g]! += sizes[g - 1]!;
  const order = new Int32Array(group.length);
  const at = sizes.slice(0, count);
  for (let i = 0; i < group.length; i++) order[at[group[i]!]!++] = i;
  const out: Int32Array[] = [];
  for (let g = 0; g < count; g++) if (sizes[g + 1]! > sizes[g]!) out.push(order.subarray(sizes[g]!, sizes[g + 1]!));
  return out;
}

/** True when the column holds at least one null. */
function hasNull(c: Column): boolean {
  switch (c.type) {
    case 'float': {
      const d = c.data;
      for (let i = 0; i < d.length; i++) if (d[i] !== d[i]) return true;
      return false;
    }
    case 'timestamp':
    case 'timespan':
    case 'long': {
      const w = int32Pairs(c.data);
      for (let i = 0; i < c.data.length; i++) if (w[2 * i + 1] === -2147483648 && w[2 * i] === 0) return true;
      return false;
    }
    case 'date':
    case 'int':
      return c.data.includes(-2147483648);
    case 'symbol': {
      const isNull = nullCodes(c.dict);
      for (let i = 0; i < c.codes.length; i++) if (isNull[c.codes[i]!]) return true;
      return false;
    }
    case 'string':
      return c.values.includes('');
    default:
      return false;
  }
}

interface Groups {
  readonly group: Int32Array;
  readonly count: number;
}

/** Forward fill of any column: each null takes the previous non-null value of its group (in place when owned). */
function forward(c: Column, { group, count }: Groups, owned: boolean): Column {
  const n = group.length;
  switch (c.type) {
    case 'float': {
      const d = owned ? c.data : c.data.slice();
      const last = new Float64Array(count).fill(NaN);
      for (let i = 0; i < n; i++) {
        const g = group[i]!;
        if (d[i] !== d[i]) d[i] = last[g]!;
        else last[g] = d[i]!;
      }
      return { type: c.type, data: d };
    }
    case 'timestamp':
    case 'timespan':
    case 'long': {
      const out = owned ? c.data : c.data.slice();
      const w = int32Pairs(out);
      const last = new Int32Array(2 * count).fill(0);
      for (let g = 0; g < count; g++) last[2 * g + 1] = -2147483648;
      for (let i = 0; i < n; i++) {
        const g = group[i]!;
        if (w[2 * i + 1] === -2147483648 && w[2 * i] === 0) {
          w[2 * i] = last[2 * g]!;
          w[2 * i + 1] = last[2 * g + 1]!;
        } else {
          last[2 * g] = w[2 * i]!;
          last[2 * g + 1] = w[2 * i + 1]!;
        }
      }
      return { type: c.type, data: out };
    }
    case 'date':
    case 'int': {
      const d = owned ? c.data : c.data.slice();
      const last = new Int32Array(count).fill(-2147483648);
      for (let i = 0; i < n; i++) {
        const g = group[i]!;
        if (d[i] === -2147483648) d[i] = last[g]!;
        else last[g] = d[i]!;
      }
      return { type: c.type, data: d };
    }
    case 'symbol': {
      const codes = owned ? c.codes : c.codes.slice();
      const isNull = nullCodes(c.dict);
      const last = new Int32Array(count).fill(-1);
      for (let i = 0; i < n; i++) {
        const g = group[i]!;
        if (isNull[codes[i]!]) {
          if (last[g]! >= 0) codes[i] = last[g]!;
        } else last[g] = codes[i]!;
      }
      return { type: 'symbol', codes, dict: c.dict };
    }
    case 'string': {
      const values = [...c.values];
      const last = new Array<string>(count).fill('');
      for (let i = 0; i < n; i++) {
        const g = group[i]!;
        if (values[i] === '') values[i] = last[g]!;
        else last[g] = values[i]!;
      }
      return { type: 'string', values };
    }
    default:
      return c;
  }
}

/** ns between two rows of a timestamp column, exact while below 2^53. */
function nsBetween(w: Int32Array, a: number, b: number): number {
  return (w[2 * b + 1]! - w[2 * a + 1]!) * 4294967296 + ((w[2 * b]! >>> 0) - (w[2 * a]! >>> 0));
}

/**
 * Linear interpolation of a numeric column inside each group: a forward pass finds each null's
 * previous non-null row, a backward pass its next; nulls with both are interpolated by time (ns) or by
 * position within the group.
 */
function interpolate(c: Column, { group, count }: Groups, time: BigInt64Array | null): Column {
  const n = group.length;
  const src = floats(c);
  const d = src.slice();
  const round = c.type !== 'float';
  const prev = new Int32Array(n).fill(-1);
  const pos = new Int32Array(n);
  const lastRow = new Int32Array(count).fill(-1);
  const seen = new Int32Array(count);
  for (let i = 0; i < n; i++) {
    const g = group[i]!;
    pos[i] = seen[g]!++;
    if (d[i] !== d[i]) prev[i] = lastRow[g]!;
    else lastRow[g] = i;
  }
  const nextRow = lastRow.fill(-1);
  const words = time ? int32Pairs(time) : null;
  for (let i = n - 1; i >= 0; i--) {
    const g = group[i]!;
    if (d[i] === d[i]) {
      nextRow[g] = i;
      continue;
    }
    const a = prev[i]!;
    const b = nextRow[g]!;
    if (a < 0 || b < 0) continue;
    let frac: number;
    if (words) {
      const span = nsBetween(words, a, b);
      frac = span === 0 ? 0 : nsBetween(words, a, i) / span;
    } else frac = (pos[i]! - pos[a]!) / (pos[b]! - pos[a]!);
    const v = src[a]! + (src[b]! - src[a]!) * frac;
    d[i] = round ? roundHalfAway(v, 0) : v;
  }
  if (c.type === 'long') return { type: 'long', data: longsFrom(d) };
  if (c.type === 'int') return { type: 'int', data: intsFrom(d) };
  return { type: 'float', data: d };
}

/**
 * The table with nulls filled per identifier, in its current (time) order; `keep` columns stay as they
 * are. `owned`: the columns belong to the caller's query alone, so forward fill writes into them.
 */
export function fillTable(
  t: Table,
  mode: FillMode,
  idColumn: string | null,
  timeColumn: string | null,
  keep: ReadonlySet<string> = new Set(),
  opts: { owned?: boolean; alloc?: (n: number) => Int32Array } = {},
): Table {
  if (mode === 'null') return t;
  const groups = groupOfRows(t, idColumn, opts.alloc);
  const time = timeColumn ? t.get(timeColumn) : undefined;
  const timeData = time?.type === 'timestamp' ? time.data : null;
  const columns = t.columns.map((c, i) => {
    checkpoint();
    const name = t.names[i]!;
    if (name === idColumn || name === timeColumn || keep.has(name) || !hasNull(c)) return c;
    const numeric = c.type === 'float' || c.type === 'long' || c.type === 'int';
    if (mode === 'zero') return numeric ? zeroFilled(c) : c;
    if (mode === 'forward' || !numeric) return forward(c, groups, opts.owned === true);
    return interpolate(c, groups, mode === 'linear' ? timeData : null);
  });
  return new Table(t.names, columns, t.length);
}

/** A numeric column with its nulls replaced by 0. */
function zeroFilled(c: Column): Column {
  switch (c.type) {
    case 'float':
      return { type: 'float', data: c.data.map((x) => (x !== x ? 0 : x)) };
    case 'long': {
      const data = c.data.slice();
      const w = int32Pairs(data);
      for (let i = 0; i < data.length; i++) if (w[2 * i + 1] === -2147483648 && w[2 * i] === 0) w[2 * i + 1] = 0;
      return { type: 'long', data };
    }
    case 'int':
      return { type: 'int', data: c.data.map((x) => (x === -2147483648 ? 0 : x)) };
    default:
      return c;
  }
}

/**
 * The null rows of a forward-filled part, rows [from, to): an identifier's rows before its first value
 * in the part (the only nulls its own fill leaves). The walk stops once every identifier has a value.
 */
function leadingNulls(access: { isNull: (i: number) => boolean }, groupOf: (r: number) => number, groups: number, from: number, to: number): number[] {
  const out: number[] = [];
  const valued = new Uint8Array(groups);
  let left = groups;
  for (let i = from; i < to && left > 0; i++) {
    const g = groupOf(i);
    if (valued[g]) continue;
    if (access.isNull(i)) out.push(i);
    else {
      valued[g] = 1;
      left--;
    }
  }
  return out;
}

/** A column's null test and row copy, for the few rows a seam fill touches. */
function rowAccess(c: Column): { isNull: (i: number) => boolean; copy: (from: number, to: number) => void } | null {
  switch (c.type) {
    case 'float':
      return { isNull: (i) => c.data[i] !== c.data[i], copy: (f, t) => (c.data[t] = c.data[f]!) };
    case 'timestamp':
    case 'timespan':
    case 'long': {
      const w = int32Pairs(c.data);
      return {
        isNull: (i) => w[2 * i + 1] === -2147483648 && w[2 * i] === 0,
        copy: (f, t) => {
          w[2 * t] = w[2 * f]!;
          w[2 * t + 1] = w[2 * f + 1]!;
        },
      };
    }
    case 'date':
    case 'int':
      return { isNull: (i) => c.data[i] === -2147483648, copy: (f, t) => (c.data[t] = c.data[f]!) };
    case 'symbol': {
      const isNull = nullCodes(c.dict);
      return { isNull: (i) => isNull[c.codes[i]!] === 1, copy: (f, t) => (c.codes[t] = c.codes[f]!) };
    }
    case 'string': {
      const values = c.values as string[];
      return { isNull: (i) => values[i] === '', copy: (f, t) => (values[t] = values[f]!) };
    }
    default:
      return null;
  }
}

/**
 * Forward fill across the seams of parts laid one after another (rows in time order, each part already
 * forward filled by itself; `starts` the first row of each part after the first), in place: the
 * nulls left in a part are those of an identifier before its first value in that part, and take the
 * identifier's last value before the part. Equal to forward filling the whole, touching only those
 * rows and the rows searched back for their values.
 */
export function fillForwardSeams(t: Table, idColumn: string, starts: readonly number[]): Table {
  const id = t.get(idColumn);
  if (!id || id.type !== 'symbol') return t;
  // identifier of a row: one lookup through its code (no group array over every row)
  const { groupOfCode, count } = groupsOfCodes(id.dict);
  const groupOf = (r: number): number => groupOfCode[id.codes[r]!]!;
  const columns = t.columns.map((c, ci) => {
    if (t.names[ci] === idColumn) return c;
    const access = rowAccess(c);
    if (!access) return c;
    for (const [k, start] of starts.entries()) {
      const nulls = leadingNulls(access, groupOf, count, start, starts[k + 1] ?? t.length);
      if (nulls.length === 0) continue;
      // each wanted identifier's last row with a value before the part (-1: none)
      const source = new Int32Array(count).fill(-2);
      let missing = 0;
      for (const i of nulls) {
        if (source[groupOf(i)] === -2) {
          source[groupOf(i)] = -1;
          missing++;
        }
      }
      for (let r = start - 1; r >= 0 && missing > 0; r--) {
        const g = groupOf(r);
        if (source[g] === -1 && !access.isNull(r)) {
          source[g] = r;
          missing--;
        }
      }
      for (const i of nulls) {
        const from = source[groupOf(i)]!;
        if (from >= 0) access.copy(from, i);
      }
    }
    return c;
  });
  return new Table(t.names, columns, t.length);
}
