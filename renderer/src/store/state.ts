/**
 * The app's state, by slice: the connection and what it offers, the forms (one per operation, kept
 * across connections), the run and its result (one per operation), the export, the history and saved
 * queries, and the UI's panels and notices. Types only, with the two selectors every slice reads:
 * the slices (one file each) implement them, store.ts puts them in one vanilla store that React binds.
 */
import type { StateCreator } from 'zustand/vanilla';
import type { AppInfo, ConnectionInfo, ExportFormat, OpenDatabaseSpec, OperationName, OperationSpec, QueryProgress, RemoteConnectionSpec, ResultView, RunResponse, TableInfo } from '../../../engine/contract';
import type { FormValue, FormValues } from '../form/values';
import type { HistoryEntry, SavedQuery } from '../history/history';

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

/** The embedded engine or a remote gateway: what it offers, and the identifiers fetched from it. */
export interface ConnectionSlice {
  info: AppInfo | null;
  infoError: string | null;
  assembly: string;
  /** Identifiers by `assembly/table`, of the active connection. */
  identifiers: Record<string, readonly string[]>;
  /** The embedded engine and the remote gateways added this session. */
  connections: readonly ConnectionInfo[];
  load(): Promise<void>;
  /** Connects to a remote gateway and switches to it; the error's message when it fails. */
  addConnection(spec: RemoteConnectionSpec): Promise<string | null>;
  /** Switches connection: the forms stay (values it does not know are marked), the results start over. */
  useConnection(id: string): Promise<void>;
  /**
   * Opens a database folder (Tickscope or kdb+) on the embedded engine and shows it: its assembly
   * chosen, the form's table one of its tables. The error's message when it fails.
   */
  openDatabase(spec: OpenDatabaseSpec): Promise<string | null>;
  /** Closes a database opened from the app. */
  closeDatabase(name: string): Promise<void>;
  setAssembly(name: string): void;
  loadIdentifiers(table: string): Promise<void>;
  /** getMeta again (tables, rows, dates) after the data changed (an import), the results on screen kept. */
  refreshInfo(): Promise<void>;
}

/** The forms, one per operation, kept across operations and connections. */
export interface FormSlice {
  /** The operation whose form is shown: the first the backend lists until the user picks one (null before it answers). */
  operation: OperationName | null;
  forms: Partial<Record<OperationName, FormValues>>;
  formError: string | null;
  /** The fields the last error named (marked in the form until edited or run again). */
  marks: FieldMarks | null;
  /** Shows an operation's form and its own last result. */
  setOperation(op: OperationName): void;
  setField(name: string, value: FormValue): void;
  /** Puts a past or saved request in the form (its operation's), and runs it when asked. */
  restore(operation: string, args: Readonly<Record<string, unknown>>, run?: boolean): Promise<void>;
}

/** What one operation's last run left on screen. */
export interface RunView {
  readonly result: RunOk | null;
  readonly request: RunRequest | null;
  /** The last call failed: the error panel covers the result, which is not shown as current. */
  readonly failure: Failure | null;
  /** The grid shows a sorted copy of the result: Export writes that copy. */
  readonly gridSorted: { readonly baseId: string; readonly resultId: string; readonly by: string } | null;
  readonly chart: ChartChoice;
  readonly selectedRow: number | null;
}

/** The query being run and the current operation's result (the others' wait in `views`). */
export interface RunSlice extends RunView {
  running: boolean;
  /** The running query: its id (for cancel), when it started, and its last progress report. */
  query: { readonly id: string; readonly started: number; readonly operation: OperationName } | null;
  progress: QueryProgress | null;
  /** The last run of each operation not on screen, put back when its form is shown again. */
  views: Partial<Record<OperationName, RunView>>;
  run(): Promise<void>;
  /** Cancels the running query (Cancel, Escape); false when none runs. */
  cancel(): boolean;
  /** Closes the error panel, showing the previous result again. */
  dismissFailure(): void;
  setChart(choice: Partial<ChartChoice>): void;
  selectRow(row: number | null): void;
  /** The result row under the chart's crosshair or the pointer in the grid, and which put it there: the other one marks it. */
  crosshair: Crosshair | null;
  setCrosshair(c: Crosshair | null): void;
}

