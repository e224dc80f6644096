/**
 * A kdb+ folder mounted as Tickscope mounts a database (storage/mount.ts): told apart by its
 * contents, with a settings file (kdb/settings.ts: name, aliases, time columns, roles, config items),
 * and described by `info` (storage/info.ts) from headers alone. Expected numbers are the fixtures'
 * READMEs' (decoded outside this project).
 */
import { cpSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../../engine/engine.js';
import { databaseInfo, formatDatabaseInfo } from '../../../../engine/storage/info.js';
import { KdbSource } from '../../../../engine/storage/kdb/source.js';
import { databaseKindAt, openMount, specOf } from '../../../../engine/storage/mount.js';
import { csv, makeDb, payloadRows } from '../../../helpers/db.js';
import { ADV, expectError, qBytes, scratch, setFile, TORQ } from './kdb-helpers.js';

function settingsFile(dir: string, doc: unknown): string {
  const path = join(dir, `settings-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}

const rows = payloadRows;

describe('mounting a folder of either kind', () => {
  it('tells a kdb+ database from a Tickscope one by its contents, never its name', () => {
    const { dir, done } = scratch();
    try {
      const db = makeDb({ Trade: csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [['2024.03.06D14:30:00', 'AAPL', '1', '2']]) }, 'tick');
      expect(databaseKindAt(db.dir)).toBe('tickscope');
      expect(databaseKindAt(ADV)).toBe('kdb');
      expect(databaseKindAt(TORQ)).toBe('kdb');
      mkdirSync(join(dir, 'plain'));
      writeFileSync(join(dir, 'plain', 'notes.txt'), 'x');
      expect(databaseKindAt(join(dir, 'plain'))).toBeUndefined();
      expect(openMount({ dir: ADV })).toBeInstanceOf(KdbSource);
      expect(openMount({ dir: db.dir }).kind).toBe('tickscope');
      expectError(() => openMount({ dir: join(dir, 'plain') }), 'badDatabase', 'is neither a Tickscope database (no schema.json', 'nor a kdb+ database');
      expectError(() => openMount({ dir: db.dir, kdbSettings: settingsFile(dir, {}) }), 'badRequest', 'is not a kdb+ database', "a Tickscope database's settings are its config.json");
    } finally {
      done();
    }
  });

  it('mounts a kdb+ database beside a Tickscope one: each answers as its own assembly', () => {
    const db = makeDb({ Trade: csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [['2024.03.06D14:30:00', 'AAPL', '189.5', '100']]) }, 'tick');
    const engine = Engine.open([db.dir, { dir: ADV }]);
    expect(engine.databases.map((d) => d.kind)).toEqual(['tickscope', 'kdb']);
    expect(rows(engine, 'getTicks', { table: 'Trade', startTS: '2024.03.06D00:00:00', endTS: '2024.03.07D00:00:00' })).toHaveLength(1);
    // README: 2019.06.24 quote 94 rows, sum(bidSize) 45842
    const stats = rows(engine, 'getStats', { scope: { assembly: 'hdb' }, table: 'quote', startTS: '2019.06.24D00:00:00', endTS: '2019.06.25D00:00:00', agg: { n: ['count', 'bid'], s: ['sum', 'bidSize'] }, groupBy: [] });
    expect(stats).toEqual([{ n: 94, s: 45842 }]);
    expect(specOf(engine.databases[1]!)).toEqual({ dir: ADV });
  });

  it('answers on an empty table (its folder a partition of no rows): no rows, not an error', () => {
    const engine = Engine.open([TORQ]);
    const day = { startTS: '2015.01.07D00:00:00', endTS: '2015.01.08D00:00:00' };
    expect(rows(engine, 'getTicks', { table: 'trade_iex', ...day })).toEqual([]);
    expect(rows(engine, 'getStats', { table: 'quote_iex', ...day, agg: { n: ['count', 'bid'] }, groupBy: ['sym'] })).toEqual([]);
  });
});

describe('tables written whole at the root (set of a table or a keyed table)', () => {
  it('reads them as reference tables, keyed by their key column, and again when q rewrites one', () => {
    const { dir, done } = scratch();
    try {
      const root = join(dir, 'hdb');
      cpSync(ADV, root, { recursive: true });
      // bytes q serialized (test/fixtures/q-ipc-vectors), written as `set` writes a file
      writeFileSync(join(root, 'places'), setFile(qBytes('([] pos:`d1`d2`d3;dates:(2001.01.01;2000.05.01;0Nd))')));
      writeFileSync(join(root, 'staff'), setFile(qBytes('([eid:1001 1002 1003] pos:`d1`d2`d3;dates:(2001.01.01;2000.05.01;0Nd))')));
      const src = openMount({ dir: root }) as KdbSource;
      expect(src.table('places')).toMatchObject({ kind: 'reference', idColumn: 'pos', columns: [{ name: 'pos', type: 'symbol' }, { name: 'dates', type: 'date' }] });
      expect(src.table('staff')).toMatchObject({ kind: 'reference', key: 'eid', idColumn: 'eid' });
      const engine = new Engine([src]);
      expect(rows(engine, 'getTicks', { table: 'staff' })).toEqual([
        { eid: 1001, pos: 'd1', dates: '2001-01-01' },
        { eid: 1002, pos: 'd2', dates: '2000-05-01' },
        { eid: 1003, pos: 'd3', dates: null },
      ]);
      expect(rows(engine, 'getTicks', { table: 'places', filter: [['=', 'pos', 'd2']] })).toEqual([{ pos: 'd2', dates: '2000-05-01' }]);
      // the partitioned tables are as before
      expect(rows(engine, 'getStats', { table: 'quote', startTS: '2019.06.24D00:00:00', endTS: '2019.06.25D00:00:00', agg: { n: ['count', 'bid'] }, groupBy: [] })).toEqual([{ n: 94 }]);
      const info = databaseInfo(src);
      expect(info.tables.find((t) => t.name === 'staff')).toMatchObject({ kind: 'reference', rows: 3, columns: [{ name: 'eid', kdb: { qTypes: ['long'] } }, { name: 'pos', kdb: { qTypes: ['symbol'] } }, { name: 'dates', kdb: { qTypes: ['date'] } }] });
      // q writes it again (set), other rows: a refresh (each query's) reads the new ones
      writeFileSync(join(root, 'staff'), setFile(qBytes('([k: 1 2 3] v: `a`b`c)')));
      utimesSync(join(root, 'staff'), new Date(), new Date(Date.now() + 5000));
      src.refresh();
      expect(rows(engine, 'getTicks', { table: 'staff' })).toEqual([{ k: 1, v: 'a' }, { k: 2, v: 'b' }, { k: 3, v: 'c' }]);
      expect(src.table('staff').key).toBe('k');
      // a table cut short is damage, named
      const bytes = readFileSync(join(root, 'places'));
      writeFileSync(join(root, 'places'), bytes.subarray(0, bytes.length - 2));
      expectError(() => openMount({ dir: root }), 'badDatabase', join(root, 'places'));
    } finally {
      done();
    }
  });
});

