/**
 * One conformance suite for every storage source (storage/source.ts): the same rows, loaded into
 * each, are held and answered the same. Run for Tickscope's database and the in-memory source; the
 * kdb+ database written here (kdb/kdb-writer.ts) from the same rows, in storage order and as they
 * arrived. Expectations come from the rows themselves (naive filtering and sorting), and the queries
 * beyond them from the database's answers.
 */
import { describe, expect, it } from 'vitest';
import { int32Pairs, symbolText, type Column } from '../../../engine/core/column.js';
import { Engine } from '../../../engine/engine.js';
import { payloadJson } from '../../../engine/output/envelope.js';
import type { Table } from '../../../engine/core/table.js';
import { parseCsv } from '../../../engine/storage/import.js';
import { defaultConfig } from '../../../engine/storage/config.js';
import { KdbSource } from '../../../engine/storage/kdb/source.js';
import { MemorySource } from '../../../engine/storage/memory-source.js';
import type { RowSource } from '../../../engine/storage/row-source.js';
import { standardSchema } from '../../../engine/storage/schema.js';
import type { Source } from '../../../engine/storage/source.js';
import { csv, makeDb, tempDir } from '../../helpers/db.js';
import { type KdbColumn, writeHdb } from './kdb/kdb-writer.js';

/** Trades of three instruments over two days, arriving out of time order, and one trade alone on a third day. */
const TRADE_ROWS: string[][] = [
  ['2024.03.06D14:30:05', 'MSFT', '410.5', '100'],
  ['2024.03.06D14:30:01', 'AAPL', '170.25', '300'],
  ['2024.03.06D14:30:01', 'VOD', '72.1', '50'],
  ['2024.03.06D14:30:03', 'AAPL', '170.5', '200'],
  ['2024.03.06D14:29:59', 'MSFT', '410', '10'],
  ['2024.03.06D16:00:00', 'AAPL', '171', '700'],
  ['2024.03.07D09:00:00', 'VOD', '72.4', '20'],
  ['2024.03.07D14:30:00', 'AAPL', '172', '100'],
  ['2024.03.07D14:30:00', 'AAPL', '172.5', '150'],
  ['2024.03.07D13:00:00', 'MSFT', '412', '40'],
  ['2024.03.11D10:00:00', 'AAPL', '175', '5'],
];
const TRADES = csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], TRADE_ROWS);
const QUOTES = csv(['eventTimestamp', 'instrumentID', 'bidPrice', 'askPrice'], [
  ['2024.03.06D14:30:00', 'AAPL', '170.2', '170.3'],
  ['2024.03.06D14:30:02', 'AAPL', '170.4', '170.6'],
  ['2024.03.06D14:30:00', 'MSFT', '410.1', '410.6'],
]);
const INSTRUMENTS = csv(['instrumentID', 'sector'], [['AAPL', 'Tech'], ['MSFT', 'Tech'], ['VOD', 'Telecom']]);

/** The rows of a day, as naive expectations see them: [time text, id, price, volume, arrival]. */
const ROWS = TRADE_ROWS.map((r, i) => ({ time: r[0]!, id: r[1]!, price: Number(r[2]), volume: Number(r[3]), arrival: i }));
const dayOf = (time: string): string => time.slice(0, 10).replace(/\./g, '-');

function database(): Source {
  return makeDb({ Trade: TRADES, Quote: QUOTES, Instrument: INSTRUMENTS }, 'db');
}

/** The same rows fed to an in-memory source in two batches (as a live feed delivers them). */
function memory(): MemorySource {
  const schema = standardSchema();
  const m = new MemorySource('db', schema);
  const trades = parseCsv(schema.tables.get('Trade')!, TRADES, 'trades.csv');
  m.append('Trade', trades.take(Int32Array.from({ length: 6 }, (_, i) => i)));
  m.append('Trade', trades.take(Int32Array.from({ length: trades.length - 6 }, (_, i) => i + 6)));
  m.append('Quote', parseCsv(schema.tables.get('Quote')!, QUOTES, 'quotes.csv'));
  m.append('Instrument', parseCsv(schema.tables.get('Instrument')!, INSTRUMENTS, 'instruments.csv'));
  return m;
}

