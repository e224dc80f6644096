/**
 * The demo generator, checked on real generated databases re-opened from disk: determinism, every
 * standard table filled, calendar and sessions (across the US DST change), the exchange holiday,
 * reference data and config.json. Market-data consistency is in demo-market.test.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Column, SymbolColumn } from '../../../engine/core/column.js';
import { Table } from '../../../engine/core/table.js';
import { generateDemo, type DemoReport } from '../../../engine/demo/generate.js';
import { isinCheckDigit } from '../../../engine/demo/instruments.js';
import { loadAll } from '../../../engine/storage/append.js';
import { Database } from '../../../engine/storage/database.js';
import { standardSchema } from '../../../engine/storage/schema.js';
import { tempDir } from '../../helpers/db.js';
import { dictStrings } from '../../../engine/core/dict.js';

// Thursday 7 March 2024 .. Monday 11 March: the US moves to summer time on Sunday 10 March, London
// not until 31 March. The demo holiday is the third weekday, Monday 11 March, for XLON.
const OPTS = { seed: 7, days: 3, instruments: 6, tradesPerDay: 5000, startDate: '2024-03-07' } as const;

const utcNs = (y: number, mo: number, d: number, h: number, mi: number): bigint => BigInt(Date.UTC(y, mo - 1, d, h, mi)) * 1_000_000n;

/** Known session bounds in UTC, by exchange region and date. */
const SESSIONS: Record<string, Record<string, readonly [bigint, bigint]>> = {
  US: {
    '2024-03-07': [utcNs(2024, 3, 7, 14, 30), utcNs(2024, 3, 7, 21, 0)],
    '2024-03-08': [utcNs(2024, 3, 8, 14, 30), utcNs(2024, 3, 8, 21, 0)],
    '2024-03-11': [utcNs(2024, 3, 11, 13, 30), utcNs(2024, 3, 11, 20, 0)],
  },
  UK: {
    '2024-03-07': [utcNs(2024, 3, 7, 8, 0), utcNs(2024, 3, 7, 16, 30)],
    '2024-03-08': [utcNs(2024, 3, 8, 8, 0), utcNs(2024, 3, 8, 16, 30)],
  },
};

const sym = (c: Column | undefined): SymbolColumn => {
  if (!c || c.type !== 'symbol') throw new Error('expected a symbol column');
  return c;
};
const symAt = (c: Column | undefined, i: number): string => {
  const s = sym(c);
  return s.dict.get(s.codes[i]!);
};
const stamps = (c: Column | undefined): BigInt64Array => {
  if (!c || c.type !== 'timestamp') throw new Error('expected a timestamp column');
  return c.data;
};

function readTable(db: Database, name: string): Table {
  const t = db.table(name);
  if (t.kind === 'reference') return loadAll(t, db.reference(name)!);
  return Table.concat(
    t.columns,
    db.partitionKeys(name).map((k) => loadAll(t, db.partition(name, k)!)),
  );
}

function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string): void => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

let dirA = '';
let dirB = '';
let dirC = '';
let report: DemoReport;
let db: Database;
/** instrumentID -> exchange MIC, from the Instrument reference table. */
const exchangeOf = new Map<string, string>();

beforeAll(() => {
  dirA = join(tempDir(), 'a');
  dirB = join(tempDir(), 'b');
  dirC = tempDir(); // an existing empty folder is accepted too
  report = generateDemo(dirA, OPTS);
  generateDemo(dirB, OPTS);
  generateDemo(dirC, { ...OPTS, seed: 8 });
  db = Database.open(dirA);
  const inst = readTable(db, 'Instrument');
  for (let i = 0; i < inst.length; i++) exchangeOf.set(symAt(inst.get('instrumentID'), i), symAt(inst.get('exchangeID'), i));
});

