/**
 * Aggregates over cells (SPEC 5.1): first, last, min, max, sum, avg, med, count, dev, sdev, var, svar,
 * wavg, wsum. Nulls are skipped; an aggregate of no values is null, except count and sum (0). first and
 * last follow the entries' (time) order. Each aggregate reduces entries to per-cell partial states and
 * finishes them; for moving windows the states of several cells combine into one window first.
 */
import type { Table } from '../../core/table.js';
import type { AggregateOp } from './tree.js';
import { type NumVec, symNull, type TsVec, type Vec } from './vectors.js';

/** Entries to aggregate and the cells they fall in. */
export interface Frame {
  readonly table: Table;
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

const TWO32 = 4294967296;

/** Folds per-reduce-cell values into per-output-cell values (identity without windows). */
function fold(f: Frame, state: Float64Array, init: number, step: (acc: number, x: number) => number): Float64Array {
  const w = f.windows;
  if (!w) return state;
  const out = new Float64Array(f.out);
  for (let o = 0; o < f.out; o++) {
    let acc = init;
    for (let j = w.lo[o]!; j < w.hi[o]!; j++) acc = step(acc, state[w.order[j]!]!);
    out[o] = acc;
  }
  return out;
}

/** Per output cell, the entry of the first (or last) non-null value, or -1. */
function firstLastEntry(f: Frame, isNull: (e: number) => boolean, last: boolean): Int32Array {
  const idx = new Int32Array(f.cells).fill(-1);
  for (let e = 0; e < f.n; e++) {
    if (isNull(e)) continue;
    const c = f.cell[e]!;
    if (last || idx[c]! < 0) idx[c] = e;
  }
  const w = f.windows;
  if (!w) return idx;
  const out = new Int32Array(f.out).fill(-1);
  for (let o = 0; o < f.out; o++) {
    if (last) {
      for (let j = w.hi[o]! - 1; j >= w.lo[o]! && out[o]! < 0; j--) out[o] = idx[w.order[j]!]!;
    } else {
      for (let j = w.lo[o]!; j < w.hi[o]! && out[o]! < 0; j++) out[o] = idx[w.order[j]!]!;
    }
  }
  return out;
}

function pickEntries(v: Vec, entries: Int32Array): Vec {
  const n = entries.length;
  switch (v.t) {
    case 'num': {
      const d = new Float64Array(n);
      if (v.lvl !== 'scalar') for (let i = 0; i < n; i++) d[i] = entries[i]! < 0 ? NaN : v.d[entries[i]!]!;
      return { lvl: 'cell', t: 'num', d, type: v.type };
    }
    case 'ts': {
      const d = new BigInt64Array(n).fill(-9223372036854775808n);
      for (let i = 0; i < n; i++) if (entries[i]! >= 0) d[i] = v.d[entries[i]!]!;
      return { lvl: 'cell', t: 'ts', d, type: v.type };
    }
    case 'sym': {
      const codes = new Int32Array(n);
      for (let i = 0; i < n; i++) codes[i] = entries[i]! < 0 ? -1 : v.codes[entries[i]!]!;
      return { lvl: 'cell', t: 'sym', codes, dict: v.dict, type: v.type };
    }
  }
}

const isNullOf = (v: Vec): ((e: number) => boolean) => {
  if (v.t === 'num') return v.lvl === 'scalar' ? () => false : (e) => v.d[e] !== v.d[e];
  if (v.t === 'ts') {
    const w = new Int32Array(v.d.buffer, v.d.byteOffset, v.d.length * 2);
    return (e) => w[2 * e + 1] === -2147483648 && w[2 * e] === 0;
  }
  return (e) => symNull(v, v.codes[e]!);
};

/** Timestamps as float offsets from the first non-null one (exact below 2^53 ns of it). */
function tsOffsets(v: TsVec): { off: Float64Array; ref: bigint } {
  const w = new Int32Array(v.d.buffer, v.d.byteOffset, v.d.length * 2);
  const off = new Float64Array(v.d.length);
  let refHi = 0;
  let refLo = 0;
  let ref = 0n;
  let have = false;
  for (let e = 0; e < v.d.length; e++) {
    const hi = w[2 * e + 1]!;
    const lo = w[2 * e]! >>> 0;
    if (hi === -2147483648 && lo === 0) {
      off[e] = NaN;
      continue;
    }
    if (!have) {
      have = true;
      refHi = hi;
      refLo = lo;
      ref = v.d[e]!;
    }
    off[e] = (hi - refHi) * TWO32 + (lo - refLo);
  }
  return { off, ref };
}

function sumCount(f: Frame, d: Float64Array): { sum: Float64Array; cnt: Float64Array } {
  const sum = new Float64Array(f.cells);
  const cnt = new Float64Array(f.cells);
  for (let e = 0; e < f.n; e++) {
    const x = d[e]!;
    if (x !== x) continue;
    const c = f.cell[e]!;
    sum[c]! += x;
    cnt[c]! += 1;
  }
  return { sum: fold(f, sum, 0, (a, x) => a + x), cnt: fold(f, cnt, 0, (a, x) => a + x) };
}

function extreme(f: Frame, d: Float64Array, max: boolean): Float64Array {
  const m = new Float64Array(f.cells).fill(NaN);
  for (let e = 0; e < f.n; e++) {
    const x = d[e]!;
    if (x !== x) continue;
    const c = f.cell[e]!;
    const cur = m[c]!;
    if (cur !== cur || (max ? x > cur : x < cur)) m[c] = x;
  }
  const pick = (a: number, x: number): number => (x !== x ? a : a !== a ? x : max ? Math.max(a, x) : Math.min(a, x));
  return fold(f, m, NaN, pick);
}

/** Population (dev/var) or sample (sdev/svar) spread, by Welford states merged per window (Chan). */
function spread(f: Frame, d: Float64Array, op: 'dev' | 'sdev' | 'var' | 'svar'): Float64Array {
  const n = new Float64Array(f.cells);
  const mean = new Float64Array(f.cells);
  const m2 = new Float64Array(f.cells);
  for (let e = 0; e < f.n; e++) {
    const x = d[e]!;
    if (x !== x) continue;
    const c = f.cell[e]!;
    const k = ++n[c]!;
    const delta = x - mean[c]!;
    mean[c]! += delta / k;
    m2[c]! += delta * (x - mean[c]!);
  }
  const out = new Float64Array(f.out);
  const finish = (cnt: number, sq: number): number => {
    const sample = op === 'sdev' || op === 'svar';
    if (cnt === 0 || (sample && cnt < 2)) return NaN;
    const v = sq / (sample ? cnt - 1 : cnt);
    return op === 'dev' || op === 'sdev' ? Math.sqrt(v) : v;
  };
  const w = f.windows;
  for (let o = 0; o < f.out; o++) {
    if (!w) {
      out[o] = finish(n[o]!, m2[o]!);
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
    out[o] = finish(cn, cq);
  }
  return out;
}

/** Median per output cell (non-null values sorted per cell; the mean of the two middle ones when even). */
function median(f: Frame, d: Float64Array): Float64Array {
  const counts = new Int32Array(f.cells + 1);
  for (let e = 0; e < f.n; e++) if (d[e] === d[e]) counts[f.cell[e]! + 1]!++;
  for (let c = 1; c <= f.cells; c++) counts[c]! += counts[c - 1]!;
  const vals = new Float64Array(counts[f.cells]!);
  const at = counts.slice(0, f.cells);
  for (let e = 0; e < f.n; e++) if (d[e] === d[e]) vals[at[f.cell[e]!]!++] = d[e]!;
  const out = new Float64Array(f.cells);
  for (let c = 0; c < f.cells; c++) {
    const s = vals.subarray(counts[c]!, counts[c + 1]!).sort();
    const k = s.length;
    out[c] = k === 0 ? NaN : k % 2 ? s[(k - 1) >> 1]! : (s[k / 2 - 1]! + s[k / 2]!) / 2;
  }
  return out;
}

function numType(v: Vec): string {
  return v.type;
}

/** An aggregate of row-level arguments, one value per output cell. */
export function aggregate(op: AggregateOp, args: readonly Vec[], f: Frame, fail: Fail, name: (i: number) => string): Vec {
  const [a, b] = args as [Vec, Vec | undefined];
  const cell = (d: Float64Array, type: NumVec['type']): Vec => ({ lvl: 'cell', t: 'num', d, type });
  if (op === 'first' || op === 'last') return pickEntries(a, firstLastEntry(f, isNullOf(a), op === 'last'));
  if (op === 'count') {
    const isNull = isNullOf(a);
    const cnt = new Float64Array(f.cells);
    for (let e = 0; e < f.n; e++) if (!isNull(e)) cnt[f.cell[e]!]! += 1;
    return cell(fold(f, cnt, 0, (x, y) => x + y), 'long');
  }
  if (a.t === 'sym') return fail(`applies ${op} to ${name(0)} (${a.type})`, `first, last or count for a ${a.type} column`);
  if (a.t === 'ts') return timestampAggregate(op, a, f, fail, name);
  if (a.lvl === 'scalar') return fail(`applies ${op} to a literal`, 'a column or a tree over columns');
  const d = a.d;
  switch (op) {
    case 'sum': {
      const integral = a.type === 'long' || a.type === 'int' || a.type === 'boolean';
      return cell(sumCount(f, d).sum, integral ? 'long' : 'float');
    }
    case 'avg': {
      const { sum, cnt } = sumCount(f, d);
      return cell(sum.map((s, i) => (cnt[i] ? s / cnt[i]! : NaN)), 'float');
    }
    case 'min':
    case 'max':
      return cell(extreme(f, d, op === 'max'), a.type as NumVec['type']);
    case 'med':
      return cell(median(f, d), a.type === 'date' ? 'date' : 'float');
    case 'dev':
    case 'sdev':
    case 'var':
    case 'svar':
      return cell(spread(f, d, op), 'float');
    case 'wavg':
    case 'wsum': {
      if (!b || b.t !== 'num' || b.lvl === 'scalar') return fail(`applies ${op} to ${name(1)} (${b ? numType(b) : 'nothing'})`, `${op} of two numeric vectors: weights, values`);
      const sw = new Float64Array(f.cells);
      const swx = new Float64Array(f.cells);
      const seen = new Float64Array(f.cells);
      for (let e = 0; e < f.n; e++) {
        const w = d[e]!;
        const x = b.d[e]!;
        if (w !== w || x !== x) continue;
        const c = f.cell[e]!;
        sw[c]! += w;
        swx[c]! += w * x;
        seen[c]! += 1;
      }
      const add = (acc: number, x: number): number => acc + x;
      const tw = fold(f, sw, 0, add);
      const txw = fold(f, swx, 0, add);
      const ts = fold(f, seen, 0, add);
      return cell(op === 'wsum' ? txw : txw.map((v, i) => (ts[i] && tw[i] ? v / tw[i]! : NaN)), 'float');
    }
    default:
      return fail(`has an unknown aggregate ${op}`, 'an aggregate of SPEC 5.1');
  }
}

function timestampAggregate(op: AggregateOp, a: TsVec, f: Frame, fail: Fail, name: (i: number) => string): Vec {
  const { off, ref } = tsOffsets(a);
  const back = (x: Float64Array): Vec => {
    const d = new BigInt64Array(x.length).fill(-9223372036854775808n);
    for (let i = 0; i < x.length; i++) if (x[i] === x[i]) d[i] = ref + BigInt(Math.round(x[i]!));
    return { lvl: 'cell', t: 'ts', d, type: a.type };
  };
  switch (op) {
    case 'min':
    case 'max': {
      // the entry holding the extreme, so the value comes back exactly
      const best = new Int32Array(f.cells).fill(-1);
      for (let e = 0; e < f.n; e++) {
        const x = off[e]!;
        if (x !== x) continue;
        const c = f.cell[e]!;
        const cur = best[c]!;
        if (cur < 0 || (op === 'max' ? x > off[cur]! : x < off[cur]!)) best[c] = e;
      }
      const w = f.windows;
      if (!w) return pickEntries(a, best);
      const out = new Int32Array(f.out).fill(-1);
      for (let o = 0; o < f.out; o++) {
        for (let j = w.lo[o]!; j < w.hi[o]!; j++) {
          const e = best[w.order[j]!]!;
          if (e >= 0 && (out[o]! < 0 || (op === 'max' ? off[e]! > off[out[o]!]! : off[e]! < off[out[o]!]!))) out[o] = e;
        }
      }
      return pickEntries(a, out);
    }
    case 'avg': {
      const { sum, cnt } = sumCount(f, off);
      return back(sum.map((s, i) => (cnt[i] ? s / cnt[i]! : NaN)));
    }
    case 'med':
      return back(median(f, off));
    default:
      return fail(`applies ${op} to ${name(0)} (${a.type})`, `first, last, min, max, avg, med or count for a ${a.type} column`);
  }
}
