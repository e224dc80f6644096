/**
 * What the app's backends (`tickscope serve`, the desktop app's IPC) call: queries and everything
 * done with their results run on the executor's workers; only the registry and table metadata
 * (info, identifiers) are answered here, from the partition metadata, without reading columns.
 */
import { estimateRows } from './cost-estimate.js';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AppInfo, ChartRequest, ConnectionInfo, MountedDatabase, ExportFormat, PageResponse, QueryProgress, RemoteConnectionSpec, RunResponse } from '../contract.js';
import { asTickscopeError, TickscopeError } from '../core/errors.js';
import { errorEnvelope, requestInfo } from '../output/envelope.js';
import type { ServedGateway } from '../gateway/host.js';
import { Engine } from '../engine.js';
import { type Mounted, type MountSpec, openMount, specOf } from '../storage/mount.js';
import { Executor } from '../executor/executor.js';
import type { ProcessSettings } from '../executor/settings.js';
import { AppService, VERSION } from './app-service.js';
import { embeddedAccess } from './gateway-access.js';
import { RemoteGateway } from './remote.js';
import { checkOpenSpec, mountedInfo, readRemembered, writeRemembered } from './databases.js';
import { userDataDir } from './user-data.js';
import { checkImportRequest, checkPreviewRequest, importTarget } from '../session/import.js';
import type { ImportPreview, ImportReportInfo } from '../storage/import-types.js';
import { type Upload, saveUpload } from './uploads.js';
import type { Readable } from 'node:stream';

const EMBEDDED = 'embedded';

export class QueryService {
  private readonly meta: AppService;
  /** Remote gateways added this session (their secrets live here, in this process, only). */
  private readonly remotes = new Map<string, RemoteGateway>();
  private active = EMBEDDED;
  /** Remote queries in flight: cancelled by aborting their request. */
  private readonly remoteQueries = new Map<string, { readonly controller: AbortController; readonly started: number }>();
  /** The gateway this process serves on this engine, if any (getMeta advertises its q port; Copy as names it). */
  private served: ServedGateway | null = null;
  /** Databases opened from the app (by folder), in the order opened: remembered in `remember`, and closable. */
  private readonly opened: MountSpec[] = [];

  constructor(
    /** Databases (folders): its workers open them by their specs. */
    private readonly engine: Engine<Mounted>,
    readonly executor: Executor,
    private readonly mode: 'electron' | 'browser',
    /** Where the databases opened from the app are remembered (user data's databases.json); null: not remembered. */
    private readonly remember: string | null = null,
  ) {
    this.meta = new AppService(engine, mode);
    // small queries first: their rows estimated here from the partitions' metadata
    executor.estimator = (operation, args) => estimateRows(engine, operation, args);
  }

  /**
   * Opens the databases here (metadata) and starts the executor's workers over them; with `remember`,
   * the databases opened from the app last time are mounted after them.
   */
  static async start(dirs: ReadonlyArray<string | MountSpec>, settings: ProcessSettings, mode: 'electron' | 'browser', opts: { remember?: string } = {}): Promise<QueryService> {
    const engine = Engine.open(dirs);
    const service = new QueryService(engine, await Executor.start(engine.databases.map(specOf), settings), mode, opts.remember ?? null);
    if (opts.remember) service.mountRemembered(opts.remember);
    return service;
  }

  /** Mounts the databases opened last time; one that cannot be opened now is said and kept in the list. */
  private mountRemembered(file: string): void {
    for (const spec of readRemembered(file)) {
      try {
        if (!this.engine.databases.some((d) => d.dir === spec.dir)) this.mountSpec(spec);
        this.opened.push(spec);
      } catch (e) {
        this.opened.push(spec);
        console.error(`tickscope: the database ${spec.dir} opened last time cannot be opened now (${asTickscopeError(e).message}); it stays in the list`);
      }
    }
  }

  private mountSpec(spec: MountSpec): Mounted {
    const db = openMount(spec);
    if (this.engine.databases.some((d) => d.name === db.name)) {
      throw new TickscopeError('badRequest', `${spec.dir}: a database named ${db.name} is mounted already; assemblies are named by folder (a kdb+ database's settings may give it another "name")`);
    }
    this.engine.mount(db);
    this.executor.mount(specOf(db));
    return db;
  }

  /**
   * Opens a database folder (a Tickscope database or a kdb+ one) as another assembly of the embedded
   * engine, which becomes the active connection; remembered for the next launch. A folder already
   * mounted is only made active.
   */
  openDatabase(spec: unknown): ConnectionInfo[] {
    const s = checkOpenSpec(spec);
    if (!this.engine.databases.some((d) => d.dir === s.dir)) {
      this.mountSpec(s);
      this.opened.push(s);
      this.save();
    }
    this.active = EMBEDDED;
    return this.connections();
  }

