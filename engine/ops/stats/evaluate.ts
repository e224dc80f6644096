/**
 * Evaluating a checked parse tree (SPEC 5.1) over frames: one gathered frame, or one frame per
 * partition read in place (aggregates then accumulate across them). Columns and `i` give row-level
 * vectors, aggregates reduce them to one value per cell, element-wise operators apply at either level
 * (a cell value broadcasts to its rows), ordered operators run within each cell in time order. The
 * tree must end at one value per cell, or the error names it.
 */
import type { ColumnType } from '../../core/column.js';
import { argError } from '../../core/errors.js';
import { checkpoint } from '../../core/cancel.js';
import { type Fail, type Frame, kernel } from './aggregates.js';
import type { ElementwiseOp, Node, OrderedOp } from './tree.js';
import { dictOf, textId, textIdEpoch, textIdsOf } from '../../core/dict.js';
import { columnVec, type NumVec, type Vec } from './vectors.js';

/** The number of the null symbol's text (""). */
const textIdOfNull = (): number => textId(NULL_DICT, 0);
const NULL_DICT = dictOf(['']);

const INTEGRAL = new Set<string>(['long', 'int', 'boolean']);

/** The level a node's value lives at: per row, per cell, or a scalar. */
export function levelOf(n: Node): 'row' | 'cell' | 'scalar' {
  switch (n.k) {
    case 'lit':
      return 'scalar';
    case 'agg':
      return 'cell';
    case 'elem': {
      const levels = n.args.map(levelOf);
      return levels.includes('row') ? 'row' : levels.includes('cell') ? 'cell' : 'scalar';
    }
    default:
      return 'row';
  }
}

function describe(n: Node): string {
  switch (n.k) {
    case 'col':
      return n.name;
    case 'lit':
      return n.value !== n.value ? (n.type === 'long' ? '"0N"' : '"0n"') : String(n.value);
    case 'index':
      return 'i';
    case 'distinct':
      return `["distinct",${describe(n.arg)}]`;
    default:
      return `[${JSON.stringify(n.op)},${n.args.map(describe).join(',')}]`;
  }
}

interface Ctx {
  readonly frames: readonly Frame[];
  readonly fail: Fail;
  /** Cell-level values by subtree text (shared by the outputs of one query). */
  readonly cells: Map<string, Vec>;
  readonly columns: Map<Frame, Map<string, Vec>>;
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
  // nulls as in filters (SPEC 4): a null equals nothing, and differs from every non-null value
  '<>': (x, y) => (x !== x && y !== y ? 0 : x !== y ? 1 : 0),
  '<': (x, y) => (x < y ? 1 : 0),
  '>': (x, y) => (x > y ? 1 : 0),
  '<=': (x, y) => (x <= y ? 1 : 0),
  '>=': (x, y) => (x >= y ? 1 : 0),
};

function resultType(op: ElementwiseOp, a: string, b?: string, c?: string): ColumnType {
  if (['=', '<>', '<', '>', '<=', '>='].includes(op)) return 'boolean';
  if (op === '?') {
    // the two branches decide: integral when both are (a boolean condition does not count)
    if (b === c && b !== undefined) return b as ColumnType;
    return INTEGRAL.has(b!) && INTEGRAL.has(c!) ? 'long' : 'float';
  }
  if (op === 'floor' || op === 'ceiling' || op === 'signum') return 'long';
  const integral = INTEGRAL.has(a) && (b === undefined || INTEGRAL.has(b));
  if (integral && ['+', '-', '*', 'neg', 'abs', '&', '|'].includes(op)) return 'long';
  return 'float';
}

/** A cell-level value read for every row of a frame (each row takes its cell's value). */
function toRows(v: Vec, f: Frame, fail: Fail): Vec {
  if (v.lvl !== 'cell') return v;
  if (f.windows) fail('mixes a per-group value into rows of a moving window', 'a tree whose aggregates apply to columns, or no movingWindowSize');
  const n = f.n;
  switch (v.t) {
    case 'num':
      return { lvl: 'row', t: 'num', d: Float64Array.from({ length: n }, (_, e) => v.d[f.cell[e]!]!), type: v.type };
    case 'ts': {
      const d = new BigInt64Array(n);
      for (let e = 0; e < n; e++) d[e] = v.d[f.cell[e]!]!;
      return { lvl: 'row', t: 'ts', d, type: v.type };
    }
    case 'sym':
      return { lvl: 'row', t: 'sym', codes: Int32Array.from({ length: n }, (_, e) => v.codes[f.cell[e]!]!), dict: v.dict, type: v.type };
  }
}

