/**
 * The result grid: virtualized rows (only those on screen exist in the DOM), fetched from the backend
 * a page at a time as they come into view, so a million-row result scrolls as smoothly as a small one.
 * Numbers show in one format per column (inferred from the values, a summary function's kind, the
 * instruments' tick sizes, or the header menu's choice), right-aligned; hovering a cell shows its
 * exact text, which is also what Ctrl/Cmd+C copies (TSV with a header, as the CSV export writes it).
 * `#` and the time column stay at the left when the grid scrolls sideways; columns resize by their
 * header's edge. Keys: arrows, Page Up/Down, Home/End (Ctrl too), Shift to extend, Ctrl/Cmd+A and C.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { RunResponse } from '../../../engine/contract';
import { copyText } from '../clipboard';
import { autoWidth, CELL_PAD, cellChars, columnFormats, columnWidths, displayOrder, domMetrics, ROW_HEIGHT, rowNumberChars } from '../grid/layout';
import { columnFormat, type FormatOverride, formatCell, groupDigits, isNumericType, type Kind, NO_STATS } from '../grid/number-format';
import { keyTarget, moveRange, rangeBounds, type RowRange } from '../grid/selection';
import { tsvText } from '../grid/tsv';
import { KIND_UNIT } from '../orders/tca';
import { useStore } from '../store/store';
import { ColumnMenu } from './grid/column-menu';
import { type ColumnView, frozenClass, GridHeader } from './grid/grid-header';
import { useResultPages } from './grid/use-result-pages';
import { useGridHints } from './grid/use-grid-hints';

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

/** The grid of the store's current result. */
export function ResultGrid(): React.JSX.Element {
  const result = useStore((s) => s.result);
  const selectedRow = useStore((s) => s.selectedRow);
  const selectRow = useStore((s) => s.selectRow);
  const hints = useGridHints(result);
  return <ResultGridView result={result} selectedRow={selectedRow} selectRow={selectRow} hints={hints} />;
}

export interface ResultGridViewProps {
  readonly result: RunOk | null;
  readonly selectedRow: number | null;
  readonly selectRow: (row: number | null) => void;
  /** Enter or a double click on a row. */
  readonly onOpen?: (row: number) => void;
  readonly label?: string;
  readonly testId?: string;
  readonly hints?: GridHints;
}

const notice = (text: string): void => useStore.setState({ notice: text });