  /** Closes a database opened from the app (its held results stay until released) and forgets it. */
  closeDatabase(name: unknown): ConnectionInfo[] {
    const db = this.engine.databases.find((d) => d.name === name);
    const i = db ? this.opened.findIndex((o) => o.dir === db.dir) : this.opened.findIndex((o) => o.dir === name);
    if (i < 0) {
      const closable = this.opened.map((o) => this.engine.databases.find((d) => d.dir === o.dir)?.name ?? o.dir);
      throw new TickscopeError('badRequest', `close database: ${JSON.stringify(name)} was not opened from the app${closable.length ? `; expected one of ${closable.join(', ')}` : ' (none was)'}; databases given with --db stay mounted`);
    }
    if (db) {
      this.engine.unmount(db.name);
      this.executor.unmount(db.name, db.dir);
    }
    this.opened.splice(i, 1);
    this.save();
    return this.connections();
  }

  private save(): void {
    if (this.remember) writeRemembered(this.remember, this.opened);
  }

  /** The embedded engine's databases, in the order mounted. */
  private mountedList(): MountedDatabase[] {
    return this.engine.databases.map((d) => mountedInfo(d, this.opened.some((o) => o.dir === d.dir)));
  }

  /**
   * Records the gateway this process serves on this engine (the app's gatewayPort/gatewayIpcPort, or
   * `tickscope gateway`); returns what forgets it when it stops.
   */
  serveGateway(g: ServedGateway): () => void {
    this.served = g;
    return () => {
      if (this.served === g) this.served = null;
    };
  }

  /**
   * The connections: the embedded engine first, then the remotes in the order added; each says where
   * scripts reach it (`gateway`, for Copy as).
   */
  connections(): ConnectionInfo[] {
    const embedded: ConnectionInfo = {
      id: EMBEDDED,
      name: 'Embedded engine',
      kind: 'embedded',
      url: null,
      active: this.active === EMBEDDED,
      gateway: embeddedAccess(this.engine.databases.map(specOf), this.served, userDataDir()),
      databases: this.mountedList(),
    };
    return [
      embedded,
      ...[...this.remotes.values()].map((r): ConnectionInfo => ({ id: r.id, name: r.spec.name, kind: 'remote', url: r.base, active: this.active === r.id, tokenUrl: r.tokenUrl, clientId: r.spec.clientId, gateway: r.access })),
    ];
  }

  /** Connects to a remote gateway (a token and its getMeta first, so a wrong URL or secret fails here) and makes it active. */
  async addConnection(spec: unknown): Promise<ConnectionInfo[]> {
    const s = checkSpec(spec);
    const remote = new RemoteGateway(`remote-${randomUUID().slice(0, 8)}`, s);
    await remote.info(this.mode, VERSION, true);
    this.remotes.set(remote.id, remote);
    this.active = remote.id;
    return this.connections();
  }

  useConnection(id: unknown): ConnectionInfo[] {
    if (id !== EMBEDDED && (typeof id !== 'string' || !this.remotes.has(id))) {
      throw new TickscopeError('badRequest', `connection: ${JSON.stringify(id)} is not a connection; expected one of ${this.connections().map((c) => c.id).join(', ')}`);
    }
    this.active = id as string;
    return this.connections();
  }

  removeConnection(id: unknown): ConnectionInfo[] {
    if (typeof id !== 'string' || !this.remotes.delete(id)) throw new TickscopeError('badRequest', `connection: ${JSON.stringify(id)} is not a remote connection`);
    if (this.active === id) this.active = EMBEDDED;
    return this.connections();
  }

  private remote(): RemoteGateway | undefined {
    return this.active === EMBEDDED ? undefined : this.remotes.get(this.active);
  }

  /** The mounted databases (assemblies). */
  get databases(): Engine<Mounted>['databases'] {
    return this.engine.databases;
  }

  /**
   * What the forms need, from the active connection (a remote's getMeta), naming the connection; and
   * where this process's own gateway serves kdb+ IPC, which a gateway's getMeta advertises.
   */
  async info(): Promise<AppInfo> {
    const remote = this.remote();
    const connection = this.connections().find((c) => c.active)!;
    const gateway = this.served ? { gateway: { qPort: this.served.q?.port ?? null, qTls: this.served.q?.tls ?? false } } : {};
    if (!remote) return { ...this.meta.info(), connection, ...gateway };
    return { ...(await remote.info(this.mode, VERSION)), connection, ...gateway };
  }

  /** Identifiers for the idList picker (a remote's are typed: none listed). */
  identifiers(assembly: unknown, table: unknown): string[] {
    return this.remote() ? [] : this.meta.identifiers(assembly, table);
  }

