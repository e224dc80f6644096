/**
 * The query form, generated from the operation registry: every argument of the operation appears,
 * with its doc as a tooltip, its default as a placeholder and a widget picked by its declared
 * `widget`. A new argument in the registry shows up here without UI code.
 */
import { useMemo } from 'react';
import type { ArgSpec, OperationSpec, TableInfo } from '../../../engine/contract';
import { buildArgs, type FormValue, type FormValues } from '../store/request';
import { operationSpec, tablesOf, useStore } from '../store/store';

const ZONES: readonly string[] = (() => {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  return ['UTC', ...(intl.supportedValuesOf?.('timeZone') ?? ['America/New_York', 'Europe/London', 'Asia/Tokyo'])];
})();

interface WidgetProps {
  readonly arg: ArgSpec;
  readonly value: FormValue | undefined;
  readonly onChange: (v: FormValue) => void;
  readonly table: TableInfo | undefined;
  readonly tables: readonly TableInfo[];
  readonly ids: readonly string[];
  readonly assemblies: readonly string[];
  readonly assembly: string;
  readonly setAssembly: (name: string) => void;
  readonly filterRules: readonly string[];
}

const text = (v: FormValue | undefined): string => (typeof v === 'string' ? v : '');

function placeholder(arg: ArgSpec, table: TableInfo | undefined): string {
  switch (arg.widget) {
    case 'timestamp':
      return arg.default ? `${arg.default}  e.g. 2024.03.06D14:30:00.000000000` : 'e.g. 2024.03.06D14:30:00';
    case 'identifiers':
      return 'all; e.g. AAPL, MSFT';
    case 'columns':
      return table ? `all: ${table.columns.map((c) => c.name).join(', ')}` : 'all columns';
    case 'filter':
      return '[["<","price","100"],["in","conditions",["@","F"]]]  or  price<100;volume>=10';
    case 'sortCols':
      return 'desc volume, asc eventTimestamp';
    case 'slice':
      return '09:30|16:00';
    case 'json':
      return JSON.stringify(arg.example);
    case 'column':
      return arg.name === 'timeCol' ? `${table?.timeColumn ?? 'partition column'} (partition column)` : (arg.default ?? '');
    default:
      return arg.default && arg.default !== '`' && arg.default !== '()' ? arg.default : '';
  }
}

