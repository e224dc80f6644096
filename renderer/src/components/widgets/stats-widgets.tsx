/**
 * The widgets getStats adds to the form: the groupBy picker (columns of the table and of its joined
 * reference tables, or an explicit "no grouping" that sends []), and the applyHolidayCalendar choice
 * (0b, 1b, an exchange of ExchangeHolidayCal, or the null symbol) with what it needs.
 */
import { ARG, type ArgSpec, type TableInfo } from '../../../../engine/contract';
import { missingNeeds } from '../../form/bucket-hints';
import { columnsOf, reachableRefs } from '../../form/schema';
import { addNames, chipsOf, type FormValue, type FormValues, listValue, namesOf } from '../../form/values';
import { ChipsInput } from './chips-input';

/** The value of the "no grouping" choice: an explicitly empty list. */
export const NO_GROUPING = '[]';

/** True when the value is the explicit "no grouping" choice. */
export const isNoGrouping = (v: FormValue | undefined): boolean => typeof v === 'string' && v.replace(/\s/g, '') === NO_GROUPING;

export interface GroupByInputProps {
  readonly id: string;
  readonly value: FormValue | undefined;
  readonly onChange: (v: FormValue) => void;
  readonly values: FormValues;
  readonly setField: (name: string, value: FormValue) => void;
  readonly table: TableInfo | undefined;
  readonly tables: readonly TableInfo[];
  readonly describedBy: string;
}

/** Group-by columns: the table's, then those of the reference tables named in `ref`. */
function groupOptions(table: TableInfo | undefined, tables: readonly TableInfo[], refs: readonly string[]): Array<{ value: string; hint: string }> {
  const own = (table?.columns ?? []).map((c) => ({ value: c.name, hint: c.type }));
  const seen = new Set(own.map((o) => o.value));
  const joined = refs.flatMap((r) => {
    const key = tables.find((t) => t.name === r)?.key;
    return columnsOf(tables, r)
      .filter((c) => c.name !== key && !seen.has(c.name))
      .map((c) => ({ value: c.name, hint: r }));
  });
  return [...own, ...joined];
}

/** The groupBy picker with its "no grouping" switch. */
export function GroupByInput(p: GroupByInputProps): React.JSX.Element {
  const none = isNoGrouping(p.value);
  const refs = namesOf(p.values[ARG.ref.name], false);
  const options = groupOptions(p.table, p.tables, refs);
  const { items, draft } = chipsOf(none ? undefined : p.value, false);
  const unjoined = reachableRefs(p.table).filter((r) => !refs.includes(r));
  const idColumn = p.table?.idColumn ?? 'the identifier column';
  const known = new Set(options.map((o) => o.value));
  return (
    <div className="field">
      <div className="groupby">
        {none ? (
          <input id={p.id} data-testid={p.id} aria-describedby={p.describedBy} className="none-input" readOnly value="" placeholder="one group over everything" />
        ) : (
          <ChipsInput
            id={p.id}
            items={items}
            draft={draft}
            options={options}
            onChange={p.onChange}
            placeholder={`${idColumn} (default)`}
            describedBy={p.describedBy}
            ordered
            problem={(it) => (p.table && !known.has(it) ? `not a column of ${p.table.name}${unjoined.length ? ` (columns of ${unjoined.join(', ')} need ref)` : ''}` : null)}
          />
        )}
        <button
          type="button"
          className={`toggle-button ${none ? 'on' : ''}`}
          data-testid={`${p.id}-none`}
          aria-pressed={none}
          title="No grouping: one group over the whole window (sends groupBy [])"
          onClick={() => p.onChange(none ? listValue([]) : NO_GROUPING)}
        >
          no grouping
        </button>
      </div>
      <div className="field-msg muted" data-testid={`${p.id}-hint`}>
        {none ? 'sends [] · one group over everything' : items.length === 0 && draft.trim() === '' ? `empty: one group per ${idColumn}` : `one group per distinct (${[...items, ...(draft.trim() ? [draft.trim()] : [])].join(', ')})`}
        {!none && unjoined.length > 0 && (
          <>
            {' · '}
            <button type="button" className="link-button" onClick={() => p.setField(ARG.ref.name, listValue(addNames(refs, [unjoined[0]!])))}>
              + ref {unjoined[0]}
            </button>{' '}
            to group by its columns
          </>
        )}
      </div>
    </div>
  );
}

export interface HolidaySelectProps {
  /** Its declaration: what it needs, and the fixes offered. */
  readonly arg: Pick<ArgSpec, 'name' | 'requires'>;
  readonly id: string;
  readonly value: string;
  readonly onChange: (v: FormValue) => void;
  readonly values: FormValues;
  readonly setField: (name: string, value: FormValue) => void;
  readonly exchanges: readonly string[];
  readonly describedBy: string;
}

/** The holiday calendar choice with its needs and their one-click fixes (its declaration's `requires`). */
export function HolidaySelect(p: HolidaySelectProps): React.JSX.Element {
  const missing = missingNeeds(p.arg, p.values);
  const needs = p.arg.requires;
  const v = p.value.trim();
  const known = v === '' || v === '0b' || v === '1b' || v === '`' || p.exchanges.includes(v);
  return (
    <div className="field">
      <select id={p.id} data-testid={p.id} aria-describedby={p.describedBy} className={missing.length ? 'warn' : ''} value={v} onChange={(e) => p.onChange(e.target.value)}>
        <option value="">0b · no effect (default)</option>
        <option value="1b">1b · each group’s own exchange</option>
        {p.exchanges.length > 0 && (
          <optgroup label="one exchange’s holidays for all groups">
            {p.exchanges.map((x) => (
              <option key={x} value={x}>
                {x}
              </option>
            ))}
          </optgroup>
        )}
        <option value="`">` · every calendar date (null symbol)</option>
        {!known && <option value={v}>{v}</option>}
      </select>
      {v !== '' && v !== '0b' && (
        <div className="field-msg" data-testid={`${p.id}-hint`}>
          <span className="muted">drops weekend and holiday day buckets before filling{needs ? `; needs ${needs.args.join(' and ')}` : ''}</span>
          {missing.map((m) => {
            const fix = needs?.fixes?.[m];
            return (
              <div key={m} className="warn-text">
                ⚠ needs {m}{' '}
                {fix && (
                  <button type="button" className="link-button" onClick={() => p.setField(m, fix.value)}>
                    use {fix.label}
                  </button>
                )}
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}

