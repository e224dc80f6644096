/**
 * One output for the parts of a split getTicks: before dispatching its parts, the query allocates
 * each fixed-width result column once, for the whole query's rows, in one SharedArrayBuffer; part k
 * gathers (and fills) its rows straight into rows [offset_k, offset_k + rows_k). The merged column is
 * then a view of that buffer: the parts' rows are neither transferred nor copied into one (measured
 * on the forward-fill case, 2M rows × 6 columns: the copy and its page faults cost 55–130 ms of a
 * 190 ms split query). A part over several partitions gathers its rows there directly (gatherParts
 * into the place: no column of its own, no second copy). Symbol columns go the same way (their
 * codes): when every part's codes are those of one stored dictionary (a time split within one
 * partition) the merged column takes it; otherwise each part's codes are numbered in its own
 * dictionary, and the merge offsets them in place by the entries of the parts before (a pass over
 * the later parts' rows) and appends the dictionaries. Appending the parts' codes instead cost
 * ~35 ms a call of the 2-worker slice over 5 days, on the query's thread after the parts ended.
 *
 * A part whose selection does not have the rows it was promised (a filter or an idList the plan could
 * not count) ignores the output and returns its own columns; so does a column the part's kernels
 * replace instead of writing in place. Such columns are appended as before.
 */
import { type Column, type ColumnType, type GatherInto, int32Pairs } from './column.js';
import { concatDicts } from './dict.js';
import type { OutputColumn, Shard, ShardOutput } from './query-hooks.js';
import { Table } from './table.js';

type FixedType = 'float' | 'long' | 'timestamp' | 'timespan' | 'int' | 'date' | 'boolean';

const WIDTH: Readonly<Record<FixedType, number>> = { float: 8, long: 8, timestamp: 8, timespan: 8, int: 4, date: 4, boolean: 1 };

const fixed = (type: ColumnType): type is FixedType => type in WIDTH;

/** Bytes per row in the output: a fixed-width column's value, a symbol's code. */
const widthOf = (type: ColumnType): number => (type === 'symbol' ? 4 : fixed(type) ? WIDTH[type] : 0);

/**
 * Places for these columns (fixed-width ones and symbols' codes) of `rows` rows, 8-aligned in one
 * shared buffer: one large allocation is fresh mapped memory, which the parts fault in as they write
 * it, where a buffer per column (a few MB each) could come from heap memory the allocator must zero
 * first, on the query's thread before any part starts (~60 ms for 1M rows of Trade, measured in the
 * bench's process).
 */
export function allocateOutput(columns: ReadonlyArray<{ readonly name: string; readonly type: ColumnType }>, rows: number): Record<string, OutputColumn> {
  const at: Array<[string, number]> = [];
  let bytes = 0;
  for (const c of columns) {
    if (widthOf(c.type) === 0) continue;
    at.push([c.name, bytes]);
    bytes += Math.ceil((rows * widthOf(c.type)) / 8) * 8;
  }
  const buffer = new SharedArrayBuffer(Math.max(8, bytes));
  return Object.fromEntries(at.map(([name, byteOffset]) => [name, { buffer, byteOffset }]));
}

/** Rows [offset, offset + rows) of a column's place, as that column. */
function columnIn(type: FixedType, { buffer, byteOffset }: OutputColumn, offset: number, rows: number): Column {
  switch (type) {
    case 'float':
      return { type, data: new Float64Array(buffer, byteOffset + offset * 8, rows) };
    case 'long':
    case 'timestamp':
    case 'timespan':
      return { type, data: new BigInt64Array(buffer, byteOffset + offset * 8, rows) };
    case 'int':
    case 'date':
      return { type, data: new Int32Array(buffer, byteOffset + offset * 4, rows) };
    case 'boolean':
      return { type, data: new Uint8Array(buffer, byteOffset + offset, rows) };
  }
}

/**
 * The place of column `name` (of `type`) for this part's rows, as the array gatherParts writes: the
 * data of a fixed-width column, a symbol's codes; undefined when the column has none.
 */
export function placeOf(out: ShardOutput, name: string, type: ColumnType): GatherInto | undefined {
  const place = out.columns[name];
  if (!place) return undefined;
  if (type === 'symbol') return new Int32Array(place.buffer, place.byteOffset + out.offset * 4, out.rows);
  return fixed(type) ? (dataOf(columnIn(type, place, out.offset, out.rows)) as GatherInto) : undefined;
}

/** True when the column's data (a symbol's codes) already lies in the part's rows of its place. */
function inPlace(c: Column, place: OutputColumn, out: ShardOutput): boolean {
  const d = dataOf(c);
  const w = widthOf(c.type);
  return !!d && w > 0 && d.buffer === place.buffer && d.byteOffset === place.byteOffset + out.offset * w && d.byteLength === out.rows * w;
}

