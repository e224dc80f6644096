/**
 * A Parquet file's footer: its metadata and schema (parsed by hyparquet), the row groups' places
 * among the file's rows, checked against the footer's row count, and where each column's chunk of a
 * row group is. A file that is not Parquet, or is cut short, fails here, before any page is read.
 */
import type { ColumnChunk, FileMetaData, RowGroup, SchemaTree } from 'hyparquet';
import { TickscopeError } from '../../core/errors.js';
import { checkEnds } from './check.js';
import type { Hyparquet } from './hyparquet.js';

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

/** A file's bytes, its metadata and its schema as a tree (the table's columns are its root's children). */
export interface Footer {
  readonly buffer: ArrayBuffer;
  readonly meta: FileMetaData;
  readonly tree: SchemaTree;
  /** Where the footer starts: the column chunks lie before it. */
  readonly dataEnd: number;
}

/**
 * A file's bytes as an ArrayBuffer of their own: readFileSync's Buffer is one for a large file, and
 * a view into Node's shared pool for a small one (copied then; Buffer#slice would not copy).
 */
function wholeBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes.buffer;
  return new Uint8Array(bytes).buffer;
}

/**
 * Parses a file's footer, or fails when the bytes are not a whole Parquet file: its magic and footer
 * length are checked first (check.ts), so a footer that does not parse is a damaged one.
 */
export function readFooter(h: Hyparquet, bytes: Uint8Array, file: string): Footer {
  const buffer = wholeBuffer(bytes);
  const dataEnd = checkEnds(new DataView(buffer), file);
  let meta: FileMetaData;
  let tree: SchemaTree;
  try {
    meta = h.parquetMetadata(buffer);
    tree = h.parquetSchema(meta);
  } catch (e) {
    return fail(`${file}: damaged: its footer (${(buffer.byteLength - 8 - dataEnd).toLocaleString('en-US')} bytes of metadata before the last 8) does not parse (${(e as Error).message})`);
  }
  return { buffer, meta, tree, dataEnd };
}

/**
 * The file row each row group starts at, and last the file's row count; damaged when the groups'
 * rows do not add up to the footer's `rows`.
 */
export function rowGroupStarts(meta: FileMetaData, rows: number, file: string): number[] {
  const groupStart = [0];
  for (const g of meta.row_groups) groupStart.push(groupStart.at(-1)! + Number(g.num_rows));
  if (groupStart.at(-1) !== rows) fail(`${file}: damaged: its row groups hold ${groupStart.at(-1)} rows, its footer says ${rows}`);
  return groupStart;
}

/** A row group's chunk of the column whose leaf is `leaf`, if it has one. */
export function chunkOf(group: RowGroup, leaf: SchemaTree): ColumnChunk | undefined {
  return group.columns.find((c) => c.meta_data && samePath(c.meta_data.path_in_schema, leaf.path));
}

const samePath = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((s, i) => s === b[i]);

/** Level entries of a field's leaf over all row groups (the capacity a list column's values need). */
export function leafValues(meta: FileMetaData, field: SchemaTree): number {
  let leaf = field;
  while (leaf.children.length === 1) leaf = leaf.children[0]!;
  let n = 0;
  for (const g of meta.row_groups) {
    for (const c of g.columns) if (c.meta_data && samePath(c.meta_data.path_in_schema, leaf.path)) n += Number(c.meta_data.num_values);
  }
  return n;
}
