/**
 * temporality slice and time zones (SPEC 4): slices per local date of inputTZ, overnight slices, and
 * windows starting or ending inside the skipped (spring) and repeated (autumn) hours of New York and
 * London, resolved by the compatible rule; output rendered in outputTZ.
 */
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../../engine/core/errors.js';
import { csv, makeEngine, payloadRows } from '../../../helpers/db.js';

// One AAPL trade every 15 minutes (UTC) over the days around each transition of 2024.
const DAYS = ['2024-03-07', '2024-03-08', '2024-03-09', '2024-03-10', '2024-03-11', '2024-03-30', '2024-03-31', '2024-04-01', '2024-10-26', '2024-10-27', '2024-10-28', '2024-11-02', '2024-11-03', '2024-11-04'];
const rows: string[][] = [];
for (const day of DAYS) {
  for (let q = 0; q < 96; q++) {
    const iso = new Date(Date.parse(`${day}T00:00:00Z`) + q * 900_000).toISOString().replace('.000Z', 'Z');
    rows.push([iso, 'AAPL', String(100 + q)]);
  }
}
const engine = makeEngine({ Trade: csv(['eventTimestamp', 'instrumentID', 'price'], rows) });
const times = (args: Record<string, unknown>): string[] =>
  payloadRows(engine, 'getTicks', { table: 'Trade', columns: ['price'], ...args }).map((r) => r['eventTimestamp'] as string);
const hhmm = (ts: string): string => ts.slice(11, 16);

describe('time zones: windows inside DST transitions', () => {
  it('New York spring: a start in the skipped hour moves forward by the gap', () => {
    // 02:30 does not exist on 2024-03-10 in New York: it becomes 03:30 EDT = 07:30 UTC.
    const local = times({ startTS: '2024.03.10D02:30', endTS: '2024.03.10D04:00', inputTZ: 'America/New_York', outputTZ: 'America/New_York' });
    expect(local).toEqual(['2024-03-10T03:30:00.000000000', '2024-03-10T03:45:00.000000000']);
    expect(times({ startTS: '2024.03.10D02:30', endTS: '2024.03.10D04:00', inputTZ: 'America/New_York' })).toEqual([
      '2024-03-10T07:30:00.000000000',
      '2024-03-10T07:45:00.000000000',
    ]);
  });

  it('New York spring: a window around the gap holds the real hour only, across the jump', () => {
    const local = times({ startTS: '2024.03.10D01:30', endTS: '2024.03.10D03:30', inputTZ: 'America/New_York', outputTZ: 'America/New_York' });
    expect(local.map(hhmm)).toEqual(['01:30', '01:45', '03:00', '03:15']);
  });

  it('New York autumn: the repeated hour, earlier instant for an ambiguous start, rendered twice', () => {
    // 01:00 is ambiguous: the earlier instant (EDT, 05:00 UTC); 02:00 EST = 07:00 UTC.
    const utc = times({ startTS: '2024.11.03D01:00', endTS: '2024.11.03D02:00', inputTZ: 'America/New_York' });
    expect(utc[0]).toBe('2024-11-03T05:00:00.000000000');
    expect(utc).toHaveLength(8);
    const local = times({ startTS: '2024.11.03D01:00', endTS: '2024.11.03D02:00', inputTZ: 'America/New_York', outputTZ: 'America/New_York' });
    expect(local.map(hhmm)).toEqual(['01:00', '01:15', '01:30', '01:45', '01:00', '01:15', '01:30', '01:45']);
    // An ambiguous end also takes the earlier instant: 01:45 EDT = 05:45 UTC.
    expect(times({ startTS: '2024.11.03D01:30', endTS: '2024.11.03D01:45', inputTZ: 'America/New_York' })).toEqual(['2024-11-03T05:30:00.000000000']);
  });

  it('London spring and autumn', () => {
    // 01:30 does not exist on 2024-03-31: 02:30 BST = 01:30 UTC; 03:00 BST = 02:00 UTC.
    expect(times({ startTS: '2024.03.31D01:30', endTS: '2024.03.31D03:00', inputTZ: 'Europe/London' })).toEqual([
      '2024-03-31T01:30:00.000000000',
      '2024-03-31T01:45:00.000000000',
    ]);
    // Both ends in the gap collapse onto the same instant: the window is empty.
    expect(() => engine.call('getTicks', { table: 'Trade', startTS: '2024.03.31D01:15', endTS: '2024.03.31D02:15', inputTZ: 'Europe/London' })).toThrow(
      expect.objectContaining({ ac: 23 }) as TickscopeError,
    );
    // 01:30 on 2024-10-27 is ambiguous: the earlier instant, BST = 00:30 UTC; 02:00 GMT = 02:00 UTC.
    const local = times({ startTS: '2024.10.27D01:30', endTS: '2024.10.27D02:00', inputTZ: 'Europe/London', outputTZ: 'Europe/London' });
    expect(local.map(hhmm)).toEqual(['01:30', '01:45', '01:00', '01:15', '01:30', '01:45']);
  });
});

