/** The tick chart's horizontal scale: one slot per tick, labels in outputTZ with nanoseconds. */
import { describe, expect, it } from 'vitest';
import type { InternalHorzScaleItem, Mutable, TickMark, TickMarkWeightValue, TimeScalePoint } from 'lightweight-charts';
import { boundaryWeight, SeqHorzScale } from '../../renderer/src/chart/seq-scale.js';
import { ZoneClock } from '../../renderer/src/chart/zone-clock.js';

const ns = (iso: string, extraNs = 0n): bigint => BigInt(Date.parse(iso)) * 1_000_000n + extraNs;

describe('ZoneClock', () => {
  it('renders local time in the zone with all nine fractional digits', () => {
    const t = ns('2024-03-06T14:30:00.123Z', 456_789n);
    expect(new ZoneClock('America/New_York').full(t)).toBe('2024-03-06 09:30:00.123456789');
    expect(new ZoneClock('Europe/London').full(t)).toBe('2024-03-06 14:30:00.123456789');
    expect(new ZoneClock('UTC').full(ns('1999-12-31T23:59:59.999Z', 999_999n))).toBe('1999-12-31 23:59:59.999999999');
  });

  it('follows DST: the same UTC clock time reads an hour apart across the change', () => {
    const ny = new ZoneClock('America/New_York');
    expect(ny.full(ns('2024-03-08T14:30:00Z'))).toBe('2024-03-08 09:30:00.000000000');
    expect(ny.full(ns('2024-03-11T14:30:00Z'))).toBe('2024-03-11 10:30:00.000000000');
    expect(ny.offsetMs(ns('2024-03-08T14:30:00Z'))).toBe(-5 * 3_600_000);
    expect(ny.offsetMs(ns('2024-03-11T14:30:00Z'))).toBe(-4 * 3_600_000);
  });
});

describe('SeqHorzScale', () => {
  // Five ticks: two share a nanosecond, one crosses a minute, one crosses a (New York) day.
  const times = [
    ns('2024-03-06T20:59:59.5Z'),
    ns('2024-03-06T20:59:59.5Z'),
    ns('2024-03-06T21:00:00.25Z'),
    ns('2024-03-06T21:00:00.25Z', 1n),
    ns('2024-03-07T14:30:00Z'),
  ];
  const seq = Int32Array.of(10, 11, 12, 13, 40);
  const scale = new SeqHorzScale();
  scale.setPoints(seq, BigInt64Array.from(times), 'America/New_York');
  const item = (s: number): InternalHorzScaleItem => s as unknown as InternalHorzScaleItem;

  it('gives every tick its own slot, even when timestamps are equal', () => {
    expect(new Set([...seq].map((s) => scale.key(item(s)))).size).toBe(5);
    expect(scale.timeOf(11)).toBe(times[1]);
    expect(scale.timeOf(99)).toBeUndefined();
  });

  it('labels the crosshair with the full local time to the nanosecond', () => {
    expect(scale.formatHorzItem(item(13))).toBe('2024-03-06 16:00:00.250000001');
  });

  it('weighs boundaries so tick marks fall on days, hours and minutes', () => {
    const points = [...seq].map((s) => ({ time: item(s), timeWeight: 0 as TickMarkWeightValue, originalTime: s })) as Mutable<TimeScalePoint>[];
    scale.fillWeightsForPoints(points, 0);
    expect(points.map((p) => p.timeWeight)).toEqual([50, 0, 30, 0, 50]);
    const mark = (s: number, weight: number): TickMark => ({ index: 0 as never, time: item(s), weight: weight as TickMarkWeightValue, originalTime: s });
    expect(scale.formatTickmark(mark(40, 50))).toBe('2024-03-07');
    expect(scale.formatTickmark(mark(12, 30))).toBe('16:00');
    expect(scale.formatTickmark(mark(12, 10))).toBe('16:00:00');
    expect(scale.formatTickmark(mark(13, 0))).toBe('16:00:00.250');
  });

  it('weighs the largest unit that changes', () => {
    expect(boundaryWeight(0, 86_400_000)).toBe(50);
    expect(boundaryWeight(3_599_999, 3_600_000)).toBe(30);
    expect(boundaryWeight(59_999, 60_000)).toBe(20);
    expect(boundaryWeight(999, 1000)).toBe(10);
    expect(boundaryWeight(5, 5)).toBe(0);
  });
});
