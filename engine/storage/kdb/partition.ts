/**
 * One partition of a kdb+ table (a splayed table folder: `2015.01.07/trade/`), or a splayed table at
 * the root read whole, as a RowSource (storage/row-source.ts), its files read in place:
 *
 * - `column`: a column file read whole through openColumn (files opened once per partition, columns
 *   kept once read); the virtual `date` column synthesised (one value repeated; a timestamp at
 *   midnight where it is the table's time column); a time-of-day time column read as a timestamp
 *   (the partition's date plus the time of day: the database's zone is UTC, source.ts); a column the
 *   partition lacks reads as nulls of the table's type.
 * - `narrow`: columns read only in the given row ranges (a compressed file decompresses only the
 *   blocks holding them), placed at their rows in a column of the partition's length, which is kept
 *   and filled further by later narrow reads (rows not read yet hold zeros).
 * - `idRanges`: the identifier column's `p#` runs, or, without `p#`, its runs where the rows are
 *   grouped by identifier; each run checked once to be in time order (the time column read run by
 *   run). A partition whose rows are not grouped by identifier, or with a run out of time order, is
 *   presented in storage order through a row index (prepare.ts, as memory-source.ts does): every
 *   column read whole once, so no unsorted run is ever binary-searched.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Column, type ColumnType, int32Pairs, nullColumn, type SymbolColumn } from '../../core/column.js';
import { TickscopeError } from '../../core/errors.js';
import { Table } from '../../core/table.js';
import { resultBytes } from '../../core/result-limits.js';
import { NS_PER_DAY } from '../../core/time.js';
import { prepareForStorage, timeOrder } from '../prepare.js';
import type { RowSource } from '../row-source.js';
import { columnOf, type TableSchema } from '../schema.js';
import { type KdbColumnFile, openColumn } from './column.js';
import type { Domains } from './domain.js';
import { badFile, type KdbReadOptions } from './io.js';
import { wallToInstants } from '../../core/wall-clock.js';

/** How a table's columns map onto its files (source.ts decides it from the newest partition, as q does). */
export interface KdbTableInfo {
  readonly schema: TableSchema;
  /** The virtual partition column (`date`), when the table is partitioned. */
  readonly dateColumn?: string;
  /** A time-of-day column read as a timestamp of the partition's date (its schema type is timestamp). */
  readonly ofDay?: string;
  /** The database's zone when not UTC: its timestamps are wall-clock times there, read as instants (core/wall-clock.ts). */
  readonly zone?: string;
}

const INT64_NULL = -(2n ** 63n);
const INT32_NULL = -2147483648;


/** Rows at their places in a column of `rows` rows (other rows left zero), or undefined for a type kept whole. */
function placed(type: ColumnType, rows: number, parts: ReadonlyArray<readonly [number, Column]>): Column | undefined {
  switch (type) {
    case 'float': {
      const out = new Float64Array(rows);
      for (const [a, c] of parts) out.set((c as { data: Float64Array }).data, a);
      return { type, data: out };
    }
    case 'timestamp':
    case 'timespan':
    case 'long': {
      const out = new BigInt64Array(rows);
      for (const [a, c] of parts) out.set((c as { data: BigInt64Array }).data, a);
      return { type, data: out };
    }
    case 'date':
    case 'int': {
      const out = new Int32Array(rows);
      for (const [a, c] of parts) out.set((c as { data: Int32Array }).data, a);
      return { type, data: out };
    }
    case 'boolean': {
      const out = new Uint8Array(rows);
      for (const [a, c] of parts) out.set((c as { data: Uint8Array }).data, a);
      return { type, data: out };
    }
    case 'symbol': {
      // an enumeration's reads share their domain's dictionary; a char column's do not: read it whole
      const dict = parts.length > 0 ? (parts[0]![1] as SymbolColumn).dict : undefined;
      if (!dict || parts.some(([, c]) => (c as SymbolColumn).dict !== dict)) return undefined;
      const out = new Int32Array(rows);
      for (const [a, c] of parts) out.set((c as SymbolColumn).codes, a);
      return { type, codes: out, dict };
    }
    default:
      return undefined;
  }
}

/**
 * A column of an older partition in the wider type a later one gave the table (q casts a column when
 * its type changes: int to long, int or long to float), or undefined where no widening keeps the values.
 */
