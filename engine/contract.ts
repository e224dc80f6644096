/**
 * The contract between the app's renderer and its backend (Electron IPC or `tickscope serve` over
 * HTTP). Types, and pure data declared once for both sides (the agg operators): the renderer imports
 * nothing else from the engine.
 */
import type { ColumnType } from './core/column-type.js';
import type { OperationSpec } from './registry/types.js';

export type { ArgSpec, ArgType, BucketArgs, OperationName, OperationSpec, QReply, ResultView, Scope, StartForm, Widget } from './registry/types.js';
export type { ColumnType } from './core/column-type.js';
export type { ImportColumnDoc, ImportFileInfo, ImportMapDoc, ImportPreview, ImportReportInfo, ImportValueDoc, NewTableSpec, ReimportChoice, ReimportedPartitionInfo } from './storage/import-types.js';
import type { ImportMapDoc, ImportPreview, ImportReportInfo, NewTableSpec, ReimportChoice } from './storage/import-types.js';
export { AGG_OPERATORS, type OperatorDecl, type OperatorFamily } from './registry/agg-operators.js';
export { defaultText, excludesText, needsText, rangeText } from './registry/default-text.js';
/**
 * Every argument's declaration, as data: code outside an operation's module that needs an argument
 * reads it through its declaration (`ARG.startTS.name`), never by a name written out.
 */
export * as ARG from './registry/args.js';

/** The response envelope's header (SPEC 7). */
export interface Header {
  rc: number;
  ac: number;
  ai: string;
  api: string;
  corr: string;
  rcvTS: string;
  startTS?: string;
  endTS?: string;
  rows: number;
}

export interface TableInfo {
  readonly name: string;
  readonly kind: 'partitioned' | 'reference';
  readonly timeColumn: string | null;
  readonly idColumn: string;
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: ColumnType }>;
  /** Reference tables reachable through the schema's foreign keys: column -> reference table. */
  readonly foreignKeys: Readonly<Record<string, string>>;
  /** Reference tables: the key column. */
  readonly key: string | null;
  /** Named analytics of getStats for this table: built-in `<agg><Column>` names, then configured ones. */
  readonly analytics: readonly string[];
  /**
   * Its rows, where known without reading a file of every partition; null where not (a kdb+ table
   * whose partitions have not all been read yet: `tickscope info` counts them).
   */
  readonly rows: number | null;
  /** First and last partition dates (UTC), for partitioned tables with data. */
  readonly firstDate: string | null;
  readonly lastDate: string | null;
}

/** A summary function of getOrderAnalyticSummary, as config.json defines it. */
export interface SummaryFunctionInfo {
  readonly name: string;
  /** bps, pct, shares, count, minutes, price, value or number: how the app formats its values. */
  readonly kind: 'bps' | 'pct' | 'shares' | 'count' | 'minutes' | 'price' | 'value' | 'number';
  /** Which direction is a cost (coloured red), or null. */
  readonly adverse: 'high' | 'low' | null;
  readonly doc: string;
  /** The parse tree, as JSON text. */
  readonly tree: string;
  /** One of defaultSummaryFunctions. */
  readonly isDefault: boolean;
}

export interface AssemblyInfo {
  readonly name: string;
  /** What kind of database it is (a kdb+ one is read in place, read-only); absent from a gateway that does not say. */
  readonly kind?: 'tickscope' | 'kdb' | 'memory';
  /** Writes (order analytics, imports) are refused; absent: not said. */
  readonly readOnly?: boolean;
  readonly tables: readonly TableInfo[];
  /** Names of the filter rules configured in this database's config.json. */
  readonly filterRules: readonly string[];
  /** The summary functions of config.json, defaults first in their configured order. */
  readonly summaryFunctions: readonly SummaryFunctionInfo[];
  /**
   * Which tables hold the trades and the quotes, and which of a table's columns is its price, size,
   * bid, ask, bidSize, askSize or exchange (SPEC 3.2 roles): what the views look for instead of names.
   * Absent from a gateway that does not say.
   */
  readonly roles?: {
    readonly trades: string | null;
    readonly quotes: string | null;
    readonly columns: Readonly<Record<string, Readonly<Record<string, string>>>>;
  };
}

export interface AppInfo {
  readonly version: string;
  readonly mode: 'electron' | 'browser';
  readonly assemblies: readonly AssemblyInfo[];
  readonly operations: readonly OperationSpec[];
  /** The connection these describe (absent from a remote gateway's getMeta). */
  readonly connection?: ConnectionInfo;
  /** What a gateway's getMeta says of itself: where its kdb+ IPC listens, on the REST host (null: it does not). */
  readonly gateway?: { readonly qPort: number | null; readonly qTls: boolean };
}

/**
 * Where a script reaches a connection over REST (OAuth2 client credentials) and kdb+ IPC: "Copy as"
 * writes these into its curl and q text. Never a secret: that stays `$CLIENT_SECRET`.
 */
