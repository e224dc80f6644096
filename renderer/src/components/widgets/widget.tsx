/**
 * One argument's widget, picked by its declared `widget` (and `type` for refFilter): the registry
 * decides, so a new argument gets a fitting widget without UI code. Every widget carries
 * data-testid="arg-<name>" on its main element.
 */
import type { ArgSpec, OperationSpec, SummaryFunctionInfo, TableInfo } from '../../../../engine/contract';
import { ARG, defaultText } from '../../../../engine/contract';
import { SLICED, takes, textArg } from '../../form/args';
import { bucketHint } from '../../form/bucket-hints';
import { analyticChoices, columnChoices, reachableRefs } from '../../form/schema';
import { windowProblem } from '../../form/time-text';
import { isKnownZone } from '../../form/zones';
import { idProblem } from '../../states/describe';
import { formWindow } from '../../form/window';
import type { FixArg } from '../../form/orderbook-check';
import { addNames, chipsOf, type FormValue, type FormValues, listValue, namesOf, textOf } from '../../form/values';
import { AggEditor } from './agg-editor';
import { ChipsInput } from './chips-input';
import { FilterEditor, jsonProblem } from './filter-editor';
import { OrderbookSelect } from './orderbook-select';
import { RefFilterEditor } from './ref-filter-editor';
import { SliceInput } from './slice-input';
import { SortEditor } from './sort-editor';
import { GroupByInput, HolidaySelect } from './stats-widgets';
import { TimeInput } from './time-input';
import { ZoneInput } from './zone-input';

export interface WidgetProps {
  readonly arg: ArgSpec;
  readonly op: OperationSpec;
  readonly value: FormValue | undefined;
  readonly values: FormValues;
  readonly onChange: (v: FormValue) => void;
  readonly setField: (name: string, value: FormValue) => void;
  readonly table: TableInfo | undefined;
  readonly tables: readonly TableInfo[];
  readonly ids: readonly string[];
  readonly assemblies: readonly string[];
  readonly assembly: string;
  readonly setAssembly: (name: string) => void;
  readonly filterRules: readonly string[];
  /** The assembly's summary functions (config.json), for summaryFunctions. */
  readonly summaryFunctions: readonly SummaryFunctionInfo[];
  /** Exchanges of the ExchangeHolidayCal table (for applyHolidayCalendar). */
  readonly exchanges?: readonly string[];
}

/** A summary function's tooltip: its doc, definition, kind and adverse direction. */
export function summaryTitle(f: SummaryFunctionInfo): string {
  const adverse = f.adverse ? `; higher is ${f.adverse === 'high' ? 'worse' : 'better'}` : '';
  return `${f.doc ? `${f.doc}\n` : ''}${f.tree}\n(${f.kind}${adverse}${f.isDefault ? '' : '; not a default'})`;
}

/** Widgets laid out under their label at full width (builders and JSON). */
export const isBlockWidget = (arg: ArgSpec): boolean => arg.widget === 'filter' || arg.widget === 'sortCols' || arg.widget === 'json';

function placeholder(arg: ArgSpec, table: TableInfo | undefined): string {
  switch (arg.widget) {
    case 'timestamp':
      return arg.default !== undefined ? `${defaultText(arg)}  e.g. 2024.03.06D14:30:00` : 'e.g. 2024.03.06D14:30:00';
    case 'identifiers':
      return 'all; type to search, e.g. AAPL, MSFT';
    case 'columns':
      return 'all columns; type to search';
    case 'analytics':
      // one example, the shortest: a list of them did not fit the field beside the form's labels
      return table?.analytics.length ? `type to search, e.g. ${table.analytics.reduce((a, b) => (b.length < a.length ? b : a))}` : 'type names, e.g. vwap';
    case 'json':
      return JSON.stringify(arg.example);
    default:
      // a fixed default is the placeholder (UTC, 1); what no value means is in the tooltip
      return arg.default !== undefined ? (defaultText(arg) ?? '') : '';
  }
}

/** The widget of one argument, with a note or warning under it when its meaning depends on the form. */
export function Widget(p: WidgetProps): React.JSX.Element {
  // the operation's declaration says which arguments shape buckets
  const hint = bucketHint(p.op, p.arg.name, p.values);
  if (!hint) return <BaseWidget {...p} />;
  return (
    <div className="field">
      <BaseWidget {...p} />
      <div className={`field-msg ${hint.level === 'warn' ? 'warn-text' : 'muted'}`} data-testid={`arg-${p.arg.name}-hint`}>
        {hint.text}
      </div>
    </div>
  );
}

