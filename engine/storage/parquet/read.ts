/**
 * `tickscope import` of Parquet files (SPEC 8). Columns are matched to the table's by name and decoded
 * row group by row group, page by page, straight into the engine's column layout: int64 words for
 * timestamps, timespans and longs, float64 and int32 arrays, symbol codes into a UTF-8 dictionary
 * per column. hyparquet parses the footer and decodes pages (every encoding, V1 and V2 data pages) and
 * hyparquet-compressors decompresses them; the conversion to Tickscope types is ours, so that
 *
 * - no value becomes a JS object per row (hyparquet's own row assembly turns every timestamp into a
 *   Date and every dictionary entry into a per-row reference; 1M rows of 14 columns would be 14M),
 * - timestamps are widened exactly (MILLIS/MICROS times 10^6/10^3 on the int64's 32-bit words, never
 *   through float milliseconds), and
 * - a dictionary-encoded column is converted once per dictionary, then by index.
 *
 * The footer is read (footer.ts), every column's Parquet type is matched to its table column's
 * (columns.ts), then each column chunk's pages are decoded (pages.ts) and made into rows (sinks.ts).
 *
 * Everything is checked before anything is written: the first bad value is reported with its file
 * row, row group and column, and a damaged file with its row group and column.
 */
import { TickscopeError } from '../../core/errors.js';
import { Table } from '../../core/table.js';
import type { TableSchema } from '../schema.js';
import { checkNames, checkPresent, planColumns, tableColumns } from './columns.js';
import { checkLayout } from './check.js';
import { chunkOf, readFooter, rowGroupStarts } from './footer.js';
import { hyparquet } from './hyparquet.js';
import { readChunk } from './pages.js';

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

const INT32_MIN = -2147483648;

/** Reads a Parquet file into a table with the target table's columns (absent columns are null). */
export function parseParquet(t: TableSchema, bytes: Uint8Array, file: string, opts: { readonly mapped?: boolean } = {}): Table {
  const h = hyparquet();
  const { buffer, meta, tree, dataEnd } = readFooter(h, bytes, file);
  // a mapped import reads the columns it names (the mapping checked they are there) and skips the rest
  if (opts.mapped) checkPresent(t, tree, file);
  else checkNames(t, tree, file);

  const rows = Number(meta.num_rows);
  const groups = meta.row_groups;
  const groupStart = rowGroupStarts(meta, rows, file);
  // every claim of the row groups, chunks and page headers against the bytes, before anything is allocated from them
  checkLayout(h, buffer, meta, tree, dataEnd, file);
  const where = (g: number): string => `row group ${g + 1} of ${groups.length}`;
  const groupOf = (row: number): number => {
    let g = 0;
    while (groupStart[g + 1]! <= row) g++;
    return g;
  };
  const at = (name: string) => (row: number): string => `${file}: row ${row + 1} (${where(groupOf(row))}), column ${name}`;

  // every column is checked against the file's schema before any page is decoded
  const plans = planColumns(t, meta, tree, rows, file);

  for (let g = 0; g < groups.length; g++) {
    const group = groups[g]!;
    const groupRows = Number(group.num_rows);
    if (groupRows === 0) continue;
    for (const plan of plans) {
      const name = plan.def.name;
      const chunk = chunkOf(group, plan.leaf);
      const damaged = (why: string): never => fail(`${file}: ${where(g)}, column ${name}: damaged (${why})`);
      if (!chunk?.meta_data) return damaged('the row group has no data for it');
      if (chunk.file_path) return fail(`${file}: column ${name} keeps its data in another file (${chunk.file_path}); only self-contained Parquet files can be imported`);
      let row = groupStart[g]!;
      const end = groupStart[g + 1]!;
      plan.sink.startChunk?.();
      try {
        readChunk(h, buffer, chunk.meta_data, plan, (page, src) => {
          row += plan.sink.put(row, page, src, at(name));
        });
      } catch (e) {
        if (e instanceof TickscopeError) throw e;
        damaged((e as Error).message);
      }
      if (row !== end) damaged(`${row - groupStart[g]!} rows where the row group has ${groupRows}`);
    }
  }

  const columns = tableColumns(t, plans, rows);
  const time = t.timeColumn ? columns[t.columns.findIndex((c) => c.name === t.timeColumn)] : undefined;
  if (time?.type === 'timestamp') {
    const w = new Int32Array(time.data.buffer, time.data.byteOffset, time.data.length * 2);
    for (let i = 0; i < rows; i++) {
      if (w[2 * i + 1] === INT32_MIN && w[2 * i] === 0) fail(`${at(t.timeColumn!)(i)}: null; every ${t.name} row needs its time column`);
    }
  }
  return new Table(t.columns.map((c) => c.name), columns, rows);
}
