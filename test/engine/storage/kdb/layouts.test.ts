/**
 * kdb+ databases partitioned otherwise than by date, and segmented ones (SPEC 11): month, year and int
 * partitions, and `par.txt` segments (a date in several segments is the rows of each, in segment
 * order), written by kdb-writer.ts (no q-written fixture has them). Each answers exactly as a Tickscope
 * database holding the same rows (the virtual partition column aside, which only the kdb+ side has).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../../engine/engine.js';
import { databaseInfo } from '../../../../engine/storage/info.js';
import { AppService } from '../../../../engine/service/app-service.js';
import { KdbSource } from '../../../../engine/storage/kdb/source.js';
import { csv, makeDb, payloadRows } from '../../../helpers/db.js';
import { expectError, scratch } from './kdb-helpers.js';
import { type KdbColumn, writeHdb } from './kdb-writer.js';

type Row = readonly [string, string, number, number]; // time (UTC), sym, price, size
/** ns since 1970 of `2024-03-06D10:00:00[.fraction]`, exact to the nanosecond. */
const ns = (t: string): bigint => {
  const [whole, fraction = ''] = t.replace('D', 'T').split('.');
  return BigInt(Date.parse(`${whole}Z`)) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
};

/** A kdb+ trade table's columns of these rows, in their order. */
function trade(rows: readonly Row[]): Array<[string, KdbColumn]> {
  return [
    ['time', { type: 'timestamp', values: rows.map((r) => ns(r[0])) }],
    ['sym', { type: 'symbol', values: rows.map((r) => r[1]) }],
    ['price', { type: 'float', values: rows.map((r) => r[2]) }],
    ['size', { type: 'long', values: rows.map((r) => r[3]) }],
  ];
}

/** The same rows in a Tickscope database (Trade: eventTimestamp, instrumentID, price, volume). */
function native(rows: readonly Row[]): Engine {
  return new Engine([makeDb({ Trade: csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], rows.map((r) => [r[0].replace(/-/g, '.'), r[1], String(r[2]), String(r[3])])) }, 'tick')]);
}

// March and April 2024, two instruments, days out of order inside a month (q saves in arrival order)
const MARCH: Row[] = [
  ['2024-03-07D10:00:00', 'A', 11, 100],
  ['2024-03-06D10:00:00', 'A', 10, 200],
  ['2024-03-06D23:59:59.999999999', 'A', 12, 5],
  ['2024-03-06D09:00:00', 'B', 50, 7],
  ['2024-03-31D12:00:00', 'B', 52, 9],
];
const APRIL: Row[] = [
  ['2024-04-01D00:00:00', 'A', 13, 1],
  ['2024-04-02D15:30:00', 'B', 53, 2],
];
const ALL = [...MARCH, ...APRIL];

/** The column names of each side: the kdb+ table's and the native Trade's. */
const KDB = { table: 'trade', sym: 'sym', size: 'size' };
const NATIVE = { table: 'Trade', sym: 'instrumentID', size: 'volume' };
const RENAME: Record<string, string> = { time: 'eventTimestamp', sym: 'instrumentID', size: 'volume' };

/** Each query, asked of both sides in their own names. */
const QUERIES: ReadonlyArray<readonly [string, (c: typeof KDB) => Record<string, unknown>]> = [
  ['getTicks', (c) => ({ table: c.table, startTS: '2024.03.01D00:00:00', endTS: '2024.05.01D00:00:00' })],
  ['getTicks', (c) => ({ table: c.table, startTS: '2024.03.06D00:00:00', endTS: '2024.03.07D00:00:00', idList: ['A'] })],
  ['getTicks', (c) => ({ table: c.table, startTS: '2024.03.06D09:30:00', endTS: '2024.04.01D00:00:01' })],
  ['getStats', (c) => ({ table: c.table, startTS: '2024.03.01D00:00:00', endTS: '2024.05.01D00:00:00', agg: { n: ['count', 'price'], v: ['sum', c.size], hi: ['max', 'price'] }, groupBy: [c.sym] })],
];

