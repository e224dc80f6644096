/** Test databases: real folders on disk, filled through the real CSV import. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { payloadJson } from '../../engine/output/envelope.js';
import { type Config } from '../../engine/storage/config.js';
import { Database } from '../../engine/storage/database.js';
import { standardSchema } from '../../engine/storage/schema.js';
import { importFile } from '../../engine/storage/import.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary folder, removed after the test file. */
export function tempDir(prefix = 'tickscope-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** CSV text from a header and rows (cells written as given). */
export function csv(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [header.join(','), ...rows.map((r) => r.join(','))].join('\n') + '\n';
}

/** A new standard database with the given CSV text imported into each table. */
export function makeDb(tables: Readonly<Record<string, string>>, name = 'db', config?: Config): Database {
  const dir = join(tempDir(), name);
  const db = Database.create(dir, standardSchema(), config);
  for (const [table, text] of Object.entries(tables)) {
    const file = join(tempDir(), `${table}.csv`);
    writeFileSync(file, text);
    importFile(db, table, file);
  }
  return db;
}

/** An engine over one new database. */
export function makeEngine(tables: Readonly<Record<string, string>>, config?: Config): Engine<Database> {
  return new Engine([makeDb(tables, 'db', config)]);
}

/** Rows of a result through the JSON payload path (exactly what REST and `tickscope call` return). */
export function payloadRows(engine: Engine, op: string, args: unknown): Array<Record<string, unknown>> {
  return JSON.parse(payloadJson(engine.call(op, args))) as Array<Record<string, unknown>>;
}
