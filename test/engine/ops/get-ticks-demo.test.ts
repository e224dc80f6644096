/**
 * getTicks on generated data: each feature checked against a direct computation from the raw rows of
 * a demo database.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { payloadRows, tempDir } from '../../helpers/db.js';

const dir = join(tempDir(), 'demo');
const report = generateDemo(dir, { days: 3, instruments: 6, tradesPerDay: 6000, seed: 11 });
const engine = Engine.open([dir]);
type Row = Record<string, unknown>;
const get = (args: Record<string, unknown>): Row[] => payloadRows(engine, 'getTicks', args);
const day = report.dates[0]!.replace(/-/g, '.');

describe('getTicks on the demo database', () => {
  it('slice: every row is inside the slice of its own local date', () => {
    const got = get({ table: 'Trade', temporality: 'slice', slice: ['10:00', '10:30'], inputTZ: 'America/New_York', outputTZ: 'America/New_York', columns: ['instrumentID'] });
    expect(got.length).toBeGreaterThan(100);
    for (const r of got) expect((r['eventTimestamp'] as string).slice(11, 16) >= '10:00' && (r['eventTimestamp'] as string).slice(11, 16) < '10:30').toBe(true);
    // The same rows as reading each date's half hour on its own.
    let total = 0;
    for (const d of report.dates) {
      const k = d.replace(/-/g, '.');
      total += get({ table: 'Trade', startTS: `${k}D10:00`, endTS: `${k}D10:30`, inputTZ: 'America/New_York', columns: ['instrumentID'] }).length;
    }
    expect(got.length).toBe(total);
  });

  it('applyCanCor: cancelled executions are gone, corrected ones carry the latest correction', () => {
    const cancor = get({ table: 'TradeCanCor' });
    const cancelled = new Set(cancor.filter((r) => r['action'] === 'cancel').map((r) => r['executionID']));
    const latest = new Map<unknown, Row>();
    for (const r of [...cancor].sort((a, b) => String(a['eventTimestamp']).localeCompare(String(b['eventTimestamp'])))) {
      if (r['action'] === 'correct' && r['price'] !== null) latest.set(r['executionID'], r);
    }
    expect(cancelled.size).toBeGreaterThan(0);
    expect(latest.size).toBeGreaterThan(0);
    const raw = get({ table: 'Trade', columns: ['executionID', 'price'] });
    const applied = get({ table: 'Trade', columns: ['executionID', 'price'], applyCanCor: true });
    expect(applied.length).toBe(raw.length - raw.filter((r) => cancelled.has(r['executionID'])).length);
    for (const r of applied) {
      expect(cancelled.has(r['executionID'])).toBe(false);
      const c = latest.get(r['executionID']);
      if (c) expect(r['price']).toBe(c['price']);
    }
  });

  it('idMapping: RIC and Bloomberg names give the stored identifier\'s rows', () => {
    const args = { table: 'Trade', startTS: day, endTS: `${day}D23:59`, columns: ['price'] };
    const direct = get({ ...args, idList: ['AAPL'] });
    expect(direct.length).toBeGreaterThan(0);
    expect(get({ ...args, idList: ['AAPL.OQ'], idMapping: '1b' })).toEqual(direct);
    expect(get({ ...args, idList: ['AAPL US Equity'], idMapping: '1b' })).toEqual(direct);
  });

  it('filterRule regularTrades: the rule\'s codes are gone, everything else stays', () => {
    const raw = get({ table: 'Trade', columns: ['conditions'] });
    const regular = get({ table: 'Trade', columns: ['conditions'], filterRule: 'regularTrades' });
    const excluded = new Set(['O', '6', '4', 'Z', 'UT', 'NT']);
    expect(regular.some((r) => excluded.has(r['conditions'] as string))).toBe(false);
    expect(regular.length).toBe(raw.filter((r) => !excluded.has(r['conditions'] as string)).length);
    expect(regular.length).toBeLessThan(raw.length);
  });

  it('timeCol exchTime: rows by exchange time, in its order', () => {
    const got = get({ table: 'Trade', timeCol: 'exchTime', startTS: `${day}D15:00`, endTS: `${day}D15:05`, columns: ['exchTime'] });
    expect(got.length).toBeGreaterThan(0);
    const times = got.map((r) => r['exchTime'] as string);
    for (const t of times) expect(t >= `${report.dates[0]}T15:00` && t < `${report.dates[0]}T15:05`).toBe(true);
    expect(times).toEqual([...times].sort());
  });

  it('plotOrderbookSnapshots: the last snapshot of each instrument, best levels first in the lists', () => {
    const end = `${day}D15:00`;
    const got = get({ table: 'OrderbookSnapshots', orderbook: 'plotOrderbookSnapshots', startTS: day, endTS: end });
    const all = get({ table: 'OrderbookSnapshots', startTS: day, endTS: end, columns: ['instrumentID'] });
    const last = new Map(all.map((r) => [r['instrumentID'], r['eventTimestamp']]));
    expect(got.length).toBe(last.size);
    for (const r of got) {
      expect(r['eventTimestamp']).toBe(last.get(r['instrumentID']));
      const bids = r['bidPrice'] as number[];
      const asks = r['askPrice'] as number[];
      expect([r['bestBid'], r['bestAsk']]).toEqual([bids[0], asks[0]]);
      expect(r['spread'] as number).toBeGreaterThan(0);
      expect(r['midPoint']).toBeCloseTo(((r['bestBid'] as number) + (r['bestAsk'] as number)) / 2, 9);
    }
  });

  it('ref and refFilter against the Instrument table', () => {
    const instruments = new Map(get({ table: 'Instrument' }).map((r) => [r['instrumentID'], r]));
    const joined = get({ table: 'Trade', startTS: day, endTS: `${day}D23:59`, ref: ['Instrument'], columns: ['instrumentID'] });
    for (const r of joined) expect(r['instrumentName']).toBe(instruments.get(r['instrumentID'])!['instrumentName']);
    const london = get({ table: 'Trade', startTS: day, endTS: `${day}D23:59`, refFilter: { Instrument: [['=', 'exchangeID', 'XLON']] }, columns: ['instrumentID'] });
    const londonIds = [...instruments.values()].filter((r) => r['exchangeID'] === 'XLON').map((r) => r['instrumentID']);
    expect(new Set(london.map((r) => r['instrumentID']))).toEqual(new Set(londonIds));
  });

  it('filter: the list, string and q forms select the same rows', () => {
    const base = { table: 'Trade', startTS: day, endTS: `${day}D23:59`, columns: ['instrumentID', 'volume', 'conditions'] };
    const list = get({ ...base, filter: [['in', 'instrumentID', ['AAPL', 'MSFT']], ['>=', 'volume', '500'], ['<>', 'conditions', 'O']] });
    expect(list.length).toBeGreaterThan(10);
    expect(get({ ...base, filter: 'instrumentID=AAPL|MSFT;volume>=500;conditions<>O' })).toEqual(list);
    expect(get({ ...base, filter: '((in;`instrumentID;`AAPL`MSFT);(>=;`volume;500);(<>;`conditions;enlist `O))' })).toEqual(list);
  });
});

describe('time zones on the demo, across the US DST change', () => {
  const dstDir = join(tempDir(), 'dst');
  generateDemo(dstDir, { days: 4, instruments: 3, tradesPerDay: 3000, seed: 5, startDate: '2024-03-07' });
  const dst = Engine.open([dstDir]);
  it('opens the New York session at 09:30 local before and after the change', () => {
    // 2024-03-08 is EST (14:30 UTC); 2024-03-11 is EDT (13:30 UTC).
    for (const [d, utc] of [['2024.03.08', '14:30'], ['2024.03.11', '13:30']] as const) {
      const local = payloadRows(dst, 'getTicks', { table: 'Trade', idList: ['AAPL'], startTS: `${d}D09:30`, endTS: `${d}D09:31`, inputTZ: 'America/New_York', outputTZ: 'America/New_York', columns: ['price'] });
      expect(local[0]!['eventTimestamp']).toBe(`${d.replace(/\./g, '-')}T09:30:00.000000000`);
      const inUtc = payloadRows(dst, 'getTicks', { table: 'Trade', idList: ['AAPL'], startTS: `${d}D09:30`, endTS: `${d}D09:31`, inputTZ: 'America/New_York', columns: ['price'] });
      expect((inUtc[0]!['eventTimestamp'] as string).slice(11, 16)).toBe(utc);
    }
  });
});
