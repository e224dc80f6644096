/**
 * Bench data, all under .bench-data/ and keyed by the storage format (a format change regenerates it):
 *
 *   demo-v<F>-<days>d-<instruments>i-<trades>t/                the Tickscope demo database
 *   demo-v<F>-<days>d-<instruments>i-<trades>t.duck<L>.duckdb  the same rows in a DuckDB file
 *   scratch/                                                   per-run copies the order cases write to
 *
 * The DuckDB file is derived from the database (through temporary CSVs in storage order). Its layout
 * key L names the tables it holds (DUCK_LAYOUT), so a file of an older layout is rebuilt without
 * regenerating the database:
 *   trade           Trade, sorted by instrumentID, eventTimestamp, plus `seq`
 *   quote           Quote, the same way, plus `seq`
 *   order_event     Order (New/Fill/Cancel/Done events), the same way, plus `seq`
 *   orderanalytics  OrderAnalytics as stored, sorted by strikeTime, instrumentID, orderID
 *   instrument      the Instrument reference table
 * `seq` is a row's position in Tickscope's storage order. Tickscope keeps rows with equal timestamps in
 * stored order (first, last, forward fill, the prevailing quote depend on it); DuckDB has no row order
 * of its own, so its queries use `seq` where that order decides a value. The cold case opens the file;
 * the warm query cases copy trade and orderanalytics into memory; the order generate case writes to a
 * copy of the file (scratchCopies).
 */
