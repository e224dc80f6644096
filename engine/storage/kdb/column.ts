/**
 * kdb+ column files read as Tickscope columns (SPEC 11's types), whole or by row range: a plain
 * vector of any simple type (engine/q's vectorColumn: guid to string; byte, short, int to int; real,
 * float to float; char, one per row, to symbol; timestamp; date; month to the date of its first;
 * datetime to a timestamp in ms; minute, second, time, timespan to timespan; boolean), an
 * enumerated symbol column of either kind (indices into its domain's shared dictionary, each checked
 * to lie inside it), and the nested kinds (nested.ts). A range of a compressed file decompresses only
 * the blocks holding its rows.
 *
 * A `p#` column's runs come with it (`runs`), and every run start a read covers is checked against
 * the index's distinct value: an index that disagrees with its data is damage.
 */
import { basename } from 'node:path';
import type { Column, ColumnType } from '../../core/column.js';
import { vectorColumn } from '../../q/vector-column.js';
import { type Domains, KdbDomain } from './domain.js';
import { openKdbFile } from './file.js';
import { type AnymapLayout, type EnumLayout, type FileLayout, type NestedLayout, readLayout, type VectorLayout } from './header.js';
import { badFile, type KdbBytes, type KdbReadOptions } from './io.js';
import { NestedReader } from './nested.js';

/** How a column is read: its domains (for enumerations) and its name in errors. */
export interface ColumnReadOptions extends KdbReadOptions {
  /** The database's domains (the column's named domain is looked up), or the one domain it uses. */
  readonly domain?: Domains | KdbDomain;
  /** The column's name in errors (its file's name unless given). */
  readonly name?: string;
}

/** The layouts a column file may have. */
export type ColumnLayout = VectorLayout | EnumLayout | AnymapLayout | NestedLayout;

/** Tickscope's type of each simple q type (SPEC 11). */
const COLUMN_TYPE: Readonly<Record<number, ColumnType>> = {
  1: 'boolean',
  2: 'string',
  4: 'int',
  5: 'int',
  6: 'int',
  7: 'long',
  8: 'float',
  9: 'float',
  10: 'symbol',
  12: 'timestamp',
  13: 'date',
  14: 'date',
  15: 'timestamp',
  16: 'timespan',
  17: 'timespan',
  18: 'timespan',
  19: 'timespan',
};

const INT32_MIN = -2147483648;

/** A column file opened: its kind and rows known, its rows read on demand. */
export class KdbColumnFile {
  readonly name: string;
  private nested: NestedReader | undefined;

  constructor(
    readonly bytes: KdbBytes,
    readonly layout: ColumnLayout,
    private readonly options: ColumnReadOptions,
  ) {
    this.name = options.name ?? basename(bytes.path);
    if (layout.kind === 'anymap' || layout.kind === 'nested') this.nested = new NestedReader(bytes, layout, this.name, options);
  }

  get path(): string {
    return this.bytes.path;
  }

  get rows(): number {
    return this.layout.rows;
  }

  /** The column's q type: 1-19 for a vector, 20 for an enumeration, 77 for anymap, 77 + t for a typed nested column. */
  get qType(): number {
    const l = this.layout;
    return l.kind === 'vector' ? l.qType : l.kind === 'enum' ? 20 : l.kind === 'anymap' ? 77 : 77 + l.itemType;
  }

  /**
   * Tickscope's type of the column; a nested column's is found from its elements (all read once),
   * undefined when it has none (a mixed list: reading it is an error naming the column and q type).
   */
  get type(): ColumnType | undefined {
    const l = this.layout;
    if (l.kind === 'vector') return COLUMN_TYPE[l.qType]!;
    if (l.kind === 'enum') return 'symbol';
    return this.nested!.type();
  }

  /** The enumeration's domain (for an enumerated column). */
  domain(): KdbDomain {
    const l = this.layout;
    if (l.kind !== 'enum') throw new Error(`${this.path} is not an enumerated column`);
    const d = this.options.domain;
    if (!d) throw badFile(this.path, `enumerates against the domain ${l.domain}; no database domains were given to read it`);
    if (d instanceof KdbDomain) {
      if (d.name !== l.domain) throw badFile(this.path, `enumerates against the domain ${l.domain}, not ${d.name}`);
      return d;
    }
    return d.get(l.domain, this.path);
  }

