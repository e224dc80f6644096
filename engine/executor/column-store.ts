/**
 * The column store the executor's workers share (storage/shared-store.ts is their side): the column
 * files they have opened, by path, as SharedArrayBuffers (a column's bytes and the bitmap of its
 * loaded row blocks) or a whole file's bytes. Partition folders never change, so a file's bytes are
 * the same for every worker: the first to open one puts it, the others are handed it by reference.
 * Workers allocate and read; this thread only keeps references. The least recently asked entries go
 * first past cacheBytes; a worker still holding one keeps it.
 */
import { ROW_BLOCK } from '../storage/shared-store.js';
import type { StoreRequest } from './protocol.js';

/** A column file's shared buffers: its bytes and its loaded-blocks bitmap. */
export interface ColumnBuffers {
  readonly data: SharedArrayBuffer;
  readonly loaded: SharedArrayBuffer;
}

/** What a worker asks of the store (the other requests of its line are about parts). */
export type StoreAsk = Extract<StoreRequest, { op: 'column' | 'putColumn' | 'file' | 'put' }>;

/** One entry: a column file (buffers and loaded blocks) or a whole file. */
interface Entry {
  readonly value: ColumnBuffers | Uint8Array;
  /** Bytes per row block (columns), for counting what is loaded. */
  readonly blockBytes: number;
  used: number;
}

export class ColumnStore {
  private readonly entries = new Map<string, Entry>();
  private added = 0;

  constructor(
    /** Bytes past which the least recently asked entries are forgotten. */
    private readonly cacheBytes: number,
  ) {}

  /** A worker's request answered: a lookup (null: not held), or what a put leaves held. */
  answer(req: StoreAsk): ColumnBuffers | Uint8Array | null {
    switch (req.op) {
      case 'column':
        return this.column(req.key);
      case 'putColumn':
        return this.putColumn(req.key, req.width, { data: req.data, loaded: req.loaded });
      case 'file':
        return this.file(req.key);
      case 'put':
        return this.putFile(req.key, req.bytes);
    }
  }

  /** A column file another worker opened, or null. */
  column(key: string): ColumnBuffers | null {
    return (this.held(key, true) as ColumnBuffers | undefined) ?? null;
  }

  /** Keeps a column's buffers (of rows `width` bytes wide) unless another worker put it meanwhile: what is held. */
  putColumn(key: string, width: number, buffers: ColumnBuffers): ColumnBuffers {
    return (this.held(key, true) as ColumnBuffers | undefined) ?? (this.keep(key, buffers, ROW_BLOCK * width) as ColumnBuffers);
  }

  /** A whole file another worker read, or null. */
  file(key: string): Uint8Array | null {
    return (this.held(key, false) as Uint8Array | undefined) ?? null;
  }

  /** Keeps a whole file's bytes unless another worker put it meanwhile: what is held. */
  putFile(key: string, bytes: Uint8Array): Uint8Array {
    return (this.held(key, false) as Uint8Array | undefined) ?? (this.keep(key, bytes, 0) as Uint8Array);
  }

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes held in memory: whole files, and the loaded blocks of columns. */
  bytes(): number {
    let total = 0;
    for (const e of this.entries.values()) total += entryBytes(e);
    return total;
  }

  /** The entry of `key` when it is of the kind asked (a column, or a whole file), marked used now. */
  private held(key: string, isColumn: boolean): ColumnBuffers | Uint8Array | undefined {
    const hit = this.entries.get(key);
    if (!hit || isColumn === hit.value instanceof Uint8Array) return undefined;
    hit.used = performance.now();
    return hit.value;
  }

  private keep(key: string, value: ColumnBuffers | Uint8Array, blockBytes: number): ColumnBuffers | Uint8Array {
    this.entries.set(key, { value, blockBytes, used: performance.now() });
    if (++this.added % 16 === 0) this.trim();
    return value;
  }

  /** Forgets the least recently asked entries past cacheBytes (workers holding them keep them). */
  private trim(): void {
    if (this.entries.size < 64) return;
    const sized = [...this.entries].map(([key, e]) => ({ key, used: e.used, bytes: entryBytes(e) }));
    let total = sized.reduce((s, x) => s + x.bytes, 0);
    if (total <= this.cacheBytes) return;
    for (const x of sized.sort((a, b) => a.used - b.used)) {
      if (total <= this.cacheBytes * 0.9) break;
      this.entries.delete(x.key);
      total -= x.bytes;
    }
  }
}

/** Bytes of one entry in memory: a whole file, or a column's loaded blocks. */
function entryBytes(e: Entry): number {
  if (e.value instanceof Uint8Array) return e.value.byteLength;
  const words = new Int32Array(e.value.loaded);
  let blocks = 0;
  for (let i = 0; i < words.length; i++) {
    for (let w = Atomics.load(words, i); w; w &= w - 1) blocks++;
  }
  return blocks * e.blockBytes;
}