  run(operation: string, args: unknown, queryId?: string, timeoutMs?: number): Promise<RunResponse> {
    const remote = this.remote();
    if (!remote) return this.executor.run(operation, args, { ...(queryId ? { queryId } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    return this.runRemote(remote, operation, args, queryId ?? randomUUID(), timeoutMs);
  }

  /** A query on a remote gateway: the request on this thread's event loop (I/O only), the answer held by a worker. */
  private async runRemote(remote: RemoteGateway, operation: string, args: unknown, queryId: string, timeoutMs?: number): Promise<RunResponse> {
    const controller = new AbortController();
    this.remoteQueries.set(queryId, { controller, started: performance.now() });
    try {
      return await remote.run(operation, args, (bytes, meta) => this.executor.hold(bytes, meta), { signal: controller.signal, ...(timeoutMs ? { timeoutMs } : {}) });
    } catch (e) {
      return { ok: false, header: errorEnvelope(requestInfo(operation), asTickscopeError(e)).header };
    } finally {
      this.remoteQueries.delete(queryId);
    }
  }

  /** Import…'s preview of files on this machine (read on a worker): the files, the first rows as read and as mapped. */
  async previewImport(body: unknown): Promise<ImportPreview> {
    const req = checkPreviewRequest(body);
    const r = await this.executor.previewImport(req);
    if (!r.ok) throw r.error;
    return r.value;
  }

  /**
   * Import…: files on this machine written into a table of a Tickscope database as the mapping says,
   * on a worker (progress and cancel by `queryId`, as a query's). A re-import without a choice answers
   * the report with written false and the partitions, so the dialog can ask. A new table is defined
   * first, and every thread opens the database again to see it.
   */
  async importFiles(body: unknown, queryId?: string): Promise<ImportReportInfo> {
    const req = checkImportRequest(body);
    // refused here, before it is queued: a kdb+ database is read in place and never written
    const db = importTarget(this.engine, req.assembly);
    try {
      const r = await this.executor.importFiles(req, queryId ? { queryId } : {});
      if (!r.ok) throw r.error;
      return r.value;
    } finally {
      if (req.newTable) {
        this.engine.replace(openMount(specOf(db)));
        this.executor.reopen(db.dir);
      }
    }
  }

  /** One file of the browser's file picker or drop zone, saved under an upload folder of the user data folder (the folder is what is imported). */
  uploadImportFile(relPath: unknown, upload: unknown, body: Readable): Promise<Upload> {
    return saveUpload(join(userDataDir(), 'uploads'), relPath, upload, body);
  }

  progress(queryId: string): QueryProgress | null {
    const r = this.remoteQueries.get(queryId);
    if (r) return { state: 'running', done: 0, total: 0, unit: 'remote', elapsedMs: performance.now() - r.started };
    return this.executor.progress(queryId) ?? null;
  }

  cancel(queryId: string): boolean {
    const r = this.remoteQueries.get(queryId);
    if (r) {
      r.controller.abort();
      return true;
    }
    return this.executor.cancel(queryId);
  }

  page(resultId: unknown, offset: unknown, limit: unknown, form?: unknown): Promise<PageResponse> {
    return this.executor.page(resultId, offset, limit, form);
  }

  sort(resultId: unknown, sortCols: unknown): Promise<RunResponse> {
    return this.executor.sort(resultId, sortCols);
  }

  chart(req: ChartRequest): Promise<Uint8Array> {
    return this.executor.chart(req);
  }

  table(resultId: unknown): Promise<Uint8Array> {
    return this.executor.table(resultId);
  }

  csv(resultId: unknown): AsyncIterable<Uint8Array> {
    return this.executor.csv(resultId);
  }

  /**
   * A result as a CSV, Arrow IPC or Parquet file, chunk by chunk (rendered in the worker holding it);
   * with an `exportId`, progress and cancel answer for it as for a query.
   */
  exportFile(resultId: unknown, format: ExportFormat, exportId?: string): AsyncIterable<Uint8Array> {
    return this.executor.exportFile(resultId, format, exportId);
  }

  close(): Promise<void> {
    return this.executor.close();
  }
}

/** A remote connection's spec, checked: every field named when wrong. */
function checkSpec(x: unknown): RemoteConnectionSpec {
  const o = (x && typeof x === 'object' && !Array.isArray(x) ? x : {}) as Record<string, unknown>;
  const text = (k: string, required: boolean): string | undefined => {
    const v = o[k];
    if (v === undefined || v === '') {
      if (required) throw new TickscopeError('missingArgument', `${k}: required to connect to a remote gateway`);
      return undefined;
    }
    if (typeof v !== 'string') throw new TickscopeError('badValue', `${k}: expected text, got ${JSON.stringify(v)}`);
    return v.trim();
  };
  const url = (k: string, required: boolean): string | undefined => {
    const v = text(k, required);
    if (v === undefined) return undefined;
    try {
      const u = new URL(v);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
    } catch {
      throw new TickscopeError('badValue', `${k}: ${JSON.stringify(v)} is not a URL; expected http(s)://host[:port]`);
    }
    return v;
  };
  const authUrl = url('authUrl', false);
  const realm = text('realm', false);
  return { name: text('name', false) ?? url('baseUrl', true)!, baseUrl: url('baseUrl', true)!, ...(authUrl ? { authUrl } : {}), ...(realm ? { realm } : {}), clientId: text('clientId', true)!, clientSecret: text('clientSecret', true)! };
}
