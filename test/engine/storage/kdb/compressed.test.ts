/**
 * kxzipped files read lazily (engine/storage/kdb/compressed.ts, codecs.ts): q's own compressed
 * columns (algorithm 1 with raw blocks, TorQ; algorithm 2, advancedKdb) decompress only the blocks a
 * range covers, each once while cached; the algorithms no fixture has (0, 3 snappy, 4 lz4, 5 zstd)
 * read blocks made by those codecs' own tools; and every damaged trailer or block is an error naming
 * the file (and the block), never zeros.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { snappyCompress } from 'hysnappy';
import { afterEach, describe, expect, it } from 'vitest';
import { BlockCache } from '../../../../engine/storage/kdb/block-cache.js';
import { openKdbFile } from '../../../../engine/storage/kdb/file.js';
import { ADV, expectBad, kxzip, kxzipWith, longs, scratch, TORQ_DAY, vectorFile } from './kdb-helpers.js';

/** Opens `path` with a fresh cache, counting the blocks decompressed. */
function counted(path: string, cache = new BlockCache()): { file: ReturnType<typeof openKdbFile>; blocks: number[] } {
  const blocks: number[] = [];
  return { file: openKdbFile(path, { cache, onDecompress: (_, b) => blocks.push(b) }), blocks };
}


const tmp: Array<() => void> = [];
afterEach(() => {
  for (const done of tmp.splice(0)) done();
});
function dir(): string {
  const s = scratch();
  tmp.push(s.done);
  return s.dir;
}

describe("q's compressed columns", () => {
  it('reads TorQ trade/price (algorithm 1, 24 blocks of 2^16, 13 stored raw) a block at a time', () => {
    const { file, blocks } = counted(join(TORQ_DAY, 'trade/price'));
    expect(file.length).toBe(1_572_168);
    const c = file.compression!;
    expect([c.format, c.algorithm, c.blockSize, c.blocks]).toEqual([2, 1, 65536, 24]);
    expect(c.blockAlgorithms.filter((a) => a === 1)).toHaveLength(11);
    expect(c.blockAlgorithms.filter((a) => a === 0)).toHaveLength(13);
    expect(blocks).toEqual([]);
    const first = file.read(16, 24);
    expect(new DataView(first.buffer, first.byteOffset, 8).getFloat64(0, true)).toBe(20.12);
    expect(blocks).toEqual([0]);
    // rows 40000..40010 lie in block 4 (bytes 320016..320096)
    file.read(16 + 40000 * 8, 16 + 40010 * 8);
    expect(blocks).toEqual([0, 4]);
    file.read(16 + 40000 * 8, 16 + 40010 * 8);
    expect(blocks).toEqual([0, 4]);
    // a range across blocks 9 and 10
    const across = file.read(10 * 65536 - 8, 10 * 65536 + 8);
    expect(across).toHaveLength(16);
    expect(blocks).toEqual([0, 4, 9, 10]);
  });

  it('decompresses every block of TorQ trade/price and trade/sym to their stated lengths', () => {
    for (const name of ['trade/price', 'trade/sym', 'trade/stop', 'quote/asize']) {
      const { file, blocks } = counted(join(TORQ_DAY, name));
      const image = file.read(0, file.length);
      expect(image.length).toBe(file.length);
      expect(blocks).toHaveLength(file.compression!.blocks);
    }
  });

  it('reads advancedKdb statsTab/lowAsk (algorithm 2, 2 blocks of 2^17): the second block alone', () => {
    const { file, blocks } = counted(join(ADV, '2019.06.25/statsTab/lowAsk'));
    const c = file.compression!;
    expect([c.format, c.algorithm, c.level, c.blockSize, c.blocks, file.length]).toEqual([3, 2, 6, 131072, 2, 146_576]);
    file.read(140_000, 140_008);
    expect(blocks).toEqual([1]);
  });

  it('keeps decompressed blocks in a bounded cache', () => {
    const cache = new BlockCache(2 * 65536);
    const { file, blocks } = counted(join(TORQ_DAY, 'trade/price'), cache);
    for (const b of [0, 1, 2, 0]) file.read(b * 65536, b * 65536 + 8);
    expect(blocks).toEqual([0, 1, 2, 0]);
    expect(cache.bytes).toBeLessThanOrEqual(2 * 65536);
  });
});

