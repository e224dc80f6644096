/** The tables of the selected assembly, with row counts and date ranges; a click picks the table. */
import { ARG } from '../../../engine/contract';
import { currentForm, tablesOf, useStore } from '../store/store';

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

export function TableList(): React.JSX.Element {
  const info = useStore((s) => s.info);
  const assembly = useStore((s) => s.assembly);
  const current = useStore((s) => currentForm(s)?.[ARG.table.name]);
  const setField = useStore((s) => s.setField);
  const tables = tablesOf({ info, assembly });
  return (
    <aside className="table-list" aria-label="Tables">
      <div className="panel-title">{assembly || 'Tables'}</div>
      <ul>
        {tables.map((t) => (
          <li key={t.name}>
            <button
              type="button"
              className={t.name === current ? 'active' : ''}
              onClick={() => setField(ARG.table.name, t.name)}
              title={`${t.name}: ${t.rows === null ? 'rows not counted yet (a kdb+ table: tickscope info counts them)' : `${t.rows.toLocaleString('en-US')} rows`}, ${t.kind}, identifier ${t.idColumn}${t.timeColumn ? `, time ${t.timeColumn}` : ''}\n${t.columns.map((c) => `${c.name} ${c.type}`).join('\n')}`}
            >
              <span className="table-name">{t.name}</span>
              <span className="table-rows">{t.rows === null ? '' : compact.format(t.rows)}</span>
              {t.firstDate && (
                <span className="table-dates muted">
                  {t.firstDate === t.lastDate ? t.firstDate : `${t.firstDate} → ${t.lastDate}`}
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
