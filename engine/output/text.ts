/**
 * JSON and CSV output at memory speed: column-wise cell writers prepared once per result (key bytes,
 * dictionary byte resolvers, a zone's timestamp writer), then a row loop writing bytes straight into
 * large buffers (out.ts). The text is byte-for-byte what the string renderers give (SPEC 2: the JSON
 * payload; CSV as RFC 4180 with the grid's text, timestamps outside UTC with their offset, SPEC 8),
 * which the tests check on generated data.
 */
import { type Column, int32Pairs } from '../core/column.js';
import type { Dict } from '../core/dict.js';
import type { Table } from '../core/table.js';
import { formatDate, formatTimespan } from '../core/time.js';
import { isUtcZone } from '../core/tz.js';
import { textCells } from './text-cells.js';
import { csvField } from './csv.js';
import { dictBytes } from './dict-bytes.js';
import { writeAscii, writeFloat, writeInt, writeLongWords, timestampWriter } from './numbers.js';
import { Out, utf8 } from './out.js';
import { copyBytes, putWords, ViewCache, wordsOf } from './words.js';

/**
 * Writes the cell of base row r at p and returns the position after it. A fixed-width cell (numbers,
 * timestamps, dates: at most CELL_MAX bytes) may assume the room; a variable one (symbols, strings,
 * lists) returns -1 when `b` lacks room for it, and the row is written again in a fresh buffer.
 */
type CellWriter = (b: Uint8Array, p: number, r: number) => number;

type Format = 'json' | 'csv';

/** Most bytes of a fixed-width cell (a float's longest text is 24, a quoted timestamp 31, a CSV one with its offset 38). */
const CELL_MAX = 48;

const NULL_WORD = -2147483648;

/**
 * The rows of one block of a column, as the cell writers read them: row k of the block is a[k] (a
 * 64-bit column's words at 2k, 2k+1). A view's block is gathered from its base through its index in
 * a tight loop first (a time-ordered result reads its stored columns out of order: gathering a block
 * overlaps those cache misses, which a loop that also formats each value cannot).
 */
interface Block {
  a: Float64Array | Int32Array | Uint8Array;
  /** The block's first row (for the columns read row by row: strings and lists). */
  from: number;
}

const BLOCK_ROWS = 4096;

/** Fills a column's block with rows [from, to) of the result. */
function blockLoader(c: Column, index: Int32Array | null, blk: Block): (from: number, to: number) => void {
  switch (c.type) {
    case 'float': {
      const src = c.data;
      const scratch = new Float64Array(BLOCK_ROWS);
      return index
        ? (from, to) => {
            for (let k = from; k < to; k++) scratch[k - from] = src[index[k]!]!;
            blk.a = scratch;
          }
        : (from, to) => (blk.a = src.subarray(from, to));
    }
    case 'long':
    case 'timestamp':
    case 'timespan': {
      const src = int32Pairs(c.data);
      const scratch = new Int32Array(2 * BLOCK_ROWS);
      return index
        ? (from, to) => {
            for (let k = from, o = 0; k < to; k++, o += 2) {
              const j = 2 * index[k]!;
              scratch[o] = src[j]!;
              scratch[o + 1] = src[j + 1]!;
            }
            blk.a = scratch;
          }
        : (from, to) => (blk.a = src.subarray(2 * from, 2 * to));
    }
    case 'int':
    case 'date':
    case 'boolean':
    case 'symbol': {
      const src = c.type === 'symbol' ? c.codes : c.data;
      const scratch = c.type === 'boolean' ? new Uint8Array(BLOCK_ROWS) : new Int32Array(BLOCK_ROWS);
      return index
        ? (from, to) => {
            for (let k = from; k < to; k++) scratch[k - from] = src[index[k]!]!;
            blk.a = scratch;
          }
        : (from, to) => (blk.a = src.subarray(from, to));
    }
    case 'string':
    case 'float[]':
    case 'long[]':
      return (from) => (blk.from = from);
  }
}