type Operand = NumVec | { lvl: 'scalar'; v: number; type: 'float' };

/** The values of an operand as an array of `n` (a scalar repeated). */
const valuesOf = (v: Operand, n: number): Float64Array => (v.lvl === 'scalar' ? new Float64Array(n).fill(v.v) : v.d);

/*
 * The common binary operators as loops of their own over arrays: each loop's arithmetic is inlined
 * and its call sites stay monomorphic, where the generic loop calls an operator closure and two
 * getter closures per element (megamorphic across the trees of one query, slow until V8 settles).
 */
const add = (a: Float64Array, b: Float64Array, d: Float64Array, n: number): void => {
  for (let i = 0; i < n; i++) d[i] = a[i]! + b[i]!;
};
const sub = (a: Float64Array, b: Float64Array, d: Float64Array, n: number): void => {
  for (let i = 0; i < n; i++) d[i] = a[i]! - b[i]!;
};
const mul = (a: Float64Array, b: Float64Array, d: Float64Array, n: number): void => {
  for (let i = 0; i < n; i++) d[i] = a[i]! * b[i]!;
};
const div = (a: Float64Array, b: Float64Array, d: Float64Array, n: number): void => {
  for (let i = 0; i < n; i++) d[i] = a[i]! / b[i]!;
};
const lt = (a: Float64Array, b: Float64Array, d: Float64Array, n: number): void => {
  for (let i = 0; i < n; i++) d[i] = a[i]! < b[i]! ? 1 : 0;
};
const gt = (a: Float64Array, b: Float64Array, d: Float64Array, n: number): void => {
  for (let i = 0; i < n; i++) d[i] = a[i]! > b[i]! ? 1 : 0;
};
const le = (a: Float64Array, b: Float64Array, d: Float64Array, n: number): void => {
  for (let i = 0; i < n; i++) d[i] = a[i]! <= b[i]! ? 1 : 0;
};
const ge = (a: Float64Array, b: Float64Array, d: Float64Array, n: number): void => {
  for (let i = 0; i < n; i++) d[i] = a[i]! >= b[i]! ? 1 : 0;
};
const eq = (a: Float64Array, b: Float64Array, d: Float64Array, n: number): void => {
  for (let i = 0; i < n; i++) d[i] = a[i]! === b[i]! ? 1 : 0;
};
const FAST: Partial<Record<string, (a: Float64Array, b: Float64Array, d: Float64Array, n: number) => void>> = {
  '+': add,
  '-': sub,
  '*': mul,
  '%': div,
  '/': div,
  '<': lt,
  '>': gt,
  '<=': le,
  '>=': ge,
  '=': eq,
};

/** A binary operator by its own loop when it has one (same values as BINARY's); false otherwise. */
function binaryFast(op: string, x: Operand, y: Operand, d: Float64Array, n: number): boolean {
  const loop = FAST[op];
  if (!loop) return false;
  loop(valuesOf(x, n), valuesOf(y, n), d, n);
  return true;
}

