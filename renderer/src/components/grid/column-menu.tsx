/**
 * A grid column's header menu: the sort (ascending, descending, the result's order), the number
 * format (decimals − and +, thousands separators, the exact text as in the CSV, back to the inferred
 * format), the column's width (fit), its place (left, right, hide) and which columns show. The menu
 * floats over the grid at the header's button, closes on Escape, a click elsewhere or a choice that
 * ends it.
 */
import { useEffect, useRef } from 'react';
import type { ColumnType } from '../../../../engine/contract';
import type { SortDir } from '../../grid/column-layout';
import { clampDecimals, type ColumnFormat, describeFormat, type FormatOverride, formatDecimals } from '../../grid/number-format';

export interface ColumnMenuProps {
  readonly name: string;
  readonly type: ColumnType;
  /** The format shown now (the override applied) and the one inferred without the override. */
  readonly format: ColumnFormat;
  readonly override: FormatOverride | null;
  /** Where the menu's top left corner goes (viewport pixels). */
  readonly at: { readonly x: number; readonly y: number };
  readonly onFormat: (o: FormatOverride | null) => void;
  readonly onFitWidth: () => void;
  readonly onClose: () => void;
  /** This column's sort direction, or null when the grid is not sorted by it. */
  readonly sort: SortDir | null;
  readonly onSort: (dir: SortDir | null) => void;
  /** Moves the column one place left (-1) or right (1); null where it cannot go. */
  readonly onMove: ((delta: -1 | 1) => void) | null;
  readonly canMove: { readonly left: boolean; readonly right: boolean };
  /** Every column of the result in display order, and whether it is hidden. */
  readonly columns: ReadonlyArray<{ readonly name: string; readonly hidden: boolean }>;
  readonly onToggleHidden: (name: string) => void;
  readonly onShowAll: () => void;
}

/** A menu item with a check mark column. */
function Item(p: { readonly checked?: boolean; readonly disabled?: boolean; readonly onClick: () => void; readonly children: React.ReactNode; readonly testId?: string }): React.JSX.Element {
  return (
    <button type="button" role={p.checked === undefined ? 'menuitem' : 'menuitemcheckbox'} aria-checked={p.checked} disabled={p.disabled} onClick={p.onClick} {...(p.testId ? { 'data-testid': p.testId } : {})}>
      <span className="check">{p.checked ? '✓' : ''}</span>
      {p.children}
    </button>
  );
}