/** The form's window as typed (startTS, endTS; or dt and the day after), for the zones' offsets over it. */
function windowTexts(values: FormValues): readonly [string, string] {
  const w = formWindow(values);
  return w ? [w.startTS, w.endTS] : [textArg(values, ARG.startTS), textArg(values, ARG.endTS)];
}

function BaseWidget(p: WidgetProps): React.JSX.Element {
  const { arg, value, onChange, table, values } = p;
  const id = `arg-${arg.name}`;
  const describedBy = `${id}-doc`;
  const common = { id, name: arg.name, 'data-testid': id, 'aria-describedby': describedBy };
  const text = textOf(value);
  const zone = textArg(values, ARG.inputTZ).trim() || 'UTC';
  const zoneBad = !isKnownZone(zone);
  const cols = columnChoices(arg.name, table);
  if (arg.widget === 'columns' && arg.emptyMeansNone) {
    return <GroupByInput id={id} value={value} onChange={onChange} values={values} setField={p.setField} table={table} tables={p.tables} describedBy={describedBy} />;
  }
  switch (arg.widget) {
    case 'table':
      // a remote whose getMeta lists no tables: the name is typed
      if (p.tables.length === 0) return <input {...common} value={text} onChange={(e) => onChange(e.target.value)} placeholder="table name, e.g. Trade" autoComplete="off" />;
      return (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">(choose a table)</option>
          {/* a value kept from another connection or assembly stays shown (and marked) until changed */}
          {text && !p.tables.some((t) => t.name === text) && <option value={text}>{text} (not here)</option>}
          {p.tables.map((t) => (
            <option key={t.name} value={t.name}>
              {t.name}
            </option>
          ))}
        </select>
      );
    case 'timestamp':
    case 'date': {
      const warning = arg.name === ARG.endTS.name ? windowProblem(textArg(values, ARG.startTS), text) : null;
      return <TimeInput id={id} value={text} onChange={onChange} placeholder={placeholder(arg, table)} zone={zone} zoneBad={zoneBad} warning={warning} describedBy={describedBy} dateOnly={arg.widget === 'date'} />;
    }
    case 'zone':
      return <ZoneInput id={id} value={text} onChange={onChange} placeholder="UTC" describedBy={describedBy} window={windowTexts(values)} inputZone={zoneBad ? 'UTC' : zone} />;
    case 'identifiers': {
      const { items, draft } = chipsOf(value, true);
      const mapped = values[ARG.idMapping.name] === true;
      return (
        <ChipsInput
          id={id}
          items={items}
          draft={draft}
          keepSpaces
          options={p.ids.map((v) => ({ value: v }))}
          onChange={onChange}
          placeholder={placeholder(arg, table)}
          describedBy={describedBy}
          problem={(it) => (mapped ? null : idProblem(it, p.ids, table))}
        />
      );
    }
    case 'columns':
    case 'tables':
    case 'analytics': {
      const { items, draft } = chipsOf(value, false);
      const refs = reachableRefs(table);
      const options =
        arg.widget === 'columns'
          ? cols.map((c) => ({ value: c.name, hint: c.type }))
          : arg.widget === 'tables'
            ? refs.map((r) => ({ value: r, hint: `via ${Object.keys(table?.foreignKeys ?? {}).filter((k) => table?.foreignKeys[k] === r).join(', ')}` }))
            : arg.widget === 'analytics'
              ? analyticChoices(table)
              : [];
      const problem = (it: string): string | null =>
        arg.widget === 'columns' && table && !cols.some((c) => c.name === it)
          ? `not a column of ${table.name}`
          : arg.widget === 'tables' && table && !refs.includes(it)
            ? `no foreign key of ${table.name} references it`
            : arg.widget === 'analytics' && table && !table.analytics.includes(it)
              ? `not an analytic of ${table.name}`
              : null;
      return (
        <ChipsInput
          id={id}
          items={items}
          draft={draft}
          options={options}
          onChange={onChange}
          placeholder={arg.widget === 'tables' ? (refs.length ? `e.g. ${refs[0]}` : 'no foreign keys') : placeholder(arg, table)}
          describedBy={describedBy}
          problem={problem}
          ordered={arg.widget === 'columns'}
        />
      );
    }
    case 'summaryFunctions': {
      const { items, draft } = chipsOf(value, false);
      const fns = new Map(p.summaryFunctions.map((f) => [f.name, f]));
      return (
        <ChipsInput
          id={id}
          items={items}
          draft={draft}
          options={p.summaryFunctions.map((f) => ({ value: f.name, hint: f.isDefault ? f.kind : `${f.kind} · extra`, title: summaryTitle(f) }))}
          onChange={onChange}
          placeholder={`all ${p.summaryFunctions.filter((f) => f.isDefault).length} defaults; type to pick`}
          describedBy={describedBy}
          problem={(it) => (fns.size > 0 && !fns.has(it) ? `not a summary function of config.json` : null)}
          ordered
        />
      );
    }
    case 'column': {
      if (!table) return <input {...common} spellCheck={false} value={text} placeholder={defaultText(arg) ?? ''} onChange={(e) => onChange(e.target.value)} />;
      const dflt = arg.name === ARG.timeCol.name ? `${table.timeColumn ?? 'partition column'} (default)` : arg.name === ARG.idCol.name ? `${table.idColumn} (default)` : '(default)';
      const known = text === '' || cols.some((c) => c.name === text);
      return (
        <select {...common} className={known ? '' : 'invalid'} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">{dflt}</option>
          {!known && <option value={text}>{text} (not a fitting column)</option>}
          {cols.map((c) => (
            <option key={c.name} value={c.name}>
              {`${c.name} · ${c.type}`}
            </option>
          ))}
        </select>
      );
    }
    case 'filter':
      return <FilterEditor id={id} value={value} onChange={onChange} columns={cols} idColumn={table?.idColumn} describedBy={describedBy} />;
    case 'sortCols':
      return <SortEditor id={id} value={value} onChange={onChange} columns={cols} describedBy={describedBy} />;
    case 'slice':
      return (
        <SliceInput
          id={id}
          value={text}
          onChange={onChange}
          zone={zone}
          zoneBad={zoneBad}
          temporality={textArg(values, ARG.temporality)}
          useSlice={takes(p.op, ARG.temporality) ? () => p.setField(ARG.temporality.name, SLICED) : null}
          describedBy={describedBy}
        />
      );
    case 'enum': {
      if (arg.name === ARG.orderbook.name) {
        const refs = namesOf(values[ARG.ref.name], false);
        const fix = (a: FixArg, v: string): void => p.setField(a, a === ARG.ref.name ? listValue(addNames(refs, [v])) : v);
        return <OrderbookSelect id={id} value={text} allowed={arg.allowed ?? []} onChange={onChange} table={table} refs={refs} fix={fix} describedBy={describedBy} />;
      }
      const options = arg.name === ARG.filterRule.name ? p.filterRules : (arg.allowed ?? []);
      return (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">{arg.default !== undefined ? `${defaultText(arg)} (default)` : '(none)'}</option>
          {options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      );
    }
    case 'json': {
      if (arg.type === 'agg') return <AggEditor id={id} value={value} onChange={onChange} columns={cols} table={table?.name} describedBy={describedBy} />;
      if (arg.type === 'refFilter') {
        return <RefFilterEditor id={id} value={value} onChange={onChange} tables={p.tables} refs={reachableRefs(table)} describedBy={describedBy} />;
      }
      const problem = jsonProblem(text);
      return (
        <div className="field">
          <textarea {...common} className={problem ? 'invalid' : ''} rows={2} spellCheck={false} value={text} placeholder={placeholder(arg, table)} onChange={(e) => onChange(e.target.value)} />
          {problem && <div className="field-msg error-text">{problem}</div>}
        </div>
      );
    }
    case 'checkbox':
      return <input {...common} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
    case 'holiday':
      return <HolidaySelect arg={arg} id={id} value={text} onChange={onChange} values={values} setField={p.setField} exchanges={p.exchanges ?? []} describedBy={describedBy} />;
    case 'scope':
      // The assembly picker: the query is routed to it (sent as scope.assembly when not the default).
      return (
        <select {...common} value={p.assembly} onChange={(e) => p.setAssembly(e.target.value)}>
          {p.assemblies.map((a, i) => (
            <option key={a} value={a}>
              {a}
              {i === 0 ? ' (default)' : ''}
            </option>
          ))}
        </select>
      );
    case 'number': {
      const bad = text.trim() !== '' && !/^\s*-?\d+\s*$/.test(text) && text.trim() !== '0N';
      return (
        <input {...common} className={bad ? 'invalid' : ''} aria-invalid={bad || undefined} title={bad ? 'an integer, such as 2' : undefined} inputMode="numeric" value={text} placeholder={placeholder(arg, table)} onChange={(e) => onChange(e.target.value)} />
      );
    }
    default:
      return <input {...common} spellCheck={false} value={text} placeholder={placeholder(arg, table)} onChange={(e) => onChange(e.target.value)} />;
  }
}
