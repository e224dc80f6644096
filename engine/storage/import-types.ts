/**
 * The shapes of the app's Import… (issue 30) as data: a mapping's JSON, what a preview shows, what an
 * import reports. A pure type file: the renderer sees it through engine/contract.ts.
 */
import type { ColumnType } from '../core/column-type.js';

/** Where a value comes from in a mapping's JSON: a source column, a constant, or a part of the path. */
export interface ImportValueDoc {
  readonly source?: string | number;
  readonly constant?: string;
  readonly path?: string;
  readonly pattern?: string;
}

/** One table column of a mapping's JSON (docs/import.md, "The items"). */
export interface ImportColumnDoc extends ImportValueDoc {
  readonly scale?: number;
  readonly unit?: 's' | 'ms' | 'us' | 'ns';
  readonly since?: 'epoch' | 'midnight';
  readonly date?: ImportValueDoc;
  readonly case?: 'upper' | 'lower';
}

/** A mapping's JSON: the file `tickscope import --map FILE` reads and the dialog writes. */
export interface ImportMapDoc {
  readonly table: string;
  readonly header?: boolean;
  readonly zone?: string;
  readonly columns: Readonly<Record<string, ImportColumnDoc>>;
}

/** A file an import would read. */
export interface ImportFileInfo {
  readonly path: string;
  readonly format: 'csv' | 'parquet' | 'arrow';
  readonly bytes: number;
}

/** What the dialog shows before an import: the files, the first file's rows as read, and as mapped. */
export interface ImportPreview {
  /** The files (the first MAX_PREVIEW_FILES of them), in the order they are read. */
  readonly files: readonly ImportFileInfo[];
  readonly fileCount: number;
  readonly totalBytes: number;
  /** The first file's columns: a header's names, or positions 0, 1, ... (Parquet, Arrow: their names). */
  readonly sourceColumns: readonly string[];
  /** A type per source column, guessed from the rows shown (a new table's columns). */
  readonly sourceTypes: readonly ColumnType[];
  /** The first rows of the first file, as text. */
  readonly sourceRows: ReadonlyArray<readonly string[]>;
  /** The first rows as the mapping makes them (the table's columns), when a mapping was given and reads. */
  readonly mapped: { readonly columns: readonly string[]; readonly rows: ReadonlyArray<readonly string[]> } | null;
  /** Why the mapping does not read (naming the item at fault), or null. */
  readonly mapError: string | null;
}

/** What to do where the same rows were imported before into the same partitions. */
export type ReimportChoice = 'skip' | 'replace' | 'append';

/** A partition an import found imported before (the same rows). */
export interface ReimportedPartitionInfo {
  readonly table: string;
  readonly key: string;
  readonly rows: number;
  readonly at: string;
  readonly files?: readonly string[];
}

/** A table made for an import ("New table…"): its columns, its time and identifier columns. */
export interface NewTableSpec {
  readonly name: string;
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: ColumnType }>;
  readonly timeColumn: string;
  readonly idColumn: string;
}

/** What an import did. `written` false with `reimported` partitions: nothing written, a choice is wanted. */
export interface ImportReportInfo {
  readonly assembly: string;
  readonly table: string;
  readonly files: number;
  readonly rows: number;
  readonly partitions: readonly string[];
  readonly written: boolean;
  readonly reimported: readonly ReimportedPartitionInfo[];
  readonly skippedRows: number;
  /** The table was made by this import. */
  readonly created: boolean;
}
