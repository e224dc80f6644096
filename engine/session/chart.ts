/**
 * Chart series for the tick chart: one point per tick keyed by its result row, so ticks sharing a
 * second or a nanosecond all appear. Past `maxPoints` consecutive ticks are conflated into first,
 * min, max and last of each group (the line keeps its envelope) and each kept point carries the
 * volume of the ticks it stands for.
 */
import { RecordBatch, Schema, Table, tableFromArrays, tableToIPC } from 'apache-arrow';
import type { ChartRequest } from '../contract.js';
import type { Column } from '../core/column.js';
import { codesOf, floats, int32Pairs } from '../core/column.js';
import { argError } from '../core/errors.js';
import type { QueryResult } from '../core/result.js';

function numeric(r: QueryResult, arg: string, name: string): Float64Array {
  const c: Column | undefined = r.table.get(name);
  if (!c || (c.type !== 'float' && c.type !== 'long' && c.type !== 'int')) {
    const numericNames = r.table.defs.filter((d) => ['float', 'long', 'int'].includes(d.type)).map((d) => d.name);
    throw argError('badRequest', arg, name, 'is not a numeric column of the result', `one of ${numericNames.join(', ') || '(none)'}`);
  }
  return floats(c);
}

/** Rows of the result to plot: those of one identifier, or all. */
function rowsOf(r: QueryResult, id: string | undefined): Int32Array {
  const n = r.table.length;
  const c = id === undefined ? undefined : r.table.get(r.idColumn);
  if (!c || c.type !== 'symbol') return Int32Array.from({ length: n }, (_, i) => i);
  const match = codesOf(c.dict, new Set([id!]));
  const out = new Int32Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) if (match[c.codes[i]!]) out[k++] = i;
  return out.subarray(0, k);
}

/** Indices (into `rows`) kept after conflating to about maxPoints: first/min/max/last per group. */
function conflate(rows: Int32Array, value: Float64Array, maxPoints: number): Int32Array {
  const groups = Math.max(1, Math.floor(maxPoints / 4));
  const size = Math.ceil(rows.length / groups);
  const keep: number[] = [];
  for (let g = 0; g < rows.length; g += size) {
    const end = Math.min(rows.length, g + size);
    let lo = g;
    let hi = g;
    for (let k = g; k < end; k++) {
      const v = value[rows[k]!]!;
      if (v < value[rows[lo]!]! || value[rows[lo]!] !== value[rows[lo]!]) lo = k;
      if (v > value[rows[hi]!]! || value[rows[hi]!] !== value[rows[hi]!]) hi = k;
    }
    for (const k of [...new Set([g, lo, hi, end - 1])].sort((a, b) => a - b)) keep.push(k);
  }
  return Int32Array.from(keep);
}

/** Builds the Arrow IPC bytes of a chart series. */
export function chartSeries(r: QueryResult, req: ChartRequest): Uint8Array {
  const value = numeric(r, 'valueColumn', req.valueColumn);
  const volume = req.volumeColumn ? numeric(r, 'volumeColumn', req.volumeColumn) : undefined;
  if (!r.timeColumn) throw argError('badRequest', 'chart', r.tableName, 'has no time column', 'a time-series result');
  const time = r.table.get(r.timeColumn);
  if (!time || time.type !== 'timestamp') throw argError('badRequest', 'chart', r.timeColumn, 'is not in the result', 'the time column');
  const rows = rowsOf(r, req.id);
  const maxPoints = Math.max(16, Math.floor(req.maxPoints));
  const conflated = rows.length > maxPoints;
  const kept = conflated ? conflate(rows, value, maxPoints) : Int32Array.from({ length: rows.length }, (_, i) => i);
  const n = kept.length;
  const seq = new Int32Array(n);
  const ts = new BigInt64Array(n);
  const tsw = int32Pairs(ts);
  const src = int32Pairs(time.data);
  const val = new Float64Array(n);
  const vol = new Float64Array(n);
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const k = kept[i]!;
    const row = rows[k]!;
    seq[i] = row;
    tsw[2 * i] = src[2 * row]!;
    tsw[2 * i + 1] = src[2 * row + 1]!;
    val[i] = value[row]!;
    if (volume) {
      let sum = 0;
      for (let j = prev + 1; j <= k; j++) {
        const v = volume[rows[j]!]!;
        if (v === v) sum += v;
      }
      vol[i] = sum;
    }
    prev = k;
  }
  const base = tableFromArrays({ seq, ts, value: val, volume: vol });
  const schema = new Schema(
    base.schema.fields,
    new Map([
      ['total', String(rows.length)],
      ['conflated', String(conflated)],
    ]),
  );
  const table = new Table(schema, base.batches.map((b) => new RecordBatch(schema, b.data)));
  return tableToIPC(table, 'stream');
}
