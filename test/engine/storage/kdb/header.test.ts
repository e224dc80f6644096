/**
 * What a kdb+ file holds, told by its first bytes, and its rows counted from its length
 * (engine/storage/kdb/header.ts, attr-index.ts): every file of both fixtures as docs/kdb-format.md
 * section 9 lists it, p# indexes found from the end whatever the header count says, and files whose
 * bytes do not add up refused naming the file.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openKdbFile } from '../../../../engine/storage/kdb/file.js';
import { type FileLayout, readLayout } from '../../../../engine/storage/kdb/header.js';
import { ADV, copyFixture, damage, expectBad, longs, scratch, TORQ, vectorFile } from './kdb-helpers.js';

const tmp: Array<() => void> = [];
afterEach(() => {
  for (const done of tmp.splice(0)) done();
});
function dir(): string {
  const s = scratch();
  tmp.push(s.done);
  return s.dir;
}

function files(root: string): string[] {
  return readdirSync(root).flatMap((n) => {
    const p = join(root, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

const layout = (path: string): FileLayout => readLayout(openKdbFile(path));

/** A layout in one line: kind, type or domain, attribute, rows (section 9's columns). */
function summary(l: FileLayout): string {
  switch (l.kind) {
    case 'vector':
      return `vector ${l.qType} attr ${l.attr} rows ${l.rows}`;
    case 'enum':
      return `enum ${l.domain}/${l.width * 8} attr ${l.attr} rows ${l.rows}${l.parted ? ` runs ${Array.from(l.parted.bounds).join(' ')}` : ''}`;
    case 'object':
      return `object ${l.qType}`;
    default:
      return l.kind;
  }
}


describe('the fixtures, file by file', () => {
  it('tells every TorQ file by its first bytes and counts its rows (docs/kdb-format.md 9)', () => {
    const got = Object.fromEntries(files(TORQ).map((p) => [relative(TORQ, p), summary(layout(p))]));
    expect(got).toMatchObject({
      sym: 'object 11',
      '2015.01.07/trade/.d': 'object 11',
      '2015.01.07/trade/time': 'vector 12 attr 0 rows 196519',
      '2015.01.07/trade/sym': 'enum sym/32 attr 3 rows 196519 runs 0 19603 39479 59474 79077 98903 118437 137898 157489 177097 196519',
      '2015.01.07/trade/price': 'vector 9 attr 0 rows 196519',
      '2015.01.07/trade/size': 'vector 6 attr 0 rows 196519',
      '2015.01.07/trade/stop': 'vector 1 attr 0 rows 196519',
      '2015.01.07/trade/cond': 'vector 10 attr 0 rows 196519',
      '2015.01.07/trade/ex': 'vector 10 attr 0 rows 196519',
      '2015.01.07/quote/sym': 'enum sym/32 attr 3 rows 344455 runs 0 34345 68967 103520 138361 172796 206959 241292 275749 310334 344455',
      '2015.01.07/quote/asize': 'vector 7 attr 0 rows 344455',
      '2015.01.07/quote/mode': 'vector 10 attr 0 rows 344455',
      '2015.01.07/trade_iex/sym': 'enum sym/32 attr 3 rows 0 runs 0',
      '2015.01.07/trade_iex/srctime': 'vector 12 attr 0 rows 0',
    });
  });

  it('tells every advancedKdb file by its first bytes and counts its rows', () => {
    const got = Object.fromEntries(files(ADV).map((p) => [relative(ADV, p), summary(layout(p))]));
    expect(Object.keys(got)).toHaveLength(45);
    expect(got).toMatchObject({
      sym: 'object 11',
      '2019.06.24/quote/sym': 'enum sym/64 attr 3 rows 94 runs 0 11 27 43 54 67 80 94',
      '2019.06.24/quote/exchange': 'enum sym/64 attr 0 rows 94',
      '2019.06.24/quote/time': 'vector 16 attr 0 rows 94',
      '2019.06.24/quote/bid': 'vector 9 attr 0 rows 94',
      '2019.06.24/bid/sym': 'enum sym/64 attr 3 rows 8 runs 0 2 3 4 5 8',
      '2019.06.25/statsTab/volume': 'vector 7 attr 0 rows 18320',
      '2019.06.25/statsTab/sym': 'enum sym/64 attr 3 rows 18320 runs 0 2601 5229 7834 10453 13074 15701 18320',
    });
  });

  it("gives a p# column's distinct values in run order (quote/sym: AAPL ASX CSA FDL GOOG IBM MSFT = 5 2 6 4 0 3 1)", () => {
    const l = layout(join(ADV, '2019.06.24/quote/sym'));
    if (l.kind !== 'enum' || !l.parted) throw new Error('expected a parted enumeration');
    const d = l.parted.distinct;
    expect(Array.from(new BigInt64Array(d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength)), Number)).toEqual([5, 2, 6, 4, 0, 3, 1]);
  });
});

