/**
 * The commands of `tickscope`, each with its options, help and implementation. Commands that need a
 * heavy package (the HTTP server, Arrow, the CSV parser) load their module when they run, so `call`
 * and `--help` do not pay for loading packages they never use (~180 ms).
 */
import type { parseArgs, ParseArgsConfig } from 'node:util';
import { join, resolve } from 'node:path';
import { readFileSync, writeSync } from 'node:fs';
import { Engine } from '../engine/engine.js';
import { asTickscopeError, TickscopeError } from '../engine/core/errors.js';
import { errorEnvelope, okHeader, requestInfo } from '../engine/output/envelope.js';
import { QueryThenRender, type RenderHelpers, writeText } from '../engine/output/parallel-text.js';
import { useReadHelpers } from '../engine/storage/parallel-read.js';
import { OpenFiles } from '../engine/storage/stored-column.js';
import { withStreamedFiles } from '../engine/core/query-hooks.js';
import { writeResultParquet } from '../engine/output/parquet.js';
import { Database } from '../engine/storage/database.js';
import type { MountSpec } from '../engine/storage/mount.js';
import { STORAGE_FORMAT } from '../engine/storage/format.js';
import { DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_IPC_PORT, DEFAULT_GATEWAY_PORT, DEFAULT_REALM } from '../engine/gateway/defaults.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Command {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
  readonly help: string;
  readonly options: Options;
  /** `tokens`: the options in the order given (which --db a --kdb-settings follows). */
  run(values: Record<string, unknown>, positionals: string[], tokens?: readonly ParseToken[]): Promise<number>;
}

type ParseToken = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

const dbOption = { db: { type: 'string', multiple: true } } as const satisfies Options;
/** The commands that read databases in place also mount kdb+ ones, each with its settings file after its --db. */
const mountOptions = { ...dbOption, 'kdb-settings': { type: 'string', multiple: true } } as const satisfies Options;
const settingsOptions = { config: { type: 'string' }, workers: { type: 'string' } } as const satisfies Options;

/** The process settings: --config FILE (else tickscope.json in the user data folder), TICKSCOPE_* variables, flags. */
async function processSettings(values: Record<string, unknown>, userData = false, gateway = false): Promise<import('../engine/executor/settings.js').ProcessSettings> {
  const { loadSettings, GATEWAY_DEFAULTS } = await import('../engine/executor/settings.js');
  const { userDataDir } = await import('../engine/service/user-data.js');
  return loadSettings({
    configFile: values['config'] as string | undefined,
    ...(userData ? { userDataDir: userDataDir() } : {}),
    ...(gateway ? { defaults: GATEWAY_DEFAULTS } : {}),
    flags: { ...(values['workers'] !== undefined ? { workers: values['workers'] as string } : {}) },
  });
}

function dbDirs(values: Record<string, unknown>, cmd: string): string[] {
  const dirs = (values['db'] as string[] | undefined) ?? [];
  if (dirs.length === 0) throw new TickscopeError('badRequest', `--db DIR is required (the database folder ${cmd} works on)`);
  return dirs;
}

/**
 * The databases to mount: each --db in order, a --kdb-settings FILE applying to the --db before it
 * (SPEC 11). A settings file with no --db before it, or two for one --db, is a usage error.
 */
function dbMounts(values: Record<string, unknown>, cmd: string, tokens: readonly ParseToken[] = []): MountSpec[] {
  dbDirs(values, cmd);
  const mounts: Array<{ dir: string; kdbSettings?: string }> = [];
  for (const t of tokens) {
    if (t.kind !== 'option' || t.value === undefined) continue;
    if (t.name === 'db') mounts.push({ dir: t.value });
    else if (t.name === 'kdb-settings') {
      const last = mounts[mounts.length - 1];
      if (!last) throw new TickscopeError('badRequest', `--kdb-settings ${t.value}: give it after the --db DIR of the kdb+ database it is for`);
      if (last.kdbSettings) throw new TickscopeError('badRequest', `--kdb-settings ${t.value}: --db ${last.dir} already has --kdb-settings ${last.kdbSettings}`);
      last.kdbSettings = t.value;
    }
  }
  return mounts.length > 0 ? mounts : ((values['db'] as string[]).map((dir) => ({ dir })));
}

