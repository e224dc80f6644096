/**
 * The grid's scroll space (issue 26): a result of any size scrolls in a box of a few million px, its
 * scrollbar mapped linearly onto the rows, every row on screen one row height under the previous one
 * and inside the box, the first and the last rows at the scrollbar's ends.
 */
import { describe, expect, it } from 'vitest';
import { MAX_SCROLL_PX, offsetAt, offsetToShow, rowSpan, type ScrollSpace, scrollSpace, scrollTopFor, wheelPixels } from '../../renderer/src/grid/scroll-space.js';

const H = 22;
const VIEW = 319;

/** Where row i is on screen (px under the header) at this offset and scrollTop: its box top minus scrollTop. */
const onScreen = (s: ScrollSpace, offset: number, top: number, i: number): number => rowSpan(s, offset, top, 0).shift + i * H - top;

/** Checks the rows rendered at a scroll position: inside the box, consecutive, one row height apart, covering the view. */
function expectPlaced(s: ScrollSpace, offset: number, top: number): void {
  const { first, last, shift } = rowSpan(s, offset, top, 30);
  expect(first).toBeGreaterThanOrEqual(0);
  expect(last).toBeLessThanOrEqual(s.rows - 1);
  // no row wholly outside the box, none further down than the box's height
  expect(shift + first * H + H).toBeGreaterThan(0);
  expect(shift + last * H).toBeLessThan(s.height);
  expect(s.height).toBeLessThanOrEqual(MAX_SCROLL_PX);
  // the viewport [top, top + view) is covered by rendered rows
  expect(shift + first * H).toBeLessThanOrEqual(top);
  expect(Math.min(s.height, shift + (last + 1) * H)).toBeGreaterThanOrEqual(Math.min(s.height, top + s.view));
  // the first row on screen is the one at the offset
  const firstOnScreen = Math.floor(offset / H);
  expect(onScreen(s, offset, top, firstOnScreen)).toBeLessThanOrEqual(0);
  expect(onScreen(s, offset, top, firstOnScreen)).toBeGreaterThan(-H);
  expect(onScreen(s, offset, top, firstOnScreen + 1) - onScreen(s, offset, top, firstOnScreen)).toBe(H);
}

describe('a result that fits', () => {
  const s = scrollSpace(50_000, H, VIEW);

  it('scrolls as it is: the offset is scrollTop, rows at i × row height', () => {
    expect(s.scaled).toBe(false);
    expect(s.height).toBe(50_000 * H);
    expect(s.maxScroll).toBe(s.maxOffset);
    for (const top of [0, 1, 21.5, 12_345, s.maxScroll]) {
      expect(offsetAt(s, top)).toBe(top);
      expect(scrollTopFor(s, top)).toBe(top);
      expect(rowSpan(s, top, top, 30).shift).toBe(0);
      expectPlaced(s, top, top);
    }
  });

  it('has nothing to scroll when every row is on screen', () => {
    const few = scrollSpace(5, H, VIEW);
    expect([few.height, few.maxOffset, few.maxScroll]).toEqual([110, 0, 0]);
    expect(rowSpan(few, 0, 0, 30)).toEqual({ first: 0, last: 4, shift: 0 });
    expect(rowSpan(scrollSpace(0, H, VIEW), 0, 0, 30).last).toBeLessThan(0);
  });
});