/** The same queries over the days around the 2024-03-10 DST change. */
const DST_QUERIES: typeof QUERIES = [
  ['getTicks', (c) => ({ table: c.table, startTS: '2024.03.09D00:00:00', endTS: '2024.03.12D00:00:00' })],
  ['getTicks', (c) => ({ table: c.table, startTS: '2024.03.10D00:00:00', endTS: '2024.03.11D00:00:00', idList: ['A'] })],
  ['getTicks', (c) => ({ table: c.table, startTS: '2024.03.10D07:00:00', endTS: '2024.03.11D02:00:00.000000001' })],
  ['getStats', (c) => ({ table: c.table, startTS: '2024.03.09D00:00:00', endTS: '2024.03.12D00:00:00', agg: { n: ['count', 'price'], v: ['sum', c.size], hi: ['max', 'price'] }, groupBy: [c.sym] })],
];

function expectSameAs(kdb: KdbSource, rows: readonly Row[], part: string, queries = QUERIES): void {
  const k = new Engine([kdb]);
  const n = native(rows);
  // the standard Trade's other columns (all null here) left out
  const kept = new Set(['eventTimestamp', 'instrumentID', 'price', 'volume', 'n', 'v', 'hi']);
  for (const [op, args] of queries) {
    const want = payloadRows(n, op, args(NATIVE)).map((r) => Object.fromEntries(Object.entries(r).filter(([c]) => kept.has(c))));
    expect(want.length, `${op} ${JSON.stringify(args(KDB))} has rows`).toBeGreaterThan(0);
    // the kdb+ answer in the native names, its partition column left out
    const got = payloadRows(k, op, args(KDB)).map((r) => Object.fromEntries(Object.entries(r).filter(([c]) => c !== part).map(([c, v]) => [RENAME[c] ?? c, v])));
    expect(got, `${op} ${JSON.stringify(args(KDB))}`).toEqual(want);
  }
}

