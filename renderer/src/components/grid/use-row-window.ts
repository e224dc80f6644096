/**
 * The grid's virtualizer: which rows exist in the DOM and where, for a result of any size (see
 * grid/scroll-space.ts for why a tall result scrolls in a scaled space).
 *
 * It replaced @tanstack/react-virtual in the grid. That library lays items out in the real scroll
 * space (item i at i × size px, the container as tall as all of them), which is exactly what breaks
 * past a few million px; scaling it would mean overriding its offset observer, its scrollTo and its
 * total size, leaving little of it. The grid's rows all have one height, so the whole job is a few
 * lines of arithmetic, kept pure (and unit-tested) in scroll-space.ts; this hook only wires it to the
 * scroller: its height, its scroll events, the wheel and programmatic scrolls.
 *
 * In a scaled space the wheel is taken over: the browser would move the scrollbar by the wheel's
 * pixels, which is hundreds of rows per notch at 10M rows; the grid moves the rows by those pixels
 * instead and puts the scrollbar where that offset maps. Dragging the scrollbar (any scroll the grid
 * did not make) moves through the result linearly.
 */
import { type RefObject, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { type Align, clampOffset, offsetAt, offsetToShow, rowSpan, type ScrollSpace, scrollSpace, scrollTopFor, wheelPixels } from '../../grid/scroll-space';

/** Where the rows are: the offset into them and the scrollTop it goes with. */
interface Position {
  readonly offset: number;
  readonly top: number;
}

export interface RowWindow {
  /** First row in the DOM (inclusive). */
  readonly first: number;
  /** Last row in the DOM (inclusive); below `first` when none. */
  readonly last: number;
  /** Row i's top in the rows' box: shift + i × rowHeight. */
  readonly shift: number;
  /** Height of the rows' box. */
  readonly height: number;
  /** Sets the scroller element (its ref). */
  readonly attach: (el: HTMLDivElement | null) => void;
  /** Brings a row into view: as little as needed ('auto') or to the middle. */
  readonly scrollToIndex: (index: number, align: Align) => void;
  /** Back to the first row. */
  readonly scrollToStart: () => void;
}

export interface RowWindowOptions {
  readonly rowHeight: number;
  /** Height of the sticky header above the rows, inside the scroller. */
  readonly header: number;
  /** Rows rendered beyond the viewport either way. */
  readonly overscan: number;
}

/** The rows of a `rows`-row result to render in `scroller`, and the means to scroll it. */
export function useRowWindow(scroller: RefObject<HTMLDivElement | null>, rows: number, { rowHeight, header, overscan }: RowWindowOptions): RowWindow {
  const [el, setEl] = useState<HTMLDivElement | null>(null);
  const [view, setView] = useState(0);
  const [pos, setPos] = useState<Position>({ offset: 0, top: 0 });
  const space = useMemo(() => scrollSpace(rows, rowHeight, view), [rows, rowHeight, view]);
  // the latest space and position for event handlers; every position goes through move(), which sets
  // it here at once (two wheel events before a render add up)
  const live = useRef<{ space: ScrollSpace; pos: Position }>({ space, pos });
  live.current.space = space;

  const move = useCallback((next: Position) => {
    live.current.pos = next;
    setPos(next);
  }, []);

  const attach = useCallback(
    (node: HTMLDivElement | null) => {
      scroller.current = node;
      setEl(node);
    },
    [scroller],
  );

  useLayoutEffect(() => {
    if (!el) return undefined;
    const measure = (): void => setView(Math.max(0, el.clientHeight - header));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [el, header]);

  useEffect(() => {
    if (!el) return undefined;
    const onScroll = (): void => {
      const top = el.scrollTop;
      // the grid's own scroll (written below), or a sideways one
      if (top === live.current.pos.top) return;
      // rendered before the frame is painted: in a scaled space every row moves with the scrollbar
      flushSync(() => move({ offset: offsetAt(live.current.space, top), top }));
    };
    const onWheel = (e: WheelEvent): void => {
      const s = live.current.space;
      // zoom (Ctrl) and sideways wheels (Shift) stay the browser's; an unscaled grid scrolls natively
      if (!s.scaled || e.ctrlKey || e.shiftKey || e.deltaY === 0) return;
      e.preventDefault();
      if (e.deltaX !== 0) el.scrollLeft += wheelPixels(e.deltaX, e.deltaMode, s);
      const offset = clampOffset(s, Math.round(live.current.pos.offset + wheelPixels(e.deltaY, e.deltaMode, s)));
      if (offset !== live.current.pos.offset) move({ offset, top: scrollTopFor(s, offset) });
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => {
      el.removeEventListener('scroll', onScroll);
      el.removeEventListener('wheel', onWheel);
    };
  }, [el, move]);

  // the scrollbar follows a position the grid set, in the commit that moves the rows (one paint)
  useLayoutEffect(() => {
    if (!el || el.scrollTop === pos.top) return;
    el.scrollTop = pos.top;
    // the browser may round it (to device pixels) or clamp it: the rows go with what it took
    const actual = el.scrollTop;
    if (actual !== pos.top) move({ offset: live.current.space.scaled ? pos.offset : actual, top: actual });
  }, [el, pos, move]);

  const scrollToIndex = useCallback(
    (index: number, align: Align) => {
      const { space: s, pos: p } = live.current;
      const offset = offsetToShow(s, p.offset, index, align);
      if (offset !== p.offset) move({ offset, top: scrollTopFor(s, offset) });
    },
    [move],
  );

  const scrollToStart = useCallback(() => move({ offset: 0, top: 0 }), [move]);

  const { first, last, shift } = rowSpan(space, pos.offset, pos.top, overscan);
  return { first, last, shift, height: space.height, attach, scrollToIndex, scrollToStart };
}
