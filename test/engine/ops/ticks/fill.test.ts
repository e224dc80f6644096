/** getTicks fill (SPEC 4): per identifier in time order, no rows added, no extrapolation. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDemo } from '../../../../engine/demo/generate.js';
import { Engine } from '../../../../engine/engine.js';
import { csv, makeEngine, payloadRows, tempDir } from '../../../helpers/db.js';

// AAPL at 0, 2, 6, 10, 12 s; MSFT at 1, 11, 13 s. Nulls: leading (MSFT bid), inner, trailing (AAPL bid).
const QUOTES = csv(['eventTimestamp', 'instrumentID', 'exchTime', 'bidPrice', 'bidSize', 'exchangeID'], [
  ['2024.03.06D10:00:00', 'AAPL', '2024.03.06D09:59:59.9', '100', '10', 'XNAS'],
  ['2024.03.06D10:00:01', 'MSFT', '', '', '5', ''],
  ['2024.03.06D10:00:02', 'AAPL', '', '', '', ''],
  ['2024.03.06D10:00:06', 'AAPL', '', '', '21', ''],
  ['2024.03.06D10:00:10', 'AAPL', '', '110', '', 'XNYS'],
  ['2024.03.06D10:00:11', 'MSFT', '2024.03.06D10:00:10.5', '400', '', 'XNAS'],
  ['2024.03.06D10:00:12', 'AAPL', '', '', '30', ''],
  ['2024.03.06D10:00:13', 'MSFT', '', '402', '7', ''],
]);
const engine = makeEngine({ Quote: QUOTES });
const quotes = (fill?: string, extra: Record<string, unknown> = {}): Array<Record<string, unknown>> =>
  payloadRows(engine, 'getTicks', { table: 'Quote', columns: ['instrumentID', 'exchTime', 'bidPrice', 'bidSize', 'exchangeID'], ...(fill ? { fill } : {}), ...extra });
const col = (rows: Array<Record<string, unknown>>, name: string): unknown[] => rows.map((r) => r[name]);

describe('getTicks fill', () => {
  it('leaves nulls alone without fill and with fill null', () => {
    expect(col(quotes(), 'bidPrice')).toEqual([100, null, null, null, 110, 400, null, 402]);
    expect(quotes('null')).toEqual(quotes());
  });

  it('zero: numeric nulls become 0, other types stay', () => {
    const rows = quotes('zero');
    expect(col(rows, 'bidPrice')).toEqual([100, 0, 0, 0, 110, 400, 0, 402]);
    expect(col(rows, 'bidSize')).toEqual([10, 5, 0, 21, 0, 0, 30, 7]);
    expect(col(rows, 'exchangeID')).toEqual(['XNAS', '', '', '', 'XNYS', 'XNAS', '', '']);
  });

  it('forward: the previous non-null value of the same identifier; leading nulls stay', () => {
    const rows = quotes('forward');
    expect(col(rows, 'instrumentID')).toEqual(['AAPL', 'MSFT', 'AAPL', 'AAPL', 'AAPL', 'MSFT', 'AAPL', 'MSFT']);
    expect(col(rows, 'bidPrice')).toEqual([100, null, 100, 100, 110, 400, 110, 402]);
    expect(col(rows, 'bidSize')).toEqual([10, 5, 10, 21, 21, 5, 30, 7]);
    expect(col(rows, 'exchangeID')).toEqual(['XNAS', '', 'XNAS', 'XNAS', 'XNYS', 'XNAS', 'XNYS', 'XNAS']);
    expect(col(rows, 'exchTime')).toEqual([
      '2024-03-06T09:59:59.900000000', null, '2024-03-06T09:59:59.900000000', '2024-03-06T09:59:59.900000000',
      '2024-03-06T09:59:59.900000000', '2024-03-06T10:00:10.500000000', '2024-03-06T09:59:59.900000000', '2024-03-06T10:00:10.500000000',
    ]);
  });

  it('forward fill writes into its own result only: stored columns, the cache and earlier results keep their nulls', () => {
    const before = quotes();
    const earlier = engine.call('getTicks', { table: 'Quote', columns: ['bidPrice', 'bidSize', 'exchTime', 'exchangeID'] });
    for (const extra of [{}, { idList: ['AAPL'] }, { startTS: '2024.03.06', endTS: '2024.03.07' }]) quotes('forward', extra);
    expect(quotes()).toEqual(before);
    expect(earlier.table.get('bidPrice')!.type === 'float' && Array.from((earlier.table.get('bidPrice') as { data: Float64Array }).data).filter((x) => x !== x)).toHaveLength(4);
  });

  it('linear: interpolated on time between neighbours, longs rounded, no extrapolation, others forward', () => {
    const rows = quotes('linear');
    // AAPL bid 100 @0s .. 110 @10s: 102 @2s, 106 @6s; 12s is after the last value: stays null.
    expect(col(rows, 'bidPrice')).toEqual([100, null, 102, 106, 110, 400, null, 402]);
    // AAPL size 10 @0 .. 21 @6: 13.67 @2 -> 14; 21 @6 .. 30 @12: 27 @10. MSFT 5 @1 .. 7 @13: 6.67 @11 -> 7.
    expect(col(rows, 'bidSize')).toEqual([10, 5, 14, 21, 27, 7, 30, 7]);
    expect(col(rows, 'exchangeID')).toEqual(col(quotes('forward'), 'exchangeID'));
  });

  it('linearStep: interpolated on position', () => {
    const rows = quotes('linearStep');
    const bid = col(rows, 'bidPrice') as Array<number | null>;
    expect(bid[2]).toBeCloseTo(103.3333333, 6);
    expect(bid[3]).toBeCloseTo(106.6666667, 6);
    expect([bid[0], bid[1], bid[4], bid[6]]).toEqual([100, null, 110, null]);
    // 10 .. 21 over two steps: 15.5 -> 16; 21 .. 30: 25.5 -> 26; MSFT 5 .. 7: 6.
    expect(col(rows, 'bidSize')).toEqual([10, 5, 16, 21, 26, 6, 30, 7]);
  });

  it('groups by identifier even when the identifier column is not returned', () => {
    const rows = payloadRows(engine, 'getTicks', { table: 'Quote', columns: ['bidPrice'], fill: 'forward' });
    expect(col(rows, 'bidPrice')).toEqual([100, null, 100, 100, 110, 400, 110, 402]);
  });

  it('rejects an unknown mode', () => {
    expect(() => engine.call('getTicks', { table: 'Quote', fill: 'backward' })).toThrow(
      /^fill: "backward" is not allowed; expected one of null, zero, forward, linear, linearStep$/,
    );
  });
});

describe('getTicks fill on generated data', () => {
  const dir = join(tempDir(), 'demo');
  generateDemo(dir, { days: 1, instruments: 4, tradesPerDay: 4000, seed: 3 });
  const demo = Engine.open([dir]);
  const args = { table: 'Quote', columns: ['instrumentID', 'bidSize', 'askSize'] };

  it('forward fill equals the last non-null value per instrument, computed from the raw rows', () => {
    const raw = payloadRows(demo, 'getTicks', args);
    const filled = payloadRows(demo, 'getTicks', { ...args, fill: 'forward' });
    expect(raw.some((r) => r['bidSize'] === null)).toBe(true);
    const last = new Map<string, unknown>();
    raw.forEach((r, i) => {
      const key = `${r['instrumentID']}`;
      const expected = r['bidSize'] ?? last.get(key) ?? null;
      if (r['bidSize'] !== null) last.set(key, r['bidSize']);
      expect(filled[i]!['bidSize']).toBe(expected);
    });
  });
});

describe('forward fill across the seams of a query split by time', () => {
  it('equals forward filling the whole, for every seam of the rows above', async () => {
    const { Table } = await import('../../../../engine/core/table.js');
    const { fillTable, fillForwardSeams } = await import('../../../../engine/ops/ticks/fill.js');
    const whole = engine.call('getTicks', { table: 'Quote', columns: ['instrumentID', 'exchTime', 'bidPrice', 'bidSize', 'exchangeID'] }).table;
    const filled = fillTable(whole, 'forward', 'instrumentID', null);
    const expected = JSON.stringify(filled.columns.map((c) => ('data' in c ? Array.from(c.data as ArrayLike<unknown>, String) : 'codes' in c ? Array.from(c.codes, (k) => c.dict.get(k)) : c)));
    let checked = 0;
    // every way to cut the 8 rows into 2 or 3 parts
    for (let a = 1; a < whole.length; a++) {
      for (let b = a; b <= whole.length; b++) {
        const cuts = b === whole.length ? [a] : b > a ? [a, b] : [a];
        const bounds = [0, ...cuts, whole.length];
        const parts = bounds.slice(1).map((end, i) => fillTable(whole.take(Int32Array.from({ length: end - bounds[i]! }, (_, k) => bounds[i]! + k)), 'forward', 'instrumentID', null));
        const merged = fillForwardSeams(Table.concat(whole.defs, parts), 'instrumentID', cuts);
        const got = JSON.stringify(merged.columns.map((c) => ('data' in c ? Array.from(c.data as ArrayLike<unknown>, String) : 'codes' in c ? Array.from(c.codes, (k) => c.dict.get(k)) : c)));
        expect(got, `parts cut at ${cuts.join(',')}`).toBe(expected);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
    // the seams did need filling: a part's leading nulls differ from the whole's filled values
    const noSeams = JSON.stringify(Table.concat(whole.defs, [fillTable(whole.take(Int32Array.of(0, 1, 2)), 'forward', 'instrumentID', null), fillTable(whole.take(Int32Array.of(3, 4, 5, 6, 7)), 'forward', 'instrumentID', null)]).columns.map((c) => ('data' in c ? Array.from(c.data as ArrayLike<unknown>, String) : 'codes' in c ? Array.from(c.codes, (k) => c.dict.get(k)) : c)));
    expect(noSeams).not.toBe(expected);
  });
});
