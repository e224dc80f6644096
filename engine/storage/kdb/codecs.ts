/**
 * One block of a `kxzipped` file decompressed to exactly its stated length (docs/kdb-format.md 5.2 to
 * 5.4), or an error naming the file and the block: a block that ends early, runs long, leaves input
 * over or does not decode never yields zeros or a short array.
 *
 * - 1 (q IPC): a whole compressed q message (`01 00 01 00`, its total length = the block's stored
 *   size, its unpacked length + 8 = the block's), unpacked by engine/q's decompressBlock. [fixture]
 * - 2 (zlib): one zlib stream, inflated by node:zlib, ending exactly at the block's end. [fixture]
 * - 3 (snappy): a raw snappy block, its varint length checked first. [unverified against q]
 * - 4 (lz4hc): an LZ4 block, walked once to check every sequence and the output's exact length
 *   before hyparquet-compressors' decoder copies it (which cannot tell a short output). [unverified]
 * - 5 (zstd): one zstd frame, walked block header by block header to its exact end, its declared
 *   size checked before anything is allocated. [unverified against q]
 *
 * Snappy, LZ4 and zstd come from hyparquet-compressors (hysnappy, fzstd), loaded on first use.
 */
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import { TickscopeError } from '../../core/errors.js';
import { decompressBlock } from '../../q/decompress.js';
import { badFile } from './io.js';

/** The algorithms by number, as errors name them. */
export const ALGORITHM_NAMES: Readonly<Record<number, string>> = {
  0: 'none',
  1: 'q IPC',
  2: 'zlib',
  3: 'snappy',
  4: 'lz4hc',
  5: 'zstd',
};

type Compressors = typeof import('hyparquet-compressors');
let loaded: { snappy: (input: Uint8Array, length: number) => Uint8Array; lz4: Compressors['decompressLz4Raw']; zstd: Compressors['decompressZstd'] } | undefined;

/** hyparquet-compressors, loaded when a file first needs it (its snappy loads a wasm module). */
function compressors(): NonNullable<typeof loaded> {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    const c = require('hyparquet-compressors') as Compressors;
    loaded = { snappy: c.compressors.SNAPPY!, lz4: c.decompressLz4Raw, zstd: c.decompressZstd };
  }
  return loaded;
}

/**
 * Block `block` of `path`, stored as `src` with `algorithm` (1-5), decompressed to exactly `expected`
 * bytes (the block size, or less for the last block).
 */
export function decompressKdbBlock(path: string, block: number, algorithm: number, src: Uint8Array, expected: number): Uint8Array {
  const bad = (why: string): Error => badFile(path, `block ${block} (${ALGORITHM_NAMES[algorithm] ?? algorithm}, ${src.length} bytes stored, ${expected} expected): ${why}`);
  let out: Uint8Array;
  try {
    switch (algorithm) {
      case 1:
        out = qIpc(src, expected, bad);
        break;
      case 2:
        out = zlib(src, expected, bad);
        break;
      case 3:
        out = snappy(src, expected, bad);
        break;
      case 4:
        out = lz4(src, expected, bad);
        break;
      case 5:
        out = zstd(src, expected, bad);
        break;
      default:
        throw badFile(path, `block ${block}: compression algorithm ${algorithm} is not one of kdb+'s (1 q IPC, 2 zlib, 3 snappy, 4 lz4hc, 5 zstd)`);
    }
  } catch (e) {
    if (e instanceof TickscopeError && e.kind === 'badDatabase') throw e;
    throw bad(`does not decompress (${e instanceof Error ? e.message : String(e)})`);
  }
  if (out.length !== expected) throw bad(`decompresses to ${out.length} bytes`);
  return out;
}

type Bad = (why: string) => Error;

function qIpc(src: Uint8Array, expected: number, bad: Bad): Uint8Array {
  if (src.length < 12) throw bad('shorter than the 12-byte q IPC header');
  const v = new DataView(src.buffer, src.byteOffset, src.byteLength);
  if (v.getUint32(0, true) !== 0x00010001) throw bad(`starts ${Array.from(src.subarray(0, 4), (x) => x.toString(16).padStart(2, '0')).join(' ')}; expected a compressed q message, 01 00 01 00`);
  const total = v.getInt32(4, true);
  if (total !== src.length) throw bad(`its q message header claims ${total} bytes`);
  const inner = v.getInt32(8, true);
  if (inner !== expected + 8) throw bad(`its q message header claims ${inner - 8} bytes unpacked`);
  return decompressBlock(src.subarray(12), expected, expected);
}

function zlib(src: Uint8Array, expected: number, bad: Bad): Uint8Array {
  let r: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    r = inflateSync(src, { info: true, maxOutputLength: expected }) as unknown as typeof r;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') throw bad(`inflates past ${expected} bytes`);
    if (code === 'Z_BUF_ERROR') throw bad('the zlib stream ends early');
    throw bad(`not a zlib stream (${(e as Error).message})`);
  }
  if (r.engine.bytesWritten !== src.length) throw bad(`the zlib stream ends at byte ${r.engine.bytesWritten}, ${src.length - r.engine.bytesWritten} bytes before the block's end`);
  return r.buffer;
}

