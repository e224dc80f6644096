/**
 * The group legend: one button per group with its colour; a click (or Enter/Space) shows or hides the
 * group, Shift+click shows it alone, "all" shows every group. In single mode (the order book, whose
 * ladder follows one book) a click picks the group. Plain buttons: Tab reaches each one.
 */

export interface GroupLegendProps {
  readonly labels: readonly string[];
  readonly colours: readonly string[];
  readonly shown: ReadonlySet<number>;
  readonly onChange: (shown: ReadonlySet<number>) => void;
  /** One group at a time. */
  readonly single?: boolean;
}

/** The next set of shown groups after a click on group `g` (with Shift: solo). */
export function toggleGroup(shown: ReadonlySet<number>, g: number, solo: boolean, single: boolean): Set<number> {
  if (single || solo) return new Set([g]);
  const next = new Set(shown);
  if (next.has(g)) next.delete(g);
  else next.add(g);
  return next;
}

/** Legend buttons at most; further groups are offered in a select (a result may have hundreds). */
export const LEGEND_BUTTONS = 40;

/** The legend. */
export function GroupLegend(p: GroupLegendProps): React.JSX.Element {
  const all = p.labels.length > 1 && !p.single && p.shown.size < p.labels.length;
  const buttons = p.labels.map((_, g) => g).filter((g) => g < LEGEND_BUTTONS || p.shown.has(g));
  const rest = p.labels.map((_, g) => g).filter((g) => !buttons.includes(g));
  return (
    <div className="group-legend" role="group" aria-label={p.single ? 'Group (one at a time)' : 'Groups: click to show or hide, Shift+click to show alone'} data-testid="group-legend">
      {buttons.map((g) => {
        const label = p.labels[g]!;
        const on = p.shown.has(g);
        return (
          <button
            key={`${g}-${label}`}
            type="button"
            className={`legend-item ${on ? 'on' : ''}`}
            aria-pressed={on}
            data-testid={`legend-${label}`}
            title={p.single ? `Show ${label}` : `${on ? 'Hide' : 'Show'} ${label} (Shift+click: only ${label})`}
            onClick={(e) => p.onChange(toggleGroup(p.shown, g, e.shiftKey, p.single ?? false))}
          >
            <i style={{ background: on ? p.colours[g] : 'transparent', borderColor: p.colours[g] }} />
            {label}
          </button>
        );
      })}
      {rest.length > 0 && (
        <select aria-label="more groups" data-testid="legend-more" className="legend-more" value="" onChange={(e) => e.target.value !== '' && p.onChange(toggleGroup(p.shown, Number(e.target.value), false, p.single ?? false))}>
          <option value="">+{rest.length} more…</option>
          {rest.map((g) => (
            <option key={g} value={g}>
              {p.labels[g]}
            </option>
          ))}
        </select>
      )}
      {all && (
        <button type="button" className="legend-item all" data-testid="legend-all" title="Show every group" onClick={() => p.onChange(new Set(p.labels.map((_, g) => g)))}>
          all
        </button>
      )}
    </div>
  );
}
