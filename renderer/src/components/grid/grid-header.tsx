/**
 * The grid's header row: `#` and the time column frozen at the left, every name whole (the column is
 * at least as wide as its name, a tooltip says the name, type and format). A click on a header sorts
 * by it (ascending, descending, back to the result's order; an arrow shows which); dragging a header
 * onto another moves it there; a menu button per column, and a handle at each header's right edge
 * that resizes the column by dragging (double click: fit).
 */
import { useRef, useState } from 'react';
import type { ColumnType } from '../../../../engine/contract';
import type { GridSort } from '../../grid/column-layout';
import { MIN_WIDTH } from '../../grid/layout';
import type { ColumnFormat } from '../../grid/number-format';
import { describeFormat } from '../../grid/number-format';

/** A column as the grid lays it out. */
export interface ColumnView {
  /** Index in the result's columns (and in each page row). */
  readonly j: number;
  readonly name: string;
  readonly type: ColumnType;
  readonly numeric: boolean;
  readonly format: ColumnFormat;
  readonly width: number;
  /** Sticky left offset of a frozen column, else null. */
  readonly left: number | null;
  /** The last frozen column (it draws the divider). */
  readonly edge: boolean;
  /** A unit after the name (a summary function's kind: bps, %, sh). */
  readonly unit: string;
}

export interface GridHeaderProps {
  readonly columns: readonly ColumnView[];
  readonly rowNumberWidth: number;
  readonly totalWidth: number;
  /** The column whose menu is open. */
  readonly menuFor: string | null;
  readonly onMenu: (name: string, anchor: DOMRect) => void;
  /** Live width while dragging; `done` when the drag ends. */
  readonly onResize: (name: string, width: number, done: boolean) => void;
  readonly onFit: (name: string) => void;
  readonly sort: GridSort | null;
  /** A sort asked for and not answered yet. */
  readonly pending: GridSort | null;
  readonly onSort: (name: string) => void;
  /** Moves a (not frozen) column beside another one. */
  readonly onMove: (name: string, target: string, side: 'before' | 'after') => void;
  /** Columns hidden from the menu (the `#` header says how many). */
  readonly hiddenCount: number;
}

/** Classes of a cell in a frozen column. */
export const frozenClass = (c: Pick<ColumnView, 'left' | 'edge'>): string => (c.left === null ? '' : c.edge ? 'frozen edge' : 'frozen');

/** The drag's data type: a header being moved. */
const DRAG_TYPE = 'application/x-tickscope-column';

function ResizeHandle({ c, onResize, onFit }: { readonly c: ColumnView } & Pick<GridHeaderProps, 'onResize' | 'onFit'>): React.JSX.Element {
  const drag = useRef<{ x: number; width: number; last: number } | null>(null);
  return (
    <span
      className="grid-resize"
      role="separator"
      aria-orientation="vertical"
      aria-label={`resize ${c.name}`}
      title="Drag to resize · double click to fit"
      data-testid={`grid-resize-${c.name}`}
      // the header moves by dragging; its edge resizes, never moves it
      draggable
      onDragStart={(e) => {
        e.preventDefault();
        e.stopPropagation();
      }}
      onClick={(e) => e.stopPropagation()}
      onPointerDown={(e) => {
        e.preventDefault();
        e.stopPropagation();
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { x: e.clientX, width: c.width, last: c.width };
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (!d) return;
        d.last = Math.max(MIN_WIDTH, Math.round(d.width + e.clientX - d.x));
        onResize(c.name, d.last, false);
      }}
      onPointerUp={(e) => {
        const d = drag.current;
        drag.current = null;
        if (d) onResize(c.name, d.last, true);
        e.currentTarget.releasePointerCapture(e.pointerId);
      }}
      onDoubleClick={(e) => {
        e.stopPropagation();
        onFit(c.name);
      }}
    />
  );
}

const ARIA_SORT = { asc: 'ascending', desc: 'descending' } as const;

