/**
 * `tickscope migrate`: converts a storage-format-1 database to the current format in place, atomically.
 * New partition folders are written beside the old ones, then manifest.json is replaced by rename (the
 * moment the database becomes format 2); a crash before that leaves the v1 database as it was, plus
 * unreferenced folders that the next migrate or write removes. The only code that reads format 1.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import { writeJsonAtomic } from './database.js';
import { STORAGE_FORMAT } from './format.js';
import { writePartitionFolder } from './partition-io.js';
import { schemaFromJson } from './schema.js';
import { readColumnV1, readMetaV1 } from './v1.js';
import { withWriteLock } from './write-lock.js';

interface ManifestV1 {
  format: 1;
  generation: number;
  tables: Record<string, { partitions?: Record<string, string>; reference?: string }>;
}

export interface MigrateReport {
  /** The format the database had. */
  readonly from: number;
  /** Partition and reference folders converted. */
  readonly folders: number;
  readonly rows: number;
}

/** Converts the database at `dir` to the current storage format; a current database is left alone. */
export function migrateDatabase(dir: string, progress: (msg: string) => void = () => {}): MigrateReport {
  const root = resolve(dir);
  const manifestPath = join(root, 'manifest.json');
  if (!existsSync(join(root, 'schema.json')) || !existsSync(manifestPath)) {
    throw new TickscopeError('badDatabase', `${root} is not a Tickscope database (no schema.json or manifest.json)`);
  }
  return withWriteLock(root, () => {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as ManifestV1 | { format: number };
    if (manifest.format === STORAGE_FORMAT) return { from: STORAGE_FORMAT, folders: 0, rows: 0 };
    if (manifest.format !== 1) {
      throw new TickscopeError('badDatabase', `${manifestPath}: storage format ${JSON.stringify(manifest.format)} is not one migrate converts (1 -> ${STORAGE_FORMAT})`);
    }
    const v1 = manifest as ManifestV1;
    const schema = schemaFromJson(JSON.parse(readFileSync(join(root, 'schema.json'), 'utf8')), join(root, 'schema.json'));
    const gen = v1.generation + 1;
    const next = { format: STORAGE_FORMAT, generation: gen, tables: {} as ManifestV1['tables'] };
    let folders = 0;
    let rows = 0;
    const convert = (table: string, rel: string, name: string): string => {
      const t = schema.tables.get(table);
      if (!t) throw new TickscopeError('badDatabase', `${manifestPath} names table ${table}, which schema.json does not declare`);
      const from = join(root, rel);
      const meta = readMetaV1(from);
      const data = new Table(
        t.columns.map((c) => c.name),
        t.columns.map((c) => {
          const def = meta.columns.find((d) => d.name === c.name);
          if (!def || def.type !== c.type) throw new TickscopeError('badDatabase', `${from}: column ${c.name} (${c.type}) is not stored as schema.json declares`);
          return readColumnV1(from, def, meta.rows);
        }),
        meta.rows,
      );
      const out = join('data', table, `${name}.g${gen}`);
      writePartitionFolder(join(root, out), t, data);
      folders++;
      rows += meta.rows;
      progress(`migrate: ${table} ${name} (${meta.rows} rows)`);
      return out;
    };
    for (const [table, entry] of Object.entries(v1.tables)) {
      const target: ManifestV1['tables'][string] = {};
      for (const [key, rel] of Object.entries(entry.partitions ?? {})) (target.partitions ??= {})[key] = convert(table, rel, key);
      if (entry.reference) target.reference = convert(table, entry.reference, 'ref');
      next.tables[table] = target;
    }
    writeJsonAtomic(manifestPath, next);
    // no format-1 reader remains, so the old folders can go at once
    const live = new Set(Object.values(next.tables).flatMap((e) => [...Object.values(e.partitions ?? {}), ...(e.reference ? [e.reference] : [])]));
    const data = join(root, 'data');
    for (const table of existsSync(data) ? readdirSync(data) : []) {
      for (const f of readdirSync(join(data, table))) {
        if (!live.has(join('data', table, f))) rmSync(join(data, table, f), { recursive: true, force: true });
      }
    }
    return { from: 1, folders, rows };
  });
}

/** The storage format of a database folder's manifest (undefined when it has none). */
export function storageFormatOf(dir: string): number | undefined {
  const path = join(resolve(dir), 'manifest.json');
  if (!existsSync(path)) return undefined;
  const m = JSON.parse(readFileSync(path, 'utf8')) as { format?: unknown };
  return typeof m.format === 'number' ? m.format : undefined;
}
