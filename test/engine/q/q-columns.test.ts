/**
 * The columnar q decoder (engine/q/columns.ts, vector-column.ts): every q type into its Tickscope
 * column with q's nulls and infinities mapped (SPEC 2, 11), conversions checked against BigInt
 * arithmetic on random values, the gateway's own tables read back whole, big-endian bytes read as
 * little-endian ones, and malformed bytes (every truncation, huge or negative counts, random
 * corruption) refused with an error naming what was expected, never a crash or a large allocation.
 * q's own serializations are checked in q-vectors.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { columnLength } from '../../../engine/core/column.js';
import { TickscopeError } from '../../../engine/core/errors.js';
import type { QueryResult } from '../../../engine/core/result.js';
import { MSG_SYNC, QWriter } from '../../../engine/q/codec.js';
import { decodeColumn, decodeColumns, decodeColumnsAt, decodeColumnsMessage, type QColumns } from '../../../engine/q/columns.js';
import { writeTable } from '../../../engine/output/q-result.js';
import { columnRows as rows } from '../../helpers/column-rows.js';
import { generated, rng } from '../../helpers/generated-table.js';
import { compressMessage } from '../../helpers/q-compress.js';

const EPOCH_NS = 946_684_800_000_000_000n;
const EPOCH_DAYS = 10_957;
const NULL64 = -9223372036854775808n;
const INF64 = 9223372036854775807n;
const NULL32 = -2147483648;
const INF32 = 2147483647;

/** The body (after the 8-byte header) of what `write` writes. */
function body(write: (w: QWriter) => void): Uint8Array {
  const w = QWriter.forMessage();
  write(w);
  return new Uint8Array(w.message(MSG_SYNC).subarray(8));
}

/** A simple vector of `type` whose items `item` writes. */
function vec<T>(type: number, items: readonly T[], item: (w: QWriter, x: T) => void): Uint8Array {
  return body((w) => {
    w.vector(type, items.length);
    for (const x of items) item(w, x);
  });
}

const i16 = (w: QWriter, x: number): void => {
  const b = Buffer.alloc(2);
  b.writeInt16LE(x);
  w.bytes(b);
};
const f32 = (w: QWriter, x: number): void => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(x);
  w.bytes(b);
};

/** The error a decode throws. */
function failure(f: () => unknown): TickscopeError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(TickscopeError);
    return e as TickscopeError;
  }
  throw new Error('expected a TickscopeError');
}

