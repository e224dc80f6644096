/**
 * Values flowing through a parse tree: a vector per row of the frame ('row'), per cell (one group in
 * one bucket: 'cell'), or a scalar literal. Numbers (float, long, int, boolean, date) compute as
 * float64 with NaN null; timestamps and timespans stay int64; symbols and strings are codes into a
 * dictionary. `type` is the column type the value will have in the result.
 */
import type { Column, ColumnType } from '../../core/column.js';
import { columnLength, floats, int32Pairs, intsFrom, longsFrom } from '../../core/column.js';
import { type Dict, dictOf } from '../../core/dict.js';

export type Level = 'row' | 'cell';

export type Vec =
  | { readonly lvl: Level; readonly t: 'num'; readonly d: Float64Array; readonly type: ColumnType }
  | { readonly lvl: Level; readonly t: 'ts'; readonly d: BigInt64Array; readonly type: 'timestamp' | 'timespan' }
  | { readonly lvl: Level; readonly t: 'sym'; readonly codes: Int32Array; readonly dict: Dict; readonly type: 'symbol' | 'string' }
  | { readonly lvl: 'scalar'; readonly t: 'num'; readonly v: number; readonly type: 'float' | 'long' };

export type NumVec = Extract<Vec, { t: 'num'; lvl: Level }>;
export type TsVec = Extract<Vec, { t: 'ts' }>;
export type SymVec = Extract<Vec, { t: 'sym' }>;

/** A column of the frame's table, read for every entry (`rows` maps entries to table rows). */
export function columnVec(c: Column, rows: Int32Array | undefined): Vec {
  const at = rows ? (i: number): number => rows[i]! : (i: number): number => i;
  const n = rows ? rows.length : columnLength(c);
  switch (c.type) {
    case 'float': {
      if (!rows) return { lvl: 'row', t: 'num', d: c.data, type: c.type };
      const d = new Float64Array(n);
      for (let i = 0; i < n; i++) d[i] = c.data[rows[i]!]!;
      return { lvl: 'row', t: 'num', d, type: c.type };
    }
    case 'long':
    case 'int': {
      // numeric kernels read longs and ints as float64 (exact within ±2^53)
      if (!rows) return { lvl: 'row', t: 'num', d: floats(c), type: c.type };
      const d = new Float64Array(n);
      if (c.type === 'int') {
        const src = c.data;
        for (let i = 0; i < n; i++) {
          const x = src[rows[i]!]!;
          d[i] = x === -2147483648 ? NaN : x;
        }
      } else {
        const w = int32Pairs(c.data as BigInt64Array);
        for (let i = 0; i < n; i++) {
          const r = rows[i]!;
          const hi = w[2 * r + 1]!;
          const lo = w[2 * r]!;
          d[i] = hi === -2147483648 && lo === 0 ? NaN : hi * 4294967296 + (lo >>> 0);
        }
      }
      return { lvl: 'row', t: 'num', d, type: c.type };
    }
    case 'boolean': {
      const d = new Float64Array(n);
      for (let i = 0; i < n; i++) d[i] = c.data[at(i)]!;
      return { lvl: 'row', t: 'num', d, type: 'boolean' };
    }
    case 'date': {
      const d = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const x = c.data[at(i)]!;
        d[i] = x === -2147483648 ? NaN : x;
      }
      return { lvl: 'row', t: 'num', d, type: 'date' };
    }
    case 'timestamp':
    case 'timespan': {
      if (!rows) return { lvl: 'row', t: 'ts', d: c.data, type: c.type };
      const d = new BigInt64Array(n);
      const s = int32Pairs(c.data);
      const w = int32Pairs(d);
      for (let i = 0; i < n; i++) {
        w[2 * i] = s[2 * rows[i]!]!;
        w[2 * i + 1] = s[2 * rows[i]! + 1]!;
      }
      return { lvl: 'row', t: 'ts', d, type: c.type };
    }
    case 'symbol': {
      if (!rows) return { lvl: 'row', t: 'sym', codes: c.codes, dict: c.dict, type: 'symbol' };
      const codes = new Int32Array(n);
      for (let i = 0; i < n; i++) codes[i] = c.codes[rows[i]!]!;
      return { lvl: 'row', t: 'sym', codes, dict: c.dict, type: 'symbol' };
    }
    case 'string': {
      const codes = new Int32Array(n);
      for (let i = 0; i < n; i++) codes[i] = at(i);
      return { lvl: 'row', t: 'sym', codes, dict: dictOf(c.values), type: 'string' };
    }
    case 'float[]':
    case 'long[]':
      throw new Error('list columns do not aggregate');
  }
}


/** A cell-level value as a result column of its type. */
export function vecToColumn(v: Vec, cells: number): Column {
  if (v.lvl === 'scalar') return v.type === 'long' ? { type: 'long', data: longsFrom(new Float64Array(cells).fill(v.v)) } : { type: 'float', data: new Float64Array(cells).fill(v.v) };
  switch (v.t) {
    case 'num':
      switch (v.type) {
        case 'boolean':
          return { type: 'boolean', data: Uint8Array.from(v.d, (x) => (x === x && x !== 0 ? 1 : 0)) };
        case 'date':
          return { type: 'date', data: Int32Array.from(v.d, (x) => (x === x ? x : -2147483648)) };
        case 'long':
          return { type: 'long', data: longsFrom(v.d.map((x) => (x === x ? Math.round(x) : x))) };
        case 'int':
          return { type: 'int', data: intsFrom(v.d.map((x) => (x === x ? Math.round(x) : x))) };
        default:
          return { type: 'float', data: v.d };
      }
    case 'ts':
      return { type: v.type, data: v.d };
    case 'sym':
      return v.type === 'symbol' ? { type: 'symbol', codes: v.codes, dict: v.dict } : { type: 'string', values: Array.from(v.codes, (k) => (k < 0 ? '' : v.dict.get(k))) };
  }
}

/** True when a symbol/string code is null (code -1 or the empty string). */
export const symNull = (v: SymVec, code: number): boolean => code < 0 || v.dict.get(code) === '';