export function widen(c: Column, to: ColumnType): Column | undefined {
  if (c.type === 'int' && to === 'long') {
    const out = new BigInt64Array(c.data.length);
    for (let i = 0; i < out.length; i++) out[i] = c.data[i] === INT32_NULL ? INT64_NULL : BigInt(c.data[i]!);
    return { type: 'long', data: out };
  }
  if ((c.type === 'int' || c.type === 'long') && to === 'float') {
    const out = new Float64Array(c.data.length);
    for (let i = 0; i < out.length; i++) {
      const v = c.data[i]!;
      out[i] = c.type === 'int' ? (v === INT32_NULL ? NaN : (v as number)) : v === INT64_NULL ? NaN : Number(v);
    }
    return { type: 'float', data: out };
  }
  return undefined;
}

/** `part` copied into `into` from row `at`; false where it cannot be (a symbol column of another dictionary). */
function fill(into: Column, at: number, part: Column): boolean {
  if (into.type === 'symbol') {
    if (part.type !== 'symbol' || part.dict !== into.dict) return false;
    into.codes.set(part.codes, at);
    return true;
  }
  if (part.type !== into.type || !('data' in into) || !('data' in part)) return false;
  (into.data as Float64Array).set(part.data as Float64Array, at);
  return true;
}

/** The parts of `want` not in `have` (both sorted and merged). */
function missing(want: ReadonlyArray<readonly [number, number]>, have: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [from, b] of want) {
    let a = from;
    for (const [c, d] of have) {
      if (c >= b) break;
      if (d <= a) continue;
      if (c > a) out.push([a, c]);
      a = Math.max(a, d);
      if (a >= b) break;
    }
    if (a < b) out.push([a, b]);
  }
  return out;
}