/** A column's cell writer (reading its block) for JSON values or CSV fields, and whether its width is fixed. */
function cellWriter(c: Column, index: Int32Array | null, blk: Block, zone: string, format: Format, rows: number): { write: CellWriter; fixed: boolean } {
  const json = format === 'json';
  const nul = json ? 'null' : '';
  const fixed = (write: CellWriter) => ({ write, fixed: true });
  switch (c.type) {
    case 'float': {
      const inf = json ? '"inf"' : 'inf';
      const ninf = json ? '"-inf"' : '-inf';
      return fixed((b, p, r) => {
        const x = (blk.a as Float64Array)[r]!;
        if (x !== x) return writeAscii(b, p, nul);
        if (x === Infinity) return writeAscii(b, p, inf);
        if (x === -Infinity) return writeAscii(b, p, ninf);
        return writeFloat(b, p, x);
      });
    }
    case 'long':
      return fixed((b, p, r) => {
        const w = blk.a as Int32Array;
        const hi = w[2 * r + 1]!;
        const lo = w[2 * r]!;
        return hi === NULL_WORD && lo === 0 ? writeAscii(b, p, nul) : writeLongWords(b, p, hi, lo);
      });
    case 'int':
      return fixed((b, p, r) => {
        const x = (blk.a as Int32Array)[r]!;
        return x === NULL_WORD ? writeAscii(b, p, nul) : writeInt(b, p, x);
      });
    case 'boolean':
      return fixed((b, p, r) => writeAscii(b, p, (blk.a as Uint8Array)[r] ? 'true' : 'false'));
    case 'timestamp': {
      // CSV outside UTC: each instant's offset after its wall-clock time, so readers get instants (SPEC 8)
      const write = timestampWriter(zone, !json && !isUtcZone(zone));
      return fixed((b, p, r) => {
        const w = blk.a as Int32Array;
        const hi = w[2 * r + 1]!;
        const lo = w[2 * r]!;
        if (hi === NULL_WORD && lo === 0) return writeAscii(b, p, nul);
        if (json) b[p++] = 34;
        if (hi === 2147483647 && lo === -1) p = writeAscii(b, p, '0Wp');
        else if (hi === NULL_WORD && lo === 1) p = writeAscii(b, p, '-0Wp');
        else p = write(b, p, hi, lo);
        if (json) b[p++] = 34;
        return p;
      });
    }
    case 'timespan':
      return fixed((b, p, r) => {
        const w = blk.a as Int32Array;
        const hi = w[2 * r + 1]!;
        const lo = w[2 * r]!;
        if (hi === NULL_WORD && lo === 0) return writeAscii(b, p, nul);
        const text = formatTimespan((BigInt(hi) << 32n) | BigInt(lo >>> 0));
        return writeAscii(b, p, json ? `"${text}"` : text);
      });
    case 'date': {
      let lastDay = NaN;
      let lastText = '';
      return fixed((b, p, r) => {
        const x = (blk.a as Int32Array)[r]!;
        if (x === NULL_WORD) return writeAscii(b, p, nul);
        if (x !== lastDay) {
          lastDay = x;
          lastText = json ? `"${formatDate(x)}"` : formatDate(x);
        }
        return writeAscii(b, p, lastText);
      });
    }
    case 'symbol':
      return { write: symbolWriter(blk, c.dict, json, rows), fixed: false };
    case 'string': {
      const v = c.values;
      return {
        write: (b, p, r) => {
          const s = v[index ? index[blk.from + r]! : blk.from + r]!;
          return writeText(b, p, json ? JSON.stringify(s) : csvField(s));
        },
        fixed: false,
      };
    }
    case 'float[]':
    case 'long[]': {
      const text = textCells(c, zone);
      return {
        write: (b, p, r) => {
          const s = text(index ? index[blk.from + r]! : blk.from + r);
          return writeText(b, p, json ? s : csvField(s));
        },
        fixed: false,
      };
    }
  }
}

