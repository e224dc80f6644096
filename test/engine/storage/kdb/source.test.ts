/**
 * KdbSource (engine/storage/kdb/source.ts): kdb+ databases q wrote (test/fixtures/kdb-torq-hdb,
 * test/fixtures/kdb-advancedkdb, their READMEs giving the known values) read in place through the
 * engine, and small databases written here (kdb-writer.ts) for what the fixtures do not show.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../../engine/engine.js';
import { payloadJson } from '../../../../engine/output/envelope.js';
import { BlockCache } from '../../../../engine/storage/kdb/block-cache.js';
import { KdbSource } from '../../../../engine/storage/kdb/source.js';
import { rolesOf } from '../../../../engine/storage/source.js';
import { ADV, scratch, TORQ } from './kdb-helpers.js';
import { type KdbColumn, writeHdb } from './kdb-writer.js';

const answer = (engine: Engine, op: string, args: Record<string, unknown>): Array<Record<string, unknown>> => JSON.parse(payloadJson(engine.call(op, args))) as Array<Record<string, unknown>>;

describe('a kdb+ database written by q (TorQ)', () => {
  const source = KdbSource.open(TORQ);
  const engine = new Engine([source]);

  it('lists its tables under their own names, date first, then the .d order with Tickscope types', () => {
    expect(source.kind).toBe('kdb');
    expect(source.name).toBe('hdb');
    expect([...source.schema.tables.keys()].sort()).toEqual(['quote', 'quote_iex', 'trade', 'trade_iex']);
    const t = source.table('trade');
    expect(t.columns).toEqual([
      { name: 'date', type: 'date' },
      { name: 'time', type: 'timestamp' },
      { name: 'sym', type: 'symbol' },
      { name: 'price', type: 'float' },
      { name: 'size', type: 'int' },
      { name: 'stop', type: 'boolean' },
      { name: 'cond', type: 'symbol' },
      { name: 'ex', type: 'symbol' },
    ]);
    expect(t.kind).toBe('partitioned');
    expect(t.timeColumn).toBe('time');
    expect(t.idColumn).toBe('sym');
    expect(source.partitionKeys('trade')).toEqual(['2015-01-07']);
    expect(source.partition('trade', '2015-01-08')).toBeUndefined();
    // an empty table's folder: a partition of no rows (a listed key always has one)
    expect(source.partition('trade_iex', '2015-01-07')?.rows).toBe(0);
    expect(() => source.table('Trade')).toThrow(/table: "Trade" is not a table of hdb; expected one of /);
  });

  it("getTicks of a day gives the README's rows and time span, in time order", () => {
    const rows = answer(engine, 'getTicks', { table: 'trade', startTS: '2015.01.07', endTS: '2015.01.08' });
    expect(rows).toHaveLength(196_519);
    expect(rows[0]!['time']).toBe('2015-01-07T00:00:00.638306000');
    expect(rows[rows.length - 1]!['time']).toBe('2015-01-07T10:55:20.438169000');
    expect(Object.keys(rows[0]!)).toEqual(['date', 'time', 'sym', 'price', 'size', 'stop', 'cond', 'ex']);
    expect(rows[0]!['date']).toBe('2015-01-07');
    for (let i = 1; i < rows.length; i++) if ((rows[i]!['time'] as string) < (rows[i - 1]!['time'] as string)) throw new Error(`row ${i} out of time order`);
  });

  it("takes identifier runs from the p# index, each checked in time order, and getTicks with idList reads only those runs' blocks", () => {
    const p = source.partition('trade', '2015-01-07')!;
    expect(p.rows).toBe(196_519);
    expect([...p.idRanges.keys()]).toEqual(['MSFT', 'DOW', 'AAPL', 'IBM', 'INTC', 'GOOG', 'AMD', 'AIG', 'HPQ', 'DELL']);
    expect(p.idRanges.get('MSFT')).toEqual([0, 19_603]);
    expect(p.idRanges.get('DELL')![1]).toBe(196_519);
    const decompressed: string[] = [];
    const narrow = KdbSource.open(TORQ, { read: { cache: new BlockCache(), onDecompress: (path) => decompressed.push(path) } });
    const [a, b] = narrow.partition('trade', '2015-01-07')!.idRanges.get('AAPL')!;
    decompressed.length = 0;
    const rows = answer(new Engine([narrow]), 'getTicks', { table: 'trade', startTS: '2015.01.07', endTS: '2015.01.08', idList: ['AAPL'], columns: ['price'] });
    expect(rows).toHaveLength(b - a);
    expect(rows.every((r) => r['sym'] === undefined)).toBe(true);
    // the price column: only the blocks of AAPL's rows (8-byte floats, 2^16-byte blocks), not the file's 24
    const priceBlocks = decompressed.filter((f) => f.endsWith('/price')).length;
    expect(priceBlocks).toBeGreaterThan(0);
    expect(priceBlocks).toBeLessThanOrEqual(Math.ceil(((b - a) * 8) / 65_536) + 1);
    const two = answer(engine, 'getTicks', { table: 'trade', startTS: '2015.01.07D01:00', endTS: '2015.01.07D02:00', idList: ['IBM', 'HPQ'] });
    expect(two.length).toBeGreaterThan(0);
    expect(new Set(two.map((r) => r['sym']))).toEqual(new Set(['IBM', 'HPQ']));
    expect(two.every((r) => (r['time'] as string) >= '2015-01-07T01:00' && (r['time'] as string) < '2015-01-07T02:00')).toBe(true);
  });

  it('guesses roles from the column names: trade holds price and size', () => {
    const roles = rolesOf(source);
    expect(roles.trades?.table.name).toBe('trade');
    expect(roles.trades?.price).toBe('price');
    expect(roles.trades?.size).toBe('size');
    expect(roles.columns.get('trade')?.get('exchange')).toBe('ex');
    // this copy's quote lacks bid and ask (README): the quotes are quote_iex's, which has them
    expect(roles.quotes?.table.name).toBe('quote_iex');
    expect(roles.columns.get('quote')?.get('bidSize')).toBe('bsize');
  });
});

describe('a kdb+ 3.6 database written by q (advancedkdb)', () => {
  const source = KdbSource.open(ADV);
  const engine = new Engine([source]);

  it('reads the time-of-day column as a timestamp of the partition date, keeping its name', () => {
    const t = source.table('quote');
    expect(t.timeColumn).toBe('time');
    expect(t.columns.slice(0, 3)).toEqual([
      { name: 'date', type: 'date' },
      { name: 'sym', type: 'symbol' },
      { name: 'time', type: 'timestamp' },
    ]);
    expect(source.partitionKeys('quote')).toEqual(['2019-06-24', '2019-06-25']);
    const day = answer(engine, 'getTicks', { table: 'quote', startTS: '2019.06.24', endTS: '2019.06.25', columns: ['sym'] });
    expect(day).toHaveLength(94);
    expect(day[0]!['time']).toBe('2019-06-24T20:41:07.256366000');
    expect(day[93]!['time']).toBe('2019-06-24T21:25:08.473157000');
    const next = answer(engine, 'getTicks', { table: 'quote', startTS: '2019.06.25', endTS: '2019.06.26', columns: ['sym'] });
    expect(next).toHaveLength(4832);
    expect(next[0]!['time']).toBe('2019-06-25T20:11:01.932870000');
    expect(next[4831]!['time']).toBe('2019-06-25T21:16:22.794100000');
  });

  it("getStats per day gives the README's sums of bidSize and bid", () => {
    const stats = answer(engine, 'getStats', {
      table: 'quote',
      startTS: '2019.06.24',
      endTS: '2019.06.26',
      granularity: 1,
      granularityUnit: 'day',
      groupBy: [],
      agg: { bs: ['sum', 'bidSize'], b: ['sum', 'bid'], n: ['count', 'i'] },
    });
    expect(stats.map((r) => [r['time'], r['bs'], r['n']])).toEqual([
      ['2019-06-24T00:00:00.000000000', 45_842, 94],
      ['2019-06-25T00:00:00.000000000', 2_436_853, 4832],
    ]);
    expect(stats[0]!['b'] as number).toBeCloseTo(17_159.788198, 5);
    expect(stats[1]!['b'] as number).toBeCloseTo(863_109.24702, 4);
  });

  it('reads bid and statsTab, with the rows the README counts', () => {
    const rows = (table: string, key: string): number | undefined => source.partition(table, key)?.rows;
    expect([rows('bid', '2019-06-24'), rows('bid', '2019-06-25'), rows('statsTab', '2019-06-24'), rows('statsTab', '2019-06-25')]).toEqual([8, 534, 297, 18_320]);
    const stats = answer(engine, 'getStats', { table: 'statsTab', startTS: '2019.06.24', endTS: '2019.06.26', groupBy: [], agg: { n: ['count', 'i'], v: ['sum', 'volume'] } });
    expect(stats[0]!['n']).toBe(297 + 18_320);
  });

  it('guesses roles: trades the bid table (price and size), quotes the quote table', () => {
    const roles = rolesOf(source);
    expect(roles.trades?.table.name).toBe('bid');
    expect(roles.quotes).toMatchObject({ bid: 'bid', ask: 'ask' });
    expect(roles.quotes?.table.name).toBe('quote');
    expect(Object.fromEntries(roles.columns.get('quote')!)).toEqual({ bid: 'bid', ask: 'ask', bidSize: 'bidSize', askSize: 'askSize', exchange: 'exchange' });
  });
});

describe('folders that are not (yet) read', () => {
  const { dir, done } = scratch();
  afterAll(done);

  it('says what it looked for, and what is not yet read', () => {
    mkdirSync(join(dir, 'empty'));
    expect(() => KdbSource.open(join(dir, 'empty'))).toThrow(/is not a kdb\+ database: expected partition folders \(YYYY\.MM\.DD, YYYY\.MM, YYYY or ints, or segments listed in par\.txt\)/);
    expect(() => KdbSource.open(join(dir, 'missing'))).toThrow(/no such folder/);
    mkdirSync(join(dir, 'par'));
    writeFileSync(join(dir, 'par', 'par.txt'), '/nowhere/a\n');
    expect(() => KdbSource.open(join(dir, 'par'))).toThrow(/par\.txt line 1 names \/nowhere\/a, which is not a folder/);
    mkdirSync(join(dir, 'mixed', '2024.03'), { recursive: true });
    mkdirSync(join(dir, 'mixed', '2024.03.06'), { recursive: true });
    expect(() => KdbSource.open(join(dir, 'mixed'))).toThrow(/partition folders of several kinds \((date, month|month, date)\)/);
    mkdirSync(join(dir, 'baddate', '2024.02.30'), { recursive: true });
    expect(() => KdbSource.open(join(dir, 'baddate'))).toThrow(/partition folder 2024\.02\.30 is not a date, month, year or int/);
  });
});

describe('kdb+ databases written here (kdb-writer.ts)', () => {
  const { dir, done } = scratch();
  afterAll(done);
  const ns = (t: string): bigint => BigInt(Date.parse(`${t}Z`)) * 1_000_000n;
  const sym = (...v: string[]): KdbColumn => ({ type: 'symbol', values: v });
  const time = (day: string, ...t: string[]): KdbColumn => ({ type: 'timestamp', values: t.map((x) => ns(`${day}T${x}`)) });
  const float = (...v: number[]): KdbColumn => ({ type: 'float', values: v });
  const trade = (ids: string[], times: string[], day = '2024-03-06'): Array<[string, KdbColumn]> => [
    ['sym', sym(...ids)],
    ['time', time(day, ...times)],
    ['price', float(...ids.map((_, i) => i + 1))],
  ];
  const open = (name: string, partitions: Parameters<typeof writeHdb>[1], splayed?: Parameters<typeof writeHdb>[2]): KdbSource => {
    writeHdb(join(dir, name), partitions, splayed);
    return KdbSource.open(join(dir, name));
  };
  const ticks = (s: KdbSource, args: Record<string, unknown> = {}): string[] =>
    answer(new Engine([s]), 'getTicks', { table: 'trade', startTS: '2024.03.06', endTS: '2024.03.08', ...args }).map((r) => `${r['sym']} ${(r['time'] as string).slice(11, 19)} ${r['price']}`);

  it('derives identifier runs without p# where the rows are grouped by identifier, each run in time order', () => {
    const s = open('grouped', { '2024.03.06': { trade: trade(['A', 'A', 'B', 'B', 'B'], ['10:00:00', '11:00:00', '09:00:00', '10:30:00', '12:00:00']) } });
    const p = s.partition('trade', '2024-03-06')!;
    expect([...p.idRanges]).toEqual([['A', [0, 2]], ['B', [2, 5]]]);
    // kdb+ stores no time order: made once from the runs and kept (partition.ts), as the native store's
    expect(p.timeOrder?.()).toEqual(Int32Array.from([2, 0, 3, 1, 4]));
    expect(ticks(s)).toEqual(['B 09:00:00 3', 'A 10:00:00 1', 'B 10:30:00 4', 'A 11:00:00 2', 'B 12:00:00 5']);
    expect(ticks(s, { idList: ['A'] })).toEqual(['A 10:00:00 1', 'A 11:00:00 2']);
  });

  it('presents a partition with a run out of time order, or identifiers not grouped, in storage order through a row index', () => {
    for (const [name, ids, times] of [
      ['unsorted', ['A', 'A', 'B', 'B'], ['11:00:00', '10:00:00', '09:00:00', '12:00:00']],
      ['interleaved', ['A', 'B', 'A', 'B'], ['10:00:00', '09:00:00', '11:00:00', '12:00:00']],
    ] as const) {
      const s = open(name, { '2024.03.06': { trade: trade([...ids], [...times]) } });
      const p = s.partition('trade', '2024-03-06')!;
      const runs = [...p.idRanges];
      expect(runs.map(([id]) => id)).toEqual(['A', 'B']);
      const t = p.column('time');
      const symCol = p.column('sym');
      if (t.type !== 'timestamp' || symCol.type !== 'symbol') throw new Error('types');
      for (const [id, [a, b]] of runs) {
        for (let i = a; i < b; i++) expect(symCol.dict.get(symCol.codes[i]!)).toBe(id);
        for (let i = a + 1; i < b; i++) expect(t.data[i]! >= t.data[i - 1]!).toBe(true);
      }
      const all = ids.map((id, i) => `${id} ${times[i]} ${i + 1}`).sort((x, y) => (x.slice(2) < y.slice(2) ? -1 : 1));
      expect(ticks(s)).toEqual(all);
      expect(ticks(s, { idList: ['A'] })).toEqual(all.filter((r) => r.startsWith('A')));
    }
  });

  it('reads a column added later as nulls where older partitions lack it, widens a column whose type q widened, reads a timespan time column as a timestamp of its date, and a splayed root table whole', () => {
    const s = open(
      'mixed',
      {
        // the 6th: no size yet, n an int; the 7th (the newest, whose .d and types q's table has): size added, n a long
        '2024.03.06': { trade: [...trade(['A', 'B'], ['10:00:00', '11:00:00']), ['n', { type: 'int', values: [1, null] }]] },
        '2024.03.07': { trade: [...trade(['A'], ['09:00:00'], '2024-03-07'), ['n', { type: 'long', values: [2n ** 40n] }], ['size', { type: 'long', values: [5] }]] },
      },
      { instruments: [['sym', sym('A', 'B')], ['sector', sym('Tech', 'Telecom')]] },
    );
    expect(s.table('trade').columns.map((c) => `${c.name}:${c.type}`)).toEqual(['date:date', 'sym:symbol', 'time:timestamp', 'price:float', 'n:long', 'size:long']);
    const rows = answer(new Engine([s]), 'getTicks', { table: 'trade', startTS: '2024.03.06', endTS: '2024.03.08', columns: ['n', 'size'] });
    expect(rows.map((r) => [r['n'], r['size']])).toEqual([[1, null], [null, null], [2 ** 40, 5]]);
    // an older long where the newest is an int: no widening gives it, an error names the file
    const narrowed = open('narrowed', {
      '2024.03.06': { trade: [...trade(['A'], ['10:00:00']), ['n', { type: 'long', values: [2n ** 40n] }]] },
      '2024.03.07': { trade: [...trade(['A'], ['09:00:00'], '2024-03-07'), ['n', { type: 'int', values: [1] }]] },
    });
    expect(() => answer(new Engine([narrowed]), 'getTicks', { table: 'trade', startTS: '2024.03.06', endTS: '2024.03.07', columns: ['n'] })).toThrow(/2024\.03\.06\/trade\/n: a long column \(q type 7\); the table trade has n as int \(from its newest partition\)/);
    const ref = s.table('instruments');
    expect(ref.kind).toBe('reference');
    expect(s.reference('instruments')?.rows).toBe(2);
    expect(s.partitionKeys('instruments')).toEqual([]);
    const quotes = open('timespan', {
      '2024.03.06': { quote: [['sym', sym('A', 'A')], ['time', { type: 'timespan', values: [null, ns('1970-01-01T10:00:00')] }], ['bid', float(1, 2)], ['ask', float(2, 3)]] },
    });
    const q = quotes.partition('quote', '2024-03-06')!.column('time');
    expect(q.type).toBe('timestamp');
    expect((q as { data: BigInt64Array }).data[0]).toBe(-(2n ** 63n)); // a null stays null
    expect((q as { data: BigInt64Array }).data[1]).toBe(ns('2024-03-06T10:00:00'));
    expect(rolesOf(quotes).quotes?.table.name).toBe('quote');
  });

  it('finds partitions q adds (and the names it appends to sym) when refreshed', () => {
    const day1 = { trade: trade(['A'], ['10:00:00']) };
    const s = open('growing', { '2024.03.06': day1 });
    expect(s.partitionKeys('trade')).toEqual(['2024-03-06']);
    expect(ticks(s)).toEqual(['A 10:00:00 1']);
    writeHdb(join(dir, 'growing'), { '2024.03.06': day1, '2024.03.07': { trade: trade(['C', 'B'], ['09:00:00', '09:00:01'], '2024-03-07') } });
    expect(ticks(s)).toEqual(['A 10:00:00 1', 'C 09:00:00 1', 'B 09:00:01 2']); // a query refreshes its source first
    expect(s.partitionKeys('trade')).toEqual(['2024-03-06', '2024-03-07']);
  });
});
