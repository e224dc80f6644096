/**
 * Cells of a result, read the same way from both engines for the value check (never timed), and the
 * check itself.
 *
 * A cell is null, a number (float), a bigint (int64 values, timestamps as nanoseconds), a string or a
 * boolean. Rules of equality:
 * - timestamps and integers: exact, as int64 (a Tickscope long held as a float64 is exact up to 2^53);
 * - floats: relative tolerance FLOAT_TOLERANCE (aggregates are summed in a different order);
 *   an integer compared with a float (an aggregate typed differently by the two engines) uses the
 *   float rule;
 * - symbols and strings: as strings; Tickscope's null symbol "" and SQL NULL are the same null;
 * - null equals null only (Tickscope's float null is NaN, its long null NaN or INT64_MIN, its int null
 *   INT32_MIN, its timestamp null INT64_MIN).
 */
import type { Column } from '../engine/core/column.js';
import { symbolText } from '../engine/core/column.js';
import type { Table } from '../engine/core/table.js';

export type Cell = null | number | bigint | string | boolean;
export type CellKind = 'time' | 'int' | 'float' | 'text' | 'bool' | 'other';

/** Relative tolerance for floats: |a - b| <= FLOAT_TOLERANCE * max(|a|, |b|). */
export const FLOAT_TOLERANCE = 1e-9;

export interface CellColumn {
  readonly name: string;
  readonly kind: CellKind;
  readonly length: number;
  cell(row: number): Cell;
}

const INT64_MIN = -9223372036854775808n;
const INT32_MIN = -2147483648;

/** Reads an integer column whatever its representation (Float64Array with NaN nulls, BigInt64Array, Int32Array). */
function intCells(data: ArrayLike<number | bigint>): (i: number) => Cell {
  if (data instanceof BigInt64Array) return (i) => (data[i] === INT64_MIN ? null : data[i]!);
  if (data instanceof Int32Array) return (i) => (data[i] === INT32_MIN ? null : BigInt(data[i]!));
  if (data instanceof Float64Array) {
    return (i) => {
      const v = data[i]!;
      if (v !== v) return null;
      return Number.isInteger(v) ? BigInt(v) : v;
    };
  }
  throw new Error(`bench: integer column held as ${Object.prototype.toString.call(data)}`);
}

/** The cells of one Tickscope column. */
export function tickscopeCells(name: string, c: Column, length: number): CellColumn {
  const col = (kind: CellKind, cell: (i: number) => Cell): CellColumn => ({ name, kind, length, cell });
  switch (c.type) {
    case 'timestamp':
    case 'timespan':
      return col('time', intCells(c.data as ArrayLike<bigint>));
    case 'long':
    case 'int':
      return col('int', intCells(c.data as ArrayLike<number | bigint>));
    case 'date': {
      const d = c.data as ArrayLike<number>;
      return col('int', (i) => (d[i] === INT32_MIN ? null : BigInt(d[i]!)));
    }
    case 'float': {
      const d = c.data as ArrayLike<number>;
      return col('float', (i) => (d[i]! !== d[i]! ? null : d[i]!));
    }
    case 'boolean':
      return col('bool', (i) => c.data[i] !== 0);
    case 'symbol':
      return col('text', (i) => {
        const s = symbolText(c, i);
        return s === '' ? null : s;
      });
    case 'string':
      return col('text', (i) => (c.values[i] === '' ? null : c.values[i]!));
    default: {
      const unknown = c as { type: string };
      return col('other', () => {
        throw new Error(`bench: cannot compare a ${unknown.type} column (${name})`);
      });
    }
  }
}

/** Every column of a Tickscope result table. */
export function tableCells(t: Table): CellColumn[] {
  return t.names.map((n, i) => tickscopeCells(n, t.columns[i]!, t.length));
}

function compareCells(a: Cell, b: Cell): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'string' || typeof b === 'string') {
    const x = String(a);
    const y = String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Row order for the check. The results are ordered by `keys` (column positions); rows with equal keys
 * (two trades of one instrument with the same timestamp) may legitimately come in either order from
 * DuckDB, whose sorts are not stable, so each run of rows with equal keys is put in a canonical order
 * (sorted by every column). Both sides go through this, so the key order itself is still checked
 * row by row.
 */
function canonicalOrder(cols: readonly CellColumn[], keys: readonly number[], n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (keys.length === 0) return order;
  const keyCols = keys.map((k) => cols[k]!);
  const sameKeys = (a: number, b: number): boolean => keyCols.every((c) => compareCells(c.cell(a), c.cell(b)) === 0);
  const byAll = (a: number, b: number): number => {
    for (const c of cols) {
      const d = compareCells(c.cell(a), c.cell(b));
      if (d !== 0) return d;
    }
    return 0;
  };
  let start = 0;
  for (let i = 1; i <= n; i++) {
    if (i < n && sameKeys(i - 1, i)) continue;
    if (i - start > 1) {
      const run = Array.from(order.subarray(start, i)).sort(byAll);
      order.set(run, start);
    }
    start = i;
  }
  return order;
}

/** Floats equal within the relative tolerance, or within `absolute` where a column has one. */
function floatEqual(x: number, y: number, absolute: number): boolean {
  if (x === y) return true;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  const d = Math.abs(x - y);
  return d <= FLOAT_TOLERANCE * Math.max(Math.abs(x), Math.abs(y)) || d <= absolute;
}

function cellsEqual(a: Cell, b: Cell, floats: boolean, absolute: number): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a === 'number' || typeof b === 'number' || floats) {
    if ((typeof a !== 'number' && typeof a !== 'bigint') || (typeof b !== 'number' && typeof b !== 'bigint')) return false;
    return floatEqual(Number(a), Number(b), absolute);
  }
  return a === b;
}

