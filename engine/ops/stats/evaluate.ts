/**
 * Evaluating a checked parse tree over a frame (SPEC 5.1): columns and `i` give row-level vectors,
 * aggregates reduce them to one value per cell, element-wise operators apply at either level (a cell
 * value broadcasts to its rows), ordered operators run within each cell in time order. The tree must
 * end at one value per cell, or the error names it.
 */
import { argError } from '../../core/errors.js';
import type { ColumnType } from '../../core/column.js';
import { aggregate, type Fail, type Frame } from './aggregates.js';
import type { ElementwiseOp, Node, OrderedOp } from './tree.js';
import { columnVec, type NumVec, symNull, type Vec } from './vectors.js';

const INTEGRAL = new Set<string>(['long', 'int', 'boolean']);

interface Ctx {
  readonly f: Frame;
  readonly fail: Fail;
  readonly cache: Map<string, Vec>;
  prevEntry?: Int32Array;
  nextEntry?: Int32Array;
}

function describe(n: Node): string {
  switch (n.k) {
    case 'col':
      return n.name;
    case 'lit':
      return String(n.value);
    case 'index':
      return 'i';
    case 'distinct':
      return `["distinct",${describe(n.arg)}]`;
    default:
      return `[${JSON.stringify(n.op)},${n.args.map(describe).join(',')}]`;
  }
}

/** A row-level copy of a cell-level value (each row takes its cell's value). */
function toRows(v: Vec, ctx: Ctx): Vec {
  if (v.lvl !== 'cell') return v;
  const { f } = ctx;
  if (f.windows) ctx.fail('mixes a per-group value into rows of a moving window', 'a tree whose aggregates apply to columns, or no movingWindowSize');
  const n = f.n;
  switch (v.t) {
    case 'num': {
      const d = new Float64Array(n);
      for (let e = 0; e < n; e++) d[e] = v.d[f.cell[e]!]!;
      return { lvl: 'row', t: 'num', d, type: v.type };
    }
    case 'ts': {
      const d = new BigInt64Array(n);
      for (let e = 0; e < n; e++) d[e] = v.d[f.cell[e]!]!;
      return { lvl: 'row', t: 'ts', d, type: v.type };
    }
    case 'sym': {
      const codes = new Int32Array(n);
      for (let e = 0; e < n; e++) codes[e] = v.codes[f.cell[e]!]!;
      return { lvl: 'row', t: 'sym', codes, dict: v.dict, type: v.type };
    }
  }
}

function numbers(v: Vec, what: string, ctx: Ctx): NumVec | { lvl: 'scalar'; v: number; type: 'float' } {
  if (v.t === 'num') return v;
  return ctx.fail(`applies ${what} to a ${v.type} value`, `numbers for ${what}`);
}

const UNARY: Record<string, (x: number) => number> = {
  neg: (x) => -x,
  abs: Math.abs,
  sqrt: Math.sqrt,
  exp: Math.exp,
  log: Math.log,
  floor: Math.floor,
  ceiling: Math.ceil,
  signum: (x) => (x !== x ? NaN : Math.sign(x)),
};

const BINARY: Record<string, (x: number, y: number) => number> = {
  '+': (x, y) => x + y,
  '-': (x, y) => x - y,
  '*': (x, y) => x * y,
  '%': (x, y) => x / y,
  '/': (x, y) => x / y,
  '&': (x, y) => (x !== x || y !== y ? NaN : Math.min(x, y)),
  '|': (x, y) => (x !== x || y !== y ? NaN : Math.max(x, y)),
  '=': (x, y) => (x === y ? 1 : 0),
  '<>': (x, y) => (x !== x || y !== y ? 0 : x !== y ? 1 : 0),
  '<': (x, y) => (x < y ? 1 : 0),
  '>': (x, y) => (x > y ? 1 : 0),
  '<=': (x, y) => (x <= y ? 1 : 0),
  '>=': (x, y) => (x >= y ? 1 : 0),
};

