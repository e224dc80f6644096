/**
 * One zustand store in slices: app info, the query form, the last result and the chart's choices.
 * Actions sit beside the state they change.
 */
import { create } from 'zustand';
import type { AppInfo, ConnectionInfo, ExportFormat, OperationName, OperationSpec, QueryProgress, RemoteConnectionSpec, RunResponse, TableInfo } from '../../../engine/contract';
import { backend } from '../backend';
import { buildArgs, type FormValue, type FormValues } from './request';
import { exportName } from '../form/export-name';
import { addEntry, formFromArgs, hashOf, type HistoryEntry, parseHash, parseSavedQueries, putSaved, type SavedQuery } from '../history/history';
import { appMemory } from '../history/storage';
import { errorFields } from '../states/error-fields';

export type RunOk = Extract<RunResponse, { ok: true }>;

export interface ChartChoice {
  readonly valueColumn: string | null;
  readonly volumeColumn: string | null;
  readonly id: string | null;
}

/** The call that produced the current result (the stats view reads its buckets and trees from it). */
export interface RunRequest {
  readonly operation: OperationName;
  readonly args: Readonly<Record<string, unknown>>;
}

/** A call that failed: what was asked, and the envelope's code and message (no code when the backend itself failed). */
export interface Failure {
  readonly request: RunRequest;
  readonly ac: number | null;
  readonly message: string;
  /** The envelope's api (".fsi.getTicks"), or the operation's name. */
  readonly api: string;
}

/** Form fields an error names, with the text shown under each, for one operation's form. */
export interface FieldMarks {
  readonly operation: OperationName;
  readonly fields: Readonly<Record<string, string>>;
}

export interface AppState {
  info: AppInfo | null;
  infoError: string | null;
  assembly: string;
  operation: OperationName;
  forms: Partial<Record<OperationName, FormValues>>;
  formError: string | null;
  identifiers: Record<string, readonly string[]>;
  running: boolean;
  /** The running query: its id (for cancel), when it started, and its last progress report. */
  query: { readonly id: string; readonly started: number; readonly operation: OperationName } | null;
  progress: QueryProgress | null;
  result: RunOk | null;
  request: RunRequest | null;
  /** The last call failed: the error panel covers the result, which is not shown as current. */
  failure: Failure | null;
  /** The fields the last error named (marked in the form until edited or run again). */
  marks: FieldMarks | null;
  /** The grid shows a sorted copy of the result: Export writes that copy. */
  gridSorted: { readonly baseId: string; readonly resultId: string; readonly by: string } | null;
  chart: ChartChoice;
  selectedRow: number | null;
  notice: string | null;
  /** The export being written: its id (progress, cancel), file name, start, rows, and its last progress report. */
  exporting: { readonly id: string; readonly name: string; readonly started: number; readonly rows: number; readonly progress: QueryProgress | null } | null;
  /** The embedded engine and the remote gateways added this session. */
  connections: readonly ConnectionInfo[];
  /** Past runs, newest first (SPEC 9), and saved queries by name. */
  history: readonly HistoryEntry[];
  saved: readonly SavedQuery[];
  /** The history and saved queries palette: closed, or open on one of its tabs. */
  memoryPanel: 'history' | 'saved' | null;
  /** The command palette (Ctrl/Cmd+K) or the shortcut list (?), when open. */
  palette: 'commands' | 'keys' | null;

  load(): Promise<void>;
  /** Connects to a remote gateway and switches to it; the error's message when it fails. */
  addConnection(spec: RemoteConnectionSpec): Promise<string | null>;
  /** Switches connection: the forms and results start over from its getMeta. */
  useConnection(id: string): Promise<void>;
  setAssembly(name: string): void;
  setOperation(op: OperationName): void;
  setField(name: string, value: FormValue): void;
  loadIdentifiers(table: string): Promise<void>;
  run(): Promise<void>;
  /** Cancels the running query (Cancel, Escape); false when none runs. */
  cancel(): boolean;
  /** Closes the error panel, showing the previous result again. */
  dismissFailure(): void;
  exportCsv(): Promise<void>;
  /** Exports the whole result as CSV, Arrow or Parquet (SPEC 8), with its progress in the status line. */
  exportResult(format: ExportFormat): Promise<void>;
  /** Stops the export being written; false when none is. */
  cancelExport(): boolean;
  setChart(choice: Partial<ChartChoice>): void;
  selectRow(row: number | null): void;
  openMemory(tab: 'history' | 'saved' | null): void;
  openPalette(which: 'commands' | 'keys' | null): void;
  /** Puts a past or saved request in the form (its operation's), and runs it when asked. */
  restore(operation: string, args: Readonly<Record<string, unknown>>, run?: boolean): Promise<void>;
  /** Saves the current form's request by name (replacing one of that name); an error message or null. */
  saveQuery(name: string): Promise<string | null>;
  deleteSaved(name: string): Promise<void>;
  /** Adds the saved queries of an exported file; an error message or null. */
  importSaved(text: string): Promise<string | null>;
  clearHistory(): Promise<void>;
}

