/**
 * A `kxzipped` file read lazily (docs/kdb-format.md 5): opening it reads only its trailer (the block
 * table); a read of a byte range of the decompressed image decompresses only the blocks covering it,
 * each to exactly its stated length (codecs.ts), and keeps them in a small LRU (block-cache.ts).
 *
 *   "kxzipped" | block 0 | block 1 | ... | block N-1 | trailer: 32 + 8N bytes | N (int64)
 *
 * Every field of the trailer is checked against the file before it is trusted: the block count
 * against the file's length, the trailer's own offset against the one it states, the algorithm
 * (0-5), the block size (a power of two, 2^12 to 2^20), the uncompressed length against the block
 * count, every stored size (> 0, tiling the bytes between the magic and the trailer exactly) and
 * every block's flag (0, stored raw, or the file's algorithm; a raw block's size is its length).
 */
import { type BlockCache, defaultBlockCache } from './block-cache.js';
import { ALGORITHM_NAMES, decompressKdbBlock } from './codecs.js';
import { badFile, checkRange, type CompressionInfo, type FileIdentity, type KdbBytes, type KdbReadOptions, readFully, withFile } from './io.js';

/** Bytes before the first block: the magic. */
const MAGIC_BYTES = 8;
/** Fixed trailer bytes before the block table. */
const TRAILER_HEAD = 32;
const MIN_BLOCK_LOG = 12;
const MAX_BLOCK_LOG = 20;

/** Reads an int64 at `at` as a number; undefined when it is negative or past 2^53. */
function int64(v: DataView, at: number): number | undefined {
  const lo = v.getUint32(at, true);
  const hi = v.getInt32(at + 4, true);
  if (hi < 0 || hi >= 2 ** 21) return undefined;
  return hi * 4294967296 + lo;
}

/** Opens a `kxzipped` file through its trailer (nothing is decompressed). */
export function openCompressed(path: string, identity: FileIdentity, options: KdbReadOptions): KdbBytes {
  return withFile(path, identity, (fd) => {
    const size = identity.size;
    // the magic, the fixed trailer, one block table entry, N, and at least one stored byte
    if (size < MAGIC_BYTES + TRAILER_HEAD + 8 + 8 + 1) throw badFile(path, `${size} bytes; a kxzipped file has at least ${MAGIC_BYTES + TRAILER_HEAD + 17} (magic, one block, trailer)`);
    const tail = new Uint8Array(8);
    readFully(fd, tail, size - 8, path);
    const n = int64(new DataView(tail.buffer), 0);
    // each block takes 8 bytes of table and at least 1 stored byte
    const most = Math.floor((size - MAGIC_BYTES - TRAILER_HEAD - 8) / 9);
    if (n === undefined || n < 1 || n > most) throw badFile(path, `its trailer claims ${n ?? 'a negative or huge number of'} blocks; a file of ${size} bytes holds 1 to ${most}`);
    const t = size - 8 - 8 * n - TRAILER_HEAD;
    const trailer = new Uint8Array(TRAILER_HEAD + 8 * n);
    readFully(fd, trailer, t, path);
    return new CompressedFile(path, identity, readTrailer(path, trailer, t, n), options);
  });
}

interface Trailer {
  readonly info: CompressionInfo;
  readonly length: number;
  /** File offset of each block's stored bytes (n + 1 entries: the last is the trailer's offset). */
  readonly starts: Float64Array;
}

