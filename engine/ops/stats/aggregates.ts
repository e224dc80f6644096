/**
 * Aggregates over cells (SPEC 5.1): first, last, min, max, sum, avg, med, count, dev, sdev, var, svar,
 * wavg, wsum. Nulls are skipped; an aggregate of no values is null, except count and sum (0). first and
 * last follow the entries' (time) order.
 *
 * A kernel accumulates per-cell state over one or more frames (partitions, read in date order), then
 * finishes it; for moving windows the states of several cells combine into one window first.
 */
import { int32Pairs } from '../../core/column.js';
import type { AggregateOp } from './tree.js';
import { type NumVec, symNull, type SymVec, type TsVec, type Vec } from './vectors.js';
import { type Dict, dictOf } from '../../core/dict.js';

/** Where columns come from: a table, or a stored partition read in place. */
export interface ColumnTable {
  col(name: string): import('../../core/column.js').Column;
}

/** Entries to aggregate and the cells they fall in. */
export interface Frame {
  readonly table: ColumnTable;
  /** entry -> table row; undefined when entries are the table's rows in order. */
  readonly rows?: Int32Array;
  readonly n: number;
  /** entry -> reduce cell */
  readonly cell: Int32Array;
  readonly cells: number;
  /** Output cells: `cells` itself, or one per window when `windows` is given. */
  readonly out: number;
  /** Moving windows: output cell o combines reduce cells order[lo[o] .. hi[o]). */
  readonly windows?: { readonly order: Int32Array; readonly lo: Int32Array; readonly hi: Int32Array };
}

export type Fail = (problem: string, expected: string) => never;

export interface Kernel {
  add(args: readonly Vec[], f: Frame): void;
  finish(): Vec;
}

type Windows = Frame['windows'];
const TWO32 = 4294967296;
const NULL_TS = -9223372036854775808n;

/** Folds per-reduce-cell values into per-output-cell values (identity without windows). */
function fold(w: Windows, out: number, state: Float64Array, init: number, step: (acc: number, x: number) => number): Float64Array {
  if (!w) return state;
  const res = new Float64Array(out);
  for (let o = 0; o < out; o++) {
    let acc = init;
    for (let j = w.lo[o]!; j < w.hi[o]!; j++) acc = step(acc, state[w.order[j]!]!);
    res[o] = acc;
  }
  return res;
}

const add = (a: number, x: number): number => a + x;
const cellNum = (d: Float64Array, type: NumVec['type']): Vec => ({ lvl: 'cell', t: 'num', d, type });

/** Per output cell, the reduce cell holding the first (or last) value within its window, or -1. */
function pickCell(w: Windows, out: number, has: (c: number) => boolean, last: boolean): Int32Array {
  const res = new Int32Array(out).fill(-1);
  for (let o = 0; o < out; o++) {
    if (!w) {
      res[o] = has(o) ? o : -1;
      continue;
    }
    if (last) for (let j = w.hi[o]! - 1; j >= w.lo[o]! && res[o]! < 0; j--) res[o] = has(w.order[j]!) ? w.order[j]! : -1;
    else for (let j = w.lo[o]!; j < w.hi[o]! && res[o]! < 0; j++) res[o] = has(w.order[j]!) ? w.order[j]! : -1;
  }
  return res;
}

/** A timestamp column's int64 words; null test per entry. */
function words(v: TsVec): Int32Array {
  return int32Pairs(v.d);
}

function lastNumbers(d: Float64Array, cell: Int32Array, n: number, num: Float64Array, has: Uint8Array): void {
  for (let e = 0; e < n; e++) {
    const x = d[e]!;
    if (x !== x) continue;
    const c = cell[e]!;
    num[c] = x;
    has[c] = 1;
  }
}

