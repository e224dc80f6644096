/**
 * Open database… on the app's backend (QueryService): a kdb+ folder mounted beside the databases
 * given at start, on this thread and on every query worker (the queries run there), closed again,
 * and remembered for the next launch. Real workers over real folders; values from the fixture's README.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResponse } from '../../../engine/contract.js';
import { loadSettings } from '../../../engine/executor/settings.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { csv, makeDb, tempDir } from '../../helpers/db.js';
import { ADV, TORQ } from '../storage/kdb/kdb-helpers.js';

const settings = { ...loadSettings({ env: {} }), workers: 2, maxRunningQueries: 2 };
const services: QueryService[] = [];
afterAll(async () => {
  for (const s of services) await s.close();
});

async function start(dir: string, remember: string): Promise<QueryService> {
  const s = await QueryService.start([dir], settings, 'browser', { remember });
  services.push(s);
  return s;
}

/** The README's numbers of the 2019.06.25 quote partition, asked of the assembly. */
const QUOTE_DAY = { table: 'quote', startTS: '2019.06.25D00:00:00', endTS: '2019.06.26D00:00:00', agg: { n: ['count', 'bid'], s: ['sum', 'bidSize'] }, groupBy: [] };

async function firstRow(s: QueryService, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r: RunResponse = await s.run('getStats', args);
  if (!r.ok) throw new Error(r.header.ai);
  const page = await s.page(r.resultId, 0, 10, 'grid');
  return Object.fromEntries(r.columns.map((c, i) => [c.name, page.rows[0]![i]]));
}

describe('Open database… on the backend', () => {
  const home = tempDir('tickscope-open-');
  const remember = join(home, 'databases.json');
  const db = makeDb({ Trade: csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [['2024.03.06D14:30:00', 'AAPL', '189.5', '100']]) }, 'tick');

  it('mounts a kdb+ folder on every worker, says what it is, closes it, and remembers what is open', async () => {
    const s = await start(db.dir, remember);
    const connections = s.openDatabase({ dir: ADV });
    const embedded = connections.find((c) => c.kind === 'embedded')!;
    expect(embedded.active).toBe(true);
    expect(embedded.databases).toEqual([
      { name: 'tick', dir: db.dir, kind: 'tickscope', readOnly: false, kdbSettings: null, opened: false },
      { name: 'hdb', dir: ADV, kind: 'kdb', readOnly: true, kdbSettings: null, opened: true },
    ]);
    const info = await s.info();
    expect(info.assemblies.map((a) => [a.name, a.kind, a.readOnly])).toEqual([['tick', 'tickscope', false], ['hdb', 'kdb', true]]);
    // both workers answer on it (two queries at once run on the two)
    const [a, b] = await Promise.all([firstRow(s, { ...QUOTE_DAY, scope: { assembly: 'hdb' } }), firstRow(s, { ...QUOTE_DAY, scope: { assembly: 'hdb' } })]);
    expect(a).toEqual({ n: '4832', s: '2436853' });
    expect(b).toEqual(a);
    // another folder of the same name: said, and how to name it otherwise
    expect(() => s.openDatabase({ dir: TORQ })).toThrow(/a database named hdb is mounted already; assemblies are named by folder \(a kdb\+ database's settings may give it another "name"\)/);
    // opening it again only makes the embedded engine active
    expect(s.openDatabase({ dir: ADV }).find((c) => c.kind === 'embedded')!.databases).toHaveLength(2);
    expect(JSON.parse(readFileSync(remember, 'utf8'))).toEqual({ databases: [{ dir: ADV }] });

    // a write aimed at it says why not, and where writes go
    const gen = await s.run('generateOrderAnalytics', { scope: { assembly: 'hdb' }, table: 'quote', dt: '2019.06.25' });
    expect(gen.ok).toBe(false);
    expect(!gen.ok && gen.header.ai).toMatch(/hdb is a kdb\+ database, read in place and never written; write to a Tickscope database mounted beside it/);

    // the databases given at start stay; one opened here closes, on every worker
    expect(() => s.closeDatabase('tick')).toThrow(/was not opened from the app; expected one of hdb/);
    s.closeDatabase('hdb');
    expect((await s.info()).assemblies.map((a) => a.name)).toEqual(['tick']);
    const gone = await s.run('getStats', { ...QUOTE_DAY, scope: { assembly: 'hdb' } });
    expect(!gone.ok && gone.header.ai).toMatch(/"hdb" is not a mounted assembly/);
    expect(JSON.parse(readFileSync(remember, 'utf8'))).toEqual({ databases: [] });
  });

  it('mounts the databases opened last time at the next launch; one that cannot be opened now is said and kept', async () => {
    const s = await start(db.dir, remember);
    s.openDatabase({ dir: ADV });
    const scratch = tempDir('tickscope-gone-');
    const { cpSync } = await import('node:fs');
    cpSync(TORQ, join(scratch, 'torq'), { recursive: true });
    s.openDatabase({ dir: join(scratch, 'torq') });
    await s.close();
    rmSync(join(scratch, 'torq'), { recursive: true });

    const errors: string[] = [];
    const said = console.error;
    console.error = (m: string) => void errors.push(m);
    let next: QueryService;
    try {
      next = await start(db.dir, remember);
    } finally {
      console.error = said;
    }
    expect(next.databases.map((d) => d.name)).toEqual(['tick', 'hdb']);
    expect(errors.join('\n')).toMatch(/the database .*torq opened last time cannot be opened now .*; it stays in the list/);
    expect(await firstRow(next, { ...QUOTE_DAY, scope: { assembly: 'hdb' } })).toEqual({ n: '4832', s: '2436853' });
    expect(JSON.parse(readFileSync(remember, 'utf8')).databases).toHaveLength(2);
    // bad input from the page names what to fix
    expect(() => next.openDatabase({})).toThrow(/dir: the database folder to open is required/);
    expect(() => next.openDatabase({ dir: ADV, path: 'x' })).toThrow(/"path" is not a field/);
    expect(() => next.openDatabase({ dir: join(scratch, 'nothing') })).toThrow(/nothing/);
    expect(existsSync(remember)).toBe(true);
  });
});
