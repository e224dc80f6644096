/**
 * `tickscope` on the kdb+ databases q wrote (test/fixtures/kdb-*): a real process reading them in
 * place. The numbers asserted are the fixtures' READMEs' (decoded outside this project).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csv, makeDb, tempDir } from '../helpers/db.js';

const CLI = join(process.cwd(), 'bin', 'tickscope.cjs');
const ADV = join(process.cwd(), 'test/fixtures/kdb-advancedkdb/hdb');
const TORQ = join(process.cwd(), 'test/fixtures/kdb-torq-hdb/hdb');

function tickscope(args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { maxBuffer: 1 << 26, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

function payload(args: string[]): Array<Record<string, unknown>> {
  const r = tickscope(args);
  const env = JSON.parse(r.out) as { header: { rc: number; ai: string }; payload: Array<Record<string, unknown>> | null };
  expect(env.header.ai).toBe('');
  expect(r.code).toBe(0);
  return env.payload!;
}

describe('tickscope on a kdb+ database', () => {
  it('answers getTicks and getStats on both fixtures with the values their READMEs give', () => {
    const perDay = payload([
      'call', '--db', ADV, 'getStats',
      JSON.stringify({ table: 'quote', startTS: '2019.06.24D00:00:00', endTS: '2019.06.26D00:00:00', agg: { n: ['count', 'bid'], sb: ['sum', 'bidSize'], s: ['sum', 'bid'], lo: ['min', 'time'], hi: ['max', 'time'] }, groupBy: ['date'] }),
    ]);
    expect(perDay.map((r) => [r['date'], r['n'], r['sb'], Number((r['s'] as number).toFixed(6)), r['lo'], r['hi']])).toEqual([
      ['2019-06-24', 94, 45842, 17159.788198, '2019-06-24T20:41:07.256366000', '2019-06-24T21:25:08.473157000'],
      ['2019-06-25', 4832, 2436853, 863109.24702, '2019-06-25T20:11:01.932870000', '2019-06-25T21:16:22.794100000'],
    ]);
    const trade = payload([
      'call', '--db', TORQ, 'getStats',
      JSON.stringify({ table: 'trade', startTS: '2015.01.07D00:00:00', endTS: '2015.01.08D00:00:00', agg: { n: ['count', 'price'], lo: ['min', 'time'], hi: ['max', 'time'] }, groupBy: [] }),
    ]);
    expect(trade).toEqual([{ n: 196519, lo: '2015-01-07T00:00:00.638306000', hi: '2015-01-07T10:55:20.438169000' }]);
    // getTicks: one sym's rows (p#: contiguous) with the virtual date column first, as q's select shows them
    const ibm = tickscope(['call', '--db', TORQ, '--format', 'csv', 'getTicks', JSON.stringify({ table: 'trade', startTS: '2015.01.07D00:00:00', endTS: '2015.01.08D00:00:00', idList: 'IBM' })]);
    expect(ibm.code).toBe(0);
    const lines = ibm.out.trimEnd().split('\n');
    expect(lines[0]).toBe('date,time,sym,price,size,stop,cond,ex');
    expect(lines.length).toBeGreaterThan(1000);
    expect(lines.slice(1).every((l) => l.startsWith('2015-01-07,2015-01-07T') && l.split(',')[2] === 'IBM')).toBe(true);
  });

  it('refuses writes naming the database, and a settings file given to no kdb+ database', () => {
    const imp = tickscope(['import', '--db', TORQ, '--table', 'trade', '--file', '/dev/null']);
    expect(imp.code).toBe(1);
    expect(imp.err).toContain(`${TORQ} is a kdb+ database, read in place and never written; write to a Tickscope database mounted beside it`);
    const mig = tickscope(['migrate', '--db', TORQ]);
    expect(mig.err).toContain('is a kdb+ database, read in place and never written');
    const gen = JSON.parse(tickscope(['call', '--db', TORQ, 'generateOrderAnalytics', JSON.stringify({ table: 'trade', dt: '2015.01.07' })]).out) as { header: { ai: string } };
    // the assembly is named by its folder (hdb)
    expect(gen.header.ai).toBe('generateOrderAnalytics: hdb is a kdb+ database, read in place and never written; write to a Tickscope database mounted beside it (another --db, another assembly)');
    const early = tickscope(['call', '--kdb-settings', 'x.json', '--db', TORQ, 'getTicks', '{}']);
    expect(early.code).toBe(1);
    expect(early.out + early.err).toContain('--kdb-settings x.json: give it after the --db DIR of the kdb+ database it is for');
  });

  it('mounts a kdb+ database with its settings beside a Tickscope one (--kdb-settings after its --db)', () => {
    const dir = tempDir('tickscope-kdbcli-');
    const db = makeDb({ Trade: csv(['eventTimestamp', 'instrumentID', 'price', 'volume'], [['2015.01.07D10:00:00', 'IBM', '150', '10']]) }, 'tick');
    const settings = join(dir, 'torq.json');
    writeFileSync(settings, JSON.stringify({ name: 'torq', tables: { trade: 'TorqTrade' }, roles: { trades: 'TorqTrade', columns: { TorqTrade: { price: 'price', size: 'size' } } } }));
    const r = payload([
      'call', '--db', db.dir, '--db', TORQ, '--kdb-settings', settings, 'getStats',
      JSON.stringify({ scope: { assembly: 'torq' }, table: 'TorqTrade', startTS: '2015.01.07D00:00:00', endTS: '2015.01.08D00:00:00', analytics: ['tradeCount'], groupBy: [] }),
    ]);
    expect(r).toEqual([{ tradeCount: 196519 }]);
    const both = tickscope(['info', '--db', db.dir, '--db', TORQ, '--kdb-settings', settings, '--format', 'json']);
    expect(both.code).toBe(0);
    const reports = JSON.parse(both.out) as Array<{ name: string; kind: string; settings?: string; tables: Array<{ name: string; rows: number }> }>;
    expect(reports.map((x) => [x.name, x.kind])).toEqual([['tick', 'tickscope'], ['torq', 'kdb']]);
    expect(reports[1]!.settings).toBe(settings);
    expect(reports[1]!.tables.find((t) => t.name === 'TorqTrade')!.rows).toBe(196519);
  });

  it('info describes a kdb+ database: rows per partition, q types, compression, attributes, roles', () => {
    const r = tickscope(['info', '--db', ADV]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('hdb: a kdb+ database, read in place (read-only)');
    expect(r.out).toContain('quotes   quote (bid=bid, ask=ask, bidSize=bidSize, askSize=askSize, exchange=exchange)');
    expect(r.out).toContain('rows: 2019-06-24 94 · 2019-06-25 4,832');
    expect(r.out).toMatch(/sym +symbol +enum sym \(64-bit\) +none +p#/);
    expect(r.out).toMatch(/bid +float +float +zlib \(level 6\)/);
    const bad = tickscope(['info', '--db', join(ADV, '2019.06.24', 'quote', 'bid')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/is neither a Tickscope database .* nor a kdb\+ database/);
  });
});