function firstNumbers(d: Float64Array, cell: Int32Array, n: number, num: Float64Array, has: Uint8Array): void {
  for (let e = 0; e < n; e++) {
    const c = cell[e]!;
    if (has[c]) continue;
    const x = d[e]!;
    if (x !== x) continue;
    num[c] = x;
    has[c] = 1;
  }
}

/** first/last of any type: the value of the first (or last) non-null entry of each cell. */
function firstLast(cells: number, out: number, w: Windows, last: boolean): Kernel {
  let kind: 'num' | 'ts' | 'sym' | undefined;
  let type: Vec['type'] = 'float';
  const has = new Uint8Array(cells);
  const num = new Float64Array(cells);
  const tsw = new Int32Array(2 * cells);
  const code = new Int32Array(cells).fill(-1);
  const dicts: Array<Dict | undefined> = new Array(cells);
  return {
    add([a], f) {
      if (!a || a.lvl === 'scalar') throw new Error('first/last of a literal');
      kind ??= a.t;
      type = a.type;
      const fn = f.n;
      const cell = f.cell;
      if (a.t === 'num') {
        if (last) lastNumbers(a.d, cell, fn, num, has);
        else firstNumbers(a.d, cell, fn, num, has);
      } else if (a.t === 'ts') {
        const ww = words(a);
        for (let e = 0; e < fn; e++) {
          const c = cell[e]!;
          if (!last && has[c]) continue;
          if (ww[2 * e + 1] === -2147483648 && ww[2 * e] === 0) continue;
          tsw[2 * c] = ww[2 * e]!;
          tsw[2 * c + 1] = ww[2 * e + 1]!;
          has[c] = 1;
        }
      } else {
        for (let e = 0; e < fn; e++) {
          const c = cell[e]!;
          if (!last && has[c]) continue;
          if (symNull(a, a.codes[e]!)) continue;
          code[c] = a.codes[e]!;
          dicts[c] = a.dict;
          has[c] = 1;
        }
      }
    },
    finish() {
      const pick = pickCell(w, out, (c) => has[c] === 1, last);
      if (kind === 'ts') {
        const d = new BigInt64Array(out).fill(NULL_TS);
        const dw = int32Pairs(d);
        pick.forEach((c, o) => {
          if (c < 0) return;
          dw[2 * o] = tsw[2 * c]!;
          dw[2 * o + 1] = tsw[2 * c + 1]!;
        });
        return { lvl: 'cell', t: 'ts', d, type: type as TsVec['type'] };
      }
      if (kind === 'sym') {
        // one dictionary for the result: the strings picked
        const dict: string[] = [''];
        const codes = Int32Array.from(pick, (c) => {
          if (c < 0) return 0;
          dict.push(dicts[c]!.get(code[c]!));
          return dict.length - 1;
        });
        return { lvl: 'cell', t: 'sym', codes, dict: dictOf(dict), type: type as SymVec['type'] };
      }
      return cellNum(Float64Array.from(pick, (c) => (c < 0 ? NaN : num[c]!)), type as NumVec['type']);
    },
  };
}

function counts(d: Float64Array, cell: Int32Array, n: number, cnt: Float64Array): void {
  let c = -1;
  let k = 0;
  for (let e = 0; e < n; e++) {
    if (d[e] !== d[e]) continue;
    const ce = cell[e]!;
    if (ce !== c) {
      if (c >= 0) cnt[c] = k;
      c = ce;
      k = cnt[c]!;
    }
    k++;
  }
  if (c >= 0) cnt[c] = k;
}

/** count of non-null values. */
function countKernel(cells: number, out: number, w: Windows): Kernel {
  const cnt = new Float64Array(cells);
  return {
    add([a], f) {
      const fn = f.n;
      if (!a) return;
      if (a.lvl === 'scalar') {
        for (let e = 0; e < fn; e++) cnt[f.cell[e]!]! += 1;
        return;
      }
      if (a.t === 'num') {
        counts(a.d, f.cell, fn, cnt);
      } else if (a.t === 'ts') {
        const ww = words(a);
        for (let e = 0; e < fn; e++) if (!(ww[2 * e + 1] === -2147483648 && ww[2 * e] === 0)) cnt[f.cell[e]!]! += 1;
      } else {
        for (let e = 0; e < fn; e++) if (!symNull(a, a.codes[e]!)) cnt[f.cell[e]!]! += 1;
      }
    },
    finish: () => cellNum(fold(w, out, cnt, 0, add), 'long'),
  };
}

