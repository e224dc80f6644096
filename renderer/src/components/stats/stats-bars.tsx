/**
 * A getStats result without buckets: one row per group, one column per numeric aggregate, each value
 * with a bar scaled to its column's largest magnitude, so groups compare at a glance.
 */
import type { StatsModel } from '../../stats/stats-model';

const fmt = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 8 });

export interface StatsBarsProps {
  readonly model: StatsModel;
  readonly colours: readonly string[];
  readonly shown: ReadonlySet<number>;
}

/** The bars table. */
export function StatsBars({ model, colours, shown }: StatsBarsProps): React.JSX.Element {
  const max = model.values.map((perGroup) => Math.max(0, ...perGroup.map((v) => Math.abs(v[0]!)).filter(Number.isFinite)));
  const rows = model.groups.map((g, i) => ({ g, i })).filter(({ i }) => shown.has(i));
  return (
    <div className="stats-bars" data-testid="stats-bars">
      <table>
        <thead>
          <tr>
            <th>{model.groupColumns.join(' · ') || 'group'}</th>
            {model.columns.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ g, i }) => (
            <tr key={g.key}>
              <th>
                <i className="swatch" style={{ background: colours[i] }} />
                {g.label}
              </th>
              {model.values.map((perGroup, c) => {
                const v = perGroup[i]![0]!;
                const share = Number.isFinite(v) && max[c]! > 0 ? Math.abs(v) / max[c]! : 0;
                return (
                  <td key={model.columns[c]} className={v < 0 ? 'neg' : ''}>
                    <i style={{ width: `${(share * 100).toFixed(1)}%`, background: colours[i] }} />
                    <b>{Number.isFinite(v) ? fmt.format(v) : ''}</b>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {model.columns.length === 0 && <div className="muted ladder-note">No numeric aggregate to compare: see the grid below.</div>}
    </div>
  );
}