describe.each([1_000_000, 10_000_000, 1_000_000_000])('%i rows', (rows) => {
  const s = scrollSpace(rows, H, VIEW);

  it('scroll in a box of at most MAX_SCROLL_PX, the scrollbar linear over the rows', () => {
    expect(s.scaled).toBe(true);
    expect(s.height).toBe(MAX_SCROLL_PX);
    expect(s.maxOffset).toBe(rows * H - VIEW);
    expect(s.maxScroll).toBe(MAX_SCROLL_PX - VIEW);
    expect(offsetAt(s, 0)).toBe(0);
    expect(offsetAt(s, s.maxScroll)).toBe(s.maxOffset);
    expect(offsetAt(s, s.maxScroll + 50)).toBe(s.maxOffset);
    // the middle of the bar is the middle of the rows
    expect(Math.abs(offsetAt(s, s.maxScroll / 2) - s.maxOffset / 2)).toBeLessThanOrEqual(1);
    let previous = -1;
    for (let top = 0; top <= s.maxScroll; top += 9_973) {
      const offset = offsetAt(s, top);
      expect(offset).toBeGreaterThan(previous);
      expect(Number.isInteger(offset)).toBe(true);
      // each scrollbar position comes back from its offset
      expect(scrollTopFor(s, offset)).toBe(top);
      previous = offset;
    }
  });

  it('place the rows on screen inside the box, one row height apart, at any offset', () => {
    const tops = [0, 1, 7, 1234, s.maxScroll / 3, s.maxScroll / 2, s.maxScroll - 1, s.maxScroll].map(Math.round);
    for (const top of tops) expectPlaced(s, offsetAt(s, top), top);
    // offsets the grid set itself (wheel, keys): any pixel, with the scrollbar nearest it
    for (const offset of [0, 5, 22 * 997_103 + 3, Math.floor(s.maxOffset / 2) + 11, s.maxOffset - 150, s.maxOffset - 1, s.maxOffset]) {
      expectPlaced(s, offset, scrollTopFor(s, offset));
    }
  });

  it('end with the last row at the bottom of the view and start with the first at the top', () => {
    const end = offsetToShow(s, 0, rows - 1, 'auto');
    expect(end).toBe(s.maxOffset);
    const top = scrollTopFor(s, end);
    expect(top).toBe(s.maxScroll);
    const { last, shift } = rowSpan(s, end, top, 30);
    expect(last).toBe(rows - 1);
    // the last row's bottom is the box's bottom, which is the viewport's
    expect(shift + rows * H).toBe(s.height);
    expect(onScreen(s, end, top, rows - 1) + H).toBe(VIEW);
    expect(rowSpan(s, 0, 0, 30)).toEqual({ first: 0, last: Math.ceil(VIEW / H) - 1 + 30, shift: 0 });
  });

  it('move by the wheel’s pixels, not by the scrollbar’s', () => {
    const from = offsetAt(s, Math.round(s.maxScroll / 2));
    const to = from + wheelPixels(110, 0, s);
    expect(to - from).toBe(110);
    expect(onScreen(s, to, scrollTopFor(s, to), 500) - onScreen(s, from, scrollTopFor(s, from), 500)).toBe(-110);
  });
});

describe('bringing a row into view', () => {
  const s = scrollSpace(10_000_000, H, VIEW);

  it('moves as little as needed for the grid’s own moves, and centres a row picked elsewhere', () => {
    const offset = 22 * 5_000_000;
    // on screen: no move
    expect(offsetToShow(s, offset, 5_000_003, 'auto')).toBe(offset);
    // below: its bottom at the view's bottom; above: its top at the view's top
    expect(offsetToShow(s, offset, 5_000_100, 'auto')).toBe(22 * 5_000_101 - VIEW);
    expect(offsetToShow(s, offset, 4_999_000, 'auto')).toBe(22 * 4_999_000);
    // centred (whole px)
    expect(offsetToShow(s, offset, 7_000_000, 'center')).toBe(Math.round(22 * 7_000_000 + 11 - VIEW / 2));
    // clamped at the ends
    expect(offsetToShow(s, offset, 0, 'center')).toBe(0);
    expect(offsetToShow(s, offset, 9_999_999, 'center')).toBe(s.maxOffset);
  });

  it('takes wheel lines as rows and pages as the view', () => {
    expect([wheelPixels(3, 1, s), wheelPixels(-1, 2, s), wheelPixels(-40, 0, s)]).toEqual([66, -(VIEW - H), -40]);
  });
});
