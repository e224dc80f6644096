/** The tick chart's zoom maths: a fixed factor per notch about the pointer, a floor of ticks, the data's edges, spans found by binary search. */
import { describe, expect, it } from 'vitest';
import { clampView, dayOf, formatSpan, panBy, MIN_TICKS, presetRange, slots, spanEndingAt, ticksInView, wheelNotches, ZOOM_FACTOR, zoomAbout } from '../../renderer/src/chart/zoom.js';

const ALL = { from: 0, to: 9_999 };

describe('zoomAbout', () => {
  it('zooms by the factor per notch and keeps the anchor where it was on screen', () => {
    const v = zoomAbout(ALL, 2_500, ZOOM_FACTOR, 10_000);
    expect(slots(v)).toBeCloseTo(10_000 / 1.25, 6);
    // the anchor's share of the width is kept: a quarter from the left before and after
    const share = (x: { from: number; to: number }): number => (2_500 - (x.from - 0.5)) / slots(x);
    expect(share(v)).toBeCloseTo(share(ALL), 9);
  });

  it('takes about 33 notches from a day of 86,400 one-second ticks to a minute', () => {
    let v = { from: 0, to: 86_399 };
    let n = 0;
    while (slots(v) > 60) {
      v = zoomAbout(v, 40_000, ZOOM_FACTOR, 86_400);
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(32);
    expect(n).toBeLessThanOrEqual(34);
  });

  it('stops at the floor of ticks, never past it, however many notches', () => {
    let v = ALL;
    const seen: number[] = [];
    for (let i = 0; i < 100; i++) {
      v = zoomAbout(v, 5_000, ZOOM_FACTOR, 10_000);
      seen.push(slots(v));
    }
    expect(Math.min(...seen)).toBe(MIN_TICKS);
    expect(slots(v)).toBe(MIN_TICKS);
    // on a tick, so the floor's ticks are all in view, never one fewer
    const t = ticksInView(v, 10_000);
    expect(t.last - t.first + 1).toBe(MIN_TICKS);
    // each step is the factor or the floor, no overshoot
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeCloseTo(Math.max(MIN_TICKS, seen[i - 1]! / ZOOM_FACTOR), 6);
  });

  it('zooms out to all ticks and no further, inside the data', () => {
    let v = { from: 100, to: 199 };
    for (let i = 0; i < 60; i++) v = zoomAbout(v, 150, 1 / ZOOM_FACTOR, 1_000);
    expect(v).toEqual({ from: 0, to: 999 });
  });

  it('slides back inside the data at the edges', () => {
    const v = zoomAbout({ from: 0, to: 99 }, 0, 1 / ZOOM_FACTOR, 1_000);
    expect(v.from).toBe(0);
    expect(slots(v)).toBeCloseTo(125, 6);
    const w = zoomAbout({ from: 900, to: 999 }, 999, 1 / ZOOM_FACTOR, 1_000);
    expect(w.to).toBeCloseTo(999, 9);
  });

  it('shows every tick of a plot smaller than the floor', () => {
    expect(zoomAbout({ from: 0, to: 9 }, 5, ZOOM_FACTOR, 10)).toEqual({ from: 0, to: 9 });
  });
});

describe('clampView and ticksInView', () => {
  it('widens a view under the floor about its centre, and keeps it inside the data', () => {
    expect(clampView({ from: 500, to: 505 }, 1_000)).toEqual({ from: 493, to: 512 });
    expect(clampView({ from: 0, to: 3 }, 1_000)).toEqual({ from: 0, to: 19 });
    expect(clampView({ from: -50, to: 5_000 }, 1_000)).toEqual({ from: 0, to: 999 });
  });

  it('counts the ticks whose slots are in view', () => {
    expect(ticksInView({ from: 9.6, to: 29.4 }, 100)).toEqual({ first: 10, last: 29 });
    expect(ticksInView({ from: -0.5, to: 120 }, 100)).toEqual({ first: 0, last: 99 });
  });
});

describe('wheelNotches', () => {
  it('reads a mouse notch as one, in pixels or lines', () => {
    expect(wheelNotches(100, 0)).toBe(1);
    expect(wheelNotches(-3, 1)).toBe(-1);
    expect(wheelNotches(12, 0)).toBeCloseTo(0.12);
  });
});

describe('spans of time by binary search', () => {
  // a tick every 250 ms for an hour, from 09:30 local
  const START = Date.UTC(2024, 2, 6, 9, 30);
  const times = Float64Array.from({ length: 14_400 }, (_, i) => START + i * 250);

  it('finds the first tick at most the span before the end', () => {
    const r = spanEndingAt(times, 10_000, 300_000);
    expect(r.last).toBe(10_000);
    expect(times[r.last]! - times[r.first]!).toBe(300_000);
    expect(times[r.last]! - times[r.first - 1]!).toBeGreaterThan(300_000);
  });

  it('runs forward from the first tick when the data starts within the span', () => {
    const r = spanEndingAt(times, 100, 300_000);
    expect(r.first).toBe(0);
    expect(times[r.last]! - times[0]!).toBe(300_000);
  });

  it('keeps the floor when the span holds fewer ticks', () => {
    const r = spanEndingAt(times, 5_000, 1_000);
    expect(r.last - r.first + 1).toBe(MIN_TICKS);
    expect(r.last).toBe(5_000);
  });

  it('handles irregular ticks and duplicates', () => {
    const t = Float64Array.from([0, 0, 0, 10, 10, 50, 60, 60, 61, 200, 200, 260]);
    expect(spanEndingAt(t, 11, 60, 2)).toEqual({ first: 9, last: 11 });
    expect(spanEndingAt(t, 8, 60, 2)).toEqual({ first: 3, last: 8 });
    expect(spanEndingAt(t, 4, 60, 2)).toEqual({ first: 0, last: 7 });
  });

  it('the session preset is the local day of the tick at the centre; all is everything', () => {
    const day = 86_400_000;
    const two = Float64Array.from([day + 5, day + 6, 2 * day - 1, 2 * day, 2 * day + 9, 3 * day + 1]);
    expect(dayOf(two, 1)).toEqual({ first: 0, last: 2 });
    expect(dayOf(two, 4)).toEqual({ first: 3, last: 4 });
    expect(presetRange('session', { from: 3, to: 4 }, two)).toEqual({ first: 3, last: 4 });
    expect(presetRange('all', { from: 3, to: 4 }, two)).toEqual({ first: 0, last: 5 });
    const fiveMin = presetRange('5m', { from: 0, to: 14_399 }, times);
    expect(fiveMin.last).toBe(14_399);
    expect(times[fiveMin.last]! - times[fiveMin.first]!).toBe(300_000);
  });
});

describe('formatSpan', () => {
  it('reads a span at the scale it has', () => {
    expect(formatSpan(850_000_000n)).toBe('850 ms');
    expect(formatSpan(12_345_000_000n)).toBe('12.3 s');
    expect(formatSpan(300_000_000_000n)).toBe('5m 00s');
    expect(formatSpan(7_500_000_000_000n)).toBe('2h 05m');
  });
});

describe('panBy', () => {
  it('moves the view, its width kept, and stops at the data edges', () => {
    expect(panBy({ from: 100, to: 199 }, 50, 1_000)).toEqual({ from: 150, to: 249 });
    expect(panBy({ from: 100, to: 199 }, -500, 1_000)).toEqual({ from: 0, to: 99 });
    expect(panBy({ from: 100, to: 199 }, 5_000, 1_000)).toEqual({ from: 900, to: 999 });
  });
});
