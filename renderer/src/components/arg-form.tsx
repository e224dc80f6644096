/**
 * The query form, generated from the operation registry: every argument of the operation appears,
 * with its doc as a tooltip, its default as a placeholder and a widget picked by its declared
 * `widget`. A new argument in the registry shows up here without UI code.
 */
import { useEffect, useMemo, useState } from 'react';
import type { OperationSpec, SummaryFunctionInfo, TableInfo } from '../../../engine/contract';
import { ARG, defaultText, excludesText, needsText, rangeText } from '../../../engine/contract';
import { copyText } from '../clipboard';
import { textArg } from '../form/args';
import { asCurl, asQ, asRestJson } from '../form/copy-as';
import { unknownValues } from '../form/form-check';
import type { FormValue, FormValues } from '../form/values';
import { requestArgs } from '../store/request';
import { currentForm, operationSpec, tablesOf, useStore } from '../store/store';
import { isBlockWidget, Widget, type WidgetProps } from './widgets/widget';

/** Names longer than this many characters wrap at their camelCase humps; shorter ones set the label column. */
const LABEL_MAX_CHARS = 17;

/** The label column's width for a form: its longest name (and required mark), in the labels' monospace characters. */
export function labelWidth(op: OperationSpec): string {
  const chars = Math.min(LABEL_MAX_CHARS, Math.max(9, ...op.args.map((a) => a.name.length + (a.required ? 1 : 0))));
  // 0.61em: a monospace digit's advance (DejaVu Sans Mono, Menlo, SF Mono: 0.6em), with room to spare
  return `calc(${chars} * 0.61em + 2px)`;
}

/** An argument's name, breakable before each capital ("applyHoliday|Calendar") when it is too long for its column. */
function ArgName({ name }: { readonly name: string }): React.JSX.Element {
  const parts = name.split(/(?=[A-Z])/);
  return (
    <>
      {parts.map((p, i) => (
        <span key={i}>
          {i > 0 && <wbr />}
          {p}
        </span>
      ))}
    </>
  );
}

/** An argument's tooltip: its doc, default, range and the arguments it needs, all from its declaration. */
export function argTitle(arg: WidgetProps['arg']): string {
  const dflt = defaultText(arg);
  return [`${arg.name}: ${arg.doc}`, dflt !== null ? `Default ${dflt}.` : '', rangeText(arg), needsText(arg), excludesText(arg)].filter(Boolean).join(' ');
}

function ArgRow(props: WidgetProps & { readonly mark?: string | undefined }): React.JSX.Element {
  const { arg, mark } = props;
  const title = argTitle(arg);
  const block = isBlockWidget(arg);
  return (
    <div className={`arg-row ${block ? 'block' : ''} ${mark ? 'marked' : ''}`} title={block ? undefined : title} {...(mark ? { 'data-marked': arg.name } : {})}>
      <label htmlFor={`arg-${arg.name}`} title={title}>
        <ArgName name={arg.name} />
        {arg.required && <span className="required">*</span>}
      </label>
      <div className="widget-cell">
        <Widget {...props} />
        {mark && (
          <div className="field-msg error-text arg-mark" role="alert" data-testid={`arg-${arg.name}-error`}>
            {mark}
          </div>
        )}
      </div>
      <span id={`arg-${arg.name}-doc`} className="sr-only">
        {arg.doc}
      </span>
      {!block && <span />}
    </div>
  );
}

function Preview({ op, values }: { readonly op: OperationSpec; readonly values: FormValues }): React.JSX.Element {
  const info = useStore((s) => s.info);
  const assembly = useStore((s) => s.assembly);
  let body: string;
  let bad = false;
  try {
    body = JSON.stringify(requestArgs(op, values, { info, assembly }));
  } catch (e) {
    body = (e as Error).message;
    bad = true;
  }
  return (
    <details className="preview">
      <summary>Request body</summary>
      <code data-testid="request-preview" className={bad ? 'error-text' : ''}>
        {body}
      </code>
      {!bad && <CopyAs op={op} values={values} />}
    </details>
  );
}

