/**
 * An in-memory, append-only source (storage/source.ts): tables whose rows arrive in batches while
 * queries run, as a live feed will deliver them. Each query reads a fixed snapshot: `read` pins the
 * batches appended so far, and a batch appended during the query is seen by the next one.
 *
 * A partition (one UTC day of a partitioned table) keeps its batches as they came; the first query
 * that reads a given set of them puts their rows in storage order once (identifier runs, each in time
 * order, and the rows' time order, as a written partition holds them: prepare.ts), and later queries
 * of the same set reuse it. Arrival order needs no sorting, so a feed in time order costs two passes.
 */
import type { Column } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import type { RowSource } from './row-source.js';
import { splitByPartition } from './append.js';
import { type Config, defaultConfig } from './config.js';
import { prepareForStorage } from './prepare.js';
import type { Schema, TableSchema } from './schema.js';
import type { Source } from './source.js';

/** The key a table's rows are kept under when it has no partitions (reference data): never a partition's. */
const UNPARTITIONED = 'ref';

/** One partition's (or a reference table's) batches, and its rows in storage order for the batches last read. */
class MemoryPart {
  private readonly batches: Array<{ readonly rows: Table; readonly at: number }> = [];
  private view: { readonly count: number; readonly source: RowSource } | null = null;

  constructor(private readonly t: TableSchema) {}

  add(rows: Table, at: number): void {
    this.batches.push({ rows, at });
  }

  /** Whether any batch is visible at `at`. */
  holdsAt(at: number): boolean {
    return this.batches.length > 0 && this.batches[0]!.at <= at;
  }

  /** The rows appended up to `at` (a query's snapshot), in storage order. */
  at(at: number): RowSource | undefined {
    let count = 0;
    while (count < this.batches.length && this.batches[count]!.at <= at) count++;
    if (count === 0) return undefined;
    if (this.view?.count !== count) this.view = { count, source: this.prepared(count) };
    return this.view.source;
  }

  private prepared(count: number): RowSource {
    const parts = this.batches.slice(0, count).map((b) => b.rows);
    const rows = parts.length === 1 ? parts[0]! : Table.concat(this.t.columns, parts);
    const { table, idRanges, timeOrder } = prepareForStorage(this.t, rows);
    const columns = new Map<string, Column>();
    const column = (name: string): Column => {
      let c = columns.get(name);
      if (!c) columns.set(name, (c = table.col(name)));
      return c;
    };
    return {
      rows: table.length,
      idRanges: new Map(Object.entries(idRanges ?? {})),
      column,
      ...(timeOrder ? { timeOrder: () => timeOrder } : {}),
    };
  }
}

export class MemorySource implements Source {
  readonly kind = 'memory';
  private readonly parts = new Map<string, Map<string, MemoryPart>>();
  /** Batches appended so far (each batch is stamped with its number). */
  private appended = 0;
  /** The snapshot of the running query (batches up to this number), when one runs. */
  private pinned: number | null = null;

  constructor(
    readonly name: string,
    readonly schema: Schema,
    readonly config: Config = defaultConfig(),
  ) {}

  /**
   * Appends rows (columns in the table's schema order and types) to a table: a partitioned table's
   * rows go to the day of their time column. Seen by queries that start after it returns.
   */
  append(tableName: string, rows: Table): void {
    const t = this.table(tableName);
    const defs = rows.defs;
    if (defs.length !== t.columns.length || defs.some((d, i) => d.name !== t.columns[i]!.name || d.type !== t.columns[i]!.type)) {
      throw new TickscopeError(
        'importFailed',
        `${this.name}.${t.name}: rows with columns ${defs.map((d) => `${d.name}:${d.type}`).join(', ')}; expected ${t.columns.map((d) => `${d.name}:${d.type}`).join(', ')}`,
      );
    }
    if (rows.length === 0) return;
    const at = ++this.appended;
    const parts = this.parts.get(t.name) ?? new Map<string, MemoryPart>();
    this.parts.set(t.name, parts);
    const add = (key: string, batch: Table): void => {
      let p = parts.get(key);
      if (!p) parts.set(key, (p = new MemoryPart(t)));
      p.add(batch, at);
    };
    if (t.kind === 'reference' || !t.timeColumn) {
      add(UNPARTITIONED, rows);
      return;
    }
    for (const [key, idx] of splitByPartition(t, rows)) add(key, idx.length === rows.length ? rows : rows.take(idx));
  }

  table(name: string): TableSchema {
    const t = this.schema.tables.get(name);
    if (!t) {
      throw new TickscopeError('unknownTable', `table: ${JSON.stringify(name)} is not a table of ${this.name}; expected one of ${[...this.schema.tables.keys()].join(', ')}`);
    }
    return t;
  }

  partitionKeys(table: string): string[] {
    const at = this.now();
    return [...(this.parts.get(table) ?? new Map<string, MemoryPart>())].filter(([k, p]) => k !== UNPARTITIONED && p.holdsAt(at)).map(([k]) => k).sort();
  }

  partition(table: string, key: string): RowSource | undefined {
    return key === UNPARTITIONED ? undefined : this.parts.get(table)?.get(key)?.at(this.now());
  }

  reference(table: string): RowSource | undefined {
    return this.parts.get(table)?.get(UNPARTITIONED)?.at(this.now());
  }

  /** Nothing changes outside this process. */
  refresh(): void {}

  /** Runs `fn` on the batches appended so far; nested reads see the same snapshot. */
  read<T>(fn: () => T): T {
    if (this.pinned !== null) return fn();
    this.pinned = this.appended;
    try {
      return fn();
    } finally {
      this.pinned = null;
    }
  }

  /** The config never changes here: checked once. */
  checkConfig(check: (c: Config, where: string) => void): void {
    check(this.config, `the config of the in-memory source ${this.name}`);
  }

  private now(): number {
    return this.pinned ?? this.appended;
  }
}
