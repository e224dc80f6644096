/**
 * The kdb+ cases' data (bench/kdb-cases.ts), written with the test writer (kdb-writer.ts) under the
 * bench's data folder, each made on first use and kept (a folder is written under a `.tmp` name and
 * renamed into place once complete, so a half-written one is never taken for data):
 *
 *   <dataset>.kdb<L>-none/   the bench's Trade table (every date) as a kdb+ HDB: one partition per
 *                            date, `Trade` in each, the columns in the schema's order, rows in the
 *                            native store's order (each instrument's run, in time order), `p#` on
 *                            instrumentID, the symbol columns enumerated against `sym` (as q's `.Q.en`
 *                            does) but executionID, unique per trade (2M names a day), enumerated
 *                            against a domain of its own, `executionIDsym` (as q's `.Q.ens` writes one;
 *                            see UNIQUE_IDS)
 *   <dataset>.kdb<L>-zlib/   the same files compressed: algorithm 2, level 6, blocks of 2^17 (q's
 *                            `.z.zd 17 2 6`); `.d` and `sym` plain, as q leaves them
 *   <dataset>.kdb<L>-zstd/   algorithm 5, level 3, blocks of 2^17 (the `zstd` command; without it,
 *                            snappy, algorithm 3: `-snappy`)
 *   kdb-year<Y>-<days>d-<instruments>i-<trades>t/   the year case's HDB: synthetic trades written a
 *                            partition at a time (below), uncompressed
 *   kdb-year<Y>-1d-<instruments>i-<trades>t/        its last day alone (the same files)
 *
 * The compressed HDBs are made from the uncompressed one's files (the same images, compressed), not
 * from the database again. L and Y name the layouts: a change renames the folders, so old ones are
 * not reused (delete them by hand).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Column } from '../engine/core/column.js';
import { Database } from '../engine/storage/database.js';
import type { BenchData } from './data.js';
import { compressFile, HdbWriter, type KdbColumn, type KdbCompression, type KdbDict, type TypedColumn } from './kdb-writer.js';

/** The layout of the bench data's HDBs (tables, columns, attributes, domains, compression settings). */
const KDB_LAYOUT = 2;

/**
 * A symbol column whose dictionary holds at least this many names, and a quarter of the partition's
 * rows (unique IDs: executionID), is enumerated against a domain of its own, `<column>sym`, keeping
 * `sym` to the few hundred names of the other columns. In one `sym`, every symbol column shares a
 * 10M-name dictionary, and a full day's getTicks compacts it for each (engine/core/column.ts
 * gatherSymbolParts picks the names used where a dictionary outnumbers the rows): about 200 ms a day
 * that a q developer's layout does not pay.
 */
const UNIQUE_IDS = 4096;
/** The layout of the year case's HDBs (its generator). */
const YEAR_LAYOUT = 1;

/** One HDB of the bench's data. */
export interface KdbVariant {
  /** `none`, `zlib`, `zstd` (or `snappy` where no zstd compressor is found). */
  readonly id: string;
  /** How its column files are compressed (none: plain). */
  readonly compression: KdbCompression | null;
  /** What it is, for the printout. */
  readonly label: string;
}