describe('temporality slice', () => {
  it('keeps the slice on every local date, following DST', () => {
    const args = { startTS: '2024.03.08', endTS: '2024.03.12', inputTZ: 'America/New_York', temporality: 'slice', slice: ['09:30', '10:00'] };
    expect(times(args)).toEqual([
      '2024-03-08T14:30:00.000000000', '2024-03-08T14:45:00.000000000',
      '2024-03-09T14:30:00.000000000', '2024-03-09T14:45:00.000000000',
      '2024-03-10T13:30:00.000000000', '2024-03-10T13:45:00.000000000',
      '2024-03-11T13:30:00.000000000', '2024-03-11T13:45:00.000000000',
    ]);
    expect(new Set(times({ ...args, outputTZ: 'America/New_York' }).map(hhmm))).toEqual(new Set(['09:30', '09:45']));
  });

  it('crosses midnight when the start is after the end, including the session begun the day before', () => {
    const got = times({ startTS: '2024.03.08', endTS: '2024.03.10', temporality: 'slice', slice: ['22:00', '02:00'] });
    // 03-08 00:00-02:00 (session of 03-07), 03-08 22:00 to 03-09 02:00, 03-09 22:00 to the window end.
    expect(got).toHaveLength(8 + 16 + 8);
    expect(got[0]).toBe('2024-03-08T00:00:00.000000000');
    expect(got[7]).toBe('2024-03-08T01:45:00.000000000');
    expect(got[8]).toBe('2024-03-08T22:00:00.000000000');
    expect(got[got.length - 1]).toBe('2024-03-09T23:45:00.000000000');
  });

  it('covers only the real time of a slice spanning the skipped hour', () => {
    const got = times({ startTS: '2024.03.10', endTS: '2024.03.11', inputTZ: 'America/New_York', outputTZ: 'America/New_York', temporality: 'slice', slice: ['01:30', '03:30'] });
    expect(got.map(hhmm)).toEqual(['01:30', '01:45', '03:00', '03:15']);
  });

  it('applies to an infinite window over the stored dates', () => {
    expect(times({ temporality: 'slice', slice: ['12:00', '12:15'] })).toHaveLength(DAYS.length);
  });

  it('needs both temporality slice and slice, and a real pair of times', () => {
    const error = (args: Record<string, unknown>): string => {
      try {
        engine.call('getTicks', { table: 'Trade', ...args });
      } catch (e) {
        return `${(e as TickscopeError).ac} ${(e as TickscopeError).message}`;
      }
      return '';
    };
    expect(error({ temporality: 'slice' })).toMatch(/^15 temporality: slice needs slice/);
    expect(error({ slice: ['09:30', '10:00'] })).toMatch(/^15 slice: \["0D09:30:00.000000000","0D10:00:00.000000000"\] is only used with temporality slice/);
    expect(error({ temporality: 'slice', slice: ['10:00', '10:00'] })).toMatch(/^4 slice: .* starts where it ends/);
    expect(error({ temporality: 'slice', slice: ['09:30', '25:00'] })).toMatch(/^4 slice: \["0D09:30:00.000000000","1D01:00:00.000000000"\] has a time outside the day/);
    expect(error({ temporality: 'slice', slice: ['09:30'] })).toMatch(/^4 slice: \["09:30"\] has 1 items; expected two times of day/);
    expect(error({ temporality: 'sliced' })).toMatch(/^5 temporality: "sliced" is not allowed; expected one of continuous, slice/);
  });
});