/** Copies the request as REST JSON, curl commands or a q expression (the secret never written). */
function CopyAs({ op, values }: { readonly op: OperationSpec; readonly values: FormValues }): React.JSX.Element {
  const connection = useStore((s) => s.info?.connection);
  const info = useStore((s) => s.info);
  const assembly = useStore((s) => s.assembly);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = (what: string, text: string): void => {
    void copyText(text).then((ok) => setCopied(ok ? `copied as ${what}` : 'the browser refused the clipboard'));
  };
  const args = (): Record<string, unknown> => requestArgs(op, values, { info, assembly });
  return (
    <div className="copy-as">
      <span className="muted">Copy as</span>
      <button type="button" data-testid="copy-json" onClick={() => copy('REST JSON', asRestJson(args()))}>
        REST JSON
      </button>
      <button type="button" data-testid="copy-curl" title="curl with the token request; the secret as $CLIENT_SECRET" onClick={() => copy('curl', asCurl(op, args(), connection))}>
        curl
      </button>
      <button type="button" data-testid="copy-q" title="a q expression for a gateway handle h" onClick={() => copy('q', asQ(op, args(), connection))}>
        q
      </button>
      {copied && <span className="muted">{copied}</span>}
    </div>
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
  /** The assembly's summary functions (config.json), for summaryFunctions. */
  readonly summaryFunctions?: readonly SummaryFunctionInfo[];
  /** Exchanges of ExchangeHolidayCal, offered by applyHolidayCalendar. */
  readonly exchanges?: readonly string[];
  readonly formError: string | null;
  /** The form error is shown under the fields it names (default: when any field is marked). */
  readonly formErrorMarked?: boolean;
  /** Fields the last error named, with the text shown under each. */
  readonly marks?: Readonly<Record<string, string>>;
  readonly setField: (name: string, value: FormValue) => void;
  readonly setAssembly: (name: string) => void;
  readonly onSubmit: () => void;
}

/** The form for one operation, from its declaration: every argument, each with its widget. */
export function ArgFormView(p: ArgFormViewProps): React.JSX.Element {
  const { op, values } = p;
  const table = p.tables.find((t) => t.name === textArg(values, ARG.table));
  return (
    <form
      className="form-panel"
      style={{ '--label-w': labelWidth(op) } as React.CSSProperties}
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
          op={op}
          value={values[arg.name]}
          values={values}
          onChange={(v) => p.setField(arg.name, v)}
          setField={p.setField}
          table={table}
          tables={p.tables}
          ids={p.ids}
          assemblies={p.assemblies}
          assembly={p.assembly}
          setAssembly={p.setAssembly}
          filterRules={p.filterRules}
          summaryFunctions={p.summaryFunctions ?? []}
          {...(p.exchanges ? { exchanges: p.exchanges } : {})}
          mark={p.marks?.[arg.name]}
        />
      ))}
      {p.formError && !(p.formErrorMarked ?? Object.keys(p.marks ?? {}).length > 0) && (
        <div className="error-text form-error" role="alert">
          {p.formError}
        </div>
      )}
      <Preview op={op} values={values} />
      <datalist id="ids-idList">
        {p.ids.map((i) => (
          <option key={i} value={i} />
        ))}
      </datalist>
      <button type="submit" hidden />
    </form>
  );
}

const NO_VALUES: FormValues = {};
/** Widgets that mark each unknown name themselves (a red chip with its reason). */
const SELF_MARKING: ReadonlySet<string> = new Set(['columns', 'analytics']);
/** The holiday calendar table (SPEC 3.1); its identifiers are its exchanges. */
const HOLIDAY_TABLE = 'ExchangeHolidayCal';

/** The form of the selected operation, bound to the store. */
export function ArgForm(): React.JSX.Element {
  const info = useStore((s) => s.info);
  const assembly = useStore((s) => s.assembly);
  const operation = useStore((s) => s.operation);
  const values = useStore(currentForm) ?? NO_VALUES;
  const setField = useStore((s) => s.setField);
  const setAssembly = useStore((s) => s.setAssembly);
  const identifiers = useStore((s) => s.identifiers);
  const formError = useStore((s) => s.formError);
  const errorMarks = useStore((s) => (s.marks?.operation === s.operation ? s.marks.fields : undefined));
  const assemblies = useMemo(() => info?.assemblies.map((a) => a.name) ?? [], [info]);
  const op = operationSpec(info, operation);
  const tables = tablesOf({ info, assembly });
  // values this connection does not know (kept from another connection or assembly), then the last error's
  const where = `${info?.connection?.name ?? 'this connection'}${assemblies.length > 1 ? ` (${assembly})` : ''}`;
  // (chips of columns and analytics mark their own unknown names, in the field: not said twice)
  const unknown = useMemo(() => {
    const all = op ? unknownValues(op, values, tables, where) : {};
    return Object.fromEntries(Object.entries(all).filter(([name]) => !SELF_MARKING.has(op?.args.find((a) => a.name === name)?.widget ?? 'json')));
  }, [op, values, tables, where]);
  const marks = errorMarks || Object.keys(unknown).length ? { ...unknown, ...errorMarks } : undefined;
  const wantsCalendar = !!op?.args.some((a) => a.widget === 'holiday') && tables.some((t) => t.name === HOLIDAY_TABLE);
  useEffect(() => {
    if (wantsCalendar) void useStore.getState().loadIdentifiers(HOLIDAY_TABLE);
  }, [wantsCalendar, assembly]);
  if (!op) return <div className="form-panel muted">Loading…</div>;
  return (
    <ArgFormView
      op={op}
      values={values}
      tables={tables}
      ids={identifiers[`${assembly}/${textArg(values, ARG.table)}`] ?? []}
      assemblies={assemblies}
      assembly={assembly}
      filterRules={info?.assemblies.find((a) => a.name === assembly)?.filterRules ?? []}
      summaryFunctions={info?.assemblies.find((a) => a.name === assembly)?.summaryFunctions ?? []}
      exchanges={identifiers[`${assembly}/${HOLIDAY_TABLE}`] ?? []}
      formError={formError}
      formErrorMarked={errorMarks !== undefined}
      {...(marks ? { marks } : {})}
      setField={setField}
      setAssembly={setAssembly}
      onSubmit={() => void useStore.getState().run()}
    />
  );
}
