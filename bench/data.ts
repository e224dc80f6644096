/**
 * Bench data, all under .bench-data/ and keyed by the storage format (a format change regenerates it):
 *
 *   demo-v<F>-<days>d-<instruments>i-<trades>t/          the Tickscope demo database
 *   demo-v<F>-<days>d-<instruments>i-<trades>t.duckdb    the same Trade rows in a DuckDB file
 *
 * The DuckDB file is derived from the database (through a temporary CSV in storage order) and holds
 * table `trade` sorted by instrumentID, eventTimestamp, plus a column `seq`: the row's position in
 * Tickscope's storage order. Tickscope keeps trades with equal timestamps in stored order (first,
 * last, forward fill depend on it); DuckDB has no row order of its own, so its queries use `seq` where
 * that order decides a value. The cold case opens the file; the warm cases copy it into memory.
 */
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { generateDemo } from '../engine/demo/generate.js';
import { Database } from '../engine/storage/database.js';
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

/** The dataset's name: the storage format and the demo's parameters. */
export function datasetName(scale: DemoScale): string {
  return `demo-v${STORAGE_FORMAT}-${scale.days}d-${scale.instruments}i-${scale.tradesPerDay}t`;
}

/** The demo database and its DuckDB copy for a scale, each made on first use. */
export async function benchData(root: string, scale: DemoScale, log: (msg: string) => void): Promise<BenchData> {
  const name = datasetName(scale);
  const dir = join(root, name);
  const duckFile = join(root, `${name}.duckdb`);
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
  let duckBuiltSeconds: number | null = null;
  if (!existsSync(duckFile)) {
    log(`building ${name}.duckdb from the database ...`);
    const t0 = performance.now();
    await buildDuckFile(dir, duckFile);
    duckBuiltSeconds = (performance.now() - t0) / 1000;
  }
  return { name, dir, duckFile, trades: Database.open(dir).rowCount('Trade'), generatedSeconds, duckBuiltSeconds };
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
 * Writes Trade as CSV in storage order (partitions by date, rows as stored) with `seq` first.
 * Values are read through the bench's own cell accessors (exact: timestamps as integer nanoseconds,
 * floats as shortest round-trip decimals, nulls as empty fields).
 */
async function exportTrades(db: Database, path: string): Promise<Array<{ name: string; type: string }>> {
  const cols = db.table('Trade').columns.filter((c) => DUCK_TYPES[c.type] !== undefined).map((c) => ({ name: c.name, type: c.type as string }));
  const out = createWriteStream(path);
  out.write(`seq,${cols.map((c) => c.name).join(',')}\n`);
  let seq = 0;
  for (const key of db.partitionKeys('Trade')) {
    const p = db.partition('Trade', key)!;
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

/** Builds the DuckDB file (via a temporary, renamed into place when complete). */
async function buildDuckFile(dir: string, duckFile: string): Promise<void> {
  const db = Database.open(dir);
  const csv = `${duckFile}.csv.tmp`;
  const tmp = `${duckFile}.tmp`;
  rmSync(tmp, { force: true });
  rmSync(`${tmp}.wal`, { force: true });
  try {
    const cols = await exportTrades(db, csv);
    const types = [`'seq': 'BIGINT'`, ...cols.map((c) => `'${c.name}': '${DUCK_TYPES[c.type]}'`)].join(', ');
    const select = cols.map((c) => (c.type === 'timestamp' ? `make_timestamp_ns(${c.name}) AS ${c.name}` : c.name)).join(', ');
    const instance = await DuckDBInstance.create(tmp);
    const conn = await instance.connect();
    await conn.run(
      `CREATE TABLE trade AS SELECT ${select}, seq FROM read_csv('${csv}', header=true, columns={${types}}) ORDER BY instrumentID, eventTimestamp, seq`,
    );
    await conn.run('CHECKPOINT');
    conn.closeSync();
    instance.closeSync();
    renameSync(tmp, duckFile);
  } finally {
    rmSync(csv, { force: true });
    rmSync(`${tmp}.wal`, { force: true });
  }
}

/** An in-memory DuckDB holding a copy of the file's `trade` table (same row order). */
export async function duckInMemory(data: BenchData): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  await conn.run(`ATTACH '${data.duckFile}' AS f (READ_ONLY)`);
  await conn.run('CREATE TABLE trade AS SELECT * FROM f.trade');
  await conn.run('DETACH f');
  return conn;
}