/** A table's rows as kdb+ columns (string columns left out: the writer writes none). */
function kdbColumns(rows: Table, at: readonly number[]): Array<[string, KdbColumn]> {
  const out: Array<[string, KdbColumn]> = [];
  rows.names.forEach((name) => {
    const c = rows.col(name);
    const pick = <T,>(f: (i: number) => T): T[] => at.map(f);
    if (c.type === 'timestamp') out.push([name, { type: 'timestamp', values: pick((i) => (c.data[i] === -(2n ** 63n) ? null : c.data[i]!)) }]);
    else if (c.type === 'long') out.push([name, { type: 'long', values: pick((i) => (c.data[i] === -(2n ** 63n) ? null : c.data[i]!)) }]);
    else if (c.type === 'float') out.push([name, { type: 'float', values: pick((i) => (Number.isNaN(c.data[i]!) ? null : c.data[i]!)) }]);
    else if (c.type === 'symbol') out.push([name, { type: 'symbol', values: pick((i) => c.dict.get(c.codes[i]!) || null) }]);
  });
  return out;
}

/**
 * The same rows written as a date-partitioned kdb+ database (Trade and Quote by q date, Instrument a
 * splayed table at the root): in storage order (each identifier's rows together, in time order, as
 * q's end-of-day save leaves them), or as they arrived (read through a row index).
 */
function kdb(order: 'storage' | 'arrival'): () => Source {
  return () => {
    const schema = standardSchema();
    const root = tempDir('kdb-conformance-');
    const partitions: Record<string, Record<string, Array<[string, KdbColumn]>>> = {};
    for (const [table, given] of [['Trade', TRADES], ['Quote', QUOTES]] as const) {
      const rows = parseCsv(schema.tables.get(table)!, given, `${table}.csv`);
      const time = rows.col('eventTimestamp') as { data: BigInt64Array };
      const ids = rows.col('instrumentID');
      const byDay = new Map<string, number[]>();
      for (let i = 0; i < rows.length; i++) {
        const day = new Date(Number(time.data[i]! / 1_000_000n)).toISOString().slice(0, 10).replace(/-/g, '.');
        byDay.set(day, [...(byDay.get(day) ?? []), i]);
      }
      for (const [day, at] of byDay) {
        if (order === 'storage') at.sort((a, b) => text(ids, a).localeCompare(text(ids, b)) || (time.data[a]! < time.data[b]! ? -1 : time.data[a]! > time.data[b]! ? 1 : a - b));
        (partitions[day] ??= {})[table] = kdbColumns(rows, at);
      }
    }
    const instruments = parseCsv(schema.tables.get('Instrument')!, INSTRUMENTS, 'instruments.csv');
    writeHdb(root, partitions, { Instrument: kdbColumns(instruments, [0, 1, 2]) });
    // its settings name the roles (volume is not a name roles are guessed from): the trades table's
    // named analytics (vwap...) are then made from them, as the Tickscope database's config has them
    const roles = { trades: 'Trade', quotes: 'Quote', columns: { Trade: { price: 'price', size: 'volume' }, Quote: { bid: 'bidPrice', ask: 'askPrice' } } };
    return KdbSource.open(root, { name: 'db', config: { ...defaultConfig(), analytics: {}, roles } });
  };
}

const text = (c: Column, i: number): string => (c.type === 'symbol' ? symbolText(c, i) : String(c.type === 'float' ? c.data[i] : c.type === 'long' || c.type === 'timestamp' ? c.data[i] : ''));
const timeAt = (c: Column, i: number): bigint => {
  if (c.type !== 'timestamp') throw new Error('not a timestamp column');
  return c.data[i]!;
};

/** A payload of the engine's answer (what REST and the CLI return). */
const answer = (engine: Engine, op: string, args: Record<string, unknown>): unknown => JSON.parse(payloadJson(engine.call(op, args)));