function resultType(op: ElementwiseOp, a: string, b?: string): ColumnType {
  if (['=', '<>', '<', '>', '<=', '>='].includes(op)) return 'boolean';
  if (op === 'floor' || op === 'ceiling' || op === 'signum') return 'long';
  const integral = INTEGRAL.has(a) && (b === undefined || INTEGRAL.has(b));
  if (integral && ['+', '-', '*', 'neg', 'abs', '&', '|'].includes(op)) return 'long';
  return 'float';
}

function elementwise(op: ElementwiseOp, args: Vec[], ctx: Ctx): Vec {
  const levels = args.map((a) => a.lvl);
  const level = levels.includes('row') ? 'row' : levels.includes('cell') ? 'cell' : 'scalar';
  const vals = level === 'row' ? args.map((a) => toRows(a, ctx)) : args;
  if (op === '-' && vals.length === 2 && vals[0]!.t === 'ts' && vals[1]!.t === 'ts' && level === 'cell') {
    // two timestamps of a cell: their difference, exactly, as a timespan
    const [x, y] = vals as [Extract<Vec, { t: 'ts' }>, Extract<Vec, { t: 'ts' }>];
    const d = new BigInt64Array(x.d.length).fill(-9223372036854775808n);
    for (let i = 0; i < d.length; i++) {
      if (x.d[i] !== -9223372036854775808n && y.d[i] !== -9223372036854775808n) d[i] = x.d[i]! - y.d[i]!;
    }
    return { lvl: 'cell', t: 'ts', d, type: 'timespan' };
  }
  const nums = vals.map((v) => numbers(v, op, ctx));
  const len = level === 'row' ? ctx.f.n : level === 'cell' ? ctx.f.out : 1;
  const get = (v: (typeof nums)[number]): ((i: number) => number) => (v.lvl === 'scalar' ? () => v.v : (i) => v.d[i]!);
  const type = resultType(op, nums[0]!.type, nums[1]?.type);
  const d = new Float64Array(len);
  if (nums.length === 1) {
    const fn = UNARY[op]!;
    const x = get(nums[0]!);
    for (let i = 0; i < len; i++) d[i] = fn(x(i));
  } else {
    const fn = BINARY[op]!;
    const x = get(nums[0]!);
    const y = get(nums[1]!);
    for (let i = 0; i < len; i++) d[i] = fn(x(i), y(i));
  }
  if (level === 'scalar') return { lvl: 'scalar', t: 'num', v: d[0]!, type: 'float' };
  return { lvl: level, t: 'num', d, type };
}

function neighbours(ctx: Ctx): { prev: Int32Array; next: Int32Array } {
  if (!ctx.prevEntry || !ctx.nextEntry) {
    const { f } = ctx;
    const prev = new Int32Array(f.n);
    const next = new Int32Array(f.n).fill(-1);
    const last = new Int32Array(f.cells).fill(-1);
    for (let e = 0; e < f.n; e++) {
      const c = f.cell[e]!;
      prev[e] = last[c]!;
      if (last[c]! >= 0) next[last[c]!] = e;
      last[c] = e;
    }
    ctx.prevEntry = prev;
    ctx.nextEntry = next;
  }
  return { prev: ctx.prevEntry, next: ctx.nextEntry! };
}

function ordered(op: OrderedOp, arg: Vec, ctx: Ctx): Vec {
  if (arg.lvl !== 'row') return ctx.fail(`applies ${op} to a value that is already one per group`, `${op} of a column or a row-level tree`);
  const v = numbers(arg, op, ctx) as NumVec;
  const { prev, next } = neighbours(ctx);
  const n = ctx.f.n;
  const d = new Float64Array(n);
  const x = v.d;
  switch (op) {
    case 'prev':
      for (let e = 0; e < n; e++) d[e] = prev[e]! < 0 ? NaN : x[prev[e]!]!;
      return { ...v, d };
    case 'next':
      for (let e = 0; e < n; e++) d[e] = next[e]! < 0 ? NaN : x[next[e]!]!;
      return { ...v, d };
    case 'deltas':
      for (let e = 0; e < n; e++) d[e] = prev[e]! < 0 ? x[e]! : x[e]! - x[prev[e]!]!;
      return { ...v, d };
    case 'ratios':
      for (let e = 0; e < n; e++) d[e] = prev[e]! < 0 ? x[e]! : x[e]! / x[prev[e]!]!;
      return { lvl: 'row', t: 'num', d, type: 'float' };
    case 'sums':
      for (let e = 0; e < n; e++) {
        const own = x[e]! === x[e]! ? x[e]! : 0;
        d[e] = prev[e]! < 0 ? own : d[prev[e]!]! + own;
      }
      return { ...v, d };
    case 'fills':
      for (let e = 0; e < n; e++) d[e] = x[e] === x[e] || prev[e]! < 0 ? x[e]! : d[prev[e]!]!;
      return { ...v, d };
  }
}