describe('q vectors into columns', () => {
  it('maps each simple type to its column with nulls and infinities (SPEC 11)', () => {
    const col = (b: Uint8Array): { type: string; rows: unknown[] } => {
      const c = decodeColumn(b);
      return { type: c.type, rows: rows(c) };
    };
    expect(col(vec(1, [0, 1, 2], (w, x) => w.u8(x)))).toEqual({ type: 'boolean', rows: [false, true, true] });
    expect(col(vec(4, [0, 127, 255], (w, x) => w.u8(x)))).toEqual({ type: 'int', rows: [0, 127, 255] });
    expect(col(vec(5, [-32768, 32767, -32767, -5], i16))).toEqual({ type: 'int', rows: [NULL32, INF32, -INF32, -5] });
    expect(col(vec(6, [NULL32, INF32, -INF32, 7], (w, x) => w.i32(x)))).toEqual({ type: 'int', rows: [NULL32, INF32, -INF32, 7] });
    expect(col(vec(7, [NULL64, INF64, -INF64, 89421099511627575n], (w, x) => w.i64(x)))).toEqual({ type: 'long', rows: [NULL64, INF64, -INF64, 89421099511627575n] });
    expect(col(vec(8, [NaN, Infinity, -Infinity, 5.5], f32))).toEqual({ type: 'float', rows: [NaN, Infinity, -Infinity, 5.5] });
    expect(col(vec(9, [NaN, Infinity, -0.25], (w, x) => w.f64(x)))).toEqual({ type: 'float', rows: [NaN, Infinity, -0.25] });
    // a char vector is a column of one char per row: symbols, q's null char (a space) the null symbol
    expect(col(body((w) => w.chars('a b')))).toEqual({ type: 'symbol', rows: ['a', '', 'b'] });
    expect(col(vec(11, ['', 'Zürich', '', 'x'], (w, x) => w.symText(x)))).toEqual({ type: 'symbol', rows: ['', 'Zürich', '', 'x'] });
    // timestamps: q's from 2000, Tickscope's from 1970; 0Np, ±0Wp kept; past the int64 range, 0Wp
    expect(col(vec(12, [NULL64, INF64, -INF64, 0n, -1n, INF64 - 1n, INF64 - EPOCH_NS, INF64 - EPOCH_NS - 1n], (w, x) => w.i64(x)))).toEqual({
      type: 'timestamp',
      rows: [NULL64, INF64, -INF64, EPOCH_NS, EPOCH_NS - 1n, INF64, INF64, INF64 - 1n],
    });
    // months and dates to days from 1970; 0N and ±0W kept; a date past the int32 range is 0Wd
    expect(col(vec(13, [0, -1, 12, NULL32, INF32, -INF32], (w, x) => w.i32(x)))).toEqual({ type: 'date', rows: [EPOCH_DAYS, EPOCH_DAYS - 31, EPOCH_DAYS + 366, NULL32, INF32, -INF32] });
    expect(col(vec(14, [0, -1, NULL32, INF32, -INF32, INF32 - 1], (w, x) => w.i32(x)))).toEqual({ type: 'date', rows: [EPOCH_DAYS, EPOCH_DAYS - 1, NULL32, INF32, -INF32, INF32] });
    // datetimes to the millisecond; 0Nz null, ±0wz and days past the timestamps' range ±0Wp
    expect(col(vec(15, [0, 3.2340000000000004, -1.5, NaN, Infinity, -Infinity, 1e300, -1e300], (w, x) => w.f64(x)))).toEqual({
      type: 'timestamp',
      rows: [EPOCH_NS, EPOCH_NS + 279_417_600_000_000n, EPOCH_NS - 129_600_000_000_000n, NULL64, INF64, -INF64, INF64, -INF64],
    });
    expect(col(vec(16, [NULL64, INF64, 5n], (w, x) => w.i64(x)))).toEqual({ type: 'timespan', rows: [NULL64, INF64, 5n] });
    // minute, second, time to timespans; past the int64 range (a minute of 2^31 - 2) ±0Wn
    expect(col(vec(17, [721, -1, NULL32, INF32, -INF32, INF32 - 1, -(INF32 - 1)], (w, x) => w.i32(x)))).toEqual({
      type: 'timespan',
      rows: [721n * 60_000_000_000n, -60_000_000_000n, NULL64, INF64, -INF64, INF64, -INF64],
    });
    expect(col(vec(18, [43500, INF32 - 1], (w, x) => w.i32(x)))).toEqual({ type: 'timespan', rows: [43_500_000_000_000n, BigInt(INF32 - 1) * 1_000_000_000n] });
    expect(col(vec(19, [43499123, -(INF32 - 1)], (w, x) => w.i32(x)))).toEqual({ type: 'timespan', rows: [43_499_123_000_000n, -BigInt(INF32 - 1) * 1_000_000n] });
    // guids as 8-4-4-4-12 text, the null guid as the null string
    const guid = Buffer.from('8c680a015a495aab5a65d4bfddb6a661', 'hex');
    expect(col(vec(2, [guid, Buffer.alloc(16)], (w, x) => w.bytes(x)))).toEqual({ type: 'string', rows: ['8c680a01-5a49-5aab-5a65-d4bfddb6a661', ''] });
  });

  it('converts temporal values exactly (against BigInt arithmetic on random values)', () => {
    const r = rng(28);
    const n = 20_000;
    const ts: bigint[] = [];
    const times: number[] = [];
    const minutes: number[] = [];
    const datetimes: number[] = [];
    for (let i = 0; i < n; i++) {
      ts.push(BigInt.asIntN(64, (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32))));
      times.push(Math.floor((r() - 0.5) * 2 ** 32) | 0);
      minutes.push(Math.floor((r() - 0.5) * 2 * 153_722_867));
      datetimes.push((r() - 0.5) * 2 * 106_000 * (r() < 0.5 ? 1 : 0.0001));
    }
    const shifted = (x: bigint): bigint => {
      if (x === NULL64 || x === INF64 || x === -INF64) return x;
      const y = x + EPOCH_NS;
      return y >= INF64 ? INF64 : y;
    };
    expect(rows(decodeColumn(vec(12, ts, (w, x) => w.i64(x))))).toEqual(ts.map(shifted));
    const span = (unit: bigint) => (x: number): bigint => (x === NULL32 ? NULL64 : x === INF32 ? INF64 : x === -INF32 ? -INF64 : BigInt(x) * unit);
    expect(rows(decodeColumn(vec(19, times, (w, x) => w.i32(x))))).toEqual(times.map(span(1_000_000n)));
    expect(rows(decodeColumn(vec(18, times, (w, x) => w.i32(x))))).toEqual(times.map(span(1_000_000_000n)));
    expect(rows(decodeColumn(vec(17, minutes, (w, x) => w.i32(x))))).toEqual(minutes.map(span(60_000_000_000n)));
    const dt = (x: number): bigint => {
      const ns = BigInt(Math.round(x * 86_400_000) + EPOCH_DAYS * 86_400_000) * 1_000_000n;
      return ns >= INF64 ? INF64 : ns <= -INF64 ? -INF64 : ns;
    };
    expect(rows(decodeColumn(vec(15, datetimes, (w, x) => w.f64(x))))).toEqual(datetimes.map(dt));
  });

  it('reads symbols into a dictionary of their distinct texts', () => {
    const r = rng(5);
    const texts = Array.from({ length: 3000 }, (_, k) => (k % 7 === 0 ? `Zürich ${k}` : `S${k}`));
    const syms = Array.from({ length: 50_000 }, () => texts[Math.floor(r() * r() * texts.length)]!);
    const c = decodeColumn(vec(11, syms, (w, x) => w.symText(x)));
    if (c.type !== 'symbol') throw new Error('not symbols');
    expect(rows(c)).toEqual(syms);
    const dict = Array.from({ length: c.dict.length }, (_, k) => c.dict.get(k));
    expect(new Set(dict).size).toBe(dict.length);
    expect(new Set(dict)).toEqual(new Set(syms));
  });

  it('reads general lists as strings or list columns, and refuses any other, naming the column and q type', () => {
    const strings = body((w) => {
      w.vector(0, 4);
      w.chars('Zürich');
      w.chars('');
      w.u8(-10 & 0xff);
      w.u8(0x61);
      w.vector(0, 0);
    });
    expect(rows(decodeColumn(strings))).toEqual(['Zürich', '', 'a', '']);
    // ints and longs of any width are long[]; reals and floats float[]; nulls NaN, infinities ±Infinity
    const longs = body((w) => {
      w.vector(0, 4);
      w.vector(7, 3);
      for (const x of [1n, NULL64, -INF64]) w.i64(x);
      w.vector(0, 0);
      w.vector(6, 2);
      w.i32(INF32);
      w.i32(-3);
      w.vector(5, 1);
      i16(w, -32768);
    });
    const lc = decodeColumn(longs);
    expect(lc.type).toBe('long[]');
    expect(rows(lc)).toEqual([[1, NaN, -Infinity], [], [Infinity, -3], [NaN]]);
    const floats = body((w) => {
      w.vector(0, 2);
      w.vector(9, 2);
      w.f64(1.5);
      w.f64(NaN);
      w.vector(8, 1);
      f32(w, 2.5);
    });
    expect(decodeColumn(floats).type).toBe('float[]');
    expect(rows(decodeColumn(floats))).toEqual([[1.5, NaN], [2.5]]);
    // no typed row: strings, as q's empty string columns come
    expect(decodeColumn(body((w) => w.vector(0, 0)))).toEqual({ type: 'string', values: [] });
    const table = (write: (w: QWriter) => void): Uint8Array =>
      body((w) => {
        w.u8(98);
        w.u8(0);
        w.u8(99);
        w.vector(11, 1);
        w.symText('misc');
        w.vector(0, 1);
        write(w);
      });
    const mixed = failure(() =>
      decodeColumns(
        table((w) => {
          w.vector(0, 2);
          w.vector(7, 1);
          w.i64(1n);
          w.vector(9, 1);
          w.f64(1);
        }),
      ),
    );
    expect(mixed.kind).toBe('notSupported');
    expect(mixed.message).toBe('q message column misc: a general list (q type 0) of mixed rows: row 0 reads as long[], row 1 (a float vector (q type 9)) as float[]');
    const syms = failure(() =>
      decodeColumns(
        table((w) => {
          w.vector(0, 1);
          w.vector(11, 1);
          w.symText('a');
        }),
      ),
    );
    expect(syms.message).toMatch(/^q message column misc: row 0 is a symbol vector \(q type 11\) in a general list \(q type 0\); a general list column reads as strings/);
    expect(failure(() => decodeColumns(table((w) => w.long(1)))).message).toMatch(/^q message column misc: a long atom \(q type -7\); a column is a simple vector/);
    expect(failure(() => decodeColumns(table((w) => w.vector(20, 0)))).message).toMatch(/^q message column misc: an enumerated symbol vector \(q type 20\)/);
    const nested = failure(() =>
      decodeColumns(
        table((w) => {
          w.vector(0, 1);
          w.u8(98);
          w.u8(0);
        }),
      ),
    );
    expect(nested.message).toMatch(/^q message column misc: row 0 is a table \(q type 98\) in a general list/);
  });
});

