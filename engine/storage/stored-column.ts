/**
 * One column of one stored partition, read in pieces. Fixed-width columns live in a full-size
 * SharedArrayBuffer (zero pages cost no memory until written, and worker threads can share it) and
 * only the row ranges a query asks for are read from disk, by positioned reads; a narrow query reads
 * a few kilobytes instead of whole-day files. Symbol dictionaries are UTF-8 plus offsets, read whole
 * into shared buffers and decoded lazily (core/dict.ts). Strings and lists are read whole.
 */
import { closeSync, fstatSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Column } from '../core/column.js';
import { type Dict, Utf8Dict } from '../core/dict.js';
import { blockWords, LoadedBlocks, sharedStore } from './shared-store.js';
import { readExactly, readParallel, readsInParallel, shareSums } from './parallel-read.js';
import { checkSize, damagedFile, sumsOf } from './checksums.js';
import { checkCodes, checkOffsets, checkOffsetsBlock } from './structure.js';
import type { ColumnDef, DeferredColumn } from '../core/table.js';
import type { StreamedFiles } from '../core/streamed-files.js';

/** A file of a partition folder is gone: a write replaced the folder (the query retries once). */
export class FolderGoneError extends Error {
  constructor(readonly path: string) {
    super(`${path} is gone (replaced by a write)`);
    this.name = 'FolderGoneError';
  }
}

/** Row ranges [start, end), ascending and disjoint. */
export type RowRanges = ReadonlyArray<readonly [number, number]>;

const TWO32 = 4294967296;
const NULL_HI = -2147483648;

/** Opens a partition file for reading; a missing file means the folder was replaced. */
function openFile(path: string): number {
  try {
    return openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new FolderGoneError(path);
    throw e;
  }
}

/** Reads `into.length` bytes at `position` of a file into `into` (fully; a large read with helper threads, if any), its checksums checked. */
function readAt(fd: number, into: Uint8Array, position: number, path: string): void {
  if (readsInParallel(into)) readParallel(fd, into, position, path, () => readExactly(fd, into, position, path));
  else readExactly(fd, into, position, path);
}


/** A whole file through the process's shared store (read once for every worker), else readShared. */
export function readFileShared(path: string): Uint8Array {
  const store = sharedStore();
  return store ? store.file(path, () => readShared(path)) : readShared(path);
}

/** A whole file in a shared, 8-byte-aligned buffer. */
export function readShared(path: string): Uint8Array {
  const fd = openFile(path);
  try {
    const size = fstatSync(fd).size;
    checkSize(path, size);
    const out = new Uint8Array(new SharedArrayBuffer(Math.ceil(size / 8) * 8), 0, size);
    readAt(fd, out, 0, path);
    return out;
  } finally {
    closeSync(fd);
  }
}

const shared = (bytes: number): SharedArrayBuffer => new SharedArrayBuffer(Math.max(8, Math.ceil(bytes / 8) * 8));

const BLOCK_BITS = 12;
const BLOCK = 1 << BLOCK_BITS;

/** What FileDict.snapshot gives: where the dictionary's files are and the blocks read so far. */
export interface FileDictSnapshot {
  readonly offsetsPath: string;
  readonly dataPath: string;
  readonly length: number;
  readonly blocks: ReadonlyArray<{ readonly index: number; readonly offsets: Int32Array; readonly text: Uint8Array }>;
  /** Both files whole, when they were read so (the blocks above are then views of them). */
  readonly whole?: { readonly offsets: Int32Array; readonly data: Uint8Array };
}

/**
 * A dictionary in first-use order (nearly unique values such as execution IDs) read from disk in
 * blocks of 4096 entries, each with two positioned reads (its offsets, then its bytes) when a code of
 * it is first needed: the rows of one identifier use a narrow range of codes, so a narrow query reads
 * a few blocks of a 2M-entry dictionary. A query that needs over half of the blocks (a full day) reads
 * both files whole instead, in two reads (shared with helper threads where there are some), and every
 * block is a view of them: no 2 x 500 small reads, and an Arrow dictionary of every entry is those
 * buffers as they are. Strings are decoded when asked, each once.
 */