/** Rows whose value already appeared earlier in the same cell become null (for count distinct). */
function distinct(arg: Vec, ctx: Ctx): Vec {
  if (arg.lvl !== 'row') return ctx.fail('applies distinct to a value that is already one per group', 'distinct of a column');
  const { f } = ctx;
  const seen = new Set<string | number>();
  const key = (e: number, value: string | number): string | number => (typeof value === 'number' ? `${f.cell[e]}:${value}` : `${f.cell[e]}:s${value}`);
  switch (arg.t) {
    case 'num': {
      const d = arg.d.slice();
      for (let e = 0; e < f.n; e++) {
        const k = key(e, d[e]!);
        if (seen.has(k)) d[e] = NaN;
        else seen.add(k);
      }
      return { ...arg, d };
    }
    case 'ts': {
      const d = arg.d.slice();
      for (let e = 0; e < f.n; e++) {
        const k = key(e, String(d[e]));
        if (seen.has(k)) d[e] = -9223372036854775808n;
        else seen.add(k);
      }
      return { ...arg, d };
    }
    case 'sym': {
      const codes = arg.codes.slice();
      for (let e = 0; e < f.n; e++) {
        if (symNull(arg, codes[e]!)) continue;
        const k = key(e, arg.dict[codes[e]!]!);
        if (seen.has(k)) codes[e] = -1;
        else seen.add(k);
      }
      return { ...arg, codes };
    }
  }
}

function evalNode(n: Node, ctx: Ctx): Vec {
  const { f } = ctx;
  switch (n.k) {
    case 'col': {
      let v = ctx.cache.get(n.name);
      if (!v) ctx.cache.set(n.name, (v = columnVec(f.table.col(n.name), f.rows)));
      return v;
    }
    case 'lit':
      return { lvl: 'scalar', t: 'num', v: n.value, type: 'float' };
    case 'index': {
      const d = new Float64Array(f.n);
      for (let e = 0; e < f.n; e++) d[e] = f.rows ? f.rows[e]! : e;
      return { lvl: 'row', t: 'num', d, type: 'long' };
    }
    case 'agg': {
      const args = n.args.map((a) => toRows(evalNode(a, ctx), ctx));
      return aggregate(n.op, args, f, ctx.fail, (i) => describe(n.args[i]!));
    }
    case 'elem':
      return elementwise(n.op, n.args.map((a) => evalNode(a, ctx)), ctx);
    case 'ordered':
      return ordered(n.op, evalNode(n.args[0]!, ctx), ctx);
    case 'distinct':
      return distinct(evalNode(n.arg, ctx), ctx);
  }
}

/** The value of a tree for every output cell of the frame; `arg` and `tree` name it in errors. */
export function evaluate(node: Node, f: Frame, arg: string, tree: unknown, cache = new Map<string, Vec>()): Vec {
  const fail: Fail = (problem, expected) => {
    throw argError('columnType', arg, tree, problem, expected);
  };
  const v = evalNode(node, { f, fail, cache });
  if (v.lvl === 'row') {
    throw argError('badValue', arg, tree, 'does not reduce to one value per group', 'a tree ending in an aggregate, such as ["last", ...] or ["sum", ...]');
  }
  if (v.lvl === 'scalar') return { lvl: 'cell', t: 'num', d: new Float64Array(f.out).fill(v.v), type: 'float' };
  return v;
}
