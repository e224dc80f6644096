/**
 * What a kdb+ database folder holds, told by its layout, never its name (SPEC 11, docs/kdb-format.md
 * section 6): partition folders holding one folder per table (a splayed table, its `.d` listing its
 * columns), splayed tables and tables written whole at the root, and the enumeration domains (`sym`...)
 * at the root.
 *
 * Partition folders are dates (`2024.03.06`), months (`2024.03`), years (four digits) or ints (other
 * digits; four-digit ones too when the settings say so); a database has one kind. With a `par.txt`,
 * the partition folders are in its segments (one folder per line, absolute or relative to the root),
 * in its order: a partition found in several segments is the rows of each, in segment order.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { TickscopeError } from '../../core/errors.js';
import { parseDate } from '../../core/time.js';

/** How a database is partitioned (q's name for its virtual partition column). */
export type PartitionKind = 'date' | 'month' | 'year' | 'int';

/** One partition folder (in one segment). */
export interface PartitionFolder {
  /** The folder's name as on disk (`2024.03.06`, `2024.03`, `2024`, `17`). */
  readonly name: string;
  /** The folder (`<segment>/2024.03.06`). */
  readonly dir: string;
  /**
   * Its value: days since 1970-01-01 of a date, of a month's or a year's first day; an int's value.
   */
  readonly value: number;
  /** A date partition's Tickscope key (`2024-03-06`); undefined for the other kinds. */
  readonly key?: string;
}

/** A database folder's layout. */
export interface KdbLayout {
  readonly root: string;
  /** The kind of its partitions (date when it has none). */
  readonly kind: PartitionKind;
  /** The segments of a `par.txt` (the root alone without one). */
  readonly segments: readonly string[];
  /** Partition folders, by value then segment order. */
  readonly partitions: readonly PartitionFolder[];
  /** Partitioned table -> the partition folders holding it (a folder with a `.d`), in the same order. */
  readonly tables: ReadonlyMap<string, readonly PartitionFolder[]>;
  /** Splayed tables at the root (name -> folder), read whole as reference tables. */
  readonly splayed: ReadonlyMap<string, string>;
  /** Tables written whole at the root (name -> file: `set` of a table or keyed table), reference tables. */
  readonly serialized: ReadonlyMap<string, string>;
}

const DATE = /^(\d{4})\.(\d{2})\.(\d{2})$/;
const MONTH = /^(\d{4})\.(\d{2})$/;
const DIGITS = /^\d+$/;
const YEAR = /^\d{4}$/;

/** Days since 1970-01-01 of a UTC calendar day. */
const daysOf = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / 86_400_000;

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

/** A partition folder's kind and value from its name, or undefined for a name no partition has. */
function partitionOf(name: string, intYears: boolean): { kind: PartitionKind; value: number; key?: string } | undefined {
  const d = DATE.exec(name);
  if (d) {
    const days = parseDate(name);
    return days === undefined ? undefined : { kind: 'date', value: days, key: `${d[1]}-${d[2]}-${d[3]}` };
  }
  const m = MONTH.exec(name);
  if (m) {
    const month = Number(m[2]);
    return month >= 1 && month <= 12 ? { kind: 'month', value: daysOf(Number(m[1]), month, 1) } : undefined;
  }
  if (YEAR.test(name) && !intYears) return { kind: 'year', value: daysOf(Number(name), 1, 1) };
  if (DIGITS.test(name)) {
    const v = Number(name);
    return v <= 2147483647 ? { kind: 'int', value: v } : undefined;
  }
  return undefined;
}

/** The segments a par.txt names, each an existing folder. */
function segmentsOf(root: string): string[] {
  const path = join(root, 'par.txt');
  const st = statSync(path);
  if (st.size > 1 << 20) throw new TickscopeError('badDatabase', `kdb+ database ${root}: par.txt holds ${st.size} bytes; a list of segment folders is expected`);
  const lines = readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) throw new TickscopeError('badDatabase', `kdb+ database ${root}: par.txt names no segment folder`);
  return lines.map((l, i) => {
    const dir = isAbsolute(l) ? l : resolve(root, l);
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // said below
    }
    if (!isDir) throw new TickscopeError('badDatabase', `kdb+ database ${root}: par.txt line ${i + 1} names ${dir}, which is not a folder`);
    return dir;
  });
}

/**
 * Reads the layout of a kdb+ database folder; a folder that is not one is an error saying what was
 * looked for. `intYears`: four-digit partition folders are ints, not years (a setting).
 */
export function scanLayout(root: string, intYears = false): KdbLayout {
  let st;
  try {
    st = statSync(root);
  } catch {
    throw new TickscopeError('badDatabase', `kdb+ database ${root}: no such folder`);
  }
  if (!st.isDirectory()) throw new TickscopeError('badDatabase', `kdb+ database ${root}: not a folder`);
  const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const entries = readdirSync(root, { withFileTypes: true }).sort(byName);
  const segmented = entries.some((e) => e.name === 'par.txt' && e.isFile());
  const segments = segmented ? segmentsOf(root) : [root];
  const partitions: PartitionFolder[] = [];
  const kinds = new Set<PartitionKind>();
  const splayed = new Map<string, string>();
  const serialized = new Map<string, string>();
  for (const [s, segment] of segments.entries()) {
    const list = s === 0 && !segmented ? entries : readdirSync(segment, { withFileTypes: true }).sort(byName);
    for (const e of list) {
      if (e.name.startsWith('.') || !e.isDirectory()) continue;
      const p = partitionOf(e.name, intYears);
      if (p) {
        kinds.add(p.kind);
        partitions.push({ name: e.name, dir: join(segment, e.name), value: p.value, ...(p.key ? { key: p.key } : {}) });
      } else if (/^\d/.test(e.name) && /^[\d.]+$/.test(e.name)) {
        throw new TickscopeError('badDatabase', `kdb+ database ${root}: partition folder ${e.name} is not a date, month, year or int`);
      }
    }
  }
  if (kinds.size > 1) throw new TickscopeError('badDatabase', `kdb+ database ${root}: partition folders of several kinds (${[...kinds].join(', ')}); a kdb+ database is partitioned one way`);
  // partitions by value, the segments' order kept for equal values (a stable sort)
  partitions.sort((a, b) => a.value - b.value);
  for (const e of entries) {
    if (e.name.startsWith('.') || partitionOf(e.name, intYears)) continue;
    const path = join(root, e.name);
    if (e.isDirectory() && isSplayed(path)) splayed.set(e.name, path);
    else if (e.isFile() && e.name !== 'par.txt') {
      const b = head(path, 4);
      // a serialized table (ff 01 62) or keyed table (ff 01 63 62); domains are symbol lists (ff 01 0b)
      if (b[0] === 0xff && b[1] === 0x01 && (b[2] === 0x62 || (b[2] === 0x63 && b[3] === 0x62))) serialized.set(e.name, path);
    }
  }
  const tables = new Map<string, PartitionFolder[]>();
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
      `${root} is not a kdb+ database: expected partition folders (YYYY.MM.DD, YYYY.MM, YYYY or ints, or segments listed in par.txt) holding table folders with a .d file, or tables (splayed folders with a .d, or files written whole) at its root`,
    );
  }
  return { root, kind: [...kinds][0] ?? 'date', segments, partitions, tables, splayed, serialized };
}
