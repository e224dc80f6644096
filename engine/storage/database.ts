/**
 * A database folder (one assembly):
 *
 *   schema.json, config.json
 *   manifest.json                 which folder holds each partition / reference table, by generation
 *   data/<Table>/<date>.g<N>/     one immutable folder per partition version (column files + _meta.json)
 *   data/<Table>/ref.g<N>/        a reference table
 *
 * Writes never touch a folder the manifest names: they write new folders, then swap manifest.json by
 * rename, so a crash leaves the old or the new state. Folders no manifest names are removed after a
 * commit. Because folders are immutable, cached columns are keyed by folder and never go stale.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Column, ColumnType } from '../core/column.js';
import { environmentError, TickscopeError } from '../core/errors.js';
import type { ColumnDef, DeferredColumn, Table } from '../core/table.js';
import { streamedFiles } from '../core/query-hooks.js';
import type { RowSource } from './row-source.js';
import { type Config, configFromJson, configToJson, defaultConfig } from './config.js';
import { STORAGE_FORMAT } from './format.js';
import type { ImportRecord } from './import-hash.js';
import { fsyncDir, type PartitionMeta, readImports, readMeta, TIME_ORDER_FILE, writeFileDurable, writePartitionFolder, writing } from './partition-io.js';
import { forgetSums } from './checksums.js';
import { checkTimeOrder } from './structure.js';
import { type Schema, schemaFromJson, schemaToJson, standardSchema, type TableSchema } from './schema.js';
import { FolderGoneError, readFileShared, readRowsInto, readRowsUncached, type RowRanges, StoredColumn } from './stored-column.js';
import type { Changes, WritableSource } from './source.js';
import { withWriteLock } from './write-lock.js';

interface Manifest {
  format: typeof STORAGE_FORMAT;
  generation: number;
  tables: Record<string, { partitions?: Record<string, string>; reference?: string }>;
  /** Folders superseded by a commit, kept for readers until `RETIRE_MS` after it (then removed). */
  retired?: Array<{ dir: string; generation: number; at: number }>;
}

/** How long a superseded folder stays for readers of other threads and processes (ms; `TICKSCOPE_RETIRE_MS`). */
const RETIRE_MS = Number(process.env['TICKSCOPE_RETIRE_MS'] ?? 60_000);

/** One stored partition (or a whole reference table): columns read on demand, in row ranges. */
export class Partition implements RowSource {
  readonly rows: number;
  /** identifier -> [first row, end row) */
  readonly idRanges: ReadonlyMap<string, readonly [number, number]>;

  constructor(
    readonly table: TableSchema,
    readonly key: string,
    readonly dir: string,
    private readonly meta: PartitionMeta,
    private readonly cache: ColumnCache,
  ) {
    this.rows = meta.rows;
    this.idRanges = new Map(Object.entries(meta.idRanges ?? {}));
  }

  /** What each import wrote here (none recorded: []), read from the folder each time asked (imports ask). */
  get imports(): readonly ImportRecord[] {
    return readImports(this.dir);
  }

  /** A whole column of this partition, read from disk once and then cached. */
  column(name: string): Column {
    return this.stored(name).load();
  }

  /** A column with at least the rows of `ranges` read (other rows may hold zeros). */
  columnIn(name: string, ranges: RowRanges): Column {
    return this.stored(name).load(ranges);
  }

  /** This partition seen through row ranges: columns read only there. */
  narrow(ranges: RowRanges): RowSource {
    return { rows: this.rows, idRanges: this.idRanges, column: (name: string) => this.columnIn(name, ranges), deferred: (name: string) => this.deferredIn(name, ranges) };
  }

  /** A column whose rows are left to the streaming renderer (when the running query's result is streamed and they are not read yet). */
  deferred(name: string): DeferredColumn | undefined {
    return this.deferredIn(name, undefined);
  }

  private deferredIn(name: string, ranges: RowRanges | undefined): DeferredColumn | undefined {
    const files = streamedFiles();
    return files ? this.stored(name).deferred(ranges, files) : undefined;
  }

  /**
   * Every row of a column in buffers of its own, outside the column cache and the executor's shared
   * store: a partition read once to be rewritten (a commit replaces it) never displaces what queries
   * use, nor asks the serving thread for buffers.
   */
  columnUncached(name: string): Column {
    return new StoredColumn(this.dir, this.def(name), this.rows, this.meta.rowOrderDicts?.includes(name) ?? false, true).load();
  }

