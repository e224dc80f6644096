/**
 * A kdb+ database folder read in place as a Source (storage/source.ts, SPEC 11), never written: its
 * layout found by layout.ts, its tables' partitions read through partition.ts, its symbol columns
 * sharing the root's domains (domain.ts).
 *
 * - Tables: each under its own name (case as on disk). A partitioned table's columns are the `.d`
 *   order of the newest partition holding it (as q takes a table's columns), typed from the newest
 *   file of each column (an older file of a narrower type widened where q widens: int to long or float)
 *   (a column no partition has a file for, or a nested column of no Tickscope type, is left out),
 *   after the virtual `date` column. A splayed table at the root, or a table written whole there (a
 *   serialized q table, keyed or not: read whole at the scan), is a reference table.
 * - Time column: the first timestamp column; else the first time-of-day column (timespan, time,
 *   second, minute) read as a timestamp (the partition's date plus the time of day, keeping its
 *   name); else the virtual `date` column itself, as a timestamp at midnight.
 * - Identifier column: the left-most symbol column (enumerated or char).
 * - Partitions: Tickscope's keys are UTC days of the time column; a kdb+ date partition is a q date of
 *   the database's zone. With the zone UTC (the default) they agree, as long as q put each row in the
 *   partition of its own date (an end-of-day save does), and a date's folder is its partition, read
 *   in place. Month, year and int folders, a date in several `par.txt` segments, and the dates of a
 *   database in another zone (its times read as instants, core/wall-clock.ts; each date straddles two UTC days)
 *   are split into days by their time column and gathered (days.ts).
 * - Roles: from the settings' config when it gives them, else guessed from common kdb+ names
 *   (`price`, `size`, `bid`, `ask`, `bsize`/`bidSize`, `asize`/`askSize`, `ex`/`exchange`): the trades
 *   table holds price and size, the quotes table bid and ask (guessRoles).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { ColumnType } from '../../core/column.js';
import { TickscopeError } from '../../core/errors.js';
import { type ColumnDef, Table } from '../../core/table.js';
import { expectedZone, isKnownZone } from '../../core/tz.js';
import { type Config, defaultConfig, tradeAnalyticsOf } from '../config.js';
import type { RowSource } from '../row-source.js';
import type { ColumnRole, RolesConfig } from '../roles.js';
import { defaultIdColumn, type Schema, type TableSchema } from '../schema.js';
import type { Source } from '../source.js';
import { openColumn } from './column.js';
import { Domains } from './domain.js';
import type { KdbReadOptions } from './io.js';
import { type KdbLayout, type PartitionFolder, type PartitionKind, scanLayout } from './layout.js';
import { dayIndex, type FolderRows, gathered } from './days.js';
import { isUtcDatabase, wallToInstants } from '../../core/wall-clock.js';
import { KdbPartition, type KdbTableInfo } from './partition.js';
import { readColumnNames, readObject } from './object.js';

/** How a kdb+ database is read (SPEC 11's settings file, the parts read so far). */
export interface KdbSettings {
  /** The assembly's name (the folder's name unless given). */
  readonly name?: string;
  /** The zone the database's dates and times are wall-clock times of (IANA name; default UTC). */
  readonly zone?: string;
  /** Aliases: a table's name on disk -> the name it is shown and queried by (`trade` -> `Trade`). */
  readonly tables?: Readonly<Record<string, string>>;
  /** Four-digit partition folders are ints, not years. */
  readonly intPartitions?: boolean;
  /** A table's time column (by its shown or disk name), where the first timestamp column is not it. */
  readonly timeColumns?: Readonly<Record<string, string>>;
  /**
   * The config.json items of SPEC 3.2; roles left null are guessed from column names, and the trades
   * table's named analytics (vwap, turnover, twap, tradeCount) made from its roles unless given.
   */
  readonly config?: Config;
  /** The settings file these came from (workers open the database again by it; info and the app name it). */
  readonly file?: string;
  /** How files are read (the decompressed-block cache). */
  readonly read?: KdbReadOptions;
  /** Bytes of columns read whole that the partitions kept open may hold (default 1 GiB; the executor's cacheBytes). */
  readonly cacheBytes?: number;
}

/** The name of the virtual partition column of a date-partitioned database. */
export const DATE_COLUMN = 'date';