export class FileDict implements Dict {
  readonly sorted = false;
  readonly length: number;
  private readonly blocks: Array<{ offsets: Int32Array; text: Buffer } | undefined>;
  private readonly decodedStrings = new Map<number, string>();
  private held = 0;
  private wholeFiles: { offsets: Int32Array; data: Uint8Array } | undefined;
  private streamed: { offsets: Int32Array; fd: number; path: string; bytes: number } | undefined;

  constructor(
    private readonly offsetsPath: string,
    private readonly dataPath: string,
    length?: number,
  ) {
    this.length = length ?? dictLength(offsetsPath);
    this.blocks = new Array<undefined>(Math.ceil(this.length / BLOCK)).fill(undefined);
  }

  /**
   * The blocks in memory (shared buffers, never changed once read: passed by reference) and where the
   * others are, for another thread to rebuild the dictionary from (a result's dictionary moving
   * between threads).
   */
  snapshot(): FileDictSnapshot {
    if (this.wholeFiles) return { offsetsPath: this.offsetsPath, dataPath: this.dataPath, length: this.length, blocks: [], whole: this.wholeFiles };
    const blocks: FileDictSnapshot['blocks'][number][] = [];
    for (const [index, b] of this.blocks.entries()) if (b) blocks.push({ index, offsets: b.offsets, text: b.text });
    return { offsetsPath: this.offsetsPath, dataPath: this.dataPath, length: this.length, blocks };
  }

  /** A dictionary from a snapshot: its blocks shared, the others read from the files when asked. */
  static restore(s: FileDictSnapshot): FileDict {
    const d = new FileDict(s.offsetsPath, s.dataPath, s.length);
    if (s.whole) d.adoptWhole(s.whole.offsets, s.whole.data);
    for (const b of s.blocks) {
      d.blocks[b.index] = { offsets: b.offsets, text: Buffer.from(b.text.buffer, b.text.byteOffset, b.text.byteLength) };
      d.held += b.offsets.byteLength + b.text.byteLength;
    }
    return d;
  }

  get bytes(): number {
    return this.held + this.decodedStrings.size * 48;
  }

  get source(): string {
    return this.dataPath;
  }

  /** How many strings have been decoded (tests check that reads stay lazy). */
  get decodedCount(): number {
    return this.decodedStrings.size;
  }

  get(code: number): string {
    let s = this.decodedStrings.get(code);
    if (s === undefined) {
      const b = this.block(code >> BLOCK_BITS);
      const k = code & (BLOCK - 1);
      s = b.text.toString('utf8', b.offsets[k]! - b.offsets[0]!, b.offsets[k + 1]! - b.offsets[0]!);
      this.decodedStrings.set(code, s);
    }
    return s;
  }

  /**
   * Every entry's UTF-8 bytes and offsets (the files read whole, not block by block): for a renderer
   * that sends the whole dictionary (an Arrow dictionary of a full-day result). Kept: every block is
   * then a view of them.
   */
  whole(): { offsets: Int32Array; data: Uint8Array } {
    if (!this.wholeFiles) {
      const bytes = readShared(this.offsetsPath);
      const offsets = new Int32Array(bytes.buffer, bytes.byteOffset, this.length + 1);
      const data = readShared(this.dataPath);
      checkOffsets(this.offsetsPath, offsets, data.length, this.dataPath);
      this.adoptWhole(offsets, data);
    }
    return this.wholeFiles!;
  }

  /** Both files, read whole: every block becomes a view of them (those read before are dropped). */
  private adoptWhole(offsets: Int32Array, data: Uint8Array): void {
    this.wholeFiles = { offsets, data };
    this.held += offsets.byteLength + data.byteLength;
    for (let i = 0; i < this.blocks.length; i++) {
      const old = this.blocks[i];
      if (old) this.held -= old.offsets.byteLength + old.text.byteLength;
      const first = i * BLOCK;
      const count = Math.min(BLOCK, this.length - first);
      const at = offsets[first]!;
      this.blocks[i] = { offsets: offsets.subarray(first, first + count + 1), text: Buffer.from(data.buffer, data.byteOffset + at, offsets[first + count]! - at) };
    }
  }

