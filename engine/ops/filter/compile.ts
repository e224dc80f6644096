/**
 * Filters compiled against a table (INTERFACE 4.1.1, SPEC 4). A clause compiles once, per column
 * type, into a loop over a selection vector; symbol predicates are evaluated once per dictionary
 * entry. `and` compacts clause after clause; `or` and `not` combine per-row marks.
 *
 * Nulls (decided): a null satisfies no function except `<>` against a non-null value, and the null
 * tests of the string and q forms.
 */
import { type Column, int32Pairs } from '../../core/column.js';
import { argError } from '../../core/errors.js';
import type { RawClause } from '../../registry/decode.js';
import { columnOf, type TableSchema } from '../../storage/schema.js';
import { type CastValue, castValue, isNullValue } from '../../core/values.js';
import { FILTER_FUNCTIONS, type FilterFunction, type FilterNode } from './tree.js';

export { FILTER_FUNCTIONS, type FilterFunction };

/** Where a filter reads its columns: a partition, a corrected partition, a reference table. */
export interface ColumnSource {
  column(name: string): Column;
}

/** A compiled filter: `apply` compacts `sel[0..n)` in place and returns the new length. */
export interface Predicate {
  /** Columns the predicate reads. */
  readonly columns: readonly string[];
  apply(src: ColumnSource, sel: Int32Array, n: number): number;
  /** Sets out[i] to 1 when row sel[i] passes, else 0. */
  mark(src: ColumnSource, sel: Int32Array, n: number, out: Uint8Array): void;
}

/**
 * A test on non-null values (`test`), whether null rows pass, and for int64 columns the same test on
 * a value's hi/lo int32 words (no BigInt per row).
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

const FN_EXPECTED = 'function one of in, within, <, >, <=, >=, =, <>, like';
const NEVER: ScalarTest = { test: () => false, nullPasses: false };

function scalarTest(fn: string, c: { column: string; value: unknown; source: unknown }, cast: (v: unknown) => CastValue, type: string, arg: string): ScalarTest {
  switch (fn) {
    case 'isnull':
      return { test: () => false, nullPasses: true, pair: () => false };
    case 'notnull':
      return { test: () => true, nullPasses: false, pair: () => true };
    case 'in': {
      const items = (Array.isArray(c.value) ? c.value : [c.value]).map(cast).filter((v) => !isNullValue(v));
      if (items.length === 0) return NEVER;
      if (typeof items[0] === 'bigint') {
        const set = new Set(items as bigint[]);
        // hi*2^32+lo as a float can collide for distant values, so a hit is confirmed exactly.
        const keys = new Set((items as bigint[]).map((v) => hiOf(v) * 4294967296 + loOf(v)));
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
      if (isNullValue(lo) || isNullValue(hi)) return NEVER;
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
      if (isNullValue(v)) return fn === '<>' ? { test: () => true, nullPasses: false, pair: () => true } : NEVER;
      const onCmp: Record<string, (d: number) => boolean> = {
        '<': (d) => d < 0,
        '>': (d) => d > 0,
        '<=': (d) => d <= 0,
        '>=': (d) => d >= 0,
        '=': (d) => d === 0,
        '<>': (d) => d !== 0,
      };
      const check = onCmp[fn]!;
      const result = { test: (x: CastValue) => check(compare(x, v)), nullPasses: fn === '<>' };
      if (typeof v !== 'bigint') return result;
      const pc = pairComparator(v);
      return { ...result, pair: (h: number, l: number) => check(pc(h, l)) };
    }
  }
}

/**
 * Runs a scalar test over the selected rows, dispatching on the column type once. With `out` it marks
 * (out[i] = pass), without it compacts the selection and returns the new length.
 */