function show(v: Cell, kind: CellKind): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v !== 'bigint') return String(v);
  if (kind !== 'time') return `${v}n`;
  const ns = ((v % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
  const iso = new Date(Number((v - ns) / 1_000_000n)).toISOString().slice(0, 19);
  return `${v}n (${iso}.${String(ns).padStart(9, '0')}Z)`;
}

export interface Mismatch {
  readonly column: string;
  readonly row: number;
  readonly ours: string;
  readonly duck: string;
}

export class ValueMismatch extends Error {
  constructor(
    readonly caseId: string,
    message: string,
    readonly mismatches: readonly Mismatch[] = [],
  ) {
    super(message);
  }
}

/**
 * Compares Tickscope's result with DuckDB's cell by cell, columns matched by position. Throws a
 * ValueMismatch naming the case, column, row and both values (up to 5 examples per column and the
 * count of differing cells). `absolute`: columns (by Tickscope's name) whose floats may also differ by
 * up to that much (a case states why), besides the relative FLOAT_TOLERANCE.
 */
export function checkValues(
  caseId: string,
  ours: readonly CellColumn[],
  duck: readonly CellColumn[],
  orderKeys: readonly number[],
  absolute: Readonly<Record<string, number>> = {},
): void {
  const n = ours[0]?.length ?? 0;
  const m = duck[0]?.length ?? 0;
  if (ours.length !== duck.length) {
    throw new ValueMismatch(
      caseId,
      `${caseId}: Tickscope returned ${ours.length} columns (${ours.map((c) => c.name).join(', ')}), DuckDB ${duck.length} (${duck.map((c) => c.name).join(', ')})`,
    );
  }
  if (n !== m) throw new ValueMismatch(caseId, `${caseId}: Tickscope returned ${n} rows, DuckDB ${m}`);
  const oOrder = canonicalOrder(ours, orderKeys, n);
  const dOrder = canonicalOrder(duck, orderKeys, n);
  const found: Mismatch[] = [];
  const lines: string[] = [];
  for (let c = 0; c < ours.length; c++) {
    const o = ours[c]!;
    const d = duck[c]!;
    const floats = o.kind === 'float' || d.kind === 'float';
    const abs = absolute[o.name] ?? 0;
    let count = 0;
    let worstAbs = 0;
    let worstRel = 0;
    for (let r = 0; r < n; r++) {
      const a = o.cell(oOrder[r]!);
      const b = d.cell(dOrder[r]!);
      if (cellsEqual(a, b, floats, abs)) continue;
      if (count < 5) found.push({ column: o.name, row: r, ours: show(a, o.kind), duck: show(b, d.kind) });
      count++;
      if (floats && a !== null && b !== null && typeof a !== 'string' && typeof b !== 'string' && typeof a !== 'boolean' && typeof b !== 'boolean') {
        const x = Number(a);
        const y = Number(b);
        worstAbs = Math.max(worstAbs, Math.abs(x - y));
        worstRel = Math.max(worstRel, Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y)));
      }
    }
    if (count > 0) {
      const label = o.name === d.name ? o.name : `${o.name} (DuckDB ${d.name})`;
      const examples = found.filter((f) => f.column === o.name).map((f) => `row ${f.row}: tickscope ${f.ours}, duckdb ${f.duck}`);
      const worst = worstAbs > 0 ? ` (largest difference ${worstAbs.toExponential(2)}, relative ${worstRel.toExponential(2)})` : '';
      lines.push(`  column ${label}: ${count} of ${n} cells differ${worst}; ${examples.join('; ')}`);
    }
  }
  if (lines.length > 0) {
    throw new ValueMismatch(caseId, `${caseId}: VALUES DIFFER (rows in result order${orderKeys.length ? ', ties on the order keys canonicalised' : ''}):\n${lines.join('\n')}`, found);
  }
}