  /** Where entry `code`'s UTF-8 bytes are (its block read if needed), for renderers that copy bytes. */
  utf8Of(code: number, into: { data: Uint8Array; start: number; end: number }): void {
    const b = this.block(code >> BLOCK_BITS);
    const k = code & (BLOCK - 1);
    into.data = b.text;
    into.start = b.offsets[k]! - b.offsets[0]!;
    into.end = b.offsets[k + 1]! - b.offsets[0]!;
  }

  /**
   * Every entry's offsets read now, and the file of their bytes opened through `files`, for a
   * streamed result that writes the whole dictionary (its writer copies the bytes out of the file:
   * streamedWhole). The dictionary still reads blocks as before for anything else.
   */
  prefetchStreamed(files: StreamedFiles): void {
    if (this.wholeFiles || this.streamed) return;
    const bytes = readShared(this.offsetsPath);
    const offsets = new Int32Array(bytes.buffer, bytes.byteOffset, this.length + 1);
    const fd = files.open(this.dataPath);
    const size = fstatSync(fd).size;
    checkSize(this.dataPath, size);
    checkOffsets(this.offsetsPath, offsets, size, this.dataPath);
    this.held += offsets.byteLength;
    this.streamed = { offsets, fd, path: this.dataPath, bytes: offsets[this.length]! };
  }

  /** The whole dictionary as prefetchStreamed left it (undefined unless so, or once its files were read whole). */
  streamedWhole(): { readonly offsets: Int32Array; readonly fd: number; readonly path: string; readonly bytes: number } | undefined {
    return this.wholeFiles ? undefined : this.streamed;
  }

  prefetch(codes?: Int32Array): void {
    if (this.wholeFiles) return;
    const missing = codes ? missingBlocks(codes, this.blocks) : null;
    if (!missing || 2 * missing.count > this.blocks.length) {
      this.whole();
      return;
    }
    for (let b = 0; b < missing.marks.length; b++) if (missing.marks[b]) this.block(b);
  }

  private block(i: number): { offsets: Int32Array; text: Buffer } {
    let b = this.blocks[i];
    if (b) return b;
    const first = i * BLOCK;
    const count = Math.min(BLOCK, this.length - first);
    // shared buffers: a result's dictionary moves to another thread by reference (snapshot)
    const offsets = new Int32Array(new SharedArrayBuffer((count + 1) * 4));
    const fd = openFile(this.offsetsPath);
    try {
      readAt(fd, new Uint8Array(offsets.buffer), first * 4, this.offsetsPath);
    } finally {
      closeSync(fd);
    }
    const dfd = openFile(this.dataPath);
    try {
      const size = fstatSync(dfd).size;
      checkSize(this.dataPath, size);
      checkOffsetsBlock(this.offsetsPath, offsets, first, size, first + count === this.length, this.dataPath);
      const text = Buffer.from(new SharedArrayBuffer(Math.max(1, offsets[count]! - offsets[0]!)), 0, offsets[count]! - offsets[0]!);
      readAt(dfd, text, offsets[0]!, this.dataPath);
      b = { offsets, text };
    } finally {
      closeSync(dfd);
    }
    this.blocks[i] = b;
    this.held += offsets.byteLength + b.text.byteLength;
    return b;
  }
}

/** Which blocks `codes` use that are not read yet, and how many (counting stops past half of them: the files are then read whole). */
function missingBlocks(codes: Int32Array, blocks: ReadonlyArray<unknown>): { marks: Uint8Array; count: number } {
  const half = blocks.length >> 1;
  const marks = new Uint8Array(blocks.length);
  let count = 0;
  let last = -1;
  for (let i = 0; i < codes.length; i++) {
    const b = codes[i]! >> BLOCK_BITS;
    if (b !== last && b >= 0) {
      last = b;
      if (marks[b] === 0 && !blocks[b]) {
        marks[b] = 1;
        if (++count > half) break;
      }
    }
  }
  return { marks, count };
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new FolderGoneError(path);
    throw e;
  }
}

/** Entries of a dictionary from its offsets file's size (checked against its checksums: a cut file must not read as a smaller dictionary). */
function dictLength(offsetsPath: string): number {
  const size = fileBytes(offsetsPath);
  checkSize(offsetsPath, size);
  if (size < 4 || size % 4 !== 0) throw damagedFile(offsetsPath, `${size} bytes, not a whole number of offsets (4 bytes each, at least one)`);
  return size / 4 - 1;
}