function runTest(col: Column, sel: Int32Array, n: number, t: ScalarTest, out?: Uint8Array): number {
  let k = 0;
  const keep = (i: number, r: number, pass: boolean): void => {
    if (out) out[i] = pass ? 1 : 0;
    else if (pass) sel[k++] = r;
  };
  switch (col.type) {
    case 'symbol': {
      // Each dictionary entry is tested once, when a selected row first uses it (a large stored
      // dictionary is never decoded whole): 0 untested, 1 passes, 2 fails.
      const state = new Uint8Array(col.dict.length);
      const dict = col.dict;
      const codes = col.codes;
      const passes = (code: number): boolean => {
        let v = state[code]!;
        if (v === 0) {
          const s = dict.get(code);
          v = state[code] = (s === '' ? t.nullPasses : t.test(s)) ? 1 : 2;
        }
        return v === 1;
      };
      if (!out) {
        for (let i = 0; i < n; i++) {
          const r = sel[i]!;
          const v = state[codes[r]!]!;
          if (v === 1 || (v === 0 && passes(codes[r]!))) sel[k++] = r;
        }
        return k;
      }
      for (let i = 0; i < n; i++) out[i] = passes(codes[sel[i]!]!) ? 1 : 0;
      return n;
    }
    case 'long':
    case 'int': {
      // compared as float64 (exact within ±2^53), no BigInt per row
      const { test, nullPasses } = t;
      const value = col.type === 'long' ? longReader(col.data) : intReader(col.data as Int32Array);
      if (!out) {
        for (let i = 0; i < n; i++) {
          const r = sel[i]!;
          const x = value(r);
          if (x !== x ? nullPasses : test(x)) sel[k++] = r;
        }
        return k;
      }
      for (let i = 0; i < n; i++) {
        const x = value(sel[i]!);
        out[i] = (x !== x ? nullPasses : test(x)) ? 1 : 0;
      }
      return n;
    }
    case 'float': {
      const d = col.data;
      const { test, nullPasses } = t;
      if (!out) {
        for (let i = 0; i < n; i++) {
          const r = sel[i]!;
          const x = d[r]!;
          if (x !== x ? nullPasses : test(x)) sel[k++] = r;
        }
        return k;
      }
      for (let i = 0; i < n; i++) {
        const x = d[sel[i]!]!;
        out[i] = (x !== x ? nullPasses : test(x)) ? 1 : 0;
      }
      return n;
    }
    case 'timestamp':
    case 'timespan': {
      const pairs = int32Pairs(col.data);
      const pair = t.pair ?? ((): boolean => false);
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        const hi = pairs[2 * r + 1]!;
        const lo = pairs[2 * r]! >>> 0;
        keep(i, r, hi === -2147483648 && lo === 0 ? t.nullPasses : pair(hi, lo));
      }
      return out ? n : k;
    }
    case 'date':
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        const x = col.data[r]!;
        keep(i, r, x === -2147483648 ? t.nullPasses : t.test(x));
      }
      return out ? n : k;
    case 'boolean': {
      const pass = [t.test(false), t.test(true)];
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        keep(i, r, pass[col.data[r]!]!);
      }
      return out ? n : k;
    }
    case 'string':
      for (let i = 0; i < n; i++) {
        const r = sel[i]!;
        const x = col.values[r]!;
        keep(i, r, x === '' ? t.nullPasses : t.test(x));
      }
      return out ? n : k;
    case 'float[]':
    case 'long[]':
      return n;
  }
}

function compactByMarks(sel: Int32Array, n: number, marks: Uint8Array): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (marks[i]) sel[k++] = sel[i]!;
  return k;
}

function compileClause(c: Extract<FilterNode, { kind: 'clause' }>, table: TableSchema, inputTZ: string, arg: string): Predicate {
  const def = columnOf(table, c.column);
  if (!def) {
    throw argError('unknownColumn', arg, c.source, `names column ${JSON.stringify(c.column)}, which ${table.name} does not have`, `one of ${table.columns.map((d) => d.name).join(', ')}`);
  }
  if (!(FILTER_FUNCTIONS as readonly string[]).includes(c.fn) && c.fn !== 'isnull' && c.fn !== 'notnull') {
    throw argError('badFilter', arg, c.source, `has function ${JSON.stringify(c.fn)}`, FN_EXPECTED);
  }
  if (def.type === 'float[]' || def.type === 'long[]') {
    throw argError('columnType', arg, c.source, `filters list column ${c.column} (${def.type})`, 'a scalar column');
  }
  const cast = (v: unknown): CastValue => castValue(v, def.type, { arg, column: c.column, inputTZ, source: c.source });
  const t = scalarTest(c.fn, c, cast, def.type, arg);
  return {
    columns: [c.column],
    apply: (src, sel, n) => runTest(src.column(c.column), sel, n, t),
    mark: (src, sel, n, out) => void runTest(src.column(c.column), sel, n, t, out),
  };
}