export function GridHeader(p: GridHeaderProps): React.JSX.Element {
  const [dragged, setDragged] = useState<string | null>(null);
  const [drop, setDrop] = useState<{ readonly name: string; readonly side: 'before' | 'after' } | null>(null);
  const sideOf = (e: React.DragEvent<HTMLElement>): 'before' | 'after' => {
    const r = e.currentTarget.getBoundingClientRect();
    return e.clientX < r.left + r.width / 2 ? 'before' : 'after';
  };
  return (
    <div className="grid-header" role="row" style={{ width: p.totalWidth }}>
      <div className="grid-cell rownum frozen" role="columnheader" style={{ width: p.rowNumberWidth }} title={p.hiddenCount ? `${p.hiddenCount} column${p.hiddenCount === 1 ? '' : 's'} hidden: a header's menu (▾) shows ${p.hiddenCount === 1 ? 'it' : 'them'} again` : 'Row number'}>
        #{p.hiddenCount > 0 && <span className="grid-hidden-mark" data-testid="grid-hidden-count">+{p.hiddenCount}</span>}
      </div>
      {p.columns.map((c) => {
        const sorted = p.sort?.column === c.name ? p.sort.dir : null;
        const pending = p.pending?.column === c.name ? p.pending.dir : null;
        const arrow = pending ?? sorted;
        const movable = c.left === null;
        return (
          <div
            key={c.name}
            role="columnheader"
            aria-sort={sorted ? ARIA_SORT[sorted] : 'none'}
            data-col={c.name}
            className={`grid-cell grid-hcell ${c.numeric ? 'num' : ''} ${frozenClass(c)} ${dragged === c.name ? 'dragging' : ''} ${drop?.name === c.name ? `drop-${drop.side}` : ''}`}
            style={{ width: c.width, ...(c.left === null ? {} : { left: c.left }) }}
            title={`${c.name} · ${c.type}${c.numeric ? ` · ${describeFormat(c.format)}` : ''}${c.left === null ? '' : ' · frozen'}\nClick to sort${movable ? ' · drag to move' : ''}`}
            onClick={() => p.onSort(c.name)}
            draggable={movable}
            onDragStart={(e) => {
              e.dataTransfer.setData(DRAG_TYPE, c.name);
              e.dataTransfer.effectAllowed = 'move';
              // after the browser has taken its drag image: a re-render inside dragstart can end the drag
              setTimeout(() => setDragged(c.name), 0);
            }}
            onDragEnd={() => {
              setDragged(null);
              setDrop(null);
            }}
            onDragOver={(e) => {
              // the drag's types, not state: the first dragover can come before a re-render
              if (!movable || !e.dataTransfer.types.includes(DRAG_TYPE) || dragged === c.name) return;
              e.preventDefault();
              e.dataTransfer.dropEffect = 'move';
              const side = sideOf(e);
              if (drop?.name !== c.name || drop.side !== side) setDrop({ name: c.name, side });
            }}
            onDragLeave={() => drop?.name === c.name && setDrop(null)}
            onDrop={(e) => {
              e.preventDefault();
              const name = e.dataTransfer.getData(DRAG_TYPE) || dragged;
              if (name && name !== c.name) p.onMove(name, c.name, sideOf(e));
              setDragged(null);
              setDrop(null);
            }}
          >
            <span className="grid-hname">{c.name}</span>
            {c.unit && <span className="grid-hunit">{c.unit}</span>}
            {arrow && (
              <span className={`grid-hsort ${pending ? 'pending' : ''}`} data-testid={`grid-sort-${c.name}`} aria-hidden>
                {arrow === 'asc' ? '▲' : '▼'}
              </span>
            )}
            <button
              type="button"
              className={`grid-hmenu ${p.menuFor === c.name ? 'open' : ''}`}
              aria-label={`${c.name} column menu`}
              aria-haspopup="menu"
              aria-expanded={p.menuFor === c.name}
              tabIndex={-1}
              data-testid={`grid-menu-${c.name}`}
              draggable
              onDragStart={(e) => {
                e.preventDefault();
                e.stopPropagation();
              }}
              onClick={(e) => {
                e.stopPropagation();
                p.onMenu(c.name, e.currentTarget.getBoundingClientRect());
              }}
            >
              ▾
            </button>
            <ResizeHandle c={c} onResize={p.onResize} onFit={p.onFit} />
          </div>
        );
      })}
    </div>
  );
}
