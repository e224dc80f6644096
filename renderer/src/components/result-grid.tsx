/**
 * The result grid: virtualized rows (only those on screen exist in the DOM, grid/use-row-window.ts),
 * fetched from the backend a page at a time as they come into view, so a million-row result scrolls as
 * smoothly as a small one; past ~90,000 rows the scrollbar maps onto the rows linearly (a scaled scroll
 * space, grid/scroll-space.ts), so rows stay aligned at any offset of any size of result.
 * Numbers show in one format per column (inferred from the values, a summary function's kind, the
 * instruments' tick sizes, or the header menu's choice), right-aligned; hovering a cell shows its
 * exact text; Ctrl/Cmd+C copies rows as the CSV export writes them (TSV with a header; timestamps
 * outside UTC with their offset).
 * `#` and the time column stay at the left when the grid scrolls sideways; columns resize by their
 * header's edge, move by dragging their header, hide from its menu; a header click sorts the held
 * result where it is held (never running its request again). Keys: arrows, Page Up/Down, Home/End
 * (Ctrl too), Shift to extend, Ctrl/Cmd+A and C.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { RunResponse } from '../../../engine/contract';
import { backend } from '../backend';
import { copyText } from '../clipboard';
import { nextSort } from '../grid/column-layout';
import { CELL_PAD, columnFormats, ROW_HEIGHT } from '../grid/layout';
import { formatCell, groupDigits, type Kind } from '../grid/number-format';
import { keyTarget, moveRange, rangeBounds, type RowRange } from '../grid/selection';
import { copyTsv } from '../grid/tsv';
import { useStore } from '../store/store';
import { ColumnMenu } from './grid/column-menu';
import { frozenClass, GridHeader } from './grid/grid-header';
import { useGridColumns } from './grid/use-grid-columns';
import { useGridHints } from './grid/use-grid-hints';
import { useGridSort } from './grid/use-grid-sort';
import { type PagesSeed, useResultPages } from './grid/use-result-pages';
import { useRowWindow } from './grid/use-row-window';

type RunOk = Extract<RunResponse, { ok: true }>;

/** The header row's height (CSS .grid-header): rows scroll under it. */
const HEADER_HEIGHT = 24;
/** The most rows Ctrl/Cmd+C copies; Export CSV writes any number. */
export const COPY_LIMIT = 100_000;

/** What the grid knows of a result's columns besides their values. */
export interface GridHints {
  /** Summary functions' kinds by column name (getOrderAnalyticSummary results). */
  readonly kinds?: ReadonlyMap<string, Kind>;
  /** Most tick-size decimals among the result's instruments, for its price columns. */
  readonly tickDecimals?: number | null;
}

/** The grid of the store's current result; a sorted grid tells the store (Export writes what it shows). */
export function ResultGrid(): React.JSX.Element {
  const result = useStore((s) => s.result);
  const selectedRow = useStore((s) => s.selectedRow);
  const selectRow = useStore((s) => s.selectRow);
  // the chart's crosshair marks its row here (a number: a hover from the grid itself re-renders nothing); the pointer over a row marks its tick there
  const marked = useStore((s) => (s.crosshair?.from === 'chart' && s.crosshair.resultId === s.result?.resultId ? s.crosshair.row : null));
  const hints = useGridHints(result);
  const onHoverRow = useCallback((row: number | null) => {
    const id = useStore.getState().result?.resultId;
    if (id === undefined) return;
    const now = useStore.getState().crosshair;
    if (row === null) {
      if (now?.from === 'grid') useStore.getState().setCrosshair(null);
    } else useStore.getState().setCrosshair({ resultId: id, row, from: 'grid' });
  }, []);
  const onSorted = useCallback((sorted: RunOk | null, by: string | null) => {
    const base = useStore.getState().result;
    useStore.setState({ gridSorted: sorted && base && by ? { baseId: base.resultId, resultId: sorted.resultId, by } : null });
  }, []);
  return <ResultGridView result={result} selectedRow={selectedRow} selectRow={selectRow} hints={hints} onSorted={onSorted} markedRow={marked} onHoverRow={onHoverRow} />;
}

