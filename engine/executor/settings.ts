/**
 * Process settings (SPEC 10): one executor per process, whatever the number of databases. Defaults,
 * then `tickscope.json` (in the user data folder, or `--config FILE`), then `TICKSCOPE_<NAME>`
 * environment variables, then command-line flags; every value validated at start, an error naming
 * the setting, where it came from, the value and what was expected.
 */
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { TickscopeError } from '../core/errors.js';

export interface ProcessSettings {
  /** Worker threads that run queries. */
  readonly workers: number;
  /** Queries running at once (at most `workers`). */
  readonly maxRunningQueries: number;
  /** Queries waiting beyond those; past it a call answers busy. */
  readonly maxQueuedQueries: number;
  /** Default per-query timeout in ms (0: none); a request's own timeout wins. */
  readonly queryTimeoutMs: number;
  /** Rows a result may hold. */
  readonly maxResultRows: number;
  /** Bytes a result may hold (its columns). */
  readonly maxResultBytes: number;
  /** The shared column cache's bound in bytes. */
  readonly cacheBytes: number;
  /** Rows (estimated) from which a getTicks or getStats splits across idle workers. */
  readonly splitMinRows: number;
  /** The app (desktop, start, serve) also serves its engine as a REST gateway on this loopback port (0: off). */
  readonly gatewayPort: number;
  /** ... and as a kdb+ IPC gateway on this loopback port (0: off). */
  readonly gatewayIpcPort: number;
  /** Largest request body of the REST gateway and the app's API, in bytes. */
  readonly maxBodyBytes: number;
  /** Deepest nesting of arrays and objects in one request (JSON body, q IPC message, app call). */
  readonly maxJsonDepth: number;
  /** Most values (scalars, arrays, objects) in one request. */
  readonly maxJsonElements: number;
  /** Largest q IPC message, compressed or not, in bytes. */
  readonly maxQMessageBytes: number;
  /** ms a q client has to complete its handshake. */
  readonly qHandshakeTimeoutMs: number;
  /** ms a q connection may stay idle before it is closed (0: never). */
  readonly qIdleTimeoutMs: number;
  /** ms a client may read nothing of its answer before it is cut and its worker freed (0: never). */
  readonly writeStallMs: number;
  /** REST requests of one client id running or waiting at once. */
  readonly maxInFlightPerClient: number;
  /** q IPC sockets one client id may hold open at once. */
  readonly maxQSocketsPerClient: number;
  /** Requests one client id may make a minute (0: no limit). */
  readonly maxRequestsPerClientPerMinute: number;
  /** Queries estimated to read at most this many rows go before larger ones waiting (0: strict arrival order). */
  readonly smallQueryRows: number;
  readonly largeQueryWaitMs: number;
}

interface SettingDef {
  readonly doc: string;
  readonly min: number;
  readonly fallback: () => number;
}

/** Every setting with its meaning and default, in the order docs/configuration.md lists them. */
export const SETTINGS: Readonly<Record<keyof ProcessSettings, SettingDef>> = {
  workers: { doc: 'worker threads that run queries', min: 1, fallback: () => availableParallelism() },
  maxRunningQueries: { doc: 'queries running at once (at most workers)', min: 1, fallback: () => Number.NaN },
  maxQueuedQueries: { doc: 'queries waiting beyond the running ones; past it a call answers busy (ac 43)', min: 0, fallback: () => 256 },
  queryTimeoutMs: { doc: 'default per-query timeout in ms, counted from receipt (0: none); a request\u2019s own timeout wins', min: 0, fallback: () => 0 },
  maxResultRows: { doc: 'rows a result may hold; a query selecting more stops with ac 42', min: 1, fallback: () => 100_000_000 },
  maxResultBytes: { doc: 'bytes a result\u2019s columns may hold; past it the query stops with ac 42', min: 1, fallback: () => Math.floor(totalmem() / 2) },
  cacheBytes: { doc: 'the column cache\u2019s bound in bytes (TICKSCOPE_CACHE_MB gives it in MiB)', min: 0, fallback: () => 4096 * 1024 * 1024 },
  gatewayPort: { doc: 'the app also serves its engine as a REST gateway (OAuth2 tokens) on this loopback port; 0: off', min: 0, fallback: () => 0 },
  gatewayIpcPort: { doc: 'the app also serves its engine over kdb+ IPC on this loopback port; 0: off', min: 0, fallback: () => 0 },
  splitMinRows: { doc: 'rows (estimated from the partitions the window touches) from which a getTicks or getStats splits across idle workers by identifier ranges', min: 1, fallback: () => 100_000 },
  maxBodyBytes: { doc: 'largest request body of the REST gateway and the app\u2019s API in bytes; past it HTTP 413 (ac 54)', min: 1024, fallback: () => 8 * 1024 * 1024 },
  maxJsonDepth: { doc: 'deepest nesting of arrays and objects in one request (REST body, q IPC message, app call); past it ac 57', min: 8, fallback: () => 64 },
  maxJsonElements: { doc: 'most values in one request (every scalar, array and object counts one); past it ac 57', min: 16, fallback: () => 1_000_000 },
  maxQMessageBytes: { doc: 'largest q IPC message in bytes, compressed or not (its claimed and its unpacked size); past it the connection is closed', min: 1024, fallback: () => 64 * 1024 * 1024 },
  qHandshakeTimeoutMs: { doc: 'ms a q IPC client has to complete its handshake before its connection is closed', min: 1, fallback: () => 10_000 },
  qIdleTimeoutMs: { doc: 'ms a q IPC connection may send nothing before it is closed (0: never; q clients keep handles open for hours)', min: 0, fallback: () => 0 },
  writeStallMs: { doc: 'ms a client may read nothing of its answer before it is cut and its worker freed (0: never)', min: 0, fallback: () => 30_000 },
  maxInFlightPerClient: { doc: 'REST requests of one client id running or waiting at once; past it HTTP 429 (ac 56) with Retry-After', min: 1, fallback: () => 8 },
  maxQSocketsPerClient: { doc: 'q IPC connections one client id may hold open at once; past it the handshake is refused', min: 1, fallback: () => 16 },
  smallQueryRows: { doc: 'queries estimated (from partition metadata) to read at most this many rows are started before larger ones waiting, unless one of those has waited largeQueryWaitMs; 0: strict arrival order', min: 0, fallback: () => 50_000 },
  largeQueryWaitMs: { doc: 'ms a larger query may wait while smaller ones are started before it; past it, it goes first (so none waits for ever)', min: 0, fallback: () => 2000 },
  maxRequestsPerClientPerMinute: { doc: 'requests one client id may make a minute over REST and q IPC (0: no limit); past it HTTP 429 (ac 56) with Retry-After', min: 0, fallback: () => 0 },
};