function Widget({ arg, value, onChange, table, tables, assemblies, assembly, setAssembly, filterRules }: WidgetProps): React.JSX.Element {
  const id = `arg-${arg.name}`;
  const common = { id, name: arg.name, 'data-testid': id, 'aria-describedby': `${id}-doc` };
  switch (arg.widget) {
    case 'table':
      return (
        <select {...common} value={text(value)} onChange={(e) => onChange(e.target.value)}>
          <option value="">(choose a table)</option>
          {tables.map((t) => (
            <option key={t.name} value={t.name}>
              {t.name}
            </option>
          ))}
        </select>
      );
    case 'enum': {
      const options = arg.name === 'filterRule' ? filterRules : (arg.allowed ?? []);
      return (
        <select {...common} value={text(value)} onChange={(e) => onChange(e.target.value)}>
          <option value="">{arg.default && arg.default !== '`' ? `${arg.default} (default)` : '(none)'}</option>
          {options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      );
    }
    case 'checkbox':
      return <input {...common} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
    case 'holiday':
      return (
        <input {...common} list="holiday-values" value={text(value)} placeholder="0b; 1b, an exchange (XLON) or ` for all" onChange={(e) => onChange(e.target.value)} />
      );
    case 'zone':
      return <input {...common} list="zone-list" value={text(value)} placeholder="UTC" onChange={(e) => onChange(e.target.value)} />;
    case 'identifiers':
      return <input {...common} list={`ids-${arg.name}`} value={text(value)} placeholder={placeholder(arg, table)} onChange={(e) => onChange(e.target.value)} />;
    case 'scope':
      // The assembly picker: the query is routed to it (sent as scope.assembly when not the default).
      return (
        <select {...common} value={assembly} onChange={(e) => setAssembly(e.target.value)}>
          {assemblies.map((a, i) => (
            <option key={a} value={a}>
              {a}
              {i === 0 ? ' (default)' : ''}
            </option>
          ))}
        </select>
      );
    case 'filter':
    case 'json':
      return <textarea {...common} rows={2} spellCheck={false} value={text(value)} placeholder={placeholder(arg, table)} onChange={(e) => onChange(e.target.value)} />;
    case 'number':
      return <input {...common} inputMode="numeric" value={text(value)} placeholder={placeholder(arg, table)} onChange={(e) => onChange(e.target.value)} />;
    default:
      return <input {...common} spellCheck={false} value={text(value)} placeholder={placeholder(arg, table)} onChange={(e) => onChange(e.target.value)} />;
  }
}

function ArgRow(props: WidgetProps & { readonly supported: boolean }): React.JSX.Element {
  const { arg, supported } = props;
  return (
    <div className={`arg-row ${supported ? '' : 'unsupported'}`} title={`${arg.name}: ${arg.doc}${arg.default ? ` Default ${arg.default}.` : ''}${supported ? '' : ' (not supported yet)'}`}>
      <label htmlFor={`arg-${arg.name}`}>
        {arg.name}
        {arg.required && <span className="required">*</span>}
      </label>
      <Widget {...props} />
      <span id={`arg-${arg.name}-doc`} className="sr-only">
        {arg.doc}
      </span>
      {!supported && <span className="badge">not yet</span>}
    </div>
  );
}

function Preview({ op, values }: { readonly op: OperationSpec; readonly values: FormValues }): React.JSX.Element {
  let body: string;
  try {
    body = JSON.stringify(buildArgs(op, values));
  } catch (e) {
    body = (e as Error).message;
  }
  return (
    <details className="preview">
      <summary>Request body</summary>
      <code data-testid="request-preview">{body}</code>
    </details>
  );
}

export interface ArgFormViewProps {
  readonly op: OperationSpec;
  readonly values: FormValues;
  readonly tables: readonly TableInfo[];
  readonly ids: readonly string[];
  readonly assemblies: readonly string[];
  readonly assembly: string;
  readonly filterRules: readonly string[];
  readonly formError: string | null;
  readonly setField: (name: string, value: FormValue) => void;
  readonly setAssembly: (name: string) => void;
  readonly onSubmit: () => void;
}

/** The form for one operation, from its declaration: every argument, each with its widget. */
export function ArgFormView(p: ArgFormViewProps): React.JSX.Element {
  const { op, values } = p;
  const table = p.tables.find((t) => t.name === text(values['table']));
  return (
    <form
      className="form-panel"
      aria-label={`${op.name} arguments`}
      onSubmit={(e) => {
        e.preventDefault();
        p.onSubmit();
      }}
    >
      <div className="form-title" title={op.doc}>
        {op.ipcNames[0]}
      </div>
      {op.args.map((arg) => (
        <ArgRow
          key={arg.name}
          arg={arg}
          value={values[arg.name]}
          onChange={(v) => p.setField(arg.name, v)}
          table={table}
          tables={p.tables}
          ids={p.ids}
          assemblies={p.assemblies}
          assembly={p.assembly}
          setAssembly={p.setAssembly}
          filterRules={p.filterRules}
          supported={op.supported.length > 0 && op.supported.includes(arg.name)}
        />
      ))}
      {p.formError && <div className="error-text" role="alert">{p.formError}</div>}
      <Preview op={op} values={values} />
      <datalist id="zone-list">
        {ZONES.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <datalist id="ids-idList">
        {p.ids.map((i) => (
          <option key={i} value={i} />
        ))}
      </datalist>
      <datalist id="holiday-values">
        <option value="1b" />
        <option value="0b" />
      </datalist>
      <button type="submit" hidden />
    </form>
  );
}

const NO_VALUES: FormValues = {};

/** The form of the selected operation, bound to the store. */
export function ArgForm(): React.JSX.Element {
  const info = useStore((s) => s.info);
  const assembly = useStore((s) => s.assembly);
  const operation = useStore((s) => s.operation);
  const values = useStore((s) => s.forms[s.operation]) ?? NO_VALUES;
  const setField = useStore((s) => s.setField);
  const setAssembly = useStore((s) => s.setAssembly);
  const identifiers = useStore((s) => s.identifiers);
  const formError = useStore((s) => s.formError);
  const assemblies = useMemo(() => info?.assemblies.map((a) => a.name) ?? [], [info]);
  const op = operationSpec(info, operation);
  if (!op) return <div className="form-panel muted">Loading…</div>;
  return (
    <ArgFormView
      op={op}
      values={values}
      tables={tablesOf({ info, assembly })}
      ids={identifiers[`${assembly}/${text(values['table'])}`] ?? []}
      assemblies={assemblies}
      assembly={assembly}
      filterRules={info?.assemblies.find((a) => a.name === assembly)?.filterRules ?? []}
      formError={formError}
      setField={setField}
      setAssembly={setAssembly}
      onSubmit={() => void useStore.getState().run()}
    />
  );
}