export interface ResultGridViewProps {
  readonly result: RunOk | null;
  /** The selected row of `result` (the chart and the ladder follow it). */
  readonly selectedRow: number | null;
  readonly selectRow: (row: number | null) => void;
  /**
   * A row picked while the grid shows a sorted copy of the result: its row in that copy. The
   * result's own selection (selectRow) is left alone then, since its rows are in another order.
   */
  readonly onSortedSelect?: (row: number, sorted: RunOk) => void;
  /** The sorted copy on screen (and how it is sorted), or null when the grid shows the result's own order. */
  readonly onSorted?: (sorted: RunOk | null, by: string | null) => void;
  /** Enter or a double click on a row (not offered while sorted: the row is of the sorted copy). */
  readonly onOpen?: (row: number) => void;
  readonly label?: string;
  readonly testId?: string;
  readonly hints?: GridHints;
  /** A row of `result` pointed at elsewhere (the chart's crosshair): marked, in the result's order only. */
  readonly markedRow?: number | null;
  /** The pointer is over a row of `result` (null: it left the rows); not called while sorted. */
  readonly onHoverRow?: (row: number | null) => void;
}

const notice = (text: string): void => useStore.setState({ notice: text });

/** A grid of any held result (the drill-down's orders, as well as the store's result). */
export function ResultGridView({ result, selectedRow, selectRow, onSortedSelect, onSorted, onOpen: openRow, label = 'Result rows', testId = 'grid', hints, markedRow = null, onHoverRow }: ResultGridViewProps): React.JSX.Element {
  const scroller = useRef<HTMLDivElement>(null);
  const sorting = useGridSort(result, notice);
  const shown = sorting.shown;
  const sorted = sorting.sort !== null;
  // the result's own stats, for its sorted copies to start from (formats and widths stay put)
  const baseSeed = useRef<PagesSeed | null>(null);
  const data = useResultPages(shown, () => (sorted ? baseSeed.current : null));
  if (!sorted) baseSeed.current = { stats: data.stats, longest: data.longest };
  const layout = useGridColumns(shown, hints, data, (sorting.pending ?? sorting.sort)?.column ?? null);
  const { columns, rowNumberWidth, totalWidth, monoChar } = layout;
  const [range, setRange] = useState<RowRange | null>(null);
  /** The selected row of the sorted copy (the result's selection stays with the result). */
  const [sortedRow, setSortedRow] = useState<number | null>(null);
  const focusRow = sorted ? sortedRow : selectedRow;
  /** The row the grid itself last selected: the scroll follows it minimally, others are centred. */
  const own = useRef<number | null>(null);
  const [menu, setMenu] = useState<{ name: string; x: number; y: number } | null>(null);
  const onOpen = sorted ? undefined : openRow;
  /** The result or sorted copy shown now (an answer about another one is dropped). */
  const shownId = useRef<string | null>(null);
  shownId.current = shown?.resultId ?? null;

  const win = useRowWindow(scroller, shown?.rows ?? 0, { rowHeight: ROW_HEIGHT, header: HEADER_HEIGHT, overscan: 30 });
  const { scrollToIndex, scrollToStart } = win;

  useEffect(() => {
    setRange(null);
    setMenu(null);
    setSortedRow(null);
  }, [shown?.resultId]);
  // a new result, or a sorted copy, starts at its first row, before it is painted
  useLayoutEffect(() => scrollToStart(), [shown?.resultId, scrollToStart]);
  // and a new result at its first column (the identifier and price columns are not left scrolled out
  // of sight); a sorted copy keeps the column that was clicked in view
  const resultId = result?.resultId;
  useLayoutEffect(() => {
    if (resultId !== undefined && scroller.current) scroller.current.scrollLeft = 0;
  }, [resultId]);

  useEffect(() => {
    onSorted?.(sorted ? shown : null, sorting.sort ? `${sorting.sort.column} ${sorting.sort.dir}` : null);
  }, [onSorted, sorted, shown, sorting.sort]);

  // a row picked elsewhere (the chart) while sorted: back to the result's order, where that row is
  const lastSelected = useRef(selectedRow);
  const { sort, sortBy } = sorting;
  useEffect(() => {
    if (lastSelected.current === selectedRow) return;
    lastSelected.current = selectedRow;
    if (sort && selectedRow !== null) {
      sortBy(null);
      notice(`Grid back in the result's order to show row ${(selectedRow + 1).toLocaleString('en-US')}`);
    }
  }, [selectedRow, sort, sortBy]);

  const { first: firstIndex, last: lastIndex } = win;
  const { ensure } = data;
  useEffect(() => {
    if (lastIndex >= firstIndex) ensure(firstIndex, lastIndex);
  }, [ensure, firstIndex, lastIndex]);

  // the selection's focus is the selected row: a row picked elsewhere (a click on the chart) starts a
  // range of its own and is centred; the grid's own moves scroll only as far as needed
  useEffect(() => {
    if (focusRow === null) {
      setRange(null);
    } else if (own.current === focusRow) {
      scrollToIndex(focusRow, 'auto');
    } else {
      setRange({ anchor: focusRow, focus: focusRow });
      scrollToIndex(focusRow, 'center');
    }
    own.current = null;
  }, [focusRow, scrollToIndex]);

  const pick = (row: number): void => {
    if (sorted && shown) {
      setSortedRow(row);
      if (onSortedSelect) return onSortedSelect(row, shown);
      // the chart follows: the row's number in the result (the sorted copy's page says it), selected
      // there without taking the grid out of its order
      const copy = shown.resultId;
      void backend()
        .page(copy, row, 1)
        .then((p) => {
          const base = p.baseRows?.[0];
          if (base === undefined || shownId.current !== copy) return;
          lastSelected.current = base;
          selectRow(base);
        })
        .catch(() => undefined);
    } else selectRow(row);
  };

  const moveTo = (row: number, extend: boolean): void => {
    const current = range ?? (focusRow === null ? null : { anchor: focusRow, focus: focusRow });
    setRange(moveRange(current, row, extend));
    own.current = row;
    pick(row);
  };

  const copy = async (): Promise<void> => {
    if (!shown || focusRow === null) {
      notice('Select rows to copy: click, Shift+click or Shift+arrows, Ctrl+A for all');
      return;
    }
    const [lo, hi] = rangeBounds(range ?? { anchor: focusRow, focus: focusRow });
    const n = hi - lo + 1;
    if (n > COPY_LIMIT) {
      notice(`${n.toLocaleString('en-US')} rows selected: Copy takes up to ${COPY_LIMIT.toLocaleString('en-US')}; Export CSV writes them all`);
      return;
    }
    if (n > 10_000) notice(`Copying ${n.toLocaleString('en-US')} rows…`);
    try {
      // cells as the CSV writes them: timestamps outside UTC keep their offsets (SPEC 8)
      const { text, rows } = await copyTsv(shown, lo, hi, data.rows, (offset, limit) => backend().page(shown.resultId, offset, limit, 'csv'));
      const ok = await copyText(text);
      notice(ok ? `Copied ${rows.toLocaleString('en-US')} row${rows === 1 ? '' : 's'} as TSV with a header` : 'The browser refused the clipboard');
    } catch (e) {
      notice(`Copy failed: ${(e as Error).message}`);
    }
  };

  const onKeyDown = (e: React.KeyboardEvent): void => {
    if (!shown || shown.rows === 0 || e.altKey) return;
    const mod = e.ctrlKey || e.metaKey;
    const key = e.key.toLowerCase();
    if (mod && key === 'c' && !e.shiftKey) {
      // text selected with the mouse inside the grid copies as text, as anywhere else
      const sel = window.getSelection();
      if (sel && !sel.isCollapsed && scroller.current?.contains(sel.anchorNode)) return;
      e.preventDefault();
      void copy();
      return;
    }
    if (mod && key === 'a' && !e.shiftKey) {
      e.preventDefault();
      setRange({ anchor: shown.rows - 1, focus: 0 });
      own.current = 0;
      pick(0);
      return;
    }
    if (e.key === 'Enter' && onOpen && focusRow !== null) {
      e.preventDefault();
      onOpen(focusRow);
      return;
    }
    const pageRows = Math.floor(((scroller.current?.clientHeight ?? 0) - HEADER_HEIGHT) / ROW_HEIGHT) - 1;
    const to = keyTarget(e, focusRow, shown.rows, pageRows);
    if (to === null) return;
    e.preventDefault();
    moveTo(to, e.shiftKey);
  };

  if (!shown) return <section className="grid-panel empty muted">No result yet.</section>;
  const [lo, hi] = range ? rangeBounds(range) : focusRow === null ? [-1, -1] : [focusRow, focusRow];
  const menuColumn = menu ? columns.find((c) => c.name === menu.name) : undefined;
  const at = menuColumn ? layout.movable.indexOf(menuColumn.name) : -1;
  /** The visible movable neighbour of a column, one way. */
  const neighbour = (delta: -1 | 1): string | null => {
    const visible = layout.movable.filter((n) => columns.some((c) => c.name === n));
    const k = menuColumn ? visible.indexOf(menuColumn.name) : -1;
    return k < 0 ? null : (visible[k + delta] ?? null);
  };
  const rowIndexes = Array.from({ length: Math.max(0, lastIndex - firstIndex + 1) }, (_, k) => firstIndex + k);
  return (
    <section className={`grid-panel ${sorted ? 'sorted' : ''}`} aria-label={label}>
      <div
        className="grid-scroll"
        ref={win.attach}
        tabIndex={0}
        role="grid"
        aria-rowcount={shown.rows + 1}
        aria-multiselectable="true"
        onKeyDown={onKeyDown}
        data-testid={testId}
        data-result={shown.resultId}
      >
        <GridHeader
          columns={columns}
          rowNumberWidth={rowNumberWidth}
          totalWidth={totalWidth}
          menuFor={menu?.name ?? null}
          onMenu={(name, anchor) => setMenu(menu?.name === name ? null : { name, x: Math.max(4, Math.min(anchor.right - 220, window.innerWidth - 236)), y: anchor.bottom + 2 })}
          onResize={(name, width, done) => (done ? layout.setWidth(name, width) : layout.setDrag({ name, width }))}
          onFit={(name) => layout.setWidth(name, null)}
          sort={sorting.sort}
          pending={sorting.pending}
          onSort={(name) => sorting.sortBy(nextSort(sorting.pending ?? sorting.sort, name))}
          onMove={layout.move}
          hiddenCount={layout.all.filter((c) => c.hidden).length}
        />
        <div className="grid-rows" style={{ height: win.height, width: totalWidth }} {...(onHoverRow && !sorted ? { onMouseLeave: () => onHoverRow(null) } : {})}>
          {rowIndexes.map((i) => (
            <div
              key={i}
              role="row"
              aria-selected={i >= lo && i <= hi}
              className={`grid-row ${i === focusRow ? 'selected' : i >= lo && i <= hi ? 'in-range' : ''} ${i % 2 ? 'odd' : ''} ${!sorted && i === markedRow ? 'crosshair' : ''}`}
              style={{ transform: `translateY(${win.shift + i * ROW_HEIGHT}px)`, height: ROW_HEIGHT, width: totalWidth }}
              data-row={i}
              {...(onHoverRow && !sorted ? { onMouseEnter: () => onHoverRow(i) } : {})}
              onMouseDown={(e) => {
                // Shift+click extends the range: no text selection
                if (e.shiftKey) e.preventDefault();
              }}
              onClick={(e) => {
                if (e.shiftKey) scroller.current?.focus({ preventScroll: true });
                moveTo(i, e.shiftKey);
              }}
              {...(onOpen ? { onDoubleClick: () => onOpen(i) } : {})}
            >
              <div className="grid-cell rownum frozen" style={{ width: rowNumberWidth }}>
                {groupDigits(String(i + 1))}
              </div>
              {columns.map((c) => {
                const text = data.ready ? data.cell(i, c.j) : undefined;
                const cellText = text === undefined ? '…' : formatCell(c.format, text);
                // the exact text on hover, where the format changed it or the column cuts it
                const cut = text !== undefined && text.length * monoChar > c.width - CELL_PAD;
                return (
                  <div
                    key={c.name}
                    role="gridcell"
                    className={`grid-cell ${c.numeric ? 'num' : ''} ${frozenClass(c)}`}
                    style={{ width: c.width, ...(c.left === null ? {} : { left: c.left }) }}
                    {...(text !== undefined && (text !== cellText || cut) ? { title: text } : {})}
                  >
                    {cellText}
                  </div>
                );
              })}
            </div>
          ))}
        </div>
      </div>
      {menu && menuColumn && (
        <ColumnMenu
          name={menuColumn.name}
          type={menuColumn.type}
          format={menuColumn.format}
          override={columnFormats.get(menuColumn.name) ?? null}
          at={{ x: menu.x, y: menu.y }}
          onFormat={(o) => layout.setFormat(menuColumn.name, o)}
          onFitWidth={() => layout.setWidth(menuColumn.name, null)}
          onClose={() => {
            setMenu(null);
            scroller.current?.focus({ preventScroll: true });
          }}
          sort={sorting.sort?.column === menuColumn.name ? sorting.sort.dir : null}
          onSort={(dir) => sorting.sortBy(dir ? { column: menuColumn.name, dir } : null)}
          onMove={at < 0 ? null : (delta) => {
            const target = neighbour(delta);
            if (target) layout.move(menuColumn.name, target, delta < 0 ? 'before' : 'after');
          }}
          canMove={{ left: neighbour(-1) !== null, right: neighbour(1) !== null }}
          columns={layout.all}
          onToggleHidden={layout.toggleHidden}
          onShowAll={layout.showAll}
        />
      )}
    </section>
  );
}