/** Writes a string as UTF-8, or -1 when it may not fit. */
function writeText(b: Uint8Array, p: number, s: string): number {
  if (p + s.length * 3 > b.length) return -1;
  return p + encoder.encodeInto(s, b.subarray(p)).written;
}

const encoder = new TextEncoder();

/**
 * Symbols: the dictionary entry's bytes copied as they are (quoted for JSON), checked on the way for
 * a byte that needs escaping (JSON: a quote, backslash or control character; CSV: a quote, comma or
 * line break); such an entry is written through JSON.stringify or csvField instead.
 */
function symbolWriter(blk: Block, dict: Dict, json: boolean, rows: number): CellWriter {
  // a dictionary small beside the rows: every entry's cell text rendered once, then copied
  if (dict.length <= SMALL_DICT && dict.length * 4 <= rows) return renderedSymbolWriter(blk, renderedEntries(dict, json));
  const bytes = dictBytes(dict);
  return (b, p, r) => {
    const code = (blk.a as Int32Array)[r]!;
    bytes.at(code);
    const { data, start, end } = bytes;
    if (p + end - start + 2 > b.length) return -1;
    if (json) {
      if (!bytes.exact) return writeText(b, p, JSON.stringify(dict.get(code)));
      b[p++] = 34;
    }
    for (let k = start; k < end; k++) {
      const x = data[k]!;
      if (json ? x < 32 || x === 34 || x === 92 : x === 34 || x === 44 || x === 10 || x === 13) {
        const s = dict.get(code);
        return writeText(b, json ? p - 1 - (k - start) : p - (k - start), json ? JSON.stringify(s) : csvField(s));
      }
      b[p++] = x;
    }
    if (json) b[p++] = 34;
    return p;
  };
}

/** Most entries of a dictionary whose cells are rendered once per entry rather than once per row. */
const SMALL_DICT = 1 << 16;

/** Every entry of a dictionary as its cell's bytes (quoted and escaped for JSON, a CSV field), end to end. */
function renderedEntries(dict: Dict, json: boolean): { readonly text: Uint8Array; readonly offsets: Int32Array } {
  const bytes = dictBytes(dict);
  const offsets = new Int32Array(dict.length + 1);
  let text = new Uint8Array(Math.max(64, dict.length * 16));
  let p = 0;
  for (let code = 0; code < dict.length; code++) {
    bytes.at(code);
    const { data, start, end } = bytes;
    if (p + (end - start) * 6 + 8 > text.length) {
      const grown = new Uint8Array(Math.max(text.length * 2, p + (end - start) * 6 + 8));
      grown.set(text.subarray(0, p));
      text = grown;
    }
    let plain = !json || bytes.exact;
    for (let k = start; k < end && plain; k++) {
      const x = data[k]!;
      plain = json ? !(x < 32 || x === 34 || x === 92) : !(x === 34 || x === 44 || x === 10 || x === 13);
    }
    if (plain) {
      if (json) text[p++] = 34;
      text.set(data.subarray(start, end), p);
      p += end - start;
      if (json) text[p++] = 34;
    } else {
      const s = dict.get(code);
      p += encoder.encodeInto(json ? JSON.stringify(s) : csvField(s), text.subarray(p)).written;
    }
    offsets[code + 1] = p;
  }
  return { text, offsets };
}

/** Symbols of a small dictionary: each cell a copy of its entry's rendered bytes. */
function renderedSymbolWriter(blk: Block, entries: { readonly text: Uint8Array; readonly offsets: Int32Array }): CellWriter {
  const { text, offsets } = entries;
  const sv = new DataView(text.buffer, text.byteOffset, text.byteLength);
  const views = new ViewCache();
  return (b, p, r) => {
    const code = (blk.a as Int32Array)[r]!;
    const from = offsets[code]!;
    const to = offsets[code + 1]!;
    if (p + to - from > b.length) return -1;
    return copyBytes(views.view(b), b, p, sv, text, from, to);
  };
}

/** Writes one row's keys and cells at p (room for its fixed part assumed); -1 when a variable-width cell did not fit. */
type RowWriter = (b: Uint8Array, dv: DataView, p: number, r: number) => number;

