/**
 * Decompressed blocks of `kxzipped` files, kept in a small byte-bounded LRU so that reading the
 * rows of one block again (a narrow query's neighbouring runs, a column's header then its data) does
 * not decompress it again. Keyed by the file's path, size and modification time and the block's
 * number: a file replaced on disk never serves its old blocks.
 */

/** Bytes the process-wide cache holds at most: 32 blocks of kdb+'s default 2^17 bytes, 4 of the largest (2^20). */
export const DEFAULT_BLOCK_CACHE_BYTES = 4 * 1024 * 1024;

/** A byte-bounded LRU of decompressed blocks. */
export class BlockCache {
  private readonly blocks = new Map<string, Uint8Array>();
  private held = 0;

  constructor(readonly maxBytes: number = DEFAULT_BLOCK_CACHE_BYTES) {}

  /** Bytes held now. */
  get bytes(): number {
    return this.held;
  }

  /** The block under `key`, marked most recently used; undefined when not held. */
  get(key: string): Uint8Array | undefined {
    const b = this.blocks.get(key);
    if (b) {
      this.blocks.delete(key);
      this.blocks.set(key, b);
    }
    return b;
  }

  /** Holds `block` under `key`, dropping the least recently used past the bound (a block larger than it is not held). */
  set(key: string, block: Uint8Array): void {
    const old = this.blocks.get(key);
    if (old) {
      this.blocks.delete(key);
      this.held -= old.byteLength;
    }
    if (block.byteLength > this.maxBytes) return;
    this.blocks.set(key, block);
    this.held += block.byteLength;
    for (const [k, b] of this.blocks) {
      if (this.held <= this.maxBytes) break;
      this.blocks.delete(k);
      this.held -= b.byteLength;
    }
  }

  /** Drops every block. */
  clear(): void {
    this.blocks.clear();
    this.held = 0;
  }
}

let shared: BlockCache | undefined;

/** The process-wide cache files use unless given another. */
export function defaultBlockCache(): BlockCache {
  return (shared ??= new BlockCache());
}