/**
 * Numbers and timestamps through one state: timestamps become float offsets from the first one seen
 * (exact below 2^53 ns of it), then come back as int64 at the end.
 */
class Offsets {
  private refHi = 0;
  private refLo = 0;
  ref: bigint | undefined;

  /** The numbers of a numeric vector, or the offsets of a timestamp vector. */
  values(a: NumVec | TsVec): Float64Array {
    if (a.t === 'num') return a.d;
    const ww = words(a);
    const off = new Float64Array(a.d.length);
    for (let e = 0; e < a.d.length; e++) {
      const hi = ww[2 * e + 1]!;
      const lo = ww[2 * e]! >>> 0;
      if (hi === -2147483648 && lo === 0) {
        off[e] = NaN;
        continue;
      }
      if (this.ref === undefined) {
        this.ref = a.d[e]!;
        this.refHi = hi;
        this.refLo = lo;
      }
      off[e] = (hi - this.refHi) * TWO32 + (lo - this.refLo);
    }
    return off;
  }

  /** Offsets back to timestamps (nearest nanosecond). */
  back(x: Float64Array, type: TsVec['type']): Vec {
    const d = new BigInt64Array(x.length).fill(NULL_TS);
    for (let i = 0; i < x.length; i++) if (x[i] === x[i]) d[i] = this.ref! + BigInt(Math.round(x[i]!));
    return { lvl: 'cell', t: 'ts', d, type };
  }
}

function numeric(op: AggregateOp, a: Vec | undefined, fail: Fail, name: string, allowTs: boolean): NumVec | TsVec {
  if (!a || a.lvl === 'scalar') return fail(`applies ${op} to a literal`, 'a column or a tree over columns');
  if (a.t === 'sym') return fail(`applies ${op} to ${name} (${a.type})`, `first, last or count for a ${a.type} column`);
  if (a.t === 'ts' && !allowTs) return fail(`applies ${op} to ${name} (${a.type})`, `first, last, min, max, avg, med or count for a ${a.type} column`);
  return a;
}

/*
 * The loops below keep the running state of the current cell in locals and store it when the cell
 * changes: consecutive entries mostly share a cell (rows come one identifier at a time), so the adds
 * chain through registers instead of memory. The order of operations, hence every result bit, is
 * that of adding entry by entry.
 */

function sums(d: Float64Array, cell: Int32Array, n: number, acc: Float64Array, cnt: Float64Array): void {
  let c = -1;
  let s = 0;
  let k = 0;
  for (let e = 0; e < n; e++) {
    const x = d[e]!;
    if (x !== x) continue;
    const ce = cell[e]!;
    if (ce !== c) {
      if (c >= 0) {
        acc[c] = s;
        cnt[c] = k;
      }
      c = ce;
      s = acc[c]!;
      k = cnt[c]!;
    }
    s += x;
    k++;
  }
  if (c >= 0) {
    acc[c] = s;
    cnt[c] = k;
  }
}

function extremes(d: Float64Array, cell: Int32Array, n: number, acc: Float64Array, max: boolean): void {
  let c = -1;
  let cur = NaN;
  for (let e = 0; e < n; e++) {
    const x = d[e]!;
    if (x !== x) continue;
    const ce = cell[e]!;
    if (ce !== c) {
      if (c >= 0) acc[c] = cur;
      c = ce;
      cur = acc[c]!;
    }
    if (cur !== cur || (max ? x > cur : x < cur)) cur = x;
  }
  if (c >= 0) acc[c] = cur;
}

