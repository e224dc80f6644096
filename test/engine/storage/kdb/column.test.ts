/**
 * Columns of the two databases q wrote, read by engine/storage/kdb/column.ts: the known values their
 * READMEs give (row counts, sums, time spans), every column of every table at its table's row count,
 * enumerated symbols resolved against their domain's one shared dictionary, p# runs, and row ranges
 * that decompress only the blocks holding them.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Column, columnLength, floats, symbolText } from '../../../../engine/core/column.js';
import { BlockCache } from '../../../../engine/storage/kdb/block-cache.js';
import { openColumn, readColumn, readRows } from '../../../../engine/storage/kdb/column.js';
import { Domains } from '../../../../engine/storage/kdb/domain.js';
import { readColumnNames } from '../../../../engine/storage/kdb/object.js';
import { ADV, scratch, TORQ, TORQ_DAY, vectorFile } from './kdb-helpers.js';

const torq = new Domains(TORQ);
const adv = new Domains(ADV);

/** A timestamp (ns since 1970) as ISO text with 9 fractional digits. */
function iso(ns: bigint): string {
  const ms = ns / 1_000_000n;
  return `${new Date(Number(ms)).toISOString().slice(0, 19)}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
}

/** A timespan (ns) as hh:mm:ss.nnnnnnnnn. */
function span(ns: bigint): string {
  const s = ns / 1_000_000_000n;
  const two = (x: bigint): string => x.toString().padStart(2, '0');
  return `${two(s / 3600n)}:${two((s / 60n) % 60n)}:${two(s % 60n)}.${(ns % 1_000_000_000n).toString().padStart(9, '0')}`;
}

function minMax(c: Column): [bigint, bigint] {
  if (c.type !== 'timestamp' && c.type !== 'timespan') throw new Error(`expected a time column, got ${c.type}`);
  let lo = c.data[0]!;
  let hi = lo;
  for (const x of c.data) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return [lo, hi];
}

const sum = (c: Column): number => floats(c).reduce((s, x) => s + x, 0);
const texts = (c: Column): string[] => (c.type === 'symbol' ? Array.from(c.codes, (_, i) => symbolText(c, i)) : []);

describe('TorQ (kdb+ before 3.6: 32-bit enumerations, algorithm 1)', () => {
  it('reads trade: 196,519 rows from 2015-01-07T00:00:00.638306000 to 10:55:20.438169000', () => {
    const time = readColumn(join(TORQ_DAY, 'trade/time'));
    expect(time.type).toBe('timestamp');
    expect(columnLength(time)).toBe(196_519);
    expect(minMax(time).map(iso)).toEqual(['2015-01-07T00:00:00.638306000', '2015-01-07T10:55:20.438169000']);
    expect(iso((time as { data: BigInt64Array }).data[0]!)).toBe('2015-01-07T00:00:03.838217000');
  });

  it("reads every column of trade and quote at the table's row count, with SPEC 11's types", () => {
    const types: Record<string, string> = {};
    for (const [table, rows] of [
      ['trade', 196_519],
      ['quote', 344_455],
    ] as const) {
      for (const name of readColumnNames(join(TORQ_DAY, table, '.d'))) {
        const path = join(TORQ_DAY, table, name);
        if (!existsSync(path)) continue; // quote/ask, bid, time: not copied (test/fixtures/kdb-torq-hdb/README.md)
        const c = readColumn(path, { domain: torq });
        expect(columnLength(c), `${table}.${name}`).toBe(rows);
        types[`${table}.${name}`] = c.type;
      }
    }
    expect(types).toEqual({
      'trade.time': 'timestamp',
      'trade.sym': 'symbol',
      'trade.price': 'float',
      'trade.size': 'int',
      'trade.stop': 'boolean',
      'trade.cond': 'symbol',
      'trade.ex': 'symbol',
      'quote.sym': 'symbol',
      'quote.bsize': 'long',
      'quote.asize': 'long',
      'quote.mode': 'symbol',
      'quote.ex': 'symbol',
    });
  });

  it('reads the empty tables (trade_iex, quote_iex): every column 0 rows', () => {
    for (const table of ['trade_iex', 'quote_iex']) {
      for (const name of readColumnNames(join(TORQ_DAY, table, '.d'))) expect(columnLength(readColumn(join(TORQ_DAY, table, name), { domain: torq }))).toBe(0);
    }
  });

  it("resolves trade/sym against the domain's names, run by run", () => {
    const sym = openColumn(join(TORQ_DAY, 'trade/sym'), { domain: torq });
    const runs = sym.runs()!;
    expect(texts(runs.values)).toEqual(['MSFT', 'DOW', 'AAPL', 'IBM', 'INTC', 'GOOG', 'AMD', 'AIG', 'HPQ', 'DELL']);
    const all = sym.read();
    for (let i = 0; i < runs.bounds.length - 1; i++) {
      const want = symbolText(runs.values as never, i);
      for (const r of [runs.bounds[i]!, runs.bounds[i + 1]! - 1]) expect(symbolText(all as never, r)).toBe(want);
    }
    expect(new Set(texts(all))).toEqual(new Set(texts(runs.values)));
  });

  it('reads a row range decompressing only the blocks holding it', () => {
    const blocks: number[] = [];
    const options = { cache: new BlockCache(), onDecompress: (_: string, b: number) => blocks.push(b) };
    const price = openColumn(join(TORQ_DAY, 'trade/price'), options);
    expect(blocks).toEqual([0]); // the header
    const rows = price.read(100_000, 100_010); // bytes 800016..800096: block 12
    expect(blocks).toEqual([0, 12]);
    expect(Array.from(floats(rows))).toEqual(Array.from(floats(readColumn(join(TORQ_DAY, 'trade/price'))).subarray(100_000, 100_010)));
    blocks.length = 0;
    // trade/sym: opening finds its p# index after the data (bytes 786100..786544: blocks 11 and 12);
    // rows 70000..70005 (bytes 280024..280044) lie in block 4
    const sym = openColumn(join(TORQ_DAY, 'trade/sym'), { ...options, domain: torq });
    expect(blocks).toEqual([0, 12, 11]);
    expect(texts(sym.read(70_000, 70_005))).toEqual(['IBM', 'IBM', 'IBM', 'IBM', 'IBM']);
    expect(blocks).toEqual([0, 12, 11, 4]);
  });
});

describe('advancedKdb (kdb+ 3.6+: 64-bit enumerations, algorithm 2)', () => {
  const day = (d: string, t: string, c: string): string => join(ADV, d, t, c);

  it('reads 2019.06.24 quote: 94 rows, sum(bidSize) 45842, sum(bid) 17159.788198, time 20:41:07.256366 .. 21:25:08.473157', () => {
    expect(columnLength(readColumn(day('2019.06.24', 'quote', 'sym'), { domain: adv }))).toBe(94);
    expect(sum(readColumn(day('2019.06.24', 'quote', 'bidSize')))).toBe(45842);
    expect(sum(readColumn(day('2019.06.24', 'quote', 'bid'))).toFixed(6)).toBe('17159.788198');
    expect(minMax(readColumn(day('2019.06.24', 'quote', 'time'))).map(span)).toEqual(['20:41:07.256366000', '21:25:08.473157000']);
  });

  it('reads 2019.06.25 quote: 4,832 rows, sum(bidSize) 2436853, sum(bid) 863109.247020, time 20:11:01.932870 .. 21:16:22.794100', () => {
    expect(columnLength(readColumn(day('2019.06.25', 'quote', 'exchange'), { domain: adv }))).toBe(4832);
    expect(sum(readColumn(day('2019.06.25', 'quote', 'bidSize')))).toBe(2436853);
    expect(sum(readColumn(day('2019.06.25', 'quote', 'bid'))).toFixed(6)).toBe('863109.247020');
    expect(minMax(readColumn(day('2019.06.25', 'quote', 'time'))).map(span)).toEqual(['20:11:01.932870000', '21:16:22.794100000']);
  });

  it("reads every column of every table of both days at its table's row count", () => {
    const rows: Record<string, number> = {};
    for (const d of ['2019.06.24', '2019.06.25']) {
      for (const t of ['quote', 'bid', 'statsTab']) {
        const names = readColumnNames(day(d, t, '.d'));
        const counts = names.map((n) => columnLength(readColumn(day(d, t, n), { domain: adv })));
        expect(new Set(counts).size, `${d}/${t}: ${counts.join(' ')}`).toBe(1);
        rows[`${d}/${t}`] = counts[0]!;
      }
    }
    expect(rows).toEqual({ '2019.06.24/quote': 94, '2019.06.24/bid': 8, '2019.06.24/statsTab': 297, '2019.06.25/quote': 4832, '2019.06.25/bid': 534, '2019.06.25/statsTab': 18320 });
  });

  it("resolves sym (p#) and exchange against one shared dictionary, the domain's 12 names (its header count is 0)", () => {
    const domain = adv.get('sym');
    expect(domain.names).toBe(12);
    expect(domain.headerCount).toBe(0);
    const sym = openColumn(day('2019.06.24', 'quote', 'sym'), { domain: adv });
    const runs = sym.runs()!;
    expect(texts(runs.values)).toEqual(['AAPL', 'ASX', 'CSA', 'FDL', 'GOOG', 'IBM', 'MSFT']);
    expect(Array.from(runs.bounds)).toEqual([0, 11, 27, 43, 54, 67, 80, 94]);
    const all = texts(sym.read());
    expect(all.slice(0, 11)).toEqual(Array(11).fill('AAPL'));
    expect(all.slice(80)).toEqual(Array(14).fill('MSFT'));
    const exchange = readColumn(day('2019.06.25', 'quote', 'exchange'), { domain: adv });
    const other = readColumn(day('2019.06.24', 'bid', 'sym'), { domain: adv });
    if (exchange.type !== 'symbol' || other.type !== 'symbol') throw new Error('expected symbols');
    expect(exchange.dict).toBe(other.dict);
    expect(new Set(texts(exchange)).size).toBeGreaterThan(0);
    for (const s of new Set(texts(exchange))) expect(['GOOG', 'MSFT', 'ASX', 'IBM', 'FDL', 'AAPL', 'CSA', 'SYD', 'NYC', 'CHI', 'LDN', 'HK']).toContain(s);
  });

  it('reads rows of the second block of a two-block zlib file alone, equal to the whole read', () => {
    const blocks: number[] = [];
    const path = day('2019.06.25', 'statsTab', 'volume');
    const col = openColumn(path, { cache: new BlockCache(), onDecompress: (_, b) => blocks.push(b) });
    const part = col.read(17_000, 17_100); // bytes 136016..136816: block 1
    expect(blocks).toEqual([0, 1]);
    expect(Array.from(floats(part))).toEqual(Array.from(floats(readColumn(path))).slice(17_000, 17_100));
    expect(Array.from(floats(readRows(path, 5, 8)))).toEqual(Array.from(floats(readColumn(path))).slice(5, 8));
  });
});

describe('every simple type (files built by the layout docs/kdb-format.md 2.1 gives; the fixtures have 1, 6, 7, 9, 10, 12, 16)', () => {
  /** A vector file of q type `t` holding `items` (little-endian bytes), read back. */
  function typed(t: number, n: number, items: number[] | Buffer): Column {
    const s = scratch();
    try {
      const path = join(s.dir, `t${t}`);
      writeFileSync(path, vectorFile(t, n, Buffer.isBuffer(items) ? items : Buffer.from(items)));
      return readColumn(path);
    } finally {
      s.done();
    }
  }
  const i32 = (...v: number[]): Buffer => Buffer.concat(v.map((x) => (b => (b.writeInt32LE(x), b))(Buffer.alloc(4))));
  const f64 = (...v: number[]): Buffer => Buffer.concat(v.map((x) => (b => (b.writeDoubleLE(x), b))(Buffer.alloc(8))));
  const NI = -2147483648;
  const data = (c: Column): unknown[] => ('data' in c ? Array.from(c.data as ArrayLike<unknown>) : 'values' in c ? [...c.values] : texts(c));

  it('maps each q type to SPEC 11\'s, nulls to Tickscope\'s', () => {
    const guid = Buffer.concat([Buffer.from(Array.from({ length: 16 }, (_, i) => i)), Buffer.alloc(16)]);
    const cases: Array<[number, number, number[] | Buffer, string, unknown[]]> = [
      [1, 2, [1, 0], 'boolean', [1, 0]],
      [2, 2, guid, 'string', ['00010203-0405-0607-0809-0a0b0c0d0e0f', '']],
      [4, 2, [0, 255], 'int', [0, 255]],
      [5, 2, [1, 0, 0, 0x80], 'int', [1, NI]],
      [6, 2, i32(-7, NI), 'int', [-7, NI]],
      [8, 2, Buffer.from(new Float32Array([0.5, NaN]).buffer), 'float', [0.5, NaN]],
      [10, 3, Buffer.from('A B'), 'symbol', ['A', '', 'B']],
      [13, 3, i32(0, 1, NI), 'date', [10957, 10988, NI]],
      [14, 2, i32(0, NI), 'date', [10957, NI]],
      [15, 2, f64(0.5, NaN), 'timestamp', [946_728_000_000_000_000n, -(2n ** 63n)]],
      [17, 1, i32(90), 'timespan', [5_400_000_000_000n]],
      [18, 1, i32(3661), 'timespan', [3_661_000_000_000n]],
      [19, 2, i32(1500, NI), 'timespan', [1_500_000_000n, -(2n ** 63n)]],
    ];
    for (const [t, n, items, type, values] of cases) {
      const c = typed(t, n, items);
      expect([t, c.type]).toEqual([t, type]);
      expect(data(c), `q type ${t}`).toEqual(values);
    }
  });
});
