/**
 * Mapped imports (storage/mapped-import.ts, issue 30) of files in real vendors' layouts, built here:
 * QuantConnect Lean's AlgoSeek equity trades (one CSV per symbol per day, no header, milliseconds since
 * midnight New York time, prices × 10,000, the symbol in the folder name, the date in the file name),
 * a Parquet file with microsecond timestamps (written by DuckDB), and an Arrow file, each with columns
 * named otherwise than the table's. Expected values are worked out here from the rows written.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableToIPC, tableFromArrays } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../../engine/engine.js';
import { importMapFromJson } from '../../../engine/storage/import-map.js';
import { importMapped } from '../../../engine/storage/mapped-import.js';
import { Database } from '../../../engine/storage/database.js';
import { payloadRows, tempDir } from '../../helpers/db.js';
import { LEAN_MAP, leanFiles } from '../../helpers/lean.js';
import { expectError } from './kdb/kdb-helpers.js';

const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');

const trades = (db: Database): Array<Record<string, unknown>> =>
  payloadRows(new Engine([db]), 'getTicks', { table: 'Trade', startTS: '2013.10.01D00:00:00', endTS: '2013.11.01D00:00:00', columns: ['instrumentID', 'price', 'volume', 'tradedExchange'] });

describe('a mapped import', () => {
  it("reads Lean's headerless CSVs of several symbols and days, a folder in one atomic write", () => {
    const dir = tempDir('tickscope-lean-');
    const { files, rows } = leanFiles(join(dir, 'lean'));
    const db = Database.create(join(dir, 'db'));
    const report = importMapped(db, importMapFromJson(LEAN_MAP, 'lean.json'), [join(dir, 'lean')], 'lean.json');
    expect([report.files, report.rows, report.partitions.length]).toEqual([files, rows.length, 2]);
    const got = trades(db).map((r) => [r['eventTimestamp'], r['instrumentID'], r['price'], r['volume'], r['tradedExchange']]);
    const want = [...rows].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1));
    expect(got).toEqual(want);
    // 09:30:00 New York on 2013-10-08 is 13:30 UTC; 34,200,457 ms keeps its milliseconds
    expect(got[0]).toEqual(['2013-10-08T13:30:00.000000000', 'AAPL', 486.99, 100, 'NASDAQ']);
    expect(got[1]![0]).toBe('2013-10-08T13:30:00.457000000');
  });

  it('names the file, row and column of a bad value, and writes nothing from any file', () => {
    const dir = tempDir('tickscope-lean-bad-');
    leanFiles(join(dir, 'lean'));
    const bad = join(dir, 'lean', 'equity', 'usa', 'tick', 'msft', '20131010_msft_trade_tick.csv');
    writeFileSync(bad, '36000000,336000,20,NASDAQ\n36000001,3360x0,20,NASDAQ\n');
    const db = Database.create(join(dir, 'db'));
    expectError(() => importMapped(db, importMapFromJson(LEAN_MAP, 'lean.json'), [join(dir, 'lean')], 'lean.json'), 'importFailed', `${bad}: line 2, column 1 (price): "3360x0" is not a float`);
    expect(trades(db)).toEqual([]);
    // a file whose name the date pattern does not fit
    const odd = join(dir, 'lean2', 'x', 'aapl', 'trades.csv');
    mkdirSync(join(odd, '..'), { recursive: true });
    writeFileSync(odd, '34200000,4869900,100,NASDAQ\n');
    expectError(() => importMapped(db, importMapFromJson(LEAN_MAP, 'lean.json'), [odd], 'lean.json'), 'importFailed', `${odd}: columns.eventTimestamp.date: "trades" (from {name}) does not match ^(\\d{8})`);
    // the mapping against the table: an unknown column, a transform on the wrong type, a column every row needs
    const m = (columns: Record<string, unknown>): ReturnType<typeof importMapFromJson> => importMapFromJson({ ...LEAN_MAP, columns: { ...LEAN_MAP.columns, ...columns } }, 'm.json');
    expectError(() => importMapped(db, m({ px: { source: 1 } }), [odd], 'm.json'), 'badRequest', 'm.json: columns.px is not a column of Trade');
    expectError(() => importMapped(db, m({ volume: { source: 2, scale: 100 } }), [odd], 'm.json'), 'badRequest', 'columns.volume.scale applies to float columns; volume is a long');
    const noId = importMapFromJson({ ...LEAN_MAP, columns: { eventTimestamp: LEAN_MAP.columns.eventTimestamp, price: { source: 1 } } }, 'm.json');
    expectError(() => importMapped(db, noId, [odd], 'm.json'), 'badRequest', 'columns lack instrumentID, which every Trade row needs');
    expectError(() => importMapped(db, importMapFromJson(LEAN_MAP, 'lean.json'), [join(dir, 'nowhere')], 'lean.json'), 'importFailed', 'no such file or folder');
  });

  it('reads a Parquet file with microsecond timestamps and an Arrow file, their columns named otherwise, as one import', async () => {
    const dir = tempDir('tickscope-pq-');
    const pq = join(dir, 'trades.parquet');
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    // DuckDB's TIMESTAMP is microseconds: the file holds INT64 TIMESTAMP(MICROS)
    await duck.run(`COPY (SELECT * FROM (VALUES (TIMESTAMP '2024-03-06 14:30:00.123456', 'AAPL', 189.5, 100, 'extra'), (TIMESTAMP '2024-03-06 14:30:01.000001', 'MSFT', 401.25, 7, 'extra')) v(ts, ticker, px, qty, note)) TO '${pq}' (FORMAT PARQUET)`);
    const arrow = join(dir, 'trades.arrow');
    writeFileSync(arrow, tableToIPC(tableFromArrays({ ts: new BigInt64Array([1709735402000000000n]), ticker: ['VOD'], px: new Float64Array([72.1]), qty: new BigInt64Array([50n]) }), 'file'));
    const db = Database.create(join(dir, 'db'));
    const map = importMapFromJson(
      { table: 'Trade', columns: { eventTimestamp: { source: 'ts' }, instrumentID: { source: 'ticker' }, price: { source: 'px' }, volume: { source: 'qty' } } },
      'pq.json',
    );
    expect(importMapped(db, map, [pq, arrow], 'pq.json').rows).toBe(3);
    expect(payloadRows(new Engine([db]), 'getTicks', { table: 'Trade', startTS: '2024.03.06D00:00:00', endTS: '2024.03.07D00:00:00', columns: ['instrumentID', 'price', 'volume'] })).toEqual([
      { eventTimestamp: '2024-03-06T14:30:00.123456000', instrumentID: 'AAPL', price: 189.5, volume: 100 },
      { eventTimestamp: '2024-03-06T14:30:01.000001000', instrumentID: 'MSFT', price: 401.25, volume: 7 },
      { eventTimestamp: '2024-03-06T14:30:02.000000000', instrumentID: 'VOD', price: 72.1, volume: 50 },
    ]);
    expectError(() => importMapped(db, importMapFromJson({ table: 'Trade', columns: { eventTimestamp: { source: 'time' }, instrumentID: { source: 'ticker' } } }, 'x.json'), [pq], 'x.json'), 'importFailed', `${pq}: has no column "time"; its columns are ts, ticker, px, qty, note`);
  });

  it('tickscope import --map FILE FOLDER imports the folder and says what it wrote', () => {
    const dir = tempDir('tickscope-lean-cli-');
    const { rows } = leanFiles(join(dir, 'lean'));
    const mapFile = join(dir, 'lean.json');
    writeFileSync(mapFile, JSON.stringify(LEAN_MAP));
    const db = join(dir, 'db');
    Database.create(db);
    const r = spawnSync(process.execPath, [CLI, 'import', '--db', db, '--map', mapFile, join(dir, 'lean')], { encoding: 'utf8' });
    expect([r.status, r.stdout.trim(), r.stderr]).toEqual([0, `imported ${rows.length} rows from 4 files into Trade (2 partition(s) written)`, '']);
    expect(trades(Database.open(db))).toHaveLength(rows.length);
    const both = spawnSync(process.execPath, [CLI, 'import', '--db', db, '--map', mapFile, '--tz', 'UTC', join(dir, 'lean')], { encoding: 'utf8' });
    expect([both.status, both.stderr.trim()]).toEqual([1, 'tickscope import: --map names the table and the zone itself: give --map FILE and the files, without --table or --tz']);
  });
});
