/**
 * A grid column's header menu: the number format (decimals − and +, thousands separators, the exact
 * text as in the CSV, back to the inferred format) and the column's width (fit). The menu floats over
 * the grid at the header's button, closes on Escape, a click elsewhere or a choice that ends it.
 */
import { useEffect, useRef } from 'react';
import type { ColumnType } from '../../../../engine/contract';
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
  return (
    <div
      className="grid-menu"
      role="menu"
      aria-label={`${p.name} column`}
      ref={box}
      style={{ left: p.at.x, top: p.at.y }}
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
    </div>
  );
}
