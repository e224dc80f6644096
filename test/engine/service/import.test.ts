/**
 * Import… on the app's backend (issue 30): the preview (files, rows as read, types guessed, rows as
 * mapped, a mapping's error named), an import run on a worker and seen by every worker's next query,
 * a re-import answered with the partitions and nothing written, a cancel before the write leaving the
 * table as it was, a new table, a kdb+ database refused, and the uploads' checks (the HTTP route too).
 * Files laid out as QuantConnect Lean's AlgoSeek trades: one CSV per symbol and day, no header.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportMapDoc, RunResponse } from '../../../engine/contract.js';
import { loadSettings } from '../../../engine/executor/settings.js';
import { type RunningServer, serve } from '../../../engine/server/serve.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { saveUpload } from '../../../engine/service/uploads.js';
import { Database } from '../../../engine/storage/database.js';
import { defineTable } from '../../../engine/storage/define-table.js';
import { makeDb, tempDir } from '../../helpers/db.js';
import { ADV } from '../storage/kdb/kdb-helpers.js';
import { LEAN_MAP } from '../../helpers/lean.js';

const SYMBOLS = ['aapl', 'ibm', 'msft'];
const DAYS = ['20131008', '20131009'];

/** Lean-style trade files under `root`: <symbol>/<day>_trade.csv, ms since midnight, prices × 10,000. */
function leanFiles(root: string, symbols = SYMBOLS, rows = 3): string {
  symbols.forEach((sym, s) => {
    mkdirSync(join(root, sym), { recursive: true });
    DAYS.forEach((day, d) => {
      const lines = Array.from({ length: rows }, (_, i) => `${34_200_000 + i * 1000},${(100 + s * 10 + d) * 10_000 + i * 100},${100 * (i + 1)},NASDAQ`);
      writeFileSync(join(root, sym, `${day}_trade.csv`), `${lines.join('\n')}\n`);
    });
  });
  return root;
}

const MAP = LEAN_MAP as ImportMapDoc;

const services: QueryService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
});

async function start(dir: string, workers = 2): Promise<QueryService> {
  const s = await QueryService.start([dir], { ...loadSettings({ env: {} }), workers, maxRunningQueries: workers }, 'browser');
  services.push(s);
  return s;
}

/** Rows of a table counted by a query on a worker (getStats count), or 0 when it holds none. */
async function count(s: QueryService, table = 'Trade', column = 'price'): Promise<number> {
  const r: RunResponse = await s.run('getStats', { table, startTS: '2013.10.01D00:00:00', endTS: '2013.11.01D00:00:00', agg: { n: ['count', column] }, groupBy: [] });
  if (!r.ok) throw new Error(r.header.ai);
  if (r.rows === 0) return 0;
  return Number((await s.page(r.resultId, 0, 1)).rows[0]![0]);
}

