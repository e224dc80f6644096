/**
 * A database folder mounted as an assembly (`--db DIR`, the app's Open database…), whichever kind it
 * is: a Tickscope database (its schema.json) or a kdb+ database read in place (SPEC 11: recognised by
 * its layout, with an optional settings file). The executor's workers open the same folders again
 * from their specs, so a spec is all that crosses threads.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TickscopeError } from '../core/errors.js';
import { Database } from './database.js';
import { readKdbSettings } from './kdb/settings.js';
import { KdbSource } from './kdb/source.js';
import type { Source } from './source.js';

/** A folder to mount, and the settings file of a kdb+ database. */
export interface MountSpec {
  readonly dir: string;
  /** The JSON settings of a kdb+ database (SPEC 11); refused for a Tickscope database, which has config.json. */
  readonly kdbSettings?: string;
}

/** A mounted source and the spec it was opened by. */
export type Mounted = Source & { readonly dir: string };

/** How sources are opened (the executor's workers size the column cache). */
export interface MountOptions {
  readonly cacheBytes?: number;
}

/** The kind of database a folder holds, by its contents; undefined when it is neither. */
export function databaseKindAt(dir: string): 'tickscope' | 'kdb' | undefined {
  const root = resolve(dir);
  if (existsSync(join(root, 'schema.json')) || existsSync(join(root, 'manifest.json'))) return 'tickscope';
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return undefined;
  }
  // SPEC 11: a par.txt, partition folders (dates, months, years, ints), splayed tables (a .d) or a sym file at the root
  if (entries.includes('par.txt') || entries.includes('sym')) return 'kdb';
  for (const e of entries) {
    if (!/^\d+(\.\d{2}){0,2}$/.test(e) && !existsSync(join(root, e, '.d'))) continue;
    try {
      if (statSync(join(root, e)).isDirectory()) return 'kdb';
    } catch {
      // gone while looked at
    }
  }
  return undefined;
}

/** Opens a mount: a Tickscope database or a kdb+ one, told apart by their contents. */
export function openMount(spec: MountSpec, opts: MountOptions = {}): Mounted {
  const kind = databaseKindAt(spec.dir);
  if (kind === 'kdb') {
    const settings = spec.kdbSettings ? readKdbSettings(spec.kdbSettings) : {};
    return KdbSource.open(spec.dir, { ...settings, ...(opts.cacheBytes !== undefined ? { cacheBytes: opts.cacheBytes } : {}) });
  }
  if (spec.kdbSettings) {
    throw new TickscopeError('badRequest', `--kdb-settings ${spec.kdbSettings}: ${resolve(spec.dir)} is not a kdb+ database; a Tickscope database's settings are its config.json`);
  }
  if (kind === undefined && existsSync(spec.dir) && !existsSync(join(spec.dir, 'schema.json'))) {
    let empty = false;
    try {
      empty = statSync(spec.dir).isDirectory() && readdirSync(spec.dir).length === 0;
    } catch {
      // Database.open says what is wrong
    }
    if (!empty) {
      throw new TickscopeError(
        'badDatabase',
        `${resolve(spec.dir)} is neither a Tickscope database (no schema.json; create one with: tickscope init --db ${spec.dir}) nor a kdb+ database (no sym file, par.txt, partition folders such as 2024.03.06, or splayed tables)`,
      );
    }
  }
  return Database.open(spec.dir, opts);
}

/** The spec a mounted source is opened again by (in the executor's workers, at the app's next launch). */
export function specOf(source: Mounted): MountSpec {
  return source instanceof KdbSource && source.settingsFile ? { dir: source.dir, kdbSettings: source.settingsFile } : { dir: source.dir };
}
