/**
 * A remote gateway speaking the same REST interface (another `tickscope gateway`, or a kdb Insights
 * service gateway), reached from the app's backend (SPEC 7: never from the page, which CORS would
 * stop). The backend holds the client secret and the access token, renews the token before it
 * expires (and once more on a 401), asks results as Arrow in UTC and keeps them in an executor worker
 * like any local result, rendered in the outputTZ the user asked for, so instants stay exact.
 */
import { RecordBatchReader } from 'apache-arrow';
import type { AppInfo, GatewayAccess, Header, RemoteConnectionSpec, RunResponse } from '../contract.js';
import { TickscopeError } from '../core/errors.js';
import { checkArrowFraming } from '../storage/arrow-check.js';
import { OPERATIONS, operationByName } from '../operations/index.js';
import { outputTZ, table as tableArg } from '../registry/args.js';
import type { RemoteResultShape } from '../registry/types.js';
import type { RemoteResultMeta } from '../session/remote-result.js';
import { DEFAULT_REALM, tokenUrlOf } from '../gateway/defaults.js';

const ARROW = 'application/vnd.apache.arrow.stream';

/** Whether a result carries the table's time column, by its declaration's shape and the arguments given. */
function timed(shape: RemoteResultShape['timeColumn'], given: Readonly<Record<string, unknown>>): boolean {
  if (shape === 'always' || shape === 'never') return shape === 'always';
  const v = given[shape.whenGiven];
  return v !== undefined && v !== null && v !== '';
}

/** A result's group columns: the list given, else the identifier column. */
function groupsOf(v: unknown, idColumn: string): string[] {
  return Array.isArray(v) ? (v as string[]) : [idColumn];
}

/** A connection to a remote gateway: its token and its getMeta. */
export class RemoteGateway {
  private token: { value: string; renewAt: number } | null = null;
  private meta: AppInfo | null = null;
  /** Where its kdb+ IPC listens, when its getMeta says (another `tickscope gateway` does; kdb Insights does not). */
  private qAdvert: { readonly port: number; readonly tls: boolean } | null = null;

  constructor(
    readonly id: string,
    readonly spec: RemoteConnectionSpec,
  ) {}

  get base(): string {
    return this.spec.baseUrl.replace(/\/+$/, '');
  }

  get tokenUrl(): string {
    return tokenUrlOf(this.spec.authUrl || this.spec.baseUrl, this.spec.realm || DEFAULT_REALM);
  }

  /** Where a script reaches this remote (Copy as): its URL, token URL and client id, and its q port when advertised. */
  get access(): GatewayAccess {
    const host = new URL(this.base).hostname.replace(/^\[(.*)\]$/, '$1');
    return { url: this.base, tokenUrl: this.tokenUrl, q: this.qAdvert ? { host, port: this.qAdvert.port, tls: this.qAdvert.tls } : null, clientId: this.spec.clientId };
  }

  /** A valid access token (renewed 30 s before it expires, or when `renew`). */
  async accessToken(renew = false): Promise<string> {
    if (this.token && !renew && Date.now() < this.token.renewAt) return this.token.value;
    let res: Response;
    try {
      res = await fetch(this.tokenUrl, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: this.spec.clientId, client_secret: this.spec.clientSecret }),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (e) {
      throw new TickscopeError('badRequest', `${this.spec.name}: the token endpoint ${this.tokenUrl} does not answer (${(e as Error).message})`);
    }
    const body = (await res.json().catch(() => null)) as { access_token?: string; expires_in?: number; error_description?: string; error?: string } | null;
    if (!res.ok || !body?.access_token) {
      throw new TickscopeError('unauthorized', `${this.spec.name}: the token endpoint refused the client (${res.status} ${body?.error_description ?? body?.error ?? res.statusText})`);
    }
    const ttl = Math.max(10, Number(body.expires_in ?? 300));
    this.token = { value: body.access_token, renewAt: Date.now() + (ttl - Math.min(30, ttl / 2)) * 1000 };
    return body.access_token;
  }