/** sum, avg, min, max over numbers (and timestamps for avg, min, max). */
function arithmetic(op: 'sum' | 'avg' | 'min' | 'max', cells: number, out: number, w: Windows, fail: Fail, name: string): Kernel {
  const acc = new Float64Array(cells).fill(op === 'min' || op === 'max' ? NaN : 0);
  const cnt = new Float64Array(cells);
  const offsets = new Offsets();
  let type: Vec['type'] = 'float';
  let ts = false;
  const max = op === 'max';
  return {
    add([raw], f) {
      const a = numeric(op, raw, fail, name, op !== 'sum');
      type = a.type;
      ts = a.t === 'ts';
      const d = offsets.values(a);
      if (op === 'min' || op === 'max') extremes(d, f.cell, f.n, acc, max);
      else sums(d, f.cell, f.n, acc, cnt);
    },
    finish() {
      if (op === 'min' || op === 'max') {
        const pickExt = (a: number, x: number): number => (x !== x ? a : a !== a ? x : max ? Math.max(a, x) : Math.min(a, x));
        const v = fold(w, out, acc, NaN, pickExt);
        return ts ? offsets.back(v, type as TsVec['type']) : cellNum(v, type as NumVec['type']);
      }
      const s = fold(w, out, acc, 0, add);
      if (op === 'sum') return cellNum(s, type === 'long' || type === 'int' || type === 'boolean' ? 'long' : 'float');
      const n = fold(w, out, cnt, 0, add);
      const avg = s.map((v, i) => (n[i] ? v / n[i]! : NaN));
      return ts ? offsets.back(avg, type as TsVec['type']) : cellNum(avg, 'float');
    },
  };
}

function welford(d: Float64Array, cell: Int32Array, count: number, n: Float64Array, mean: Float64Array, m2: Float64Array): void {
  for (let e = 0; e < count; e++) {
    const x = d[e]!;
    if (x !== x) continue;
    const c = cell[e]!;
    const k = ++n[c]!;
    const delta = x - mean[c]!;
    mean[c]! += delta / k;
    m2[c]! += delta * (x - mean[c]!);
  }
}

/** Population (dev/var) or sample (sdev/svar) spread: Welford states, merged per window (Chan). */
function spread(op: 'dev' | 'sdev' | 'var' | 'svar', cells: number, out: number, w: Windows, fail: Fail, name: string): Kernel {
  const n = new Float64Array(cells);
  const mean = new Float64Array(cells);
  const m2 = new Float64Array(cells);
  const finishOne = (cnt: number, sq: number): number => {
    const sample = op === 'sdev' || op === 'svar';
    if (cnt === 0 || (sample && cnt < 2)) return NaN;
    const v = sq / (sample ? cnt - 1 : cnt);
    return op === 'dev' || op === 'sdev' ? Math.sqrt(v) : v;
  };
  return {
    add([raw], f) {
      const a = numeric(op, raw, fail, name, false) as NumVec;
      welford(a.d, f.cell, f.n, n, mean, m2);
    },
    finish() {
      const res = new Float64Array(out);
      for (let o = 0; o < out; o++) {
        if (!w) {
          res[o] = finishOne(n[o]!, m2[o]!);
          continue;
        }
        let cn = 0;
        let cm = 0;
        let cq = 0;
        for (let j = w.lo[o]!; j < w.hi[o]!; j++) {
          const c = w.order[j]!;
          const nb = n[c]!;
          if (nb === 0) continue;
          const tot = cn + nb;
          const delta = mean[c]! - cm;
          cm += (delta * nb) / tot;
          cq += m2[c]! + (delta * delta * cn * nb) / tot;
          cn = tot;
        }
        res[o] = finishOne(cn, cq);
      }
      return cellNum(res, 'float');
    },
  };
}