/** An element-wise operator over values of one level (`len` values each). */
function elementwise(op: ElementwiseOp, vals: readonly Vec[], len: number, fail: Fail): Vec {
  const level = vals.some((v) => v.lvl === 'row') ? 'row' : vals.some((v) => v.lvl === 'cell') ? 'cell' : 'scalar';
  if (op === '-' && vals.length === 2 && vals[0]!.t === 'ts' && vals[1]!.t === 'ts' && level === 'cell') {
    // two timestamps of a cell: their difference, exactly, as a timespan
    const [x, y] = vals as [Extract<Vec, { t: 'ts' }>, Extract<Vec, { t: 'ts' }>];
    const d = new BigInt64Array(x.d.length).fill(-9223372036854775808n);
    for (let i = 0; i < d.length; i++) {
      if (x.d[i] !== -9223372036854775808n && y.d[i] !== -9223372036854775808n) d[i] = x.d[i]! - y.d[i]!;
    }
    return { lvl: 'cell', t: 'ts', d, type: 'timespan' };
  }
  for (const v of vals) if (v.t !== 'num') fail(`applies ${op} to a ${v.type} value`, `numbers for ${op}`);
  const nums = vals as ReadonlyArray<NumVec | { lvl: 'scalar'; v: number; type: 'float' }>;
  const get = (v: (typeof nums)[number]): ((i: number) => number) => (v.lvl === 'scalar' ? () => v.v : (i) => v.d[i]!);
  const type = resultType(op, nums[0]!.type, nums[1]?.type, nums[2]?.type);
  const n = level === 'scalar' ? 1 : len;
  const d = new Float64Array(n);
  if (nums.length === 3) {
    const [c, x, y] = nums.map(get) as [(i: number) => number, (i: number) => number, (i: number) => number];
    for (let i = 0; i < n; i++) {
      const cond = c(i);
      d[i] = cond === cond && cond !== 0 ? x(i) : y(i);
    }
  } else if (nums.length === 1) {
    const fn = UNARY[op]!;
    const x = get(nums[0]!);
    for (let i = 0; i < n; i++) d[i] = fn(x(i));
  } else if (!binaryFast(op, nums[0]!, nums[1]!, d, n)) {
    const fn = BINARY[op]!;
    const x = get(nums[0]!);
    const y = get(nums[1]!);
    for (let i = 0; i < n; i++) d[i] = fn(x(i), y(i));
  }
  if (level === 'scalar') return { lvl: 'scalar', t: 'num', v: d[0]!, type: type === 'long' ? 'long' : 'float' };
  return { lvl: level, t: 'num', d, type };
}

/**
 * The type of a running sum or a difference of a column: float stays float; booleans, ints and
 * dates count (a long, as sum and + of them are: an int would wrap past 2^31).
 */
const counted = (type: ColumnType): ColumnType => (type === 'float' ? 'float' : 'long');

/** Ordered operators within each cell of one frame, in entry (time) order. */
function ordered(op: OrderedOp, arg: Vec, f: Frame, fail: Fail): Vec {
  if (arg.lvl !== 'row' || arg.t !== 'num') return fail(`applies ${op} to a value that is not a numeric row vector`, `${op} of a numeric column or row-level tree`);
  const n = f.n;
  const prev = new Int32Array(n);
  const next = new Int32Array(n).fill(-1);
  const last = new Int32Array(f.cells).fill(-1);
  for (let e = 0; e < n; e++) {
    const c = f.cell[e]!;
    prev[e] = last[c]!;
    if (last[c]! >= 0) next[last[c]!] = e;
    last[c] = e;
  }
  const x = arg.d;
  const d = new Float64Array(n);
  switch (op) {
    case 'prev':
      for (let e = 0; e < n; e++) d[e] = prev[e]! < 0 ? NaN : x[prev[e]!]!;
      return { ...arg, d };
    case 'next':
      for (let e = 0; e < n; e++) d[e] = next[e]! < 0 ? NaN : x[next[e]!]!;
      return { ...arg, d };
    case 'deltas':
      for (let e = 0; e < n; e++) d[e] = prev[e]! < 0 ? x[e]! : x[e]! - x[prev[e]!]!;
      return { lvl: 'row', t: 'num', d, type: counted(arg.type) };
    case 'ratios':
      for (let e = 0; e < n; e++) d[e] = prev[e]! < 0 ? x[e]! : x[e]! / x[prev[e]!]!;
      return { lvl: 'row', t: 'num', d, type: 'float' };
    case 'sums':
      for (let e = 0; e < n; e++) d[e] = (prev[e]! < 0 ? 0 : d[prev[e]!]!) + (x[e] === x[e] ? x[e]! : 0);
      return { lvl: 'row', t: 'num', d, type: counted(arg.type) };
    case 'fills':
      for (let e = 0; e < n; e++) d[e] = x[e] === x[e] || prev[e]! < 0 ? x[e]! : d[prev[e]!]!;
      return { ...arg, d };
  }
}