/** Whether the `zstd` command is here (Node 20's zlib has no zstd, and no package in node_modules compresses it). */
export function zstdCommand(): string | null {
  const r = spawnSync('zstd', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** The variants written: uncompressed, zlib, and zstd (snappy without the zstd command). */
export function kdbVariants(): KdbVariant[] {
  const zstd = zstdCommand();
  return [
    { id: 'none', compression: null, label: 'uncompressed' },
    { id: 'zlib', compression: { algorithm: 2, blockLog: 17, level: 6 }, label: 'zlib (algorithm 2, level 6, 2^17 blocks)' },
    zstd
      ? { id: 'zstd', compression: { algorithm: 5, blockLog: 17, level: 3 }, label: `zstd (algorithm 5, level 3, 2^17 blocks; the zstd command ${/v[\d.]+/.exec(zstd)?.[0] ?? zstd})` }
      : { id: 'snappy', compression: { algorithm: 3, blockLog: 17 }, label: 'snappy (algorithm 3, 2^17 blocks; no zstd compressor here: Node 20 has none, nor node_modules, nor a zstd command)' },
  ];
}

/** An HDB written (or found) on disk. */
export interface KdbHdb {
  readonly variant: KdbVariant;
  readonly dir: string;
  /** Bytes of its files (sym and .d included). */
  readonly bytes: number;
  /** Seconds spent writing it now; null when it was there already. */
  readonly builtSeconds: number | null;
}

/** Bytes of every file under a folder. */
export function folderBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return n;
}

/** Writes a folder under `<dir>.tmp` and renames it into place when `write` returns; answers the seconds taken, or null when it was there. */
function once(dir: string, write: (tmp: string) => void): number | null {
  if (existsSync(dir)) return null;
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  const t0 = performance.now();
  write(tmp);
  renameSync(tmp, dir);
  return (performance.now() - t0) / 1000;
}

/** A stored column as the writer takes it (the identifier with `p#`; unique IDs in a domain of their own). */
function typed(name: string, c: Column, rows: number, parted: boolean): KdbColumn {
  switch (c.type) {
    case 'timestamp':
    case 'timespan':
    case 'long':
    case 'float':
    case 'int':
    case 'date':
    case 'boolean':
      return { type: 'typed', column: c as TypedColumn };
    case 'symbol':
      return { type: 'typed', column: { type: 'symbol', codes: c.codes, dict: c.dict }, parted, ...(c.dict.length >= UNIQUE_IDS && 4 * c.dict.length >= rows ? { domain: `${name}sym` } : {}) };
    default:
      throw new Error(`bench: a ${c.type} column is not written to the kdb+ HDB`);
  }
}

/**
 * The native partition's rows as they are stored, checked to be what q's end-of-day save leaves with
 * `p#` (each identifier's rows one run, in time order), so the reader binary-searches the runs.
 */
function checkRuns(key: string, rows: number, ranges: ReadonlyMap<string, readonly [number, number]>, time: BigInt64Array): void {
  const runs = [...ranges.values()].sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [a, b] of runs) {
    if (a !== at) throw new Error(`bench: Trade ${key}: the identifiers' runs do not tile the partition (a run starts at ${a}, expected ${at})`);
    for (let i = a + 1; i < b; i++) if (time[i]! < time[i - 1]!) throw new Error(`bench: Trade ${key}: row ${i} out of time order within its identifier's run`);
    at = b;
  }
  if (at !== rows) throw new Error(`bench: Trade ${key}: the identifiers' runs cover ${at} of ${rows} rows`);
}

/** The bench database's Trade table as an uncompressed HDB. */
function writeTradeHdb(db: Database, to: string, log: (msg: string) => void): void {
  const t = db.table('Trade');
  const w = new HdbWriter(to);
  for (const key of db.partitionKeys('Trade')) {
    const p = db.partition('Trade', key)!;
    checkRuns(key, p.rows, p.idRanges, (p.column(t.timeColumn!) as { data: BigInt64Array }).data);
    w.partition(key.replace(/-/g, '.'), 'Trade', t.columns.map((d) => [d.name, typed(d.name, p.column(d.name), p.rows, d.name === t.idColumn)] as const));
    log(`    ${key}: ${p.rows.toLocaleString('en-US')} rows`);
  }
  w.finish();
  log(`    domains: ${[...w.domains].map(([name, names]) => `${name} ${names.length.toLocaleString('en-US')} names`).join(', ')}`);
}

/** Every file of an HDB copied, its column files compressed (`.d` and `sym` as they are). */
function compressHdb(from: string, to: string, compression: KdbCompression, rel = ''): void {
  mkdirSync(join(to, rel), { recursive: true });
  for (const e of readdirSync(join(from, rel), { withFileTypes: true })) {
    const r = join(rel, e.name);
    if (e.isDirectory()) compressHdb(from, to, compression, r);
    else if (rel === '' || e.name === '.d') copyFileSync(join(from, r), join(to, r));
    else writeFileSync(join(to, r), compressFile(readFileSync(join(from, r)), compression));
  }
}

