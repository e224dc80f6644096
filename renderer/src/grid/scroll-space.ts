/**
 * The grid's scroll space: where its rows sit for a scroll position, for a result of any size.
 *
 * A browser paints tall boxes badly: its compositor places layers in float32, so at 22 M px (a million
 * rows of 22 px) rows are drawn a pixel or more off their place, one over another, and the sticky `#`
 * column drifts from its row; past ~33.5 M px (Chromium's LayoutUnit limit) the box is cut short and
 * the rows past 1.5 M cannot be reached at all. So the rows' box is never taller than MAX_SCROLL_PX.
 *
 * A result that fits scrolls as it is: the offset into the rows (the "virtual" offset, rows × row
 * height tall) is scrollTop. A taller one maps the scrollbar linearly onto the rows: offset =
 * scrollTop × maxOffset / maxScroll, so the thumb's ends are the first and the last row and a drag
 * moves through the result evenly. The rows on screen are placed in the box at `shift + i × rowHeight`
 * where shift = scrollTop − offset: around the current scrollTop (the viewport's "page"), so no element
 * is ever further down than the box's own height. The offset is kept apart from scrollTop (not derived
 * from it) because many offsets share one scrollTop: the grid's own moves (the wheel, keys, a selected
 * row brought into view) set the offset to the pixel and the scrollbar to the nearest position.
 */

/** The tallest rows' box, in CSS px: float32 holds whole pixels exactly far beyond it, and 1/8 px at it. */
export const MAX_SCROLL_PX = 2_000_000;

/** The scroll space of `rows` rows in a viewport `view` px high. */
export interface ScrollSpace {
  readonly rows: number;
  readonly rowHeight: number;
  /** Height of the viewport the rows scroll in (under the grid's header). */
  readonly view: number;
  /** Height of the rows' box in the page: rows × rowHeight, at most the cap. */
  readonly height: number;
  /** The largest offset into the rows: the last row at the viewport's bottom. */
  readonly maxOffset: number;
  /** The largest scrollTop: the box's bottom at the viewport's bottom. */
  readonly maxScroll: number;
  /** The rows are taller than the box: offsets and scrollTops differ. */
  readonly scaled: boolean;
}

/** The scroll space of a result: unscaled when its rows fit in `cap` px. */
export function scrollSpace(rows: number, rowHeight: number, view: number, cap = MAX_SCROLL_PX): ScrollSpace {
  const full = Math.max(0, rows) * rowHeight;
  const v = Math.max(0, view);
  const scaled = full > cap && cap > v;
  const height = scaled ? cap : full;
  return { rows: Math.max(0, rows), rowHeight, view: v, height, maxOffset: Math.max(0, full - v), maxScroll: Math.max(0, height - v), scaled };
}

/** An offset kept inside the rows. */
export const clampOffset = (s: ScrollSpace, offset: number): number => Math.max(0, Math.min(s.maxOffset, offset));

/** The offset a scrollTop shows (the scrollbar moved by the user): itself, or linear between the ends in whole px. */
export function offsetAt(s: ScrollSpace, scrollTop: number): number {
  if (!s.scaled) return clampOffset(s, scrollTop);
  if (s.maxScroll <= 0) return 0;
  return clampOffset(s, Math.round((Math.max(0, scrollTop) * s.maxOffset) / s.maxScroll));
}

/** The scrollTop for an offset (the grid moved itself): itself, or the nearest whole px on the linear map. */
export function scrollTopFor(s: ScrollSpace, offset: number): number {
  if (!s.scaled) return clampOffset(s, offset);
  if (s.maxOffset <= 0) return 0;
  return Math.max(0, Math.min(s.maxScroll, Math.round((clampOffset(s, offset) * s.maxScroll) / s.maxOffset)));
}

/** The rows to render and where: row i's top in the rows' box is `shift + i × rowHeight`. */
export interface RowSpan {
  /** First row to render (inclusive). */
  readonly first: number;
  /** Last row to render (inclusive); below `first` when none. */
  readonly last: number;
  readonly shift: number;
}

/**
 * The rows on screen at `offset` with `scrollTop` as the box's position, `overscan` more either way,
 * less those wholly outside the box (a scaled space's overscan can reach past its ends).
 */
export function rowSpan(s: ScrollSpace, offset: number, scrollTop: number, overscan: number): RowSpan {
  const h = s.rowHeight;
  const at = clampOffset(s, offset);
  const shift = scrollTop - at;
  const first = Math.max(0, Math.floor(at / h) - overscan, Math.floor(-shift / h));
  const last = Math.min(s.rows - 1, Math.ceil((at + s.view) / h) - 1 + overscan, Math.ceil((s.height - shift) / h) - 1);
  return { first, last, shift };
}

/** How a row is brought into view: as little as needed, or to the viewport's middle. */
export type Align = 'auto' | 'center';

/** The offset that shows row `index` from `offset` (whole px, inside the rows). */
export function offsetToShow(s: ScrollSpace, offset: number, index: number, align: Align): number {
  const top = index * s.rowHeight;
  const bottom = top + s.rowHeight;
  let to = clampOffset(s, offset);
  if (align === 'center') to = top + s.rowHeight / 2 - s.view / 2;
  else if (top < to) to = top;
  else if (bottom > to + s.view) to = bottom - s.view;
  return clampOffset(s, Math.round(to));
}

/** A wheel event's vertical move in px: its delta in px, lines (a row each) or pages (the viewport). */
export function wheelPixels(delta: number, deltaMode: number, s: Pick<ScrollSpace, 'rowHeight' | 'view'>): number {
  if (deltaMode === 1) return delta * s.rowHeight;
  if (deltaMode === 2) return delta * Math.max(s.rowHeight, s.view - s.rowHeight);
  return delta;
}