/**
 * Partitions kept open (files, columns read whole) by recency, at most this many and, beyond the most
 * recent one, at most `cacheBytes` of columns read whole (default DEFAULT_KEPT_BYTES): a query holds
 * those it reads; others are opened again when asked for.
 */
const KEPT_PARTITIONS = 16;
const DEFAULT_KEPT_BYTES = 1024 * 1024 * 1024;
/** Folders of a table whose rows the table list counts when asked (more: not counted until read). */
const COUNTED_AT_ONCE = 32;


/** Column names (lower case) -> the role they are guessed to play. */
const GUESSES: ReadonlyArray<readonly [ColumnRole, readonly string[]]> = [
  ['price', ['price']],
  ['size', ['size']],
  ['bid', ['bid']],
  ['ask', ['ask']],
  ['bidSize', ['bsize', 'bidsize']],
  ['askSize', ['asize', 'asksize']],
  ['exchange', ['ex', 'exchange']],
];
const NUMERIC = new Set<ColumnType>(['float', 'long', 'int']);

/**
 * Roles guessed from common kdb+ column names: each partitioned table's columns that fit a role (a
 * number, a symbol for the exchange); the trades table is one holding price and size, the quotes
 * table one holding bid and ask (a table named trade or quote first, then by name).
 */
export function guessRoles(schema: Schema): RolesConfig {
  const columns: Record<string, Partial<Record<ColumnRole, string>>> = {};
  const tables = [...schema.tables.values()].filter((t) => t.kind === 'partitioned');
  for (const t of tables) {
    const own: Partial<Record<ColumnRole, string>> = {};
    for (const [role, names] of GUESSES) {
      const c = t.columns.find((d) => names.includes(d.name.toLowerCase()) && (role === 'exchange' ? d.type === 'symbol' : NUMERIC.has(d.type)));
      if (c) own[role] = c.name;
    }
    if (Object.keys(own).length > 0) columns[t.name] = own;
  }
  const pick = (want: string, needs: readonly ColumnRole[]): string | undefined => {
    const fits = tables.filter((t) => needs.every((r) => columns[t.name]?.[r] !== undefined)).map((t) => t.name);
    fits.sort((a, b) => Number(b.toLowerCase() === want) - Number(a.toLowerCase() === want) || (a < b ? -1 : a > b ? 1 : 0));
    return fits[0];
  };
  const trades = pick('trade', ['price', 'size']);
  const quotes = pick('quote', ['bid', 'ask']);
  return { ...(trades ? { trades } : {}), ...(quotes ? { quotes } : {}), columns };
}

/** The table's columns as its `.d` lists them, each typed from the first folder holding its file. */
function columnsOf(name: string, dirs: readonly string[], domains: Domains, options: KdbReadOptions): ColumnDef[] {
  // as q does: the newest partition's .d (columns added later are there; older partitions read them as
  // nulls) and each column's type from the newest file of it (an older, narrower one is widened)
  const newest = [...dirs].reverse();
  const names = readColumnNames(join(newest[0]!, '.d'), options);
  const out: ColumnDef[] = [];
  for (const c of names) {
    for (const dir of newest) {
      const path = join(dir, c);
      if (!existsSync(path)) continue;
      const type = openColumn(path, { ...options, domain: domains, name: `${name}.${c}` }).type;
      if (type) out.push({ name: c, type });
      break;
    }
  }
  return out;
}