/** The bench data's Trade table as kdb+ HDBs, one per variant, each made on first use. */
export function kdbBenchData(root: string, data: BenchData, log: (msg: string) => void): KdbHdb[] {
  const variants = kdbVariants();
  const dirOf = (v: KdbVariant): string => join(root, `${data.name}.kdb${KDB_LAYOUT}-${v.id}`);
  const plain = dirOf(variants[0]!);
  const out: KdbHdb[] = [];
  for (const v of variants) {
    const dir = dirOf(v);
    const seconds = once(dir, (tmp) => {
      if (v.compression === null) {
        log(`  writing ${dir} (kdb+ HDB of Trade, every date) ...`);
        writeTradeHdb(Database.open(data.dir), tmp, log);
      } else {
        log(`  writing ${dir} (the same files, ${v.label}) ...`);
        compressHdb(plain, tmp, v.compression);
      }
    });
    if (seconds !== null) log(`    written in ${seconds.toFixed(1)} s`);
    out.push({ variant: v, dir, bytes: folderBytes(dir), builtSeconds: seconds });
  }
  return out;
}

// ---- the year case's data ----------------------------------------------------------------------------

/** The year case's shape: date partitions, instruments, trades a day. */
export interface YearScale {
  readonly days: number;
  readonly instruments: number;
  readonly tradesPerDay: number;
}

export const YEAR_SCALE: YearScale = { days: 250, instruments: 100, tradesPerDay: 400_000 };

/** The columns of the year's Trade: the bench's Trade without executionID (a unique symbol per trade would put 100M names in `sym`). */
const YEAR_COLUMNS = ['eventTimestamp', 'instrumentID', 'exchTime', 'price', 'volume', 'conditions', 'normalisedCondition', 'tickDirection', 'tradedExchange', 'sequenceNumber', 'accVol', 'tickCount', 'srcSys'] as const;
/** Bytes a row takes on disk: 13 columns of 8 bytes (symbols as 64-bit enumerations). */
const YEAR_ROW_BYTES = 8 * YEAR_COLUMNS.length;

const dict = (names: readonly string[]): KdbDict => ({ length: names.length, get: (k) => names[k]! });
const CONDITIONS = ['', '@', 'F', 'I', 'O', '4', '6'];
const NORMALISED = ['regular', 'auction', 'odd lot', 'late'];
const TICKS = ['+', '-', '0+', '0-'];
const EXCHANGES = ['XNAS', 'XNYS', 'ARCX', 'BATS', 'EDGX'];
const SOURCES = ['SIP'];

/** A seeded generator of floats in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Weekdays from 2023-01-02, as q dates (`2023.01.02`). */
export function yearDates(days: number): string[] {
  const out: string[] = [];
  for (let d = Date.UTC(2023, 0, 2); out.length < days; d += 86_400_000) {
    const wd = new Date(d).getUTCDay();
    if (wd !== 0 && wd !== 6) out.push(new Date(d).toISOString().slice(0, 10).replace(/-/g, '.'));
  }
  return out;
}

/** The year's instrument names, ascending. */
export const yearInstruments = (n: number): string[] => Array.from({ length: n }, (_, i) => `T${String(i).padStart(3, '0')}`);

/** An int64 array's int32 halves, to set items without a BigInt each. */
const halves = (a: BigInt64Array): Int32Array => new Int32Array(a.buffer, a.byteOffset, 2 * a.length);
const TWO32 = 4294967296;

/** Sets item i to base + v (base as its int32 halves, v a non-negative integer below 2^53). */
function setI64(w: Int32Array, i: number, baseLo: number, baseHi: number, v: number): void {
  const lo = (v % TWO32) + baseLo;
  w[2 * i] = lo | 0;
  w[2 * i + 1] = (baseHi + Math.floor(v / TWO32) + (lo >= TWO32 ? 1 : 0)) | 0;
}

