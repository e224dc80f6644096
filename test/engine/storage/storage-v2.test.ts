/**
 * Storage format 2 on generated data: format-1 databases are refused with the way out, migrate to
 * format 2 and answer every request as a database generated in format 2 does, cell by cell; narrow
 * queries read only the row ranges they need and decode only the dictionary strings they show; the
 * stored time order gives the same rows as merging the identifier runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SymbolColumn } from '../../../engine/core/column.js';
import { Utf8Dict } from '../../../engine/core/dict.js';
import { Engine } from '../../../engine/engine.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { textCells } from '../../../engine/output/text-cells.js';
import { scanPartition } from '../../../engine/ops/select/scan.js';
import type { Table } from '../../../engine/core/table.js';
import { Database } from '../../../engine/storage/database.js';
import { FileDict } from '../../../engine/storage/stored-column.js';
import { migrateDatabase } from '../../../engine/storage/migrate.js';
import { tempDir } from '../../helpers/db.js';
import { writeV1Copy } from '../../helpers/v1-writer.js';

const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');

/** Every cell of a table as the JSON payload renders it. */
function cells(t: Table): string[][] {
  return t.names.map((n) => {
    const f = textCells(t.col(n), 'UTC', 'null');
    return Array.from({ length: t.length }, (_, i) => f(i));
  });
}

let v2Dir = '';
let v1Dir = '';
let dates: string[] = [];
let ids: string[] = [];

beforeAll(() => {
  v2Dir = join(tempDir(), 'demo');
  const report = generateDemo(v2Dir, { seed: 7, days: 2, instruments: 6, tradesPerDay: 30_000 });
  dates = report.dates;
  ids = report.instruments;
  v1Dir = join(tempDir(), 'old');
  writeV1Copy(Database.open(v2Dir), v1Dir);
}, 120_000);

