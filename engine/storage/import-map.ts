/**
 * A mapped import (SPEC 8, issue 30): how the columns of a user's files become a table's. The same
 * JSON the app's Import… writes and `tickscope import --map FILE` reads; docs/import.md shows one.
 *
 *   {
 *     "table": "Trade",
 *     "header": false,                       CSV: the first row names the columns (default true)
 *     "zone": "America/New_York",            the zone of times written without one (default UTC)
 *     "columns": {
 *       "eventTimestamp": { "source": 0, "unit": "ms", "since": "midnight",
 *                           "date": { "path": "{name}", "pattern": "^(\\d{8})" } },
 *       "instrumentID":   { "path": "{dir}", "case": "upper" },
 *       "price":          { "source": 1, "scale": 0.0001 },
 *       "volume":         { "source": 2 },
 *       "conditions":     { "constant": "" }
 *     }
 *   }
 *
 * Per table column: a `source` column (its name, or its 0-based position in a file without a header),
 * a `constant`, or a `path` template (`{dir}` the file's folder, `{parent}` the folder above it,
 * `{name}` its name without extension, `{file}` with it), cut by a `pattern` whose first group is
 * kept. Numbers may be scaled (`scale`); a number may be a time in a `unit` (s, ms, us, ns) `since`
 * the Unix epoch or midnight of a `date` (itself a source, constant or path: `20131008`,
 * `2013-10-08` or `2013.10.08`), a wall-clock time of the zone. Table columns it does not name are
 * null; source columns it does not name are skipped.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { TickscopeError } from '../core/errors.js';
import { expectedZone, isKnownZone } from '../core/tz.js';

/** Where a column's values come from. */
export type ValueFrom =
  | { readonly kind: 'source'; readonly source: string | number }
  | { readonly kind: 'constant'; readonly value: string }
  | { readonly kind: 'path'; readonly template: string; readonly pattern?: RegExp };

/** A number read as a time: its unit and what it counts from. */
export interface TimeUnits {
  readonly unit: 's' | 'ms' | 'us' | 'ns';
  readonly since: 'epoch' | 'midnight';
  /** `since: midnight`: the date whose midnight (in the map's zone) the times count from. */
  readonly date?: ValueFrom;
}

/** How one table column is made. */
export interface ColumnMap {
  readonly from: ValueFrom;
  /** Multiplies a number (a price stored × 10,000: 0.0001). */
  readonly scale?: number;
  readonly time?: TimeUnits;
  /** Text cased as it is stored (a symbol from a lower-case folder name). */
  readonly case?: 'upper' | 'lower';
}

export interface ImportMap {
  readonly table: string;
  readonly header: boolean;
  readonly zone: string;
  readonly columns: ReadonlyMap<string, ColumnMap>;
}

const UNITS = ['s', 'ms', 'us', 'ns'] as const;
/** Nanoseconds in one of each unit. */
export const UNIT_NS: Readonly<Record<TimeUnits['unit'], bigint>> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };
const TEMPLATE_PARTS = ['dir', 'parent', 'name', 'file'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a mapping's JSON document; `where` names it in errors (the file, or "the mapping"). */
export function importMapFromJson(doc: unknown, where: string): ImportMap {
  const fail = (item: string, msg: string): never => {
    throw new TickscopeError('badRequest', `${where}: ${item} ${msg}`);
  };
  if (!isRecord(doc)) return fail('document', 'must be a JSON object with "table" and "columns"');
  for (const k of Object.keys(doc)) if (!['table', 'header', 'zone', 'columns'].includes(k)) fail(k, 'is not an item of a mapping; expected table, header, zone, columns');
  const table = doc['table']; // not an argument: a mapping item
  if (typeof table !== 'string' || table === '') fail('table', 'must name the table the rows go to');
  const header = doc['header'] ?? true;
  if (typeof header !== 'boolean') fail('header', `must be true (the first row names the columns) or false, got ${JSON.stringify(header)}`);
  const zone = doc['zone'] ?? 'UTC';
  if (typeof zone !== 'string' || !isKnownZone(zone)) fail('zone', `${JSON.stringify(zone)} is not a known time zone; expected ${typeof zone === 'string' ? expectedZone(zone) : 'an IANA zone name'}`);
  const cols = doc['columns']; // not an argument: a mapping item
  if (!isRecord(cols) || Object.keys(cols).length === 0) fail('columns', 'must be an object of table column -> {source | constant | path, ...}');
  const columns = new Map<string, ColumnMap>();
  for (const [name, spec] of Object.entries(cols as Record<string, unknown>)) columns.set(name, columnMap(spec, `columns.${name}`, fail, header as boolean));
  return { table: table as string, header: header as boolean, zone: zone as string, columns };
}

function valueFrom(spec: Record<string, unknown>, at: string, fail: (item: string, msg: string) => never, header: boolean): ValueFrom {
  const given = ['source', 'constant', 'path'].filter((k) => spec[k] !== undefined);
  if (given.length !== 1) fail(at, `needs exactly one of source, constant or path${given.length ? `, not ${given.join(' and ')}` : ''}`);
  if (spec['source'] !== undefined) {
    const s = spec['source'];
    if (typeof s === 'number') {
      if (!Number.isInteger(s) || s < 0) fail(`${at}.source`, `${s} is not a column position (0, 1, 2, ...)`);
    } else if (typeof s !== 'string' || s === '') fail(`${at}.source`, 'must be a column name, or a 0-based position in a file without a header');
    else if (!header) fail(`${at}.source`, `${JSON.stringify(s)} names a column, but the files have no header ("header": false): give its position (0, 1, ...)`);
    return { kind: 'source', source: s as string | number };
  }
  if (spec['constant'] !== undefined) {
    const c = spec['constant'];
    if (typeof c !== 'string' && typeof c !== 'number' && typeof c !== 'boolean') fail(`${at}.constant`, 'must be a value as text, a number or true/false');
    return { kind: 'constant', value: String(c) };
  }
  const template = spec['path'];
  if (typeof template !== 'string' || template === '') return fail(`${at}.path`, 'must be a template of {dir}, {parent}, {name}, {file} and text');
  for (const m of template.matchAll(/\{([^}]*)\}/g)) {
    if (!(TEMPLATE_PARTS as readonly string[]).includes(m[1]!)) fail(`${at}.path`, `{${m[1]}} is not a part of a path; expected {dir}, {parent}, {name} or {file}`);
  }
  const p = spec['pattern'];
  if (p === undefined) return { kind: 'path', template };
  if (typeof p !== 'string') return fail(`${at}.pattern`, 'must be a regular expression whose first group is kept');
  let pattern: RegExp;
  try {
    pattern = new RegExp(p);
  } catch (e) {
    return fail(`${at}.pattern`, `is not a regular expression (${(e as Error).message})`);
  }
  return { kind: 'path', template, pattern };
}

