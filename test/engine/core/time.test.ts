import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { civilFromDays, daysFromCivil, formatTimespan, parseDate, parseTimespan, parseTimestampLiteral, partitionKey } from '../../../engine/core/time.js';
import { localToInstant } from '../../../engine/core/tz.js';
import { textCells } from '../../../engine/output/text-cells.js';
import { roundHalfAway } from '../../../engine/ops/round.js';
import { Rng } from '../../../engine/demo/rng.js';

/** Temporal's rendering of an instant in a zone, with nine fractional digits (the oracle). */
function oracle(ns: bigint, zone: string): string {
  const z = Temporal.Instant.fromEpochNanoseconds(ns).toZonedDateTimeISO(zone);
  return z.toPlainDateTime().toString({ fractionalSecondDigits: 9 });
}

/** A seeded generator so failures reproduce. */
function rng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.next();
}

describe('civil dates', () => {
  it('agrees with the platform calendar over four centuries', () => {
    for (let day = -150_000; day <= 150_000; day += 37) {
      const d = new Date(day * 86_400_000);
      expect(civilFromDays(day)).toEqual({ y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() });
      expect(daysFromCivil(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())).toBe(day);
    }
  });
});

describe('parsing', () => {
  it('reads every timestamp form of SPEC 2', () => {
    const local = (t: string): unknown => parseTimestampLiteral(t);
    expect(local('2024.01.02D09:30:00.123456789')).toEqual({ kind: 'local', local: { y: 2024, m: 1, d: 2, nsOfDay: 34_200_123_456_789 } });
    expect(local('2024.01.02D09:30')).toEqual({ kind: 'local', local: { y: 2024, m: 1, d: 2, nsOfDay: 34_200_000_000_000 } });
    expect(local('2024.01.02')).toEqual({ kind: 'local', local: { y: 2024, m: 1, d: 2, nsOfDay: 0 } });
    expect(local('2024-01-02T09:30:00.5')).toEqual({ kind: 'local', local: { y: 2024, m: 1, d: 2, nsOfDay: 34_200_500_000_000 } });
    expect(local('2024-01-02T09:30:00Z')).toEqual({ kind: 'instant', ns: 1704187800_000_000_000n });
    expect(local('2024-01-02T09:30:00.000000001+01:00')).toEqual({ kind: 'instant', ns: 1704184200_000_000_001n });
    expect(local('0Wp')).toEqual({ kind: 'instant', ns: 9223372036854775807n });
    for (const bad of ['2024.02.30', '2024.01.02D24:00', '2024/01/02', 'yesterday', '2024.01.02D09:30:00.1234567891']) {
      expect(parseTimestampLiteral(bad)).toBeUndefined();
    }
  });

  it('reads timespans and dates', () => {
    expect(parseTimespan('09:30')).toBe(34_200_000_000_000n);
    expect(parseTimespan('0D09:30:00.000000001')).toBe(34_200_000_000_001n);
    expect(parseTimespan('-1D02:00')).toBe(-(86_400_000_000_000n + 7_200_000_000_000n));
    expect(formatTimespan(-(86_400_000_000_000n + 7_200_000_000_001n))).toBe('-1D02:00:00.000000001');
    expect(parseDate('2024-02-29')).toBe(19782);
    expect(parseDate('2023.02.29')).toBeUndefined();
  });
});

describe('time zones', () => {
  it('moves a local time in the spring gap forward and takes the earlier of a repeated time', () => {
    // New York 2024-03-10: 02:00-03:00 does not exist; 2024-11-03: 01:00-02:00 happens twice.
    expect(localToInstant({ y: 2024, m: 3, d: 10, nsOfDay: 2.5 * 3.6e12 }, 'America/New_York')).toBe(
      BigInt(Date.UTC(2024, 2, 10, 7, 30)) * 1_000_000n,
    );
    expect(localToInstant({ y: 2024, m: 11, d: 3, nsOfDay: 1.5 * 3.6e12 }, 'America/New_York')).toBe(
      BigInt(Date.UTC(2024, 10, 3, 5, 30)) * 1_000_000n,
    );
    expect(localToInstant({ y: 2024, m: 3, d: 31, nsOfDay: 1.25 * 3.6e12 + 7 }, 'Europe/London')).toBe(
      BigInt(Date.UTC(2024, 2, 31, 1, 15)) * 1_000_000n + 7n,
    );
  });

  it('renders instants in a zone exactly as Temporal does, to the nanosecond', () => {
    const random = rng(42);
    // Instants around the 2024 transitions of both zones, and a spread over 1970-2100.
    const centres = ['2024-03-10T07:00:00Z', '2024-11-03T06:00:00Z', '2024-03-31T01:00:00Z', '2024-10-27T01:00:00Z'].map(
      (s) => BigInt(Date.parse(s)) * 1_000_000n,
    );
    const values: bigint[] = [];
    for (const c of centres) {
      for (let k = 0; k < 400; k++) values.push(c + BigInt(Math.floor((random() - 0.5) * 7.2e12)) * 1000n + BigInt(Math.floor(random() * 1000)));
      values.push(c, c - 1n, c + 1n);
    }
    for (let k = 0; k < 400; k++) values.push(BigInt(Math.floor(random() * 4.1e9)) * 1_000_000_000n + BigInt(Math.floor(random() * 1e9)));
    values.sort((a, b) => (a < b ? -1 : 1));
    for (const zone of ['UTC', 'America/New_York', 'Europe/London', 'Asia/Kolkata']) {
      const cells = textCells({ type: 'timestamp', data: BigInt64Array.from(values) }, zone);
      values.forEach((ns, i) => expect(cells(i), `${ns} in ${zone}`).toBe(oracle(ns, zone)));
    }
  });

  it('renders null and infinite timestamps', () => {
    const cells = textCells({ type: 'timestamp', data: BigInt64Array.of(-9223372036854775808n, 9223372036854775807n, -9223372036854775807n) }, 'UTC');
    expect([cells(0), cells(1), cells(2)]).toEqual(['', '0Wp', '-0Wp']);
  });

  it('names the UTC date partition of an instant', () => {
    expect(partitionKey(BigInt(Date.parse('2024-03-06T23:59:59.999Z')) * 1_000_000n + 999_999n)).toBe('2024-03-06');
    expect(partitionKey(BigInt(Date.parse('2024-03-07T00:00:00Z')) * 1_000_000n)).toBe('2024-03-07');
    expect(partitionKey(-1n)).toBe('1969-12-31');
  });
});

describe('rounding', () => {
  it('rounds half away from zero on the decimal value', () => {
    expect(roundHalfAway(1.005, 2)).toBe(1.01);
    expect(roundHalfAway(-1.005, 2)).toBe(-1.01);
    expect(roundHalfAway(2.5, 0)).toBe(3);
    expect(roundHalfAway(-2.5, 0)).toBe(-3);
    expect(roundHalfAway(1.2345, 3)).toBe(1.235);
    expect(roundHalfAway(0.1 + 0.2, 1)).toBe(0.3);
    expect(roundHalfAway(NaN, 2)).toBeNaN();
  });
});