describe('storage format 2', () => {
  it('refuses a format-1 database naming tickscope migrate, and migrates it atomically in place', () => {
    expect(() => Database.open(v1Dir)).toThrow(/storage format 1; this release reads format 2\. Convert it \(atomically, in place\) with: tickscope migrate --db/);
    const r = spawnSync(process.execPath, [CLI, 'migrate', '--db', v1Dir], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/migrated .* from storage format 1 to 2: \d+ folder\(s\)/);
    // only format-2 folders remain, and a second run has nothing to do
    for (const table of readdirSync(join(v1Dir, 'data'))) {
      for (const f of readdirSync(join(v1Dir, 'data', table))) {
        expect(JSON.parse(readFileSync(join(v1Dir, 'data', table, f, '_meta.json'), 'utf8')).format).toBe(2);
        expect(existsSync(join(v1Dir, 'data', table, f, 'instrumentID.dict.json'))).toBe(false);
      }
    }
    expect(migrateDatabase(v1Dir)).toEqual({ from: 2, folders: 0, rows: 0 });
  });

  it('answers every request of the migrated database as the format-2 one, cell by cell', () => {
    const a = Engine.open([v2Dir]);
    const b = Engine.open([v1Dir]);
    const [d0, d1] = dates.map((d) => d.replace(/-/g, '.'));
    const requests: Array<[string, Record<string, unknown>]> = [
      ['getTicks', { table: 'Trade', startTS: d0, endTS: `${d1}D23:59` }],
      ['getTicks', { table: 'Trade', startTS: `${d0}D14:00`, endTS: `${d0}D15:00`, idList: [ids[0]], filter: [['>', 'volume', '100']] }],
      ['getTicks', { table: 'Trade', startTS: d0, endTS: `${d1}D23:59`, temporality: 'slice', slice: ['14:30', '15:00'], fill: 'forward', idList: ids.slice(0, 4) }],
      ['getTicks', { table: 'Trade', startTS: d0, endTS: d1, applyCanCor: true, ref: ['Instrument'], sortCols: ['desc', 'volume'] }],
      ['getTicks', { table: 'Quote', startTS: d0, endTS: d1, filter: 'exchangeID=XNAS|XLON' }],
      ['getTicks', { table: 'OrderbookSnapshots', startTS: d0, endTS: `${d1}D23:59`, orderbook: 'plotOrderbookSnapshots' }],
      ['getTicks', { table: 'Order', startTS: d0, endTS: `${d1}D23:59` }],
      ['getStats', { table: 'Trade', startTS: d0, endTS: `${d1}D23:59`, granularityUnit: 'minute', granularity: 5, analytics: ['firstPrice', 'maxPrice', 'vwap'], agg: [['c', 'count', 'executionID']] }],
      ['getStats', { table: 'Trade', startTS: d0, endTS: `${d1}D23:59`, groupBy: ['tradedExchange', 'conditions'], agg: { v: ['sum', 'volume'], n: ['count', ['distinct', 'executionID']] } }],
    ];
    for (const [op, args] of requests) {
      const x = a.call(op, args).table;
      const y = b.call(op, args).table;
      expect(x.length, `${op} ${JSON.stringify(args)}`).toBeGreaterThan(0);
      expect(y.names).toEqual(x.names);
      expect(cells(y), `${op} ${JSON.stringify(args)}`).toEqual(cells(x));
    }
  });

  it('reads only where its rows lie for a short window over every identifier, with the rows a whole read gives', () => {
    const d0 = dates[0]!.replace(/-/g, '.');
    const args = { table: 'Trade', startTS: `${d0}D15:00`, endTS: `${d0}D15:02`, filter: [['>', 'volume', 0]] };
    const db = Database.open(v2Dir);
    const narrow = new Engine([db]).call('getTicks', args).table;
    expect(narrow.length).toBeGreaterThan(10);
    expect(new Set(cells(narrow)[narrow.names.indexOf('instrumentID')]).size).toBe(ids.length);
    const p = db.partition('Trade', dates[0]!)!;
    const onDisk = readdirSync(p.dir)
      .filter((f) => !f.startsWith('_'))
      .reduce((sum, f) => sum + readFileSync(join(p.dir, f)).length, 0);
    // every identifier, two minutes of the day: the time column, the dictionaries and small spans of
    // the other columns (a whole read holds nearly all of the files)
    expect(db.columnCache.bytes).toBeLessThan(onDisk / 2);
    // the same cells as with every column read whole first
    const whole = Database.open(v2Dir);
    const engine = new Engine([whole]);
    engine.call('getTicks', { table: 'Trade', startTS: d0, endTS: `${d0}D23:59` });
    expect(cells(narrow)).toEqual(cells(engine.call('getTicks', args).table));
  });

  it('reads only the row ranges a narrow query needs, and decodes only the strings it shows', () => {
    const db = Database.open(v2Dir);
    const engine = new Engine([db]);
    const d0 = dates[0]!.replace(/-/g, '.');
    const t = engine.call('getTicks', { table: 'Trade', startTS: `${d0}D15:00`, endTS: `${d0}D16:00`, idList: [ids[1]] }).table;
    expect(t.length).toBeGreaterThan(10);
    const p = db.partition('Trade', dates[0]!)!;
    const sizeOf = (f: string): number => readFileSync(join(p.dir, f)).length;
    const files = readdirSync(p.dir).filter((f) => !f.startsWith('_'));
    const onDisk = files.reduce((s, f) => s + sizeOf(f), 0);
    // one instrument of six, one hour of the day: a small part of the files is read
    expect(db.columnCache.bytes).toBeGreaterThan(0);
    expect(db.columnCache.bytes).toBeLessThan(onDisk / 8);
    // rendering every executionID of the result reads a few blocks of the partition's dictionary
    // (in first-use order) and decodes only the strings shown
    const render = textCells(t.col('executionID'), 'UTC');
    for (let i = 0; i < t.length; i++) expect(render(i)).toMatch(/^\S+$/);
    const stored = (p.column('executionID') as SymbolColumn).dict;
    expect(stored).toBeInstanceOf(FileDict);
    expect(stored.length).toBeGreaterThan(20 * t.length);
    const dictFiles = sizeOf('executionID.dict.utf8') + sizeOf('executionID.dict.offsets.i32');
    expect(stored.bytes - (stored as FileDict).decodedCount * 48).toBeLessThan(dictFiles * 0.4);
    expect((stored as FileDict).decodedCount).toBeLessThanOrEqual(t.length);
    // a small dictionary (conditions) stays sorted and whole
    expect((p.column('conditions') as SymbolColumn).dict).toBeInstanceOf(Utf8Dict);
  });

  it('reads a first-use dictionary whole for a query that needs most of it, and its blocks are views of those files', () => {
    const db = Database.open(v2Dir);
    const engine = new Engine([db]);
    const d0 = dates[0]!.replace(/-/g, '.');
    const p = db.partition('Trade', dates[0]!)!;
    const stored = (p.column('executionID') as SymbolColumn).dict as FileDict;
    expect(stored).toBeInstanceOf(FileDict);
    // a narrow query reads blocks
    engine.call('getTicks', { table: 'Trade', startTS: `${d0}D15:00`, endTS: `${d0}D15:01`, idList: [ids[1]] });
    expect(stored.snapshot().whole).toBeUndefined();
    // the whole day: the files whole, once
    const t = engine.call('getTicks', { table: 'Trade', startTS: d0, endTS: `${d0}D23:59:59.999999999` }).table;
    const snap = stored.snapshot();
    expect(snap.whole).toBeDefined();
    const files = readFileSync(join(p.dir, 'executionID.dict.utf8'));
    expect(Buffer.from(snap.whole!.data).equals(files.subarray(0, snap.whole!.data.length))).toBe(true);
    expect(stored.whole().data).toBe(snap.whole!.data); // not read again
    // the blocks the narrow query read are views of the whole files now, held once
    expect(stored.bytes - stored.decodedCount * 48).toBe(snap.whole!.offsets.byteLength + snap.whole!.data.byteLength);
    // every entry the same through the blocks, the whole files and a dictionary rebuilt on another thread's side
    const again = FileDict.restore(snap);
    const offsets = new Int32Array(readFileSync(join(p.dir, 'executionID.dict.offsets.i32')).buffer.slice(0));
    for (let k = 0; k < stored.length; k += 997) {
      const want = files.toString('utf8', offsets[k]!, offsets[k + 1]!);
      expect(stored.get(k)).toBe(want);
      expect(again.get(k)).toBe(want);
    }
    const ex = t.col('executionID') as SymbolColumn;
    expect(ex.dict.get(ex.codes[0]!)).toMatch(/^\S+$/);
  });

  it('gives the rows of the stored time order exactly as merging the identifier runs', () => {
    const db = Database.open(v2Dir);
    const p = db.partition('Trade', dates[1]!)!;
    expect(p.timeOrder()).toBeInstanceOf(Int32Array);
    const merged = { rows: p.rows, idRanges: p.idRanges, column: (n: string) => p.column(n) }; // no stored order: merges
    const day = BigInt(Date.parse(`${dates[1]}T00:00:00Z`)) * 1_000_000n;
    const h = 3_600_000_000_000n;
    const plans = [
      { timeColumn: 'eventTimestamp', ranges: [[day, day + 24n * h]] as Array<[bigint, bigint]> },
      { timeColumn: 'eventTimestamp', ranges: [[day + 14n * h, day + 15n * h], [day + 16n * h, day + 17n * h]] as Array<[bigint, bigint]> },
      { timeColumn: 'eventTimestamp', ranges: [[day, day + 24n * h]] as Array<[bigint, bigint]>, ids: ids.slice(0, 5) },
    ];
    for (const plan of plans) {
      const viaOrder = scanPartition(p, plan).rows;
      const viaMerge = scanPartition(merged, plan).rows;
      expect(viaOrder.length).toBeGreaterThan(1000);
      expect([...viaOrder]).toEqual([...viaMerge]);
    }
  });
});
