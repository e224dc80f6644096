/**
 * The databases the app opened itself (Open database…): checked when asked for, remembered in the
 * user data folder (`databases.json`) and mounted again at the next launch. A folder that cannot be
 * opened then is said on standard error and kept in the list (a disk not mounted yet comes back).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { MountedDatabase } from '../contract.js';
import { TickscopeError } from '../core/errors.js';
import { writeJsonAtomic } from '../storage/database.js';
import { KdbSource } from '../storage/kdb/source.js';
import type { Mounted, MountSpec } from '../storage/mount.js';
import { isWritable } from '../storage/source.js';

/** The list's file in a user data folder. */
export const REMEMBERED_FILE = 'databases.json';

/** What the app asked to open, checked: a folder path and a kdb+ settings file, both absolute. */
export function checkOpenSpec(x: unknown): MountSpec {
  const o = (x && typeof x === 'object' && !Array.isArray(x) ? x : {}) as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== 'dir' && k !== 'kdbSettings') throw new TickscopeError('badRequest', `open database: ${JSON.stringify(k)} is not a field; expected dir and (for a kdb+ database) kdbSettings`);
  }
  const dir = o['dir'];
  if (typeof dir !== 'string' || dir.trim() === '') throw new TickscopeError('missingArgument', 'dir: the database folder to open is required (a Tickscope database or a kdb+ one)');
  const settings = o['kdbSettings'];
  if (settings !== undefined && settings !== '' && typeof settings !== 'string') throw new TickscopeError('badRequest', `kdbSettings: ${JSON.stringify(settings)} is not a file path`);
  return { dir: resolve(dir.trim()), ...(typeof settings === 'string' && settings.trim() ? { kdbSettings: resolve(settings.trim()) } : {}) };
}

/** The remembered list (empty when there is none; a damaged file is said and read as empty, never fatal). */
export function readRemembered(file: string): MountSpec[] {
  if (!existsSync(file)) return [];
  try {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { databases?: unknown };
    return Array.isArray(doc.databases) ? doc.databases.map(checkOpenSpec) : [];
  } catch (e) {
    console.error(`tickscope: ${file}: the databases opened last time could not be read (${(e as Error).message}); starting without them`);
    return [];
  }
}

export function writeRemembered(file: string, specs: readonly MountSpec[]): void {
  mkdirSync(dirname(file), { recursive: true });
  writeJsonAtomic(file, { databases: specs });
}

/** What the connection list shows of a mounted database. */
export function mountedInfo(db: Mounted, opened: boolean): MountedDatabase {
  return {
    name: db.name,
    dir: db.dir,
    kind: db.kind,
    readOnly: !isWritable(db),
    kdbSettings: db instanceof KdbSource ? (db.settingsFile ?? null) : null,
    opened,
  };
}