/** A row pointed at in the chart or the grid, of one result. */
export interface Crosshair {
  readonly resultId: string;
  readonly row: number;
  readonly from: 'chart' | 'grid';
}

/** A result being written to a file. */
export interface ExportSlice {
  /** The export being written: its id (progress, cancel), file name, start, rows, and its last progress report. */
  exporting: { readonly id: string; readonly name: string; readonly started: number; readonly rows: number; readonly progress: QueryProgress | null } | null;
  exportCsv(): Promise<void>;
  /** Exports the whole result as CSV, Arrow or Parquet (SPEC 8), with its progress in the status line. */
  exportResult(format: ExportFormat): Promise<void>;
  /** Stops the export being written; false when none is. */
  cancelExport(): boolean;
}

/** Past runs and saved queries (SPEC 9). */
export interface MemorySlice {
  /** Past runs, newest first. */
  history: readonly HistoryEntry[];
  saved: readonly SavedQuery[];
  /** Saves the current form's request by name (replacing one of that name); an error message or null. */
  saveQuery(name: string): Promise<string | null>;
  deleteSaved(name: string): Promise<void>;
  /** Adds the saved queries of an exported file; an error message or null. */
  importSaved(text: string): Promise<string | null>;
  clearHistory(): Promise<void>;
}

/** Panels, palettes and the status line's notice. */
export interface UiSlice {
  notice: string | null;
  /** The history and saved queries palette: closed, or open on one of its tabs. */
  memoryPanel: 'history' | 'saved' | null;
  /** The command palette (Ctrl/Cmd+K) or the shortcut list (?), when open. */
  palette: 'commands' | 'keys' | null;
  /** Import… (the connection menu, Ctrl/Cmd+I) is open. */
  importing: boolean;
  openMemory(tab: 'history' | 'saved' | null): void;
  openPalette(which: 'commands' | 'keys' | null): void;
  openImport(open: boolean): void;
}

export type AppState = ConnectionSlice & FormSlice & RunSlice & ExportSlice & MemorySlice & UiSlice;

/** One slice's part of the store: its state and actions, reading and setting the whole state. */
export type Slice<T> = StateCreator<AppState, [], [], T>;

/** The operation's declaration from the registry the backend sent. */
export function operationSpec(info: AppInfo | null, op: OperationName | null): OperationSpec | undefined {
  return info?.operations.find((o) => o.name === op);
}

/** The operation whose results the view shows (the summary's, the generator's), undefined when none does. */
export function operationWithView(info: AppInfo | null, view: ResultView): OperationSpec | undefined {
  return info?.operations.find((o) => o.view === view);
}

/** The name a call of the operation is sent by: its first IPC name, as Run sends it. */
export const callName = (op: OperationSpec): string => op.ipcNames[0]!;

/** The call name of the operation whose results the view shows (getTicks' for 'ticks'), undefined when none does. */
export function callWithView(info: AppInfo | null, view: ResultView): string | undefined {
  const op = operationWithView(info, view);
  return op && callName(op);
}

/** The form on screen (undefined before the backend lists its operations, or before it is first shown). */
export const currentForm = (s: Pick<AppState, 'operation' | 'forms'>): FormValues | undefined => (s.operation ? s.forms[s.operation] : undefined);

/** The view an operation's result is shown in (its declaration's), undefined for none or an unknown operation. */
export function viewOf(info: AppInfo | null, op: OperationName | null | undefined): ResultView | undefined {
  return op ? operationSpec(info, op)?.view : undefined;
}

/** Tables of the selected assembly. */
export function tablesOf(state: Pick<AppState, 'info' | 'assembly'>): readonly TableInfo[] {
  return state.info?.assemblies.find((a) => a.name === state.assembly)?.tables ?? [];
}

/** Nothing on screen yet for an operation. */
export const NO_RUN: RunView = { result: null, request: null, failure: null, gridSorted: null, chart: { valueColumn: null, volumeColumn: null, id: null }, selectedRow: null };
