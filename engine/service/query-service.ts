/**
 * What the app's backends (`tickscope serve`, the desktop app's IPC) call: queries and everything
 * done with their results run on the executor's workers; only the registry and table metadata
 * (info, identifiers) are answered here, from the partition metadata, without reading columns.
 */
import type { AppInfo, ChartRequest, PageResponse, QueryProgress, RunResponse } from '../contract.js';
import { Engine } from '../engine.js';
import { Executor } from '../executor/executor.js';
import type { ProcessSettings } from '../executor/settings.js';
import { AppService } from './app-service.js';

export class QueryService {
  private readonly meta: AppService;

  constructor(
    private readonly engine: Engine,
    readonly executor: Executor,
    mode: 'electron' | 'browser',
  ) {
    this.meta = new AppService(engine, mode);
  }

  /** Opens the databases here (metadata) and starts the executor's workers over them. */
  static async start(dirs: readonly string[], settings: ProcessSettings, mode: 'electron' | 'browser'): Promise<QueryService> {
    const engine = Engine.open(dirs);
    return new QueryService(engine, await Executor.start(engine.databases.map((d) => d.dir), settings), mode);
  }

  /** The mounted databases (assemblies). */
  get databases(): Engine['databases'] {
    return this.engine.databases;
  }

  info(): AppInfo {
    return this.meta.info();
  }

  identifiers(assembly: unknown, table: unknown): string[] {
    return this.meta.identifiers(assembly, table);
  }

  run(operation: string, args: unknown, queryId?: string, timeoutMs?: number): Promise<RunResponse> {
    return this.executor.run(operation, args, { ...(queryId ? { queryId } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
  }

  progress(queryId: string): QueryProgress | null {
    return this.executor.progress(queryId) ?? null;
  }

  cancel(queryId: string): boolean {
    return this.executor.cancel(queryId);
  }

  page(resultId: unknown, offset: unknown, limit: unknown): Promise<PageResponse> {
    return this.executor.page(resultId, offset, limit);
  }

  chart(req: ChartRequest): Promise<Uint8Array> {
    return this.executor.chart(req);
  }

  table(resultId: unknown): Promise<Uint8Array> {
    return this.executor.table(resultId);
  }

  csv(resultId: unknown): AsyncIterable<string> {
    return this.executor.csv(resultId);
  }

  close(): Promise<void> {
    return this.executor.close();
  }
}