describe('Import… on the backend', () => {
  const lean = leanFiles(tempDir('tickscope-lean-'));

  it('previews the files, the first file as read with guessed types, and as the mapping makes it', async () => {
    const s = await start(makeDb({}, 'prev').dir, 1);
    const raw = await s.previewImport({ paths: [lean], header: false });
    expect([raw.fileCount, raw.files.map((f) => f.path.slice(lean.length))]).toEqual([6, ['/aapl/20131008_trade.csv', '/aapl/20131009_trade.csv', '/ibm/20131008_trade.csv', '/ibm/20131009_trade.csv', '/msft/20131008_trade.csv', '/msft/20131009_trade.csv']]);
    expect(raw.files[0]).toMatchObject({ format: 'csv', bytes: readFileSync(join(lean, 'aapl', '20131008_trade.csv')).byteLength });
    expect(raw.sourceColumns).toEqual(['0', '1', '2', '3']);
    expect(raw.sourceRows).toEqual([
      ['34200000', '1000000', '100', 'NASDAQ'],
      ['34201000', '1000100', '200', 'NASDAQ'],
      ['34202000', '1000200', '300', 'NASDAQ'],
    ]);
    expect(raw.sourceTypes).toEqual(['long', 'long', 'long', 'symbol']);
    expect([raw.mapped, raw.mapError]).toEqual([null, null]);

    const mapped = await s.previewImport({ paths: [join(lean, 'ibm')], map: MAP });
    const at = (row: number, col: string): string => mapped.mapped!.rows[row]![mapped.mapped!.columns.indexOf(col)]!;
    // 09:30 New York (EDT) on the file's date; the price ÷ 10,000 exactly; the symbol from the folder
    expect([at(0, 'eventTimestamp'), at(0, 'instrumentID'), at(0, 'price'), at(0, 'volume'), at(2, 'price')]).toEqual(['2013-10-08T09:30:00.000000000-04:00', 'IBM', '110', '100', '110.02']);
    expect(mapped.mapped!.rows).toHaveLength(3);

    // a mapping that does not read says which item, and the raw rows still come
    const bad = await s.previewImport({ paths: [lean], map: { ...MAP, columns: { ...MAP.columns, volume: { source: 2, scale: 2 } } } });
    expect(bad.mapError).toBe('the mapping: columns.volume.scale applies to float columns; volume is a long');
    expect(bad.sourceRows).toHaveLength(3);
    const nowhere = await s.previewImport({ paths: [lean], map: { ...MAP, table: 'Nope' } });
    expect(nowhere.mapError).toMatch(/^the mapping: table "Nope" is not a table of prev; expected one of Trade, /);
    await expect(s.previewImport({ paths: [join(lean, 'nothing-here')] })).rejects.toThrow(/nothing-here: no such file or folder/);
    await expect(s.previewImport({ paths: 'x' })).rejects.toThrow('paths: expected a non-empty array of files or folders on this machine');
  });

  it('imports on a worker; every worker sees the rows on its next query; a second import is a re-import and writes nothing', async () => {
    const s = await start(makeDb({}, 'imp').dir);
    const r = await s.importFiles({ paths: [lean], map: MAP });
    expect(r).toMatchObject({ assembly: 'imp', table: 'Trade', files: 6, rows: 18, partitions: ['2013-10-08', '2013-10-09'], written: true, created: false });
    // two queries at once: one on each worker
    expect(await Promise.all([count(s), count(s)])).toEqual([18, 18]);
    expect((await s.info()).assemblies[0]!.tables.find((t) => t.name === 'Trade')!.rows).toBe(18);

    const again = await s.importFiles({ paths: [lean], map: MAP });
    expect(again.written).toBe(false);
    expect(again.reimported.map((p) => [p.table, p.key])).toEqual([['Trade', '2013-10-08'], ['Trade', '2013-10-09']]);
    expect(await count(s)).toBe(18);
    const skipped = await s.importFiles({ paths: [lean], map: MAP, reimport: 'skip' });
    expect(skipped.skippedRows).toBe(18);
    expect(await count(s)).toBe(18);
    const appended = await s.importFiles({ paths: [join(lean, 'ibm')], map: MAP, reimport: 'append' });
    expect([appended.written, appended.rows]).toEqual([true, 6]);
    expect(await count(s)).toBe(24);
  });

  it('a cancel after the first of several files writes nothing; the progress counts files', async () => {
    const many = leanFiles(tempDir('tickscope-many-'), Array.from({ length: 20 }, (_, i) => `s${String(i).padStart(2, '0')}`), 20_000);
    const s = await start(makeDb({}, 'cancel').dir, 1);
    const seen: Array<[number, number, string]> = [];
    const answer = await s.executor.importFiles(
      { paths: [many], map: MAP },
      {
        queryId: 'imp-1',
        onProgress: (p) => {
          if (p.state !== 'running' || p.total === 0) return;
          seen.push([p.done, p.total, p.unit]);
          if (p.done >= 1) s.cancel('imp-1');
        },
      },
    );
    expect(answer.ok ? 'written' : answer.error.kind).toBe('cancelled');
    expect(seen[0]).toEqual([expect.any(Number), 40, 'files']);
    expect(seen.at(-1)![0]).toBeLessThan(40);
    expect(await count(s)).toBe(0);
    expect(s.progress('imp-1')).toBeNull();
  });

  it('makes a new table with the types given, seen by every worker, and refuses one that exists', async () => {
    const s = await start(makeDb({}, 'newt').dir);
    const newTable = {
      name: 'LeanTrade',
      columns: [
        { name: 'time', type: 'timestamp' as const },
        { name: 'sym', type: 'symbol' as const },
        { name: 'px', type: 'float' as const },
        { name: 'qty', type: 'long' as const },
      ],
      timeColumn: 'time',
      idColumn: 'sym',
    };
    const map: ImportMapDoc = { table: 'LeanTrade', header: false, zone: 'America/New_York', columns: { time: MAP.columns['eventTimestamp']!, sym: { path: '{dir}', case: 'upper' }, px: { source: 1, scale: 0.0001 }, qty: { source: 2 } } };
    const preview = await s.previewImport({ paths: [lean], map, newTable });
    expect(preview.mapped!.columns).toEqual(['time', 'sym', 'px', 'qty']);
    expect(preview.mapped!.rows[0]).toEqual(['2013-10-08T09:30:00.000000000-04:00', 'AAPL', '100', '100']);
    const r = await s.importFiles({ paths: [lean], map, newTable });
    expect([r.created, r.rows, r.table]).toEqual([true, 18, 'LeanTrade']);
    expect((await s.info()).assemblies[0]!.tables.map((t) => t.name)).toContain('LeanTrade');
    expect(await Promise.all([count(s, 'LeanTrade', 'px'), count(s, 'LeanTrade', 'px')])).toEqual([18, 18]);
    await expect(s.importFiles({ paths: [lean], map, newTable })).rejects.toThrow('newTable.name: LeanTrade is a table of newt already; choose it as the target, or another name');
    await expect(s.importFiles({ paths: [lean], map, newTable: { ...newTable, name: 'X', idColumn: 'px' } })).rejects.toThrow('newTable.idColumn: "px" must name a symbol column (the instrument); expected one of sym');
    // what defineTable wrote opens again
    expect(Database.open(s.databases[0]!.dir).table('LeanTrade').columns.map((c) => c.type)).toEqual(['timestamp', 'symbol', 'float', 'long']);
    expect(() => defineTable(Database.open(s.databases[0]!.dir), { ...newTable, name: 'Trade' })).toThrow(/newTable.name: Trade is a table of newt already/);
  });

  it('refuses to import into a kdb+ database, saying why and where writes go', async () => {
    const s = await start(makeDb({}, 'ro').dir, 1);
    s.openDatabase({ dir: ADV });
    await expect(s.importFiles({ paths: [lean], map: MAP, assembly: 'hdb' })).rejects.toThrow('import: hdb is a kdb+ database, read in place and never written; write to a Tickscope database mounted beside it (another --db, another assembly)');
    await expect(s.importFiles({ paths: [lean], map: MAP, reimport: 'maybe' })).rejects.toThrow('reimport: "maybe": expected skip, replace or append');
  });
});

