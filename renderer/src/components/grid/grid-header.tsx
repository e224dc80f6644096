/**
 * The grid's header row: `#` and the time column frozen at the left, every name whole (the column is
 * at least as wide as its name, a tooltip says the name, type and format), a menu button per column
 * and a handle at each header's right edge that resizes the column by dragging (double click: fit).
 */
import { useRef } from 'react';
import type { ColumnType } from '../../../../engine/contract';
import type { ColumnFormat } from '../../grid/number-format';
import { describeFormat } from '../../grid/number-format';
import { MIN_WIDTH } from '../../grid/layout';

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
}

/** Classes of a cell in a frozen column. */
export const frozenClass = (c: Pick<ColumnView, 'left' | 'edge'>): string => (c.left === null ? '' : c.edge ? 'frozen edge' : 'frozen');

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

export function GridHeader(p: GridHeaderProps): React.JSX.Element {
  return (
    <div className="grid-header" role="row" style={{ width: p.totalWidth }}>
      <div className="grid-cell rownum frozen" role="columnheader" style={{ width: p.rowNumberWidth }}>
        #
      </div>
      {p.columns.map((c) => (
        <div
          key={c.name}
          role="columnheader"
          data-col={c.name}
          className={`grid-cell grid-hcell ${c.numeric ? 'num' : ''} ${frozenClass(c)}`}
          style={{ width: c.width, ...(c.left === null ? {} : { left: c.left }) }}
          title={`${c.name} · ${c.type}${c.numeric ? ` · ${describeFormat(c.format)}` : ''}${c.left === null ? '' : ' · frozen'}`}
        >
          <span className="grid-hname">{c.name}</span>
          {c.unit && <span className="grid-hunit">{c.unit}</span>}
          <button
            type="button"
            className={`grid-hmenu ${p.menuFor === c.name ? 'open' : ''}`}
            aria-label={`${c.name} column menu`}
            aria-haspopup="menu"
            aria-expanded={p.menuFor === c.name}
            tabIndex={-1}
            data-testid={`grid-menu-${c.name}`}
            onClick={(e) => p.onMenu(c.name, e.currentTarget.getBoundingClientRect())}
          >
            ▾
          </button>
          <ResizeHandle c={c} onResize={p.onResize} onFit={p.onFit} />
        </div>
      ))}
    </div>
  );
}
