/**
 * Filters (INTERFACE 4.1.1, SPEC 4). Each clause compiles once, per column type, into a loop that
 * compacts a selection vector in place. Symbol predicates are evaluated once per dictionary entry.
 *
 * Nulls (decided): a null satisfies no function except `<>` against a non-null value.
 */
import { type Column, int32Pairs } from '../core/column.js';
import { argError } from '../core/errors.js';
import type { RawClause } from '../registry/decode.js';
import type { TableSchema } from '../storage/schema.js';
import { columnOf } from '../storage/schema.js';
import { type CastValue, castValue, isNullValue } from './values.js';

export const FILTER_FUNCTIONS = ['in', 'within', '<', '>', '<=', '>=', '=', '<>', 'like'] as const;
export type FilterFunction = (typeof FILTER_FUNCTIONS)[number];

/** A clause ready to run: compacts `sel[0..n)` in place and returns the new length. */
export interface CompiledClause {
  readonly column: string;
  apply(col: Column, sel: Int32Array, n: number): number;
}

/**
 * A compiled predicate: `test` on a non-null value, `nullPasses` for null rows, and for int64
 * (timestamp/timespan) columns `pair`, the same test on the value's hi/lo int32 words.
 */
interface ScalarTest {
  readonly test: (x: CastValue) => boolean;
  readonly nullPasses: boolean;
  readonly pair?: (hi: number, lo: number) => boolean;
}

const hiOf = (v: bigint): number => Number(BigInt.asIntN(32, v >> 32n));
const loOf = (v: bigint): number => Number(BigInt.asUintN(32, v));

/** Compares an int64 given as hi (signed) / lo (unsigned) words with a bigint, exactly. */
function pairComparator(v: bigint): (hi: number, lo: number) => number {
  const th = hiOf(v);
  const tl = loOf(v);
  return (hi, lo) => (hi !== th ? (hi < th ? -1 : 1) : lo !== tl ? (lo < tl ? -1 : 1) : 0);
}

