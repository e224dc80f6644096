/**
 * The run slice: one query at a time, its progress and cancel, and the current operation's last
 * result or error. A result always belongs to the operation that asked for it: one that arrives after
 * the user moved to another operation's form is filed under its own operation (shown when its form
 * is), never over the form on screen.
 */
import type { OperationName } from '../../../engine/contract';
import { backend } from '../backend';
import { addEntry, type HistoryEntry } from '../history/history';
import { appMemory } from '../history/storage';
import { errorFields } from '../states/error-fields';
import { requestArgs } from './request';
import { callName, type ChartChoice, NO_RUN, operationSpec, type RunOk, type RunSlice, type RunView, type Slice } from './state';
import { newId, pollProgress } from './support';

const defaultChart = (r: RunOk): ChartChoice => {
  const numeric = r.columns.filter((c) => c.type === 'float' || c.type === 'long' || c.type === 'int').map((c) => c.name);
  const value = ['price', 'midPoint', 'bidPrice', 'lastPx'].find((n) => numeric.includes(n)) ?? r.columns.find((c) => c.type === 'float')?.name ?? numeric[0] ?? null;
  const volume = ['volume', 'size', 'bidSize', 'lastQty'].find((n) => numeric.includes(n)) ?? null;
  return { valueColumn: value, volumeColumn: volume, id: r.ids[0] ?? null };
};

export const runSlice: Slice<RunSlice> = (set, get) => {
  /** Shows a run's outcome when its operation's form is on screen, else files it under that operation. */
  const settle = (op: OperationName, change: Partial<RunView>): void => {
    const s = get();
    if (s.operation === op) set(change);
    else set({ views: { ...s.views, [op]: { ...(s.views[op] ?? NO_RUN), ...change } } });
  };

  return {
    ...NO_RUN,
    running: false,
    query: null,
    progress: null,
    views: {},
    crosshair: null,

    async run() {
      const s = get();
      const spec = operationSpec(s.info, s.operation);
      if (!spec || s.running) return;
      let args: Record<string, unknown>;
      try {
        args = requestArgs(spec, s.forms[spec.name] ?? {}, s);
      } catch (e) {
        const message = (e as Error).message;
        const fields = errorFields(message, null, spec.args.map((a) => a.name));
        set({ formError: message, marks: Object.keys(fields).length ? { operation: spec.name, fields } : null });
        return;
      }
      const id = newId();
      set({ running: true, formError: null, marks: null, notice: null, query: { id, started: performance.now(), operation: spec.name }, progress: null });
      // progress is polled (the query runs on a worker; the page asks where it stands)
      const stopPolling = pollProgress(id, (p) => {
        if (p && get().query?.id === id) set({ progress: p });
        return true;
      });
      const startedAt = new Date().toISOString();
      const t0 = performance.now();
      const remember = (outcome: Pick<HistoryEntry, 'ok' | 'rows' | 'code' | 'message'>): void => {
        const entry: HistoryEntry = { id, operation: spec.name, args, connection: get().connections.find((c) => c.active)?.name ?? '', startedAt, ms: Math.round(performance.now() - t0), ...outcome };
        set({ history: addEntry(get().history, entry) });
        void appMemory().then((m) => m.record(get().history[0]!));
      };
      const request = { operation: spec.name, args };
      try {
        const r = await backend().run(callName(spec), args, id);
        if (r.ok) settle(spec.name, { result: r, request, failure: null, gridSorted: null, chart: defaultChart(r), selectedRow: null });
        else {
          const fields = errorFields(r.header.ai, r.header.ac, spec.args.map((a) => a.name));
          settle(spec.name, { failure: { request, ac: r.header.ac, message: r.header.ai, api: r.header.api || callName(spec) } });
          set({ marks: Object.keys(fields).length ? { operation: spec.name, fields } : null });
        }
        remember(r.ok ? { ok: true, rows: r.rows, code: null, message: null } : { ok: false, rows: null, code: r.header.ac, message: r.header.ai });
      } catch (e) {
        settle(spec.name, { failure: { request, ac: null, message: (e as Error).message, api: callName(spec) } });
        remember({ ok: false, rows: null, code: null, message: (e as Error).message });
      } finally {
        stopPolling();
        set({ running: false, query: null, progress: null });
      }
    },

    cancel() {
      const q = get().query;
      if (!q) return false;
      void backend().cancel(q.id);
      return true;
    },

    dismissFailure() {
      set({ failure: null });
    },

    setChart(choice) {
      set({ chart: { ...get().chart, ...choice } });
    },

    selectRow(row) {
      set({ selectedRow: row });
    },

    setCrosshair(c) {
      const now = get().crosshair;
      if (now === c || (now && c && now.resultId === c.resultId && now.row === c.row && now.from === c.from)) return;
      set({ crosshair: c });
    },
  };
};