function readTrailer(path: string, trailer: Uint8Array, t: number, n: number): Trailer {
  const v = new DataView(trailer.buffer, trailer.byteOffset, trailer.byteLength);
  const bad = (why: string): Error => badFile(path, `its compression trailer (at byte ${t}) ${why}`);
  const format = v.getInt32(0, true);
  const algorithm = trailer[4]!;
  const level = trailer[5]!;
  if (algorithm > 5) throw bad(`names compression algorithm ${algorithm}; kdb+'s are 0 (none), 1 (q IPC), 2 (zlib), 3 (snappy), 4 (lz4hc) and 5 (zstd)`);
  const length = int64(v, 8);
  const statedT = int64(v, 16);
  const blockSize = int64(v, 24);
  if (statedT !== t) throw bad(`states it starts at byte ${statedT ?? 'past 2^53'}; it starts at ${t} (damaged or truncated)`);
  if (blockSize === undefined || blockSize < 2 ** MIN_BLOCK_LOG || blockSize > 2 ** MAX_BLOCK_LOG || (blockSize & (blockSize - 1)) !== 0) {
    throw bad(`names a block size of ${blockSize ?? 'past 2^53'} bytes; expected a power of two from 2^${MIN_BLOCK_LOG} to 2^${MAX_BLOCK_LOG}`);
  }
  if (length === undefined || length <= (n - 1) * blockSize || length > n * blockSize) {
    throw bad(`claims ${length ?? 'a negative or huge number of'} bytes uncompressed in ${n} blocks of ${blockSize}; expected more than ${(n - 1) * blockSize} and at most ${n * blockSize}`);
  }
  const starts = new Float64Array(n + 1);
  const storedSizes: number[] = [];
  const blockAlgorithms: number[] = [];
  let at = MAGIC_BYTES;
  for (let i = 0; i < n; i++) {
    const stored = v.getInt32(TRAILER_HEAD + 8 * i, true);
    const flag = v.getInt32(TRAILER_HEAD + 8 * i + 4, true);
    const expected = Math.min(blockSize, length - i * blockSize);
    if (stored <= 0) throw bad(`gives block ${i} a stored size of ${stored} bytes`);
    if (flag !== 0 && flag !== algorithm) throw bad(`stores block ${i} with algorithm ${flag} in a file of algorithm ${algorithm} (${ALGORITHM_NAMES[algorithm]}); expected 0 (raw) or ${algorithm}`);
    if (flag === 0 && stored !== expected) throw bad(`stores block ${i} raw in ${stored} bytes; it holds ${expected}`);
    starts[i] = at;
    at += stored;
    storedSizes.push(stored);
    blockAlgorithms.push(flag);
  }
  starts[n] = at;
  if (at !== t) throw bad(`lists blocks ending at byte ${at}; they end where the trailer starts, at ${t}`);
  return { info: { format, algorithm, level, blockSize, blocks: n, storedSizes, blockAlgorithms }, length, starts };
}

/** A compressed file's image, its blocks decompressed when first read. */
class CompressedFile implements KdbBytes {
  readonly length: number;
  readonly compression: CompressionInfo;
  /** Blocks this object decompressed (cache misses). */
  decompressions = 0;
  private readonly starts: Float64Array;
  private readonly cache: BlockCache;
  private readonly key: string;

  constructor(
    readonly path: string,
    private readonly identity: FileIdentity,
    trailer: Trailer,
    private readonly options: KdbReadOptions,
  ) {
    this.length = trailer.length;
    this.compression = trailer.info;
    this.starts = trailer.starts;
    this.cache = options.cache ?? defaultBlockCache();
    this.key = `${path}\0${identity.size}\0${identity.mtimeMs}\0`;
  }

  read(start: number, end: number): Uint8Array {
    checkRange(this.path, start, end, this.length);
    if (start === end) return new Uint8Array(0);
    const size = this.compression.blockSize;
    const first = Math.floor(start / size);
    const last = Math.floor((end - 1) / size);
    const blocks = this.blocks(first, last);
    if (first === last) return blocks[0]!.subarray(start - first * size, end - first * size);
    const out = new Uint8Array(end - start);
    for (let i = first; i <= last; i++) {
      const b = blocks[i - first]!;
      const from = Math.max(start, i * size) - i * size;
      const to = Math.min(end, (i + 1) * size) - i * size;
      out.set(b.subarray(from, to), i * size + from - start);
    }
    return out;
  }

  /** Blocks first..last, from the cache or decompressed (the file opened once for those missing). */
  private blocks(first: number, last: number): Uint8Array[] {
    const out: Array<Uint8Array | undefined> = [];
    let missing = false;
    for (let i = first; i <= last; i++) {
      const hit = this.cache.get(this.key + i);
      out.push(hit);
      if (!hit) missing = true;
    }
    if (missing) {
      withFile(this.path, this.identity, (fd) => {
        for (let i = first; i <= last; i++) out[i - first] ??= this.decompress(fd, i);
      });
    }
    return out as Uint8Array[];
  }

  private decompress(fd: number, i: number): Uint8Array {
    const { blockSize, blockAlgorithms } = this.compression;
    const at = this.starts[i]!;
    const stored = new Uint8Array(this.starts[i + 1]! - at);
    readFully(fd, stored, at, this.path);
    const expected = Math.min(blockSize, this.length - i * blockSize);
    const algorithm = blockAlgorithms[i]!;
    const block = algorithm === 0 ? stored : decompressKdbBlock(this.path, i, algorithm, stored, expected);
    this.decompressions++;
    this.options.onDecompress?.(this.path, i);
    this.cache.set(this.key + i, block);
    return block;
  }
}
