/**
 * Import…'s form as data (issue 30): per table column where its values come from (a source column, a
 * constant, a part of the file's path) and how they are read (scale, time unit and origin, case), made
 * into the mapping JSON `tickscope import --map` reads (docs/import.md), and the command line for it.
 */
import type { ColumnType, ImportColumnDoc, ImportMapDoc, ImportValueDoc, NewTableSpec } from '../../../engine/contract';

export type FromKind = 'none' | 'source' | 'constant' | 'path';
export type TimeUnit = '' | 's' | 'ms' | 'us' | 'ns';

/** One table column's row of the form. */
export interface ColumnForm {
  readonly from: FromKind;
  /** The source column: its position (as text) without a header, its name with one. */
  readonly source: string;
  readonly constant: string;
  readonly path: string;
  readonly pattern: string;
  readonly scale: string;
  readonly unit: TimeUnit;
  readonly since: 'epoch' | 'midnight';
  readonly dateFrom: 'path' | 'source' | 'constant';
  readonly dateSource: string;
  readonly datePath: string;
  readonly datePattern: string;
  readonly dateConstant: string;
  readonly case: '' | 'upper' | 'lower';
}

export const EMPTY_COLUMN: ColumnForm = {
  from: 'none',
  source: '',
  constant: '',
  path: '{dir}',
  pattern: '',
  scale: '',
  unit: '',
  since: 'epoch',
  dateFrom: 'path',
  dateSource: '',
  datePath: '{name}',
  datePattern: '^(\\d{8})',
  dateConstant: '',
  case: '',
};

/** The whole form but the files. */
export interface ImportForm {
  readonly table: string;
  readonly header: boolean;
  readonly zone: string;
  readonly columns: Readonly<Record<string, ColumnForm>>;
}

/** The types a new table's column may take in the form. */
export const NEW_COLUMN_TYPES: readonly ColumnType[] = ['timestamp', 'symbol', 'float', 'long', 'int', 'date', 'boolean', 'string', 'timespan'];

/** A source column as the mapping names it: its header name, or its position. */
function sourceRef(text: string, header: boolean): string | number {
  return header ? text : Number(text);
}

function valueDoc(kind: 'source' | 'constant' | 'path', f: { source: string; constant: string; path: string; pattern: string }, header: boolean): ImportValueDoc {
  if (kind === 'source') return { source: sourceRef(f.source, header) };
  if (kind === 'constant') return { constant: f.constant };
  return { path: f.path, ...(f.pattern ? { pattern: f.pattern } : {}) };
}

/** One column's mapping item, or undefined when it is left null (or not filled in enough to read). */
export function columnDoc(c: ColumnForm, header: boolean): ImportColumnDoc | undefined {
  if (c.from === 'none') return undefined;
  if (c.from === 'source' && c.source === '') return undefined;
  if (c.from === 'path' && c.path === '') return undefined;
  const scale = c.scale.trim() === '' ? undefined : Number(c.scale);
  const date = c.unit && c.since === 'midnight' ? { date: valueDoc(c.dateFrom, { source: c.dateSource, constant: c.dateConstant, path: c.datePath, pattern: c.datePattern }, header) } : {};
  const time: Partial<ImportColumnDoc> = c.unit ? { unit: c.unit, since: c.since, ...date } : {};
  return {
    ...valueDoc(c.from, c, header),
    ...(scale !== undefined ? { scale: Number.isFinite(scale) ? scale : (c.scale as unknown as number) } : {}),
    ...time,
    ...(c.case ? { case: c.case } : {}),
  };
}

/** The mapping JSON of the form, columns in the table's order. */
export function mapDoc(f: ImportForm, tableColumns: readonly string[]): ImportMapDoc {
  const columns: Record<string, ImportColumnDoc> = {};
  for (const name of tableColumns) {
    const c = f.columns[name];
    const doc = c ? columnDoc(c, f.header) : undefined;
    if (doc) columns[name] = doc;
  }
  return { table: f.table, header: f.header, zone: f.zone || 'UTC', columns };
}

/** A path quoted for a POSIX shell when it needs it. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command line that imports the same files with the mapping saved as mapping.json. */
export function cliLine(dbDir: string, paths: readonly string[]): string {
  return ['npx tickscope import --db', shellQuote(dbDir || 'DB'), '--map mapping.json', ...(paths.length ? paths.map(shellQuote) : ['PATHS'])].join(' ');
}

/** The paths typed in the field: one per line (blank lines left out). */
export function splitPaths(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** A new table's spec from its name and columns; its time and identifier columns those chosen, else the first timestamp and the first symbol. */
export function newTableSpec(name: string, columns: ReadonlyArray<{ name: string; type: ColumnType }>, time = '', id = ''): NewTableSpec {
  const pick = (chosen: string, type: ColumnType): string => (columns.some((c) => c.name === chosen && c.type === type) ? chosen : (columns.find((c) => c.type === type)?.name ?? ''));
  return { name, columns, timeColumn: pick(time, 'timestamp'), idColumn: pick(id, 'symbol') };
}

/** A column name made from a source column's (letters, digits and _; `c0` for a position). */
export function columnName(source: string, header: boolean): string {
  if (!header) return `c${source}`;
  const n = source.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(n) ? n : `c_${n}`;
}

/** Bytes as text (1.2 MB). */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[u]}`;
}
