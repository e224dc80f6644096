/**
 * `tickscope verify`: checks a whole database and lists what is damaged, one line per file: schema.json,
 * config.json and manifest.json as the engine reads them; every folder the manifest names: its
 * _meta.json, every file against its checksums (whole, every chunk), and the structure of every column,
 * index and dictionary against the row count (the checks reads run, storage.md). A folder an older
 * release wrote has no checksums: its structure is checked.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { ColumnDef } from '../core/table.js';
import { TickscopeError } from '../core/errors.js';
import { checkWholeFile, loadFolderSums, SUMS_FILE } from './checksums.js';
import { configFromJson } from './config.js';
import { STORAGE_FORMAT } from './format.js';
import { IMPORTS_FILE, readImports, readMeta, TIME_ORDER_FILE } from './partition-io.js';
import { schemaFromJson, type Schema } from './schema.js';
import { checkCodes, checkOffsets, checkTimeOrder } from './structure.js';

/** One damaged file: its path and what is wrong with it. */
export interface Damage {
  readonly path: string;
  readonly problem: string;
}

export interface VerifyReport {
  readonly dir: string;
  /** Partition and reference folders checked. */
  readonly folders: number;
  /** Files checked. */
  readonly files: number;
  /** Folders without checksums (written by an older release): their structure only was checked. */
  readonly withoutChecksums: number;
  readonly damaged: readonly Damage[];
}

/** The path and problem of an error about a file ("<path>: <problem>; the file is damaged (...)"). */
function damageOf(e: unknown, fallback: string): Damage {
  const message = e instanceof Error ? e.message : String(e);
  const text = message.replace(/; the file is damaged \(tickscope verify[^)]*\)$/, '');
  const at = text.indexOf(': ');
  return at > 0 && isAbsolute(text.slice(0, at)) ? { path: text.slice(0, at), problem: text.slice(at + 2) } : { path: fallback, problem: text };
}

/** Checks every file of the database at `dir`; a database that cannot be read at all is one damage of its folder. */
export function verifyDatabase(dir: string): VerifyReport {
  const root = resolve(dir);
  const damaged: Damage[] = [];
  let folders = 0;
  let files = 0;
  let withoutChecksums = 0;
  const report = (): VerifyReport => ({ dir: root, folders, files, withoutChecksums, damaged });
  const json = (name: string): unknown => {
    files++;
    return JSON.parse(readFileSync(join(root, name), 'utf8'));
  };
  if (!existsSync(join(root, 'schema.json'))) {
    damaged.push({ path: root, problem: 'not a Tickscope database (no schema.json)' });
    return report();
  }
  let schema: Schema | undefined;
  try {
    schema = schemaFromJson(json('schema.json'), join(root, 'schema.json'));
  } catch (e) {
    damaged.push({ path: join(root, 'schema.json'), problem: (e as Error).message });
  }
  if (existsSync(join(root, 'config.json'))) {
    try {
      configFromJson(json('config.json'), join(root, 'config.json'));
    } catch (e) {
      damaged.push({ path: join(root, 'config.json'), problem: (e as Error).message });
    }
  }
  let manifest: { format?: unknown; tables?: Record<string, { partitions?: Record<string, string>; reference?: string }> };
  try {
    manifest = json('manifest.json') as typeof manifest;
  } catch (e) {
    damaged.push({ path: join(root, 'manifest.json'), problem: (e as Error).message });
    return report();
  }
  if (manifest.format !== STORAGE_FORMAT) {
    damaged.push({ path: join(root, 'manifest.json'), problem: `storage format ${JSON.stringify(manifest.format)}; this release reads ${STORAGE_FORMAT}${manifest.format === 1 ? ' (convert it with tickscope migrate)' : ''}` });
    return report();
  }
  for (const [table, entry] of Object.entries(manifest.tables ?? {})) {
    const t = schema?.tables.get(table);
    const rels = [...Object.values(entry.partitions ?? {}), ...(entry.reference ? [entry.reference] : [])];
    for (const rel of rels) {
      const folder = join(root, rel);
      folders++;
      if (!t) {
        if (schema) damaged.push({ path: join(root, 'manifest.json'), problem: `names ${rel} of table ${table}, which schema.json does not declare` });
        continue;
      }
      const out = verifyFolder(folder, t.columns);
      files += out.files;
      if (!out.checksums) withoutChecksums++;
      damaged.push(...out.damaged);
    }
  }
  return report();
}

