/**
 * Re-imports (SPEC 8, issue 30): each import records what each of its files wrote to each partition
 * (an order-independent hash of the rows); a file whose rows are found there again is a re-import,
 * alone or among new files. Without a choice nothing is written and the partitions are named; skip,
 * replace and append do what they say, and the rows are never doubled silently. On Lean-style CSVs
 * built here, through the storage API and the `tickscope import` command.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { columnFromValues } from '../../../engine/core/builder.js';
import { encodeDict, Utf8Dict } from '../../../engine/core/dict.js';
import { Table } from '../../../engine/core/table.js';
import { Engine } from '../../../engine/engine.js';
import { reimportMessage } from '../../../engine/storage/append.js';
import { Database } from '../../../engine/storage/database.js';
import { rowHashes, setHash, tableHash } from '../../../engine/storage/import-hash.js';
import { importMapFromJson } from '../../../engine/storage/import-map.js';
import { importMapped } from '../../../engine/storage/mapped-import.js';
import { IMPORTS_FILE } from '../../../engine/storage/partition-io.js';
import { verifyDatabase } from '../../../engine/storage/verify.js';
import { payloadRows, tempDir } from '../../helpers/db.js';
import { LEAN_MAP, LEAN_TRADES, leanFiles } from '../../helpers/lean.js';

const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');
const map = importMapFromJson(LEAN_MAP, 'lean.json');

/** Every Trade row as [time, id, price, volume], in the order getTicks gives. */
const trades = (db: Database): unknown[][] =>
  payloadRows(new Engine([db]), 'getTicks', { table: 'Trade', startTS: '2013.10.01D00:00:00', endTS: '2013.11.01D00:00:00', columns: ['instrumentID', 'price', 'volume'] }).map((r) => [
    r['eventTimestamp'],
    r['instrumentID'],
    r['price'],
    r['volume'],
  ]);

/** A Lean tree (both symbols, both days) and an empty database beside it. */
function setUp(): { root: string; tick: string; db: Database; dir: string } {
  const dir = tempDir('tickscope-reimport-');
  leanFiles(join(dir, 'lean'));
  return { root: join(dir, 'lean'), tick: join(dir, 'lean', 'equity', 'usa', 'tick'), db: Database.create(join(dir, 'db')), dir };
}

describe('the rows hash', () => {
  const t = (times: bigint[], ids: string[], px: number[]): Table =>
    new Table(['eventTimestamp', 'instrumentID', 'price'], [columnFromValues('timestamp', times), columnFromValues('symbol', ids), columnFromValues('float', px)], times.length);

  it('is the same for the same rows in any order and any dictionary, and differs for any other value', () => {
    const a = t([1n, 2n, 3n], ['A', 'B', 'A'], [1.5, 2.5, -0]);
    const shuffled = t([3n, 1n, 2n], ['A', 'A', 'B'], [0, 1.5, 2.5]);
    expect(tableHash(shuffled)).toBe(tableHash(a));
    for (const other of [t([1n, 2n, 4n], ['A', 'B', 'A'], [1.5, 2.5, 0]), t([1n, 2n, 3n], ['A', 'B', 'B'], [1.5, 2.5, 0]), t([1n, 2n, 3n], ['A', 'B', 'A'], [1.5, 2.5000001, 0]), t([1n, 2n], ['A', 'B'], [1.5, 2.5])]) {
      expect(tableHash(other)).not.toBe(tableHash(a));
    }
    // a row's values swapped between columns of one type make another row
    const swapped = new Table(['x', 'y'], [columnFromValues('float', [1, 2]), columnFromValues('float', [2, 1])], 2);
    const h = rowHashes(swapped);
    expect([h.a[0], h.b[0]]).not.toEqual([h.a[1], h.b[1]]);
    // text hashes by its UTF-8 bytes: a UTF-8 dictionary, a dictionary of strings and a string column agree
    const words = ['Société', 'naïve', '東京', '🙂x', ''];
    const enc = encodeDict(words);
    const fromBytes = new Table(['s'], [{ type: 'symbol', codes: Int32Array.from(words.keys()), dict: new Utf8Dict(enc.offsets, enc.data, false) }], words.length);
    const fromStrings = new Table(['s'], [columnFromValues('symbol', words)], words.length);
    const asStrings = new Table(['s'], [{ type: 'string', values: words }], words.length);
    expect(tableHash(fromBytes)).toBe(tableHash(fromStrings));
    expect(tableHash(asStrings)).toBe(tableHash(fromStrings));
    // a subset hashes as the table of those rows
    expect(setHash(rowHashes(a), [0, 2])).toBe(tableHash(t([1n, 3n], ['A', 'A'], [1.5, 0])));
  });
});