/** Which row ranges of a column are in memory. */
/** On-disk element width and in-memory decoding of a fixed-width column type. */
interface FixedLayout {
  readonly file: string;
  readonly width: number;
}

function fixedLayout(def: ColumnDef): FixedLayout | undefined {
  switch (def.type) {
    case 'float':
      return { file: `${def.name}.f64`, width: 8 };
    case 'long':
    case 'timestamp':
    case 'timespan':
      return { file: `${def.name}.i64`, width: 8 };
    case 'int':
    case 'date':
      return { file: `${def.name}.i32`, width: 4 };
    case 'boolean':
      return { file: `${def.name}.u8`, width: 1 };
    case 'symbol':
      return { file: `${def.name}.i32`, width: 4 };
    default:
      return undefined;
  }
}

/** A stored column: the rows asked for so far, in one full-size column. */
export class StoredColumn {
  /** Bytes of the rows read (the dictionary's are added when it is read). */
  private rowBytes = 0;
  private dict: Dict | undefined;
  private coverage!: LoadedBlocks;
  private column: Column | undefined;
  private readonly layout: FixedLayout | undefined;
  /** The column's bytes, which row ranges of the file are read into. */
  private readonly target: Uint8Array | undefined;

  constructor(
    private readonly dir: string,
    private readonly def: ColumnDef,
    private readonly rows: number,
    /** The dictionary is in first-use order (read in blocks), not sorted. */
    private readonly rowOrderDict = false,
    /** Buffers of its own even where the executor shares them (a partition read once to be rewritten). */
    ownBuffers = false,
  ) {
    this.layout = fixedLayout(def);
    if (!this.layout) return;
    const n = rows;
    // one buffer per column file for the whole process when the executor shares them, else our own
    const store = ownBuffers ? undefined : sharedStore();
    const readFile = ownBuffers ? readShared : readFileShared;
    const bufs = store
      ? store.column(join(dir, this.layout.file), n, this.layout.width)
      : { data: shared(n * this.layout.width), loaded: new ArrayBuffer(blockWords(n) * 4) };
    this.coverage = new LoadedBlocks(bufs.loaded, n);
    const shared_ = (_bytes: number): SharedArrayBuffer => bufs.data;
    switch (def.type) {
      case 'float':
        this.column = { type: def.type, data: new Float64Array(shared_(n * 8), 0, n) };
        break;
      case 'timestamp':
      case 'timespan':
      case 'long':
        this.column = { type: def.type, data: new BigInt64Array(shared_(n * 8), 0, n) };
        break;
      case 'date':
      case 'int':
        this.column = { type: def.type, data: new Int32Array(shared_(n * 4), 0, n) };
        break;
      case 'boolean':
        this.column = { type: 'boolean', data: new Uint8Array(shared_(n), 0, n) };
        break;
      case 'symbol': {
        // Read whole when the column is first used (decoded lazily). Not deferred further: a result
        // holding these codes must stay renderable after a later write removes the folder.
        const dict = this.rowOrderDict
          ? new FileDict(this.path('.dict.offsets.i32'), this.path('.dict.utf8'))
          : (() => {
              const offsetsPath = this.path('.dict.offsets.i32');
              const offsets = readFile(offsetsPath);
              if (offsets.byteLength % 4 !== 0) throw damagedFile(offsetsPath, `${offsets.byteLength} bytes, not a whole number of offsets (4 bytes each)`);
              const data = this.path('.dict.utf8');
              const bytes = readFile(data);
              const words = new Int32Array(offsets.buffer, offsets.byteOffset, offsets.byteLength / 4);
              checkOffsets(offsetsPath, words, bytes.byteLength, data);
              return new Utf8Dict(words, bytes, true, true, data);
            })();
        this.dict = dict;
        this.column = { type: 'symbol', codes: new Int32Array(shared_(n * 4), 0, n), dict };
        break;
      }
    }
    const c = this.column!;
    this.target = new Uint8Array(
      c.type === 'symbol' ? c.codes.buffer : (c as { data: ArrayBufferView }).data.buffer,
    );
  }

