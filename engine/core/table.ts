/** A table: named columns of equal length, in order. */
import { type Column, type ColumnType, columnLength, concatColumns, gather } from './column.js';

export interface ColumnDef {
  readonly name: string;
  readonly type: ColumnType;
}

export class Table {
  readonly length: number;
  private readonly byName: Map<string, number>;

  constructor(
    readonly names: readonly string[],
    readonly columns: readonly Column[],
    length?: number,
  ) {
    if (names.length !== columns.length) throw new Error('Table: names and columns differ in count');
    this.length = length ?? (columns[0] ? columnLength(columns[0]) : 0);
    for (const [i, c] of columns.entries()) {
      if (columnLength(c) !== this.length) {
        throw new Error(`Table: column ${names[i]} has ${columnLength(c)} rows, expected ${this.length}`);
      }
    }
    this.byName = new Map(names.map((n, i) => [n, i]));
  }

  /** The column of that name, or undefined. */
  get(name: string): Column | undefined {
    const i = this.byName.get(name);
    return i === undefined ? undefined : this.columns[i];
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
    return this.names.map((name, i) => ({ name, type: this.columns[i]!.type }));
  }

  /** Rows `idx` of every column. */
  take(idx: Int32Array): Table {
    return new Table(
      this.names,
      this.columns.map((c) => gather(c, idx)),
      idx.length,
    );
  }

  /** These columns, in this order. */
  select(names: readonly string[]): Table {
    return new Table(
      names,
      names.map((n) => this.col(n)),
      this.length,
    );
  }

  /** This table with a column replaced or appended. */
  with(name: string, column: Column): Table {
    const i = this.byName.get(name);
    if (i === undefined) return new Table([...this.names, name], [...this.columns, column], this.length);
    const cols = [...this.columns];
    cols[i] = column;
    return new Table(this.names, cols, this.length);
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