  /** Rows [a, b) of a numeric or time column in a buffer of their own, outside the column cache. */
  readUncached(name: string, a: number, b: number): Column {
    return readRowsUncached(this.dir, this.def(name), this.rows, a, b);
  }

  /** The type of a column and the bytes of its rows [a, b) read into `into`, outside the column cache. */
  readInto(name: string, a: number, b: number, into: Uint8Array): ColumnType {
    const def = this.def(name);
    readRowsInto(this.dir, def, this.rows, a, b, into);
    return def.type;
  }

  private def(name: string): ColumnDef {
    const def = this.meta.columns.find((c) => c.name === name);
    if (!def) throw new TickscopeError('badDatabase', `${this.dir}: no column ${name}`);
    return def;
  }

  /** The rows in time order (ties by identifier, then storage order), when stored with the partition. */
  timeOrder(): Int32Array | undefined {
    if (!this.meta.timeOrder) return undefined;
    return this.cache.get(`${this.dir}\0${TIME_ORDER_FILE}`, () => new TimeOrder(join(this.dir, TIME_ORDER_FILE), this.rows)).order;
  }

  private stored(name: string): StoredColumn {
    const def = this.def(name);
    return this.cache.get(`${this.dir}\0${name}`, () => new StoredColumn(this.dir, def, this.rows, this.meta.rowOrderDicts?.includes(name) ?? false));
  }
}

/** A partition's stored time order, as a cache entry. */
class TimeOrder {
  readonly order: Int32Array;
  readonly bytes: number;

  constructor(path: string, rows: number) {
    const raw = readFileShared(path);
    // checked whole once per read of the file (a few ms for 2M rows): a wrong order drops or repeats rows silently
    checkTimeOrder(path, raw.byteLength, new Int32Array(raw.buffer, raw.byteOffset, raw.byteLength >> 2), rows);
    this.order = new Int32Array(raw.buffer, 0, raw.byteLength / 4);
    this.bytes = raw.byteLength;
  }
}

/**
 * Loaded columns, dictionaries and time orders, bounded in bytes (`TICKSCOPE_CACHE_MB`), evicted by
 * recency. An entry the running query has touched is never evicted during that query; entries grow
 * as more row ranges are read, and are counted again on each use.
 */
export class ColumnCache {
  private readonly entries = new Map<string, { value: { readonly bytes: number }; query: number }>();
  private query = 0;

  constructor(readonly budget: number) {}

  /** Marks the start of a query: entries it touches stay until the next one starts. */
  beginQuery(): void {
    this.query++;
    this.evict(); // entries grow as later queries read more of them: checked once per query
  }

  /** Bytes held by every entry. */
  get bytes(): number {
    let total = 0;
    for (const e of this.entries.values()) total += e.value.bytes;
    return total;
  }

  get<T extends { readonly bytes: number }>(key: string, load: () => T): T {
    let hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      hit.query = this.query;
      this.entries.set(key, hit);
      return hit.value as T;
    }
    hit = { value: load(), query: this.query };
    this.entries.set(key, hit);
    this.evict();
    return hit.value as T;
  }

  private evict(): void {
    let total = this.bytes;
    if (total <= this.budget) return;
    for (const [k, e] of this.entries) {
      if (total <= this.budget) break;
      if (e.query === this.query) continue;
      this.entries.delete(k);
      total -= e.value.bytes;
    }
  }
}

const DEFAULT_CACHE_BYTES = Number(process.env['TICKSCOPE_CACHE_MB'] ?? 4096) * 1024 * 1024;

/** What a commit writes: whole partitions (replaced) and whole reference tables (replaced). */

export class Database implements WritableSource {
  readonly kind = 'tickscope';
  readonly name: string;
  private manifest!: Manifest;
  private manifestStamp = '';
  private readonly partitionCache = new Map<string, Partition>();
  private readonly cache: ColumnCache;
  /** Manifest generations read by running queries of this thread, with their counts. */
  private readonly held = new Map<number, number>();
  /** Removals of superseded folders still under way (moved aside under the write lock, removed after it). */
  private readonly removing = new Set<Promise<void>>();

  private currentConfig: Config;
  private configStamp: string;
  private check: ((c: Config, where: string) => void) | undefined;

  private constructor(
    readonly dir: string,
    readonly schema: Schema,
    config: Config,
    cacheBytes: number,
    private readonly retireMs: number,
  ) {
    this.name = basename(dir);
    this.cache = new ColumnCache(cacheBytes);
    this.currentConfig = config;
    this.configStamp = fileStamp(join(dir, 'config.json'));
    this.refresh();
    this.tidy();
  }