import { copyFileSync, createWriteStream, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { demoConfig, generateDemo } from '../engine/demo/generate.js';
import { configToJson } from '../engine/storage/config.js';
import { Database, writeJsonAtomic } from '../engine/storage/database.js';
import { STORAGE_FORMAT } from '../engine/storage/format.js';
import { tickscopeCells } from './cells.js';

export interface DemoScale {
  readonly days: number;
  readonly instruments: number;
  readonly tradesPerDay: number;
}

export interface BenchData {
  readonly name: string;
  readonly dir: string;
  readonly duckFile: string;
  readonly trades: number;
  readonly generatedSeconds: number | null;
  readonly duckBuiltSeconds: number | null;
}

export const DEFAULT_SCALE: DemoScale = { days: 5, instruments: 100, tradesPerDay: 2_000_000 };
export const QUICK_SCALE: DemoScale = { days: 1, instruments: 20, tradesPerDay: 200_000 };

/**
 * The DuckDB file's layout: 1 held trade only; 2 adds quote, order_event, orderanalytics and
 * instrument (the order analytics cases). A change renames the file, so an older one is rebuilt.
 */
const DUCK_LAYOUT = 2;

/** The dataset's name: the storage format and the demo's parameters. */
export function datasetName(scale: DemoScale): string {
  return `demo-v${STORAGE_FORMAT}-${scale.days}d-${scale.instruments}i-${scale.tradesPerDay}t`;
}

/** The demo database and its DuckDB copy for a scale, each made on first use. */
export async function benchData(root: string, scale: DemoScale, log: (msg: string) => void): Promise<BenchData> {
  const name = datasetName(scale);
  const dir = join(root, name);
  const duckFile = join(root, `${name}.duck${DUCK_LAYOUT}.duckdb`);
  let generatedSeconds: number | null = null;
  if (!existsSync(join(dir, 'schema.json'))) {
    log(`generating ${name} (tickscope demo) ...`);
    rmSync(dir, { recursive: true, force: true });
    rmSync(duckFile, { force: true });
    mkdirSync(root, { recursive: true });
    const t0 = performance.now();
    generateDemo(dir, { ...scale, seed: 1 });
    generatedSeconds = (performance.now() - t0) / 1000;
  }
  currentSummaryFunctions(dir, scale, log);
  // the file of an older layout (trade only) goes; its successor is built from the database
  for (let l = 1; l < DUCK_LAYOUT; l++) {
    const old = join(root, l === 1 ? `${name}.duckdb` : `${name}.duck${l}.duckdb`);
    if (existsSync(old)) {
      log(`removing ${old} (DuckDB layout ${l}; layout ${DUCK_LAYOUT} adds the order analytics tables)`);
      rmSync(old, { force: true });
      rmSync(`${old}.wal`, { force: true });
    }
  }
  let duckBuiltSeconds: number | null = null;
  if (!existsSync(duckFile)) {
    log(`building ${name}.duck${DUCK_LAYOUT}.duckdb from the database ...`);
    const t0 = performance.now();
    await buildDuckFile(dir, duckFile);
    duckBuiltSeconds = (performance.now() - t0) / 1000;
  }
  return { name, dir, duckFile, trades: Database.open(dir).rowCount('Trade'), generatedSeconds, duckBuiltSeconds };
}

/**
 * The database's summary functions as the demo configures them today (engine/demo/generate.ts
 * demoConfig). A database generated before the summary functions took their SPEC 6.2 form keeps its
 * old config.json; its summaryFunctions and defaultSummaryFunctions are rewritten to the demo's
 * (data untouched, every other config item kept), so the order summary cases measure the documented
 * definitions. bench/cases-orders.ts checks the trees again before it runs.
 */
function currentSummaryFunctions(dir: string, scale: DemoScale, log: (msg: string) => void): void {
  const path = join(dir, 'config.json');
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const demo = configToJson(demoConfig(scale.instruments));
  const keys = ['summaryFunctions', 'defaultSummaryFunctions'] as const;
  if (keys.every((k) => JSON.stringify(doc[k]) === JSON.stringify(demo[k]))) return;
  log(`${path}: summaryFunctions and defaultSummaryFunctions rewritten to the demo's current definitions (an older demo wrote them; data unchanged)`);
  writeJsonAtomic(path, { ...doc, summaryFunctions: demo['summaryFunctions'], defaultSummaryFunctions: demo['defaultSummaryFunctions'] });
}

const DUCK_TYPES: Record<string, string> = {
  timestamp: 'BIGINT',
  timespan: 'BIGINT',
  symbol: 'VARCHAR',
  string: 'VARCHAR',
  float: 'DOUBLE',
  long: 'BIGINT',
  int: 'INTEGER',
  boolean: 'BOOLEAN',
  date: 'INTEGER',
};

const csvText = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/**
 * Writes a table as CSV in storage order (partitions by date, rows as stored; a reference table as
 * stored) with `seq` first. Values are read through the bench's own cell accessors (exact: timestamps
 * as integer nanoseconds, floats as shortest round-trip decimals, nulls as empty fields).
 */
async function exportTable(db: Database, table: string, path: string): Promise<Array<{ name: string; type: string }>> {
  const schema = db.table(table);
  const cols = schema.columns.filter((c) => DUCK_TYPES[c.type] !== undefined).map((c) => ({ name: c.name, type: c.type as string }));
  const out = createWriteStream(path);
  out.write(`seq,${cols.map((c) => c.name).join(',')}\n`);
  let seq = 0;
  const parts = schema.kind === 'reference' ? [db.reference(table)] : db.partitionKeys(table).map((key) => db.partition(table, key));
  for (const p of parts) {
    if (!p) continue;
    const cells = cols.map((c) => {
      const cc = tickscopeCells(c.name, p.column(c.name), p.rows);
      return (i: number): string => {
        const v = cc.cell(i);
        return v === null ? '' : typeof v === 'string' ? csvText(v) : String(v);
      };
    });
    let buf = '';
    for (let i = 0; i < p.rows; i++) {
      buf += String(seq++);
      for (const f of cells) buf += `,${f(i)}`;
      buf += '\n';
      if (buf.length > 1 << 20) {
        if (!out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r()));
        buf = '';
      }
    }
    out.write(buf);
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return cols;
}

/** The DuckDB tables: source table, whether `seq` is kept, sort order. */
const DUCK_TABLES = [
  { duck: 'trade', table: 'Trade', seq: true, orderBy: 'instrumentID, eventTimestamp, seq' },
  { duck: 'quote', table: 'Quote', seq: true, orderBy: 'instrumentID, eventTimestamp, seq' },
  { duck: 'order_event', table: 'Order', seq: true, orderBy: 'instrumentID, eventTimestamp, seq' },
  // exactly the OrderAnalytics columns: the generate case inserts its rows with SELECT *
  { duck: 'orderanalytics', table: 'OrderAnalytics', seq: false, orderBy: 'strikeTime, instrumentID, orderID' },
  { duck: 'instrument', table: 'Instrument', seq: false, orderBy: 'instrumentID' },
] as const;

/** Builds the DuckDB file (via a temporary, renamed into place when complete). */
async function buildDuckFile(dir: string, duckFile: string): Promise<void> {
  const db = Database.open(dir);
  const csv = `${duckFile}.csv.tmp`;
  const tmp = `${duckFile}.tmp`;
  rmSync(tmp, { force: true });
  rmSync(`${tmp}.wal`, { force: true });
  const instance = await DuckDBInstance.create(tmp);
  const conn = await instance.connect();
  try {
    for (const t of DUCK_TABLES) {
      const cols = await exportTable(db, t.table, csv);
      const types = [`'seq': 'BIGINT'`, ...cols.map((c) => `'${c.name}': '${DUCK_TYPES[c.type]}'`)].join(', ');
      const select = cols.map((c) => (c.type === 'timestamp' ? `make_timestamp_ns(${c.name}) AS ${c.name}` : c.name)).join(', ');
      await conn.run(
        `CREATE TABLE ${t.duck} AS SELECT ${select}${t.seq ? ', seq' : ''} FROM read_csv('${csv}', header=true, columns={${types}}) ORDER BY ${t.orderBy}${t.seq ? '' : ', seq'}`,
      );
      rmSync(csv, { force: true });
    }
    await conn.run('CHECKPOINT');
    conn.closeSync();
    instance.closeSync();
    renameSync(tmp, duckFile);
  } finally {
    rmSync(csv, { force: true });
    rmSync(`${tmp}.wal`, { force: true });
  }
}

/** An in-memory DuckDB holding copies of the file's `trade` and `orderanalytics` tables (same row order). */
export async function duckInMemory(data: BenchData): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  await conn.run(`ATTACH '${data.duckFile}' AS f (READ_ONLY)`);
  await conn.run('CREATE TABLE trade AS SELECT * FROM f.trade');
  await conn.run('CREATE TABLE orderanalytics AS SELECT * FROM f.orderanalytics');
  await conn.run('DETACH f');
  return conn;
}