describe('demo generator: determinism', () => {
  it('writes byte-identical files for the same options', () => {
    const a = filesOf(dirA);
    const b = filesOf(dirB);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    expect(a.size).toBeGreaterThan(50);
    for (const [path, bytes] of a) expect(bytes.equals(b.get(path)!), path).toBe(true);
  });

  it('writes different market data for a different seed', () => {
    const other = Database.open(dirC);
    const p1 = readTable(db, 'Trade').col('price');
    const p2 = readTable(other, 'Trade').col('price');
    expect(p1.type === 'float' && p2.type === 'float').toBe(true);
    const a = (p1 as { data: Float64Array }).data;
    const b = (p2 as { data: Float64Array }).data;
    let same = a.length === b.length;
    for (let i = 0; same && i < a.length; i++) same = a[i] === b[i];
    expect(same).toBe(false);
    // the reference data does not depend on the seed
    expect(filesOf(join(dirC, 'data', 'Instrument'))).toEqual(filesOf(join(dirA, 'data', 'Instrument')));
  });

  it('refuses a folder that is not empty, leaving it untouched', () => {
    expect(() => generateDemo(dirA, OPTS)).toThrow(/not empty/);
    expect(Database.open(dirA).rowCount('Trade')).toBe(report.rows['Trade']);
  });

  it('rejects bad options with a message naming them', () => {
    expect(() => generateDemo(join(tempDir(), 'x'), { days: 0 })).toThrow(/days/);
    expect(() => generateDemo(join(tempDir(), 'x'), { instruments: 1 })).toThrow(/instruments/);
    expect(() => generateDemo(join(tempDir(), 'x'), { startDate: '2024-13-01' })).toThrow(/startDate/);
  });
});

describe('demo generator: tables', () => {
  it('fills every standard table, with the counts it reports', () => {
    const names = [...standardSchema().tables.keys()];
    expect(Object.keys(report.rows).sort()).toEqual([...names].sort());
    for (const name of names) {
      expect(db.rowCount(name), name).toBeGreaterThan(0);
      expect(db.rowCount(name), name).toBe(report.rows[name]);
    }
    // trades per date are exact: 3 dates x 5000
    expect(report.rows['Trade']).toBe(15000);
    expect(report.rows['Quote']! / report.rows['Trade']!).toBeGreaterThan(0.8);
    expect(report.rows['Quote']! / report.rows['Trade']!).toBeLessThan(1.3);
  });

  it('stores exactly the standard schema', () => {
    const onDisk = JSON.parse(readFileSync(join(dirA, 'schema.json'), 'utf8')) as { tables: Array<{ name: string; columns: unknown }> };
    for (const t of standardSchema().tables.values()) {
      expect(onDisk.tables.find((x) => x.name === t.name)?.columns).toEqual(t.columns.map((c) => ({ name: c.name, type: c.type })));
    }
  });

  it('has instruments on at least two exchanges in different time zones, with valid reference data', () => {
    const inst = readTable(db, 'Instrument');
    expect(report.instruments).toEqual([...exchangeOf.keys()]);
    const mics = new Set(exchangeOf.values());
    expect(mics.has('XLON')).toBe(true);
    expect(mics.has('XNAS') || mics.has('XNYS')).toBe(true);
    // the real ISIN of Apple checks the check-digit rule itself
    expect(isinCheckDigit('US037833100')).toBe(5);
    for (let i = 0; i < inst.length; i++) {
      const id = symAt(inst.get('instrumentID'), i);
      const isin = symAt(inst.get('ISIN'), i);
      const mic = symAt(inst.get('MIC'), i);
      expect(isin).toMatch(/^[A-Z]{2}[A-Z0-9]{9}[0-9]$/);
      expect(Number(isin[11]), isin).toBe(luhnIsinDigit(isin.slice(0, 11)));
      expect(isin.slice(0, 2)).toBe(mic === 'XLON' ? 'GB' : 'US');
      expect(symAt(inst.get('currency'), i)).toBe(mic === 'XLON' ? 'GBP' : 'USD');
      expect(symAt(inst.get('exchangeID'), i)).toBe(mic);
      expect(id).toMatch(/^[A-Z]+$/);
      const lot = (inst.col('lotSize') as { data: Float64Array }).data[i]!;
      const tick = (inst.col('tickSize') as { data: Float64Array }).data[i]!;
      expect(lot).toBeGreaterThanOrEqual(1);
      expect(tick).toBeGreaterThan(0);
      expect(Number.isInteger(Math.round(1 / tick))).toBe(true);
      expect(symAt(inst.get('sector'), i)).not.toBe('');
    }
    expect((inst.col('instrumentName') as { values: readonly string[] }).values).toContain('Apple Inc.');
  });

  it('writes idMap (RIC and Bloomberg names for every instrument) and the regularTrades filter rule', () => {
    const config = JSON.parse(readFileSync(join(dirA, 'config.json'), 'utf8')) as {
      idMap: Record<string, string>;
      filterRules: Record<string, { column: string; exclude: string[] }>;
    };
    expect(config.idMap['AAPL.OQ']).toBe('AAPL');
    expect(config.idMap['AAPL US Equity']).toBe('AAPL');
    expect(config.idMap['VOD.L']).toBe('VOD');
    expect(config.idMap['VOD LN Equity']).toBe('VOD');
    for (const [id, mic] of exchangeOf) {
      const ric = `${id}.${mic === 'XLON' ? 'L' : mic === 'XNAS' ? 'OQ' : 'N'}`;
      expect(config.idMap[ric], ric).toBe(id);
      expect(config.idMap[`${id} ${mic === 'XLON' ? 'LN' : 'US'} Equity`]).toBe(id);
    }
    const rule = config.filterRules['regularTrades']!;
    expect(rule.column).toBe('conditions');
    const conditions = sym(readTable(db, 'Trade').get('conditions'));
    const used = new Set(dictStrings(conditions.dict));
    // the rule drops codes that really occur, and keeps the regular ones
    expect(rule.exclude.filter((c) => used.has(c)).length).toBeGreaterThanOrEqual(3);
    for (const regular of ['@', 'AT']) {
      expect(used.has(regular)).toBe(true);
      expect(rule.exclude).not.toContain(regular);
    }
    // the config the database loads is valid
    expect(Database.open(dirA).config.filterRules['regularTrades']?.exclude).toEqual(rule.exclude);
  });
});

