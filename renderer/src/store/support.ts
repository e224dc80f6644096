/** What several slices share: starting forms, ids, progress polling and the URL's fragment. */
import { ARG, type OperationName, type OperationSpec, type QueryProgress, type TableInfo } from '../../../engine/contract';
import { backend } from '../backend';
import type { FormValue, FormValues } from '../form/values';
import { hashOf } from '../history/history';
import { requestArgs } from './request';
import { type AppState, type FieldMarks, operationSpec } from './state';

const toKdbDate = (iso: string): string => iso.replace(/-/g, '.');

function nextDay(iso: string): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * Starting values of a form, as its operation declares them (`form`): its table (else the first
 * time-series table with rows) over the table's first day, as dt or startTS and endTS, and its values.
 */
export function initialForm(op: OperationSpec | undefined, tables: readonly TableInfo[]): FormValues {
  if (!op) return {};
  const t = tables.find((x) => x.name === op.form.table) ?? tables.find((x) => x.kind === 'partitioned' && x.rows !== 0 && x.firstDate !== null);
  if (!t) return {};
  const values: Record<string, FormValue> = { [ARG.table.name]: t.name, ...op.form.values };
  if (op.form.window === 'day') {
    if (t.firstDate) values[ARG.dt.name] = toKdbDate(t.firstDate);
    return values;
  }
  if (t.firstDate) {
    values[ARG.startTS.name] = `${toKdbDate(t.firstDate)}D00:00:00`;
    values[ARG.endTS.name] = `${toKdbDate(nextDay(t.firstDate))}D00:00:00`;
  }
  return values;
}

/**
 * Asks where a query or export stands every 200 ms, handing each report (null: none) to `on` until it
 * returns false or the returned function is called.
 */
export function pollProgress(id: string, on: (p: QueryProgress | null) => boolean): () => void {
  const poll = setInterval(() => {
    void backend()
      .progress(id)
      .then((p) => {
        if (!on(p)) clearInterval(poll);
      })
      .catch(() => undefined);
  }, 200);
  return () => clearInterval(poll);
}

/** A fresh id for a query or an export (its progress and cancel). */
export const newId = (): string => (typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `q${Date.now()}${Math.random()}`);

/** The marks without `name`'s (edited, so no longer what the error named). */
export function unmark(marks: FieldMarks | null, operation: OperationName, name: string): FieldMarks | null {
  if (!marks || marks.operation !== operation || !(name in marks.fields)) return marks;
  const { [name]: _gone, ...fields } = marks.fields;
  return Object.keys(fields).length ? { operation, fields } : null;
}

/** Keeps the URL's fragment on the current form's request (replaced, not pushed: no history entry per keystroke). */
export function syncUrl(s: AppState): void {
  if (typeof location === 'undefined' || typeof history === 'undefined') return;
  const spec = operationSpec(s.info, s.operation);
  if (!spec) return;
  try {
    const hash = hashOf(spec.name, requestArgs(spec, s.forms[spec.name] ?? {}, s));
    if (location.hash !== hash) history.replaceState(null, '', hash);
  } catch {
    // a field that does not parse yet: the URL keeps the last request that did
  }
}