  /** Rows [a, b) as a column. */
  read(a = 0, b = this.rows): Column {
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || a < 0 || b < a || b > this.rows) {
      throw new RangeError(`${this.path}: rows [${a}, ${b}) asked of a column of ${this.rows}`);
    }
    const l = this.layout;
    if (l.kind === 'anymap' || l.kind === 'nested') return this.nested!.read(a, b);
    const raw = this.bytes.read(l.dataStart + a * l.width, l.dataStart + b * l.width);
    if (l.parted) this.checkRuns(raw, a, b);
    if (l.kind === 'vector') return vectorColumn(l.qType, raw, 0, b - a, true);
    return this.codes(raw, a, b - a);
  }

  /**
   * A `p#` column's runs: boundaries (run i is rows [bounds[i], bounds[i + 1])) and each run's value
   * as a column of one row per run; undefined for a column without `p#`.
   */
  runs(): { bounds: Float64Array; values: Column } | undefined {
    const l = this.layout;
    if ((l.kind !== 'vector' && l.kind !== 'enum') || !l.parted) return undefined;
    const k = l.parted.bounds.length - 1;
    const values = l.kind === 'vector' ? vectorColumn(l.qType, l.parted.distinct, 0, k, true) : this.codes(l.parted.distinct, -1, k);
    return { bounds: l.parted.bounds, values };
  }

  /** Enumeration indices (`n` of them, the first row `first`, -1 for the index's own) as codes into the domain's dictionary. */
  private codes(raw: Uint8Array, first: number, n: number): Column {
    const l = this.layout as EnumLayout;
    const domain = this.domain();
    const names = domain.names;
    const nullCode = domain.nullCode;
    const w = int32s(raw);
    const codes = new Int32Array(n);
    const wide = l.width === 8;
    for (let i = 0; i < n; i++) {
      const lo = wide ? w[2 * i]! : w[i]!;
      const hi = wide ? w[2 * i + 1]! : lo < 0 ? -1 : 0;
      if (hi === 0 && lo >= 0 && lo < names) codes[i] = lo;
      else if (wide ? hi === INT32_MIN && lo === 0 : lo === INT32_MIN) codes[i] = nullCode;
      else {
        const index = wide ? (BigInt(hi) << 32n) | BigInt(lo >>> 0) : BigInt(lo);
        const where = first < 0 ? `its p# index's distinct value ${i}` : `row ${first + i}`;
        throw badFile(this.path, `${where} holds enumeration index ${index}, past the ${names} names of its domain ${domain.path}`);
      }
    }
    return { type: 'symbol', codes, dict: domain.dict };
  }

  /** Checks the first row of every run starting in [a, b) holds its run's value in the index. */
  private checkRuns(raw: Uint8Array, a: number, b: number): void {
    const l = this.layout as VectorLayout | EnumLayout;
    const { bounds, distinct } = l.parted!;
    const w = l.width;
    for (let i = 0; i < bounds.length - 1; i++) {
      const r = bounds[i]!;
      if (r < a || r >= b) continue;
      for (let k = 0; k < w; k++) {
        if (raw[(r - a) * w + k] !== distinct[i * w + k]) {
          throw badFile(this.path, `its p# index says run ${i} (rows ${r} to ${bounds[i + 1]! - 1}) holds one value, but row ${r} holds another (damaged data or index)`);
        }
      }
    }
  }
}

/** Bytes as int32 words (a view when aligned, else a copy). */
function int32s(raw: Uint8Array): Int32Array {
  const n = raw.byteLength >> 2;
  if (raw.byteOffset % 4 === 0) return new Int32Array(raw.buffer, raw.byteOffset, n);
  return new Int32Array(raw.slice(0, n * 4).buffer);
}

/** Opens a column file: its kind from its first bytes, its rows from its length (nothing of its data read). */
export function openColumn(path: string, options: ColumnReadOptions = {}): KdbColumnFile {
  const bytes = openKdbFile(path, options);
  const layout: FileLayout = readLayout(bytes);
  if (layout.kind === 'object') {
    throw badFile(path, `a serialized q object (type ${layout.qType}), not a column file; a splayed column is a vector (fe 20), an enumeration or a kdb+ 3.6 page (fd 20)`);
  }
  if (layout.kind === 'arena') throw badFile(path, "an anymap column's # file (its elements), not a column: read the column file beside it");
  return new KdbColumnFile(bytes, layout, options);
}

/** A whole column file as a column (an enumeration's names from `options.domain`). */
export function readColumn(path: string, options: ColumnReadOptions = {}): Column {
  return openColumn(path, options).read();
}

/** Rows [a, b) of a column file (only the blocks holding them, for a compressed file). */
export function readRows(path: string, a: number, b: number, options: ColumnReadOptions = {}): Column {
  return openColumn(path, options).read(a, b);
}