/** A database a command writes: a kdb+ folder is refused, naming it (SPEC 11: read in place, never written). */
async function writableDir(values: Record<string, unknown>, cmd: string): Promise<string> {
  const [dir] = dbDirs(values, cmd);
  const { databaseKindAt } = await import('../engine/storage/mount.js');
  if (databaseKindAt(dir!) === 'kdb') {
    const { readOnlyError } = await import('../engine/storage/source.js');
    throw new TickscopeError('requirement', readOnlyError({ name: resolve(dir!), kind: 'kdb' }));
  }
  return dir!;
}

function intOption(values: Record<string, unknown>, name: string, min: number): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min) {
    throw new TickscopeError('badRequest', `--${name}: ${JSON.stringify(v)} is not valid; expected an integer >= ${min}`);
  }
  return n;
}

const OUTPUT_FORMATS = ['json', 'csv', 'arrow', 'parquet'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Writes bytes to standard output, blocking until they are taken (a full pipe is waited on, not
 * buffered in memory): the renderer's buffer is written again once this returns.
 */
function writeOut(bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length; ) {
    try {
      off += writeSync(1, bytes, off, bytes.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2); // a non-blocking pipe is full: wait for the reader
    }
  }
}

/** The reader of standard output went away (`tickscope call ... | head`): stop quietly. */
const isPipeGone = (e: unknown): boolean => (e as NodeJS.ErrnoException | null)?.code === 'EPIPE';