/** Converts a q `like` pattern (`*`, `?`, `[abc]`, `[^abc]`) to an anchored RegExp. */
export function likeToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') re += '[\\s\\S]*';
    else if (ch === '?') re += '[\\s\\S]';
    else if (ch === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        let body = pattern.slice(i + 1, close);
        const negate = body.startsWith('^');
        if (negate) body = body.slice(1);
        re += `[${negate ? '^' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
        i = close;
      }
    } else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

function compare(a: CastValue, b: CastValue): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

const FILTER_EXPECTED = 'function one of in, within, <, >, <=, >=, =, <>, like';

/** Compiles list-form clauses against a table's schema. */
export function compileClauses(
  clauses: readonly RawClause[],
  table: TableSchema,
  inputTZ: string,
  arg = 'filter',
): CompiledClause[] {
  return clauses.map((c) => {
    const def = columnOf(table, c.column);
    if (!def) {
      throw argError('unknownColumn', arg, c.source, `names column ${JSON.stringify(c.column)}, which ${table.name} does not have`, `one of ${table.columns.map((d) => d.name).join(', ')}`);
    }
    if (!(FILTER_FUNCTIONS as readonly string[]).includes(c.fn)) {
      throw argError('badFilter', arg, c.source, `has function ${JSON.stringify(c.fn)}`, FILTER_EXPECTED);
    }
    if (def.type === 'float[]' || def.type === 'long[]') {
      throw argError('columnType', arg, c.source, `filters list column ${c.column} (${def.type})`, 'a scalar column');
    }
    const cast = (v: unknown): CastValue => castValue(v, def.type, { arg, column: c.column, inputTZ, source: c.source });
    const scalar = scalarTest(c.fn as FilterFunction, c, cast, def.type, arg);
    return { column: c.column, apply: (col, sel, n) => applyTest(col, sel, n, scalar) };
  });
}

function scalarTest(
  fn: FilterFunction,
  c: RawClause,
  cast: (v: unknown) => CastValue,
  type: string,
  arg: string,
): ScalarTest {
  const never: ScalarTest = { test: () => false, nullPasses: false };
  switch (fn) {
    case 'in': {
      const items = (Array.isArray(c.value) ? c.value : [c.value]).map(cast).filter((v) => !isNullValue(v));
      if (items.length === 0) return never;
      if (typeof items[0] === 'bigint') {
        const set = new Set(items as bigint[]);
        const keys = new Set((items as bigint[]).map((v) => hiOf(v) * 4294967296 + loOf(v)));
        // hi*2^32+lo as a float can collide for distant values, so a hit is confirmed exactly.
        return {
          test: (x) => set.has(x as bigint),
          nullPasses: false,
          pair: (hi, lo) => keys.has(hi * 4294967296 + lo) && set.has((BigInt(hi) << 32n) | BigInt(lo)),
        };
      }
      const set = new Set<CastValue>(items);
      return { test: (x) => set.has(x), nullPasses: false };
    }
    case 'within': {
      if (!Array.isArray(c.value) || c.value.length !== 2) {
        throw argError('badFilter', arg, c.source, 'needs a two-element range for within', '[lower, upper], both inclusive');
      }
      const lo = cast(c.value[0]);
      const hi = cast(c.value[1]);
      if (isNullValue(lo) || isNullValue(hi)) return never;
      const test = (x: CastValue): boolean => compare(x, lo) >= 0 && compare(x, hi) <= 0;
      if (typeof lo !== 'bigint' || typeof hi !== 'bigint') return { test, nullPasses: false };
      const cl = pairComparator(lo);
      const ch = pairComparator(hi);
      return { test, nullPasses: false, pair: (h, l) => cl(h, l) >= 0 && ch(h, l) <= 0 };
    }
    case 'like': {
      if (type !== 'symbol' && type !== 'string') {
        throw argError('columnType', arg, c.source, `uses like on column ${c.column} (${type})`, 'a symbol or string column for like');
      }
      if (typeof c.value !== 'string') {
        throw argError('badFilter', arg, c.source, 'needs a pattern string for like', 'a pattern such as "AA*", "?BC", "[AB]*"');
      }
      const re = likeToRegExp(c.value);
      return { test: (x) => re.test(x as string), nullPasses: false };
    }
    default: {
      if (Array.isArray(c.value)) {
        throw argError('badFilter', arg, c.source, `needs one value for ${fn}`, 'a single value (use in for a list)');
      }
      const v = cast(c.value);
      if (isNullValue(v)) return fn === '<>' ? { test: () => true, nullPasses: false, pair: () => true } : never;
      const cmp = (x: CastValue): number => compare(x, v);
      const tests: Record<Exclude<FilterFunction, 'in' | 'within' | 'like'>, (x: CastValue) => boolean> = {
        '<': (x) => cmp(x) < 0,
        '>': (x) => cmp(x) > 0,
        '<=': (x) => cmp(x) <= 0,
        '>=': (x) => cmp(x) >= 0,
        '=': (x) => cmp(x) === 0,
        '<>': (x) => cmp(x) !== 0,
      };
      const result = { test: tests[fn], nullPasses: fn === '<>' };
      if (typeof v !== 'bigint') return result;
      const pc = pairComparator(v);
      const pairTests: typeof tests = {
        '<': (x) => (x as number) < 0,
        '>': (x) => (x as number) > 0,
        '<=': (x) => (x as number) <= 0,
        '>=': (x) => (x as number) >= 0,
        '=': (x) => x === 0,
        '<>': (x) => x !== 0,
      };
      const onCmp = pairTests[fn];
      return { ...result, pair: (h, l) => onCmp(pc(h, l)) };
    }
  }
}

/** Runs a scalar test over the selected rows of a column, dispatching on the column type once. */
function applyTest(col: Column, sel: Int32Array, n: number, t: ScalarTest): number {
  let k = 0;
  switch (col.type) {
    case 'symbol': {
      const mask = new Uint8Array(col.dict.length);
      col.dict.forEach((s, code) => (mask[code] = (s === '' ? t.nullPasses : t.test(s)) ? 1 : 0));
      const codes = col.codes;
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        if (mask[codes[r]!]) sel[k++] = r;
      }
      return k;
    }
    case 'float':
    case 'long':
    case 'int': {
      const d = col.data;
      const { test, nullPasses } = t;
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        const x = d[r]!;
        if (x !== x ? nullPasses : test(x)) sel[k++] = r;
      }
      return k;
    }
    case 'timestamp':
    case 'timespan': {
      // Exact comparison on the int64 words, no BigInt per row.
      const pairs = int32Pairs(col.data);
      const pair = t.pair ?? ((): boolean => false);
      const nullPasses = t.nullPasses;
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        const hi = pairs[2 * r + 1]!;
        const lo = pairs[2 * r]! >>> 0;
        if (hi === -2147483648 && lo === 0 ? nullPasses : pair(hi, lo)) sel[k++] = r;
      }
      return k;
    }
    case 'date': {
      const d = col.data;
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        const x = d[r]!;
        if (x === -2147483648 ? t.nullPasses : t.test(x)) sel[k++] = r;
      }
      return k;
    }
    case 'boolean': {
      const pass = [t.test(false), t.test(true)];
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        if (pass[col.data[r]!]) sel[k++] = r;
      }
      return k;
    }
    case 'string': {
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        const x = col.values[r]!;
        if (x === '' ? t.nullPasses : t.test(x)) sel[k++] = r;
      }
      return k;
    }
    case 'float[]':
    case 'long[]':
      return n;
  }
}