/** A grid of any held result (the drill-down's orders, as well as the store's result). */
export function ResultGridView({ result, selectedRow, selectRow, onOpen, label = 'Result rows', testId = 'grid', hints }: ResultGridViewProps): React.JSX.Element {
  const scroller = useRef<HTMLDivElement>(null);
  const data = useResultPages(result);
  const [range, setRange] = useState<RowRange | null>(null);
  /** The row the grid itself last selected: the scroll follows it minimally, others are centred. */
  const own = useRef<number | null>(null);
  const [drag, setDrag] = useState<{ name: string; width: number } | null>(null);
  const [menu, setMenu] = useState<{ name: string; x: number; y: number } | null>(null);
  const [choices, setChoices] = useState(0);

  // recomputed as pages arrive (data.version: the stats and longest texts only grow, so formats and
  // widths only widen) and when a header's menu or edge changes a column (drag, choices)
  const columns: ColumnView[] = useMemo(() => {
    if (!result) return [];
    const metrics = domMetrics();
    const rowNumberWidth = rowNumberWidthOf(result.rows, metrics.monoChar);
    let left = rowNumberWidth;
    const order = displayOrder(result.columns, result.timeColumn);
    const frozen = result.timeColumn ? 1 : 0;
    return order.map((j, k) => {
      const c = result.columns[j]!;
      const kind = hints?.kinds?.get(c.name) ?? null;
      const stats = data.stats[j];
      const format = columnFormat({ name: c.name, type: c.type, kind, tickDecimals: hints?.tickDecimals ?? null, override: columnFormats.get(c.name) ?? null }, stats ?? NO_STATS);
      const unit = kind && KIND_UNIT[kind] && kind !== 'count' ? KIND_UNIT[kind] : '';
      const chars = cellChars(c.type, format, stats, data.longest[j] ?? 0);
      const width = drag?.name === c.name ? drag.width : (columnWidths.get(c.name) ?? autoWidth(unit ? `${c.name} ${unit}` : c.name, chars, metrics));
      const view: ColumnView = { j, name: c.name, type: c.type, numeric: isNumericType(c.type), format, width, left: k < frozen ? left : null, edge: k === frozen - 1, unit };
      if (k < frozen) left += width;
      return view;
    });
  }, [result, hints, data.version, data.stats, data.longest, drag, choices]);
  const monoChar = domMetrics().monoChar;
  const rowNumberWidth = result ? rowNumberWidthOf(result.rows, monoChar) : 0;
  const totalWidth = columns.reduce((a, c) => a + c.width, rowNumberWidth);

  useEffect(() => {
    setRange(null);
    setMenu(null);
    scroller.current?.scrollTo({ top: 0 });
  }, [result?.resultId]);

  const virtualizer = useVirtualizer({
    count: result?.rows ?? 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 30,
    scrollMargin: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
  });
  const items = virtualizer.getVirtualItems();
  const firstIndex = items[0]?.index ?? 0;
  const lastIndex = items[items.length - 1]?.index ?? 0;
  const { ensure } = data;
  useEffect(() => ensure(firstIndex, lastIndex), [ensure, firstIndex, lastIndex]);

  // the selection's focus is the store's selected row: a row picked elsewhere (a click on the chart)
  // starts a range of its own and is centred; the grid's own moves scroll only as far as needed
  useEffect(() => {
    if (selectedRow === null) {
      setRange(null);
    } else if (own.current === selectedRow) {
      virtualizer.scrollToIndex(selectedRow, { align: 'auto' });
    } else {
      setRange({ anchor: selectedRow, focus: selectedRow });
      virtualizer.scrollToIndex(selectedRow, { align: 'center' });
    }
    own.current = null;
  }, [selectedRow, virtualizer]);

  const moveTo = (row: number, extend: boolean): void => {
    const current = range ?? (selectedRow === null ? null : { anchor: selectedRow, focus: selectedRow });
    setRange(moveRange(current, row, extend));
    own.current = row;
    selectRow(row);
  };

  const copy = async (): Promise<void> => {
    if (!result || selectedRow === null) {
      notice('Select rows to copy: click, Shift+click or Shift+arrows, Ctrl+A for all');
      return;
    }
    const [lo, hi] = rangeBounds(range ?? { anchor: selectedRow, focus: selectedRow });
    const n = hi - lo + 1;
    if (n > COPY_LIMIT) {
      notice(`${n.toLocaleString('en-US')} rows selected: Copy takes up to ${COPY_LIMIT.toLocaleString('en-US')}; Export CSV writes them all`);
      return;
    }
    if (n > 10_000) notice(`Copying ${n.toLocaleString('en-US')} rows…`);
    try {
      const rows = await data.rows(lo, hi);
      const ok = await copyText(tsvText(result.columns.map((c) => c.name), rows));
      notice(ok ? `Copied ${rows.length.toLocaleString('en-US')} row${rows.length === 1 ? '' : 's'} as TSV with a header` : 'The browser refused the clipboard');
    } catch (e) {
      notice(`Copy failed: ${(e as Error).message}`);
    }
  };

  const onKeyDown = (e: React.KeyboardEvent): void => {
    if (!result || result.rows === 0 || e.altKey) return;
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
      setRange({ anchor: result.rows - 1, focus: 0 });
      own.current = 0;
      selectRow(0);
      return;
    }
    if (e.key === 'Enter' && onOpen && selectedRow !== null) {
      e.preventDefault();
      onOpen(selectedRow);
      return;
    }
    const pageRows = Math.floor(((scroller.current?.clientHeight ?? 0) - HEADER_HEIGHT) / ROW_HEIGHT) - 1;
    const to = keyTarget(e, selectedRow, result.rows, pageRows);
    if (to === null) return;
    e.preventDefault();
    moveTo(to, e.shiftKey);
  };

  const setOverride = (name: string, o: FormatOverride | null): void => {
    columnFormats.set(name, o);
    setChoices((v) => v + 1);
  };
  const fit = (name: string): void => {
    columnWidths.set(name, null);
    setChoices((v) => v + 1);
  };

  if (!result) return <section className="grid-panel empty muted">No result yet.</section>;
  const [lo, hi] = range ? rangeBounds(range) : selectedRow === null ? [-1, -1] : [selectedRow, selectedRow];
  const menuColumn = menu ? columns.find((c) => c.name === menu.name) : undefined;
  const margin = virtualizer.options.scrollMargin;
  return (
    <section className="grid-panel" aria-label={label}>
      <div
        className="grid-scroll"
        ref={scroller}
        tabIndex={0}
        role="grid"
        aria-rowcount={result.rows + 1}
        aria-multiselectable="true"
        onKeyDown={onKeyDown}
        data-testid={testId}
      >
        <GridHeader
          columns={columns}
          rowNumberWidth={rowNumberWidth}
          totalWidth={totalWidth}
          menuFor={menu?.name ?? null}
          onMenu={(name, at) => setMenu(menu?.name === name ? null : { name, x: Math.max(4, Math.min(at.right - 220, window.innerWidth - 236)), y: at.bottom + 2 })}
          onResize={(name, width, done) => {
            if (done) {
              columnWidths.set(name, width);
              setDrag(null);
              setChoices((v) => v + 1);
            } else setDrag({ name, width });
          }}
          onFit={fit}
        />
        <div style={{ height: virtualizer.getTotalSize(), width: totalWidth, position: 'relative' }}>
          {items.map((v) => {
            const i = v.index;
            return (
              <div
                key={v.key}
                role="row"
                aria-selected={i >= lo && i <= hi}
                className={`grid-row ${i === selectedRow ? 'selected' : i >= lo && i <= hi ? 'in-range' : ''} ${i % 2 ? 'odd' : ''}`}
                style={{ transform: `translateY(${v.start - margin}px)`, height: ROW_HEIGHT, width: totalWidth }}
                data-row={i}
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
                  const shown = text === undefined ? '…' : formatCell(c.format, text);
                  // the exact text on hover, where the format changed it or the column cuts it
                  const cut = text !== undefined && text.length * monoChar > c.width - CELL_PAD;
                  return (
                    <div
                      key={c.name}
                      role="gridcell"
                      className={`grid-cell ${c.numeric ? 'num' : ''} ${frozenClass(c)}`}
                      style={{ width: c.width, ...(c.left === null ? {} : { left: c.left }) }}
                      {...(text !== undefined && (text !== shown || cut) ? { title: text } : {})}
                    >
                      {shown}
                    </div>
                  );
                })}
              </div>
            );
          })}
        </div>
      </div>
      {menu && menuColumn && (
        <ColumnMenu
          name={menuColumn.name}
          type={menuColumn.type}
          format={menuColumn.format}
          override={columnFormats.get(menuColumn.name) ?? null}
          at={{ x: menu.x, y: menu.y }}
          onFormat={(o) => setOverride(menuColumn.name, o)}
          onFitWidth={() => fit(menuColumn.name)}
          onClose={() => {
            setMenu(null);
            scroller.current?.focus({ preventScroll: true });
          }}
        />
      )}
    </section>
  );
}

/** The `#` column's width: the largest row number with separators, whole. */
function rowNumberWidthOf(rows: number, monoChar: number): number {
  return Math.max(40, Math.ceil(rowNumberChars(rows) * monoChar) + 18);
}
