/**
 * Bench data: a demo database generated once into .bench-data/ (reused while its parameters match),
 * and the same rows loaded into an in-memory DuckDB for the side-by-side timings.
 */
import { createWriteStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { generateDemo } from '../engine/demo/generate.js';
import { Database } from '../engine/storage/database.js';
import { textCells } from '../engine/gateway/render.js';

export interface BenchData {
  readonly dir: string;
  readonly trades: number;
  readonly generatedSeconds: number | null;
}

export interface DemoScale {
  readonly days: number;
  readonly instruments: number;
  readonly tradesPerDay: number;
}

/** The demo database for a scale, generated on first use. */
export function benchDatabase(root: string, scale: DemoScale): BenchData {
  const dir = join(root, `demo-${scale.days}d-${scale.instruments}i-${scale.tradesPerDay}t`);
  let generatedSeconds: number | null = null;
  if (!existsSync(join(dir, 'manifest.json'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    const t0 = performance.now();
    generateDemo(dir, { ...scale, seed: 1 });
    generatedSeconds = (performance.now() - t0) / 1000;
  }
  return { dir, trades: Database.open(dir).rowCount('Trade'), generatedSeconds };
}

/** Writes a table of our database as CSV with timestamps as integer nanoseconds (exact for DuckDB). */
async function exportForDuckDb(db: Database, table: string, path: string): Promise<string[]> {
  const t = db.table(table);
  const out = createWriteStream(path);
  const names = t.columns.filter((c) => !c.type.endsWith('[]')).map((c) => c.name);
  out.write(`${names.join(',')}\n`);
  for (const key of db.partitionKeys(table)) {
    const p = db.partition(table, key)!;
    const cells = names.map((n) => {
      const c = p.column(n);
      if (c.type === 'timestamp') return (i: number) => (c.data[i] === -9223372036854775808n ? '' : String(c.data[i]));
      const text = textCells(c, 'UTC');
      return (i: number) => {
        const s = text(i);
        return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
      };
    });
    let buf = '';
    for (let i = 0; i < p.rows; i++) {
      buf += `${cells.map((f) => f(i)).join(',')}\n`;
      if (buf.length > 1 << 20) {
        if (!out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r()));
        buf = '';
      }
    }
    out.write(buf);
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return names;
}

const DUCK_TYPES: Record<string, string> = {
  timestamp: 'BIGINT',
  symbol: 'VARCHAR',
  string: 'VARCHAR',
  float: 'DOUBLE',
  long: 'BIGINT',
  int: 'INTEGER',
  boolean: 'BOOLEAN',
  date: 'DATE',
  timespan: 'BIGINT',
};

/** An in-memory DuckDB holding the same Trade rows, sorted by instrument then time. */
export async function duckDbWithTrades(data: BenchData): Promise<DuckDBConnection> {
  const db = Database.open(data.dir);
  const csvPath = join(data.dir, '..', `${data.dir.split('/').pop()}-trade.csv`);
  const names = existsSync(csvPath)
    ? db.table('Trade').columns.filter((c) => !c.type.endsWith('[]')).map((c) => c.name)
    : await exportForDuckDb(db, 'Trade', csvPath);
  const t = db.table('Trade');
  const types = names.map((n) => `'${n}': '${DUCK_TYPES[t.columns.find((c) => c.name === n)!.type]}'`).join(', ');
  const select = names
    .map((n) => (t.columns.find((c) => c.name === n)!.type === 'timestamp' ? `make_timestamp_ns(${n}) AS ${n}` : n))
    .join(', ');
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  await conn.run(
    `CREATE TABLE trade AS SELECT ${select} FROM read_csv('${csvPath}', header=true, columns={${types}}) ORDER BY instrumentID, eventTimestamp`,
  );
  return conn;
}