/**
 * Rows whose value already appeared earlier in the same cell become null (for count distinct). Values
 * are numbered first (symbols by their text: equal strings under different codes are one value), then
 * each (cell, value) pair is one number in a set: no string per row.
 */
function distinct(arg: Vec, f: Frame, fail: Fail): Vec {
  if (arg.lvl !== 'row') return fail('applies distinct to a value that is already one per group', 'distinct of a column');
  const n = f.n;
  const ids = new Int32Array(n);
  let count = 0;
  switch (arg.t) {
    case 'num': {
      const id = new Map<number, number>();
      for (let e = 0; e < n; e++) {
        const v = arg.d[e]!;
        let k = id.get(v);
        if (k === undefined) id.set(v, (k = count++));
        ids[e] = v !== v ? -1 : k;
      }
      break;
    }
    case 'ts': {
      const id = new Map<bigint, number>();
      for (let e = 0; e < n; e++) {
        const v = arg.d[e]!;
        let k = id.get(v);
        if (k === undefined) id.set(v, (k = count++));
        ids[e] = v === -9223372036854775808n ? -1 : k;
      }
      break;
    }
    case 'sym': {
      // texts numbered process-wide (equal strings under different codes are one value); the null symbol is none
      for (let attempt = 0; ; attempt++) {
        const epoch = textIdEpoch();
        const empty = textIdOfNull();
        let max = -1;
        textIdsOf(arg.dict, arg.codes, n, ids);
        for (let e = 0; e < n; e++) {
          const k = ids[e]!;
          if (k === empty) ids[e] = -1;
          else if (k > max) max = k;
        }
        count = max + 1;
        // the numbering started again mid-way (its table was full): number this column afresh
        if (epoch === textIdEpoch() || attempt > 0) break;
      }
      break;
    }
  }
  const fresh = firstOfEachPair(ids, count, f.cell, n);
  switch (arg.t) {
    case 'num': {
      const d = arg.d.slice();
      for (let e = 0; e < n; e++) if (!fresh[e]) d[e] = NaN;
      return { ...arg, d };
    }
    case 'ts': {
      const d = arg.d.slice();
      for (let e = 0; e < n; e++) if (!fresh[e]) d[e] = -9223372036854775808n;
      return { ...arg, d };
    }
    case 'sym': {
      const codes = arg.codes.slice();
      for (let e = 0; e < n; e++) if (!fresh[e]) codes[e] = -1;
      return { ...arg, codes };
    }
  }
}

/**
 * 1 for the first entry of each (cell, value) pair, values numbered 0 .. count-1 (-1: null, never
 * kept). Values are renumbered densely first; each value remembers the cell it was first seen in, so a
 * value seen in one cell only (an orderID per instrument) costs one array slot; the pairs of a value
 * seen again in another cell go to a set of numbers.
 */
function firstOfEachPair(ids: Int32Array, count: number, cell: Int32Array, n: number): Uint8Array {
  const dense = new Int32Array(n);
  let used = 0;
  if (count <= 4 * n + 16) {
    const remap = new Int32Array(count).fill(-1);
    for (let e = 0; e < n; e++) {
      const k = ids[e]!;
      if (k < 0) dense[e] = -1;
      else dense[e] = remap[k]! >= 0 ? remap[k]! : (remap[k] = used++);
    }
  } else {
    const remap = new Map<number, number>();
    for (let e = 0; e < n; e++) {
      const k = ids[e]!;
      if (k < 0) {
        dense[e] = -1;
        continue;
      }
      let d = remap.get(k);
      if (d === undefined) remap.set(k, (d = used++));
      dense[e] = d;
    }
  }
  const fresh = new Uint8Array(n);
  const firstCell = new Int32Array(used).fill(-1);
  let others: Set<number> | null = null;
  for (let e = 0; e < n; e++) {
    const d = dense[e]!;
    if (d < 0) continue;
    const c = cell[e]!;
    const first = firstCell[d]!;
    if (first < 0) {
      firstCell[d] = c;
      fresh[e] = 1;
    } else if (first !== c) {
      const key = c * used + d;
      others ??= new Set<number>();
      if (!others.has(key)) {
        others.add(key);
        fresh[e] = 1;
      }
    }
  }
  return fresh;
}