/** Copies rows `index` of `src` (every row when null) into `dest`, of the same type. */
function gatherInto(src: Column, index: Int32Array | null, dest: Column): void {
  if (src.type === 'float' || src.type === 'int' || src.type === 'date' || src.type === 'boolean') {
    const s = src.data;
    const d = (dest as typeof src).data;
    if (!index) d.set(s as never);
    else for (let i = 0; i < index.length; i++) d[i] = s[index[i]!]!;
    return;
  }
  if (src.type === 'long' || src.type === 'timestamp' || src.type === 'timespan') {
    const s = int32Pairs(src.data);
    const d = int32Pairs((dest as typeof src).data);
    if (!index) d.set(s);
    else {
      for (let i = 0, k = 0; i < index.length; i++, k += 2) {
        const j = 2 * index[i]!;
        d[k] = s[j]!;
        d[k + 1] = s[j + 1]!;
      }
    }
  }
}

/** The table with its columns that have a buffer in `out` gathered into it (the rest as they were). */
export function gatherIntoOutput(table: Table, out: ShardOutput): Table {
  const sources = table.sources();
  let t = table;
  table.names.forEach((name, i) => {
    const { column, index } = sources[i]!;
    const place = out.columns[name];
    if (!place || (!index && inPlace(column, place, out))) return; // gathered there already
    if (column.type === 'symbol' && column.dict.source !== undefined) {
      const codes = new Int32Array(place.buffer, place.byteOffset + out.offset * 4, out.rows);
      if (!index) codes.set(column.codes);
      else for (let k = 0; k < index.length; k++) codes[k] = column.codes[index[k]!]!;
      column.dict.prefetch?.(codes);
      t = t.with(name, { type: 'symbol', codes, dict: column.dict });
      return;
    }
    if (!fixed(column.type)) return;
    const dest = columnIn(column.type, place, out.offset, out.rows);
    gatherInto(column, index, dest);
    t = t.with(name, dest);
  });
  return t;
}

/** The data of a fixed-width column, a symbol column's codes. */
const dataOf = (c: Column): ArrayBufferView | null => ('data' in c ? c.data : c.type === 'symbol' ? c.codes : null);

/** The columns of a part's result that lie in its output's rows (written there, not replaced). */
export function writtenColumns(table: Table, shard: Shard | undefined): string[] {
  const out = shard?.into;
  if (!out || table.length !== out.rows) return [];
  return table.names.filter((name) => {
    const place = out.columns[name];
    return !!place && inPlace(table.col(name), place, out);
  });
}

/** The dictionary source of each symbol column among `written` (what the merge checks the parts agree on). */
export function writtenDicts(table: Table, written: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of written) {
    const c = table.col(name);
    if (c.type === 'symbol' && c.dict.source !== undefined) out[name] = c.dict.source;
  }
  return out;
}

/**
 * The merged columns of a split query whose every part wrote them into `columns` (the parts' written
 * names), as views of those buffers over all `rows` rows; other columns are absent (appended by the
 * caller). A symbol column whose parts share one stored dictionary takes it; otherwise each part's
 * codes (numbered in its own dictionary) are offset, in place, by the entries of the parts before it,
 * and the dictionaries are appended (nothing decoded).
 */
export function sharedColumns(
  columns: Readonly<Record<string, OutputColumn>>,
  parts: ReadonlyArray<{ readonly table: Table; readonly wroteInto?: readonly string[]; readonly wroteDicts?: Readonly<Record<string, string>> }>,
  rows: number,
): Map<string, Column> {
  const out = new Map<string, Column>();
  for (const d of parts[0]!.table.defs) {
    const place = columns[d.name];
    if (!place || !parts.every((p) => p.wroteInto?.includes(d.name))) continue;
    if (fixed(d.type)) out.set(d.name, columnIn(d.type, place, 0, rows));
    else if (d.type === 'symbol') {
      const codes = new Int32Array(place.buffer, place.byteOffset, rows);
      const dicts = parts.map((p) => (p.table.col(d.name) as Extract<Column, { type: 'symbol' }>).dict);
      const source = parts[0]!.wroteDicts?.[d.name];
      if (source !== undefined && parts.every((p) => p.wroteDicts?.[d.name] === source)) {
        out.set(d.name, { type: 'symbol', codes, dict: dicts[0]! });
        continue;
      }
      let at = 0;
      let base = 0;
      parts.forEach((p, k) => {
        const end = at + p.table.length;
        if (base !== 0) for (let i = at; i < end; i++) codes[i] = codes[i]! + base;
        at = end;
        base += dicts[k]!.length;
      });
      out.set(d.name, { type: 'symbol', codes, dict: concatDicts(dicts) });
    }
  }
  return out;
}