/** Checks one partition (or reference) folder: checksums of every file, then the structure of each column. */
function verifyFolder(dir: string, declared: readonly ColumnDef[]): { files: number; checksums: boolean; damaged: Damage[] } {
  const damaged: Damage[] = [];
  const bad = new Set<string>();
  const note = (d: Damage): void => {
    if (bad.has(d.path)) return; // one line per file: its first fault
    bad.add(d.path);
    damaged.push(d);
  };
  if (!existsSync(dir)) {
    note({ path: dir, problem: 'missing (manifest.json names it)' });
    return { files: 0, checksums: false, damaged };
  }
  let files = 0;
  let checksums = false;
  try {
    const sums = loadFolderSums(dir);
    if (sums) {
      checksums = true;
      for (const [name, s] of sums.files) {
        files++;
        const wrong = checkWholeFile(join(dir, name), s);
        if (wrong) note({ path: join(dir, name), problem: wrong });
      }
    }
  } catch (e) {
    note(damageOf(e, join(dir, SUMS_FILE)));
  }
  let meta;
  try {
    meta = readMeta(dir);
  } catch (e) {
    note(damageOf(e, join(dir, '_meta.json')));
    return { files, checksums, damaged };
  }
  const rows = meta.rows;
  for (const def of declared) {
    const stored = meta.columns.find((c) => c.name === def.name);
    if (!stored || stored.type !== def.type) {
      note({ path: join(dir, '_meta.json'), problem: `column ${def.name} is ${stored ? `stored as ${stored.type}` : 'not stored'}; schema.json declares ${def.type}` });
    }
  }
  for (const def of meta.columns) {
    // a column with a file its checksums already found damaged: its structure would only repeat that
    if (filesOf(def).some((f) => bad.has(join(dir, f)))) continue;
    try {
      checkColumn(dir, def, rows, (n) => (files += checksums ? 0 : n));
    } catch (e) {
      note(damageOf(e, join(dir, def.name)));
    }
  }
  if (meta.timeOrder && !bad.has(join(dir, TIME_ORDER_FILE))) {
    const path = join(dir, TIME_ORDER_FILE);
    try {
      const bytes = wholeFile(path);
      checkTimeOrder(path, bytes.byteLength, new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2), rows);
    } catch (e) {
      note(damageOf(e, path));
    }
  }
  // the import records' shape (their bytes were checked with the others)
  if (!bad.has(join(dir, IMPORTS_FILE))) {
    try {
      readImports(dir);
    } catch (e) {
      note(damageOf(e, join(dir, IMPORTS_FILE)));
    }
  }
  return { files, checksums, damaged };
}

/** A whole file, in a buffer aligned for typed-array views; a missing file is damage. */
function wholeFile(path: string): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new TickscopeError('badDatabase', `${path}: missing`);
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    const out = new Uint8Array(new ArrayBuffer(Math.ceil(size / 8) * 8), 0, size);
    for (let off = 0; off < size; ) {
      const n = readSync(fd, out, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

/** The files that store a column (partition-io.ts). */
function filesOf(def: ColumnDef): string[] {
  switch (def.type) {
    case 'float':
      return [`${def.name}.f64`];
    case 'long':
    case 'timestamp':
    case 'timespan':
      return [`${def.name}.i64`];
    case 'int':
    case 'date':
      return [`${def.name}.i32`];
    case 'boolean':
      return [`${def.name}.u8`];
    case 'symbol':
      return [`${def.name}.i32`, `${def.name}.dict.offsets.i32`, `${def.name}.dict.utf8`];
    case 'string':
      return [`${def.name}.offsets.i32`, `${def.name}.utf8`];
    case 'float[]':
      return [`${def.name}.offsets.i32`, `${def.name}.f64`];
    case 'long[]':
      return [`${def.name}.offsets.i32`, `${def.name}.i64`];
  }
}

const int32s = (b: Uint8Array): Int32Array => new Int32Array(b.buffer, b.byteOffset, b.byteLength >> 2);

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    throw new TickscopeError('badDatabase', `${path}: missing`);
  }
}

/** Checks the files of one column against the row count (sizes, offsets, codes within the dictionary); `counted(n)`: n files looked at. */
function checkColumn(dir: string, def: ColumnDef, rows: number, counted: (n: number) => void): void {
  const p = (suffix: string): string => join(dir, `${def.name}${suffix}`);
  const sized = (path: string, width: number): void => {
    const size = sizeOf(path);
    if (size !== rows * width) throw new TickscopeError('badDatabase', `${path}: ${size} bytes, _meta.json says ${rows} rows of ${width}`);
  };
  switch (def.type) {
    case 'float':
      counted(1);
      return sized(p('.f64'), 8);
    case 'long':
    case 'timestamp':
    case 'timespan':
      counted(1);
      return sized(p('.i64'), 8);
    case 'int':
    case 'date':
      counted(1);
      return sized(p('.i32'), 4);
    case 'boolean':
      counted(1);
      return sized(p('.u8'), 1);
    case 'symbol': {
      counted(3);
      sized(p('.i32'), 4);
      const offsetsPath = p('.dict.offsets.i32');
      const raw = wholeFile(offsetsPath);
      if (raw.byteLength % 4 !== 0 || raw.byteLength < 4) throw new TickscopeError('badDatabase', `${offsetsPath}: ${raw.byteLength} bytes, not a whole number of offsets`);
      const offsets = int32s(raw);
      checkOffsets(offsetsPath, offsets, sizeOf(p('.dict.utf8')), p('.dict.utf8'));
      checkCodes(p('.i32'), int32s(wholeFile(p('.i32'))), offsets.length - 1, 0, offsetsPath);
      return;
    }
    case 'string':
    case 'float[]':
    case 'long[]': {
      counted(2);
      const offsetsPath = p('.offsets.i32');
      const offsetsSize = sizeOf(offsetsPath);
      if (offsetsSize !== (rows + 1) * 4) throw new TickscopeError('badDatabase', `${offsetsPath}: ${offsetsSize} bytes, _meta.json says ${rows} rows (${(rows + 1) * 4} bytes of offsets)`);
      const values = def.type === 'string' ? p('.utf8') : def.type === 'float[]' ? p('.f64') : p('.i64');
      const size = sizeOf(values);
      checkOffsets(offsetsPath, int32s(wholeFile(offsetsPath)), def.type === 'string' ? size : size / 8, values);
      return;
    }
  }
}