/** A partitioned table's schema and how its columns map to files (SPEC 11's time and identifier columns). */
function partitionedTable(name: string, dirs: readonly string[], domains: Domains, options: KdbReadOptions, kind: PartitionKind, chosen?: { column: string; where: string }): KdbTableInfo {
  const own = columnsOf(name, dirs, domains, options);
  // the virtual partition column, named as q names it
  const part = kind;
  if (own.some((c) => c.name === part)) {
    throw new TickscopeError('badDatabase', `kdb+ table ${dirs[0]}: a column named ${part}, the name of the virtual partition column`);
  }
  let stamp = own.find((c) => c.type === 'timestamp');
  // a time of day is joined to a date partition's date only
  let ofDay = stamp || kind !== 'date' ? undefined : own.find((c) => c.type === 'timespan');
  if (chosen && chosen.column !== part) {
    const c = own.find((d) => d.name === chosen.column);
    const ofDayOk = kind === 'date';
    if (!c || (c.type !== 'timestamp' && (c.type !== 'timespan' || !ofDayOk))) {
      const fits = own.filter((d) => d.type === 'timestamp' || (ofDayOk && d.type === 'timespan')).map((d) => d.name);
      throw new TickscopeError(
        'badConfig',
        `${chosen.where}: timeColumns.${name} ${JSON.stringify(chosen.column)} is ${c ? `a ${c.type} column` : 'not a column of the table'}; expected a timestamp${ofDayOk ? ' or time-of-day' : ''} column (${[...(kind === 'int' ? [] : [part]), ...fits].join(', ')})`,
      );
    }
    stamp = c.type === 'timestamp' ? c : undefined;
    ofDay = c.type === 'timespan' ? c : undefined;
  } else if (chosen) {
    stamp = ofDay = undefined;
  }
  // without a timestamp or time of day: the partition column, at midnight of its date, month or year
  // (an int is no time: such a table has no time column and is read whole)
  const timeColumn = stamp?.name ?? ofDay?.name ?? (kind === 'int' ? undefined : part);
  const columns: ColumnDef[] = [
    { name: part, type: timeColumn === part ? 'timestamp' : kind === 'date' || kind === 'month' ? 'date' : 'int' },
    ...own.map((c): ColumnDef => (c === ofDay ? { name: c.name, type: 'timestamp' } : c)),
  ];
  const idColumn = own.find((c) => c.type === 'symbol')?.name ?? defaultIdColumn(columns);
  return {
    schema: { name, kind: 'partitioned', columns, ...(timeColumn ? { timeColumn } : {}), idColumn, foreignKeys: {} },
    dateColumn: part,
    ...(ofDay ? { ofDay: ofDay.name } : {}),
  };
}

/** Bytes a kept partition holds in columns read whole (a gathered day: all its rows). */
function heldBytes(p: RowSource): number {
  return (p as { heldBytes?: () => number }).heldBytes?.() ?? 0;
}

/** A table held in memory (one written whole) as the rows of a reference table. */
function heldRows(table: Table): RowSource {
  return { rows: table.length, idRanges: new Map(), column: (name: string) => table.col(name) };
}

/** A splayed table at the root: a reference table, read whole. */
function referenceTable(name: string, dir: string, domains: Domains, options: KdbReadOptions): KdbTableInfo {
  const columns = columnsOf(name, [dir], domains, options);
  return { schema: { name, kind: 'reference', columns, idColumn: defaultIdColumn(columns), foreignKeys: {} } };
}

/**
 * The named analytics of the trades table (SPEC 3.2's vwap, turnover, twap, tradeCount), written with
 * its price and size roles: what the standard Trade table has, for a table whose columns are named otherwise.
 */
function tradeAnalytics(schema: Schema, roles: RolesConfig): Config['analytics'] { // not an argument: a config item
  const table = roles.trades;
  const cols = table ? roles.columns?.[table] : undefined;
  const price = cols?.price;
  const size = cols?.size;
  if (!table || !price || !size || !schema.tables.has(table)) return {};
  return { [table]: tradeAnalyticsOf(price, size) };
}

export class KdbSource implements Source {
  readonly kind = 'kdb';
  readonly name: string;
  readonly config: Config;
  private domains!: Domains;
  private readonly options: KdbReadOptions;
  private layout!: KdbLayout;
  private infos = new Map<string, KdbTableInfo>();
  private current!: Schema;
  /** The root's entries (and its files' sizes and times) when last scanned (a refresh that finds the same skips the rest). */
  private seen = '';
  private readonly parts = new Map<string, RowSource>();
  /** Rows of each table folder counted so far (by folder, since the last scan). */
  private readonly counted = new Map<string, number>();
  /** The UTC days of each table partitioned by month, year or int (built when first asked for). */
  private readonly dayIndexes = new Map<string, Map<string, FolderRows[]>>();
  /** The zone its times are wall-clock times of, when not UTC (they are read as instants, core/wall-clock.ts). */
  private readonly wallZone: string | undefined;
  /** Tables written whole at the root, read at the scan (shown name -> its file and table). */
  private wholeTables = new Map<string, { readonly path: string; readonly table: Table; readonly qTypes: readonly number[] }>();
  /** A table's shown name -> its name on disk (the settings' aliases). */
  private onDisk = new Map<string, string>();
  /** The settings file, if any (workers and the app's remembered connections open the database again by it). */
  readonly settingsFile: string | undefined;