  /** Bytes in memory (what the column cache counts). */
  get bytes(): number {
    return this.rowBytes + (this.dict?.bytes ?? 0);
  }

  private path(suffix: string): string {
    return join(this.dir, `${this.def.name}${suffix}`);
  }

  /** The column with (at least) the rows of `ranges` read; undefined ranges: every row. */
  load(ranges?: RowRanges): Column {
    if (!this.layout) {
      if (!this.column) {
        this.column = readWhole(this.dir, this.def, this.rows);
        this.rowBytes = wholeBytes(this.column);
      }
      return this.column;
    }
    const want = ranges ?? [[0, this.rows] as const];
    const gaps: Array<[number, number]> = [];
    for (const [a, b] of want) if (b > a) gaps.push(...this.coverage.missing(a, b));
    if (gaps.length === 0) return this.column!;
    const path = join(this.dir, this.layout.file);
    const fd = openFile(path);
    try {
      const size = fstatSync(fd).size;
      if (size !== this.rows * this.layout.width) {
        throw damagedFile(path, `${size} bytes, _meta.json says ${this.rows} rows of ${this.layout.width}`);
      }
      checkSize(path, size);
      for (const [a, b] of gaps) {
        this.readRows(fd, a, b, path);
        if (this.column!.type === 'symbol') checkCodes(path, this.column!.codes.subarray(a, b), this.column!.dict.length, a, this.path('.dict.offsets.i32'));
        // marked after the bytes are in: another thread that sees the mark reads them whole
        this.coverage.add(a, b);
        this.rowBytes += (b - a) * this.layout.width;
      }
    } finally {
      closeSync(fd);
    }
    return this.column!;
  }

  /**
   * The column with the rows of `ranges` (undefined: every row) left unread, its file opened through
   * `files`, for a renderer that reads them as it writes them; undefined when they are read already
   * (a column the query itself used) or the column is not stored at a fixed width per row (strings,
   * lists; booleans, few bytes, are read as before).
   */
  deferred(ranges: RowRanges | undefined, files: StreamedFiles): DeferredColumn | undefined {
    if (!this.layout || this.def.type === 'boolean') return undefined;
    const want = ranges ?? [[0, this.rows] as const];
    if (want.every(([a, b]) => b <= a || this.coverage.missing(a, b).length === 0)) return undefined;
    const path = join(this.dir, this.layout.file);
    // a symbol column of a folder without checksums (an older release's) is read here, where its codes
    // are checked against its dictionary: the streaming renderer reads the bytes as they are
    if (this.def.type === 'symbol' && !sumsOf(path)) return undefined;
    const fd = files.open(path);
    const size = fstatSync(fd).size;
    if (size !== this.rows * this.layout.width) {
      throw damagedFile(path, `${size} bytes, _meta.json says ${this.rows} rows of ${this.layout.width}`);
    }
    checkSize(path, size);
    shareSums(path);
    return { column: this.column!, file: { fd, path, width: this.layout.width, rows: this.rows }, load: () => this.load(ranges) };
  }

  private readRows(fd: number, a: number, b: number, path: string): void {
    const w = this.layout!.width;
    readAt(fd, this.target!.subarray(a * w, b * w), a * w, path);
  }
}

/** The files a streamed query opened (StreamedFiles), closed together once its result is written. */
export class OpenFiles implements StreamedFiles {
  private readonly fds: number[] = [];

  open(path: string): number {
    const fd = openFile(path);
    this.fds.push(fd);
    return fd;
  }

  close(): void {
    for (const fd of this.fds.splice(0)) closeSync(fd);
  }
}

function wholeBytes(c: Column): number {
  switch (c.type) {
    case 'string':
      return c.values.reduce((s, v) => s + 16 + v.length * 2, 0);
    case 'float[]':
    case 'long[]':
      return c.offsets.byteLength + c.values.byteLength;
    default:
      return 0;
  }
}

