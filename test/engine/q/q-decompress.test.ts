/**
 * kdb+'s IPC compression unpacked by engine/q/decompress.ts: q's own compressed messages
 * (qPython's vectors, test/fixtures/q-ipc-vectors) byte for byte, messages compressed as a q client
 * does, and every truncated, overrunning, corrupted or over-claiming variant refused with an error
 * (never a zero-filled or short block, and nothing allocated for a claim the stream cannot give).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { decompressBlock, decompressBlockAsync } from '../../../engine/q/decompress.js';
import { MSG_SYNC, QWriter } from '../../../engine/q/codec.js';
import { compressMessage, zeroBomb } from '../../helpers/q-compress.js';

const MAX = 64 * 1024 * 1024;

/** The vectors: expression, compressed bytes after the message header (unpacked length, then body). */
function vectors(): Array<{ q: string; packed: Buffer }> {
  const lines = readFileSync(join(process.cwd(), 'test/fixtures/q-ipc-vectors/QCompressedExpressions3.out'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const out: Array<{ q: string; packed: Buffer }> = [];
  for (let i = 0; i + 1 < lines.length; i += 2) out.push({ q: lines[i]!.trim(), packed: Buffer.from(lines[i + 1]!.trim(), 'hex') });
  return out;
}

/** What q serializes for each expression (after the header), written out by hand from q's IPC format. */
function plainBody(q: string): Buffer {
  const w = QWriter.forMessage();
  const syms = (n: number, s: string): void => {
    w.vector(11, n);
    for (let i = 0; i < n; i++) w.symText(s);
  };
  const longs = (from: number, n: number): void => {
    w.vector(7, n);
    for (let i = 0; i < n; i++) w.i64(BigInt(from + i));
  };
  if (q === '1000#`q') syms(1000, 'q');
  else if (q === '([] q:1000#`q)') {
    w.u8(98);
    w.u8(0);
    w.u8(99);
    syms(1, 'q');
    w.vector(0, 1);
    syms(1000, 'q');
  } else if (q === '([] a:til 200;b:25+til 200;c:200#`a)') {
    w.u8(98);
    w.u8(0);
    w.u8(99);
    w.vector(11, 3);
    for (const c of ['a', 'b', 'c']) w.symText(c);
    w.vector(0, 3);
    longs(0, 200);
    longs(25, 200);
    syms(200, 'a');
  } else throw new Error(`no plain form written for ${q}`);
  return Buffer.from(w.message(MSG_SYNC).subarray(8));
}

/** The error decompressBlock throws, or null when it returns. */
function failure(src: Uint8Array, length: number, max = MAX): TickscopeError | null {
  try {
    const out = decompressBlock(src, length, max);
    expect(out.length).toBe(length);
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(TickscopeError);
    return e as TickscopeError;
  }
}

describe('decompressBlock (kdb+ IPC compression)', () => {
  it("unpacks q's own compressed messages byte for byte", () => {
    const all = vectors();
    expect(all.map((v) => v.q)).toEqual(['1000#`q', '([] q:1000#`q)', '([] a:til 200;b:25+til 200;c:200#`a)']);
    for (const { q, packed } of all) {
      const size = packed.readInt32LE(0);
      const want = plainBody(q);
      expect(size - 8, q).toBe(want.length);
      expect(Buffer.from(decompressBlock(packed.subarray(4), size - 8, MAX)), q).toEqual(want);
    }
  });

  it('unpacks what a q client compresses, in one piece or in slices that yield', async () => {
    const w = QWriter.forMessage();
    w.vector(0, 3);
    w.symbol('.fsi.getTicks');
    w.chars('x'.repeat(5000) + 'abcabcabd'.repeat(300));
    w.vector(7, 2000);
    for (let i = 0; i < 2000; i++) w.i64(BigInt(i % 17));
    const plain = Buffer.from(w.message(MSG_SYNC));
    const packed = compressMessage(plain);
    expect(packed.length).toBeLessThan(plain.length / 2);
    const body = packed.subarray(12);
    expect(Buffer.from(decompressBlock(body, plain.length - 8, MAX))).toEqual(plain.subarray(8));
    expect(Buffer.from(await decompressBlockAsync(body, plain.length - 8, MAX, 1000))).toEqual(plain.subarray(8));
  });

  it('refuses every truncation of a stream: it ends early, never zero-filled', () => {
    for (const { packed } of vectors()) {
      const size = packed.readInt32LE(0) - 8;
      const body = packed.subarray(4);
      for (let cut = 0; cut < body.length; cut++) {
        const err = failure(body.subarray(0, cut), size);
        expect(err?.ac, `cut at ${cut}`).toBe(13);
        expect(err?.message).toMatch(/^compressed data: (ends early|claims)/);
      }
    }
  });

  it('refuses a stream ending mid back reference (the 22-byte message) before allocating its claim', () => {
    // flags 0x40 then 0x80 pattern: six literals, a back reference (h, 0), a back reference missing its count
    const body = Buffer.from([0x40 | 0x80, 0x61, 0x62, 0x61, 0x62, 0x61, 0x62, 0x03, 0x00, 0x03]);
    expect(body.length).toBe(10);
    const claimed = failure(body, 200_000_006, 2 ** 31);
    expect(claimed?.ac).toBe(13);
    expect(claimed?.message).toMatch(/claims 200000006 bytes unpacked from 10 compressed bytes; kdb\+ compression gives at most 120/);
    // an honest claim reaches the missing count byte
    expect(failure(body, 6 + 2 + 2, MAX)?.message).toMatch(/ends early in a back reference/);
    // a claim that could never be allocated is refused as a claim, not a RangeError
    expect(failure(body, 2 ** 52, 2 ** 53)?.ac).toBe(13);
  });

  it('refuses a claim past maxLength (ac 54) and one past ~121x of the stream (ac 13)', () => {
    const bomb = zeroBomb(1_000_000);
    expect(Buffer.from(decompressBlock(bomb, 1_000_000, MAX)).equals(Buffer.alloc(1_000_000))).toBe(true);
    expect(bomb.length * 2056).toBeGreaterThanOrEqual(1_000_000 * 17);
    expect(bomb.length).toBeLessThan(1_000_000 / 120);
    const tooLarge = failure(bomb, 1_000_000, 999_999);
    expect(tooLarge?.ac).toBe(54);
    expect(tooLarge?.message).toMatch(/claims 1000000 bytes unpacked; at most 999999/);
    const ratio = failure(bomb.subarray(0, 1000), 1_000_000);
    expect(ratio?.ac).toBe(13);
    expect(ratio?.message).toMatch(/gives at most 120941 \(2056 bytes per 17, ~121x\)/);
  });

  it('refuses a stream that runs past its claim, leaves bytes over, or refers to a pair not seen', () => {
    const bomb = zeroBomb(10_000);
    // one byte short a claim: the last back reference runs past it
    expect(failure(bomb, 9_999)?.message).toMatch(/runs past the claimed 9999 bytes/);
    // bytes after a whole block
    expect(failure(Buffer.concat([bomb, Buffer.of(0)]), 10_000)?.message).toMatch(/1 compressed bytes left over/);
    // a back reference first: no pair seen yet
    expect(failure(Buffer.from([0x01, 0x00, 0x05]), 7)?.message).toMatch(/back reference at compressed byte 1 to a byte pair not seen yet/);
    expect(failure(Buffer.of(0x00), 0)?.message).toMatch(/1 compressed bytes left over/);
    expect(decompressBlock(new Uint8Array(0), 0, MAX)).toHaveLength(0);
  });

  it('corrupted streams unpack to exactly the claimed length or throw', () => {
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let thrown = 0;
    for (const { packed } of vectors()) {
      const size = packed.readInt32LE(0) - 8;
      for (let i = 0; i < 400; i++) {
        const body = Buffer.from(packed.subarray(4));
        for (let k = 0; k < 1 + rand(3); k++) body[rand(body.length)] = rand(256);
        if (failure(body, size)) thrown++;
      }
    }
    expect(thrown).toBeGreaterThan(100);
  });
});