  private constructor(
    readonly dir: string,
    private readonly settings: KdbSettings,
  ) {
    this.settingsFile = settings.file;
    const zone = settings.zone ?? 'UTC';
    if (!isKnownZone(zone)) throw new TickscopeError('badConfig', `kdb+ database ${dir}: zone ${JSON.stringify(zone)} is not a known time zone; expected ${expectedZone(zone)}`);
    this.wallZone = isUtcDatabase(zone) ? undefined : zone;
    this.name = settings.name ?? basename(dir);
    this.options = settings.read ?? {};
    this.scan();
    // the standard tables' analytics are not this database's: the trades table's come from its roles
    const config = settings.config ?? { ...defaultConfig(), analytics: {} };
    const roles = config.roles ?? guessRoles(this.current);
    this.config = { ...config, roles, analytics: { ...tradeAnalytics(this.current, roles), ...config.analytics } };
  }

  /** Opens a kdb+ database folder (recognised by its layout; an error says what was looked for). */
  static open(dir: string, settings: KdbSettings = {}): KdbSource {
    return new KdbSource(resolve(dir), settings);
  }

  get schema(): Schema {
    return this.current;
  }

  table(name: string): TableSchema {
    const t = this.current.tables.get(name);
    if (!t) {
      throw new TickscopeError('unknownTable', `table: ${JSON.stringify(name)} is not a table of ${this.name}; expected one of ${[...this.current.tables.keys()].join(', ')}`);
    }
    return t;
  }

  partitionKeys(table: string): string[] {
    const folders = this.layout.tables.get(this.disk(table)) ?? [];
    // date partitions of a UTC database: their dates (a date in several segments once), without reading a column
    if (this.byDate) return [...new Set(folders.map((p) => p.key!))];
    return [...this.days(table).keys()];
  }

  partition(table: string, key: string): RowSource | undefined {
    const folders = (this.layout.tables.get(this.disk(table)) ?? []).filter((x) => !this.byDate || x.key === key);
    if (folders.length === 0) return undefined;
    // a listed key always has its partition, empty or not (an empty table's folder is a partition of no rows)
    if (this.byDate && folders.length === 1) return this.folder(table, folders[0]!);
    const parts: readonly FolderRows[] | undefined = this.byDate ? folders.map((f) => ({ part: this.folder(table, f) })) : this.days(table).get(key);
    if (!parts) return undefined;
    return this.held(`${table}\0day\0${key}`, () => gathered(this.info(table).schema, parts));
  }

  /**
   * Whether a partition folder is a Tickscope partition (a date of a UTC database); else each folder's
   * UTC days are found from its time column (months, years, ints; the dates of another zone, which
   * straddle two UTC days).
   */
  private get byDate(): boolean {
    return this.layout.kind === 'date' && this.wallZone === undefined;
  }

  /** A partition folder of a table, kept among the most recently used. */
  private folder(table: string, f: PartitionFolder): KdbPartition {
    const kind = this.layout.kind;
    return this.opened(table, join(f.dir, this.disk(table)), kind === 'int' ? undefined : f.value, kind === 'int' || kind === 'year' ? (kind === 'year' ? Number(f.name) : f.value) : undefined);
  }

  /** The UTC days of a table partitioned by month, year or int: each folder's time column read once. */
  private days(table: string): Map<string, FolderRows[]> {
    let d = this.dayIndexes.get(table);
    if (!d) {
      const t = this.info(table).schema;
      const folders = (this.layout.tables.get(this.disk(table)) ?? []).map((f) => this.folder(table, f));
      d = t.timeColumn ? dayIndex(folders, t.timeColumn) : new Map();
      this.dayIndexes.set(table, d);
    }
    return d;
  }

  private info(table: string): KdbTableInfo {
    const i = this.infos.get(table);
    if (!i) this.table(table);
    return i!;
  }

  /**
   * A table's rows when every folder of it has been counted (a partition opened counts its own; the
   * counts outlive the partitions kept open), else undefined: the table list never opens every partition.
   * A table of month, year or int folders, or of another zone, is counted when its days are found.
   */
  knownRows(table: string): number | undefined {
    const whole = this.wholeTables.get(table);
    if (whole) return whole.table.length;
    const folders = this.folders(table);
    // a few folders not counted yet are counted now (a header each); many are left for tickscope info
    const missing = folders.filter((f) => !this.counted.has(f.dir));
    if (missing.length > 0 && missing.length <= COUNTED_AT_ONCE) {
      const disk = this.disk(table);
      const root = this.layout.splayed.get(disk);
      if (root) this.opened(table, root, undefined);
      for (const f of this.layout.tables.get(disk) ?? []) if (!this.counted.has(join(f.dir, disk))) this.folder(table, f);
    }
    let n = 0;
    for (const f of folders) {
      const c = this.counted.get(f.dir);
      if (c === undefined) return undefined;
      n += c;
    }
    return n;
  }