/** The operation's declaration from the registry the backend sent. */
export function operationSpec(info: AppInfo | null, op: OperationName): OperationSpec | undefined {
  return info?.operations.find((o) => o.name === op);
}

/** Tables of the selected assembly. */
export function tablesOf(state: Pick<AppState, 'info' | 'assembly'>): readonly TableInfo[] {
  return state.info?.assemblies.find((a) => a.name === state.assembly)?.tables ?? [];
}

const toKdbDate = (iso: string): string => iso.replace(/-/g, '.');

function nextDay(iso: string): string {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** Starting values of a form: the first time-series table (Trade when present) over its first day. */
function initialForm(op: OperationName, tables: readonly TableInfo[]): FormValues {
  const preferred: Partial<Record<OperationName, string>> = {
    getTicks: 'Trade',
    getStats: 'Trade',
    getOrderAnalyticSummary: 'OrderAnalytics',
    generateOrderAnalytics: 'Order',
  };
  const t = tables.find((x) => x.name === preferred[op]) ?? tables.find((x) => x.kind === 'partitioned' && x.rows > 0);
  if (!t) return {};
  const values: Record<string, FormValue> = { table: t.name };
  if (op === 'generateOrderAnalytics') {
    // one day of orders, replacing what an earlier run stored for them (no duplicates by default)
    if (t.firstDate) values['dt'] = toKdbDate(t.firstDate);
    values['regenExistingIDs'] = true;
    return values;
  }
  if (t.firstDate) {
    values['startTS'] = `${toKdbDate(t.firstDate)}D00:00:00`;
    values['endTS'] = `${toKdbDate(nextDay(t.firstDate))}D00:00:00`;
  }
  return values;
}

const defaultChart = (r: RunOk): ChartChoice => {
  const numeric = r.columns.filter((c) => c.type === 'float' || c.type === 'long' || c.type === 'int').map((c) => c.name);
  const value = ['price', 'midPoint', 'bidPrice', 'lastPx'].find((n) => numeric.includes(n)) ?? r.columns.find((c) => c.type === 'float')?.name ?? numeric[0] ?? null;
  const volume = ['volume', 'size', 'bidSize', 'lastQty'].find((n) => numeric.includes(n)) ?? null;
  return { valueColumn: value, volumeColumn: volume, id: r.ids[0] ?? null };
};

/**
 * Asks where a query or export stands every 200 ms, handing each report (null: none) to `on` until it
 * returns false or the returned function is called.
 */
function pollProgress(id: string, on: (p: QueryProgress | null) => boolean): () => void {
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
const newId = (): string => (typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `q${Date.now()}${Math.random()}`);

export const useStore = create<AppState>((set, get) => ({
  info: null,
  infoError: null,
  assembly: '',
  operation: 'getTicks',
  forms: {},
  formError: null,
  identifiers: {},
  running: false,
  query: null,
  progress: null,
  result: null,
  request: null,
  failure: null,
  marks: null,
  gridSorted: null,
  chart: { valueColumn: null, volumeColumn: null, id: null },
  selectedRow: null,
  notice: null,
  exporting: null,
  connections: [],
  history: [],
  saved: [],
  memoryPanel: null,
  palette: null,

  async addConnection(spec) {
    try {
      set({ connections: await backend().addConnection(spec) });
    } catch (e) {
      return (e as Error).message;
    }
    await get().load();
    return null;
  },

  async useConnection(id) {
    if (get().running) return;
    try {
      set({ connections: await backend().useConnection(id) });
    } catch (e) {
      set({ notice: `Cannot switch connection: ${(e as Error).message}` });
      return;
    }
    await get().load();
  },

  async load() {
    try {
      // another connection's results and identifiers are not this one's
      set({ result: null, request: null, failure: null, marks: null, gridSorted: null, identifiers: {}, selectedRow: null });
      // until the engine answers (the first launch makes the demo database), say what it is doing
      let answered = false;
      const watch = setInterval(() => {
        void backend()
          .startup()
          .then((msg) => {
            if (!answered && msg) set({ notice: `Starting: ${msg}` });
          })
          .catch(() => undefined);
      }, 250);
      let info: AppInfo;
      let connections: readonly ConnectionInfo[];
      try {
        [info, connections] = await Promise.all([backend().info(), backend().connections()]);
      } finally {
        answered = true;
        clearInterval(watch);
      }
      if (get().notice?.startsWith('Starting: ')) set({ notice: null });
      set({ connections });
      const assembly = info.assemblies[0]?.name ?? '';
      const tables = info.assemblies[0]?.tables ?? [];
      const form = initialForm('getTicks', tables);
      set({ info, assembly, forms: { getTicks: form }, infoError: null });
      void appMemory().then(async (m) => set({ history: await m.history(), saved: await m.saved() }));
      // a link or a reload: the form the URL holds
      const linked = typeof location === 'undefined' ? null : parseHash(location.hash);
      if (linked && operationSpec(info, linked.operation as OperationName)) {
        await get().restore(linked.operation, linked.args);
        return;
      }
      const table = form['table'];
      if (typeof table === 'string') {
        await get().loadIdentifiers(table);
        const first = get().identifiers[`${assembly}/${table}`]?.[0];
        if (first && get().forms.getTicks?.['idList'] === undefined) get().setField('idList', first);
      }
    } catch (e) {
      set({ infoError: (e as Error).message });
    }
  },

  setAssembly(name) {
    set({ assembly: name });
  },

  setOperation(op) {
    const s = get();
    const forms = s.forms[op] ? s.forms : { ...s.forms, [op]: initialForm(op, tablesOf(s)) };
    set({ operation: op, forms, formError: null });
    syncUrl(get());
  },

  setField(name, value) {
    const s = get();
    const form = { ...(s.forms[s.operation] ?? {}), [name]: value };
    set({ forms: { ...s.forms, [s.operation]: form }, formError: null, marks: unmark(s.marks, s.operation, name) });
    syncUrl(get());
    if (name === 'table' && typeof value === 'string' && value) void get().loadIdentifiers(value);
  },

  async loadIdentifiers(table) {
    const { assembly } = get();
    const key = `${assembly}/${table}`;
    if (get().identifiers[key]) return;
    try {
      const ids = await backend().identifiers(assembly, table);
      set({ identifiers: { ...get().identifiers, [key]: ids } });
    } catch {
      // an unknown table has no identifiers; the query itself reports the error
    }
  },

  async run() {
    const s = get();
    const spec = operationSpec(s.info, s.operation);
    if (!spec || s.running) return;
    let args: Record<string, unknown>;
    try {
      args = buildArgs(spec, s.forms[s.operation] ?? {});
      const first = s.info?.assemblies[0]?.name;
      if (s.assembly && s.assembly !== first && spec.args.some((a) => a.name === 'scope')) args['scope'] = { assembly: s.assembly };
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
    try {
      const r = await backend().run(spec.ipcNames[0]!, args, id);
      const request = { operation: spec.name, args };
      if (r.ok) set({ result: r, request, failure: null, gridSorted: null, chart: defaultChart(r), selectedRow: null });
      else {
        const fields = errorFields(r.header.ai, r.header.ac, spec.args.map((a) => a.name));
        set({ failure: { request, ac: r.header.ac, message: r.header.ai, api: r.header.api || spec.ipcNames[0]! }, marks: Object.keys(fields).length ? { operation: spec.name, fields } : null });
      }
      remember(r.ok ? { ok: true, rows: r.rows, code: null, message: null } : { ok: false, rows: null, code: r.header.ac, message: r.header.ai });
    } catch (e) {
      set({ failure: { request: { operation: spec.name, args }, ac: null, message: (e as Error).message, api: spec.ipcNames[0]! } });
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

  async exportCsv() {
    await get().exportResult('csv');
  },

  async exportResult(format) {
    const { result, request, failure, gridSorted } = get();
    // an error on screen: the result under it is not the current one
    if (failure) set({ notice: 'Nothing to export: the last call failed (Show the previous result to export that one)' });
    if (!result || !request || failure) return;
    const name = exportName(request, result.header, format);
    // the grid sorted by a header: the file has the rows in the grid's order
    const sorted = gridSorted?.baseId === result.resultId ? gridSorted : null;
    const how = sorted ? `, sorted by ${sorted.by}` : '';
    if (get().exporting) return;
    const id = newId();
    const rows = result.rows;
    set({ exporting: { id, name, started: performance.now(), rows, progress: null }, notice: null });
    // progress is polled as a query's is: rows written out of the result's (the worker renders the file)
    let seen = false;
    const finished = new Promise<void>((resolve) => {
      pollProgress(id, (p) => {
        const now = get().exporting;
        if (now?.id === id && p) {
          seen = true;
          set({ exporting: { ...now, progress: p } });
          return true;
        }
        // done elsewhere, written (a browser download: the page is not told when it ends), or never started
        if (now?.id !== id || seen || performance.now() - now.started > 10_000) {
          resolve();
          return false;
        }
        return true;
      });
    });
    const done = (notice: string | null): void => {
      if (get().exporting?.id === id) set({ exporting: null, notice });
    };
    try {
      const r = await backend().exportCsv(sorted?.resultId ?? result.resultId, name, format, id);
      if (!r.saved) return done(null);
      // the desktop answers once the file is written; the browser once its download has started
      if (!r.path) await finished;
      done(r.path ? `Saved ${(r.rows ?? rows).toLocaleString('en-US')} rows to ${r.path}${how}` : `Downloaded ${name} (${rows.toLocaleString('en-US')} rows${how})`);
    } catch (e) {
      const message = (e as Error).message;
      done(/cancelled/.test(message) ? `Export of ${name} cancelled; no file written` : `Export failed: ${message}`);
    }
  },

  cancelExport() {
    const e = get().exporting;
    if (!e) return false;
    void backend().cancel(e.id);
    // a browser download is the browser's once started: the page stops waiting for it
    set({ exporting: null, notice: `Export of ${e.name} cancelled` });
    return true;
  },

  setChart(choice) {
    set({ chart: { ...get().chart, ...choice } });
  },

  selectRow(row) {
    set({ selectedRow: row });
  },

  openMemory(tab) {
    set({ memoryPanel: tab, palette: null });
  },

  openPalette(which) {
    set({ palette: which, memoryPanel: null });
  },

  async restore(operation, args, run = false) {
    const s = get();
    const spec = operationSpec(s.info, operation as OperationName);
    if (!spec) {
      set({ notice: `${operation} is not an operation of this connection` });
      return;
    }
    const form = formFromArgs(spec, args);
    set({ operation: spec.name, forms: { ...s.forms, [spec.name]: form }, formError: null, marks: null, memoryPanel: null, palette: null });
    syncUrl(get());
    const table = form['table'];
    if (typeof table === 'string' && table) void get().loadIdentifiers(table);
    if (run) await get().run();
  },

  async saveQuery(name) {
    const s = get();
    const spec = operationSpec(s.info, s.operation);
    if (!spec) return 'no operation to save';
    if (!name.trim()) return 'a saved query needs a name';
    let args: Record<string, unknown>;
    try {
      args = buildArgs(spec, s.forms[s.operation] ?? {});
    } catch (e) {
      return (e as Error).message;
    }
    const saved = putSaved(s.saved, { name: name.trim(), operation: spec.name, args, savedAt: new Date().toISOString() });
    set({ saved, notice: `Saved "${name.trim()}"` });
    await (await appMemory()).setSaved(saved);
    return null;
  },

  async deleteSaved(name) {
    const saved = get().saved.filter((q) => q.name !== name);
    set({ saved });
    await (await appMemory()).setSaved(saved);
  },

  async importSaved(text) {
    let incoming: SavedQuery[];
    try {
      incoming = parseSavedQueries(text);
    } catch (e) {
      return `Cannot import: ${(e as Error).message}`;
    }
    const saved = incoming.reduce<SavedQuery[]>((list, q) => putSaved(list, q), [...get().saved]);
    set({ saved, notice: `Imported ${incoming.length} saved ${incoming.length === 1 ? 'query' : 'queries'}` });
    await (await appMemory()).setSaved(saved);
    return null;
  },

  async clearHistory() {
    set({ history: [] });
    await (await appMemory()).clearHistory();
  },
}));

/** The marks without `name`'s (edited, so no longer what the error named). */
function unmark(marks: FieldMarks | null, operation: OperationName, name: string): FieldMarks | null {
  if (!marks || marks.operation !== operation || !(name in marks.fields)) return marks;
  const { [name]: _gone, ...fields } = marks.fields;
  return Object.keys(fields).length ? { operation, fields } : null;
}

/** Keeps the URL's fragment on the current form's request (replaced, not pushed: no history entry per keystroke). */
function syncUrl(s: AppState): void {
  if (typeof location === 'undefined' || typeof history === 'undefined') return;
  const spec = operationSpec(s.info, s.operation);
  if (!spec) return;
  try {
    const hash = hashOf(spec.name, buildArgs(spec, s.forms[s.operation] ?? {}));
    if (location.hash !== hash) history.replaceState(null, '', hash);
  } catch {
    // a field that does not parse yet: the URL keeps the last request that did
  }
}