describe('counts in headers are not trusted', () => {
  it('finds a p# index from the end when the header count is 0', () => {
    const [path] = copyFixture(ADV, dir(), '2019.06.24/quote/sym');
    damage(path!, (b) => (b.writeBigInt64LE(0n, 4088), b));
    expect(summary(layout(path!))).toBe('enum sym/64 attr 3 rows 94 runs 0 11 27 43 54 67 80 94');
  });

  it('sizes a plain vector by its length when its header count is 0, and refuses one the length contradicts', () => {
    const d = dir();
    writeFileSync(join(d, 'a'), vectorFile(7, 0, longs([1, 2, 3])));
    expect(summary(layout(join(d, 'a')))).toBe('vector 7 attr 0 rows 3');
    writeFileSync(join(d, 'b'), vectorFile(7, 2, longs([1, 2, 3])));
    expectBad(() => layout(join(d, 'b')), join(d, 'b'), /counts 2 rows; its 40 bytes hold 3/);
    writeFileSync(join(d, 'c'), vectorFile(7, 0, longs([1, 2, 3])).subarray(0, 37));
    expectBad(() => layout(join(d, 'c')), join(d, 'c'), /not a whole number of 8-byte items/);
    writeFileSync(join(d, 'e'), vectorFile(7, 1 << 30, longs([1, 2, 3]), 2));
    expectBad(() => layout(join(d, 'e')), join(d, 'e'), /counts 1073741824 rows/);
  });

  it('reads a g# index (sample layout, docs/kdb-format.md 2.3) with and without a header count', () => {
    // rows 7 of a long column: values 5 5 9 5 9 9 1; u# of 3 values, boundaries 0 3 6 7, row numbers
    const values = [5, 5, 9, 5, 9, 9, 1];
    const u = Buffer.concat([Buffer.from([3, 0, 7, 2, 1, 0, 0, 0]), longs([3]), longs([5, 9, 1]), longs([-1, 0, -1, 2])]);
    const index = Buffer.concat([Buffer.alloc(8), u, Buffer.from([0, 0, 7, 0, 1, 0, 0, 0]), longs([4, 0, 3, 6, 7]), Buffer.from([0, 0, 7, 0, 1, 0, 0, 0]), longs([7, 0, 1, 3, 2, 4, 5, 6])]);
    const d = dir();
    for (const count of [7, 0]) {
      writeFileSync(join(d, `g${count}`), Buffer.concat([vectorFile(7, count, longs(values), 4), index]));
      expect(summary(layout(join(d, `g${count}`)))).toBe('vector 7 attr 4 rows 7');
    }
    writeFileSync(join(d, 'cut'), Buffer.concat([vectorFile(7, 0, longs(values), 4), index]).subarray(0, 16 + 56 + index.length - 8));
    expectBad(() => layout(join(d, 'cut')), join(d, 'cut'), /g# column without its index/);
  });

  it('refuses a p# file whose index is cut or whose boundaries do not increase', () => {
    const d = dir();
    const [cut, flat] = copyFixture(ADV, d, '2019.06.24/quote/sym', '2019.06.24/bid/sym');
    damage(cut!, (b) => b.subarray(0, b.length - 8));
    expectBad(() => layout(cut!), cut!, /p# column without its index/);
    // bid/sym's boundaries 0 2 3 4 5 8 end the file: make the second 3 (equal to the third)
    damage(flat!, (b) => (b.writeBigInt64LE(3n, b.length - 8 * 5), b));
    expectBad(() => layout(flat!), flat!, /p# column without its index/);
  });

  it('refuses a u# file with a header count of 0 (its rows cannot be told)', () => {
    const path = join(dir(), 'u');
    writeFileSync(path, Buffer.concat([vectorFile(7, 0, longs([1, 2, 3]), 2), Buffer.alloc(64)]));
    expectBad(() => layout(path), path, /u# column whose header count is 0/);
  });
});

describe('first bytes that are no kdb+ file', () => {
  it('refuses a wrong magic, a vector of symbols, an unknown page type and a domain name that is a path', () => {
    const d = dir();
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ['text', Buffer.from('2015.01.07\n'), /starts 32 30 31 35.*expected a kdb\+ data file/],
      ['syms', vectorFile(11, 0, Buffer.alloc(0)), /type 11/],
      ['page', Buffer.concat([Buffer.from([0xfd, 0x20]), Buffer.alloc(4078), Buffer.from([0xfd, 0, 9, 0]), Buffer.alloc(12)]), /fd 20\) of type 9/],
      ['path', Buffer.concat([Buffer.from([0xfe]), Buffer.from('a/b\0', 'latin1'), Buffer.alloc(32)]), /domain "a\/b"/],
      ['short', Buffer.from([0xfd, 0x20, 0, 0]), /a kdb\+ 3\.6 first page takes 4096/],
    ];
    for (const [name, bytes, why] of cases) {
      writeFileSync(join(d, name), bytes);
      expectBad(() => layout(join(d, name)), join(d, name), why);
    }
  });
});
