/**
 * Column buffers shared by the threads of one process. Partition folders never change once written
 * (a write makes new ones), so a folder's column file read by one worker is valid for every worker:
 * the executor keeps one SharedArrayBuffer per column file, with a bitmap of the row blocks already
 * read into it, and hands both by reference to any worker that opens the same column. Without a store
 * (the CLI's in-process engine, tests) each StoredColumn allocates its own.
 */

/** Rows per block of the loaded-rows bitmap. */
export const ROW_BLOCK = 1024;

export interface SharedStore {
  /** The bytes of a column file (`rows` rows of `width` bytes) and its loaded-blocks bitmap, created on first ask. */
  column(key: string, rows: number, width: number): { readonly data: SharedArrayBuffer; readonly loaded: SharedArrayBuffer };
  /** A whole file (dictionary, time order), read by `read` only when no thread has it yet. */
  file(key: string, read: () => Uint8Array): Uint8Array;
}

let store: SharedStore | undefined;

/** The process's shared store, when this thread is an executor worker. */
export const sharedStore = (): SharedStore | undefined => store;

/** Makes this thread read columns through the shared store. */
export function useSharedStore(s: SharedStore | undefined): void {
  store = s;
}

/** A bitmap of loaded row blocks over 32-bit words (shared when its buffer is). */
export class LoadedBlocks {
  private readonly words: Int32Array;

  constructor(
    buffer: ArrayBufferLike,
    private readonly rows: number,
  ) {
    this.words = new Int32Array(buffer);
  }

  /** Row ranges of [a, b) in blocks not loaded yet, widened to whole blocks (clipped to the rows). */
  missing(a: number, b: number): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    const first = Math.floor(a / ROW_BLOCK);
    const last = Math.floor((b - 1) / ROW_BLOCK);
    let run = -1;
    for (let k = first; k <= last + 1; k++) {
      const have = k > last || (Atomics.load(this.words, k >> 5) & (1 << (k & 31))) !== 0;
      if (!have && run < 0) run = k;
      if (have && run >= 0) {
        out.push([run * ROW_BLOCK, Math.min(this.rows, k * ROW_BLOCK)]);
        run = -1;
      }
    }
    return out;
  }

  /** Marks the blocks of [a, b) loaded (a and b block-aligned, or b the last row). */
  add(a: number, b: number): void {
    for (let k = Math.floor(a / ROW_BLOCK); k <= Math.floor((b - 1) / ROW_BLOCK); k++) Atomics.or(this.words, k >> 5, 1 << (k & 31));
  }
}

/** Words of a bitmap over `rows` rows. */
export const blockWords = (rows: number): number => Math.max(1, Math.ceil(Math.ceil(rows / ROW_BLOCK) / 32));
