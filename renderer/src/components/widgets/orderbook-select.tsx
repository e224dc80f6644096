/**
 * The orderbook mode select, explaining each mode's requirements inline and warning (with a one-click
 * fix) when the form does not meet them; the engine answers an error in that case too.
 */
import type { TableInfo } from '../../../../engine/contract';
import { type FixArg, orderbookCheck } from '../../form/orderbook-check';

export interface OrderbookSelectProps {
  readonly id: string;
  readonly value: string;
  readonly allowed: readonly string[];
  readonly onChange: (v: string) => void;
  readonly table: TableInfo | undefined;
  readonly refs: readonly string[];
  readonly fix: (arg: FixArg, value: string) => void;
  readonly describedBy?: string;
}

/** The orderbook select with its hint. */
export function OrderbookSelect(p: OrderbookSelectProps): React.JSX.Element {
  const check = orderbookCheck(p.value, p.table, p.refs);
  return (
    <div className="field">
      <select
        id={p.id}
        data-testid={p.id}
        aria-describedby={p.describedBy}
        className={check?.problems.length ? 'warn' : ''}
        value={p.value}
        onChange={(e) => p.onChange(e.target.value)}
      >
        <option value="">(none)</option>
        {p.allowed.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
      {check && (
        <div className="field-msg" data-testid={`${p.id}-hint`}>
          <span className="muted">needs {check.needs}</span>
          {check.problems.map((pr) => (
            <div key={pr.text} className="warn-text">
              ⚠ {pr.text}
              {pr.fix && (
                <>
                  {' '}
                  <button type="button" className="link-button" onClick={() => p.fix(pr.fix!.arg, pr.fix!.value)}>
                    {pr.fix.label}
                  </button>
                </>
              )}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
