/**
 * What a kdb+ database folder holds, told by its layout, never its name (SPEC 11, docs/kdb-format.md
 * section 6): partition folders named `YYYY.MM.DD` holding one folder per table (a splayed table,
 * its `.d` listing its columns), splayed tables at the root (a folder with a `.d`: a table read
 * whole), and the enumeration domains (`sym`...) at the root.
 *
 * Read now: date partitions, splayed tables and serialized tables (a q table written whole) at the
 * root. Not yet: `par.txt` segments, month, year and int partitions: each answers an error saying
 * so, naming the folder or file, rather than a database with tables silently missing.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TickscopeError } from '../../core/errors.js';
import { parseDate } from '../../core/time.js';

/** One date partition folder. */
export interface DatePartition {
  /** Tickscope's partition key: `2024-03-06`. */
  readonly key: string;
  /** The folder (`<root>/2024.03.06`). */
  readonly dir: string;
  /** Days since 1970-01-01 of the folder's date. */
  readonly days: number;
}

/** A database folder's layout. */
export interface KdbLayout {
  readonly root: string;
  /** Date partitions, ascending. */
  readonly partitions: readonly DatePartition[];
  /** Partitioned table -> the partitions holding it (a folder with a `.d`), ascending. */
  readonly tables: ReadonlyMap<string, readonly DatePartition[]>;
  /** Splayed tables at the root (name -> folder), read whole as reference tables. */
  readonly splayed: ReadonlyMap<string, string>;
  /** Tables written whole at the root (name -> file: `set` of a table or keyed table), reference tables. */
  readonly serialized: ReadonlyMap<string, string>;
}

const DATE = /^(\d{4})\.(\d{2})\.(\d{2})$/;
const MONTH = /^\d{4}\.\d{2}$/;
const DIGITS = /^\d+$/;

const notYet = (root: string, what: string): TickscopeError =>
  new TickscopeError('badDatabase', `kdb+ database ${root}: ${what} are not yet read by Tickscope (date partitions YYYY.MM.DD and splayed tables at the root are)`);

/** Whether `dir` holds a splayed table (a `.d` file). */
function isSplayed(dir: string): boolean {
  return existsSync(join(dir, '.d'));
}

/** The first bytes of a file (fewer when it is shorter). */
function head(path: string, n: number): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const b = new Uint8Array(n);
    const got = readSync(fd, b, 0, n, 0);
    return b.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** Reads the layout of a kdb+ database folder; a folder that is not one is an error saying what was looked for. */
export function scanLayout(root: string): KdbLayout {
  let st;
  try {
    st = statSync(root);
  } catch {
    throw new TickscopeError('badDatabase', `kdb+ database ${root}: no such folder`);
  }
  if (!st.isDirectory()) throw new TickscopeError('badDatabase', `kdb+ database ${root}: not a folder`);
  const entries = readdirSync(root, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (entries.some((e) => e.name === 'par.txt' && e.isFile())) throw notYet(root, 'segmented databases (par.txt)');
  const partitions: DatePartition[] = [];
  const splayed = new Map<string, string>();
  const serialized = new Map<string, string>();
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const path = join(root, e.name);
    if (e.isDirectory()) {
      const m = DATE.exec(e.name);
      if (m) {
        const days = parseDate(e.name);
        if (days === undefined) throw new TickscopeError('badDatabase', `kdb+ database ${root}: partition folder ${e.name} is not a date`);
        partitions.push({ key: `${m[1]}-${m[2]}-${m[3]}`, dir: path, days });
      } else if (MONTH.test(e.name) || DIGITS.test(e.name)) {
        throw notYet(root, `month, year and int partitions (folder ${e.name})`);
      } else if (isSplayed(path)) {
        splayed.set(e.name, path);
      }
    } else if (e.isFile()) {
      const b = head(path, 4);
      // a serialized table (ff 01 62) or keyed table (ff 01 63 62); domains are symbol lists (ff 01 0b)
      if (b[0] === 0xff && b[1] === 0x01 && (b[2] === 0x62 || (b[2] === 0x63 && b[3] === 0x62))) serialized.set(e.name, path);
    }
  }
  const tables = new Map<string, DatePartition[]>();
  for (const p of partitions) {
    for (const e of readdirSync(p.dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name.startsWith('.') || !isSplayed(join(p.dir, e.name))) continue;
      let list = tables.get(e.name);
      if (!list) tables.set(e.name, (list = []));
      list.push(p);
    }
  }
  for (const name of [...splayed.keys(), ...serialized.keys()]) {
    if (tables.has(name)) throw new TickscopeError('badDatabase', `kdb+ database ${root}: ${name} is both a table at the root and a partitioned table`);
  }
  if (tables.size === 0 && splayed.size === 0 && serialized.size === 0) {
    throw new TickscopeError(
      'badDatabase',
      `${root} is not a kdb+ database: expected partition folders (YYYY.MM.DD) holding table folders with a .d file, or splayed tables (folders with a .d) at its root`,
    );
  }
  return { root, partitions, tables, splayed, serialized };
}
