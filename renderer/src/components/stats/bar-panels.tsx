/**
 * A getStats result without buckets as a bar chart: one panel per aggregate (small multiples side by
 * side), one horizontal bar per group, every group, all panels in the same group order (by one
 * aggregate's value, descending, or by the group key). Values are written beside their bars in the
 * grid's format; hovering a bar shows its exact value and marks the group in every panel; a click
 * selects the group's row in the grid, and the grid's selected row is marked here. Rows are as tall
 * as fit, down to a minimum; beyond it the panels scroll together (virtualized: results may hold
 * thousands of groups).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { exactText, formatReadout } from '../../chart/value-format';
import type { ColumnFormat } from '../../grid/number-format';
import { barDomain, barOrder, barRowHeight, barSpan, type BarSort, panelValues } from '../../stats/bar-model';
import type { StatsModel } from '../../stats/stats-model';
import { useSize } from '../orders/use-size';

/** The sticky header row's height (px). */
const HEAD_H = 22;

export interface BarPanelsProps {
  readonly model: StatsModel;
  readonly colours: readonly string[];
  /** Each column's grid format, by name. */
  readonly formats: ReadonlyMap<string, ColumnFormat>;
  readonly sort: BarSort;
  readonly onSort: (sort: BarSort) => void;
  /** The group of the grid's selected row. */
  readonly selected: number | null;
  readonly onSelect: (group: number) => void;
}

interface Hover {
  readonly group: number;
  readonly column: number;
  readonly x: number;
  readonly y: number;
}

/** The bar chart. */
export function BarPanels(p: BarPanelsProps): React.JSX.Element {
  const { model } = p;
  const [box, size] = useSize();
  const scroller = useRef<HTMLDivElement>(null);
  const [hover, setHover] = useState<Hover | null>(null);
  const n = model.groups.length;

  const panels = useMemo(
    () =>
      model.columns.map((name, c) => {
        const values = panelValues(model, c);
        const format = p.formats.get(name);
        const texts = Array.from(values, (v) => (format ? formatReadout(format, v) : exactText(v)));
        return { name, values, texts, domain: barDomain(values), chars: Math.max(1, ...texts.map((t) => t.length)) };
      }),
    [model, p.formats],
  );
  const sortColumn = Math.min(p.sort.column, Math.max(0, panels.length - 1));
  const order = useMemo(() => barOrder(panels[sortColumn]?.values ?? new Float64Array(n), p.sort.byValue), [panels, sortColumn, p.sort.byValue, n]);
  const rowH = barRowHeight(n, size.h - HEAD_H - 8);
  const virtualizer = useVirtualizer({ count: n, getScrollElement: () => scroller.current, estimateSize: () => rowH, overscan: 12, scrollMargin: HEAD_H });
  useEffect(() => virtualizer.measure(), [virtualizer, rowH]);
  const rows = virtualizer.getVirtualItems();
  const total = virtualizer.getTotalSize();
  const labelChars = Math.min(32, Math.max(5, ...model.groups.map((g) => g.label.length), model.groupColumns.join(' · ').length));
  const columns = `calc(${labelChars}ch + 24px) ${panels.map((q) => `minmax(max(calc(${q.chars}ch + 44px), calc(${q.name.length + 2}ch + 10px)), 1fr)`).join(' ')}`;

  const onMove = (e: React.MouseEvent, group: number, column: number): void => {
    const r = box.current?.getBoundingClientRect();
    if (r) setHover({ group, column, x: e.clientX - r.left, y: e.clientY - r.top });
  };
  const rowClass = (g: number): string => `bar-row${hover?.group === g ? ' hover' : ''}${p.selected === g ? ' selected' : ''}`;
  const hovered = hover ? panels[hover.column] : undefined;

  return (
    <div className="bar-chart" ref={box} data-testid="bar-chart" data-groups={n} data-panels={panels.length} data-sort={p.sort.byValue ? `value:${panels[sortColumn]?.name ?? ''}` : 'key'} onMouseLeave={() => setHover(null)}>
      <div className="bar-scroll" ref={scroller}>
        <div className="bar-grid" style={{ gridTemplateColumns: columns }}>
          <div className="bar-head bar-label-head" title={model.groupColumns.join(' · ')}>
            {model.groupColumns.join(' · ') || 'group'}
          </div>
          {panels.map((q, c) => {
            const on = p.sort.byValue && c === sortColumn;
            return (
              <button
                key={q.name}
                type="button"
                className={`bar-head${on ? ' on' : ''}`}
                data-testid="bar-panel-head"
                aria-pressed={on}
                title={on ? `Groups sorted by ${q.name}, largest first` : `Sort the groups by ${q.name}, largest first`}
                onClick={() => p.onSort({ column: c, byValue: true })}
              >
                {q.name}
                {on && <span className="sort-mark"> ▼</span>}
              </button>
            );
          })}
          <div className="bar-labels" style={{ height: total }}>
            {rows.map((r) => {
              const g = order[r.index]!;
              return (
                <div key={g} className={rowClass(g)} style={{ top: r.start - HEAD_H, height: rowH }} data-testid="bar-label" onClick={() => p.onSelect(g)}>
                  <i className="swatch" style={{ background: p.colours[g] }} />
                  <span className="bar-label-text" title={model.groups[g]?.label}>
                    {model.groups[g]?.label}
                  </span>
                </div>
              );
            })}
          </div>
          {panels.map((q, c) => {
            const zero = q.domain.hi > q.domain.lo ? (-q.domain.lo / (q.domain.hi - q.domain.lo)) * 100 : 0;
            return (
              <div key={q.name} className="bar-panel" style={{ height: total, ['--value-w' as string]: `calc(${q.chars}ch + 6px)` }} data-testid="bar-panel" data-column={q.name}>
                {q.domain.lo < 0 && <i className="bar-zero" style={{ left: `calc((100% - var(--value-w)) * ${zero / 100})` }} />}
                {rows.map((r) => {
                  const g = order[r.index]!;
                  const v = q.values[g]!;
                  const span = barSpan(q.domain, v);
                  return (
                    <div
                      key={g}
                      className={rowClass(g)}
                      style={{ top: r.start - HEAD_H, height: rowH }}
                      data-testid="bar"
                      data-group={model.groups[g]?.label}
                      data-value={exactText(v)}
                      onMouseMove={(e) => onMove(e, g, c)}
                      onClick={() => p.onSelect(g)}
                    >
                      <span className="bar-track">
                        <i className={v < 0 ? 'neg' : undefined} style={{ left: `${span.start * 100}%`, width: `${span.width * 100}%`, background: p.colours[g] }} />
                      </span>
                      <span className={`bar-value${v < 0 ? ' neg' : ''}`}>{q.texts[g]}</span>
                    </div>
                  );
                })}
              </div>
            );
          })}
        </div>
      </div>
      {hover && hovered && (
        <div className="bar-tip" data-testid="bar-tip" style={{ left: Math.min(hover.x + 14, Math.max(0, size.w - 230)), top: hover.y + 16 }}>
          <b style={{ color: p.colours[hover.group] }}>{model.groups[hover.group]?.label}</b> <span className="muted">{hovered.name}</span>
          <div className="bar-tip-exact" data-testid="bar-tip-value">
            {exactText(hovered.values[hover.group]) || 'null'}
          </div>
        </div>
      )}
      {panels.length === 0 && <div className="muted ladder-note">No numeric aggregate to compare: see the grid below.</div>}
    </div>
  );
}