export interface ScratchCopies {
  /** A copy of the database folder that the order cases may write to. */
  readonly dir: string;
  /** A copy of the DuckDB file that the order cases may write to. */
  readonly duckFile: string;
}

/**
 * Copies of the database and the DuckDB file for the cases that write (generateOrderAnalytics and its
 * DuckDB counterpart), made once per bench run under <root>/scratch/ (the previous run's are removed
 * first), so runs do not pile up rows and the cached data stays as generated.
 *
 * The database copy holds real copies of its JSON files and of OrderAnalytics, the only table the
 * order operations write, and hard links to the partition files of every other table: Tickscope never
 * writes into an existing file or folder of a database (a commit writes new generation folders and
 * renames JSON into place; superseded folders are removed by unlinking), so the links cannot change
 * the cached files, and the copy costs no disk and no time. The DuckDB file, which DuckDB writes in
 * place, is copied whole.
 */
export function scratchCopies(root: string, data: BenchData): ScratchCopies {
  const scratch = join(root, 'scratch');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const dir = join(scratch, data.name);
  copyTree(data.dir, dir, (rel) => rel.startsWith(join('data', 'OrderAnalytics')) || !rel.startsWith('data'));
  const duckFile = join(scratch, `${data.name}.duckdb`);
  copyFileSync(data.duckFile, duckFile);
  return { dir, duckFile };
}

/** Removes the scratch copies. */
export function removeScratch(root: string): void {
  rmSync(join(root, 'scratch'), { recursive: true, force: true });
}

/** Copies a folder tree: files for which `copy(relative path)` holds are copied, the others hard-linked. */
function copyTree(from: string, to: string, copy: (rel: string) => boolean, rel = ''): void {
  mkdirSync(join(to, rel), { recursive: true });
  for (const f of readdirSync(join(from, rel))) {
    const r = join(rel, f);
    const src = join(from, r);
    if (statSync(src).isDirectory()) {
      copyTree(from, to, copy, r);
      continue;
    }
    if (copy(r)) {
      copyFileSync(src, join(to, r));
      continue;
    }
    try {
      linkSync(src, join(to, r));
    } catch {
      copyFileSync(src, join(to, r)); // another file system, or no links there
    }
  }
}