/** Reads a variable-width column (string, lists) whole. */
function readWhole(dir: string, def: ColumnDef, rows: number): Column {
  const p = (suffix: string): string => join(dir, `${def.name}${suffix}`);
  const offsetsOf = (): Int32Array => {
    const raw = readShared(p('.offsets.i32'));
    if (raw.byteLength !== (rows + 1) * 4) throw damagedFile(p('.offsets.i32'), `${raw.byteLength} bytes, _meta.json says ${rows} rows (${(rows + 1) * 4} bytes of offsets)`);
    return new Int32Array(raw.buffer, 0, raw.byteLength / 4);
  };
  switch (def.type) {
    case 'string': {
      const offsets = offsetsOf();
      const data = Buffer.from(readShared(p('.utf8')));
      checkOffsets(p('.offsets.i32'), offsets, data.length, p('.utf8'));
      const values = new Array<string>(rows);
      for (let i = 0; i < rows; i++) values[i] = data.toString('utf8', offsets[i]!, offsets[i + 1]!);
      return { type: 'string', values };
    }
    case 'float[]': {
      const offsets = offsetsOf();
      const raw = readShared(p('.f64'));
      checkOffsets(p('.offsets.i32'), offsets, raw.byteLength / 8, p('.f64'));
      return { type: 'float[]', offsets, values: new Float64Array(raw.buffer, 0, raw.byteLength / 8) };
    }
    case 'long[]': {
      const offsets = offsetsOf();
      const raw = readShared(p('.i64'));
      checkOffsets(p('.offsets.i32'), offsets, raw.byteLength / 8, p('.i64'));
      const v = new Int32Array(raw.buffer, 0, raw.byteLength / 4);
      const values = new Float64Array(shared(raw.byteLength), 0, raw.byteLength / 8);
      for (let i = 0; i < values.length; i++) {
        const lo = v[2 * i]!;
        const hi = v[2 * i + 1]!;
        values[i] = hi === NULL_HI && lo === 0 ? NaN : hi * TWO32 + (lo >>> 0);
      }
      return { type: 'long[]', offsets, values };
    }
    default:
      throw new Error(`readWhole: ${def.type} is fixed-width`);
  }
}

/** The type and width of a stored fixed-width column other than a symbol (checked). */
function numericLayout(def: ColumnDef, caller: string): FixedLayout {
  const layout = fixedLayout(def);
  if (!layout || def.type === 'symbol') throw new Error(`${caller}: ${def.name} is not a numeric or time column`);
  return layout;
}

/**
 * Rows [a, b) of a stored numeric or time column, their bytes read into `into` (at least
 * (b - a) × its width): outside the column cache (order analytics reads one batch of instruments'
 * market data at a time, straight into the arrays it keeps, and lets it go).
 */
export function readRowsInto(dir: string, def: ColumnDef, rows: number, a: number, b: number, into: Uint8Array): void {
  const layout = numericLayout(def, 'readRowsInto');
  const path = join(dir, layout.file);
  const fd = openFile(path);
  try {
    const size = fstatSync(fd).size;
    if (size !== rows * layout.width) throw damagedFile(path, `${size} bytes, _meta.json says ${rows} rows of ${layout.width}`);
    checkSize(path, size);
    readAt(fd, into.subarray(0, (b - a) * layout.width), a * layout.width, path);
  } finally {
    closeSync(fd);
  }
}

/** Rows [a, b) of a stored numeric or time column, read into a buffer of their own (readRowsInto). */
export function readRowsUncached(dir: string, def: ColumnDef, rows: number, a: number, b: number): Column {
  const layout = numericLayout(def, 'readRowsUncached');
  const bytes = new Uint8Array(new ArrayBuffer(Math.max(8, Math.ceil(((b - a) * layout.width) / 8) * 8)), 0, (b - a) * layout.width);
  readRowsInto(dir, def, rows, a, b, bytes);
  const n = b - a;
  switch (def.type) {
    case 'float':
      return { type: 'float', data: new Float64Array(bytes.buffer, 0, n) };
    case 'long':
    case 'timestamp':
    case 'timespan':
      return { type: def.type, data: new BigInt64Array(bytes.buffer, 0, n) };
    case 'int':
    case 'date':
      return { type: def.type, data: new Int32Array(bytes.buffer, 0, n) };
    default:
      return { type: 'boolean', data: new Uint8Array(bytes.buffer, 0, n) };
  }
}