/** The 8192-byte image the codec blocks below hold: a long vector of 1022 items, i div 100. */
const IMAGE = vectorFile(7, 1022, longs(Array.from({ length: 1022 }, (_, i) => Math.floor(i / 100))));
/** lz4 -9 -BD --no-frame-crc of each 4096-byte block (lz4 1.9.4), the frame's one block. */
const LZ4 = [
  '40fe20070001003ffe03000100ffffff151f010800ffffff0f1f020800ffffff0f1f030800ffffff0f1f040800ffffff0f1f05080037500000000000',
  '22050001000f0800ffffb71f060800ffffff0f1f070800ffffff0f1f080800ffffff0f1f090800ffffff0f1f0a080097500000000000',
];
/** zstd -19 --no-check of each block (zstd 1.5.4): one frame with its content size. */
const ZSTD = [
  '28b52ffd60000f35010088fe20070000000000fe03000102030405000620b00f8b0ac7ea38568c232be1b8ba22abe905',
  '28b52ffd60000f1d0100700500000000000000060708090a000620b00f2b4a3856c7b1621c55c2b1ea165b492e',
];

describe('the algorithms no fixture has', () => {
  const cases: Array<[number, string, (b: Uint8Array, i: number) => Uint8Array]> = [
    [0, 'none', (b) => b],
    [2, 'zlib', (b) => deflateSync(b)],
    [3, 'snappy', (b) => snappyCompress(b)],
    [4, 'lz4hc', (_, i) => Buffer.from(LZ4[i]!, 'hex')],
    [5, 'zstd', (_, i) => Buffer.from(ZSTD[i]!, 'hex')],
  ];
  for (const [algorithm, name, pack] of cases) {
    it(`reads algorithm ${algorithm} (${name}) blocks to the image`, () => {
      const path = join(dir(), 'col');
      writeFileSync(path, kxzipWith(IMAGE, algorithm, 12, (b, i) => (algorithm === 0 ? b : pack(b, i))).subarray());
      if (algorithm === 0) {
        // algorithm 0 stores blocks raw: their flags are 0
        const bytes = readFileSync(path);
        const n = 2;
        for (let i = 0; i < n; i++) bytes.writeInt32LE(0, bytes.length - 8 - 8 * n + 8 * i + 4);
        writeFileSync(path, bytes);
      }
      const { file, blocks } = counted(path);
      expect(Buffer.from(file.read(5000, 5100)).equals(IMAGE.subarray(5000, 5100))).toBe(true);
      expect(blocks).toEqual([1]);
      expect(Buffer.from(file.read(0, file.length)).equals(IMAGE)).toBe(true);
    });
  }

  it('refuses a block of each that is short, long or not what its header claims, naming the file and block', () => {
    const d = dir();
    const write = (name: string, algorithm: number, stored: Uint8Array): string => {
      const path = join(d, name);
      writeFileSync(path, kxzip(4096, algorithm, 12, [{ bytes: stored, flag: algorithm }]));
      return path;
    };
    const block = IMAGE.subarray(0, 4096);
    const read = (p: string) => () => openKdbFile(p, { cache: new BlockCache() }).read(0, 16);
    expectBad(read(write('zshort', 2, deflateSync(block.subarray(0, 4000)))), 'zshort', 'block 0', /decompresses to 4000 bytes/);
    expectBad(read(write('zlong', 2, deflateSync(Buffer.concat([block, block])))), 'zlong', 'block 0', /inflates past 4096/);
    expectBad(read(write('zcut', 2, deflateSync(block).subarray(0, 20))), 'zcut', 'block 0', /ends early/);
    expectBad(read(write('ztail', 2, Buffer.concat([deflateSync(block), Buffer.from([0, 0])]))), 'ztail', /2 bytes before the block's end/);
    expectBad(read(write('sshort', 3, snappyCompress(block.subarray(0, 4000)))), 'sshort', 'block 0', /snappy header claims 4000/);
    expectBad(read(write('lcut', 4, Buffer.from(LZ4[0]!, 'hex').subarray(0, 40))), 'lcut', 'block 0', /LZ4/);
    expectBad(read(write('zsize', 5, Buffer.from(ZSTD[1]!, 'hex').subarray(0, 44))), 'zsize', 'block 0', /zstd/);
    const z = Buffer.from(ZSTD[0]!, 'hex');
    z[6] = 0x10; // content size 0x1000 + 256
    expectBad(read(write('zfcs', 5, z)), 'zfcs', /claims 4352 bytes/);
  });
});

describe("damaged compressed files (copies of q's)", () => {
  /** TorQ trade/price's block 0 as q stored it (algorithm 1) and what it holds. */
  function qBlock0(): Buffer {
    const bytes = readFileSync(join(TORQ_DAY, 'trade/price'));
    const size = bytes.readInt32LE(bytes.length - 8 - 8 * 24);
    return bytes.subarray(8, 8 + size);
  }

  it('refuses a truncated file, naming it', () => {
    const path = join(dir(), 'price');
    writeFileSync(path, readFileSync(join(TORQ_DAY, 'trade/price')).subarray(0, 1_162_000));
    expectBad(() => openKdbFile(path), path, /trailer|blocks/);
  });

  it("refuses q's algorithm-1 block cut short: its message header, then its stream", () => {
    const d = dir();
    const cut = Buffer.from(qBlock0().subarray(0, 20_000));
    writeFileSync(join(d, 'a'), kxzip(65536, 1, 16, [{ bytes: cut, flag: 1 }]));
    expectBad(() => openKdbFile(join(d, 'a')).read(0, 8), join(d, 'a'), 'block 0', /claims 27460 bytes/);
    cut.writeInt32LE(cut.length, 4);
    writeFileSync(join(d, 'b'), kxzip(65536, 1, 16, [{ bytes: cut, flag: 1 }]));
    expectBad(() => openKdbFile(join(d, 'b')).read(0, 8), join(d, 'b'), 'block 0', /ends early/);
  });

  it('refuses a trailer that does not add up', () => {
    const d = dir();
    const good = (): Buffer => kxzipWith(IMAGE, 2, 12, (b) => deflateSync(b));
    const cases: Array<[string, (b: Buffer) => void, RegExp]> = [
      ['algorithm', (b) => (b[b.length - 8 - 16 - 32 + 4] = 9), /algorithm 9/],
      ['blocksize', (b) => b.writeBigInt64LE(5000n, b.length - 8 - 16 - 32 + 24), /block size of 5000/],
      ['length', (b) => b.writeBigInt64LE(9000n, b.length - 8 - 16 - 32 + 8), /9000 bytes uncompressed/],
      ['offset', (b) => b.writeBigInt64LE(7n, b.length - 8 - 16 - 32 + 16), /starts at byte 7/],
      ['count', (b) => b.writeBigInt64LE(1000n, b.length - 8), /claims 1000 blocks/],
      ['flag', (b) => b.writeInt32LE(3, b.length - 8 - 16 + 4), /algorithm 3 in a file of algorithm 2/],
      ['raw', (b) => b.writeInt32LE(0, b.length - 8 - 16 + 4), /stores block 0 raw/],
    ];
    for (const [name, edit, why] of cases) {
      const b = good();
      edit(b);
      writeFileSync(join(d, name), b);
      expectBad(() => openKdbFile(join(d, name)), join(d, name), why);
    }
  });

  it('refuses an encrypted file (kxzippEd), naming it', () => {
    const path = join(dir(), 'bid');
    const b = readFileSync(join(ADV, '2019.06.24/quote/bid'));
    b.write('kxzippEd', 0, 'latin1');
    writeFileSync(path, b);
    expectBad(() => openKdbFile(path), path, /encrypted/);
  });
});
