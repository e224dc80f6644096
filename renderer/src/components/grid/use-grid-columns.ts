/**
 * The grid's columns as laid out on screen: which show and in what order (grid/column-layout.ts,
 * the choices kept for the session by name), each one's format and width from the rows read so far,
 * the frozen time column's offset; and the actions of the header and its menu on them.
 */
import { useMemo, useState } from 'react';
import type { RunResponse } from '../../../../engine/contract';
import { arrangeColumns, type ColumnPrefs, moveColumn } from '../../grid/column-layout';
import { autoWidth, cellChars, columnFormats, columnHidden, columnOrder, columnWidths, domMetrics, ORDER_KEY, rowNumberChars } from '../../grid/layout';
import { columnFormat, type FormatOverride, isNumericType, NO_STATS } from '../../grid/number-format';
import { KIND_UNIT } from '../../orders/tca';
import type { GridHints } from '../result-grid';
import type { ColumnView } from './grid-header';
import type { ResultPages } from './use-result-pages';

type RunOk = Extract<RunResponse, { ok: true }>;

const prefs = (): ColumnPrefs => ({ order: columnOrder.get(ORDER_KEY) ?? [], hidden: (n) => columnHidden.get(n) === true });

export interface GridColumns {
  readonly columns: readonly ColumnView[];
  readonly rowNumberWidth: number;
  readonly totalWidth: number;
  readonly monoChar: number;
  /** Every column in display order with whether it is hidden (the menu's list). */
  readonly all: ReadonlyArray<{ readonly name: string; readonly hidden: boolean }>;
  /** Names of the columns that move (all but the frozen time column), in display order, hidden ones included. */
  readonly movable: readonly string[];
  setDrag(d: { readonly name: string; readonly width: number } | null): void;
  setWidth(name: string, width: number | null): void;
  setFormat(name: string, o: FormatOverride | null): void;
  toggleHidden(name: string): void;
  showAll(): void;
  move(name: string, target: string, side: 'before' | 'after'): void;
}

/** The `#` column's width: the largest row number with separators, whole. */
function rowNumberWidthOf(rows: number, monoChar: number): number {
  return Math.max(40, Math.ceil(rowNumberChars(rows) * monoChar) + 18);
}

/** Room a sorted column's header takes for its arrow. */
const SORT_ARROW = 12;

/** The columns of `result`; `sortedBy` (the sorted column) gets room for its arrow unless its width was set by hand. */
export function useGridColumns(result: RunOk | null, hints: GridHints | undefined, data: ResultPages, sortedBy: string | null): GridColumns {
  const [drag, setDrag] = useState<{ readonly name: string; readonly width: number } | null>(null);
  const [choices, setChoices] = useState(0);
  const changed = (): void => setChoices((v) => v + 1);
  const monoChar = domMetrics().monoChar;

  // recomputed as pages arrive (data.version: the stats and longest texts only grow, so formats and
  // widths only widen) and when a header's menu, edge or drag changes a column (drag, choices)
  const laid = useMemo(() => {
    if (!result) return { columns: [] as ColumnView[], all: [], movable: [] as string[] };
    const metrics = domMetrics();
    let left = rowNumberWidthOf(result.rows, metrics.monoChar);
    const order = arrangeColumns(result.columns, result.timeColumn, prefs());
    const everything = arrangeColumns(result.columns, result.timeColumn, { ...prefs(), hidden: () => false });
    const frozen = result.timeColumn && order.length > 0 && result.columns[order[0]!]!.name === result.timeColumn ? 1 : 0;
    const columns = order.map((j, k) => {
      const c = result.columns[j]!;
      const kind = hints?.kinds?.get(c.name) ?? null;
      const stats = data.stats[j];
      const format = columnFormat({ name: c.name, type: c.type, kind, tickDecimals: hints?.tickDecimals ?? null, override: columnFormats.get(c.name) ?? null }, stats ?? NO_STATS);
      const unit = kind && KIND_UNIT[kind] && kind !== 'count' ? KIND_UNIT[kind] : '';
      const chars = cellChars(c.type, format, stats, data.longest[j] ?? 0);
      const width = drag?.name === c.name ? drag.width : (columnWidths.get(c.name) ?? autoWidth(unit ? `${c.name} ${unit}` : c.name, chars, metrics) + (sortedBy === c.name ? SORT_ARROW : 0));
      const view: ColumnView = { j, name: c.name, type: c.type, numeric: isNumericType(c.type), format, width, left: k < frozen ? left : null, edge: k === frozen - 1, unit };
      if (k < frozen) left += width;
      return view;
    });
    const all = everything.map((j) => ({ name: result.columns[j]!.name, hidden: columnHidden.get(result.columns[j]!.name) === true }));
    const movable = everything.map((j) => result.columns[j]!.name).filter((n) => n !== result.timeColumn);
    return { columns, all, movable };
  }, [result, hints, data.version, data.stats, data.longest, drag, choices, sortedBy]);

  const rowNumberWidth = result ? rowNumberWidthOf(result.rows, monoChar) : 0;
  return {
    ...laid,
    rowNumberWidth,
    totalWidth: laid.columns.reduce((a, c) => a + c.width, rowNumberWidth),
    monoChar,
    setDrag,
    setWidth: (name, width) => {
      columnWidths.set(name, width);
      setDrag(null);
      changed();
    },
    setFormat: (name, o) => {
      columnFormats.set(name, o);
      changed();
    },
    toggleHidden: (name) => {
      columnHidden.set(name, columnHidden.get(name) === true ? null : true);
      changed();
    },
    showAll: () => {
      for (const c of laid.all) if (c.hidden) columnHidden.set(c.name, null);
      changed();
    },
    move: (name, target, side) => {
      columnOrder.set(ORDER_KEY, moveColumn(columnOrder.get(ORDER_KEY) ?? [], laid.movable, name, target, side));
      changed();
    },
  };
}