function weightedSums(wd: Float64Array, xd: Float64Array, cell: Int32Array, n: number, sw: Float64Array, swx: Float64Array, seen: Float64Array): void {
  let c = -1;
  let a = 0;
  let b = 0;
  let k = 0;
  for (let e = 0; e < n; e++) {
    const wt = wd[e]!;
    const x = xd[e]!;
    if (wt !== wt || x !== x) continue;
    const ce = cell[e]!;
    if (ce !== c) {
      if (c >= 0) {
        sw[c] = a;
        swx[c] = b;
        seen[c] = k;
      }
      c = ce;
      a = sw[c]!;
      b = swx[c]!;
      k = seen[c]!;
    }
    a += wt;
    b += wt * x;
    k++;
  }
  if (c >= 0) {
    sw[c] = a;
    swx[c] = b;
    seen[c] = k;
  }
}

/** wavg (weights, values) and wsum over rows where both are non-null. */
function weighted(op: 'wavg' | 'wsum', cells: number, out: number, w: Windows, fail: Fail, names: [string, string]): Kernel {
  const sw = new Float64Array(cells);
  const swx = new Float64Array(cells);
  const seen = new Float64Array(cells);
  return {
    add([rw, rx], f) {
      const wv = numeric(op, rw, fail, names[0], false) as NumVec;
      const xv = numeric(op, rx, fail, names[1], false) as NumVec;
      weightedSums(wv.d, xv.d, f.cell, f.n, sw, swx, seen);
    },
    finish() {
      const tw = fold(w, out, sw, 0, add);
      const txw = fold(w, out, swx, 0, add);
      if (op === 'wsum') return cellNum(txw, 'float');
      const ts = fold(w, out, seen, 0, add);
      return cellNum(txw.map((v, i) => (ts[i] && tw[i] ? v / tw[i]! : NaN)), 'float');
    },
  };
}

/** Median per cell (non-null values sorted; the mean of the two middle ones when even). */
function medianKernel(cells: number, out: number, fail: Fail, name: string): Kernel {
  const values: number[][] = Array.from({ length: cells }, () => []);
  const offsets = new Offsets();
  let type: Vec['type'] = 'float';
  let ts = false;
  return {
    add([raw], f) {
      const fn = f.n;
      const a = numeric('med', raw, fail, name, true);
      type = a.type;
      ts = a.t === 'ts';
      const d = offsets.values(a);
      for (let e = 0; e < fn; e++) if (d[e] === d[e]) values[f.cell[e]!]!.push(d[e]!);
    },
    finish() {
      const res = new Float64Array(out);
      for (let c = 0; c < out; c++) {
        const s = Float64Array.from(values[c]!).sort();
        const k = s.length;
        res[c] = k === 0 ? NaN : k % 2 ? s[(k - 1) >> 1]! : (s[k / 2 - 1]! + s[k / 2]!) / 2;
      }
      if (ts) return offsets.back(res, type as TsVec['type']);
      return cellNum(res, type === 'date' ? 'date' : 'float');
    },
  };
}

/** A kernel for an aggregate over the frames' cells. */
export function kernel(op: AggregateOp, f: Pick<Frame, 'cells' | 'out' | 'windows'>, fail: Fail, name: (i: number) => string): Kernel {
  const { cells, out, windows: w } = f;
  switch (op) {
    case 'first':
    case 'last':
      return firstLast(cells, out, w, op === 'last');
    case 'count':
      return countKernel(cells, out, w);
    case 'sum':
    case 'avg':
    case 'min':
    case 'max':
      return arithmetic(op, cells, out, w, fail, name(0));
    case 'med':
      return medianKernel(cells, out, fail, name(0));
    case 'dev':
    case 'sdev':
    case 'var':
    case 'svar':
      return spread(op, cells, out, w, fail, name(0));
    case 'wavg':
    case 'wsum':
      return weighted(op, cells, out, w, fail, [name(0), name(1)]);
  }
}