export const COMMANDS: readonly Command[] = [
  {
    name: 'init',
    usage: 'init --db DIR',
    summary: 'Create an empty database with every standard table and a default config.json.',
    help: 'DIR must not exist or be empty.',
    options: dbOption,
    async run(values) {
      const [dir] = dbDirs(values, 'init');
      const db = Database.create(dir!);
      console.log(`created ${db.dir} with tables ${[...db.schema.tables.keys()].join(', ')}`);
      return 0;
    },
  },
  {
    name: 'demo',
    usage: 'demo --db DIR [--seed N] [--days N] [--instruments N] [--trades-per-day N]',
    summary: 'Create a database filled with deterministic, realistic demo market data.',
    help: [
      '--seed N            random seed (default 1); the same seed gives the same data',
      '--days N            trading days (weekdays) to generate (default 5)',
      '--instruments N     instruments, on two exchanges in different time zones (default 20)',
      '--trades-per-day N  trades per day over all instruments (default 200000)',
    ].join('\n'),
    options: {
      ...dbOption,
      seed: { type: 'string' },
      days: { type: 'string' },
      instruments: { type: 'string' },
      'trades-per-day': { type: 'string' },
    },
    async run(values) {
      const [dir] = dbDirs(values, 'demo');
      const { generateDemo } = await import('../engine/demo/generate.js');
      const started = performance.now();
      const report = generateDemo(dir!, {
        seed: intOption(values, 'seed', 0),
        days: intOption(values, 'days', 1),
        instruments: intOption(values, 'instruments', 2),
        tradesPerDay: intOption(values, 'trades-per-day', 1),
        progress: (msg) => process.stderr.write(`${msg}\n`),
      });
      const secs = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`created demo database ${dir} in ${secs} s`);
      for (const [table, rows] of Object.entries(report.rows)) console.log(`  ${table.padEnd(20)} ${rows} rows`);
      return 0;
    },
  },
  {
    name: 'import',
    usage: 'import --db DIR (--table NAME --file PATH [--tz ZONE] | --map FILE PATH...) [--reimport skip|replace|append]',
    summary: 'Append CSV, Arrow IPC or Parquet files to a table; a bad row is reported and nothing is written.',
    help: [
      'CSV: a header row of column names, then values as in docs/arguments.md (empty = null).',
      'Arrow IPC: file or stream format, columns named as the table\'s.',
      '--tz ZONE   zone of CSV timestamps written without a zone (default UTC)',
      '--map FILE  a mapping (docs/import.md): which source column, constant or part of the path makes each',
      '            table column, with units and a zone; then the files or folders to import, all in one write',
      '--reimport skip|replace|append  when a partition holds the same rows from an earlier import: leave it,',
      '            take the earlier rows out and write these, or write them again (without it, nothing is written',
      '            and the partitions are named)',
    ].join('\n'),
    options: { ...dbOption, table: { type: 'string' }, file: { type: 'string' }, tz: { type: 'string' }, map: { type: 'string' }, reimport: { type: 'string' } },
    async run(values, positionals) {
      const dir = await writableDir(values, 'import');
      const { REIMPORT_CHOICES, reimportMessage } = await import('../engine/storage/append.js');
      const reimport = values['reimport'] as string | undefined;
      if (reimport !== undefined && !(REIMPORT_CHOICES as readonly string[]).includes(reimport)) {
        throw new TickscopeError('badRequest', `--reimport ${JSON.stringify(reimport)}: expected ${REIMPORT_CHOICES.join(', ')}`);
      }
      const choice = reimport ? { reimport: reimport as (typeof REIMPORT_CHOICES)[number] } : {};
      const said = (r: { written: boolean; reimported: Parameters<typeof reimportMessage>[0]; skippedRows: number }): void => {
        if (!r.written) throw new TickscopeError('reimport', reimportMessage(r.reimported, '--reimport'));
        if (r.reimported.length) console.log(`${r.reimported.length} partition(s) held these rows already: ${reimport === 'skip' ? `skipped (${r.skippedRows} rows not written)` : reimport === 'replace' ? 'the earlier rows replaced' : 'appended again'}`);
      };
      const mapFile = values['map'] as string | undefined;
      if (mapFile !== undefined) {
        if (values['table'] !== undefined || values['tz'] !== undefined) throw new TickscopeError('badRequest', '--map names the table and the zone itself: give --map FILE and the files, without --table or --tz');
        const paths = [...positionals, ...(typeof values['file'] === 'string' ? [values['file']] : [])];
        if (paths.length === 0) throw new TickscopeError('badRequest', 'import --map FILE needs the files or folders to import after it');
        const [{ readImportMap }, { importMapped }] = await Promise.all([import('../engine/storage/import-map.js'), import('../engine/storage/mapped-import.js')]);
        const map = readImportMap(mapFile);
        const report = importMapped(Database.open(dir), map, paths, `--map ${mapFile}`, choice);
        said(report);
        console.log(`imported ${report.rows} rows from ${report.files} file${report.files === 1 ? '' : 's'} into ${map.table} (${report.partitions.length} partition(s) written)`);
        return 0;
      }
      const table = values['table'] as string | undefined;
      const file = values['file'] as string | undefined;
      if (!table || !file) throw new TickscopeError('badRequest', 'import needs --table NAME and --file PATH');
      const tz = values['tz'] as string | undefined;
      // a zone that is not one is said as such, with the names near it, before any file is read
      if (tz !== undefined) {
        const { expectedZone, isKnownZone } = await import('../engine/core/tz.js');
        if (!isKnownZone(tz)) throw new TickscopeError('unknownTimeZone', `--tz ${JSON.stringify(tz)} is not a known time zone; expected ${expectedZone(tz)}`);
      }
      const db = Database.open(dir);
      const { importFile } = await import('../engine/storage/import.js');
      const report = importFile(db, table, file, { ...(tz ? { tz } : {}), ...choice });
      said(report);
      console.log(`imported ${report.rows} rows into ${table} (${report.partitions.length} partition(s) written)`);
      return 0;
    },
  },
  {
    name: 'migrate',
    usage: 'migrate --db DIR',
    summary: 'Convert a database written by an older release to the current storage format, in place.',
    help: [
      'Atomic: the database is the old format until the new manifest is in place, then the new one;',
      'a crash in between leaves it as it was. A database already in the current format is left alone.',
    ].join('\n'),
    options: dbOption,
    async run(values) {
      const dir = await writableDir(values, 'migrate');
      const { migrateDatabase } = await import('../engine/storage/migrate.js');
      const started = performance.now();
      const report = migrateDatabase(dir, (msg) => process.stderr.write(`${msg}\n`));
      if (report.folders === 0 && report.from === STORAGE_FORMAT) {
        console.log(`${dir} is already in storage format ${STORAGE_FORMAT}; nothing to do`);
        return 0;
      }
      const secs = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`migrated ${dir} from storage format ${report.from} to ${STORAGE_FORMAT}: ${report.folders} folder(s), ${report.rows} rows, in ${secs} s`);
      return 0;
    },
  },
  {
    name: 'verify',
    usage: 'verify --db DIR [--db DIR ...]',
    summary: 'Check every file of a database (checksums and structure) and list the damaged ones; exit 1 when one is.',
    help: [
      'Reads every partition and reference folder the manifest names: each file against its checksums, each',
      'column, index and dictionary against the row count; schema.json, config.json and manifest.json as the',
      'engine reads them. Prints one line per damaged file (path: what is wrong), then a summary per database.',
      'Folders written before checksums (older releases) get the structural checks only.',
    ].join('\n'),
    options: dbOption,
    async run(values) {
      const { verifyDatabase } = await import('../engine/storage/verify.js');
      let damaged = 0;
      for (const dir of dbDirs(values, 'verify')) {
        const r = verifyDatabase(dir);
        for (const d of r.damaged) console.log(`${d.path}: ${d.problem}`);
        const older = r.withoutChecksums > 0 ? `; ${r.withoutChecksums} folder(s) without checksums (written by an older release): structure checked only` : '';
        const what = `${r.folders} folder(s), ${r.files} file(s) checked${older}`;
        console.log(r.damaged.length === 0 ? `${r.dir}: ok (${what})` : `${r.dir}: ${r.damaged.length} damaged file(s) (${what})`);
        damaged += r.damaged.length;
      }
      return damaged === 0 ? 0 : 1;
    },
  },
  {
    name: 'info',
    usage: 'info --db DIR [--kdb-settings FILE] [--db DIR ...] [--format text|json]',
    summary: 'Describe a database of either kind: tables, rows per partition, columns and types, roles, what is missing where.',
    help: [
      'A Tickscope database from its partition metadata; a kdb+ database from its files\' headers and trailers',
      '(each column\'s q type, compression and attribute, and the partitions where its file is missing).',
      'No column is read.',
      '--kdb-settings FILE  a kdb+ database\'s settings (docs/kdb.md), after its --db',
      '--format json        the report as JSON (default text)',
    ].join('\n'),
    options: { ...mountOptions, format: { type: 'string' } },
    async run(values, _positionals, tokens) {
      const format = (values['format'] as string | undefined) ?? 'text';
      if (format !== 'text' && format !== 'json') throw new TickscopeError('badRequest', `--format: ${JSON.stringify(format)} is not a report format; expected text or json`);
      const { openMount } = await import('../engine/storage/mount.js');
      const { databaseInfo, formatDatabaseInfo } = await import('../engine/storage/info.js');
      const reports = dbMounts(values, 'info', tokens).map((m) => databaseInfo(openMount(m)));
      if (format === 'json') process.stdout.write(`${JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2)}\n`);
      else process.stdout.write(reports.map(formatDatabaseInfo).join('\n'));
      return 0;
    },
  },
  {
    name: 'call',
    usage: "call --db DIR [--db DIR ...] [--format json|csv|arrow|parquet] OPERATION 'JSON BODY'",
    summary: 'Run an operation and print its result: the JSON response the REST gateway would give, or CSV, Arrow or Parquet.',
    help: [
      'OPERATION: .fsi.getTicks, .fsi.getStats, getOrderAnalyticSummary, .fsi.eqea.generateOrderAnalytics',
      '(or their plain names). BODY: the JSON request body, with REST-encoded strings or native values;',
      '@FILE reads it from a file, - from standard input.',
      '--format json   the response envelope {"header": ..., "payload": [rows]} (default)',
      '--format csv    a header line of column names, then the rows (timestamps in outputTZ, as the app exports)',
      '--format arrow  an Arrow IPC stream: typed columns, timestamps as UTC nanoseconds with outputTZ in the',
      '                schema, the response header as the schema metadata "header"',
      '--format parquet a Parquet file (SPEC 8): timestamps INT64 TIMESTAMP(NANOS, UTC) with outputTZ in the file',
      '                metadata, symbols dictionary-encoded; written a row group at a time (redirect it to a file)',
      'Exit status 1 when the response is an error: the JSON error envelope on standard output for json,',
      'the error on standard error for the others.',
    ].join('\n'),
    options: { ...mountOptions, format: { type: 'string' } },
    async run(values, positionals, tokens) {
      const [operation, body] = positionals;
      const format = (values['format'] as string | undefined) ?? 'json';
      if (!OUTPUT_FORMATS.includes(format as OutputFormat)) {
        throw new TickscopeError('badRequest', `--format: ${JSON.stringify(format)} is not an output format; expected one of ${OUTPUT_FORMATS.join(', ')}`);
      }
      if (!operation) throw new TickscopeError('badRequest', "call needs OPERATION and 'JSON BODY'");
      const dirs = dbMounts(values, 'call', tokens);
      const req = requestInfo(operation);
      let started = false;
      let helpers: RenderHelpers | null = null;
      // helper threads share the query's large reads, then render a large result
      const early = new QueryThenRender();
      const files = new OpenFiles();
      try {
        const text = body === undefined ? '{}' : body === '-' ? readFileSync(0, 'utf8') : body.startsWith('@') ? readFileSync(body.slice(1), 'utf8') : body;
        let args: unknown;
        try {
          args = JSON.parse(text);
        } catch (e) {
          throw new TickscopeError('badRequest', `body: not JSON (${(e as Error).message}); expected an object such as {"table":"Trade"}`);
        }
        // an Arrow stream's helpers load while the query runs: its query reads little (the stream
        // reads the columns), so helpers started at its first large read were still loading when
        // the first record batches were handed out
        if (format === 'arrow') early.start();
        const engine = Engine.open(dirs);
        useReadHelpers(early.reads());
        let result: ReturnType<Engine['call']>;
        try {
          // an Arrow stream reads the columns the query did not need a record batch at a time, as it
          // writes them (on this thread and the helpers), not whole into memory first
          result = format === 'arrow' ? withStreamedFiles(files, () => engine.call(operation, args)) : engine.call(operation, args);
        } finally {
          useReadHelpers(undefined);
        }
        const header = okHeader(req, result);
        started = true;
        // each chunk is written (blocking) before the next is rendered: one buffer serves them all
        if (format === 'parquet') await writeResultParquet(result, writeOut);
        // loaded only here: apache-arrow takes ~25 ms to load even bundled (dist/vendor/arrow.cjs), which every other call would pay
        else if (format === 'arrow') {
          // a large result's record batches are filled on every core, as text is rendered below
          helpers = early.forRows(result.table.length);
          const { writeArrowStream, ARROW_BATCH_ROWS } = await import('../engine/output/arrow.js');
          writeArrowStream(result.table, { exact: true, zone: result.outputTZ, metadata: new Map([['header', JSON.stringify(header)]]) }, writeOut, ARROW_BATCH_ROWS, helpers);
        } else {
          const framing = format === 'json' ? { prefix: `{"header":${JSON.stringify(header)},"payload":`, suffix: '}\n' } : {};
          // a large result is rendered on every core (helper threads started for it: a small one pays nothing)
          helpers = early.forRows(result.table.length);
          writeText(format as 'json' | 'csv', result.table, result.outputTZ, { ...framing, reuse: true }, writeOut, helpers);
        }
        return 0;
      } catch (e) {
        if (isPipeGone(e)) return 0;
        const err = asTickscopeError(e);
        if (format === 'json' && !started) process.stdout.write(`${JSON.stringify(errorEnvelope(req, err))}\n`);
        else console.error(`tickscope call: ${err.message}`);
        return 1;
      } finally {
        helpers?.close();
        early.close();
        files.close();
      }
    },
  },
  {
    name: 'serve',
    usage: 'serve --db DIR [--db DIR ...] [--port N] [--host ADDR] [--config FILE] [--workers N]',
    summary: 'Serve the app and its engine to a local browser.',
    help: [
      '--port N       port to listen on (default 8750; 0 picks a free one)',
      '--host ADDR    address to bind (default 127.0.0.1, loopback only)',
      '--config FILE  process settings (workers, limits, timeouts; docs/configuration.md)',
      '--workers N    query worker threads (default the core count)',
    ].join('\n'),
    options: { ...mountOptions, ...settingsOptions, port: { type: 'string' }, host: { type: 'string' } },
    async run(values, _positionals, tokens) {
      const dirs = dbMounts(values, 'serve', tokens);
      const [{ serve }, { QueryService }, { REMEMBERED_FILE }, { userDataDir }] = await Promise.all([
        import('../engine/server/serve.js'),
        import('../engine/service/query-service.js'),
        import('../engine/service/databases.js'),
        import('../engine/service/user-data.js'),
      ]);
      // the databases opened from the app last time come back after these
      const service = await QueryService.start(dirs, await processSettings(values), 'browser', { remember: join(userDataDir(), REMEMBERED_FILE) });
      const server = await serve(service, {
        port: intOption(values, 'port', 0) ?? 8750,
        host: (values['host'] as string | undefined) ?? '127.0.0.1',
      });
      console.log(`Tickscope is serving ${service.databases.map((d) => d.name).join(', ')} at ${server.url} (${service.executor.settings.workers} query worker${service.executor.settings.workers === 1 ? '' : 's'})`);
      const { startEmbeddedGateway } = await import('../engine/gateway/embedded.js');
      const gateway = await startEmbeddedGateway(service, service.executor.settings, userDataDir());
      if (gateway) console.log(gateway.summary);
      await server.closed;
      await gateway?.close();
      await service.close();
      return 0;
    },
  },
  {
    name: 'gateway',
    usage: `gateway --db DIR [--db DIR ...] [--host ${DEFAULT_GATEWAY_HOST}] [--port ${DEFAULT_GATEWAY_PORT}] [--ipc-port ${DEFAULT_GATEWAY_IPC_PORT}] [--clients FILE] [--realm R] [--audience AUD] [--token-ttl S] [--jwks URL --issuer ISS [--scope-claim C]] [--tls-cert FILE --tls-key FILE]`,
    summary: 'Serve the operations over REST with OAuth2 tokens and over kdb+ IPC (docs/gateway.md).',
    help: [
      `--host ADDR        address to bind (default ${DEFAULT_GATEWAY_HOST}; another needs --tls-cert/--tls-key and clients)`,
      `--port N           REST port (default ${DEFAULT_GATEWAY_PORT}; 0 picks a free one)`,
      `--ipc-port N       kdb+ IPC port (default ${DEFAULT_GATEWAY_IPC_PORT}; 0 picks a free one)`,
      '--clients FILE     OAuth2 clients (tickscope clients add); without it a one-off client is printed once',
      `--realm R          token endpoint /auth/realms/R/... and tokens' audience (default ${DEFAULT_REALM})`,
      '--audience AUD     tokens\' audience instead of the realm\'s name',
      '--token-ttl S      token lifetime in seconds (default 300)',
      '--jwks URL --issuer ISS   accept RS256 tokens of an external issuer (a Keycloak realm) instead',
      '--scope-claim C    where its scopes are: scope (default), realm_access.roles, resource_access.<client>.roles',
      '--tls-cert FILE --tls-key FILE   HTTPS',
      '--config FILE, --workers N   process settings (docs/configuration.md)',
    ].join('\n'),
    options: {
      ...mountOptions,
      ...settingsOptions,
      host: { type: 'string' },
      port: { type: 'string' },
      'ipc-port': { type: 'string' },
      clients: { type: 'string' },
      realm: { type: 'string' },
      audience: { type: 'string' },
      'token-ttl': { type: 'string' },
      jwks: { type: 'string' },
      issuer: { type: 'string' },
      'scope-claim': { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
    },
    async run(values, _positionals, tokens) {
      const dirs = dbMounts(values, 'gateway', tokens);
      const host = (values['host'] as string | undefined) ?? DEFAULT_GATEWAY_HOST;
      const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
      const cert = values['tls-cert'] as string | undefined;
      const key = values['tls-key'] as string | undefined;
      const jwks = values['jwks'] as string | undefined;
      const iss = values['issuer'] as string | undefined;
      const clientsFile = values['clients'] as string | undefined;
      if (Boolean(cert) !== Boolean(key)) throw new TickscopeError('badRequest', '--tls-cert and --tls-key go together (HTTPS needs both)');
      if (Boolean(jwks) !== Boolean(iss)) throw new TickscopeError('badRequest', '--jwks and --issuer go together (an external issuer needs both)');
      if (!loopback && !cert) throw new TickscopeError('badRequest', `--host ${host}: refusing to serve beyond loopback without TLS; give --tls-cert and --tls-key`);
      if (!loopback && !jwks && !clientsFile) throw new TickscopeError('badRequest', `--host ${host}: refusing to serve beyond loopback without configured clients; give --clients FILE (tickscope clients add)`);
      const [{ startGateway }, { startQGateway }, { Clients }, { ExternalIssuer }, { QueryService }] = await Promise.all([
        import('../engine/gateway/rest.js'),
        import('../engine/gateway/qipc/server.js'),
        import('../engine/gateway/clients.js'),
        import('../engine/gateway/tokens.js'),
        import('../engine/service/query-service.js'),
      ]);
      let clients = clientsFile ? Clients.load(clientsFile) : Clients.inMemory();
      let oneOff: { id: string; secret: string } | null = null;
      if (!jwks) {
        if (clientsFile && clients.size === 0) throw new TickscopeError('badRequest', `--clients ${clientsFile}: no clients; add one with tickscope clients add --clients ${clientsFile} --id NAME`);
        if (!clientsFile) {
          clients = Clients.inMemory();
          const id = `tickscope-${Math.random().toString(36).slice(2, 8)}`;
          oneOff = { id, secret: clients.add(id, ['fsi.read', 'fsi.generate']) };
        }
      }
      const ttl = intOption(values, 'token-ttl', 1) ?? 300;
      const realm = (values['realm'] as string | undefined) ?? DEFAULT_REALM;
      if (!/^[A-Za-z0-9._-]{1,64}$/.test(realm)) throw new TickscopeError('badRequest', `--realm: ${JSON.stringify(realm)} is not valid; expected letters, digits, '.', '_' or '-'`);
      const service = await QueryService.start(dirs, await processSettings(values, false, true), 'browser');
      const external = jwks ? new ExternalIssuer(jwks, iss!, values['audience'] as string | undefined, (values['scope-claim'] as string | undefined) ?? 'scope') : undefined;
      const log = (line: string): void => console.log(line);
      let ipcMaps: (() => Record<string, number>) | null = null;
      const gw = await startGateway(service, {
        extraMaps: () => ipcMaps?.() ?? {},
        host,
        port: intOption(values, 'port', 0) ?? DEFAULT_GATEWAY_PORT,
        realm,
        ...(values['audience'] ? { audience: values['audience'] as string } : {}),
        tokenTtlSeconds: ttl,
        clients,
        ...(external ? { external } : {}),
        ...(cert && key ? { tls: { cert, key } } : {}),
        log,
      });
      const ipc = await startQGateway(service, { host, port: intOption(values, 'ipc-port', 0) ?? DEFAULT_GATEWAY_IPC_PORT, clients, ...(external ? { external } : {}), ...(cert && key ? { tls: { cert, key } } : {}), log });
      ipcMaps = () => ipc.clientMaps();
      // its getMeta advertises the q port (an app connecting to it writes it into Copy as q)
      service.serveGateway({ rest: { url: gw.url, tokenUrl: gw.tokenUrl }, q: { host, port: ipc.port, tls: Boolean(cert) }, clients: jwks ? null : clients, ...(oneOff ? { oneOffId: oneOff.id } : {}) });
      console.log(`Tickscope gateway for ${service.databases.map((d) => d.name).join(', ')}: REST at ${gw.url}/servicegateway/fsi/<operation>, kdb+ IPC at ${host}:${ipc.port}${cert ? ' (TLS)' : ''} (${service.executor.settings.workers} query worker${service.executor.settings.workers === 1 ? '' : 's'})`);
      if (gw.tokenUrl) console.log(`  tokens: POST ${gw.tokenUrl} (grant_type=client_credentials)`);
      else console.log(`  tokens: RS256 from ${iss} (keys ${jwks})`);
      if (oneOff) console.log(`  one-off client (shown once, gone when the gateway stops): client_id ${oneOff.id}  client_secret ${oneOff.secret}`);
      await new Promise<void>((resolve) => gw.app.server.once('close', () => resolve()));
      await ipc.close();
      await service.close();
      return 0;
    },
  },
  {
    name: 'clients',
    usage: 'clients add|list|remove --clients FILE [--id ID] [--secret S | --secret -] [--scopes fsi.read,fsi.generate]',
    summary: 'Manage the gateway\'s OAuth2 clients (salted hashes of their secrets).',
    help: [
      'add      a client (replacing one of the same id); without --secret a secret is generated and printed once;',
      '         --secret - reads it from standard input (so it stays out of ps); --scopes default fsi.read',
      'list     the clients, their scopes and when they were added (never secrets)',
      'remove   a client by --id',
    ].join('\n'),
    options: { clients: { type: 'string' }, id: { type: 'string' }, secret: { type: 'string' }, scopes: { type: 'string' } },
    async run(values, positionals) {
      const action = positionals[0];
      const file = values['clients'] as string | undefined;
      if (!action || !['add', 'list', 'remove'].includes(action)) throw new TickscopeError('badRequest', `expected add, list or remove, got ${JSON.stringify(action ?? '')}`);
      if (!file) throw new TickscopeError('badRequest', '--clients FILE is required (the clients file the gateway reads)');
      const { Clients, parseScopes } = await import('../engine/gateway/clients.js');
      const clients = Clients.load(file);
      if (action === 'list') {
        for (const c of clients.list()) console.log(`${c.id}\t${c.scopes.join(',')}\t${c.created}`);
        if (clients.size === 0) console.log(`(no clients in ${file})`);
        return 0;
      }
      const id = values['id'] as string | undefined;
      if (!id) throw new TickscopeError('badRequest', `--id ID is required to ${action} a client`);
      if (action === 'remove') {
        if (!clients.remove(id)) throw new TickscopeError('badRequest', `--id ${id}: no such client in ${file}`);
        console.log(`removed client ${id}`);
        return 0;
      }
      let secret = values['secret'] as string | undefined;
      if (secret === '-') secret = readFileSync(0, 'utf8').replace(/\r?\n$/, '');
      const scopes = parseScopes((values['scopes'] as string | undefined) ?? 'fsi.read', '--scopes');
      const used = clients.add(id, scopes, secret);
      console.log(`client ${id} (${scopes.join(', ')}) saved in ${file}`);
      if (secret === undefined) console.log(`client_secret ${used}  (shown once; only a salted hash is stored)`);
      return 0;
    },
  },
  {
    name: 'start',
    usage: 'start [--db DIR] [--port N]',
    summary: 'Open the desktop app (or, without an Electron runtime, serve it to a browser).',
    help: [
      'Without --db the app uses the demo database in your user data folder, creating it on first launch.',
      '--port N   port for the browser fallback (default 8750)',
    ].join('\n'),
    options: { ...mountOptions, ...settingsOptions, port: { type: 'string' } },
    async run(values, _positionals, tokens) {
      const { startApp } = await import('./start.js');
      return startApp({
        dbs: values['db'] ? dbMounts(values, 'start', tokens) : [],
        port: intOption(values, 'port', 0) ?? 8750,
        settings: await processSettings(values, true),
        ...(typeof values['config'] === 'string' ? { config: values['config'] } : {}),
      });
    },
  },
];