describe('a re-import', () => {
  it('of the same files writes nothing without a choice, and names the partitions, rows and files', () => {
    const { root, db } = setUp();
    const first = importMapped(db, map, [root], 'lean.json');
    expect(first).toMatchObject({ written: true, rows: LEAN_TRADES.length, partitions: ['2013-10-08', '2013-10-09'], reimported: [] });
    const before = trades(db);
    const again = importMapped(db, map, [root], 'lean.json');
    expect(again.written).toBe(false);
    expect(again.rows).toBe(0);
    expect(again.reimported.map((r) => [r.table, r.key, r.rows, [...r.files].sort()])).toEqual([
      ['Trade', '2013-10-08', 4, ['20131008_aapl_trade_tick.csv', '20131008_msft_trade_tick.csv']],
      ['Trade', '2013-10-09', 2, ['20131009_aapl_trade_tick.csv', '20131009_msft_trade_tick.csv']],
    ]);
    expect(again.reimported[0]!.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(trades(db)).toEqual(before);
    const text = reimportMessage(again.reimported, '--reimport');
    expect(text).toContain('Trade 2013-10-08 (4 rows, imported ');
    expect(text).toContain('choose --reimport skip');
  });

  it('is found for a file among new ones (a folder imported after one of its symbols)', () => {
    const { tick, db } = setUp();
    importMapped(db, map, [join(tick, 'aapl')], 'lean.json');
    const all = importMapped(db, map, [tick], 'lean.json');
    expect(all.written).toBe(false);
    expect(all.reimported.map((r) => [r.key, r.rows])).toEqual([
      ['2013-10-08', 3],
      ['2013-10-09', 1],
    ]);
    // skip: MSFT's rows are written, AAPL's are not written again
    const skipped = importMapped(db, map, [tick], 'lean.json', { reimport: 'skip' });
    expect(skipped).toMatchObject({ written: true, rows: 2, skippedRows: 4, partitions: ['2013-10-08', '2013-10-09'] });
    const rows = trades(db);
    expect(rows).toHaveLength(LEAN_TRADES.length);
    expect(rows.filter((r) => r[1] === 'AAPL')).toHaveLength(4);
    // and now the whole folder is a re-import, MSFT's files too
    expect(importMapped(db, map, [tick], 'lean.json').reimported.map((r) => r.rows)).toEqual([4, 2]);
  });

  it('replace takes the earlier rows out and leaves the others; append writes them again; skip of everything writes nothing', () => {
    const { tick, db } = setUp();
    importMapped(db, map, [join(tick, 'aapl')], 'lean.json');
    importMapped(db, map, [join(tick, 'msft')], 'lean.json');
    const once = trades(db);
    expect(once).toHaveLength(LEAN_TRADES.length);
    const replaced = importMapped(db, map, [join(tick, 'aapl')], 'lean.json', { reimport: 'replace' });
    expect(replaced).toMatchObject({ written: true, rows: 4, skippedRows: 0 });
    expect(replaced.reimported).toHaveLength(2);
    expect(trades(db)).toEqual(once);
    // the replaced records are gone: the partition lists one record per file still
    const p = db.partition('Trade', '2013-10-08')!;
    expect(p.imports.map((r) => r.file).sort()).toEqual(['20131008_aapl_trade_tick.csv', '20131008_msft_trade_tick.csv']);
    const appended = importMapped(db, map, [join(tick, 'msft')], 'lean.json', { reimport: 'append' });
    expect(appended).toMatchObject({ written: true, rows: 2 });
    expect(trades(db)).toHaveLength(LEAN_TRADES.length + 2);
    // both MSFT copies are recorded: a third import of them is found again
    expect(importMapped(db, map, [join(tick, 'msft')], 'lean.json').written).toBe(false);
    const skipAll = importMapped(db, map, [join(tick, 'aapl')], 'lean.json', { reimport: 'skip' });
    expect(skipAll).toMatchObject({ written: true, rows: 0, partitions: [], skippedRows: 4 });
    expect(trades(db)).toHaveLength(LEAN_TRADES.length + 2);
  });

  it('is found through a changed file only when its rows are the same', () => {
    const { tick, db } = setUp();
    importMapped(db, map, [join(tick, 'msft')], 'lean.json');
    // the 8 October file corrected (one price): a new import of that day, the 9 October file a re-import
    const file = join(tick, 'msft', '20131008_msft_trade_tick.csv');
    writeFileSync(file, readFileSync(file, 'utf8').replace('335500', '335600'));
    const r = importMapped(db, map, [join(tick, 'msft')], 'lean.json');
    expect(r.reimported.map((x) => x.key)).toEqual(['2013-10-09']);
    expect(importMapped(db, map, [join(tick, 'msft')], 'lean.json', { reimport: 'skip' })).toMatchObject({ rows: 1, skippedRows: 1 });
  });

  it('a damaged record list is a clear error naming the file', () => {
    const { tick, db } = setUp();
    importMapped(db, map, [join(tick, 'msft')], 'lean.json');
    const p = db.partition('Trade', '2013-10-08')!;
    writeFileSync(join(p.dir, IMPORTS_FILE), '[{"rows":1}]');
    expect(() => importMapped(db, map, [join(tick, 'msft')], 'lean.json')).toThrow(`${join(p.dir, IMPORTS_FILE)}`);
    expect(verifyDatabase(db.dir).damaged.map((d) => d.path)).toEqual([join(p.dir, IMPORTS_FILE)]);
    rmSync(join(p.dir, IMPORTS_FILE));
  });
});

describe('tickscope import --reimport', () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });

  it('refuses a re-import with exit status 1 and the choices, then does as told', () => {
    const { root, dir } = setUp();
    const mapFile = join(dir, 'lean.json');
    writeFileSync(mapFile, JSON.stringify(LEAN_MAP));
    const db = join(dir, 'db');
    expect(cli('import', '--db', db, '--map', mapFile, root).status).toBe(0);
    const again = cli('import', '--db', db, '--map', mapFile, root);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('these rows were imported before: Trade 2013-10-08 (4 rows, imported ');
    expect(again.stderr).toContain('--reimport skip');
    const bad = cli('import', '--db', db, '--map', mapFile, root, '--reimport', 'twice');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--reimport "twice": expected skip, replace, append');
    const skip = cli('import', '--db', db, '--map', mapFile, root, '--reimport', 'skip');
    expect(skip.status).toBe(0);
    expect(skip.stdout).toContain('skipped (6 rows not written)');
    expect(trades(Database.open(db))).toHaveLength(LEAN_TRADES.length);
    expect(cli('import', '--db', db, '--map', mapFile, root, '--reimport', 'append').status).toBe(0);
    expect(trades(Database.open(db))).toHaveLength(2 * LEAN_TRADES.length);
  });
});