  /** A table written whole at the root (its file, its q types as stored), or undefined. */
  serializedTable(table: string): { readonly path: string; readonly table: Table; readonly qTypes: readonly number[] } | undefined {
    return this.wholeTables.get(table);
  }

  /** A table's folders: each partition's (key, folder), or the root table's (key null). */
  folders(table: string): Array<{ readonly key: string | null; readonly dir: string }> {
    const disk = this.disk(table);
    const root = this.layout.splayed.get(disk);
    if (root) return [{ key: null, dir: root }];
    return (this.layout.tables.get(disk) ?? []).map((p) => ({ key: p.key ?? p.name, dir: join(p.dir, disk) }));
  }

  /** The database's domains (`sym`...), shared by its enumerated columns. */
  get domainFiles(): Domains {
    return this.domains;
  }

  /** How files are read (the block cache). */
  get readOptions(): KdbReadOptions {
    return this.options;
  }

  /** The zone its dates and times are wall-clock times of. */
  get zone(): string {
    return this.settings.zone ?? 'UTC';
  }

  /** The folder name on disk of a table (its alias undone). */
  disk(table: string): string {
    return this.onDisk.get(table) ?? table;
  }

  reference(table: string): RowSource | undefined {
    const whole = this.wholeTables.get(table);
    if (whole) return whole.table.length > 0 ? heldRows(whole.table) : undefined;
    const folders = this.layout.tables.get(this.disk(table));
    if (folders) {
      // a partitioned table with no time column (int partitions, no timestamp): its folders' rows together
      const all = this.held(`${table}\0all`, () => gathered(this.info(table).schema, folders.map((f) => ({ part: this.folder(table, f) }))));
      return all.rows > 0 ? all : undefined;
    }
    const dir = this.layout.splayed.get(this.disk(table));
    if (!dir) return undefined;
    const part = this.opened(table, dir, undefined);
    return part.rows > 0 ? part : undefined;
  }

  /** Looks again at the root's folders: new or removed partitions (a new table inside a partition already seen is found with the next new partition). */
  refresh(): void {
    const now = this.rootEntries();
    if (now !== this.seen) this.scan();
  }

  /** Nothing a query reads changes under it but by q's end-of-day writes, which add partitions: nothing to pin. */
  read<T>(fn: () => T): T {
    return fn();
  }

  checkConfig(check: (c: Config, where: string) => void): void {
    check(this.config, `the settings of the kdb+ database ${this.name}`);
  }

  /** The root's entry names (empty when the folder is gone: the scan then says so). */
  private rootEntries(): string {
    try {
      // a file's size and time too: q rewrites a table written whole (set) and appends to sym in place
      return readdirSync(this.dir, { withFileTypes: true })
        .map((e) => {
          if (!e.isFile()) return e.name;
          const st = statSync(join(this.dir, e.name), { throwIfNoEntry: false });
          return st ? `${e.name}:${st.size}:${st.mtimeMs}` : e.name;
        })
        .sort()
        .join('\0');
    } catch {
      return '';
    }
  }

