/**
 * The app's Import… on a query worker (issue 30): its requests checked (on the serving thread, before
 * they are queued), its preview, and the import itself: into an existing table of a Tickscope
 * database, or a new one defined first, with the call's progress (files read) and cancel check.
 */
import { asTickscopeError, TickscopeError } from '../core/errors.js';
import type { Engine } from '../engine.js';
import { textCells } from '../output/text-cells.js';
import { Database } from '../storage/database.js';
import { checkNewTable, defineTable } from '../storage/define-table.js';
import { importMapFromJson } from '../storage/import-map.js';
import { previewImport } from '../storage/import-preview.js';
import type { ImportMapDoc, ImportPreview, ImportReportInfo, NewTableSpec, ReimportChoice } from '../storage/import-types.js';
import { importMapped } from '../storage/mapped-import.js';
import { REIMPORT_CHOICES } from '../storage/append.js';
import type { TableSchema } from '../storage/schema.js';
import { readOnlyError, type Source } from '../storage/source.js';

/** Paths one import may name (each a file or a folder). */
export const MAX_IMPORT_PATHS = 10_000;

/** A preview asked for, checked. */
export interface PreviewRequest {
  readonly paths: readonly string[];
  readonly map?: ImportMapDoc;
  readonly table?: string;
  readonly header?: boolean;
  /** A new table as the form has it so far: checked with the mapping (its error is the preview's mapError). */
  readonly newTable?: unknown;
  readonly assembly?: string;
}

/** An import asked for, checked. */
export interface ImportRequest {
  readonly paths: readonly string[];
  readonly map: ImportMapDoc;
  readonly reimport?: ReimportChoice;
  readonly newTable?: NewTableSpec;
  readonly assembly?: string;
}