export function ColumnMenu(p: ColumnMenuProps): React.JSX.Element {
  const box = useRef<HTMLDivElement>(null);
  const close = useRef(p.onClose);
  close.current = p.onClose;
  useEffect(() => {
    box.current?.querySelector<HTMLButtonElement>('button:not(:disabled)')?.focus();
    const away = (e: MouseEvent): void => {
      const t = e.target as Element;
      // the header's own menu button toggles the menu itself
      if (!box.current?.contains(t) && !t.closest?.('.grid-hmenu')) close.current();
    };
    document.addEventListener('mousedown', away, true);
    return () => document.removeEventListener('mousedown', away, true);
  }, []);
  const f = p.format;
  const o = p.override ?? {};
  const decimals = formatDecimals(f);
  const numeric = f.style !== 'exact' || o.exact === true;
  const set = (next: FormatOverride): void => p.onFormat(Object.keys(next).length ? next : null);
  const withDecimals = (d: number): void => {
    const { exact: _e, ...rest } = o;
    set({ ...rest, decimals: clampDecimals(d) });
  };
  const grouping = f.style === 'fixed' || f.style === 'integer' ? f.grouping : null;
  const visible = p.columns.filter((c) => !c.hidden).length;
  const hidden = p.columns.length - visible;
  return (
    <div
      className="grid-menu"
      role="menu"
      aria-label={`${p.name} column`}
      ref={box}
      tabIndex={-1}
      style={{ left: p.at.x, top: p.at.y, maxHeight: `calc(100vh - ${Math.round(p.at.y) + 8}px)` }}
      data-testid="grid-menu"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          p.onClose();
        }
      }}
    >
      <div className="grid-menu-title">
        {p.name} <span className="muted">{p.type}</span>
      </div>
      <Item checked={p.sort === 'asc'} onClick={() => p.onSort(p.sort === 'asc' ? null : 'asc')} testId="grid-menu-sort-asc">
        Sort ascending <span className="grid-menu-key">▲</span>
      </Item>
      <Item checked={p.sort === 'desc'} onClick={() => p.onSort(p.sort === 'desc' ? null : 'desc')} testId="grid-menu-sort-desc">
        Sort descending <span className="grid-menu-key">▼</span>
      </Item>
      <div className="grid-menu-sep" />
      {numeric && (
        <>
          <div className="grid-menu-row">
            <span>{f.style === 'sci' ? 'Digits' : 'Decimals'}</span>
            <span className="grid-menu-stepper">
              <button type="button" role="menuitem" aria-label="fewer decimals" data-testid="grid-menu-less" disabled={decimals === null || decimals <= 0} onClick={() => decimals !== null && withDecimals(decimals - 1)}>
                −
              </button>
              <span className="grid-menu-value">{decimals ?? '–'}</span>
              <button type="button" role="menuitem" aria-label="more decimals" data-testid="grid-menu-more" disabled={decimals === null} onClick={() => decimals !== null && withDecimals(decimals + 1)}>
                +
              </button>
            </span>
          </div>
          <button type="button" role="menuitemcheckbox" aria-checked={grouping === true} disabled={grouping === null} onClick={() => set({ ...o, grouping: !grouping })}>
            <span className="check">{grouping ? '✓' : ''}</span>Thousands separators
          </button>
          <button type="button" role="menuitemcheckbox" aria-checked={o.exact === true} data-testid="grid-menu-exact" onClick={() => set(o.exact ? {} : { exact: true })}>
            <span className="check">{o.exact ? '✓' : ''}</span>Exact, as in the CSV
          </button>
          <button type="button" role="menuitem" disabled={p.override === null} onClick={() => p.onFormat(null)}>
            <span className="check" />
            Inferred format
          </button>
          <div className="grid-menu-note muted">{describeFormat(f)}</div>
        </>
      )}
      <button
        type="button"
        role="menuitem"
        onClick={() => {
          p.onFitWidth();
          p.onClose();
        }}
      >
        <span className="check" />
        Fit width
      </button>
      <div className="grid-menu-sep" />
      <Item disabled={!p.onMove || !p.canMove.left} onClick={() => p.onMove?.(-1)}>
        Move left
      </Item>
      <Item disabled={!p.onMove || !p.canMove.right} onClick={() => p.onMove?.(1)}>
        Move right
      </Item>
      <Item
        disabled={visible <= 1}
        testId="grid-menu-hide"
        onClick={() => {
          p.onToggleHidden(p.name);
          p.onClose();
        }}
      >
        Hide {p.name}
      </Item>
      <div className="grid-menu-sep" />
      <div className="grid-menu-row grid-menu-head">
        <span>Columns</span>
        <button type="button" role="menuitem" className="link-button" disabled={hidden === 0} onClick={() => {
            p.onShowAll();
            // the button is disabled now: keep the focus in the menu, where Escape closes it
            box.current?.focus();
          }}
          data-testid="grid-menu-show-all"
        >
          show all{hidden ? ` (${hidden} hidden)` : ''}
        </button>
      </div>
      <div className="grid-menu-columns" data-testid="grid-menu-columns">
        {p.columns.map((c) => (
          <Item key={c.name} checked={!c.hidden} disabled={!c.hidden && visible <= 1} onClick={() => p.onToggleHidden(c.name)}>
            <span className="grid-menu-colname">{c.name}</span>
          </Item>
        ))}
      </div>
    </div>
  );
}