/** What differs for a gateway (`tickscope gateway`): a query timeout by default (SPEC 10). */
export const GATEWAY_DEFAULTS: Readonly<Partial<ProcessSettings>> = { queryTimeoutMs: 300_000 };

const NAMES = Object.keys(SETTINGS) as Array<keyof ProcessSettings>;

/** TICKSCOPE_MAX_RUNNING_QUERIES for maxRunningQueries. */
export const envName = (name: string): string => `TICKSCOPE_${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

export interface SettingsSources {
  /** `--config FILE`, else `<userDataDir>/tickscope.json` when present. */
  readonly configFile?: string | undefined;
  readonly userDataDir?: string | undefined;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Command-line flags by setting name. */
  readonly flags?: Readonly<Partial<Record<keyof ProcessSettings, string | number>>>;
  /** Defaults of this kind of process where they differ (GATEWAY_DEFAULTS). */
  readonly defaults?: Readonly<Partial<ProcessSettings>>;
}

function parse(name: keyof ProcessSettings, raw: unknown, where: string): number {
  const def = SETTINGS[name];
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isInteger(n) || n < def.min) {
    throw new TickscopeError('badSettings', `${name} (${where}): ${JSON.stringify(raw)} is not valid; expected an integer >= ${def.min} (${def.doc})`);
  }
  return n;
}

/** The settings of this process from every source; throws naming the first bad value. */
export function loadSettings(src: SettingsSources = {}): ProcessSettings {
  const values: Partial<Record<keyof ProcessSettings, number>> = {};
  const file = src.configFile ?? (src.userDataDir && existsSync(`${src.userDataDir}/tickscope.json`) ? `${src.userDataDir}/tickscope.json` : undefined);
  if (file) {
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new TickscopeError('badSettings', `${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON (${(e as Error).message})`}; expected an object such as {"workers": 2}`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new TickscopeError('badSettings', `${file}: expected a JSON object of settings such as {"workers": 2}`);
    for (const [k, v] of Object.entries(doc)) {
      if (!(k in SETTINGS)) throw new TickscopeError('badSettings', `${file}: ${k} is not a setting; expected one of ${NAMES.join(', ')}`);
      values[k as keyof ProcessSettings] = parse(k as keyof ProcessSettings, v, file);
    }
  }
  const env = src.env ?? process.env;
  if (env['TICKSCOPE_CACHE_MB'] !== undefined) values.cacheBytes = parse('cacheBytes', env['TICKSCOPE_CACHE_MB'], 'TICKSCOPE_CACHE_MB') * 1024 * 1024;
  for (const name of NAMES) {
    const v = env[envName(name)];
    if (v !== undefined) values[name] = parse(name, v, envName(name));
  }
  for (const [k, v] of Object.entries(src.flags ?? {})) {
    if (v !== undefined) values[k as keyof ProcessSettings] = parse(k as keyof ProcessSettings, v, `--${k}`);
  }
  const workers = values.workers ?? SETTINGS.workers.fallback();
  const running = values.maxRunningQueries ?? workers;
  if (running > workers) throw new TickscopeError('badSettings', `maxRunningQueries: ${running} is more than workers (${workers}); expected at most ${workers}`);
  const out = { workers, maxRunningQueries: running } as Record<keyof ProcessSettings, number>;
  for (const name of NAMES) {
    if (name === 'workers' || name === 'maxRunningQueries') continue;
    out[name] = values[name] ?? src.defaults?.[name] ?? SETTINGS[name].fallback();
  }
  return out as ProcessSettings;
}