/** A node's value for every row (entry) of one frame. */
function evalRow(n: Node, f: Frame, ctx: Ctx): Vec {
  switch (n.k) {
    case 'col': {
      let cache = ctx.columns.get(f);
      if (!cache) ctx.columns.set(f, (cache = new Map()));
      let v = cache.get(n.name);
      if (!v) cache.set(n.name, (v = columnVec(f.table.col(n.name), f.rows)));
      return v;
    }
    case 'lit':
      return { lvl: 'scalar', t: 'num', v: n.value, type: n.type };
    case 'index':
      return { lvl: 'row', t: 'num', d: Float64Array.from({ length: f.n }, (_, e) => (f.rows ? f.rows[e]! : e)), type: 'long' };
    case 'agg':
      return toRows(evalCell(n, ctx), f, ctx.fail);
    case 'elem': {
      // the same subtree written twice (a condition in a numerator and a denominator) is computed once
      let cache = ctx.columns.get(f);
      if (!cache) ctx.columns.set(f, (cache = new Map()));
      const key = `\u0000${describe(n)}`;
      let v = cache.get(key);
      if (!v) cache.set(key, (v = elementwise(n.op, n.args.map((a) => evalRow(a, f, ctx)), f.n, ctx.fail)));
      return v;
    }
    case 'ordered':
      return ordered(n.op, evalRow(n.args[0]!, f, ctx), f, ctx.fail);
    case 'distinct':
      return distinct(evalRow(n.arg, f, ctx), f, ctx.fail);
  }
}

/** A cell- (or scalar-) level node's value per output cell, aggregating over every frame. */
function evalCell(n: Node, ctx: Ctx): Vec {
  const key = describe(n);
  const cached = ctx.cells.get(key);
  if (cached) return cached;
  let v: Vec;
  if (n.k === 'lit') v = { lvl: 'scalar', t: 'num', v: n.value, type: n.type };
  else if (n.k === 'agg') {
    const k = kernel(n.op, ctx.frames[0]!, ctx.fail, (i) => describe(n.args[i]!));
    for (const f of ctx.frames) {
      checkpoint();
      k.add(n.args.map((a) => evalRow(a, f, ctx)), f);
    }
    v = k.finish();
  } else if (n.k === 'elem') {
    v = elementwise(n.op, n.args.map((a) => evalCell(a, ctx)), ctx.frames[0]!.out, ctx.fail);
  } else {
    throw new Error(`evalCell: ${n.k} is not a cell-level node`);
  }
  ctx.cells.set(key, v);
  return v;
}

/**
 * The value of a tree for every output cell; `frames` share the cell layout (one gathered frame, or
 * one per partition for trees that combine). `arg` and `tree` name the tree in errors.
 */
/** What the outputs of one query share: subtrees computed once, by their text. */
export interface EvalShare {
  readonly cells: Map<string, Vec>;
  readonly columns: Map<Frame, Map<string, Vec>>;
}

/** A fresh share for the outputs of one query over one set of frames. */
export const evalShare = (): EvalShare => ({ cells: new Map(), columns: new Map() });

export function evaluate(node: Node, frames: readonly Frame[], arg: string, tree: unknown, share: EvalShare = evalShare()): Vec {
  if (levelOf(node) === 'row') {
    throw argError('badValue', arg, tree, 'does not reduce to one value per group', 'a tree ending in an aggregate, such as ["last", ...] or ["sum", ...]');
  }
  const fail: Fail = (problem, expected) => {
    throw argError('columnType', arg, tree, problem, expected);
  };
  const v = evalCell(node, { frames, fail, cells: share.cells, columns: share.columns });
  const out = frames[0]!.out;
  return v.lvl === 'scalar' ? { lvl: 'cell', t: 'num', d: new Float64Array(out).fill(v.v), type: 'float' } : v;
}