describe('a kdb+ database settings file', () => {
  it('names the assembly, aliases tables, picks time columns and gives roles, from which the named analytics come', () => {
    const { dir, done } = scratch();
    try {
      const file = settingsFile(dir, {
        name: 'torq',
        tables: { trade: 'Trade', quote_iex: 'QuoteIEX' },
        timeColumns: { trade_iex: 'srctime' },
        roles: { trades: 'Trade', columns: { Trade: { price: 'price', size: 'size', exchange: 'ex' } } },
      });
      const src = openMount({ dir: TORQ, kdbSettings: file }) as KdbSource;
      expect(src.name).toBe('torq');
      expect(specOf(src)).toEqual({ dir: TORQ, kdbSettings: file });
      expect([...src.schema.tables.keys()].sort()).toEqual(['QuoteIEX', 'Trade', 'quote', 'trade_iex']);
      expect(src.table('trade_iex').timeColumn).toBe('srctime');
      expect(src.table('Trade').timeColumn).toBe('time');
      expect(src.config.analytics['Trade']?.['vwap']).toEqual(['wavg', 'size', 'price']);
      const engine = new Engine([src]);
      // README: trade 196,519 rows, time 2015-01-07T00:00:00.638306000 .. 10:55:20.438169000
      const r = rows(engine, 'getStats', { table: 'Trade', startTS: '2015.01.07D00:00:00', endTS: '2015.01.08D00:00:00', agg: { n: ['count', 'price'], lo: ['min', 'time'], hi: ['max', 'time'] }, groupBy: [] });
      expect(r).toEqual([{ n: 196519, lo: '2015-01-07T00:00:00.638306000', hi: '2015-01-07T10:55:20.438169000' }]);
      // the named analytics made from the roles agree with the same tree written out
      const named = rows(engine, 'getStats', { table: 'Trade', startTS: '2015.01.07D00:00:00', endTS: '2015.01.08D00:00:00', analytics: ['vwap', 'tradeCount'], groupBy: [] });
      const tree = rows(engine, 'getStats', { table: 'Trade', startTS: '2015.01.07D00:00:00', endTS: '2015.01.08D00:00:00', agg: { vwap: ['wavg', 'size', 'price'], tradeCount: ['count', 'price'] }, groupBy: [] });
      expect(named).toEqual(tree);
      expect(named[0]!['tradeCount']).toBe(196519);
    } finally {
      done();
    }
  });

  it('refuses a settings file that is not what it should be, naming the file and the item', () => {
    const { dir, done } = scratch();
    try {
      // mounted on an engine, as --db mounts it: roles are checked against the tables there
      const open = (doc: unknown): unknown => new Engine([openMount({ dir: TORQ, kdbSettings: settingsFile(dir, doc) })]);
      expectError(() => open('{"zone": '), 'badConfig', 'kdb+ settings', 'not JSON');
      expectError(() => open([]), 'badConfig', 'must be a JSON object');
      expectError(() => open({ zones: 'UTC' }), 'badConfig', 'zones is not a setting; expected one of name, zone, tables, timeColumns, intPartitions, filterRules');
      expectError(() => open({ zone: 'New_York' }), 'badConfig', 'zone "New_York" is not a known time zone');
      expectError(() => open({ name: 'a b' }), 'badConfig', 'name must be an assembly name');
      expectError(() => open({ tables: { trades: 'Trade' } }), 'badConfig', 'tables.trades: no table trades', 'its tables are');
      expectError(() => open({ tables: { trade: 'quote' } }), 'badConfig', 'tables.trade: quote is already the name of a table on disk');
      expectError(() => open({ tables: { trade: 7 } }), 'badConfig', 'tables must be an object of table name -> name');
      expectError(() => open({ intPartitions: 'yes' }), 'badConfig', 'intPartitions must be true or false');
      expectError(() => open({ timeColumns: { trade: 'price' } }), 'badConfig', 'timeColumns.trade "price" is a float column; expected a timestamp or time-of-day column (date, time)');
      expectError(() => open({ timeColumns: { nosuch: 'time' } }), 'badConfig', 'timeColumns.nosuch: no table nosuch');
      expectError(() => open({ roles: { trades: 'trade', columns: { trade: { price: 'nosuch', size: 'size' } } } }), 'badConfig', 'roles.');
      expectError(() => openMount({ dir: TORQ, kdbSettings: join(dir, 'missing.json') }), 'badConfig', 'missing.json', 'cannot be read');
      // never read whole: a device, a folder, a file larger than a settings file can be
      expectError(() => openMount({ dir: TORQ, kdbSettings: '/dev/zero' }), 'badConfig', '/dev/zero: not a file');
      expectError(() => openMount({ dir: TORQ, kdbSettings: dir }), 'badConfig', 'not a file');
      expectError(() => openMount({ dir: TORQ, kdbSettings: settingsFile(dir, ' '.repeat((1 << 20) + 1)) }), 'badConfig', '1048577 bytes; a settings file is at most 1048576 bytes');
    } finally {
      done();
    }
  });
});

