/**
 * A new table in a database's schema.json (the app's Import… into "New table…", issue 30): checked as
 * schema.json is checked at load (schema.ts), written atomically under the database's write lock, so
 * two writers never lose each other's tables. A Database reads its schema when opened: the caller
 * opens the database again to see the table (the service does, on every worker).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COLUMN_TYPES, type ColumnType } from '../core/column-type.js';
import { TickscopeError } from '../core/errors.js';
import { type Database, writeJsonAtomic } from './database.js';
import type { NewTableSpec } from './import-types.js';
import { schemaFromJson, schemaToJson, type TableSchema } from './schema.js';
import { withWriteLock } from './write-lock.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A new table's spec from JSON, every problem naming its item (`newTable.columns[2].type`). */
export function checkNewTable(x: unknown, at = 'newTable'): NewTableSpec {
  const bad = (item: string, msg: string): never => {
    throw new TickscopeError('badRequest', `${item}: ${msg}`);
  };
  if (!isRecord(x)) return bad(at, 'expected {"name", "columns": [{"name", "type"}...], "timeColumn", "idColumn"}');
  for (const k of Object.keys(x)) if (!['name', 'columns', 'timeColumn', 'idColumn'].includes(k)) bad(`${at}.${k}`, 'is not an item of a new table; expected name, columns, timeColumn, idColumn');
  const name = x['name'];
  if (typeof name !== 'string' || !NAME.test(name)) bad(`${at}.name`, `${JSON.stringify(name)} is not a table name; expected letters, digits and _ (not first), up to 64`);
  const cols = x['columns']; // not an argument: a new table's item
  if (!Array.isArray(cols) || cols.length === 0) return bad(`${at}.columns`, 'expected a non-empty array of {"name", "type"}');
  const columns = cols.map((c: unknown, i) => {
    const item = `${at}.columns[${i}]`;
    if (!isRecord(c)) return bad(item, 'expected {"name", "type"}');
    if (typeof c['name'] !== 'string' || !NAME.test(c['name'])) bad(`${item}.name`, `${JSON.stringify(c['name'])} is not a column name; expected letters, digits and _ (not first), up to 64`);
    if (!COLUMN_TYPES.includes(c['type'] as ColumnType)) bad(`${item}.type`, `${JSON.stringify(c['type'])} is not a column type; expected one of ${COLUMN_TYPES.join(', ')}`);
    return { name: c['name'] as string, type: c['type'] as ColumnType };
  });
  columns.forEach((c, i) => {
    if (columns.findIndex((d) => d.name === c.name) !== i) bad(`${at}.columns[${i}].name`, `${c.name} is named twice`);
  });
  const time = x['timeColumn'];
  if (!columns.some((c) => c.name === time && c.type === 'timestamp')) {
    bad(`${at}.timeColumn`, `${JSON.stringify(time)} must name a timestamp column; expected one of ${columns.filter((c) => c.type === 'timestamp').map((c) => c.name).join(', ') || '(none: give a column the type timestamp)'}`);
  }
  const id = x['idColumn'];
  if (!columns.some((c) => c.name === id && c.type === 'symbol')) {
    bad(`${at}.idColumn`, `${JSON.stringify(id)} must name a symbol column (the instrument); expected one of ${columns.filter((c) => c.type === 'symbol').map((c) => c.name).join(', ') || '(none: give a column the type symbol)'}`);
  }
  return { name: name as string, columns, timeColumn: time as string, idColumn: id as string };
}

/** Adds a partitioned table to the database's schema.json (atomically, under the write lock); returns its schema. */
export function defineTable(db: Database, spec: unknown): TableSchema {
  const def = checkNewTable(spec);
  const path = join(db.dir, 'schema.json');
  return withWriteLock(db.dir, () => {
    // the file as it is now (another writer may have added a table since this Database was opened)
    const now = schemaFromJson(JSON.parse(readFileSync(path, 'utf8')), path);
    if (now.tables.has(def.name)) throw new TickscopeError('badRequest', `newTable.name: ${def.name} is a table of ${db.name} already; choose it as the target, or another name`);
    const doc = schemaToJson(now);
    doc.tables.push({ name: def.name, kind: 'partitioned', timeColumn: def.timeColumn, idColumn: def.idColumn, columns: def.columns.map((c) => ({ ...c })), foreignKeys: {} });
    // checked as at load: what is written here opens again
    const next = checked(() => schemaFromJson(doc, `newTable ${def.name}`));
    writeJsonAtomic(path, doc);
    return next.tables.get(def.name)!;
  });
}

/** A schema check's failure as the request's error (the new table is what is wrong, not the database). */
function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new TickscopeError('badRequest', (e as Error).message);
  }
}