/** Ranges sorted and merged (touching or overlapping ones joined). */
function merged(ranges: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const sorted = ranges.filter(([a, b]) => b > a).map(([a, b]): [number, number] => [a, b]).sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

/** Whether the int64 values (as int32 pairs) of rows [a, b) never decrease. */
function ascending(pairs: Int32Array, a: number, b: number): boolean {
  for (let i = a + 1; i < b; i++) {
    const h0 = pairs[2 * i - 1]!;
    const h1 = pairs[2 * i + 1]!;
    if (h1 < h0 || (h1 === h0 && pairs[2 * i]! >>> 0 < pairs[2 * i - 2]! >>> 0)) return false;
  }
  return true;
}

interface Shape {
  readonly idRanges: ReadonlyMap<string, readonly [number, number]>;
  /** The rows in storage order, when the files' order is not (read whole). */
  readonly view?: RowSource;
}

export class KdbPartition implements RowSource {
  private readonly files = new Map<string, KdbColumnFile | null>();
  private readonly whole = new Map<string, Column>();
  /**
   * Columns read in row ranges only (narrow queries): each a column of the partition's length whose
   * rows outside `loaded` are zero, kept and filled further by later narrow reads, as the native
   * store's column cache keeps a column loaded in ranges. (Made afresh by each query, a narrow query
   * on a day of 2M rows allocated and zeroed 16 MB for each column it read: most of its time.)
   */
  private readonly partial = new Map<string, { readonly column: Column; loaded: Array<[number, number]> }>();
  private count: number | undefined;
  /** The rows in time order, once made (null: none, a partition of one run or without a time column). */
  private order: Int32Array | null | undefined;
  private shaped: Shape | undefined;

  constructor(
    private readonly info: KdbTableInfo,
    /** The splayed table's folder. */
    readonly dir: string,
    /** The partition's date (days since 1970-01-01; a month's or year's first day), or undefined for a table at the root or an int partition. */
    private readonly days: number | undefined,
    private readonly domains: Domains,
    private readonly options: KdbReadOptions,
    /** The value of an int-typed partition column (a year's number, an int partition's int). */
    private readonly value?: number,
  ) {}

  /** Bytes (estimated) of the columns read whole and kept, of those read in row ranges (each of the partition's length), and of the time order. */
  heldBytes(): number {
    const kept = [...this.whole.values(), ...[...this.partial.values()].map((p) => p.column)];
    return resultBytes(kept.map((c) => ({ type: c.type })), this.rows) + (this.shaped?.view ? resultBytes(this.info.schema.columns, this.rows) : 0) + (this.order?.byteLength ?? 0);
  }

  get rows(): number {
    if (this.count === undefined) {
      let n = 0;
      for (const d of this.info.schema.columns) {
        if (d.name === this.info.dateColumn) continue;
        const f = this.file(d.name);
        if (f) {
          n = f.rows;
          break;
        }
      }
      this.count = n;
    }
    return this.count;
  }

  get idRanges(): ReadonlyMap<string, readonly [number, number]> {
    return this.shape().idRanges;
  }

  column(name: string): Column {
    const view = this.shape().view;
    return view ? view.column(name) : this.wholeColumn(name);
  }

  narrow(ranges: ReadonlyArray<readonly [number, number]>): RowSource {
    const view = this.shape().view;
    if (view) return view;
    const spans = merged(ranges);
    return {
      rows: this.rows,
      idRanges: this.idRanges,
      column: (name: string): Column => this.whole.get(name) ?? (name === this.info.dateColumn ? undefined : this.partly(name, spans)) ?? this.wholeColumn(name),
    };
  }

  /** The column with at least the rows of `spans` read (see `partial`), or undefined for a type read whole. */
  private partly(name: string, spans: ReadonlyArray<readonly [number, number]>): Column | undefined {
    // every row asked for (a query over every identifier's adjacent runs): the column read whole, as it
    // is read, not copied again into a partition-length column (a third copy of every byte)
    if (spans.length === 1 && spans[0]![0] === 0 && spans[0]![1] === this.rows) return this.wholeColumn(name);
    let p = this.partial.get(name);
    const read: Array<[number, number]> = [];
    for (const [a, b] of p ? missing(spans, p.loaded) : spans) {
      const part = this.read(name, a, b);
      if (!p) {
        const column = placed(part.type, this.rows, [[a, part]]);
        if (!column) return undefined;
        this.partial.set(name, (p = { column, loaded: [] }));
      } else if (!fill(p.column, a, part)) return undefined;
      read.push([a, b]);
    }
    if (!p) return placed(this.def(name).type, this.rows, []); // no rows asked for
    if (read.length > 0) p.loaded = merged([...p.loaded, ...read]);
    if (p.loaded.length === 1 && p.loaded[0]![0] === 0 && p.loaded[0]![1] === this.rows) {
      this.whole.set(name, p.column);
      this.partial.delete(name);
    }
    return p.column;
  }

  /**
   * The rows in time order (ties by identifier, then storage order). kdb+ stores none: it is made
   * once from the time column and the identifier runs (prepare.ts timeOrder, as the native store makes
   * the one it stores) and kept, so a query over most identifiers walks it, as on the native store,
   * instead of merging every run again (~200 ms for a day of 2M rows in 100 runs).
   */
  timeOrder(): Int32Array | undefined {
    const s = this.shape();
    if (s.view) return s.view.timeOrder?.();
    if (this.order === undefined) {
      const t = this.info.schema.timeColumn;
      const time = t && s.idRanges.size > 1 ? this.wholeColumn(t) : undefined;
      this.order = time?.type === 'timestamp' ? timeOrder(time.data, Object.fromEntries(s.idRanges)) : null;
    }
    return this.order ?? undefined;
  }

  private def(name: string): { name: string; type: ColumnType } {
    const d = columnOf(this.info.schema, name);
    if (!d) throw new TickscopeError('badDatabase', `kdb+ table ${this.dir}: no column ${name}`);
    return d;
  }

  /** The column's file, opened once; null where the partition lacks it. */
  private file(name: string): KdbColumnFile | null {
    let f = this.files.get(name);
    if (f === undefined) {
      const path = join(this.dir, name);
      f = existsSync(path) ? openColumn(path, { ...this.options, domain: this.domains, name: `${this.info.schema.name}.${name}` }) : null;
      if (f && this.count !== undefined && f.rows !== this.count) throw badFile(path, `holds ${f.rows} rows; the table's other columns in ${this.dir} hold ${this.count}`);
      this.files.set(name, f);
    }
    return f;
  }

  private wholeColumn(name: string): Column {
    let c = this.whole.get(name);
    if (!c) {
      this.whole.set(name, (c = this.read(name, 0, this.rows)));
      this.partial.delete(name);
    }
    return c;
  }

  /** Rows [a, b) of a column as the table's schema types it (its timestamps instants, whatever the database's zone). */
  private read(name: string, a: number, b: number): Column {
    const c = this.readWall(name, a, b);
    const zone = this.info.zone;
    // a copy: a column read from a file may share a cached block's bytes
    return zone && c.type === 'timestamp' ? { type: 'timestamp', data: wallToInstants(new BigInt64Array(c.data), zone) } : c;
  }

  /** Rows [a, b) of a column, its timestamps as stored (wall-clock times of the database's zone). */
  private readWall(name: string, a: number, b: number): Column {
    const def = this.def(name);
    const n = b - a;
    if (name === this.info.dateColumn) {
      const days = this.days ?? 0;
      if (def.type === 'timestamp') return { type: 'timestamp', data: new BigInt64Array(n).fill(BigInt(days) * NS_PER_DAY) };
      if (def.type === 'int') return { type: 'int', data: new Int32Array(n).fill(this.value ?? INT32_NULL) };
      return { type: 'date', data: new Int32Array(n).fill(days) };
    }
    const f = this.file(name);
    if (!f) return nullColumn(def.type, n);
    if (this.rows !== f.rows) throw badFile(f.path, `holds ${f.rows} rows; the table's other columns in ${this.dir} hold ${this.rows}`);
    const c = f.read(a, b);
    if (name === this.info.ofDay && c.type === 'timespan') {
      const base = BigInt(this.days ?? 0) * NS_PER_DAY;
      const out = new BigInt64Array(n);
      for (let i = 0; i < n; i++) {
        const v = c.data[i]!;
        out[i] = v === INT64_NULL ? v : v + base;
      }
      return { type: 'timestamp', data: out };
    }
    if (c.type !== def.type) {
      // a column widened since (an int that became a long or a float, a long that became a float)
      const widened = widen(c, def.type);
      if (widened) return widened;
      throw new TickscopeError(
        'badDatabase',
        `kdb+ file ${f.path}: a ${c.type} column (q type ${f.qType}); the table ${this.info.schema.name} has ${name} as ${def.type} (from its newest partition), which an older ${c.type} column widens to only from int to long or float and from long to float`,
      );
    }
    return c;
  }

  private shape(): Shape {
    if (!this.shaped) this.shaped = this.findShape();
    return this.shaped;
  }

  private findShape(): Shape {
    const t = this.info.schema;
    const n = this.rows;
    const none: Shape = { idRanges: new Map() };
    if (n === 0 || t.kind !== 'partitioned' || !t.timeColumn) return none;
    const idDef = columnOf(t, t.idColumn);
    const runs = idDef?.type === 'symbol' && idDef.name !== this.info.dateColumn ? this.idRuns() : [['', 0, n] as const];
    // every run checked over the time column read whole, once, and kept (a query reads it next): read
    // run by run, the reads and conversions of a day's 100 runs cost a cold narrow query 88 of its 120 ms
    const time = runs ? this.wholeColumn(t.timeColumn) : undefined;
    if (time && time.type !== 'timestamp') throw new Error(`${t.timeColumn} is not a timestamp column`);
    const pairs = time?.type === 'timestamp' ? int32Pairs(time.data) : undefined;
    if (!runs || !pairs || !runs.every(([, a, b]) => ascending(pairs, a, b))) {
      const view = this.storageOrder();
      return { idRanges: view.idRanges, view };
    }
    if (idDef?.type !== 'symbol' || idDef.name === this.info.dateColumn) return none;
    return { idRanges: new Map(runs.map(([id, a, b]) => [id, [a, b] as const])) };
  }

  /** The identifier's runs (p#, else derived), or undefined when an identifier's rows are not together. */
  private idRuns(): Array<readonly [string, number, number]> | undefined {
    const name = this.info.schema.idColumn;
    const f = this.file(name);
    if (!f) return undefined;
    const out: Array<readonly [string, number, number]> = [];
    const p = f.runs();
    if (p && p.values.type === 'symbol') {
      for (let i = 0; i + 1 < p.bounds.length; i++) out.push([p.values.dict.get(p.values.codes[i]!), p.bounds[i]!, p.bounds[i + 1]!]);
    } else {
      const c = this.wholeColumn(name);
      if (c.type !== 'symbol') return undefined;
      let start = 0;
      for (let i = 1; i <= c.codes.length; i++) {
        if (i === c.codes.length || c.codes[i] !== c.codes[start]) {
          out.push([c.dict.get(c.codes[start]!), start, i]);
          start = i;
        }
      }
    }
    const seen = new Set<string>();
    for (const [id] of out) {
      if (seen.has(id)) return undefined;
      seen.add(id);
    }
    return out;
  }

  /** Every column read whole and put in storage order (identifier runs, each in time order). */
  private storageOrder(): RowSource {
    const t = this.info.schema;
    const table = new Table(
      t.columns.map((d) => d.name),
      t.columns.map((d) => this.wholeColumn(d.name)),
    );
    const { table: sorted, idRanges, timeOrder } = prepareForStorage(t, table);
    this.whole.clear();
    this.partial.clear();
    const columns = new Map<string, Column>();
    return {
      rows: sorted.length,
      idRanges: new Map(Object.entries(idRanges ?? {})),
      column: (name: string): Column => {
        let c = columns.get(name);
        if (!c) columns.set(name, (c = sorted.col(name)));
        return c;
      },
      ...(timeOrder ? { timeOrder: () => timeOrder } : {}),
    };
  }
}