function columnMap(spec: unknown, at: string, fail: (item: string, msg: string) => never, header: boolean): ColumnMap {
  if (!isRecord(spec)) return fail(at, 'must be an object such as {"source": "price"}, {"constant": "XNYS"} or {"path": "{dir}"}');
  for (const k of Object.keys(spec)) {
    if (!['source', 'constant', 'path', 'pattern', 'scale', 'unit', 'since', 'date', 'case'].includes(k)) fail(`${at}.${k}`, 'is not an item of a column; expected source, constant, path, pattern, scale, unit, since, date, case');
  }
  const from = valueFrom(spec, at, fail, header);
  if (spec['pattern'] !== undefined && from.kind !== 'path') fail(`${at}.pattern`, 'cuts a path template; give it with "path"');
  const scale = spec['scale'];
  if (scale !== undefined && (typeof scale !== 'number' || !Number.isFinite(scale) || scale === 0)) fail(`${at}.scale`, `${JSON.stringify(scale)} is not a non-zero number (0.0001 for prices stored × 10,000)`);
  const c = spec['case'];
  if (c !== undefined && c !== 'upper' && c !== 'lower') fail(`${at}.case`, `${JSON.stringify(c)}: expected "upper" or "lower"`);
  let time: TimeUnits | undefined;
  if (spec['unit'] !== undefined || spec['since'] !== undefined || spec['date'] !== undefined) {
    const unit = spec['unit'];
    if (!(UNITS as readonly unknown[]).includes(unit)) fail(`${at}.unit`, `${JSON.stringify(unit)}: expected s, ms, us or ns`);
    const since = spec['since'] ?? 'epoch';
    if (since !== 'epoch' && since !== 'midnight') fail(`${at}.since`, `${JSON.stringify(since)}: expected "epoch" (1970-01-01) or "midnight" (of "date", in the mapping's zone)`);
    let date: ValueFrom | undefined;
    if (since === 'midnight') {
      if (!isRecord(spec['date'])) fail(`${at}.date`, 'is needed with "since": "midnight": the date whose midnight the times count from, e.g. {"path": "{name}", "pattern": "^(\\\\d{8})"}');
      date = valueFrom(spec['date'] as Record<string, unknown>, `${at}.date`, fail, header);
    } else if (spec['date'] !== undefined) fail(`${at}.date`, 'is used with "since": "midnight" only');
    time = { unit: unit as TimeUnits['unit'], since, ...(date ? { date } : {}) };
  }
  return { from, ...(scale !== undefined ? { scale: scale as number } : {}), ...(time ? { time } : {}), ...(c ? { case: c as 'upper' | 'lower' } : {}) };
}

/** A path template's text for a file (its pattern's first group when it has one), or an error naming the file. */
export function pathValue(from: Extract<ValueFrom, { kind: 'path' }>, file: string, at: string): string {
  const parts: Record<string, string> = {
    dir: basename(dirname(file)),
    parent: basename(dirname(dirname(file))),
    name: basename(file, extname(file)),
    file: basename(file),
  };
  const text = from.template.replace(/\{(dir|parent|name|file)\}/g, (_, k: string) => parts[k]!);
  if (!from.pattern) return text;
  const m = from.pattern.exec(text);
  if (!m) throw new TickscopeError('importFailed', `${file}: ${at}: ${JSON.stringify(text)} (from ${from.template}) does not match ${from.pattern.source}`);
  return m[1] ?? m[0];
}

/** Days since 1970-01-01 of a date written `20131008`, `2013-10-08` or `2013.10.08`, or undefined. */
export function dateDays(text: string): number | undefined {
  const m = /^(\d{4})[-.]?(\d{2})[-.]?(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  return back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? ms / 86_400_000 : undefined;
}

/** Reads a mapping file (a few kB: a device, a folder or a huge file is refused before it is read). */
export function readImportMap(file: string): ImportMap {
  const path = resolve(file);
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > 1 << 20) throw new TickscopeError('badRequest', `--map ${file}: ${st.isFile() ? `${st.size} bytes; a mapping is at most 1 MiB` : 'not a file'}`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof TickscopeError) throw e;
    throw new TickscopeError('badRequest', `--map ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new TickscopeError('badRequest', `--map ${file}: not JSON (${(e as Error).message})`);
  }
  return importMapFromJson(doc, file);
}