export interface GatewayAccess {
  /** REST base URL, no trailing slash. */
  readonly url: string;
  /** The token endpoint. */
  readonly tokenUrl: string;
  /** kdb+ IPC: host, port and TLS; null where the gateway serves none or does not say where. */
  readonly q: { readonly host: string; readonly port: number; readonly tls: boolean } | null;
  /** The client id a script uses (with `start.addClient`: the one that line makes). */
  readonly clientId: string;
  /** No gateway serves the embedded engine yet: the shell commands that make one, to run first. */
  readonly start?: {
    /** `tickscope gateway` over the same databases and clients file, at `url`'s and `q`'s ports. */
    readonly gateway: string;
    /** `tickscope clients add` of `clientId` into that file; absent when the file has a client. */
    readonly addClient?: string;
    readonly clientsFile: string;
  };
}

/** Where queries go: the app's own engine, or a remote gateway speaking the same REST interface. */
export interface ConnectionInfo {
  readonly id: string;
  readonly name: string;
  readonly kind: 'embedded' | 'remote';
  /** the remote's base URL (null for the embedded engine) */
  readonly url: string | null;
  readonly active: boolean;
  /** a remote's token endpoint and client id ("Copy as" writes them; the secret never leaves the backend) */
  readonly tokenUrl?: string;
  readonly clientId?: string;
  /** Where scripts reach this connection: what "Copy as" writes (absent from an older backend). */
  readonly gateway?: GatewayAccess;
  /** The embedded engine's databases, in the order mounted (absent for a remote). */
  readonly databases?: readonly MountedDatabase[];
}

/** A database folder the embedded engine has mounted (an assembly). */
export interface MountedDatabase {
  readonly name: string;
  readonly dir: string;
  readonly kind: 'tickscope' | 'kdb' | 'memory';
  readonly readOnly: boolean;
  /** The settings file of a kdb+ database (SPEC 11), or null. */
  readonly kdbSettings: string | null;
  /** Opened from the app (Open database…): remembered for the next launch, and closable. */
  readonly opened: boolean;
}

/** A database folder to open (Open database…): a Tickscope database or a kdb+ one, told apart by its contents. */
export interface OpenDatabaseSpec {
  readonly dir: string;
  /** A kdb+ database's settings file (SPEC 11). */
  readonly kdbSettings?: string;
}