describe('q objects into columns', () => {
  const twoColumns = (w: QWriter): void => {
    w.vector(0, 2);
    w.vector(7, 2);
    w.i64(1n);
    w.i64(2n);
    w.vector(11, 2);
    w.symText('a');
    w.symText('b');
  };
  const plain = (q: QColumns): unknown => ({ ...q, columns: q.columns.map(rows) });

  it('reads a dictionary of vectors and a list of vectors (named x, x1, ... as q names them)', () => {
    const dict = body((w) => {
      w.u8(99);
      w.vector(11, 2);
      w.symText('n');
      w.symText('s');
      twoColumns(w);
    });
    expect(plain(decodeColumns(dict))).toEqual({ shape: 'dictionary', names: ['n', 's'], columns: [[1n, 2n], ['a', 'b']], qTypes: [7, 11], keyColumns: 0, rows: 2 });
    expect(plain(decodeColumns(body(twoColumns)))).toEqual({ shape: 'list', names: ['x', 'x1'], columns: [[1n, 2n], ['a', 'b']], qTypes: [7, 11], keyColumns: 0, rows: 2 });
  });

  it('finds an object inside a larger one (a tickerplant update) and says where it ends', () => {
    const upd = body((w) => {
      w.vector(0, 3);
      w.symbol('upd');
      w.symbol('trade');
      twoColumns(w);
    });
    const at = 6 + 5 + 7;
    const { columns, end } = decodeColumnsAt(upd, at);
    expect(end).toBe(upd.length);
    expect(columns.columns.map(rows)).toEqual([[1n, 2n], ['a', 'b']]);
  });

  it("reads the gateway's own tables back whole: every result column type", () => {
    const t = generated(500, 7);
    const result = { table: t, outputTZ: 'UTC', tableName: 'T', timeColumn: 'time', idColumn: 'sym' } satisfies QueryResult;
    const q = decodeColumns(body((w) => writeTable(w, result)));
    expect(q.shape).toBe('table');
    expect(q.names).toEqual(t.names);
    expect(q.rows).toBe(500);
    const utf8 = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');
    t.columns.forEach((c, k) => {
      const want = rows(c).map((x) => (typeof x === 'string' ? utf8(x) : x));
      expect(rows(q.columns[k]!), t.names[k]).toEqual(want);
      expect(q.columns[k]!.type, t.names[k]).toBe(c.type);
    });
  });

  it('reads a big-endian message as its little-endian twin, and a compressed one', () => {
    // one table of every fixed width, written in either byte order
    const message = (little: boolean): Uint8Array => {
      const out: number[] = [];
      const n = (x: number | bigint, bytes: number, float = false): void => {
        const b = Buffer.alloc(bytes);
        if (bytes === 2) b.writeInt16LE(Number(x));
        else if (bytes === 4 && float) b.writeFloatLE(Number(x));
        else if (bytes === 4) b.writeInt32LE(Number(x));
        else if (float) b.writeDoubleLE(Number(x));
        else b.writeBigInt64LE(BigInt(x));
        if (!little) b.reverse();
        out.push(...b);
      };
      const vector = (type: number, count: number): void => {
        out.push(type, 0);
        n(count, 4);
      };
      const cols: Array<[string, () => void]> = [
        ['h', () => (vector(5, 2), n(-32768, 2), n(300, 2))],
        ['i', () => (vector(6, 2), n(NULL32, 4), n(70000, 4))],
        ['j', () => (vector(7, 2), n(NULL64, 8), n(1n << 40n, 8))],
        ['e', () => (vector(8, 2), n(1.5, 4, true), n(NaN, 4, true))],
        ['f', () => (vector(9, 2), n(-2.25, 8, true), n(1e300, 8, true))],
        ['p', () => (vector(12, 2), n(-1n, 8), n(12345678901234n, 8))],
        ['d', () => (vector(14, 2), n(-1, 4), n(8000, 4))],
        ['m', () => (vector(13, 2), n(-13, 4), n(300, 4))],
        ['z', () => (vector(15, 2), n(-0.5, 8, true), n(9000.25, 8, true))],
        ['u', () => (vector(17, 2), n(721, 4), n(-5, 4))],
        ['g', () => (vector(2, 2), out.push(...Buffer.from('8c680a015a495aab5a65d4bfddb6a661', 'hex'), ...Buffer.alloc(16)))],
        ['s', () => (vector(11, 2), out.push(0x61, 0, 0))],
        ['l', () => (vector(0, 2), vector(7, 1), n(3n, 8), vector(6, 2), n(4, 4), n(5, 4))],
      ];
      out.push(98, 0, 99);
      vector(11, cols.length);
      for (const [name] of cols) out.push(...Buffer.from(`${name}\0`));
      vector(0, cols.length);
      for (const [, write] of cols) write();
      const header = Buffer.alloc(8);
      header[0] = little ? 1 : 0;
      header[1] = 1;
      if (little) header.writeUInt32LE(out.length + 8, 4);
      else header.writeUInt32BE(out.length + 8, 4);
      return new Uint8Array([...header, ...out]);
    };
    const le = decodeColumnsMessage(message(true), { maxBytes: 1 << 20 });
    const be = decodeColumnsMessage(message(false), { maxBytes: 1 << 20 });
    expect(be.columns.map(rows)).toEqual(le.columns.map(rows));
    expect(le.columns.map(rows)).toEqual([
      [NULL32, 300],
      [NULL32, 70000],
      [NULL64, 1n << 40n],
      [1.5, NaN],
      [-2.25, 1e300],
      [EPOCH_NS - 1n, EPOCH_NS + 12345678901234n],
      [EPOCH_DAYS - 1, EPOCH_DAYS + 8000],
      [Date.UTC(1998, 11, 1) / 86_400_000, Date.UTC(2025, 0, 1) / 86_400_000],
      [EPOCH_NS - 43_200_000_000_000n, EPOCH_NS + 9000n * 86_400_000_000_000n + 21_600_000_000_000n],
      [721n * 60_000_000_000n, -300_000_000_000n],
      ['8c680a01-5a49-5aab-5a65-d4bfddb6a661', ''],
      ['a', ''],
      [[3], [4, 5]],
    ]);
    const packed = compressMessage(message(true));
    expect(decodeColumnsMessage(packed, { maxBytes: 1 << 20 }).columns.map(rows)).toEqual(le.columns.map(rows));
    expect(failure(() => decodeColumnsMessage(packed, { maxBytes: 64 })).kind).toBe('tooLarge');
    expect(failure(() => decodeColumnsMessage(Uint8Array.from([2, 1, 0, 0, 9, 0, 0, 0, 0]), { maxBytes: 64 })).message).toBe('q message: byte 0 (the byte order) is 2; expected 1 (little-endian) or 0 (big-endian)');
    expect(failure(() => decodeColumnsMessage(message(true).subarray(0, 30), { maxBytes: 64 })).message).toMatch(/^q message: the header claims \d+ bytes; the message has 30$/);
  });

  it('refuses shapes that are not columns, naming their q types', () => {
    expect(failure(() => decodeColumns(body((w) => w.long(1)))).message).toBe('q message: a long atom (q type -7); expected a table, a keyed table, a dictionary of columns (symbols to vectors) or a list of columns');
    expect(failure(() => decodeColumns(body((w) => w.error('type')))).message).toBe('q message: an error (q type -128): "type"');
    const atoms = body((w) => {
      w.u8(99);
      w.vector(11, 1);
      w.symText('a');
      w.vector(7, 1);
      w.i64(1n);
    });
    expect(failure(() => decodeColumns(atoms)).message).toMatch(/^q message: a dictionary whose values are a long vector \(q type 7\), not a list of vectors/);
    const unequal = body((w) => {
      w.vector(0, 2);
      w.vector(7, 1);
      w.i64(1n);
      w.vector(7, 2);
      w.i64(1n);
      w.i64(2n);
    });
    expect(failure(() => decodeColumns(unequal)).message).toBe('q message column x1: 2 rows; column x has 1');
    const twice = body((w) => {
      w.u8(99);
      w.vector(11, 2);
      w.symText('a');
      w.symText('a');
      w.vector(0, 2);
    });
    expect(failure(() => decodeColumns(twice)).message).toBe('q message: the column name "a" twice');
  });
});