/** Compiles a filter tree against a table's schema (errors name `arg`). */
export function compileFilter(node: FilterNode, table: TableSchema, inputTZ: string, arg = 'filter'): Predicate {
  switch (node.kind) {
    case 'clause':
      return compileClause(node, table, inputTZ, arg);
    case 'and': {
      const parts = node.children.map((c) => compileFilter(c, table, inputTZ, arg));
      return {
        columns: parts.flatMap((p) => p.columns),
        apply: (src, sel, n) => {
          for (const p of parts) {
            if (n === 0) break;
            n = p.apply(src, sel, n);
          }
          return n;
        },
        mark: (src, sel, n, out) => {
          out.fill(1, 0, n);
          const tmp = new Uint8Array(n);
          for (const p of parts) {
            p.mark(src, sel, n, tmp);
            for (let i = 0; i < n; i++) out[i]! &= tmp[i]!;
          }
        },
      };
    }
    case 'or': {
      const parts = node.children.map((c) => compileFilter(c, table, inputTZ, arg));
      const mark = (src: ColumnSource, sel: Int32Array, n: number, out: Uint8Array): void => {
        out.fill(0, 0, n);
        const tmp = new Uint8Array(n);
        for (const p of parts) {
          p.mark(src, sel, n, tmp);
          for (let i = 0; i < n; i++) out[i]! |= tmp[i]!;
        }
      };
      return {
        columns: parts.flatMap((p) => p.columns),
        mark,
        apply: (src, sel, n) => {
          const marks = new Uint8Array(n);
          mark(src, sel, n, marks);
          return compactByMarks(sel, n, marks);
        },
      };
    }
    case 'not': {
      const inner = compileFilter(node.child, table, inputTZ, arg);
      const mark = (src: ColumnSource, sel: Int32Array, n: number, out: Uint8Array): void => {
        inner.mark(src, sel, n, out);
        for (let i = 0; i < n; i++) out[i] = out[i] ? 0 : 1;
      };
      return {
        columns: inner.columns,
        mark,
        apply: (src, sel, n) => {
          const marks = new Uint8Array(n);
          mark(src, sel, n, marks);
          return compactByMarks(sel, n, marks);
        },
      };
    }
  }
}

/** The list form as a tree: an `and` of its triples. */
export function listFilter(clauses: readonly RawClause[]): FilterNode {
  return {
    kind: 'and',
    children: clauses.map((c) => ({ kind: 'clause', fn: c.fn, column: c.column, value: c.value, source: c.source })),
  };
}

/** Compiles list-form clauses (kept for callers that build triples themselves, such as idList). */
export function compileClauses(clauses: readonly RawClause[], table: TableSchema, inputTZ: string, arg = 'filter'): Predicate {
  return compileFilter(listFilter(clauses), table, inputTZ, arg);
}

/** Predicates applied one after the other (all must hold); undefined entries are skipped. */
export function andPredicates(preds: ReadonlyArray<Predicate | undefined>): Predicate | undefined {
  const list = preds.filter((p): p is Predicate => p !== undefined);
  if (list.length <= 1) return list[0];
  return {
    columns: list.flatMap((p) => p.columns),
    apply: (src, sel, n) => {
      for (const p of list) if (n > 0) n = p.apply(src, sel, n);
      return n;
    },
    mark: (src, sel, n, out) => {
      out.fill(1, 0, n);
      const tmp = new Uint8Array(n);
      for (const p of list) {
        p.mark(src, sel, n, tmp);
        for (let i = 0; i < n; i++) out[i]! &= tmp[i]!;
      }
    },
  };
}

/** Row r of a long column as a number (NaN for null). */
function longReader(data: BigInt64Array): (r: number) => number {
  const w = int32Pairs(data);
  return (r) => {
    const hi = w[2 * r + 1]!;
    const lo = w[2 * r]!;
    return hi === -2147483648 && lo === 0 ? NaN : hi * 4294967296 + (lo >>> 0);
  };
}

/** Row r of an int column as a number (NaN for null). */
function intReader(data: Int32Array): (r: number) => number {
  return (r) => (data[r] === -2147483648 ? NaN : data[r]!);
}
