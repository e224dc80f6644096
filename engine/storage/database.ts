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
import { basename, join, resolve } from 'node:path';
import { type Column, columnLength } from '../core/column.js';
import { TickscopeError } from '../core/errors.js';
import type { Table } from '../core/table.js';
import { type Config, configFromJson, configToJson, defaultConfig } from './config.js';
import { encodeColumn, fsyncDir, type PartitionMeta, readColumn, readMeta, writeFileDurable } from './partition-io.js';
import { prepareForStorage } from './prepare.js';
import { type Schema, schemaFromJson, schemaToJson, standardSchema, type TableSchema } from './schema.js';
import { withWriteLock } from './write-lock.js';

interface Manifest {
  format: 1;
  generation: number;
  tables: Record<string, { partitions?: Record<string, string>; reference?: string }>;
}

/** One stored partition (or a whole reference table): lazily loaded columns. */
export class Partition {
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

  /** A column of this partition, read from disk once and then cached. */
  column(name: string): Column {
    const def = this.meta.columns.find((c) => c.name === name);
    if (!def) throw new TickscopeError('badDatabase', `${this.dir}: no column ${name}`);
    return this.cache.get(`${this.dir}\0${name}`, () => readColumn(this.dir, def, this.rows));
  }
}

/** Least-recently-used cache of loaded columns, bounded in bytes. */
export class ColumnCache {
  private readonly entries = new Map<string, { column: Column; bytes: number }>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  get(key: string, load: () => Column): Column {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.column;
    }
    const column = load();
    const bytes = columnBytes(column);
    this.entries.set(key, { column, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.budget || k === key) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
    return column;
  }
}

function columnBytes(c: Column): number {
  switch (c.type) {
    case 'symbol':
      return c.codes.byteLength + c.dict.length * 16;
    case 'string':
      return c.values.length * 32;
    case 'float[]':
    case 'long[]':
      return c.offsets.byteLength + c.values.byteLength;
    default:
      return c.data.byteLength;
  }
}

const DEFAULT_CACHE_BYTES = Number(process.env['TICKSCOPE_CACHE_MB'] ?? 4096) * 1024 * 1024;

/** What a commit writes: whole partitions (replaced) and whole reference tables (replaced). */
export interface Changes {
  readonly partitions?: ReadonlyArray<{ readonly table: string; readonly key: string; readonly data: Table }>;
  readonly references?: ReadonlyArray<{ readonly table: string; readonly data: Table }>;
}

export class Database {
  readonly name: string;
  private manifest!: Manifest;
  private manifestStamp = '';
  private readonly partitionCache = new Map<string, Partition>();
  private readonly cache: ColumnCache;

  private constructor(
    readonly dir: string,
    readonly schema: Schema,
    readonly config: Config,
    cacheBytes: number,
  ) {
    this.name = basename(dir);
    this.cache = new ColumnCache(cacheBytes);
    this.refresh();
  }

  /** Opens an existing database folder. */
  static open(dir: string, opts: { cacheBytes?: number } = {}): Database {
    const root = resolve(dir);
    const schemaPath = join(root, 'schema.json');
    if (!existsSync(schemaPath)) {
      throw new TickscopeError(
        'badDatabase',
        `${root} is not a Tickscope database (no schema.json); create one with: tickscope init --db ${dir}`,
      );
    }
    const schema = schemaFromJson(readJson(schemaPath), schemaPath);
    const configPath = join(root, 'config.json');
    const config = existsSync(configPath) ? configFromJson(readJson(configPath), configPath) : defaultConfig();
    return new Database(root, schema, config, opts.cacheBytes ?? DEFAULT_CACHE_BYTES);
  }

  /** Creates a database folder with a schema and config and no data; refuses a non-empty folder. */
  static create(dir: string, schema: Schema = standardSchema(), config: Config = defaultConfig()): Database {
    const root = resolve(dir);
    if (existsSync(root) && readdirSync(root).length > 0) {
      throw new TickscopeError('badDatabase', `${root} already exists and is not empty; choose a new folder`);
    }
    mkdirSync(join(root, 'data'), { recursive: true });
    writeJsonAtomic(join(root, 'config.json'), configToJson(config));
    writeJsonAtomic(join(root, 'manifest.json'), { format: 1, generation: 0, tables: {} } satisfies Manifest);
    // schema.json last: its presence is what makes the folder a database
    writeJsonAtomic(join(root, 'schema.json'), schemaToJson(schema));
    return Database.open(root);
  }

  /** Re-reads manifest.json when another writer (or process) has replaced it. */
  refresh(): void {
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

  /** Applies changes atomically: all of them become visible together, or none does. */
  commit(changes: Changes): void {
    withWriteLock(this.dir, () => {
      this.manifestStamp = '';
      this.refresh();
      const next: Manifest = structuredClone(this.manifest);
      next.generation += 1;
      const gen = next.generation;
      for (const { table, key, data } of changes.partitions ?? []) {
        const t = this.table(table);
        if (t.kind !== 'partitioned') throw new Error(`${table} is not a partitioned table`);
        const rel = join('data', table, `${key}.g${gen}`);
        this.writeFolder(t, rel, data);
        const entry = (next.tables[table] ??= {});
        (entry.partitions ??= {})[key] = rel;
      }
      for (const { table, data } of changes.references ?? []) {
        const t = this.table(table);
        const rel = join('data', table, `ref.g${gen}`);
        this.writeFolder(t, rel, data);
        (next.tables[table] ??= {}).reference = rel;
      }
      writeJsonAtomic(join(this.dir, 'manifest.json'), next);
      this.manifestStamp = '';
      this.refresh();
      this.removeUnreferenced(next);
    });
  }

  private writeFolder(t: TableSchema, rel: string, data: Table): void {
    const dir = join(this.dir, rel);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const { table, idRanges } = prepareForStorage(t, data);
    for (const [i, def] of t.columns.entries()) {
      const col = table.col(def.name);
      if (col.type !== def.type) throw new Error(`${t.name}.${def.name}: expected ${def.type}, got ${col.type}`);
      if (columnLength(col) !== table.length) throw new Error(`${t.name}.${def.name}: length mismatch (${i})`);
      for (const [file, bytes] of encodeColumn(def.name, col, `${t.name}`)) writeFileDurable(join(dir, file), bytes);
    }
    const meta: PartitionMeta = {
      format: 1,
      rows: table.length,
      columns: t.columns,
      ...(idRanges ? { idRanges } : {}),
    };
    writeFileDurable(join(dir, '_meta.json'), JSON.stringify(meta));
    fsyncDir(dir);
  }

  private removeUnreferenced(m: Manifest): void {
    const live = new Set<string>();
    for (const entry of Object.values(m.tables)) {
      for (const rel of Object.values(entry.partitions ?? {})) live.add(join(this.dir, rel));
      if (entry.reference) live.add(join(this.dir, entry.reference));
    }
    const data = join(this.dir, 'data');
    if (!existsSync(data)) return;
    for (const table of readdirSync(data)) {
      const tdir = join(data, table);
      for (const f of readdirSync(tdir)) {
        const path = join(tdir, f);
        if (!live.has(path)) rmSync(path, { recursive: true, force: true });
      }
    }
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new TickscopeError('badDatabase', `${path}: cannot read JSON (${(e as Error).message})`);
  }
}

/** Writes a JSON file by write-to-temporary, flush, rename: readers see the old or the new file. */
export function writeJsonAtomic(path: string, doc: unknown): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileDurable(tmp, `${JSON.stringify(doc, null, 2)}\n`);
  renameSync(tmp, path);
  fsyncDir(resolve(path, '..'));
}