/**
 * The row writer of these columns, generated for them: each key's bytes stored as constant words and
 * each column's cell writer called from a call site of its own. One loop over the columns calls every
 * writer from one site, which V8 then calls through its megamorphic path and never inlines (~20 ns a
 * cell); a site per column sees one function and inlines it. Where code cannot be generated (a
 * policy forbidding it), that loop. The bytes are the same either way.
 */
function rowWriter(keys: readonly Uint8Array[], cells: readonly CellWriter[], fixed: readonly boolean[]): RowWriter {
  // the room the rest of the row needs after column j (its keys, fixed cells and the row's end): the
  // row starts with room for all of them, and a variable cell may take some of it
  const rest = keys.map((_, j) => keys.slice(j + 1).reduce((sum, key, k) => sum + key.length + (fixed[j + 1 + k] ? CELL_MAX : 0), 1));
  const words = keys.map(wordsOf);
  const loop: RowWriter = (b, dv, p, r) => {
    for (let j = 0; j < cells.length; j++) {
      p = cells[j]!(b, putWords(dv, b, p, words[j]!), r);
      if (!fixed[j] && (p < 0 || p + rest[j]! > b.length)) return -1;
    }
    return p;
  };
  const body: string[] = [];
  words.forEach((w, j) => {
    for (let k = 0; k < w.words.length; k++) body.push(`dv.setInt32(p + ${4 * k}, ${w.words[k]}, true);`);
    for (let k = 0; k < w.tail.length; k++) body.push(`b[p + ${4 * w.words.length + k}] = ${w.tail[k]};`);
    body.push(`p = c${j}(b, p + ${w.length}, r);`);
    if (!fixed[j]) body.push(`if (p < 0 || p + ${rest[j]} > b.length) return -1;`);
  });
  body.push('return p;');
  try {
    const params = cells.map((_, j) => `c${j}`);
    // generated from our own column count and key bytes only (no text of the data)
    return new Function(...params, `return function row(b, dv, p, r) {\n${body.join('\n')}\n};`)(...cells) as RowWriter;
  } catch {
    return loop;
  }
}

/**
 * Renders rows into an Out's buffer: per row, the separators and keys (prepared bytes) and each
 * column's cell, through the row index its columns share (a view's) or each its own.
 */
export class RowRenderer {
  private readonly row: RowWriter;
  private readonly loaders: Array<(from: number, to: number) => void>;
  /** Bytes before each cell (JSON: `{"name":` or `,"name":`; CSV: a comma after the first). */
  private readonly before: Uint8Array[];
  private readonly views = new ViewCache();
  private readonly rowStart: number;
  private readonly rowEnd: number;
  /** Room a row's fixed part needs: its separators, keys and fixed-width cells. */
  private readonly reserve: number;
  /** The loaded block: rows [blockFrom, blockTo). */
  private blockFrom = 0;
  private blockTo = 0;

  constructor(
    private readonly t: Table,
    zone: string,
    format: Format,
  ) {
    const writers = t.sources().map(({ column, index }) => {
      const blk: Block = { a: new Uint8Array(0), from: 0 };
      return { load: blockLoader(column, index, blk), ...cellWriter(column, index, blk, zone, format, t.length) };
    });
    this.loaders = writers.map((w) => w.load);
    if (format === 'json') {
      this.before = t.names.map((n, j) => utf8(`${j === 0 ? '{' : ','}${JSON.stringify(n)}:`));
      this.rowStart = t.names.length === 0 ? 123 : -1; // '{' (a row without columns)
      this.rowEnd = 125; // '}'
    } else {
      this.before = t.names.map((_, j) => utf8(j === 0 ? '' : ','));
      this.rowStart = -1;
      this.rowEnd = 10; // line feed
    }
    this.row = rowWriter(
      this.before,
      writers.map((w) => w.write),
      writers.map((w) => w.fixed),
    );
    this.reserve = 2 + writers.reduce((sum, w, j) => sum + this.before[j]!.length + (w.fixed ? CELL_MAX : 0), 0);
  }

