/**
 * Damaged files are errors naming them (ac 31), never wrong rows: a cut time order, a cut dictionary,
 * cut dictionary offsets, a flipped byte of a column; with checksums (folders written now) and by the
 * structural checks alone (folders an older release wrote, without checksums). The rest of the
 * database keeps answering, and writes still land. tickscope verify lists each damaged file.
 */
import { cpSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import type { Table } from '../../../engine/core/table.js';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { Database } from '../../../engine/storage/database.js';
import { importFile } from '../../../engine/storage/import.js';
import { verifyDatabase } from '../../../engine/storage/verify.js';
import { csv, tempDir } from '../../helpers/db.js';

const DAY = '2024-03-06';
const FULL_DAY = { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07' };
const HOUR = { table: 'Trade', startTS: '2024.03.06D14:00', endTS: '2024.03.06D15:00' };
let pristine = '';
let older = '';
let expected: { fullDay: number; hour: number; quotes: number };

/** A copy of a database to damage. */
function copyOf(dir: string): string {
  const to = join(tempDir(), 'db');
  cpSync(dir, to, { recursive: true });
  return to;
}

const tradeDir = (db: string): string => join(db, 'data', 'Trade', readdirSync(join(db, 'data', 'Trade')).find((f) => f.startsWith(DAY))!);

function call(db: string, args: object, op = 'getTicks'): Table {
  return new Engine([Database.open(db)]).call(op, args).table;
}

function failure(fn: () => unknown): TickscopeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TickscopeError) return e;
    throw e;
  }
  throw new Error('expected an error, got an answer');
}

/** The database answers everything else right and takes a write after the damage was found. */
function stillServes(db: string): void {
  expect(call(db, { table: 'Quote', startTS: '2024.03.06', endTS: '2024.03.07' }).length).toBe(expected.quotes);
  const file = join(tempDir(), 'quote.csv');
  writeFileSync(file, csv(['eventTimestamp', 'instrumentID', 'bidPrice'], [['2024-03-08T12:00:00Z', 'NEW', '1.5']]));
  importFile(Database.open(db), 'Quote', file);
  const q = call(db, { table: 'Quote', startTS: '2024.03.08', endTS: '2024.03.09', columns: ['bidPrice'] });
  expect(Array.from((q.col('bidPrice') as { data: Float64Array }).data)).toEqual([1.5]);
}

beforeAll(() => {
  pristine = join(tempDir(), 'demo');
  generateDemo(pristine, { seed: 3, days: 1, instruments: 6, tradesPerDay: 20_000 });
  expected = { fullDay: call(pristine, FULL_DAY).length, hour: call(pristine, HOUR).length, quotes: call(pristine, { table: 'Quote', startTS: '2024.03.06', endTS: '2024.03.07' }).length };
  // the same database as an older release wrote it: no checksums
  older = copyOf(pristine);
  for (const table of readdirSync(join(older, 'data'))) {
    for (const f of readdirSync(join(older, 'data', table))) {
      const dir = join(older, 'data', table, f);
      rmSync(join(dir, '_sums.crc32'));
      const meta = JSON.parse(readFileSync(join(dir, '_meta.json'), 'utf8')) as Record<string, unknown>;
      delete meta['checksums'];
      writeFileSync(join(dir, '_meta.json'), JSON.stringify(meta));
    }
  }
}, 120_000);

const cases: ReadonlyArray<{ name: string; file: string; damage: (path: string) => void; checksumsOnly?: boolean }> = [
  { name: 'a time order cut to 100 bytes', file: '_order.i32', damage: (p) => truncateSync(p, 100) },
  { name: 'a symbol dictionary cut short', file: 'instrumentID.dict.utf8', damage: (p) => truncateSync(p, readFileSync(p).length - 5) },
  { name: 'first-use dictionary offsets cut short', file: 'executionID.dict.offsets.i32', damage: (p) => truncateSync(p, 1000) },
  {
    name: 'a flipped byte in a column',
    file: 'price.f64',
    checksumsOnly: true, // a float's bits have no structure to check
    damage: (p) => {
      const b = readFileSync(p);
      b[12_345] = b[12_345]! ^ 0x40;
      writeFileSync(p, b);
    },
  },
];

describe('damaged files', () => {
  it('a database without checksums (an older release wrote it) reads as before', () => {
    expect(call(older, FULL_DAY).length).toBe(expected.fullDay);
    expect(call(older, HOUR).length).toBe(expected.hour);
    expect(verifyDatabase(older)).toMatchObject({ damaged: [], withoutChecksums: 9 });
    expect(verifyDatabase(pristine)).toMatchObject({ damaged: [], withoutChecksums: 0 });
  });

  for (const kind of ['with checksums', 'without checksums'] as const) {
    describe(kind, () => {
      for (const c of cases) {
        if (kind === 'without checksums' && c.checksumsOnly) continue;
        it(`${c.name}: ac 31 naming the file, for a full day and for an hour; the rest answers and writes land`, () => {
          const db = copyOf(kind === 'with checksums' ? pristine : older);
          const path = join(tradeDir(db), c.file);
          c.damage(path);
          for (const args of [FULL_DAY, HOUR]) {
            const e = failure(() => call(db, args));
            expect(e.ac).toBe(31);
            // named: the file itself, or (structure alone) the dictionary file it disagrees with
            expect(e.message).toContain(kind === 'with checksums' ? path : c.file.split('.')[0]!);
            expect(e.message).toMatch(/damaged/);
          }
          stillServes(db);
          const found = verifyDatabase(db).damaged;
          expect(found.length).toBeGreaterThan(0);
          expect(found.map((d) => d.path).some((p) => p.startsWith(join(tradeDir(db), c.file.split('.')[0]!)))).toBe(true);
        });
      }
    });
  }

  it('verify lists each damaged file once, with what is wrong', () => {
    const db = copyOf(pristine);
    for (const c of cases) c.damage(join(tradeDir(db), c.file));
    const r = verifyDatabase(db);
    expect(r.damaged.map((d) => d.path).sort()).toEqual(cases.map((c) => join(tradeDir(db), c.file)).sort());
    for (const d of r.damaged) expect(d.problem).toMatch(/written with|checksum mismatch/);
  });
});
