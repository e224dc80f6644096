/**
 * The result grid: virtualized rows (only those on screen exist in the DOM), fetched from the backend
 * a page at a time as they come into view, so a million-row result scrolls as smoothly as a small one.
 * Cells show text exactly as the CSV export writes it.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ColumnType, RunResponse } from '../../../engine/contract';
import { backend } from '../backend';
import { useStore } from '../store/store';

type RunOk = Extract<RunResponse, { ok: true }>;

const ROW_HEIGHT = 22;
const PAGE = 200;
const EAGER_ROWS = 5000;

const WIDTH: Record<ColumnType, number> = {
  timestamp: 232,
  timespan: 168,
  date: 96,
  symbol: 96,
  string: 200,
  float: 96,
  long: 96,
  int: 80,
  boolean: 64,
  'float[]': 280,
  'long[]': 240,
};

const NUMERIC = new Set<ColumnType>(['float', 'long', 'int']);

/** The grid of the store's current result. */
export function ResultGrid(): React.JSX.Element {
  const result = useStore((s) => s.result);
  const selectedRow = useStore((s) => s.selectedRow);
  const selectRow = useStore((s) => s.selectRow);
  return <ResultGridView result={result} selectedRow={selectedRow} selectRow={selectRow} />;
}

export interface ResultGridViewProps {
  readonly result: RunOk | null;
  readonly selectedRow: number | null;
  readonly selectRow: (row: number | null) => void;
  /** Enter or a double click on a row. */
  readonly onOpen?: (row: number) => void;
  readonly label?: string;
  readonly testId?: string;
}

/** A grid of any held result (the drill-down's orders, as well as the store's result). */
export function ResultGridView({ result, selectedRow, selectRow, onOpen, label = 'Result rows', testId = 'grid' }: ResultGridViewProps): React.JSX.Element {
  const current = useRef<string | null>(null);
  current.current = result?.resultId ?? null;
  const scroller = useRef<HTMLDivElement>(null);
  const pages = useRef(new Map<number, ReadonlyArray<readonly string[]>>());
  const pending = useRef(new Set<number>());
  const [, setVersion] = useState(0);

  const widths = useMemo(
    () => result?.columns.map((c) => Math.max(WIDTH[c.type], c.name.length * 7.5 + 16)) ?? [],
    [result],
  );
  const totalWidth = widths.reduce((a, b) => a + b, 56);

  useEffect(() => {
    pages.current = new Map();
    pending.current = new Set();
    setVersion((v) => v + 1);
    scroller.current?.scrollTo({ top: 0 });
  }, [result?.resultId]);

  const virtualizer = useVirtualizer({
    count: result?.rows ?? 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 30,
  });
  const items = virtualizer.getVirtualItems();

  const ensurePages = useCallback(
    (first: number, last: number) => {
      if (!result) return;
      for (let p = Math.floor(first / PAGE); p <= Math.floor(last / PAGE); p++) {
        if (pages.current.has(p) || pending.current.has(p)) continue;
        pending.current.add(p);
        const id = result.resultId;
        backend()
          .page(id, p * PAGE, PAGE)
          .then((page) => {
            if (id !== current.current) return;
            pages.current.set(p, page.rows);
            setVersion((v) => v + 1);
          })
          .catch(() => undefined)
          .finally(() => pending.current.delete(p));
      }
    },
    [result],
  );

  // Small results (getStats buckets) are read whole at once: the backend keeps only its latest few
  // results, and the stats view's ladder lookups run queries of their own.
  useEffect(() => {
    if (result && result.rows > 0 && result.rows <= EAGER_ROWS) ensurePages(0, result.rows - 1);
  }, [result, ensurePages]);

  const firstIndex = items[0]?.index ?? 0;
  const lastIndex = items[items.length - 1]?.index ?? 0;
  useEffect(() => ensurePages(firstIndex, lastIndex), [ensurePages, firstIndex, lastIndex]);

  useEffect(() => {
    if (selectedRow !== null) virtualizer.scrollToIndex(selectedRow, { align: 'center' });
  }, [selectedRow, virtualizer]);

  const onKeyDown = (e: React.KeyboardEvent): void => {
    if (!result || result.rows === 0) return;
    if (e.key === 'Enter' && onOpen && selectedRow !== null) {
      e.preventDefault();
      onOpen(selectedRow);
      return;
    }
    const step = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : e.key === 'PageDown' ? 20 : e.key === 'PageUp' ? -20 : 0;
    if (step === 0) return;
    e.preventDefault();
    selectRow(Math.max(0, Math.min(result.rows - 1, (selectedRow ?? -1) + step)));
  };

  if (!result) return <section className="grid-panel empty muted">No result yet.</section>;
  const cell = (row: number, col: number): string | undefined => pages.current.get(Math.floor(row / PAGE))?.[row % PAGE]?.[col];
  return (
    <section className="grid-panel" aria-label={label}>
      <div className="grid-scroll" ref={scroller} tabIndex={0} onKeyDown={onKeyDown} data-testid={testId}>
        <div className="grid-header" style={{ width: totalWidth }}>
          <div className="grid-cell rownum">#</div>
          {result.columns.map((c, j) => (
            <div key={c.name} className={`grid-cell ${NUMERIC.has(c.type) ? 'num' : ''}`} style={{ width: widths[j] }} title={`${c.name} (${c.type})`}>
              {c.name}
            </div>
          ))}
        </div>
        <div style={{ height: virtualizer.getTotalSize(), width: totalWidth, position: 'relative' }}>
          {items.map((v) => (
            <div
              key={v.key}
              className={`grid-row ${v.index === selectedRow ? 'selected' : ''} ${v.index % 2 ? 'odd' : ''}`}
              style={{ transform: `translateY(${v.start}px)`, height: ROW_HEIGHT }}
              data-row={v.index}
              onClick={() => selectRow(v.index)}
              {...(onOpen ? { onDoubleClick: () => onOpen(v.index) } : {})}
            >
              <div className="grid-cell rownum">{v.index + 1}</div>
              {result.columns.map((c, j) => (
                <div key={c.name} className={`grid-cell ${NUMERIC.has(c.type) ? 'num' : ''}`} style={{ width: widths[j] }}>
                  {cell(v.index, j) ?? '…'}
                </div>
              ))}
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}