describe('uploads (the browser\'s picked and dropped files)', () => {
  const root = tempDir('tickscope-uploads-');
  const body = (text: string): Readable => Readable.from([Buffer.from(text)]);

  it('keeps each file at its relative path in one upload folder', async () => {
    const a = await saveUpload(root, encodeURIComponent('lean/aapl/20131008_trade.csv'), undefined, body('1,2\n'));
    expect(a.path).toBe(join(a.folder, 'lean', 'aapl', '20131008_trade.csv'));
    expect(readFileSync(a.path, 'utf8')).toBe('1,2\n');
    const b = await saveUpload(root, 'lean/msft/20131008_trade.csv', a.upload, body('3,4\n'));
    expect([b.folder, b.bytes]).toEqual([a.folder, 4]);
    await expect(saveUpload(root, 'lean/msft/20131008_trade.csv', a.upload, body(''))).rejects.toThrow('X-Tickscope-Path: "lean/msft/20131008_trade.csv" was uploaded to this folder already');
  });

  it.each([
    ['../evil.csv', 'X-Tickscope-Path: "../evil.csv": expected names separated by /, without empty, . or .. parts'],
    ['a/../../evil.csv', 'X-Tickscope-Path: "a/../../evil.csv": expected names separated by /, without empty, . or .. parts'],
    ['/etc/evil.csv', 'X-Tickscope-Path: "/etc/evil.csv" is absolute; expected a path relative to the folder picked (aapl/20131008_trade.csv)'],
    ['C:/evil.csv', 'X-Tickscope-Path: "C:/evil.csv" is absolute; expected a path relative to the folder picked (aapl/20131008_trade.csv)'],
    ['a\\b.csv', 'X-Tickscope-Path: "a\\\\b.csv" is absolute; expected a path relative to the folder picked (aapl/20131008_trade.csv)'],
    ['notes.txt', 'X-Tickscope-Path: "notes.txt" is not a file an import reads; expected a name ending .csv, .parquet, .arrow, .arrows, .ipc or .feather'],
    ['', 'X-Tickscope-Path: required: the file\'s path relative to the folder picked or dropped (aapl/20131008_trade.csv)'],
  ])('refuses the path %j before writing anything', async (path, message) => {
    await expect(saveUpload(root, path, undefined, body('x'))).rejects.toThrow(message);
  });

  it('refuses an upload folder it did not make', async () => {
    await expect(saveUpload(root, 'a.csv', '../../etc', body('x'))).rejects.toThrow('X-Tickscope-Upload: "../../etc" is not an upload folder of this app; leave it out to start one');
  });

  describe('over HTTP', () => {
    let server: RunningServer;
    let service: QueryService;
    const home = tempDir('tickscope-home-');
    beforeAll(async () => {
      process.env['TICKSCOPE_HOME'] = home;
      const rendererDir = tempDir();
      writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><html><head></head><body></body></html>');
      service = await start(makeDb({}, 'http').dir, 1);
      server = await serve(service, { port: 0, host: '127.0.0.1', rendererDir });
    });
    afterAll(async () => {
      delete process.env['TICKSCOPE_HOME'];
      await server.close();
    });
    const post = (path: string, init: RequestInit): Promise<Response> => fetch(new URL(path, server.url), { method: 'POST', ...init, headers: { 'x-tickscope-token': server.token, ...init.headers } });

    it('takes a file\'s bytes, then imports the folder it went to', async () => {
      const text = readFileSync(join(lean(), 'aapl', '20131008_trade.csv'));
      const res = await post('app/api/import/files', { body: text, headers: { 'content-type': 'application/octet-stream', 'x-tickscope-path': 'lean/aapl/20131008_trade.csv' } });
      expect(res.status).toBe(200);
      const up = (await res.json()) as { folder: string; path: string };
      expect(up.folder.startsWith(join(home, 'uploads'))).toBe(true);
      expect(existsSync(up.path)).toBe(true);
      const imp = await post('app/api/import', { body: JSON.stringify({ paths: [up.folder], map: MAP, queryId: 'http-1' }), headers: { 'content-type': 'application/json' } });
      expect(((await imp.json()) as { rows: number }).rows).toBe(3);
      const bad = await post('app/api/import/files', { body: 'x', headers: { 'content-type': 'application/octet-stream', 'x-tickscope-path': '../x.csv' } });
      expect([bad.status, ((await bad.json()) as { error: { ai: string } }).error.ai]).toEqual([400, 'X-Tickscope-Path: "../x.csv": expected names separated by /, without empty, . or .. parts']);
      const json = await post('app/api/import/files', { body: '{}', headers: { 'content-type': 'application/json', 'x-tickscope-path': 'a.csv' } });
      expect(json.status).toBe(415);
      const noMap = await post('app/api/import', { body: JSON.stringify({ paths: ['/x'] }), headers: { 'content-type': 'application/json' } });
      expect([noMap.status, ((await noMap.json()) as { error: { ai: string } }).error.ai]).toEqual([400, "map: required: the mapping of the files' columns to the table's (docs/import.md)"]);
    });
  });
});

/** The Lean folder of the first describe (made once). */
let leanRoot: string | undefined;
function lean(): string {
  leanRoot ??= leanFiles(tempDir('tickscope-lean2-'));
  return leanRoot;
}
