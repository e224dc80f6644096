/**
 * Damaged copies of the fixtures' files, read through readColumn: each is an error (badDatabase)
 * naming the file and what was expected, never a crash, zeros or wrong rows. A copy goes to a scratch
 * folder with its database's domain beside it, and is damaged there.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterEach, describe, it } from 'vitest';
import { readColumn } from '../../../../engine/storage/kdb/column.js';
import { Domains } from '../../../../engine/storage/kdb/domain.js';
import { ADV, copyFixture, damage, expectBad, kxzip, scratch, TORQ } from './kdb-helpers.js';

const tmp: Array<() => void> = [];
afterEach(() => {
  for (const done of tmp.splice(0)) done();
});

/** A scratch copy of `files` of a fixture database (and its sym), one damaged by `edit`; answers the damaged file's path and its root. */
function damaged(root: string, file: string, edit: (b: Buffer) => Uint8Array): { path: string; domains: Domains } {
  const s = scratch();
  tmp.push(s.done);
  const [path] = copyFixture(root, s.dir, file, 'sym');
  damage(path!, edit);
  return { path: path!, domains: new Domains(s.dir) };
}


const read = (d: { path: string; domains: Domains }) => () => readColumn(d.path, { domain: d.domains });

describe('truncated files', () => {
  it('a plain vector cut short (its header count no longer fits)', () => {
    const d = damaged(TORQ, '2015.01.07/trade/ex', (b) => b.subarray(0, b.length - 5));
    expectBad(read(d), d.path, /counts 196519 rows of 1 bytes from byte 16; the 196530-byte file holds at most 196514/);
  });

  it('a plain vector whose header count is 0, cut mid-item', () => {
    const d = damaged(ADV, '2019.06.24/quote/time', (b) => (b.writeBigInt64LE(0n, 8), b.subarray(0, b.length - 3)));
    expectBad(read(d), d.path, /not a whole number of 8-byte items/);
  });

  it('a p# enumeration cut short (its index is gone)', () => {
    const d = damaged(ADV, '2019.06.25/quote/sym', (b) => b.subarray(0, b.length - 100));
    expectBad(read(d), d.path, /p# column without its index/);
  });

  it('a compressed file cut short (its trailer is gone)', () => {
    const d = damaged(TORQ, '2015.01.07/trade/price', (b) => b.subarray(0, 600_000));
    expectBad(read(d), d.path, /trailer|blocks/);
  });

  it("a compressed file whose block q wrote is cut short (zlib and q IPC), naming the block", () => {
    const bid = readFileSync(join(ADV, '2019.06.24/quote/bid'));
    const zblock = bid.subarray(8, 8 + bid.readInt32LE(bid.length - 16));
    const z = damaged(ADV, '2019.06.24/quote/bid', () => kxzip(768, 2, 17, [{ bytes: zblock.subarray(0, zblock.length - 10), flag: 2 }]));
    expectBad(read(z), z.path, /block 0 \(zlib.*ends early/);
    const stop = readFileSync(join(TORQ, '2015.01.07/trade/stop'));
    const n = 3;
    const sizes = [0, 1, 2].map((i) => stop.readInt32LE(stop.length - 8 - 8 * n + 8 * i));
    const blocks = [0, 1, 2].map((i) => {
      const at = 8 + sizes.slice(0, i).reduce((s, x) => s + x, 0);
      return { bytes: stop.subarray(at, at + sizes[i]!), flag: 1 };
    });
    const cut = Buffer.from(blocks[1]!.bytes.subarray(0, blocks[1]!.bytes.length - 4));
    cut.writeInt32LE(cut.length, 4);
    const q = damaged(TORQ, '2015.01.07/trade/stop', () => kxzip(196_535, 1, 16, [blocks[0]!, { bytes: cut, flag: 1 }, blocks[2]!]));
    expectBad(read(q), q.path, /block 1 \(q IPC.*ends early/);
  });
});

describe('counts past the end', () => {
  it("a vector's header count past the file's end", () => {
    const d = damaged(TORQ, '2015.01.07/trade/ex', (b) => (b.writeBigInt64LE(1_000_000_000n, 8), b));
    expectBad(read(d), d.path, /counts 1000000000 rows/);
  });

  it("a 32-bit enumeration's header count past the file's end", () => {
    const d = damaged(TORQ, '2015.01.07/trade_iex/sym', (b) => (b.writeBigInt64LE(100n, 16), b));
    expectBad(read(d), d.path, /counts 100 rows of 4 bytes/);
  });

  it("a p# enumeration's header count that its index contradicts", () => {
    const d = damaged(ADV, '2019.06.24/quote/sym', (b) => (b.writeBigInt64LE(95n, 4088), b));
    expectBad(read(d), d.path, /p# column without its index.*row count 95/);
  });

  it('a compressed block table claiming more blocks than the file holds', () => {
    const d = damaged(ADV, '2019.06.25/statsTab/lowAsk', (b) => (b.writeBigInt64LE(2n ** 40n, b.length - 8), b));
    expectBad(read(d), d.path, /claims 1099511627776 blocks/);
  });
});

describe('indices past the domain', () => {
  it('a 64-bit index past the 12 names of sym', () => {
    // bid/sym's rows 0 and 1 are run 0: row 1 is not a run start, so only the domain check sees it
    const d = damaged(ADV, '2019.06.24/bid/sym', (b) => (b.writeBigInt64LE(99n, 4096 + 8), b));
    expectBad(read(d), d.path, /row 1 holds enumeration index 99, past the 12 names of its domain/);
  });

  it('32-bit indices past a domain of 3 names', () => {
    // runs MSFT DOW AAPL (indices 0-2), then IBM (3) from row 59474
    const d = damaged(TORQ, '2015.01.07/trade/sym', (b) => b);
    writeFileSync(join(d.domains.root, 'sym'), Buffer.concat([Buffer.from([0xff, 1, 11, 0, 3, 0, 0, 0]), Buffer.from('MSFT\0DOW\0AAPL\0', 'latin1')]));
    expectBad(read(d), d.path, /row 59474 holds enumeration index 3, past the 3 names/);
  });

  it("a run start that disagrees with the p# index", () => {
    const d = damaged(ADV, '2019.06.24/quote/sym', (b) => (b.writeBigInt64LE(5n, 4096 + 11 * 8), b));
    expectBad(read(d), d.path, /p# index says run 1 \(rows 11 to 26\)/);
  });
});

describe('what is no kdb+ column', () => {
  it('a wrong magic', () => {
    const d = damaged(ADV, '2019.06.24/quote/time', (b) => (b.write('zz', 0, 'latin1'), b));
    expectBad(read(d), d.path, /starts 7a 7a 10 00.*expected a kdb\+ data file/);
  });

  it('a compressed file whose image has a wrong magic', () => {
    const image = Buffer.concat([Buffer.from('nonsense'), Buffer.alloc(100)]);
    const d = damaged(ADV, '2019.06.24/quote/ask', () => kxzip(image.length, 2, 17, [{ bytes: deflateSync(image), flag: 2 }]));
    expectBad(read(d), d.path, /starts 6e 6f 6e 73/);
  });

  it('an encrypted marker (kxzippEd)', () => {
    const d = damaged(TORQ, '2015.01.07/trade/price', (b) => (b.write('kxzippEd', 0, 'latin1'), b));
    expectBad(read(d), d.path, /encrypted \(kxzippEd/);
  });

  it('a serialized object where a column should be', () => {
    const d = damaged(ADV, '2019.06.24/quote/.d', (b) => b);
    expectBad(read(d), d.path, /serialized q object \(type 11\), not a column file/);
  });
});
