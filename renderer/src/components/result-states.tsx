/**
 * The result area's honest states, over whatever view holds the result: a running query's banner
 * (the result under it is the previous one, dimmed, and says which request it answered); an error's
 * panel (the envelope's message and code, what docs/errors.md says of the code, the request that
 * failed, the field it names), which hides the previous result; an empty result's panel (no rows, the
 * window in the zones the request used, the filters and identifiers that produced it).
 */
import { useEffect, useState } from 'react';
import { ARG } from '../../../engine/contract';
import { tableOf } from '../history/history';
import { describeEmpty, narrowingOf, ORDERS_TABLE, requestLabel, shortValue } from '../states/describe';
import { errorKind } from '../states/error-kinds';
import { operationSpec, operationWithView, tablesOf, useStore, viewOf } from '../store/store';
import { expandPane } from './panes';

/** A query shows its banner once it has run this long (the dimming fades in as long: CSS). */
const BANNER_AFTER_MS = 200;
const CANCELLED = 40;

/** Which state covers the result area now. */
export function useResultState(): 'failed' | 'empty' | null {
  return useStore((s) => {
    // the generate view (its form's tab) shows its own call's error, and its banner says what it wrote
    if (viewOf(s.info, s.operation) === 'generate') return viewOf(s.info, s.failure?.request.operation) === 'generate' ? 'failed' : null;
    if (s.failure) return 'failed';
    return s.result && s.result.rows === 0 && viewOf(s.info, s.request?.operation) !== 'generate' ? 'empty' : null;
  });
}

/** While a query runs: what the dimmed area under it shows, and that it is not the answer to what runs. */
export function RunningBanner(): React.JSX.Element | null {
  const query = useStore((s) => s.query);
  const result = useStore((s) => s.result);
  const request = useStore((s) => s.request);
  const failure = useStore((s) => s.failure);
  const [late, setLate] = useState(false);
  useEffect(() => {
    setLate(false);
    if (!query) return undefined;
    const t = setTimeout(() => setLate(true), BANNER_AFTER_MS);
    return () => clearTimeout(t);
  }, [query]);
  if (!query || !late || (!result && !failure)) return null;
  const what = failure
    ? `previous request failed: ${requestLabel(failure.request)}`
    : result && request
      ? `previous result: ${requestLabel(request, result.header)} · ${result.rows.toLocaleString('en-US')} row${result.rows === 1 ? '' : 's'}`
      : '';
  return (
    <div className="state-banner" role="status" data-testid="previous-banner">
      <span className="state-banner-what">{what}</span>
      <span className="state-banner-run">— running…</span>
    </div>
  );
}

/** The failed call: message, code, the request, the field it names; the previous result stays hidden under it. */
export function ErrorPanel(): React.JSX.Element | null {
  const failure = useStore((s) => s.failure);
  const hasResult = useStore((s) => s.result !== null);
  const marks = useStore((s) => s.marks);
  const dismiss = useStore((s) => s.dismissFailure);
  if (!failure) return null;
  const marked = marks && marks.operation === failure.request.operation ? Object.keys(marks.fields) : [];
  const kind = errorKind(failure.ac);
  const cancelled = failure.ac === CANCELLED;
  const body = JSON.stringify(failure.request.args);
  return (
    <section className={`state-panel error-panel ${cancelled ? 'cancelled' : ''}`} role="alert" aria-label="Error" data-testid="error-panel">
      <div className="state-head">
        <span className="state-title">{cancelled ? 'Cancelled' : `${failure.request.operation} failed`}</span>
        {failure.ac !== null && (
          <span className="error-code" data-testid="error-code" title={kind ? `docs/errors.md, ac ${failure.ac}: ${kind.when}` : 'a code docs/errors.md does not list (a remote gateway’s own)'}>
            ac {failure.ac}
            {kind && <span className="error-kind"> · {kind.kind}</span>}
          </span>
        )}
        <span className="spacer" />
        {hasResult && (
          <button type="button" className="state-button" data-testid="error-dismiss" onClick={dismiss} title="Close this panel and show the result of the last call that succeeded">
            Show the previous result
          </button>
        )}
      </div>
      <p className="error-message" data-testid="error-message">
        {failure.message}
      </p>
      {kind && <p className="state-note muted">{kind.when}</p>}
      {marked.length > 0 && (
        <p className="state-note">
          Marked in the form:{' '}
          {marked.map((name, i) => (
            <span key={name}>
              {i > 0 && ', '}
              <button
                type="button"
                className="link-button mono"
                data-testid={`error-field-${name}`}
                onClick={() => {
                  expandPane('form');
                  requestAnimationFrame(() => document.getElementById(`arg-${name}`)?.focus());
                }}
              >
                {name}
              </button>
            </span>
          ))}
        </p>
      )}
      <div className="state-request">
        <span className="muted">request</span>
        <code data-testid="error-request">
          {failure.api} {body}
        </code>
      </div>
    </section>
  );
}

/** An empty result: "no rows", the window in the zones used, and the filters and identifiers that produced it. */
export function EmptyPanel(): React.JSX.Element | null {
  const result = useStore((s) => s.result);
  const request = useStore((s) => s.request);
  const info = useStore((s) => s.info);
  const assembly = useStore((s) => s.assembly);
  const identifiers = useStore((s) => s.identifiers);
  if (!result || !request || result.rows !== 0) return null;
  const tableName = tableOf(request.args);
  const table = tablesOf({ info, assembly }).find((t) => t.name === tableName);
  const orders = tablesOf({ info, assembly }).find((t) => t.name === ORDERS_TABLE);
  const d = describeEmpty(request, result.header, table, identifiers[`${assembly}/${tableName}`] ?? [], narrowingOf(operationSpec(info, request.operation)), orders);
  return (
    <section className="state-panel empty-panel" aria-label="No rows" data-testid="empty-panel">
      <div className="state-head">
        <span className="state-title">No rows</span>
        <span className="muted">{requestLabel(request)}</span>
      </div>
      <dl className="state-facts">
        {d.window && <Fact name="window" value={d.window} testId="empty-window" />}
        {d.read && <Fact name="read as" value={d.read} testId="empty-read" />}
        {d.filters.map(([name, value]) => (
          <Fact key={name} name={name} value={value} testId={`empty-${name}`} />
        ))}
        {!d.window && !d.read && d.filters.length === 0 && <Fact name="request" value={shortValue(request.args, 400)} />}
      </dl>
      {d.hints.map((h) => (
        <p key={h} className="state-note warn-text" data-testid="empty-hint">
          {h}
        </p>
      ))}
      <p className="state-note muted" data-testid="empty-next">
        {d.next}
        {d.generate && (
          <>
            {' '}
            <button type="button" className="link-button" data-testid="open-generate" onClick={() => openGenerate(d.generate!.dt)}>
              Open generateOrderAnalytics{d.generate.dt ? ` for ${d.generate.dt}` : ''} →
            </button>
          </>
        )}
      </p>
    </section>
  );
}

/** Shows the form of the operation that generates order analytics (its view's), on this date when one is known. */
function openGenerate(dt: string | null): void {
  const s = useStore.getState();
  const generate = operationWithView(s.info, 'generate');
  if (!generate) return;
  s.setOperation(generate.name);
  if (dt) s.setField(ARG.dt.name, dt.replace(/-/g, '.'));
}

function Fact(p: { readonly name: string; readonly value: string; readonly testId?: string }): React.JSX.Element {
  return (
    <div className="state-fact">
      <dt>{p.name}</dt>
      <dd {...(p.testId ? { 'data-testid': p.testId } : {})}>{p.value}</dd>
    </div>
  );
}