  /**
   * Renders rows from `from` until the chunk is full or row `end` (default: the last); returns the next row. `sep`
   * is written before each row but the first of the output (JSON's comma between objects).
   */
  fill(o: Out, from: number, sep: number, end = this.t.length): number {
    const { row, rowStart, rowEnd, reserve } = this;
    const n = end;
    const soft = o.chunkBytes;
    let b = o.buf;
    let dv = this.views.view(b);
    let p = o.pos;
    let i = from;
    while (i < n) {
      if (i >= this.blockTo || i < this.blockFrom) this.load(i);
      const p0 = p;
      if (p + reserve > b.length) {
        if (p > 0) break; // hand over what is written, then this row in the next buffer
        o.grow(reserve);
        b = o.buf;
        dv = this.views.view(b);
      }
      const r = i - this.blockFrom;
      if (sep >= 0 && i > 0) b[p++] = sep;
      if (rowStart >= 0) b[p++] = rowStart;
      // room for every key and fixed-width cell is reserved above; a variable cell checks its own
      p = row(b, dv, p, r);
      if (p < 0 || p + 1 > b.length) {
        // a variable-width cell did not fit: this row again, after the rows before it go out
        p = p0;
        if (p > 0) break;
        o.grow(b.length * 2);
        b = o.buf;
        dv = this.views.view(b);
        continue;
      }
      b[p++] = rowEnd;
      i++;
      if (p >= soft) break;
    }
    o.pos = p;
    return i;
  }

  private load(from: number): void {
    const to = Math.min(this.t.length, from + BLOCK_ROWS);
    for (const load of this.loaders) load(from, to);
    this.blockFrom = from;
    this.blockTo = to;
  }
}

/** Hands over the chunks the buffer has filled. */
function* handOver(o: Out, pending: Uint8Array[]): Generator<Uint8Array> {
  o.flush();
  while (pending.length > 0) yield pending.shift()!;
}

export interface TextOptions {
  /** Text before the rows (the JSON envelope's header) and after them. */
  readonly prefix?: string;
  readonly suffix?: string;
  /** Bytes per chunk (default 1 MiB). */
  readonly chunkBytes?: number;
  /** The consumer is done with each chunk before pulling the next (see Out): one buffer, reused. */
  readonly reuse?: boolean;
  /** Told the rows written so far and the table's rows, after each block of rows. */
  readonly onRows?: (done: number, total: number) => void;
}

/**
 * A table as JSON (the payload array) or CSV, in chunks of about `chunkBytes` rendered as they are
 * pulled: a consumer that stops pulling (back-pressure, a cancel between chunks) stops the rendering.
 * Each chunk is a fresh buffer the consumer may keep or transfer.
 */
export function* textChunks(format: Format, t: Table, zone: string, opts: TextOptions = {}): Generator<Uint8Array, void, void> {
  const pending: Uint8Array[] = [];
  const o = new Out((c) => pending.push(c), opts.chunkBytes, opts.reuse);
  const { head, tail, sep } = textFraming(format, t, opts);
  o.text(head);
  const rows = new RowRenderer(t, zone, format);
  for (let i = 0; i < t.length; ) {
    i = rows.fill(o, i, sep);
    opts.onRows?.(i, t.length);
    if (i < t.length) yield* handOver(o, pending);
  }
  o.text(tail);
  yield* handOver(o, pending);
}

/**
 * The text before the rows (the prefix, then JSON's '[' or CSV's header line), after them, and the
 * byte before every row but the first (JSON's comma; none for CSV).
 */
export function textFraming(format: Format, t: Table, opts: TextOptions): { head: string; tail: string; sep: number } {
  const json = format === 'json';
  return {
    head: (opts.prefix ?? '') + (json ? '[' : `${t.names.map(csvField).join(',')}\n`),
    tail: (json ? ']' : '') + (opts.suffix ?? ''),
    sep: json ? 44 : -1,
  };
}