/** A remote gateway to connect to (SPEC 7): the secret stays on the app's backend, never in the page after this call. */
export interface RemoteConnectionSpec {
  readonly name: string;
  /** e.g. https://insights.example.com or http://127.0.0.1:8080 */
  readonly baseUrl: string;
  /** where the token endpoint is, when not at baseUrl (a Keycloak host) */
  readonly authUrl?: string;
  /** the realm of the token endpoint (default tickscope) */
  readonly realm?: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface ResultColumn {
  readonly name: string;
  readonly type: ColumnType;
}

export type RunResponse =
  | {
      readonly ok: true;
      readonly resultId: string;
      readonly header: Header;
      readonly columns: readonly ResultColumn[];
      readonly rows: number;
      readonly elapsedMs: number;
      readonly outputTZ: string;
      readonly timeColumn: string | null;
      readonly idColumn: string | null;
      /** Distinct identifiers in the result (for the chart's instrument picker), ascending. */
      readonly ids: readonly string[];
      /** getStats: the grouping columns of the result (empty for getTicks). */
      readonly groupColumns: readonly string[];
    }
  | { readonly ok: false; readonly header: Header };

/**
 * How a page renders its cells: `grid` (the default) as the grid, the views and the JSON payload show
 * them, timestamps as wall-clock times of outputTZ; `csv` exactly as the CSV export writes them,
 * timestamps outside UTC with their offset (`2024-03-06T09:30:00.000000000-05:00`, SPEC 8): what a
 * copy of rows takes.
 */
export type PageForm = 'grid' | 'csv';

export interface PageResponse {
  readonly offset: number;
  /** Cells rendered as text as the CSV export does (timestamps with their offset only in the `csv` form); null is the empty string. */
  readonly rows: ReadonlyArray<readonly string[]>;
  /** A sorted copy's page (sort): each row's number in the result it was sorted from. */
  readonly baseRows?: readonly number[];
}

export interface ChartRequest {
  readonly resultId: string;
  /** Numeric column plotted as the line. */
  readonly valueColumn: string;
  /** Numeric column plotted as the histogram, if any. */
  readonly volumeColumn?: string;
  /** Only rows of this identifier. */
  readonly id?: string;
  /** More rows than this are conflated (first/min/max/last of consecutive groups). */
  readonly maxPoints: number;
}

/**
 * Chart series travel as Arrow IPC stream bytes with columns `seq` (int32 result row), `ts` (int64
 * UTC ns), `value` (float64) and `volume` (float64), and schema metadata `total` (rows before
 * conflation) and `conflated` ("true"/"false").
 */
export type ChartBytes = Uint8Array;

export interface ExportResult {
  readonly saved: boolean;
  readonly path?: string;
  readonly rows?: number;
}

/** Where a running query stands: steps done out of the total, in `unit` (partitions, instruments). */
export interface QueryProgress {
  readonly state: 'queued' | 'running';
  readonly done: number;
  readonly total: number;
  readonly unit: string;
  readonly elapsedMs: number;
}

/** What the renderer can ask of its backend. */
export interface BackendApi {
  info(): Promise<AppInfo>;
  /** What the backend is doing before it can answer (the first launch's demo generation), or null once ready. */
  startup(): Promise<string | null>;
  /** Runs an operation; `queryId` (the caller's) names it for progress and cancel. */
  run(operation: string, args: Record<string, unknown>, queryId?: string): Promise<RunResponse>;
  /** A running or queued query's progress; null once it is done (or unknown). */
  progress(queryId: string): Promise<QueryProgress | null>;
  /** Cancels a query: it answers the cancelled error (ac 40). False when it is no longer running. */
  cancel(queryId: string): Promise<boolean>;
  /** Rows [offset, offset + limit) of a held result as text, in the grid's form (default) or the CSV's. */
  page(resultId: string, offset: number, limit: number, form?: PageForm): Promise<PageResponse>;
  /** A held result sorted where it is held ([["desc","price"]] forms): a new result, the request not run again. */
  sort(resultId: string, sortCols: ReadonlyArray<readonly [string, string]>): Promise<RunResponse>;
  chart(req: ChartRequest): Promise<ChartBytes>;
  identifiers(assembly: string, table: string): Promise<readonly string[]>;
  /**
   * Writes a whole result to a file: CSV (default), Arrow IPC or Parquet (SPEC 8); a save dialog on the
   * desktop, a download in the browser. While it is written, progress(exportId) tells its rows written
   * and cancel(exportId) stops it (no file is left on the desktop).
   */
  exportCsv(resultId: string, suggestedName: string, format?: ExportFormat, exportId?: string): Promise<ExportResult>;
  /** A whole result as Arrow IPC stream bytes (typed columns), up to MAX_TABLE_ROWS rows. */
  table(resultId: string): Promise<Uint8Array>;
  /** The connections: the embedded engine and the remote gateways added this session. */
  connections(): Promise<readonly ConnectionInfo[]>;
  /** Connects to a remote gateway (a token and its getMeta first) and makes it the active connection. */
  addConnection(spec: RemoteConnectionSpec): Promise<readonly ConnectionInfo[]>;
  useConnection(id: string): Promise<readonly ConnectionInfo[]>;
  removeConnection(id: string): Promise<readonly ConnectionInfo[]>;
  /** Mounts a database folder on the embedded engine (remembered for the next launch) and makes the embedded engine active. */
  openDatabase(spec: OpenDatabaseSpec): Promise<readonly ConnectionInfo[]>;
  /** Unmounts a database opened from the app (and forgets it). */
  closeDatabase(name: string): Promise<readonly ConnectionInfo[]>;
  /** A folder chosen in the desktop's dialog (null: cancelled); absent in the browser, which types a path. */
  pickFolder?(title: string): Promise<string | null>;
  /** Files chosen in the desktop's dialog (null: cancelled); absent in the browser, which uploads the files it picks. */
  pickFiles?(title: string): Promise<readonly string[] | null>;
  /** Import…'s preview: the files of the paths, the first file's rows as read and as the mapping makes them. */
  importPreview(req: ImportPreviewRequest): Promise<ImportPreview>;
  /** Import…: the files written as the mapping says; progress(queryId) and cancel(queryId) as for a query. */
  importFiles(req: ImportFilesRequest, queryId?: string): Promise<ImportReportInfo>;
}

/** What Import…'s preview asks: paths on the engine's machine, and the mapping as far as the form has it. */
export interface ImportPreviewRequest {
  readonly paths: readonly string[];
  readonly map?: ImportMapDoc;
  readonly table?: string;
  readonly header?: boolean;
  readonly newTable?: NewTableSpec;
  readonly assembly?: string;
}

/** What Import… asks: the paths, the mapping, what to do with a re-import, a new table to make first. */
export interface ImportFilesRequest {
  readonly paths: readonly string[];
  readonly map: ImportMapDoc;
  readonly reimport?: ReimportChoice;
  readonly newTable?: NewTableSpec;
  readonly assembly?: string;
}

/** The file formats a result exports to. */
export type ExportFormat = 'csv' | 'arrow' | 'parquet';

/** Every export format, for validating one that arrives over IPC or HTTP. */
export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'arrow', 'parquet'];

/** The largest result `table` sends whole; larger ones are read through `page` and `chart`. */
export const MAX_TABLE_ROWS = 2_000_000;