describe('malformed bytes', () => {
  const sample = (): Uint8Array => {
    const t = generated(40, 3);
    return body((w) => writeTable(w, { table: t, outputTZ: 'UTC', tableName: 'T', timeColumn: 'time', idColumn: 'sym' }));
  };

  it('refuses every truncation with an error naming what was expected', () => {
    const b = sample();
    for (let n = 0; n < b.length; n++) {
      const e = failure(() => decodeColumns(b.subarray(0, n)));
      expect(e.kind).toBe('badRequest');
      expect(e.message).toMatch(/^q message( column [^:]+)?: (ends early in|.* claims \d+ items|.* without its terminating 0|a symbol vector of \d+ items ends before)/);
    }
    // trailing bytes
    expect(failure(() => decodeColumns(new Uint8Array([...b, 0]))).message).toBe('q message: 1 bytes after the object');
  });

  it('refuses a huge or negative count before allocating anything for it', () => {
    const claim = (type: number, count: number, rest: number[] = []): Uint8Array => {
      const b = Buffer.alloc(6);
      b[0] = type;
      b.writeInt32LE(count, 2);
      return new Uint8Array([...b, ...rest]);
    };
    expect(failure(() => decodeColumn(claim(9, 200_000_000))).message).toBe('q message: a float vector claims 200000000 items (at least 1600000000 bytes) but 0 bytes remain');
    expect(failure(() => decodeColumn(claim(11, 2_000_000_000, [0x61, 0]))).message).toBe('q message: a symbol vector claims 2000000000 items (at least 2000000000 bytes) but 2 bytes remain');
    expect(failure(() => decodeColumn(claim(0, 2 ** 31 - 1))).message).toBe('q message: a general list claims 2147483647 items (at least 4294967294 bytes) but 0 bytes remain');
    expect(failure(() => decodeColumn(claim(7, -5))).message).toBe('q message: a long vector of -5 items');
    expect(failure(() => decodeColumn(claim(0, 1, [10, 0, 0xff, 0xff, 0xff, 0x7f]))).message).toBe('q message: row 0: a char vector claims 2147483647 items (at least 2147483647 bytes) but 0 bytes remain');
    expect(failure(() => decodeColumn(claim(11, 2, [0x61, 0, 0x62]))).message).toBe('q message: a symbol vector of 2 items ends before its last terminating 0');
    expect(failure(() => decodeColumns(claim(0, 1_000_000, [7, 0, 0, 0, 0, 0]))).message).toBe('q message: a list claims 1000000 items (at least 2000000 bytes) but 6 bytes remain');
  });

  it('names a file and its kind of error when the caller says so', () => {
    const e = failure(() => decodeColumn(new Uint8Array([9, 0, 10, 0, 0, 0]), { source: '/db/2024.01.02/trade/price', malformed: 'badDatabase', name: 'price' }));
    expect(e.kind).toBe('badDatabase');
    expect(e.message).toBe('/db/2024.01.02/trade/price column price: a float vector claims 10 items (at least 80 bytes) but 0 bytes remain');
  });

  it('answers random corruption with columns or a TickscopeError, nothing else', () => {
    const b = sample();
    const r = rng(11);
    for (let k = 0; k < 3000; k++) {
      const c = new Uint8Array(b);
      for (let j = 0; j < 1 + Math.floor(r() * 4); j++) c[Math.floor(r() * c.length)] = Math.floor(r() * 256);
      try {
        const q = decodeColumns(c);
        for (const col of q.columns) expect(columnLength(col)).toBe(q.rows);
      } catch (e) {
        expect(e, String(e)).toBeInstanceOf(TickscopeError);
      }
    }
  });
});