  private scan(): void {
    const layout = scanLayout(this.dir, this.settings.intPartitions === true);
    this.seen = this.rootEntries();
    // q appends to sym at each save: the domains are read again, and the partitions opened again over them
    this.domains = new Domains(this.dir, this.options);
    this.parts.clear();
    this.dayIndexes.clear();
    // q may have saved a partition again: its rows are counted again when it is next opened
    this.counted.clear();
    const where = `kdb+ settings ${this.settings.file ?? `of ${this.dir}`}`;
    const aliases = this.settings.tables ?? {};
    const onDisk = new Map<string, string>();
    const all = [...layout.tables.keys(), ...layout.splayed.keys(), ...layout.serialized.keys()];
    for (const [disk, shown] of Object.entries(aliases)) {
      if (!all.includes(disk)) throw new TickscopeError('badConfig', `${where}: tables.${disk}: no table ${disk} in ${this.dir}; its tables are ${all.join(', ')}`);
      if (all.includes(shown) && shown !== disk && !(shown in aliases)) {
        throw new TickscopeError('badConfig', `${where}: tables.${disk}: ${shown} is already the name of a table on disk; alias it too, or choose another name`);
      }
    }
    const shownName = (disk: string): string => aliases[disk] ?? disk;
    const times = this.settings.timeColumns ?? {};
    for (const t of Object.keys(times)) {
      if (!all.includes(t) && !all.some((d) => shownName(d) === t)) throw new TickscopeError('badConfig', `${where}: timeColumns.${t}: no table ${t}; its tables are ${all.map(shownName).join(', ')}`);
    }
    const infos = new Map<string, KdbTableInfo>();
    const add = (disk: string, info: (name: string) => KdbTableInfo): void => {
      const name = shownName(disk);
      if (infos.has(name)) throw new TickscopeError('badConfig', `${where}: two tables are shown as ${name}`);
      onDisk.set(name, disk);
      infos.set(name, info(name));
    };
    for (const [disk, parts] of layout.tables) {
      add(disk, (name) => {
        const column = times[name] ?? times[disk];
        const info = partitionedTable(name, parts.map((p) => join(p.dir, disk)), this.domains, this.options, layout.kind, column === undefined ? undefined : { column, where });
        return this.wallZone ? { ...info, zone: this.wallZone } : info;
      });
    }
    for (const [disk, dir] of layout.splayed) add(disk, (name) => ({ ...referenceTable(name, dir, this.domains, this.options), ...(this.wallZone ? { zone: this.wallZone } : {}) }));
    // a table written whole is read whole, once per scan: reference tables are small
    const wholeTables = new Map<string, { path: string; table: Table; qTypes: readonly number[] }>();
    for (const [disk, path] of layout.serialized) {
      add(disk, (name) => {
        const o = readObject(path, this.options);
        if (o.kind !== 'table') throw new TickscopeError('badDatabase', `kdb+ file ${path}: a symbol list, not a table`);
        // its timestamps are wall-clock times of the database's zone too
        const zone = this.wallZone;
        const table = zone ? new Table(o.table.names, o.table.columns.map((c) => (c.type === 'timestamp' ? { type: 'timestamp', data: wallToInstants(new BigInt64Array(c.data), zone) } : c))) : o.table;
        wholeTables.set(name, { path, table, qTypes: o.qTypes });
        const columns = table.defs;
        // a keyed table is keyed by its first key column (a reference table's key)
        const key = o.keyColumns > 0 ? columns[0]!.name : undefined;
        return { schema: { name, kind: 'reference', columns, idColumn: key ?? defaultIdColumn(columns), ...(key ? { key } : {}), foreignKeys: {} } };
      });
    }
    this.wholeTables = wholeTables;
    this.onDisk = onDisk;
    this.layout = layout;
    this.infos = infos;
    this.current = { tables: new Map([...infos].map(([n, i]) => [n, i.schema])) };
  }

  /** A partition, kept among the most recently used (its open files and the columns read whole). */
  private opened(table: string, dir: string, days: number | undefined, value?: number): KdbPartition {
    const p = this.held(`${table}\0${dir}`, () => new KdbPartition(this.infos.get(table)!, dir, days, this.domains, this.options, value));
    this.counted.set(dir, p.rows);
    return p;
  }

  /** A partition (a folder's, or rows gathered from several), kept among the most recently used. */
  private held<T extends RowSource>(k: string, make: () => T): T {
    let p = this.parts.get(k) as T | undefined;
    if (p) this.parts.delete(k);
    else p = make();
    this.parts.set(k, p);
    while (this.parts.size > KEPT_PARTITIONS) this.parts.delete(this.parts.keys().next().value!);
    // the bytes they hold: the oldest let go (the one just asked for stays, whatever its size)
    const limit = this.settings.cacheBytes ?? DEFAULT_KEPT_BYTES;
    let bytes = 0;
    for (const q of this.parts.values()) bytes += heldBytes(q);
    while (bytes > limit && this.parts.size > 1) {
      const oldest = this.parts.keys().next().value!;
      bytes -= heldBytes(this.parts.get(oldest)!);
      this.parts.delete(oldest);
    }
    return p;
  }
}