  /** POSTs to the remote with the token (renewed once on a 401). */
  private async post(path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.accessToken(attempt > 0);
      let res: Response;
      try {
        res = await fetch(`${this.base}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
          ...(signal ? { signal } : {}),
        });
      } catch (e) {
        if (signal?.aborted) throw new TickscopeError('cancelled', 'the query was cancelled');
        throw new TickscopeError('badRequest', `${this.spec.name}: ${this.base} does not answer (${(e as Error).message})`);
      }
      if (res.status !== 401 || attempt > 0) return res;
    }
  }

  /**
   * The remote's getMeta in the shape the forms read; a remote that answers another shape (or none)
   * gets the local registry's operations and no tables, so the forms take table and column names as
   * free text.
   */
  async info(mode: AppInfo['mode'], version: string, refresh = false): Promise<AppInfo> {
    if (this.meta && !refresh) return this.meta;
    const res = await this.post('/servicegateway/kxi/getMeta', {});
    if (res.status === 401 || res.status === 403) {
      throw new TickscopeError('unauthorized', `${this.spec.name}: getMeta refused the token (${res.status})`);
    }
    const body = (await res.json().catch(() => null)) as { payload?: Partial<AppInfo> } | null;
    const p = body?.payload;
    const q = p?.gateway;
    this.qAdvert = q && Number.isInteger(q.qPort) && (q.qPort as number) > 0 && (q.qPort as number) < 65536 ? { port: q.qPort as number, tls: q.qTls === true } : null;
    this.meta =
      res.ok && p && Array.isArray(p.assemblies) && Array.isArray(p.operations)
        ? { version: String(p.version ?? version), mode, assemblies: p.assemblies, operations: p.operations }
        : { version, mode, assemblies: [{ name: this.spec.name, tables: [], filterRules: [], summaryFunctions: [] }], operations: OPERATIONS };
    return this.meta;
  }

  /**
   * Runs an operation on the remote, asking Arrow in UTC; `hold` keeps the answer in a worker (the
   * result renders in the outputTZ asked).
   */
  async run(operation: string, args: unknown, hold: (bytes: Uint8Array, meta: RemoteResultMeta) => Promise<RunResponse>, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<RunResponse> {
    const spec = operationByName(operation);
    const given = (args && typeof args === 'object' && !Array.isArray(args) ? args : {}) as Record<string, unknown>;
    const zone = given[outputTZ.name];
    const outputZone = typeof zone === 'string' && zone ? zone : 'UTC';
    const res = await this.post(spec.restPaths[0]!, { ...given, [outputTZ.name]: 'UTC' }, { accept: ARROW, ...(opts.timeoutMs ? { timeout: String(opts.timeoutMs) } : {}) }, opts.signal);
    const type = res.headers.get('content-type') ?? '';
    if (!res.ok || !type.includes(ARROW)) {
      const body = (await res.json().catch(() => null)) as { header?: Header } | null;
      if (body?.header && body.header.rc !== 0) return { ok: false, header: body.header };
      throw new TickscopeError('badRequest', `${this.spec.name}: ${spec.restPaths[0]} answered ${res.status} ${type || 'without a content type'}`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    let header: Header | null = null;
    try {
      // on this thread: the answer's lengths checked before apache-arrow reads them (it loops on some),
      // then its schema alone read (the batches are decoded by the worker that holds the result)
      checkArrowFraming(bytes, 'the answer');
      header = JSON.parse(RecordBatchReader.from(bytes).open().schema.metadata.get('header') ?? 'null') as Header | null;
    } catch {
      header = null;
    }
    const named = given[tableArg.name];
    const table = typeof named === 'string' ? named : '';
    const info = this.meta?.assemblies.flatMap((a) => a.tables).find((t) => t.name === table);
    const idColumn = info?.idColumn ?? 'instrumentID';
    return hold(bytes, {
      api: spec.ipcNames[0]!,
      outputTZ: outputZone,
      tableName: table,
      // what the declaration says the result carries (the remote's Arrow says rows, not roles)
      timeColumn: timed(spec.remoteResult.timeColumn, given) ? (info?.timeColumn ?? null) : null,
      idColumn,
      ...(spec.remoteResult.groupColumns ? { groupColumns: groupsOf(given[spec.remoteResult.groupColumns.arg], idColumn) } : {}),
      header,
    });
  }
}