/**
 * One day of synthetic trades, its rows in q's end-of-day order (each instrument's run, in time
 * order, between 08:00 and 16:30 UTC), seeded by the date: the same date gives the same rows.
 */
function yearDay(date: string, scale: YearScale): Array<readonly [string, KdbColumn]> {
  const n = scale.tradesPerDay;
  const k = scale.instruments;
  const rnd = random(Number(date.replace(/\./g, '')));
  // 08:00 of the day in ns since 1970, as int32 halves (below 2^63: the high half positive)
  const open = BigInt(Date.parse(`${date.replace(/\./g, '-')}T08:00:00Z`)) * 1_000_000n;
  const openLo = Number(open & 0xffffffffn);
  const openHi = Number(open >> 32n);
  const span = 8.5 * 3600e9; // ns, 08:00 to 16:30
  const time = new BigInt64Array(n);
  const exch = new BigInt64Array(n);
  const price = new Float64Array(n);
  const volume = new BigInt64Array(n);
  const seq = new BigInt64Array(n);
  const acc = new BigInt64Array(n);
  const count = new BigInt64Array(n);
  const [tw, xw, vw, sw, aw, cw] = [time, exch, volume, seq, acc, count].map(halves) as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
  const ids = new Int32Array(n);
  const cond = new Int32Array(n);
  const norm = new Int32Array(n);
  const tick = new Int32Array(n);
  const ex = new Int32Array(n);
  const src = new Int32Array(n);
  let row = 0;
  for (let i = 0; i < k; i++) {
    const rows = Math.floor(((i + 1) * n) / k) - Math.floor((i * n) / k);
    let p = 10 + i * 2.5;
    let total = 0;
    for (let j = 0; j < rows; j++, row++) {
      // evenly spread, jittered within each slot: in time order without a sort
      const t = Math.floor(((j + rnd()) * span) / rows);
      setI64(tw, row, openLo, openHi, t);
      setI64(xw, row, openLo, openHi, Math.max(0, t - Math.floor(rnd() * 2_000_000)));
      const step = Math.round((rnd() - 0.5) * 4) / 100;
      p = Math.max(0.01, Math.round((p + step) * 100) / 100);
      price[row] = p;
      const v = 100 * (1 + Math.floor(rnd() * 20));
      total += v;
      setI64(vw, row, 0, 0, v);
      setI64(aw, row, 0, 0, total);
      setI64(cw, row, 0, 0, j + 1);
      setI64(sw, row, 0, 0, row);
      ids[row] = i;
      cond[row] = rnd() < 0.9 ? 0 : 1 + Math.floor(rnd() * (CONDITIONS.length - 1));
      norm[row] = cond[row] === 0 ? 0 : 1 + (cond[row]! % (NORMALISED.length - 1));
      tick[row] = step > 0 ? 0 : step < 0 ? 1 : rnd() < 0.5 ? 2 : 3;
      ex[row] = Math.floor(rnd() * EXCHANGES.length);
    }
  }
  const sym = (codes: Int32Array, names: readonly string[], parted = false): KdbColumn => ({ type: 'typed', column: { type: 'symbol', codes, dict: dict(names) }, parted });
  const long = (data: BigInt64Array): KdbColumn => ({ type: 'typed', column: { type: 'long', data } });
  const columns: Record<(typeof YEAR_COLUMNS)[number], KdbColumn> = {
    eventTimestamp: { type: 'typed', column: { type: 'timestamp', data: time } },
    instrumentID: sym(ids, yearInstruments(k), true),
    exchTime: { type: 'typed', column: { type: 'timestamp', data: exch } },
    price: { type: 'typed', column: { type: 'float', data: price } },
    volume: long(volume),
    conditions: sym(cond, CONDITIONS),
    normalisedCondition: sym(norm, NORMALISED),
    tickDirection: sym(tick, TICKS),
    tradedExchange: sym(ex, EXCHANGES),
    sequenceNumber: long(seq),
    accVol: long(acc),
    tickCount: long(count),
    srcSys: sym(src, SOURCES),
  };
  return YEAR_COLUMNS.map((c) => [c, columns[c]] as const);
}

