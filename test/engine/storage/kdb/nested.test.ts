/**
 * Nested kdb+ columns (engine/storage/kdb/nested.ts). Neither fixture has one, so these files are
 * built here from docs/kdb-format.md 4: anymap (type 77) with the element bytes the doc quotes from
 * DolphinDB's q-written sample (`89 09 dolphindb`, `75 61`, `86 03` + longs, a mapped `fb 00 07 00`
 * vector), and the older typed kind (77 + t) as a public description gives it (unverified on any
 * bytes q wrote). Strings and numeric lists read; mixed lists open and refuse to be read, naming the
 * column and its q type; elements outside `name#` are damage naming the file.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { Column } from '../../../../engine/core/column.js';
import { openColumn, readColumn } from '../../../../engine/storage/kdb/column.js';
import { expectError, kxzipWith, longs, scratch, vectorFile } from './kdb-helpers.js';

const tmp: Array<() => void> = [];
afterEach(() => {
  for (const done of tmp.splice(0)) done();
});
function dir(): string {
  const s = scratch();
  tmp.push(s.done);
  return s.dir;
}

type El = { compact: Uint8Array } | { mapped: Uint8Array };

/** A 3.6 page: fd 20, zeros, a vector header at 4080 (`fd flag type 00`, count 0). */
function page(flag: number, type: number): Buffer {
  const p = Buffer.alloc(4096);
  p.set([0xfd, 0x20]);
  p.set([0xfd, flag, type, 0], 4080);
  return p;
}

/** An anymap column's two files: one locator per element, the elements packed (mapped ones 8-aligned). */
function anymap(elements: readonly El[]): { name: Buffer; arena: Buffer } {
  const locators = Buffer.alloc(8 * elements.length);
  const parts: Buffer[] = [];
  let at = 0;
  elements.forEach((e, i) => {
    if ('mapped' in e) {
      const pad = (8 - (at % 8)) % 8;
      parts.push(Buffer.alloc(pad));
      at += pad;
    }
    locators.writeUInt32LE(at, 8 * i);
    locators.writeUInt32LE(('compact' in e ? 1 : 0) << 24, 8 * i + 4);
    const bytes = Buffer.from('compact' in e ? e.compact : e.mapped);
    parts.push(bytes);
    at += bytes.length;
  });
  return { name: Buffer.concat([page(1, 77), locators]), arena: Buffer.concat([page(0, 4), ...parts]) };
}

/** A mapped q vector: header `fb 00 t 00`, r = 1, count, then the items. */
function mapped(t: number, n: number, items: Uint8Array): { mapped: Uint8Array } {
  const h = Buffer.alloc(16);
  h.set([0xfb, 0, t, 0, 1]);
  h.writeBigInt64LE(BigInt(n), 8);
  return { mapped: Buffer.concat([h, items]) };
}

const compact = (...bytes: Array<number | Uint8Array>): { compact: Uint8Array } => ({ compact: Buffer.concat(bytes.map((b) => (typeof b === 'number' ? Buffer.from([b]) : Buffer.from(b)))) });
const text = (s: string): Buffer => Buffer.from(s, 'latin1');

function write(d: string, name: string, files: { name: Buffer; arena: Buffer }): string {
  writeFileSync(join(d, name), files.name);
  writeFileSync(join(d, `${name}#`), files.arena);
  return join(d, name);
}

const lists = (c: Column): number[][] => {
  if (c.type !== 'long[]' && c.type !== 'float[]') throw new Error(`expected a list column, got ${c.type}`);
  return Array.from({ length: c.offsets.length - 1 }, (_, i) => Array.from(c.values.subarray(c.offsets[i]!, c.offsets[i + 1]!)));
};


const STRINGS: El[] = [compact(0x89, 9, text('dolphindb')), compact(0x89, 0), compact(0x75, 0x61), mapped(10, 12, text('hello, world'))];

