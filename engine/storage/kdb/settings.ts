/**
 * The settings of a kdb+ database (SPEC 11): a JSON file the user names (`--db DIR --kdb-settings
 * FILE`, or chosen in the app's Open database…), never a file inside the kdb+ folder, which Tickscope
 * never writes. docs/kdb.md shows one.
 *
 *   {
 *     "name": "hdb",                          the assembly's name (default: the folder's name)
 *     "zone": "UTC",                          the zone the database's dates and times are wall-clock times of
 *     "tables": {"trade": "Trade"},           aliases: a table's name on disk -> the name Tickscope shows
 *     "timeColumns": {"trade": "time"},       a table's time column, where the first timestamp is not it
 *     "intPartitions": true,                  four-digit partition folders are ints, not years
 *     "roles": {...}, "analytics": {...}, ... the config.json items of SPEC 3.2
 *   }
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { environmentError, TickscopeError } from '../../core/errors.js';
import { expectedZone, isKnownZone } from '../../core/tz.js';
import { configFromJson } from '../config.js';
import type { KdbSettings } from './source.js';

/** The largest settings file read (1 MiB: a few kB is usual). */
const MAX_SETTINGS_BYTES = 1 << 20;

/** The settings' own items; everything else is a config.json item. */
const OWN = ['name', 'zone', 'tables', 'timeColumns', 'intPartitions'] as const;
const CONFIG_ITEMS = ['filterRules', 'idMap', 'timeColBuffer', 'analytics', 'summaryFunctions', 'defaultSummaryFunctions', 'weekendDays', 'compositeTickerMap', 'mapToCompositeTicker', 'roles'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A record of names -> names (`tables`, `timeColumns`), or an error naming the item. */
function names(doc: Record<string, unknown>, item: string, where: string): Record<string, string> | undefined {
  const v = doc[item];
  if (v === undefined) return undefined;
  if (!isRecord(v) || !Object.values(v).every((x) => typeof x === 'string' && x !== '')) {
    throw new TickscopeError('badConfig', `${where}: ${item} must be an object of table name -> name (non-empty strings), got ${JSON.stringify(v)}`);
  }
  return v as Record<string, string>;
}

/** Reads a settings file; a file that cannot be read or is not valid says which item is at fault. */
export function readKdbSettings(file: string): KdbSettings & { readonly file: string } {
  const path = resolve(file);
  let text: string;
  try {
    // a settings file is a few kB: a device, a folder or a huge file is refused before anything is read
    const st = statSync(path);
    if (!st.isFile()) throw new TickscopeError('badConfig', `kdb+ settings ${path}: not a file`);
    if (st.size > MAX_SETTINGS_BYTES) throw new TickscopeError('badConfig', `kdb+ settings ${path}: ${st.size} bytes; a settings file is at most ${MAX_SETTINGS_BYTES} bytes`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof TickscopeError) throw e;
    throw environmentError(e, `reading the kdb+ settings ${path}`) ?? new TickscopeError('badConfig', `kdb+ settings ${path}: cannot be read (${(e as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new TickscopeError('badConfig', `kdb+ settings ${path}: not JSON (${(e as Error).message})`);
  }
  return kdbSettingsFromJson(doc, path);
}

/** Settings from their JSON document; `where` names the file in errors. */
export function kdbSettingsFromJson(doc: unknown, where: string): KdbSettings & { readonly file: string } {
  const at = `kdb+ settings ${where}`;
  if (!isRecord(doc)) throw new TickscopeError('badConfig', `${at}: must be a JSON object`);
  for (const k of Object.keys(doc)) {
    if (!(OWN as readonly string[]).includes(k) && !CONFIG_ITEMS.includes(k)) {
      throw new TickscopeError('badConfig', `${at}: ${k} is not a setting; expected one of ${[...OWN, ...CONFIG_ITEMS].join(', ')}`);
    }
  }
  const name = doc['name'];
  if (name !== undefined && (typeof name !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(name))) {
    throw new TickscopeError('badConfig', `${at}: name must be an assembly name (letters, digits, _ . -), got ${JSON.stringify(name)}`);
  }
  const zone = doc['zone'];
  if (zone !== undefined && (typeof zone !== 'string' || !isKnownZone(zone))) {
    throw new TickscopeError('badConfig', `${at}: zone ${JSON.stringify(zone)} is not a known time zone; expected ${typeof zone === 'string' ? expectedZone(zone) : 'an IANA zone name such as UTC or Asia/Shanghai'}`);
  }
  const ints = doc['intPartitions'];
  if (ints !== undefined && typeof ints !== 'boolean') throw new TickscopeError('badConfig', `${at}: intPartitions must be true or false (four-digit partition folders are ints, not years), got ${JSON.stringify(ints)}`);
  const tables = names(doc, 'tables', at);
  const timeColumns = names(doc, 'timeColumns', at);
  const configDoc = Object.fromEntries(Object.entries(doc).filter(([k]) => CONFIG_ITEMS.includes(k)));
  // analytics not given are made from the roles (source.ts), not the standard tables' defaults
  const config = Object.keys(configDoc).length > 0 ? configFromJson(configDoc, at) : undefined;
  const own = config && doc['analytics'] === undefined ? { ...config, analytics: {} } : config; // not an argument: a config item
  return {
    file: where,
    ...(name !== undefined ? { name: name as string } : {}),
    ...(zone !== undefined ? { zone: zone as string } : {}),
    ...(ints !== undefined ? { intPartitions: ints } : {}),
    ...(tables ? { tables } : {}),
    ...(timeColumns ? { timeColumns } : {}),
    ...(own ? { config: own } : {}),
  };
}