describe('demo generator: calendar and sessions', () => {
  it('covers the weekdays only, with a weekday XLON holiday inside the range', () => {
    expect(report.dates).toEqual(['2024-03-07', '2024-03-08', '2024-03-11']);
    expect(report.holiday).toEqual({ exchangeID: 'XLON', date: '2024-03-11' });
    for (const name of ['Trade', 'Quote', 'OrderbookSnapshots', 'OrderbookUpdates', 'Order', 'OrderAnalytics']) {
      expect(db.partitionKeys(name), name).toEqual(report.dates);
    }
    for (const key of db.partitionKeys('TradeCanCor')) expect(report.dates).toContain(key);
  });

  it('lists the demo holiday and real exchange holidays of the year', () => {
    const cal = readTable(db, 'ExchangeHolidayCal');
    const rows = new Set<string>();
    const dates = (cal.col('date') as { data: Int32Array }).data;
    const desc = (cal.col('description') as { values: readonly string[] }).values;
    for (let i = 0; i < cal.length; i++) {
      const day = new Date(dates[i]! * 86_400_000).toISOString().slice(0, 10);
      rows.add(`${symAt(cal.get('exchangeID'), i)} ${day} ${desc[i]}`);
    }
    expect(rows).toContain('XLON 2024-03-11 Demo exchange holiday');
    // Good Friday 2024 closes both markets; Easter Monday only London; 4 July only New York
    for (const r of ['XLON 2024-03-29 Good Friday', 'XNYS 2024-03-29 Good Friday', 'XNAS 2024-03-29 Good Friday',
      'XLON 2024-04-01 Easter Monday', 'XNYS 2024-07-04 Independence Day', 'XLON 2024-12-26 Boxing Day',
      'XNYS 2024-11-28 Thanksgiving Day', 'XLON 2024-05-06 Early May Bank Holiday']) {
      expect(rows, r).toContain(r);
    }
    expect([...rows].some((r) => r.startsWith('XLON 2024-07-04'))).toBe(false);
  });

  it('has no XLON data on the holiday in any table, and London data on the other dates', () => {
    for (const name of ['Trade', 'Quote', 'OrderbookSnapshots', 'OrderbookUpdates', 'TradeCanCor', 'Order', 'OrderAnalytics']) {
      const t = db.table(name);
      for (const key of db.partitionKeys(name)) {
        const ids = [...db.partition(name, key)!.idRanges.keys()];
        const london = ids.filter((id) => exchangeOf.get(id) === 'XLON');
        if (key === '2024-03-11') expect(london, `${name} ${key}`).toEqual([]);
        else if (name !== 'TradeCanCor') expect(london.length, `${name} ${key}`).toBeGreaterThan(0);
        for (const id of ids) expect(exchangeOf.has(id), `${t.name}: ${id} in Instrument`).toBe(true);
      }
    }
  });

  it('keeps every timestamp inside its exchange session, in the exchange zone (DST included)', () => {
    const checks: Array<[string, string[]]> = [
      ['Trade', ['eventTimestamp', 'exchTime']],
      ['Quote', ['eventTimestamp', 'exchTime']],
      ['OrderbookSnapshots', ['eventTimestamp']],
      ['OrderbookUpdates', ['eventTimestamp']],
      ['TradeCanCor', ['eventTimestamp']],
      ['Order', ['eventTimestamp']],
      ['OrderAnalytics', ['strikeTime', 'orderCompletedTime']],
    ];
    let checked = 0;
    for (const [name, cols] of checks) {
      for (const key of db.partitionKeys(name)) {
        const p = db.partition(name, key)!;
        for (const [id, [start, end]] of p.idRanges) {
          const [open, close] = SESSIONS[exchangeOf.get(id) === 'XLON' ? 'UK' : 'US']![key]!;
          for (const c of cols) {
            const ts = stamps(p.column(c));
            for (let i = start; i < end; i++) {
              const t = ts[i]!;
              if (t === -9223372036854775808n && c !== 'eventTimestamp' && c !== 'strikeTime') continue;
              if (t < open || t > close) throw new Error(`${name}.${c} ${id} ${key}: ${t} outside [${open}, ${close}]`);
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100_000);
  });

  it('opens every instrument of an exchange with a trade and a quote at exactly the session open', () => {
    for (const key of report.dates) {
      const p = db.partition('Trade', key)!;
      const q = db.partition('Quote', key)!;
      const seen = new Set<string>();
      for (const [id, [start]] of p.idRanges) {
        const open = SESSIONS[exchangeOf.get(id) === 'XLON' ? 'UK' : 'US']![key]![0];
        expect(stamps(p.column('eventTimestamp'))[start], `${id} ${key}`).toBe(open);
        expect(stamps(p.column('exchTime'))[start]).toBe(open);
        expect(stamps(q.column('eventTimestamp'))[q.idRanges.get(id)![0]]).toBe(open);
        seen.add(exchangeOf.get(id)!);
      }
      expect(seen.size).toBeGreaterThanOrEqual(key === '2024-03-11' ? 1 : 2);
    }
  });
});

describe('demo generator: defaults', () => {
  it('starts on 2024-03-06 with the XLON holiday on 2024-03-08, across the DST change', () => {
    const r = generateDemo(join(tempDir(), 'd'), { days: 5, instruments: 2, tradesPerDay: 400 });
    expect(r.dates).toEqual(['2024-03-06', '2024-03-07', '2024-03-08', '2024-03-11', '2024-03-12']);
    expect(r.holiday).toEqual({ exchangeID: 'XLON', date: '2024-03-08' });
    expect(r.instruments.length).toBe(2);
    expect(r.rows['Trade']).toBe(2000);
  });

  it('never puts the demo holiday on a real one, and skips dates when every exchange is closed', () => {
    // 23-31 Dec 2024: Christmas closes both markets, Boxing Day London; the third open weekday is the 27th
    const dir = join(tempDir(), 'x');
    const r = generateDemo(dir, { startDate: '2024-12-23', days: 6, instruments: 2, tradesPerDay: 200 });
    expect(r.holiday).toEqual({ exchangeID: 'XLON', date: '2024-12-27' });
    expect(r.dates).toEqual(['2024-12-23', '2024-12-24', '2024-12-25', '2024-12-26', '2024-12-27', '2024-12-30']);
    const x = Database.open(dir);
    expect(x.partitionKeys('Trade')).toEqual(['2024-12-23', '2024-12-24', '2024-12-26', '2024-12-27', '2024-12-30']);
    const london = (key: string): number => [...x.partition('Quote', key)!.idRanges.keys()].filter((id) => id === 'VOD').length;
    expect(['2024-12-26', '2024-12-27'].map(london)).toEqual([0, 0]);
    expect(london('2024-12-30')).toBe(1);
  });
});

/** ISIN check digit, written independently of the generator: Luhn over letters expanded to numbers. */
function luhnIsinDigit(prefix: string): number {
  const digits = [...prefix].map((ch) => (/[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch)).join('');
  const rev = [...digits].reverse().map(Number);
  const sum = rev.reduce((s, d, i) => {
    if (i % 2 === 1) return s + d;
    const x = d * 2;
    return s + Math.floor(x / 10) + (x % 10);
  }, 0);
  return (10 - (sum % 10)) % 10;
}