describe('anymap columns (type 77)', () => {
  it('reads char vectors and char atoms, compact and mapped, as strings', () => {
    const path = write(dir(), 'nestChar', anymap(STRINGS));
    const col = openColumn(path);
    expect([col.qType, col.rows, col.type]).toEqual([77, 4, 'string']);
    expect(col.read()).toEqual({ type: 'string', values: ['dolphindb', '', 'a', 'hello, world'] });
    expect(col.read(1, 3)).toEqual({ type: 'string', values: ['', 'a'] });
  });

  it('reads vectors of one numeric family as long[] or float[] lists', () => {
    const d = dir();
    const ints = Buffer.alloc(8);
    ints.writeInt32LE(7, 0);
    ints.writeInt32LE(-2147483648, 4);
    const l = write(d, 'l', anymap([compact(0x86, 3, longs([1, 2, 3])), mapped(7, 30, longs(Array.from({ length: 30 }, (_, i) => i + 1))), compact(0x86, 0), compact(0x85, 2, ints)]));
    const got = lists(readColumn(l));
    expect(got[0]).toEqual([1, 2, 3]);
    expect(got[1]).toHaveLength(30);
    expect(got.slice(2)).toEqual([[], [7, NaN]]);
    const f = Buffer.alloc(16);
    f.writeDoubleLE(1.5, 0);
    f.writeDoubleLE(2.5, 8);
    const r = Buffer.alloc(8);
    r.writeFloatLE(0.5, 0);
    r.writeFloatLE(-1, 4);
    expect(lists(readColumn(write(d, 'f', anymap([compact(0x88, 2, f), mapped(8, 2, r)]))))).toEqual([
      [1.5, 2.5],
      [0.5, -1],
    ]);
  });

  it('opens a mixed list (a long atom among long vectors) with no type, and refuses to read it naming the column and q type 77', () => {
    const path = write(dir(), 'd', anymap([compact(0x86, 1, longs([1])), compact(0x78, longs([4])), compact(0x86, 0)]));
    expectError(() => openColumn(path).read(1, 3), 'notSupported', /row 1 is a long atom/);
    const col = openColumn(path);
    expect(col.type).toBeUndefined();
    expectError(() => col.read(), 'notSupported', /kdb\+ column d/, /q type 77/, /row 1 is a long atom/);
    const mixed = write(dir(), 'm', anymap([compact(0x89, 1, text('x')), compact(0x86, 1, longs([1]))]));
    expectError(() => readColumn(mixed), 'notSupported', /column m/, /mixed list/);
  });

  it('reads the same rows when both files are kxzipped', () => {
    const d = dir();
    const { name, arena } = anymap(STRINGS);
    writeFileSync(join(d, 'c'), kxzipWith(name, 2, 12, (b) => deflateSync(b)));
    writeFileSync(join(d, 'c#'), kxzipWith(arena, 2, 12, (b) => deflateSync(b)));
    expect(readColumn(join(d, 'c'))).toEqual({ type: 'string', values: ['dolphindb', '', 'a', 'hello, world'] });
  });

  it('refuses locators and elements outside name#, naming the file', () => {
    const d = dir();
    const cases: Array<[string, (f: { name: Buffer; arena: Buffer }) => void, RegExp]> = [
      ['past', (f) => f.name.writeUInt32LE(100_000, 4096), /past the file's/],
      ['flag', (f) => f.name.writeUInt32LE(2 << 24, 4100), /flag is 2/],
      ['count', (f) => f.arena.writeBigInt64LE(1000n, 4096 + 16 + 8), /runs past the file's/],
      ['cut', (f) => (f.arena = f.arena.subarray(0, f.arena.length - 4)), /runs past the file's/],
    ];
    for (const [name, edit, why] of cases) {
      const files = anymap([compact(0x89, 9, text('dolphindb')), mapped(10, 12, text('hello, world'))]);
      edit(files);
      const path = write(d, name, files);
      expectError(() => readColumn(path), 'badDatabase', `${path}#`, why);
    }
  });

  it('refuses rows claiming more element bytes than name# holds (locators sharing one element)', () => {
    const files = anymap([mapped(7, 30, longs(Array.from({ length: 30 }, (_, i) => i)))]);
    const one = files.name.subarray(4096, 4104);
    files.name = Buffer.concat([files.name.subarray(0, 4096), ...Array.from({ length: 40 }, () => one)]);
    const path = write(dir(), 'shared', files);
    expectError(() => readColumn(path), 'badDatabase', `${path}#`, /claim 9600 bytes of elements/);
  });
});

describe('typed nested columns (77 + t, before kdb+ 3.6; unverified layout)', () => {
  /** The column file: `fe 20 (77+t) 00`, the count, then cumulative end offsets. */
  const ends = (t: number, offsets: readonly number[]): Buffer => vectorFile(77 + t, offsets.length, longs(offsets));

  it('reads strings from a bare name# and from one with a vector header', () => {
    const d = dir();
    writeFileSync(join(d, 's'), ends(10, [3, 3, 7]));
    writeFileSync(join(d, 's#'), text('abcdefg'));
    const col = openColumn(join(d, 's'));
    expect([col.qType, col.type]).toEqual([87, 'string']);
    expect(col.read()).toEqual({ type: 'string', values: ['abc', '', 'defg'] });
    expect(col.read(2, 3)).toEqual({ type: 'string', values: ['defg'] });
    writeFileSync(join(d, 's#'), vectorFile(10, 7, text('abcdefg')));
    expect(readColumn(join(d, 's'))).toEqual({ type: 'string', values: ['abc', '', 'defg'] });
  });

  it('reads long lists, and refuses offsets that split an item or miss the end of name#', () => {
    const d = dir();
    writeFileSync(join(d, 'l'), ends(7, [16, 24]));
    writeFileSync(join(d, 'l#'), longs([1, 2, 3]));
    expect(lists(readColumn(join(d, 'l')))).toEqual([[1, 2], [3]]);
    writeFileSync(join(d, 'l'), ends(7, [12, 24]));
    expectError(() => readColumn(join(d, 'l')), 'badDatabase', join(d, 'l'), /whole 8-byte items/);
    writeFileSync(join(d, 'l'), ends(7, [16, 32]));
    expectError(() => readColumn(join(d, 'l')), 'badDatabase', `${join(d, 'l')}#`, /last offset, 32/);
  });

  it('opens a list of a type Tickscope has no list for (timestamps) and refuses to read it', () => {
    const d = dir();
    writeFileSync(join(d, 't'), ends(12, [8]));
    writeFileSync(join(d, 't#'), longs([1]));
    const col = openColumn(join(d, 't'));
    expect(col.type).toBeUndefined();
    expectError(() => col.read(), 'notSupported', /column t/, /q type 89/);
  });
});
