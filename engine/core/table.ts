/**
 * A table: named columns of equal length, in order. A column may be a *view*: rows `index` of a base
 * column (a stored partition's), gathered into its own array only when a kernel asks for it
 * (`col`, `columns`). Renderers (JSON, CSV, the grid) read views through their index, so a result
 * held for paging or export costs its row index, not a copy of every column.
 */
import { type Column, type ColumnType, columnLength, concatColumns, gather, gatherParts } from './column.js';

export interface ColumnDef {
  readonly name: string;
  readonly type: ColumnType;
}

/** A column's file, open (and its path, for errors), as a streaming renderer reads rows of it: its bytes per row and its row count. */
export interface StreamFile {
  readonly fd: number;
  readonly path: string;
  readonly width: number;
  readonly rows: number;
}

/**
 * A stored column whose rows a query has not read: a result streamed once, as soon as the query
 * ends (`tickscope call --format arrow`), reads them a record batch at a time from its file instead
 * of the whole column into memory first (storage/stored-column.ts).
 */
export interface DeferredColumn {
  /** The column, its rows not read yet: only its type and dictionary may be used before load(). */
  readonly column: Column;
  readonly file: StreamFile;
  /** Reads the rows the query selected into the column (once); any reader of its data calls it first. */
  load(): Column;
}

/** A column as held: a column, or rows `index` of `base` (gathered on first use), whose rows may still be to read (`pending`). */
export interface ColumnEntry {
  readonly base: Column;
  readonly index?: Int32Array;
  gathered?: Column;
  pending?: DeferredColumn;
}

/** The entry's base with its rows read. */
function baseOf(e: ColumnEntry): Column {
  if (e.pending) {
    e.pending.load();
    delete e.pending;
  }
  return e.base;
}

const entryColumn = (e: ColumnEntry): Column => (e.index ? (e.gathered ??= gatherParts(e.base.type, [{ column: baseOf(e), rows: e.index }])) : baseOf(e));

export class Table {
  readonly length: number;
  private readonly byName: Map<string, number>;
  private readonly entries: readonly ColumnEntry[];

  /** `entries`, when given, replace `columns` (views; used by the table's own methods). */
  constructor(
    readonly names: readonly string[],
    columns: readonly Column[],
    length?: number,
    entries?: readonly ColumnEntry[],
  ) {
    this.entries = entries ?? columns.map((base) => ({ base }));
    if (names.length !== this.entries.length) throw new Error('Table: names and columns differ in count');
    this.length = length ?? (this.entries[0] ? entryLength(this.entries[0]) : 0);
    for (const [i, e] of this.entries.entries()) {
      if (entryLength(e) !== this.length) {
        throw new Error(`Table: column ${names[i]} has ${entryLength(e)} rows, expected ${this.length}`);
      }
    }
    this.byName = new Map(names.map((n, i) => [n, i]));
  }

  /**
   * A table whose columns are rows `index` of `bases` (views: nothing is copied until used); a base
   * with a `deferred` entry has its rows read when first used.
   */
  static view(names: readonly string[], bases: readonly Column[], index: Int32Array, deferred?: ReadonlyArray<DeferredColumn | undefined>): Table {
    return new Table(
      names,
      [],
      index.length,
      bases.map((base, j) => (deferred?.[j] ? { base, index, pending: deferred[j] } : { base, index })),
    );
  }

  /** A table of columns as sources() gives them: each a base and the index reading it (null: as it is). */
  static fromSources(names: readonly string[], sources: ReadonlyArray<{ readonly column: Column; readonly index: Int32Array | null }>, length: number): Table {
    return new Table(names, [], length, sources.map(({ column, index }) => (index ? { base: column, index } : { base: column })));
  }

  /** Every column (views are gathered). */
  get columns(): readonly Column[] {
    return this.entries.map(entryColumn);
  }

  /** The column of that name, or undefined. */
  get(name: string): Column | undefined {
    const i = this.byName.get(name);
    return i === undefined ? undefined : entryColumn(this.entries[i]!);
  }

  /** The column of that name; throws when absent (for names already validated). */
  col(name: string): Column {
    const c = this.get(name);
    if (!c) throw new Error(`Table: no column ${name}`);
    return c;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Column definitions (name and type) in order. */
  get defs(): ColumnDef[] {
    return this.names.map((name, i) => ({ name, type: this.entries[i]!.base.type }));
  }

  /**
   * One function per column reading row i through `make` (a renderer of a whole column), without
   * gathering views: a view's row i is row index[i] of its base.
   */
  readers<T>(make: (c: Column) => (i: number) => T): Array<(i: number) => T> {
    return this.entries.map((e) => {
      if (!e.index || e.gathered) return make(entryColumn(e));
      const read = make(baseOf(e));
      const index = e.index;
      return (i: number) => read(index[i]!);
    });
  }

  /**
   * Each column as its base and the row index reading it (null: row i is row i), without gathering
   * views: for renderers that loop over rows themselves.
   */
  sources(): Array<{ readonly column: Column; readonly index: Int32Array | null }> {
    return this.entries.map((e) => this.sourceOf(e));
  }

  /**
   * As sources(), but a column whose rows are still to read is given unread, with its file
   * (`deferred`): a streaming renderer reads the rows of each batch from it, or calls its load().
   */
  streamSources(): Array<{ readonly column: Column; readonly index: Int32Array | null; readonly deferred?: DeferredColumn }> {
    return this.entries.map((e) => (e.pending && e.index && !e.gathered ? { column: e.base, index: e.index, deferred: e.pending } : this.sourceOf(e)));
  }

  private sourceOf(e: ColumnEntry): { readonly column: Column; readonly index: Int32Array | null } {
    return !e.index || e.gathered ? { column: entryColumn(e), index: null } : { column: baseOf(e), index: e.index };
  }

  /** Rows `idx` of every column (views stay views: their indexes are composed). */
  take(idx: Int32Array): Table {
    return new Table(
      this.names,
      [],
      idx.length,
      this.entries.map((e) => {
        if (!e.index || e.gathered) return { base: gather(entryColumn(e), idx) };
        const index = new Int32Array(idx.length);
        for (let i = 0; i < idx.length; i++) index[i] = e.index[idx[i]!]!;
        return { base: baseOf(e), index };
      }),
    );
  }

  /** These columns, in this order. */
  select(names: readonly string[]): Table {
    return new Table(
      names,
      [],
      this.length,
      names.map((n) => {
        const i = this.byName.get(n);
        if (i === undefined) throw new Error(`Table: no column ${n}`);
        return this.entries[i]!;
      }),
    );
  }

  /** This table with a column replaced or appended. */
  with(name: string, column: Column): Table {
    const i = this.byName.get(name);
    if (i === undefined) return new Table([...this.names, name], [], this.length, [...this.entries, { base: column }]);
    const entries = [...this.entries];
    entries[i] = { base: column };
    return new Table(this.names, [], this.length, entries);
  }

  /** Stacks tables with the same column definitions. */
  static concat(defs: readonly ColumnDef[], parts: readonly Table[]): Table {
    return new Table(
      defs.map((d) => d.name),
      defs.map((d) =>
        concatColumns(
          d.type,
          parts.map((p) => p.col(d.name)),
        ),
      ),
    );
  }
}

function entryLength(e: ColumnEntry): number {
  return e.index ? e.index.length : columnLength(e.base);
}