/** The year case's two HDBs. */
export interface YearData {
  readonly scale: YearScale;
  /** Why the scale is below YEAR_SCALE (the disk), or null. */
  readonly scaledDown: string | null;
  readonly dates: readonly string[];
  readonly instruments: readonly string[];
  readonly year: string;
  readonly one: string;
  readonly yearBytes: number;
  readonly builtSeconds: number | null;
}

/** Free bytes of the file system holding `dir`. */
function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/**
 * The year case's HDBs, made on first use: `scale.days` date partitions written one at a time
 * (uncompressed; the `sym` file at the end), and the last day alone. Where the disk holds less than
 * the HDB and a 20% margin with 10 GB left over, fewer days are written (said in the answer).
 */
export function yearData(root: string, log: (msg: string) => void, scale: YearScale = YEAR_SCALE): YearData {
  mkdirSync(root, { recursive: true });
  const name = (days: number): string => join(root, `kdb-year${YEAR_LAYOUT}-${days}d-${scale.instruments}i-${scale.tradesPerDay}t`);
  // an HDB written before (maybe scaled down then) is taken as it is
  const written = readdirSync(root)
    .map((f) => new RegExp(`^kdb-year${YEAR_LAYOUT}-(\\d+)d-${scale.instruments}i-${scale.tradesPerDay}t$`).exec(f))
    .map((m) => (m ? Number(m[1]) : 0))
    .filter((d) => d > 1 && d <= scale.days);
  let days = written.length > 0 ? Math.max(...written) : scale.days;
  let scaledDown: string | null = days < scale.days ? `${days} date partitions, as written before (fewer than ${scale.days}: the disk)` : null;
  if (!existsSync(name(days))) {
    const dayBytes = scale.tradesPerDay * YEAR_ROW_BYTES;
    const free = freeBytes(root) - 10e9;
    const fits = Math.floor(free / (dayBytes * 1.2));
    if (fits < days) {
      days = Math.max(2, fits);
      scaledDown = `${scale.days} days of ${(dayBytes / 1e6).toFixed(0)} MB need ${((scale.days * dayBytes) / 1e9).toFixed(1)} GB; ${(freeBytes(root) / 1e9).toFixed(1)} GB free at ${root}: ${days} days written`;
      log(`  year: ${scaledDown}`);
    }
  }
  const dates = yearDates(days);
  const year = name(days);
  const t0 = performance.now();
  const built = once(year, (tmp) => {
    log(`  writing ${year} (${days} date partitions of ${scale.tradesPerDay.toLocaleString('en-US')} trades, ${scale.instruments} instruments; ${((days * scale.tradesPerDay * YEAR_ROW_BYTES) / 1e9).toFixed(1)} GB) ...`);
    const w = new HdbWriter(tmp);
    dates.forEach((d, i) => {
      w.partition(d, 'Trade', yearDay(d, scale));
      if ((i + 1) % 25 === 0 || i + 1 === dates.length) log(`    ${i + 1}/${dates.length} partitions (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    });
    w.finish();
  });
  const one = join(root, `kdb-year${YEAR_LAYOUT}-1d-${scale.instruments}i-${scale.tradesPerDay}t`);
  const last = dates[dates.length - 1]!;
  // the last day alone: the same rows (the generator is seeded by the date) and the same sym file
  const builtOne = once(one, (tmp) => {
    const w = new HdbWriter(tmp);
    w.partition(last, 'Trade', yearDay(last, scale));
    w.finish();
  });
  if (!existsSync(join(one, last))) throw new Error(`bench: ${one} does not hold ${last}, the last date of ${year}; delete it to write it again`);
  const seconds = built === null && builtOne === null ? null : (performance.now() - t0) / 1000;
  return {
    scale: { ...scale, days },
    scaledDown,
    dates,
    instruments: yearInstruments(scale.instruments),
    year,
    one,
    yearBytes: folderBytes(year),
    builtSeconds: seconds,
  };
}
