/** Pieces the row builders share: the builder | text switch, column selects and value inputs. */
import type { ColumnChoice } from '../../form/schema';
import { FILTER_FNS } from '../../form/filter-rows';

export interface ModeToggleProps {
  readonly mode: 'builder' | 'text';
  readonly onMode: (mode: 'builder' | 'text') => void;
  /** Why the text cannot become rows (the builder button is then disabled), or null. */
  readonly blocked?: string | null;
  readonly testId: string;
}

/** The "builder | text" switch. */
export function ModeToggle({ mode, onMode, blocked, testId }: ModeToggleProps): React.JSX.Element {
  return (
    <span className="seg" role="group" aria-label="editing mode" data-testid={testId}>
      <button type="button" className={mode === 'builder' ? 'on' : ''} aria-pressed={mode === 'builder'} disabled={mode !== 'builder' && !!blocked} title={blocked ?? 'Edit as rows'} onClick={() => onMode('builder')}>
        builder
      </button>
      <button type="button" className={mode === 'text' ? 'on' : ''} aria-pressed={mode === 'text'} title="Edit as text" onClick={() => onMode('text')}>
        text
      </button>
    </span>
  );
}

export interface ColumnSelectProps {
  readonly value: string;
  readonly columns: readonly ColumnChoice[];
  readonly onChange: (v: string) => void;
  readonly label: string;
  readonly placeholder?: string;
  readonly testId?: string;
}

/** A column of the schema (with its type); free text when the schema is unknown. */
export function ColumnSelect({ value, columns, onChange, label, placeholder = 'column', testId }: ColumnSelectProps): React.JSX.Element {
  if (columns.length === 0) {
    return <input aria-label={label} data-testid={testId} spellCheck={false} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />;
  }
  const known = value === '' || columns.some((c) => c.name === value);
  return (
    <select aria-label={label} data-testid={testId} className={known ? '' : 'invalid'} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{placeholder}</option>
      {!known && <option value={value}>{value} (not in table)</option>}
      {columns.map((c) => (
        <option key={c.name} value={c.name}>
          {`${c.name} · ${c.type}`}
        </option>
      ))}
    </select>
  );
}

const FN_TITLES: Record<string, string> = {
  in: 'in: value is one of a comma list',
  within: 'within: lower <= value <= upper',
  '<': 'less than',
  '>': 'greater than',
  '<=': 'less than or equal',
  '>=': 'greater than or equal',
  '=': 'equal',
  '<>': 'not equal',
  like: 'like: wildcard pattern (* any run, ? one character, [abc] class)',
};

/** The filter function select. */
export function FnSelect({ value, onChange, testId }: { readonly value: string; readonly onChange: (v: string) => void; readonly testId?: string }): React.JSX.Element {
  return (
    <select aria-label="function" className="fn-select" data-testid={testId} value={value} title={FN_TITLES[value] ?? value} onChange={(e) => onChange(e.target.value)}>
      {FILTER_FNS.map((f) => (
        <option key={f} value={f} title={FN_TITLES[f]}>
          {f}
        </option>
      ))}
    </select>
  );
}

export interface ValueInputsProps {
  readonly fn: string;
  readonly v1: string;
  readonly v2: string;
  readonly onChange: (v1: string, v2: string) => void;
  /** A datalist of suggestions for the value (identifiers of the id column). */
  readonly list?: string | undefined;
  readonly testId?: string;
}

/** The value cell of a filter row: a comma list for in, two bounds for within, else one value. */
export function ValueInputs({ fn, v1, v2, onChange, list, testId }: ValueInputsProps): React.JSX.Element {
  if (fn === 'within') {
    return (
      <span className="pair">
        <input aria-label="lower bound" data-testid={testId} spellCheck={false} value={v1} placeholder="low" onChange={(e) => onChange(e.target.value, v2)} />
        <input aria-label="upper bound" data-testid={testId && `${testId}-2`} spellCheck={false} value={v2} placeholder="high" onChange={(e) => onChange(v1, e.target.value)} />
      </span>
    );
  }
  const placeholder = fn === 'in' ? 'a, b, c' : fn === 'like' ? 'AA*' : 'value';
  return <input aria-label="value" data-testid={testId} list={list} spellCheck={false} value={v1} placeholder={placeholder} onChange={(e) => onChange(e.target.value, v2)} />;
}

/** The small × that removes a row. */
export function RemoveButton({ onClick, label }: { readonly onClick: () => void; readonly label: string }): React.JSX.Element {
  return (
    <button type="button" className="icon-button remove" aria-label={label} title={label} onClick={onClick}>
      ×
    </button>
  );
}