describe('tickscope info', () => {
  it('reports a kdb+ database from its headers: rows per partition, q types, compression, attributes, what is left out', () => {
    const adv = databaseInfo(openMount({ dir: ADV }));
    expect(adv.kind).toBe('kdb');
    expect(adv.readOnly).toBe(true);
    expect(adv.settings).toBeNull();
    const quote = adv.tables.find((t) => t.name === 'quote')!;
    // README: 2019.06.24 quote 94, bid 8, statsTab 297; 2019.06.25 quote 4,832, bid 534, statsTab 18,320
    expect(quote.partitions).toEqual([{ key: '2019-06-24', rows: 94 }, { key: '2019-06-25', rows: 4832 }]);
    expect(adv.tables.find((t) => t.name === 'bid')!.partitions.map((p) => p.rows)).toEqual([8, 534]);
    expect(adv.tables.find((t) => t.name === 'statsTab')!.rows).toBe(297 + 18320);
    const col = (name: string) => quote.columns.find((c) => c.name === name)!;
    expect(col('sym').kdb).toMatchObject({ qTypes: ['enum sym (64-bit)'], attributes: ['p#'], missingIn: [] });
    expect(col('bid').kdb!.compression).toEqual(['zlib (level 6)']);
    expect(col('time')).toMatchObject({ type: 'timestamp', kdb: { qTypes: ['timespan'] } });
    expect(adv.roles.quotes).toBe('quote');
    expect(adv.roles.columns['quote']).toMatchObject({ bid: 'bid', ask: 'ask', bidSize: 'bidSize', askSize: 'askSize' });

    const torq = databaseInfo(openMount({ dir: TORQ }));
    const trade = torq.tables.find((t) => t.name === 'trade')!;
    expect(trade.rows).toBe(196519);
    expect(trade.columns.find((c) => c.name === 'sym')!.kdb).toMatchObject({ qTypes: ['enum sym (32-bit)'], compression: ['q IPC'], attributes: ['p#'] });
    expect(trade.columns.find((c) => c.name === 'ex')!.kdb!.compression).toEqual(['none']);
    // this copy of the fixture leaves out three files of quote (its README says which)
    expect(torq.tables.find((t) => t.name === 'quote')!.leftOut).toEqual(['time', 'bid', 'ask']);
    const text = formatDatabaseInfo(torq);
    expect(text).toContain('a kdb+ database, read in place (read-only)');
    expect(text).toContain('left out: time, bid, ask');
    expect(text).toMatch(/trade_iex .*: 0 rows in 1 partition/);
  });

  it('reports a Tickscope database from its partition metadata, and a column missing from a kdb+ partition', () => {
    const db = makeDb({ Trade: csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [['2024.03.06D14:30:00', 'AAPL', '1', '2'], ['2024.03.07D14:30:00', 'AAPL', '1', '2'], ['2024.03.07D14:31:00', 'MSFT', '1', '2']]) }, 'tick');
    const r = databaseInfo(openMount({ dir: db.dir }));
    expect(r.kind).toBe('tickscope');
    expect(r.readOnly).toBe(false);
    expect(r.tables.find((t) => t.name === 'Trade')!.partitions).toEqual([{ key: '2024-03-06', rows: 1 }, { key: '2024-03-07', rows: 2 }]);
    expect(r.roles.trades).toBe('Trade');
    expect(formatDatabaseInfo(r)).toContain('a Tickscope database');
  });
});
