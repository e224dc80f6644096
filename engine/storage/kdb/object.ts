/**
 * Serialized q objects in kdb+ files (`ff 01`, docs/kdb-format.md 1): a table's `.d` (its column
 * names, in order), a domain such as `sym` (names: domain.ts reads those lazily for columns), and a
 * table written whole at a database's root (a reference table), decoded through engine/q's columnar
 * decoder with every count checked against the bytes left and the object required to end exactly at
 * the file's end.
 *
 * A symbol list's header count is not trusted (q leaves `sym`'s stale or 0, and `.d`'s 0 in some
 * files): its names run to the end of the file, each ending in 0.
 */
import { TickscopeError } from '../../core/errors.js';
import { Table } from '../../core/table.js';
import { decodeColumns } from '../../q/columns.js';
import { qTypeName } from '../../q/types.js';
import { symbolNames } from './domain.js';
import { openKdbFile } from './file.js';
import { readLayout } from './header.js';
import { badFile, type KdbReadOptions } from './io.js';

/** A serialized object read from a file. */
export type KdbObject =
  | {
      /** A symbol list: a `.d` (column names) or a domain. */
      readonly kind: 'symbols';
      readonly names: readonly string[];
      /** The count its header states (informational: the names were counted to the file's end). */
      readonly headerCount: number;
    }
  | {
      /** A table or keyed table written whole. */
      readonly kind: 'table';
      readonly table: Table;
      /** A keyed table's key columns (first); 0 for a table. */
      readonly keyColumns: number;
      /** Each column's q type as stored (0 for strings and lists). */
      readonly qTypes: readonly number[];
    };

/** The object a `ff 01` file holds: a symbol list or a table; any other q object is an error naming its type. */
export function readObject(path: string, options: KdbReadOptions = {}): KdbObject {
  const file = openKdbFile(path, options);
  const layout = readLayout(file);
  if (layout.kind !== 'object') throw badFile(path, `a ${layout.kind} column file; expected a serialized q object (ff 01)`);
  const image = file.read(0, file.length);
  if (layout.qType === 11) {
    const { offsets, data, headerCount } = symbolNames(path, image);
    const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const names = Array.from({ length: offsets.length - 2 }, (_, k) => text.toString('utf8', offsets[k]!, offsets[k + 1]!));
    return { kind: 'symbols', names, headerCount };
  }
  if (layout.qType === 98 || layout.qType === 99) {
    const columns = decodeColumns(image.subarray(2), { source: `kdb+ file ${path}`, malformed: 'badDatabase' });
    if (columns.shape !== 'table' && columns.shape !== 'keyedTable') {
      throw new TickscopeError('notSupported', `kdb+ file ${path}: a serialized ${columns.shape === 'dictionary' ? 'dictionary of columns' : 'list of columns'}, not a table`);
    }
    return { kind: 'table', table: new Table(columns.names, columns.columns, columns.rows), keyColumns: columns.keyColumns, qTypes: columns.qTypes };
  }
  throw new TickscopeError('notSupported', `kdb+ file ${path}: a serialized ${qTypeName(layout.qType)}; expected a symbol list (.d, a domain) or a table`);
}

/** A table's column names from its `.d` file, in order. */
export function readColumnNames(path: string, options: KdbReadOptions = {}): readonly string[] {
  const o = readObject(path, options);
  if (o.kind !== 'symbols') throw badFile(path, 'a table, not a symbol list; a .d file lists column names');
  return o.names;
}