function snappy(src: Uint8Array, expected: number, bad: Bad): Uint8Array {
  let length = 0;
  let i = 0;
  for (let shift = 0; ; shift += 7) {
    if (i >= src.length || shift > 28) throw bad('its snappy length varint ends early or runs past 5 bytes');
    const b = src[i++]!;
    length += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  if (length !== expected) throw bad(`its snappy header claims ${length} bytes`);
  return compressors().snappy(src, expected);
}

/** Reads an LZ4 length extension (bytes of 255 then one less) from `at`; answers [extra, next position]. */
function lz4Extension(src: Uint8Array, at: number, bad: Bad): [number, number] {
  let extra = 0;
  for (;;) {
    if (at >= src.length) throw bad('an LZ4 length runs past the block');
    const b = src[at++]!;
    extra += b;
    if (b !== 255) return [extra, at];
  }
}

function lz4(src: Uint8Array, expected: number, bad: Bad): Uint8Array {
  // every sequence checked (literals inside the block, offsets inside the output so far) and the
  // output's length summed, before the decoder copies anything
  let i = 0;
  let out = 0;
  while (i < src.length) {
    const token = src[i++]!;
    let literals = token >> 4;
    if (literals === 15) {
      const [extra, next] = lz4Extension(src, i, bad);
      literals += extra;
      i = next;
    }
    if (i + literals > src.length) throw bad(`an LZ4 sequence's ${literals} literals run past the block`);
    i += literals;
    out += literals;
    if (i === src.length) break;
    if (i + 2 > src.length) throw bad('an LZ4 match offset runs past the block');
    const offset = src[i]! | (src[i + 1]! << 8);
    i += 2;
    if (offset === 0 || offset > out) throw bad(`an LZ4 match offset ${offset} at output byte ${out} points outside the output`);
    let match = token & 15;
    if (match === 15) {
      const [extra, next] = lz4Extension(src, i, bad);
      match += extra;
      i = next;
    }
    out += match + 4;
    if (out > expected) throw bad(`the LZ4 block runs past ${expected} bytes`);
  }
  if (out !== expected) throw bad(`the LZ4 block holds ${out} bytes`);
  return compressors().lz4(src, expected);
}

const ZSTD_MAGIC = 0xfd2fb528;
/** Largest window a frame without a content size may ask for (a kdb+ block is at most 2^20 bytes). */
const ZSTD_MAX_WINDOW = 1 << 23;

function zstd(src: Uint8Array, expected: number, bad: Bad): Uint8Array {
  const v = new DataView(src.buffer, src.byteOffset, src.byteLength);
  if (src.length < 6 || v.getUint32(0, true) !== ZSTD_MAGIC) throw bad('not a zstd frame (28 b5 2f fd)');
  const fhd = src[4]!;
  if (fhd & 0x08) throw bad('its zstd frame header sets the reserved bit');
  const single = (fhd >> 5) & 1;
  const dictBytes = [0, 1, 2, 4][fhd & 3]!;
  const fcsBytes = [single, 2, 4, 8][fhd >> 6]!;
  let at = 5;
  if (!single) {
    const w = src[at++]!;
    const base = 2 ** (10 + (w >> 3));
    const window = base + (base / 8) * (w & 7);
    if (window > ZSTD_MAX_WINDOW) throw bad(`its zstd frame asks for a window of ${window} bytes`);
  }
  if (at + dictBytes + fcsBytes > src.length) throw bad('its zstd frame header runs past the block');
  let dict = 0;
  for (let k = 0; k < dictBytes; k++) dict += src[at + k]! * 2 ** (8 * k);
  if (dict !== 0) throw bad(`its zstd frame needs dictionary ${dict}`);
  at += dictBytes;
  if (fcsBytes > 0) {
    let size = 0;
    for (let k = 0; k < fcsBytes; k++) size += src[at + k]! * 2 ** (8 * k);
    if (fcsBytes === 2) size += 256;
    if (size !== expected) throw bad(`its zstd frame claims ${size} bytes`);
  }
  at += fcsBytes;
  // the frame's blocks, header by header, to its exact end: one frame, nothing after it
  for (let last = 0; !last; ) {
    if (at + 3 > src.length) throw bad('a zstd block header runs past the block');
    const h = src[at]! | (src[at + 1]! << 8) | (src[at + 2]! << 16);
    last = h & 1;
    const type = (h >> 1) & 3;
    if (type === 3) throw bad('a zstd block of the reserved type');
    at += 3 + (type === 1 ? 1 : h >>> 3);
    if (at > src.length) throw bad('a zstd block runs past the block');
  }
  if (fhd & 0x04) at += 4;
  if (at !== src.length) throw bad(`the zstd frame ends at byte ${at}, not at the block's end`);
  return compressors().zstd(src);
}