  /**
   * What writers left behind, removed when the database is opened (not only at the next write, which
   * may never come to a database only read): folders of a write that died before its manifest named
   * them, folders set aside for removal, and superseded folders whose grace period has passed. Looked
   * for without the lock (a few directory reads); removed only under it, taken without waiting: a
   * writer at work removes them at its own commit, and a database this process may not write (a
   * read-only disk, another user's folder) is left as it is.
   */
  private tidy(): void {
    if (!this.hasLeftovers()) return;
    try {
      withWriteLock(
        this.dir,
        () => {
          this.manifestStamp = '';
          this.refresh();
          this.removeSuperseded();
        },
        { waitMs: 0 },
      );
    } catch {
      /* busy or not writable: the next commit tidies */
    }
  }

  private hasLeftovers(): boolean {
    const m = this.manifest;
    const now = Date.now();
    if ((m.retired ?? []).some((r) => now - r.at >= this.retireMs)) return true;
    const known = new Set([...liveFolders(m), ...(m.retired ?? []).map((r) => r.dir)]);
    const data = join(this.dir, 'data');
    try {
      // temporary lock files and unfinished manifests of writers that died (removed by taking the lock)
      if (readdirSync(this.dir).some((f) => f.startsWith('.write.lock.') || f.startsWith('manifest.json.tmp-'))) return true;
      for (const table of readdirSync(data)) {
        for (const f of readdirSync(join(data, table))) if (!known.has(join('data', table, f))) return true;
      }
    } catch {
      return false; // no data folder yet, or unreadable: nothing this open can tidy
    }
    return false;
  }

  /** config.json as last read: an edit applies from the next query (no restart, no rebuild). */
  get config(): Config {
    return this.currentConfig;
  }

  /**
   * A check config.json must also pass (the engine checks summary functions against the schema),
   * run now and on every re-read; a failure is the query's error until the file is fixed.
   */
  checkConfig(check: (c: Config, where: string) => void): void {
    this.check = check;
    check(this.currentConfig, join(this.dir, 'config.json'));
  }

  /** Opens an existing database folder. */
  static open(dir: string, opts: { cacheBytes?: number; retireMs?: number } = {}): Database {
    const root = resolve(dir);
    // checksums this thread remembers of folders at this path were of a database made before this one, if any
    forgetSums(root);
    const schemaPath = join(root, 'schema.json');
    if (!existsSync(schemaPath)) {
      throw new TickscopeError(
        'badDatabase',
        `${root} is not a Tickscope database (no schema.json); create one with: tickscope init --db ${dir}`,
      );
    }
    const manifest = readJson(join(root, 'manifest.json')) as { format?: unknown };
    if (manifest.format !== STORAGE_FORMAT) {
      throw new TickscopeError(
        'badDatabase',
        manifest.format === 1
          ? `${root} is a Tickscope database in storage format 1; this release reads format ${STORAGE_FORMAT}. Convert it (atomically, in place) with: tickscope migrate --db ${dir}`
          : `${root}/manifest.json: storage format ${JSON.stringify(manifest.format)} is not one this release reads (format ${STORAGE_FORMAT})`,
      );
    }
    const schema = schemaFromJson(readJson(schemaPath), schemaPath);
    const configPath = join(root, 'config.json');
    const config = existsSync(configPath) ? configFromJson(readJson(configPath), configPath) : defaultConfig();
    return new Database(root, schema, config, opts.cacheBytes ?? DEFAULT_CACHE_BYTES, opts.retireMs ?? RETIRE_MS);
  }

  /** Creates a database folder with a schema and config and no data; refuses a non-empty folder. */
  static create(dir: string, schema: Schema = standardSchema(), config: Config = defaultConfig()): Database {
    const root = resolve(dir);
    if (existsSync(root) && readdirSync(root).length > 0) {
      throw new TickscopeError('badDatabase', `${root} already exists and is not empty; choose a new folder`);
    }
    writing(join(root, 'data'), () => mkdirSync(join(root, 'data'), { recursive: true }));
    writeJsonAtomic(join(root, 'config.json'), configToJson(config));
    writeJsonAtomic(join(root, 'manifest.json'), { format: STORAGE_FORMAT, generation: 0, tables: {} } satisfies Manifest);
    // schema.json last: its presence is what makes the folder a database
    writeJsonAtomic(join(root, 'schema.json'), schemaToJson(schema));
    return Database.open(root);
  }