/** Queries beyond the naive expectations: each source answers them as the database does. */
const QUERIES: Array<[string, Record<string, unknown>]> = [
  ['getTicks', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.12' }],
  ['getTicks', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.12', idList: ['AAPL', 'VOD'], columns: ['instrumentID', 'price'] }],
  ['getTicks', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.08', temporality: 'slice', slice: ['14:30', '15:00'], filter: [['>', 'volume', '60']] }],
  ['getTicks', { table: 'Trade', startTS: '2024.03.06D14:30:00', endTS: '2024.03.06D14:30:04', ref: ['Instrument'], sortCols: ['desc', 'price'] }],
  ['getTicks', { table: 'Quote', startTS: '2024.03.06', endTS: '2024.03.07', fill: 'forward' }],
  ['getStats', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.12', analytics: ['vwap', 'maxPrice'], agg: { n: ['count', 'i'] } }],
  ['getStats', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.08', granularity: 1, granularityUnit: 'day', agg: { v: ['sum', 'volume'], last: ['last', 'price'] }, fill: 'zero' }],
  ['getStats', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.12', groupBy: ['sector'], ref: ['Instrument'], agg: { v: ['sum', 'volume'] } }],
  ['getStats', { table: 'Trade', startTS: '2024.03.06D14:00', endTS: '2024.03.06D15:00', granularity: 15, granularityUnit: 'minute', movingWindowSize: 30, agg: { hi: ['max', 'price'] } }],
];

/**
 * How a source may differ from the database: a virtual partition column in its tables (kdb+'s
 * `date`, left out of the answers compared), and tables without the foreign keys `ref` needs.
 */
interface Differences {
  readonly virtualColumn?: string;
  readonly noForeignKeys?: boolean;
}

function conformance(name: string, make: () => Source, differs: Differences = {}): void {
  describe(`${name}: the storage interface`, () => {
    const source = make();
    const t = source.table('Trade');

    it('lists the days that hold rows, ascending, and refuses an unknown table by name', () => {
      expect(source.partitionKeys('Trade')).toEqual([...new Set(ROWS.map((r) => dayOf(r.time)))].sort());
      expect(source.partitionKeys('OrderAnalytics')).toEqual([]);
      expect(() => source.table('Trades')).toThrow(/table: "Trades" is not a table of db; expected one of (.*, )?Trade\b/);
    });

    it("holds each day's rows as identifier runs, each in time order, the day's rows and no others", () => {
      for (const key of source.partitionKeys('Trade')) {
        const p = source.partition('Trade', key)!;
        const want = ROWS.filter((r) => dayOf(r.time) === key);
        expect(p.rows).toBe(want.length);
        const runs = [...p.idRanges].sort((a, b) => a[1][0] - b[1][0]);
        let at = 0;
        const ids = p.column('instrumentID');
        const time = p.column('eventTimestamp');
        for (const [id, [a, b]] of runs) {
          expect(a).toBe(at); // contiguous, covering every row
          for (let i = a; i < b; i++) expect(text(ids, i)).toBe(id);
          for (let i = a + 1; i < b; i++) expect(timeAt(time, i) >= timeAt(time, i - 1)).toBe(true);
          at = b;
        }
        expect(at).toBe(p.rows);
        // the rows themselves: (id, price, volume) as a multiset
        const held = Array.from({ length: p.rows }, (_, i) => `${text(ids, i)} ${text(p.column('price'), i)} ${text(p.column('volume'), i)}`).sort();
        expect(held).toEqual(want.map((r) => `${r.id} ${r.price} ${r.volume}`).sort());
      }
      expect(source.partition('Trade', '2024-03-08')).toBeUndefined();
    });

    it('gives the rows in time order, ties by identifier, where it keeps them', () => {
      const p = source.partition('Trade', '2024-03-06')!;
      const order = p.timeOrder?.();
      if (!order) return; // a source may leave time order to the scan's merge
      expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: p.rows }, (_, i) => i));
      const time = p.column('eventTimestamp');
      const ids = p.column('instrumentID');
      for (let k = 1; k < order.length; k++) {
        const [a, b] = [order[k - 1]!, order[k]!];
        const before = timeAt(time, a) < timeAt(time, b) || (timeAt(time, a) === timeAt(time, b) && text(ids, a) <= text(ids, b));
        expect(before).toBe(true);
      }
    });

    it('reads a column narrowed to row ranges as the whole column there', () => {
      const p: RowSource = source.partition('Trade', '2024-03-06')!;
      const ranges: Array<[number, number]> = [[1, 3], [4, 5]];
      const narrow = p.narrow ? p.narrow(ranges) : p;
      const whole = int32Pairs((p.column('eventTimestamp') as { data: BigInt64Array }).data);
      const part = int32Pairs((narrow.column('eventTimestamp') as { data: BigInt64Array }).data);
      for (const [a, b] of ranges) for (let i = 2 * a; i < 2 * b; i++) expect(part[i]).toBe(whole[i]);
    });

    it('holds a reference table whole, and its schema as declared', () => {
      expect(source.reference('Instrument')?.rows).toBe(3);
      expect(source.partition('Instrument', 'ref')).toBeUndefined();
      expect(t.timeColumn).toBe('eventTimestamp');
      expect(t.idColumn).toBe('instrumentID');
    });

    it('answers getTicks and getStats as its rows say', () => {
      const engine = new Engine([source]);
      const ticks = answer(engine, 'getTicks', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.12', columns: ['instrumentID', 'price'] }) as Array<Record<string, unknown>>;
      const sorted = [...ROWS].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : a.arrival - b.arrival));
      expect(ticks.map((r) => `${r['instrumentID']} ${r['price']}`)).toEqual(sorted.map((r) => `${r.id} ${r.price}`));
      const narrow = answer(engine, 'getTicks', { table: 'Trade', startTS: '2024.03.06D14:30', endTS: '2024.03.06D14:31', idList: ['AAPL'] }) as unknown[];
      expect(narrow).toHaveLength(ROWS.filter((r) => r.id === 'AAPL' && r.time >= '2024.03.06D14:30' && r.time < '2024.03.06D14:31').length);
      const stats = answer(engine, 'getStats', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.12', agg: { v: ['sum', 'volume'], n: ['count', 'i'] } }) as Array<Record<string, unknown>>;
      const ids = [...new Set(ROWS.map((r) => r.id))].sort();
      expect(stats).toEqual(ids.map((id) => ({ instrumentID: id, v: ROWS.filter((r) => r.id === id).reduce((s, r) => s + r.volume, 0), n: ROWS.filter((r) => r.id === id).length })));
    });

    it("answers every query of the suite as Tickscope's database does", () => {
      const engine = new Engine([source]);
      const reference = new Engine([database()]);
      const own = (op: string, args: Record<string, unknown>): unknown => {
        const got = answer(engine, op, args);
        const v = differs.virtualColumn;
        return v && Array.isArray(got) ? got.map((r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => k !== v))) : got;
      };
      for (const [op, args] of QUERIES) {
        if (differs.noForeignKeys && args['ref']) continue;
        expect(own(op, args), `${op} ${JSON.stringify(args)}`).toEqual(answer(reference, op, args));
      }
    });
  });
}

conformance("Tickscope's database", database);
conformance('the in-memory source', memory);
conformance('a kdb+ database in storage order', kdb('storage'), { virtualColumn: 'date', noForeignKeys: true });
conformance('a kdb+ database in arrival order', kdb('arrival'), { virtualColumn: 'date', noForeignKeys: true });

describe('the in-memory source', () => {
  it('gives a query the rows appended before it started, and the next query those appended during it', () => {
    const m = memory();
    const engine = new Engine([m]);
    const count = (): number => (answer(engine, 'getTicks', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.12' }) as unknown[]).length;
    const more = parseCsv(m.table('Trade'), csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [['2024.03.06D15:00:00', 'VOD', '73', '10'], ['2024.03.08D10:00:00', 'VOD', '74', '10']]), 'more.csv');
    m.read(() => {
      const keys = m.partitionKeys('Trade');
      const rows = m.partition('Trade', '2024-03-06')!.rows;
      m.append('Trade', more); // a batch arriving while the query runs
      expect(m.partitionKeys('Trade')).toEqual(keys);
      expect(m.partition('Trade', '2024-03-06')!.rows).toBe(rows);
      expect(count()).toBe(ROWS.length); // a query within it sees the same snapshot
    });
    expect(count()).toBe(ROWS.length + 2);
    expect(m.partitionKeys('Trade')).toContain('2024-03-08');
  });

  it('refuses rows of other columns, and writes, saying what takes them', () => {
    const m = memory();
    const quotes = parseCsv(m.table('Quote'), QUOTES, 'quotes.csv');
    expect(() => m.append('Trade', quotes)).toThrow(/^db\.Trade: rows with columns eventTimestamp:timestamp, instrumentID:symbol, exchTime:timestamp, bidPrice:float/);
    const engine = new Engine([m]);
    expect(() => engine.call('generateOrderAnalytics', { table: 'Order', dt: '2024.03.06' })).toThrow(
      'generateOrderAnalytics: db is an in-memory source; it takes rows only from its feed; write to a Tickscope database mounted beside it (another --db, another assembly)',
    );
  });
});
