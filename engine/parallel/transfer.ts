/**
 * A query result as a message between threads: every column's typed arrays travel by transfer (no
 * per-row clone), stored data shared by reference (SharedArrayBuffers), dictionaries as their bytes or
 * strings. Used for the parts of a split query (helper worker -> executor -> the query's worker) and
 * for results a caller takes whole (Executor.call: worker -> the serving thread).
 *
 * A column's buffer is transferred only when the column's view covers all of it and it is not shared:
 * in a query worker, stored data is always shared (the executor's column store), so such a buffer was
 * made by the query. Anything else is copied first, and so are a dictionary's plain arrays (the
 * engine may hold them in its cache).
 */
import type { Column, ColumnType } from '../core/column.js';
import { ConcatDict, type Dict, dictOf, PickDict, StringDict, Utf8Dict } from '../core/dict.js';
import { Table } from '../core/table.js';
import type { QueryResult } from '../core/result.js';
import { inFirstUseOrder } from '../storage/prepare.js';
import { FileDict, type FileDictSnapshot } from '../storage/stored-column.js';

type View = Float64Array | BigInt64Array | Int32Array | Uint8Array;

export type EncodedDict =
  | { readonly k: 'strings'; readonly strings: readonly string[]; readonly sorted: boolean }
  | { readonly k: 'utf8'; readonly offsets: Int32Array; readonly data: Uint8Array; readonly sorted: boolean; readonly unique: boolean; readonly source?: string }
  | { readonly k: 'pick'; readonly base: EncodedDict; readonly picks: Int32Array }
  | { readonly k: 'concat'; readonly parts: readonly EncodedDict[] }
  /** A dictionary read from disk in blocks: its files and the blocks read so far (shared). */
  | { readonly k: 'file'; readonly file: FileDictSnapshot };

export interface EncodedColumn {
  readonly type: ColumnType;
  /** float, int64, int32, boolean data; list values */
  readonly data?: View;
  /** symbol codes; list offsets */
  readonly codes?: Int32Array;
  readonly dict?: EncodedDict;
  readonly strings?: readonly string[];
}

export interface EncodedResult {
  readonly names: readonly string[];
  readonly length: number;
  readonly columns: readonly EncodedColumn[];
  readonly meta: Omit<QueryResult, 'table'>;
}

/** True for a view that can be handed over as it is: a shared buffer, or a whole plain buffer. */
const whole = (v: View): boolean => v.buffer instanceof SharedArrayBuffer || (v.byteOffset === 0 && v.byteLength === v.buffer.byteLength);

/** The view itself when it can travel as it is, else a copy that can. */
function own<T extends View>(v: T): T {
  return whole(v) ? v : (v.slice() as T);
}

/** Shared as it is, else a copy (a dictionary's arrays may be held by the engine's cache: never moved). */
function copied<T extends View>(v: T): T {
  return v.buffer instanceof SharedArrayBuffer ? v : (v.slice() as T);
}

/** A dictionary as a message, or null when it is of another kind (the column is then compacted to the strings it uses). */
function encodeDict(d: Dict): EncodedDict | null {
  if (d instanceof StringDict) return { k: 'strings', strings: d.strings, sorted: d.sorted };
  if (d instanceof Utf8Dict) return { k: 'utf8', offsets: copied(d.offsets), data: copied(d.data), sorted: d.sorted, unique: d.unique, ...(d.source ? { source: d.source } : {}) };
  if (d instanceof PickDict) {
    const base = encodeDict(d.base);
    return base ? { k: 'pick', base, picks: copied(d.picks) } : null;
  }
  if (d instanceof ConcatDict) {
    const parts = d.parts.map(encodeDict);
    return parts.every((p) => p !== null) ? { k: 'concat', parts: parts as EncodedDict[] } : null;
  }
  if (d instanceof FileDict) return { k: 'file', file: d.snapshot() };
  return null;
}

function decodeDict(e: EncodedDict): Dict {
  switch (e.k) {
    case 'strings':
      return dictOf(e.strings, e.sorted);
    case 'utf8':
      return new Utf8Dict(e.offsets, e.data, e.sorted, e.unique, e.source);
    case 'pick':
      // the sending thread read what the picks use (PickDict's constructor there), and the base's
      // snapshot carries it: not checked again here (the serving thread, for a whole result)
      return new PickDict(decodeDict(e.base), e.picks, false);
    case 'concat':
      return new ConcatDict(e.parts.map(decodeDict));
    case 'file':
      return FileDict.restore(e.file);
  }
}

export function encodeColumn(c: Column): EncodedColumn {
  switch (c.type) {
    case 'symbol': {
      const dict = encodeDict(c.dict);
      if (dict) return { type: c.type, codes: own(c.codes), dict };
      // another kind of dictionary: only the strings the rows use travel
      const compact = inFirstUseOrder(c);
      return { type: c.type, codes: compact.codes, dict: encodeDict(compact.dict)! };
    }
    case 'string':
      return { type: c.type, strings: c.values };
    case 'float[]':
    case 'long[]':
      return { type: c.type, codes: own(c.offsets), data: own(c.values) };
    default:
      return { type: c.type, data: own(c.data) };
  }
}

export function decodeColumn(e: EncodedColumn): Column {
  switch (e.type) {
    case 'symbol':
      return { type: e.type, codes: e.codes!, dict: decodeDict(e.dict!) };
    case 'string':
      return { type: e.type, values: e.strings! };
    case 'float[]':
    case 'long[]':
      return { type: e.type, offsets: e.codes!, values: e.data as Float64Array };
    default:
      return { type: e.type, data: e.data } as Column;
  }
}

/** The plain (not shared) buffers of a message: they move with it instead of being copied. */
export function transferables(m: EncodedResult): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const add = (v: View | undefined): void => {
    if (v && !(v.buffer instanceof SharedArrayBuffer)) out.add(v.buffer as ArrayBuffer);
  };
  const dict = (d: EncodedDict): void => {
    if (d.k === 'utf8') {
      add(d.offsets);
      add(d.data);
    } else if (d.k === 'pick') {
      add(d.picks);
      dict(d.base);
    } else if (d.k === 'concat') d.parts.forEach(dict);
    else if (d.k === 'file') {
      for (const b of d.file.blocks) {
        add(b.offsets);
        add(b.text);
      }
    }
  };
  for (const c of m.columns) {
    add(c.data);
    add(c.codes);
    if (c.dict) dict(c.dict);
  }
  return [...out];
}

/** A result as a message and the buffers to transfer with it (the result must not be used after). */
export function encodeResult(r: QueryResult): { readonly message: EncodedResult; readonly transfer: ArrayBuffer[] } {
  const { table, ...meta } = r;
  const message: EncodedResult = { names: table.names, length: table.length, columns: table.columns.map(encodeColumn), meta };
  return { message, transfer: transferables(message) };
}

export function decodeResult(m: EncodedResult): QueryResult {
  return { ...m.meta, table: new Table(m.names, m.columns.map(decodeColumn), m.length) };
}
