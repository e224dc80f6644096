/**
 * generateOrderAnalytics (the operation of the generate view) in the results area: before a run, how
 * many OrderAnalytics rows the form's window already holds (what regenerate replaces, or append would
 * repeat); after one, how many rows were written, with a link to summarise them (the summary view's
 * operation).
 */
import { useEffect, useState } from 'react';
import { ARG } from '../../../../engine/contract';
import { backend } from '../../backend';
import { GENERATED_TABLE } from '../../states/describe';
import { type AppState, callName, operationWithView, useStore, viewOf } from '../../store/store';
import { type FormValues } from '../../form/values';
import { formWindow as generateWindow } from '../../form/window';

const NO_VALUES: FormValues = {};

/** A request's arguments as form values (text), for generateWindow. */
const formOfArgs = (args: Readonly<Record<string, unknown>>): FormValues => Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));

/** The last run was the generator's. */
const generated = (s: AppState): boolean => viewOf(s.info, s.request?.operation) === 'generate';

/** A boolean argument as a request gives it: true, or 1b. */
const isTrue = (v: unknown): boolean => v === true || v === '1b';

export function GenerateBanner(): React.JSX.Element {
  const generate = useStore((s) => operationWithView(s.info, 'generate'));
  const summary = useStore((s) => operationWithView(s.info, 'summary'));
  const values = useStore((s) => (generate ? s.forms[generate.name] : undefined)) ?? NO_VALUES;
  const result = useStore((s) => (generated(s) ? s.result : null));
  const request = useStore((s) => s.request);
  const running = useStore((s) => s.running);
  const [held, setHeld] = useState<{ rows: number; orders: number } | null | 'error'>(null);
  const win = generateWindow(values);
  const key = win ? `${win.startTS}|${win.endTS}` : '';

  useEffect(() => {
    setHeld(null);
    if (!win || !summary || running) return undefined;
    let cancelled = false;
    const timer = setTimeout(() => {
      backend()
        .run(callName(summary), {
          [ARG.table.name]: GENERATED_TABLE,
          [ARG.startTS.name]: win.startTS,
          [ARG.endTS.name]: win.endTS,
          [ARG.groupBy.name]: [],
          [ARG.summaryFunctions.name]: ['orderCount'],
          [ARG.agg.name]: { rows: ['count', 'i'] },
        })
        .then(async (r) => {
          if (cancelled) return;
          if (!r.ok) return setHeld('error');
          const [row] = (await backend().page(r.resultId, 0, 1)).rows;
          if (!cancelled) setHeld({ orders: Number(row?.[0] ?? 0), rows: Number(row?.[1] ?? 0) });
        })
        .catch(() => !cancelled && setHeld('error'));
    }, 250);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
    // the window's text is the key (`win` is rebuilt on every render)
  }, [key, summary, running, result?.resultId]);

  const regen = values[ARG.regenExistingIDs.name] === true;
  // the rows counted include the ones the last run wrote when it ran over this very window
  const ran = result !== null && request ? generateWindow(formOfArgs(request.args)) : null;
  const writtenHere = ran !== null && `${ran.startTS}|${ran.endTS}` === key;
  const openSummary = (): void => {
    if (!summary) return;
    const s = useStore.getState();
    s.setOperation(summary.name);
    if (request && win) {
      s.setField(ARG.startTS.name, win.startTS.includes('D') ? win.startTS : `${win.startTS}D00:00:00`);
      s.setField(ARG.endTS.name, win.endTS.includes('D') ? win.endTS : `${win.endTS}D00:00:00`);
    }
    void s.run();
  };
  return (
    <section className="generate-banner" aria-label="Order analytics generation" data-testid="generate-banner">
      {result && (
        <div className="generate-done" data-testid="generate-written">
          <span>
            Wrote <b>{result.rows.toLocaleString()}</b> OrderAnalytics row{result.rows === 1 ? '' : 's'} in {Math.round(result.elapsedMs).toLocaleString()} ms
            {isTrue(request?.args[ARG.regenExistingIDs.name]) ? ', replacing the stored rows of the same orders' : ', appended'}.
          </span>
          <button type="button" className="link-button" onClick={openSummary} disabled={running}>
            Summarise this window →
          </button>
        </div>
      )}
      <div className="generate-held muted" data-testid="generate-held">
        {!win
          ? 'Give dt, or startTS and endTS: the window of the orders’ New events.'
          : held === null
            ? 'Counting the stored rows of this window…'
            : held === 'error'
              ? 'The stored OrderAnalytics rows of this window could not be counted.'
              : held.rows === 0
                ? `OrderAnalytics holds no rows struck in this window yet.`
                : writtenHere
                  ? `OrderAnalytics now holds ${held.rows.toLocaleString()} row${held.rows === 1 ? '' : 's'} (${held.orders.toLocaleString()} order${held.orders === 1 ? '' : 's'}) struck in this window, those just written included. Run again: ${regen ? 'regenerate replaces them.' : 'with regenerate off, the orders would count twice.'}`
                  : `OrderAnalytics already holds ${held.rows.toLocaleString()} row${held.rows === 1 ? '' : 's'} (${held.orders.toLocaleString()} order${held.orders === 1 ? '' : 's'}) struck in this window: ${regen ? 'regenerate replaces those of the orders it writes.' : 'with regenerate off, a run appends, so those orders will count twice in row counts.'}`}
      </div>
    </section>
  );
}