/** What an import's call gives it: its progress (files read of all) and its cancel check (throws to stop). */
export interface ImportHooks {
  readonly progress?: (done: number, total: number) => void;
  readonly checkpoint?: () => void;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (item: string, msg: string): never => {
  throw new TickscopeError('badRequest', `${item}: ${msg}`);
};

function checkPaths(x: unknown): string[] {
  if (!Array.isArray(x) || x.length === 0) return bad('paths', 'expected a non-empty array of files or folders on this machine');
  if (x.length > MAX_IMPORT_PATHS) bad('paths', `${x.length} paths; at most ${MAX_IMPORT_PATHS} (give their folder instead)`);
  return x.map((p: unknown, i) => (typeof p === 'string' && p.trim() !== '' ? p.trim() : bad(`paths[${i}]`, `${JSON.stringify(p)} is not a path`)));
}

function checkKeys(o: Record<string, unknown>, what: string, keys: readonly string[]): void {
  for (const k of Object.keys(o)) if (!keys.includes(k)) bad(k, `is not a field of ${what}; expected ${keys.join(', ')}`);
}

const optString = (o: Record<string, unknown>, k: string): string | undefined => {
  const v = o[k];
  if (v === undefined || v === '') return undefined;
  return typeof v === 'string' ? v : bad(k, `${JSON.stringify(v)} is not text`);
};

/** A preview request from JSON, every field named when wrong. */
export function checkPreviewRequest(x: unknown): PreviewRequest {
  if (!isRecord(x)) return bad('body', 'expected {"paths": [...], "map"?: {...}, "table"?: name, "header"?: true|false}');
  checkKeys(x, 'an import preview', ['paths', 'map', 'table', 'header', 'newTable', 'assembly']);
  const map = x['map'];
  if (map !== undefined && !isRecord(map)) bad('map', 'expected a mapping object (docs/import.md)');
  const header = x['header'];
  if (header !== undefined && typeof header !== 'boolean') bad('header', `${JSON.stringify(header)}: expected true or false`);
  const table = optString(x, 'table');
  const assembly = optString(x, 'assembly');
  return {
    paths: checkPaths(x['paths']),
    ...(map ? { map: map as unknown as ImportMapDoc } : {}),
    ...(table ? { table } : {}),
    ...(typeof header === 'boolean' ? { header } : {}),
    ...(x['newTable'] !== undefined ? { newTable: x['newTable'] } : {}),
    ...(assembly ? { assembly } : {}),
  };
}

/** An import request from JSON, every field named when wrong (the mapping itself is read on the worker, as the CLI reads it). */
export function checkImportRequest(x: unknown): ImportRequest {
  if (!isRecord(x)) return bad('body', 'expected {"paths": [...], "map": {...}, "reimport"?: "skip"|"replace"|"append", "newTable"?: {...}}');
  checkKeys(x, 'an import', ['paths', 'map', 'reimport', 'newTable', 'assembly', 'queryId']);
  const map = x['map'];
  if (!isRecord(map)) bad('map', 'required: the mapping of the files\' columns to the table\'s (docs/import.md)');
  const reimport = x['reimport'];
  if (reimport !== undefined && !REIMPORT_CHOICES.includes(reimport as ReimportChoice)) bad('reimport', `${JSON.stringify(reimport)}: expected skip, replace or append`);
  const assembly = optString(x, 'assembly');
  return {
    paths: checkPaths(x['paths']),
    map: map as unknown as ImportMapDoc,
    ...(reimport !== undefined ? { reimport: reimport as ReimportChoice } : {}),
    ...(x['newTable'] !== undefined ? { newTable: checkNewTable(x['newTable']) } : {}),
    ...(assembly ? { assembly } : {}),
  };
}

/** The database an import writes: the assembly named (default the first), refused when it takes no writes. */
export function importTarget<S extends Source>(engine: Engine<S>, assembly: string | undefined): S & Database {
  const db = engine.assembly(assembly ? { assembly } : undefined);
  if (!(db instanceof Database)) throw new TickscopeError('requirement', `import: ${readOnlyError(db)}`);
  return db as S & Database;
}

const asSchema = (t: NewTableSpec): TableSchema => ({ name: t.name, kind: 'partitioned', columns: t.columns, timeColumn: t.timeColumn, idColumn: t.idColumn, foreignKeys: {} });

/** The files of a preview, the first file's rows as read and, with a mapping to a table, as mapped. */
export function runPreview(engine: Engine, req: PreviewRequest): ImportPreview {
  const db = engine.assembly(req.assembly ? { assembly: req.assembly } : undefined);
  const name = req.map?.table ?? req.table;
  let table: TableSchema | undefined;
  let tableError: string | undefined;
  if (req.newTable !== undefined && (req.newTable as { name?: unknown } | null)?.name === name) {
    try {
      table = asSchema(checkNewTable(req.newTable));
    } catch (e) {
      tableError = asTickscopeError(e).message;
    }
  } else if (name && db.schema.tables.has(name)) table = db.table(name);
  const preview = previewImport(req.paths, {
    text: (c, zone) => textCells(c, zone, '', true),
    ...(req.map ? { map: req.map } : {}),
    ...(table ? { table } : {}),
    ...(req.header !== undefined ? { header: req.header } : {}),
  });
  if (tableError) return { ...preview, mapError: tableError };
  // a mapping to a table that is not there says so, as the import would
  if (req.map && !table && !preview.mapError) {
    return { ...preview, mapError: `the mapping: table ${JSON.stringify(name)} is not a table of ${db.name}; expected one of ${[...db.schema.tables.keys()].join(', ')}, or define it as a new table` };
  }
  return preview;
}

/**
 * Imports the files as the mapping says, into the assembly's database; a new table is defined first
 * and the database opened again (`reopen`: as this thread opens a mount) so the import sees it.
 */
export function runImport<S extends Source>(engine: Engine<S>, req: ImportRequest, hooks: ImportHooks, reopen: (db: S) => S): ImportReportInfo {
  let db = importTarget(engine, req.assembly);
  const map = importMapFromJson(req.map, 'the mapping');
  let created = false;
  if (req.newTable) {
    if (req.newTable.name !== map.table) bad('newTable.name', `${req.newTable.name} is not the mapping's table (${map.table}); the rows go to the table the mapping names`);
    hooks.checkpoint?.();
    defineTable(db, req.newTable);
    created = true;
    const fresh = reopen(db);
    engine.replace(fresh);
    db = importTarget(engine, req.assembly);
  }
  try {
    const r = importMapped(db, map, req.paths, 'the mapping', {
      ...(req.reimport ? { reimport: req.reimport } : {}),
      ...(hooks.progress ? { progress: hooks.progress } : {}),
      ...(hooks.checkpoint ? { checkpoint: hooks.checkpoint } : {}),
    });
    return { assembly: db.name, table: map.table, files: r.files, rows: r.rows, partitions: r.partitions, written: r.written, reimported: r.reimported, skippedRows: r.skippedRows, created };
  } catch (e) {
    // the table made for it stays (empty): the dialog lists it from now on
    const err = asTickscopeError(e);
    if (created) throw new TickscopeError(err.kind, `${err.message} (table ${map.table} was created and is empty)`);
    throw err;
  }
}
