/**
 * kdb+'s own compression, as q IPC uses it for messages (and kdb+ files for blocks written with
 * algorithm 1). A stream is groups of one flag byte and up to eight items, the flag's bits from the
 * lowest telling each item's kind: a clear bit is a literal byte; a set bit is a back reference of
 * two bytes, `h` and `n`: copy 2 + n bytes from the last position where a byte pair whose XOR is `h`
 * started, then skip the n extra bytes when indexing pairs. The positions are the output's own
 * (relative to the block's start), so the same code serves a message body and a file block.
 *
 * The input comes from outside (a q client, a file) and is checked as it is read: every read is
 * bounds-checked, the output is exactly the claimed length (a stream that ends early, runs past the
 * claim or leaves bytes over is refused, never padded with zeros), and a claim is refused before
 * anything is allocated when it exceeds the caller's limit or what the stream's length could give.
 *
 * The expansion bound: one flag byte and eight back references take 1 + 8 * 2 = 17 input bytes and
 * give at most 8 * (2 + 255) = 2056 output bytes; a literal gives 1 byte for 1, a partial group
 * (1 + 2k bytes for 257k, k < 8) less than 2056/17 per byte. So n input bytes give at most
 * floor(n * 2056 / 17) output bytes (~120.9x): a claim beyond it cannot be honest.
 */
import { TickscopeError } from '../core/errors.js';

/** Output bytes per group of 17 input bytes at most (see above). */
const GROUP_OUT = 2056;
const GROUP_IN = 17;
/** Output bytes unpacked between two yields to the event loop (~5-10 ms of work here). */
const SLICE = 2 * 1024 * 1024;

/**
 * Decompresses one kdb+-compressed block into exactly `expectedLength` bytes; throws (ac 54 past
 * `maxLength`, ac 13 for a claim the stream cannot give or a truncated, overrunning or corrupt stream).
 */
export function decompressBlock(src: Uint8Array, expectedLength: number, maxLength: number): Uint8Array {
  const u = unpacker(src, expectedLength, maxLength);
  u.run(expectedLength);
  return u.finish();
}

/**
 * decompressBlock in slices of a few MiB, yielding to the event loop between them: a 64 MiB block
 * takes a few hundred ms of CPU, which a server must not spend in one piece.
 */
export async function decompressBlockAsync(src: Uint8Array, expectedLength: number, maxLength: number, sliceBytes = SLICE): Promise<Uint8Array> {
  const u = unpacker(src, expectedLength, maxLength);
  for (let at = 0; at < expectedLength; ) {
    at = u.run(Math.min(expectedLength, at + sliceBytes));
    if (at < expectedLength) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return u.finish();
}

interface Unpacker {
  /** Unpacks items until at least `until` bytes are out (or all); answers the bytes out. */
  run(until: number): number;
  /** The output, once whole: refuses input left over. */
  finish(): Uint8Array;
}

/** The decompressor's state over one block, checked claim first (nothing allocated for a bad one). */
function unpacker(src: Uint8Array, expectedLength: number, maxLength: number): Unpacker {
  if (!Number.isSafeInteger(expectedLength) || expectedLength < 0) throw bad(`claims ${expectedLength} bytes unpacked; expected a length >= 0`);
  if (expectedLength * GROUP_IN > src.length * GROUP_OUT) {
    throw bad(`claims ${expectedLength} bytes unpacked from ${src.length} compressed bytes; kdb+ compression gives at most ${Math.floor((src.length * GROUP_OUT) / GROUP_IN)} (2056 bytes per 17, ~121x)`);
  }
  // an honest claim past the caller's limit
  if (expectedLength > maxLength) throw new TickscopeError('tooLarge', `compressed data: claims ${expectedLength} bytes unpacked; at most ${maxLength}`);
  const dst = new Uint8Array(expectedLength);
  // last output position of each pair XOR; -1 until seen (a reference to an unseen pair is corrupt)
  const last = new Int32Array(256).fill(-1);
  const end = src.length;
  let s = 0; // output position
  let p = 0; // next pair to index
  let d = 0; // input position
  let flags = 0;
  let bit = 0;
  const early = (where: string): TickscopeError => bad(`ends early${where}: ${s} of ${expectedLength} bytes unpacked at the end of ${end} compressed bytes`);
  const run = (until: number): number => {
    while (s < until) {
      if (bit === 0) {
        if (d >= end) throw early('');
        flags = src[d++]!;
        bit = 1;
      }
      if (flags & bit) {
        if (d + 2 > end) throw early(' in a back reference');
        const r = last[src[d]!]!;
        const len = 2 + src[d + 1]!;
        d += 2;
        if (r < 0) throw bad(`a back reference at compressed byte ${d - 2} to a byte pair not seen yet`);
        if (s + len > expectedLength) throw bad(`a back reference at compressed byte ${d - 2} runs past the claimed ${expectedLength} bytes`);
        // byte by byte: r <= s - 2, so a nearer source overlaps its copy and repeats (and at most
        // 257 bytes: a loop beats copyWithin's call)
        for (let k = 0; k < len; k++) dst[s + k] = dst[r + k]!;
        s += 2;
        while (p < s - 1) {
          last[dst[p]! ^ dst[p + 1]!] = p;
          p++;
        }
        p = s += len - 2;
      } else {
        if (d >= end) throw early('');
        dst[s++] = src[d++]!;
        while (p < s - 1) {
          last[dst[p]! ^ dst[p + 1]!] = p;
          p++;
        }
      }
      bit = (bit << 1) & 0xff;
    }
    return s;
  };
  const finish = (): Uint8Array => {
    if (s < expectedLength) throw early('');
    if (d !== end) throw bad(`${end - d} compressed bytes left over after the claimed ${expectedLength} bytes`);
    return dst;
  };
  return { run, finish };
}

const bad = (why: string): TickscopeError => new TickscopeError('badRequest', `compressed data: ${why}`);