  /** Re-reads manifest.json when another writer (or process) has replaced it, and config.json when edited. */
  refresh(): void {
    const configPath = join(this.dir, 'config.json');
    const configStamp = fileStamp(configPath);
    if (configStamp !== this.configStamp) {
      const config = configStamp ? configFromJson(readJson(configPath), configPath) : defaultConfig();
      this.check?.(config, configPath);
      this.currentConfig = config;
      this.configStamp = configStamp;
    }
    const path = join(this.dir, 'manifest.json');
    let stamp: string;
    try {
      const st = statSync(path);
      stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
    } catch {
      throw new TickscopeError('badDatabase', `${this.dir}: manifest.json is missing`);
    }
    if (stamp === this.manifestStamp) return;
    this.manifest = readJson(path) as Manifest;
    this.manifestStamp = stamp;
    this.partitionCache.clear();
  }

  /** The schema of a table; an unknown name is an error listing the tables. */
  table(name: string): TableSchema {
    const t = this.schema.tables.get(name);
    if (!t) {
      throw new TickscopeError(
        'unknownTable',
        `table: ${JSON.stringify(name)} is not a table of ${this.name}; expected one of ${[...this.schema.tables.keys()].join(', ')}`,
      );
    }
    return t;
  }

  /** Partition keys (UTC dates, `2024-01-02`) of a partitioned table, ascending. */
  partitionKeys(table: string): string[] {
    return Object.keys(this.manifest.tables[table]?.partitions ?? {}).sort();
  }

  /** One partition of a table, or undefined when the date holds no data. */
  partition(table: string, key: string): Partition | undefined {
    const rel = this.manifest.tables[table]?.partitions?.[key];
    return rel === undefined ? undefined : this.openPartition(table, key, rel);
  }

  /** A reference table (or any table stored whole), or undefined when it holds no data. */
  reference(table: string): Partition | undefined {
    const rel = this.manifest.tables[table]?.reference;
    return rel === undefined ? undefined : this.openPartition(table, 'ref', rel);
  }

  /** Total rows of a table (from partition metadata only). */
  rowCount(table: string): number {
    const t = this.table(table);
    if (t.kind === 'reference') return this.reference(table)?.rows ?? 0;
    return this.partitionKeys(table).reduce((s, k) => s + (this.partition(table, k)?.rows ?? 0), 0);
  }

  private openPartition(table: string, key: string, rel: string): Partition {
    const dir = join(this.dir, rel);
    let p = this.partitionCache.get(dir);
    if (!p) {
      p = new Partition(this.table(table), key, dir, readMeta(dir), this.cache);
      this.partitionCache.set(dir, p);
    }
    return p;
  }

  /** The column cache (tests and the bench read its size). */
  get columnCache(): ColumnCache {
    return this.cache;
  }

  /**
   * Runs a query against one manifest: its generation is held while `fn` runs, so a commit in this
   * process leaves the folders it reads in place; a folder found gone (a write elsewhere replaced it
   * and the grace period passed) reloads the manifest and runs `fn` once more.
   */
  read<T>(fn: () => T): T {
    for (let attempt = 0; ; attempt++) {
      this.refresh();
      this.cache.beginQuery();
      const gen = this.manifest.generation;
      this.held.set(gen, (this.held.get(gen) ?? 0) + 1);
      try {
        return fn();
      } catch (e) {
        if (!(e instanceof FolderGoneError) || attempt > 0) throw e;
        this.manifestStamp = '';
      } finally {
        const left = this.held.get(gen)! - 1;
        if (left === 0) this.held.delete(gen);
        else this.held.set(gen, left);
      }
    }
  }

  /**
   * Applies changes atomically: all of them become visible together, or none does. Writers of one
   * database take turns (the write lock, across threads and processes); changes given as a function
   * are computed while holding the lock. Returns the changes applied.
   */
  commit(what: Changes | (() => Changes)): Changes {
    return withWriteLock(this.dir, () => {
      this.manifestStamp = '';
      this.refresh();
      // changes that read what is stored (appends) are computed here, under the lock, from the
      // newest manifest: computed before it, a concurrent writer's rows would be lost
      const changes = typeof what === 'function' ? what() : what;
      const prev = this.manifest;
      const next: Manifest = structuredClone(prev);
      next.generation += 1;
      const gen = next.generation;
      for (const { table, key, data, imports } of changes.partitions ?? []) {
        const t = this.table(table);
        if (t.kind !== 'partitioned') throw new Error(`${table} is not a partitioned table`);
        const rel = join('data', table, `${key}.g${gen}`);
        this.writeFolder(t, rel, data, imports ?? this.partition(table, key)?.imports);
        const entry = (next.tables[table] ??= {});
        (entry.partitions ??= {})[key] = rel;
      }
      for (const { table, data, imports } of changes.references ?? []) {
        const t = this.table(table);
        const rel = join('data', table, `ref.g${gen}`);
        this.writeFolder(t, rel, data, imports ?? this.reference(table)?.imports);
        (next.tables[table] ??= {}).reference = rel;
      }
      const live = liveFolders(next);
      const now = Date.now();
      next.retired = [
        ...(prev.retired ?? []),
        ...[...liveFolders(prev)].filter((rel) => !live.has(rel)).map((rel) => ({ dir: rel, generation: gen, at: now })),
      ];
      writeJsonAtomic(join(this.dir, 'manifest.json'), next);
      this.manifestStamp = '';
      this.refresh();
      this.removeSuperseded();
      return changes;
    });
  }

