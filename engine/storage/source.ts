/**
 * The one storage interface the operations read through (issue 28): a source of tables, each either
 * partitioned by date (a partition per UTC day of its time column) or a reference table read whole.
 * Three kinds are designed for, two built: Tickscope's own database (database.ts), an in-memory
 * append-only set of tables (memory-source.ts, fed by live sources later), and a kdb+ database read
 * in place (SPEC 11). docs/architecture.md ("One storage interface") says how each kind meets it.
 *
 * A partition is a RowSource (ops/select/scan.ts): its rows, its identifier runs (each identifier's
 * rows contiguous and in time order), columns read whole or only in row ranges (`narrow`), and its
 * rows in time order when the source keeps them. Everything a query reads of one source happens
 * inside `read`, which pins what the query sees: the manifest generation of a database, the rows
 * appended so far of a memory source.
 */
import type { ImportRecord } from './import-hash.js';
import type { Table } from '../core/table.js';
import type { RowSource } from './row-source.js';
import type { Config } from './config.js';
import { type Roles, resolveRoles } from './roles.js';
import type { Schema, TableSchema } from './schema.js';

/** What kind of source it is (the app and `tickscope info` name it; writes are refused by kind). */
export type SourceKind = 'tickscope' | 'memory' | 'kdb';

export interface Source {
  /** The assembly's name (`scope.assembly`). */
  readonly name: string;
  readonly kind: SourceKind;
  readonly schema: Schema;
  /** Analytics, filter rules, summary functions, roles...: config.json of a database, settings of a kdb+ one. */
  readonly config: Config;
  /** The schema of a table; an unknown name is an error listing the tables. */
  table(name: string): TableSchema;
  /** Partition keys (UTC dates, `2024-01-02`) of a partitioned table, ascending. */
  partitionKeys(table: string): string[];
  /** One partition of a table, or undefined when the date holds no rows. */
  partition(table: string, key: string): RowSource | undefined;
  /** A reference table (or any table held whole), or undefined when it holds no rows. */
  reference(table: string): RowSource | undefined;
  /** Looks again for what changed outside this process (new partitions, an edited config). */
  refresh(): void;
  /**
   * A table's rows when known without reading a file of every partition (metadata, counts already
   * read), else undefined; absent: tableRows counts them from the partitions' metadata.
   */
  knownRows?(table: string): number | undefined;
  /** Runs a query against one fixed state of the source (see the file's comment). */
  read<T>(fn: () => T): T;
  /** Registers a check the config must pass (now, and whenever it changes); `where` names the config for its errors. */
  checkConfig(check: (c: Config, where: string) => void): void;
}

/** What one commit changes: partitions and reference tables replaced whole, all visible together or none. */
/**
 * Whole partitions and reference tables written anew. `imports`: the import records the new folder
 * keeps (import-hash.ts); absent, it keeps the ones of the folder it replaces.
 */
export interface Changes {
  readonly partitions?: ReadonlyArray<{ readonly table: string; readonly key: string; readonly data: Table; readonly imports?: readonly ImportRecord[] }>;
  readonly references?: ReadonlyArray<{ readonly table: string; readonly data: Table; readonly imports?: readonly ImportRecord[] }>;
}

/** A source that takes writes (Tickscope's own database): imports, order analytics. */
export interface WritableSource extends Source {
  /** Applies the changes atomically; changes given as a function are computed under the write lock. */
  commit(what: Changes | (() => Changes)): Changes;
}

export function isWritable(source: Source): source is WritableSource {
  return typeof (source as Partial<WritableSource>).commit === 'function';
}

/** The roles of a source's tables (its config's, or the standard tables'), resolved against its schema. */
export function rolesOf(source: Pick<Source, 'name' | 'schema' | 'config'>): Roles {
  return resolveRoles(source.schema, source.config.roles, source.name);
}

/** Rows of a table (from partition metadata only). */
export function tableRows(source: Source, table: string): number {
  const t = source.table(table);
  if (t.kind === 'reference' || !t.timeColumn) return source.reference(table)?.rows ?? 0;
  return source.partitionKeys(table).reduce((s, k) => s + (source.partition(table, k)?.rows ?? 0), 0);
}

/** A source that refuses writes says why, and what takes them instead. */
export function readOnlyError(source: Pick<Source, 'name' | 'kind'>): string {
  const what = source.kind === 'kdb' ? `${source.name} is a kdb+ database, read in place and never written` : `${source.name} is an in-memory source; it takes rows only from its feed`;
  return `${what}; write to a Tickscope database mounted beside it (another --db, another assembly)`;
}