describe('kdb+ databases partitioned by month, year or int, and segmented (par.txt)', () => {
  const { dir, done } = scratch();
  afterAll(done);

  it('a month-partitioned table: its rows by their UTC days, the month column first (the first of its month)', () => {
    const root = join(dir, 'month');
    writeHdb(root, { '2024.03': { trade: trade(MARCH) }, '2024.04': { trade: trade(APRIL) } });
    const s = KdbSource.open(root);
    expect(s.table('trade').columns[0]).toEqual({ name: 'month', type: 'date' });
    expect(s.table('trade').timeColumn).toBe('time');
    expect(s.partitionKeys('trade')).toEqual(['2024-03-06', '2024-03-07', '2024-03-31', '2024-04-01', '2024-04-02']);
    expectSameAs(s, ALL, 'month');
    const first = payloadRows(new Engine([s]), 'getTicks', { table: 'trade', startTS: '2024.04.01D00:00:00', endTS: '2024.04.02D00:00:00' });
    expect(first).toEqual([{ month: '2024-04-01', time: '2024-04-01T00:00:00.000000000', sym: 'A', price: 13, size: 1 }]);
    // info: rows per folder as on disk
    expect(databaseInfo(s).tables[0]!.partitions).toEqual([{ key: '2024.03', rows: 5 }, { key: '2024.04', rows: 2 }]);
  });

  it('a year-partitioned table (the year column an int), and the same folders read as ints when the settings say so', () => {
    const root = join(dir, 'year');
    writeHdb(root, { '2024': { trade: trade(ALL) } });
    const s = KdbSource.open(root);
    expect(s.table('trade').columns[0]).toEqual({ name: 'year', type: 'int' });
    expectSameAs(s, ALL, 'year');
    expect(payloadRows(new Engine([s]), 'getTicks', { table: 'trade', startTS: '2024.04.02D00:00:00', endTS: '2024.04.03D00:00:00' })[0]).toMatchObject({ year: 2024, sym: 'B' });
    const ints = KdbSource.open(root, { intPartitions: true });
    expect(ints.table('trade').columns[0]).toEqual({ name: 'int', type: 'int' });
    expectSameAs(ints, ALL, 'int');
  });

  it('an int-partitioned table with a timestamp column by its days; one without any time is read whole', () => {
    const root = join(dir, 'int');
    writeHdb(root, {
      '0': { trade: trade(MARCH), ref: [['sym', { type: 'symbol', values: ['A', 'B'] }], ['lot', { type: 'long', values: [100, 10] }]] },
      '1': { trade: trade(APRIL), ref: [['sym', { type: 'symbol', values: ['C'] }], ['lot', { type: 'long', values: [1] }]] },
    });
    const s = KdbSource.open(root);
    expectSameAs(s, ALL, 'int');
    expect(s.table('ref').timeColumn).toBeUndefined();
    expect(payloadRows(new Engine([s]), 'getTicks', { table: 'ref' })).toEqual([
      { int: 0, sym: 'A', lot: 100 },
      { int: 0, sym: 'B', lot: 10 },
      { int: 1, sym: 'C', lot: 1 },
    ]);
  });

  it("a database in another zone: its times read as instants (DST gaps by the compatible rule), its dates straddling UTC days", () => {
    // New York wall-clock times around the 2024-03-10 spring-forward (02:00 EST -> 03:00 EDT), saved by local date
    const local: Row[] = [
      ['2024-03-09D20:00:00', 'A', 1, 1],
      ['2024-03-10D01:30:00', 'A', 2, 2],
      ['2024-03-10D02:30:00', 'B', 3, 3], // in the gap: as 02:30 EST, the instant of 03:30 EDT
      ['2024-03-10D03:30:00', 'A', 4, 4],
      ['2024-03-10D22:00:00', 'B', 5, 5], // 02:00 UTC on the 11th
    ];
    const utc: Row[] = [
      ['2024-03-10D01:00:00', 'A', 1, 1],
      ['2024-03-10D06:30:00', 'A', 2, 2],
      ['2024-03-10D07:30:00', 'B', 3, 3],
      ['2024-03-10D07:30:00', 'A', 4, 4],
      ['2024-03-11D02:00:00', 'B', 5, 5],
    ];
    const root = join(dir, 'newyork');
    writeHdb(root, { '2024.03.09': { trade: trade(local.slice(0, 1)) }, '2024.03.10': { trade: trade(local.slice(1)) } });
    const s = KdbSource.open(root, { zone: 'America/New_York' });
    expect(s.partitionKeys('trade')).toEqual(['2024-03-10', '2024-03-11']);
    expectSameAs(s, utc, 'date', DST_QUERIES);
    // the date column is q's: the local date each row was saved under
    expect(payloadRows(new Engine([s]), 'getTicks', { table: 'trade', startTS: '2024.03.10D00:00:00', endTS: '2024.03.10D02:00:00' })).toEqual([
      { date: '2024-03-09', time: '2024-03-10T01:00:00.000000000', sym: 'A', price: 1, size: 1 },
    ]);
    // a fixed-offset zone, and a time-of-day column joined to the local date before it is placed
    const sh = join(dir, 'shanghai');
    writeHdb(sh, { '2024.03.07': { trade: [['sym', { type: 'symbol', values: ['A'] }], ['time', { type: 'timespan', values: [3_600_000_000_000n] }], ['price', { type: 'float', values: [9] }]] } });
    const t = payloadRows(new Engine([KdbSource.open(sh, { zone: 'Asia/Shanghai' })]), 'getTicks', { table: 'trade', startTS: '2024.03.06D00:00:00', endTS: '2024.03.08D00:00:00' });
    expect(t).toEqual([{ date: '2024-03-07', sym: 'A', time: '2024-03-06T17:00:00.000000000', price: 9 }]);
    expectError(() => KdbSource.open(sh, { zone: 'Mars/Olympus' }), 'badConfig', 'zone "Mars/Olympus" is not a known time zone');
  });

  it('keeps partitions open within a count and a byte bound, the most recent one whatever its size', () => {
    const root = join(dir, 'kept');
    const days = ['2024.03.04', '2024.03.05', '2024.03.06', '2024.03.07', '2024.03.08'];
    writeHdb(root, Object.fromEntries(days.map((d, i) => [d, { trade: trade([[`${d.replace(/\./g, '-')}D10:00:00`, 'A', i, i], [`${d.replace(/\./g, '-')}D11:00:00`, 'B', i, i]]) }])));
    const kept = (s: KdbSource): number => (s as unknown as { parts: Map<string, unknown> }).parts.size;
    const all = { table: 'trade', startTS: '2024.03.04D00:00:00', endTS: '2024.03.09D00:00:00' };
    const roomy = KdbSource.open(root);
    expect(payloadRows(new Engine([roomy]), 'getTicks', all)).toHaveLength(10);
    expect(kept(roomy)).toBe(5);
    const tight = KdbSource.open(root, { cacheBytes: 1 });
    expect(payloadRows(new Engine([tight]), 'getTicks', all)).toEqual(payloadRows(new Engine([roomy]), 'getTicks', all));
    expect(kept(tight)).toBe(1);
  });

  it("the table list counts a table's rows from a few partitions' headers, never from many (those are counted when read)", () => {
    const root = join(dir, 'many');
    const days = Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10));
    writeHdb(root, Object.fromEntries(days.map((d) => [d.replace(/-/g, '.'), { trade: trade([[`${d}D10:00:00`, 'A', 1, 1]]) }])));
    const s = KdbSource.open(root);
    const many = new AppService(new Engine([s]), 'browser').info().assemblies[0]!.tables.find((t) => t.name === 'trade')!;
    expect([many.rows, many.firstDate, many.lastDate]).toEqual([null, '2024-01-01', '2024-02-09']);
    expect(s.knownRows('trade')).toBeUndefined();
    // every partition read (a query over them all): counted
    expect(payloadRows(new Engine([s]), 'getTicks', { table: 'trade', startTS: '2024.01.01D00:00:00', endTS: '2024.03.01D00:00:00' })).toHaveLength(40);
    expect(s.knownRows('trade')).toBe(40);
    const few = join(dir, 'few');
    writeHdb(few, Object.fromEntries(days.slice(0, 3).map((d) => [d.replace(/-/g, '.'), { trade: trade([[`${d}D10:00:00`, 'A', 1, 1], [`${d}D11:00:00`, 'B', 1, 1]]) }])));
    expect(new AppService(new Engine([KdbSource.open(few)]), 'browser').info().assemblies[0]!.tables[0]!.rows).toBe(6);
  });

  it('par.txt: date partitions in segments, a date in two segments the rows of each in segment order', () => {
    const root = join(dir, 'par');
    // the 6th in both segments (A's rows in one, B's in the other: how a sym-sharded set-up saves), the 7th in one
    const sixthA = MARCH.filter((r) => r[0].startsWith('2024-03-06') && r[1] === 'A');
    const sixthB = MARCH.filter((r) => r[0].startsWith('2024-03-06') && r[1] === 'B');
    const seventh = MARCH.filter((r) => r[0].startsWith('2024-03-07'));
    writeHdb(root, { 'segA/2024.03.06': { trade: trade(sixthA) }, 'segB/2024.03.06': { trade: trade(sixthB) }, 'segB/2024.03.07': { trade: trade(seventh) } });
    writeFileSync(join(root, 'par.txt'), `segA\n${join(root, 'segB')}\n\n`);
    const s = KdbSource.open(root);
    expect(s.partitionKeys('trade')).toEqual(['2024-03-06', '2024-03-07']);
    expectSameAs(s, [...sixthA, ...sixthB, ...seventh], 'date');
    // an identifier in both segments on one date: still one run per identifier, in time order
    const both = join(dir, 'par2');
    writeHdb(both, { 's1/2024.03.06': { trade: trade(sixthA.slice(0, 1)) }, 's2/2024.03.06': { trade: trade([...sixthA.slice(1), ...sixthB]) } });
    writeFileSync(join(both, 'par.txt'), 's1\ns2\n');
    expectSameAs(KdbSource.open(both), [...sixthA, ...sixthB], 'date');
    // a segment that went away is said, naming its line
    renameSync(join(both, 's2'), join(both, 'gone'));
    expectError(() => KdbSource.open(both), 'badDatabase', 'par.txt line 2 names', 'which is not a folder');
  });
});