  private writeFolder(t: TableSchema, rel: string, data: Table, imports: readonly ImportRecord[] | undefined): void {
    writePartitionFolder(join(this.dir, rel), t, data, imports);
  }

  /**
   * Removes folders no manifest names (left by a crashed write) and retired folders once no query of
   * this process holds a generation that reads them and the grace period for other threads and
   * processes has passed. Queries that still find one gone retry (read()). Under the write lock each
   * is only renamed aside (a metadata change): its files are deleted afterwards, off the commit's path
   * and off this thread (unlinking a partition's files costs about a millisecond each here). A
   * folder left aside by a process that stopped first is removed by the next commit.
   */
  private removeSuperseded(): void {
    const m = this.manifest;
    const oldestHeld = Math.min(Infinity, ...this.held.keys());
    const now = Date.now();
    const keep = (r: { generation: number; at: number }): boolean => oldestHeld < r.generation || now - r.at < this.retireMs;
    const retired = m.retired ?? [];
    const still = retired.filter(keep);
    const known = new Set([...liveFolders(m), ...still.map((r) => r.dir)]);
    const data = join(this.dir, 'data');
    if (existsSync(data)) {
      for (const table of readdirSync(data)) {
        for (const f of readdirSync(join(data, table))) {
          const rel = join('data', table, f);
          if (known.has(rel)) continue;
          const path = join(this.dir, rel);
          if (f.startsWith(ASIDE)) {
            this.removeLater(path);
            continue;
          }
          const aside = join(data, table, `${ASIDE}${f}.${process.pid}.${++asideCount}`);
          try {
            renameSync(path, aside);
          } catch {
            rmSync(path, { recursive: true, force: true });
            continue;
          }
          this.removeLater(aside);
        }
      }
    }
    if (still.length !== retired.length) {
      writeJsonAtomic(join(this.dir, 'manifest.json'), { ...m, retired: still });
      this.manifestStamp = '';
      this.refresh();
    }
  }

  private removeLater(path: string): void {
    // another thread or process may be removing the same folder: whatever it leaves, the next commit does
    const done: Promise<void> = rm(path, { recursive: true, force: true, maxRetries: 2 })
      .catch(() => undefined)
      .finally(() => this.removing.delete(done));
    this.removing.add(done);
  }

  /** Resolves when the superseded folders this Database set aside have been deleted from disk. */
  async removals(): Promise<void> {
    while (this.removing.size > 0) await Promise.all([...this.removing]);
  }
}

/** The name prefix of a superseded folder set aside for removal. */
const ASIDE = '.removing-';
let asideCount = 0;

/** The folders (relative paths) a manifest names. */
function liveFolders(m: Manifest): Set<string> {
  const live = new Set<string>();
  for (const entry of Object.values(m.tables)) {
    for (const rel of Object.values(entry.partitions ?? {})) live.add(rel);
    if (entry.reference) live.add(entry.reference);
  }
  return live;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw environmentError(e, 'reading the database') ?? new TickscopeError('badDatabase', `${path}: cannot read JSON (${(e as Error).message})`);
  }
}

/** Writes a JSON file by write-to-temporary, flush, rename: readers see the old or the new file. */
/** A file's identity and version (inode, mtime, size), or '' when it is absent. */
function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.mtimeMs}:${st.size}`;
  } catch {
    return '';
  }
}

export function writeJsonAtomic(path: string, doc: unknown): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileDurable(tmp, `${JSON.stringify(doc, null, 2)}\n`);
  writing(path, () => renameSync(tmp, path));
  fsyncDir(resolve(path, '..'));
}
