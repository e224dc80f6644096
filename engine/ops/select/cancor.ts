/**
 * applyCanCor (SPEC 4): `<table>CanCor` holds cancels and corrections keyed by executionID. Rows whose
 * execution has a cancel are removed; a correction replaces the non-null values it carries (price,
 * volume, or any column the two tables share), the latest correction winning, whatever its own
 * timestamp. The corrected view is what filters, sorting and output see.
 */
import { type Column, int32Pairs } from '../../core/column.js';
import { dictIndexOf } from '../../core/dict.js';
import { TickscopeError } from '../../core/errors.js';
import type { Source } from '../../storage/source.js';
import type { TableSchema } from '../../storage/schema.js';
import type { RowSource } from '../../storage/row-source.js';

const KEY = 'executionID';
const NULL_LONG = -9223372036854775808n;

interface Correction {
  cancel: boolean;
  /** column -> [value, hi, lo] of the latest correction carrying a non-null value (a long's as bigint) */
  values: Map<string, [number | bigint, number, number]>;
}

/** Cancels and corrections of a table, by executionID. */
export class CanCor {
  private constructor(
    private readonly byExecution: ReadonlyMap<string, Correction>,
    /** Columns a correction may replace (numeric columns both tables have). */
    readonly columns: readonly string[],
  ) {}

  /** Loads `<table>CanCor`; an error when that table is not declared or either lacks executionID. */
  static load(db: Source, t: TableSchema): CanCor {
    const name = `${t.name}CanCor`;
    const c = db.schema.tables.get(name);
    if (!c) {
      throw new TickscopeError('requirement', `applyCanCor: 1b needs a ${name} table of cancellations and corrections, which ${db.name} does not declare`);
    }
    if (!t.columns.some((x) => x.name === KEY) || !c.columns.some((x) => x.name === KEY)) {
      throw new TickscopeError('requirement', `applyCanCor: 1b needs an ${KEY} column in both ${t.name} and ${name}`);
    }
    const columns = c.columns
      .filter((x) => ['float', 'long', 'int'].includes(x.type) && t.columns.some((y) => y.name === x.name && y.type === x.type))
      .map((x) => x.name);
    const byExecution = new Map<string, Correction>();
    const hasAction = c.columns.some((x) => x.name === 'action');
    for (const key of db.partitionKeys(name)) {
      const p = db.partition(name, key)!;
      const ids = p.column(KEY);
      const action = hasAction ? p.column('action') : undefined;
      const time = p.column(c.timeColumn!);
      if (ids.type !== 'symbol' || time.type !== 'timestamp' || (action && action.type !== 'symbol')) continue;
      const words = int32Pairs(time.data);
      const data = columns.map((n) => (p.column(n) as { data: Float64Array | BigInt64Array | Int32Array }).data);
      for (let r = 0; r < p.rows; r++) {
        const id = ids.dict.get(ids.codes[r]!);
        if (id === '') continue;
        let entry = byExecution.get(id);
        if (!entry) byExecution.set(id, (entry = { cancel: false, values: new Map() }));
        const verb = action && action.type === 'symbol' ? action.dict.get(action.codes[r]!) : 'correct';
        if (verb === 'cancel') {
          entry.cancel = true;
          continue;
        }
        const hi = words[2 * r + 1]!;
        const lo = words[2 * r]! >>> 0;
        columns.forEach((col, j) => {
          const v = data[j]![r]!;
          if (v !== v || v === NULL_LONG || v === -2147483648) return;
          const prev = entry.values.get(col);
          // latest wins; on equal timestamps the later row (storage order) wins
          if (!prev || hi > prev[1] || (hi === prev[1] && lo >= prev[2])) entry.values.set(col, [v, hi, lo]);
        });
      }
    }
    return new CanCor(byExecution, columns);
  }

  /** A view of a partition with corrected columns and a mask of the rows to drop. */
  view(p: RowSource): CorrectedSource {
    return new CorrectedSource(p, this);
  }

  /** The correction of an execution, if any. */
  get(id: string): Correction | undefined {
    return this.byExecution.get(id);
  }

  /** Every execution with its cancel or corrections. */
  entries(): IterableIterator<[string, Correction]> {
    return this.byExecution.entries();
  }
}

/** A partition as corrected by CanCor: patched columns, and the cancelled rows. */
export class CorrectedSource implements RowSource {
  readonly rows: number;
  readonly idRanges: ReadonlyMap<string, readonly [number, number]>;
  /** 1 for rows whose execution is cancelled. */
  readonly cancelled: Uint8Array;
  private readonly patched = new Map<string, Column>();
  private readonly perCode: Array<Correction | undefined>;
  private readonly codes: Int32Array;

  constructor(
    private readonly base: RowSource,
    private readonly cancor: CanCor,
  ) {
    this.rows = base.rows;
    this.idRanges = base.idRanges;
    const ids = base.column(KEY);
    if (ids.type !== 'symbol') throw new Error(`${KEY} is not a symbol column`);
    this.codes = ids.codes;
    // Resolve each dictionary entry once, then look rows up by code. A sorted (stored) dictionary is
    // searched for the few executions CanCor names instead of decoding every entry.
    this.perCode = new Array<Correction | undefined>(ids.dict.length).fill(undefined);
    if (ids.dict.sorted) {
      for (const [id, c] of cancor.entries()) {
        const code = dictIndexOf(ids.dict, id);
        if (code >= 0) this.perCode[code] = c;
      }
    } else {
      for (let k = 0; k < ids.dict.length; k++) {
        const s = ids.dict.get(k);
        this.perCode[k] = s === '' ? undefined : cancor.get(s);
      }
    }
    this.cancelled = new Uint8Array(base.rows);
    if (this.perCode.some((c) => c?.cancel)) {
      for (let r = 0; r < base.rows; r++) if (this.perCode[this.codes[r]!]?.cancel) this.cancelled[r] = 1;
    }
  }

  column(name: string): Column {
    if (!this.cancor.columns.includes(name)) return this.base.column(name);
    let col = this.patched.get(name);
    if (!col) {
      const orig = this.base.column(name) as { type: 'float' | 'long' | 'int'; data: Float64Array | BigInt64Array | Int32Array };
      let data = orig.data;
      for (let r = 0; r < this.rows; r++) {
        const v = this.perCode[this.codes[r]!]?.values.get(name);
        if (v) {
          if (data === orig.data) data = orig.data.slice();
          (data as unknown as Array<number | bigint>)[r] = v[0];
        }
      }
      col = { type: orig.type, data } as Column;
      this.patched.set(name, col);
    }
    return col;
  }
}
