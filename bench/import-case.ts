/**
 * The import case: `tickscope import` of a one-million-row Trade CSV next to DuckDB reading the same
 * file into a table of a database file of its own, at one thread.
 *
 * - The file: the Trade rows of the demo generator (1 day, 20 instruments, 1M trades, seed 1) written
 *   as the app exports CSV (SPEC 8: timestamps `2024-03-06T14:30:00.123456789`, floats as shortest
 *   round-trip decimals, null empty), in time order as getTicks returns them. Made once under
 *   <scratch>/import-case/ and reused (about 15 s).
 * - Tickscope: a fresh empty database (Database.create, what `tickscope init` makes), then a fresh
 *   node process (import-ours.ts) times importFile: read, parse, every value checked, and the append
 *   written, flushed to disk and committed by renaming the manifest.
 * - DuckDB (@duckdb/node-api, threads = 1): a fresh .duckdb file, timed from opening it through
 *   `CREATE TABLE t AS SELECT * FROM read_csv(file, header = true, columns = {...})` (the types
 *   given, as Tickscope's schema gives them: timestamps TIMESTAMP_NS, symbols VARCHAR, floats DOUBLE,
 *   longs BIGINT) and `CHECKPOINT` (the table written to the file and flushed).
 * - Values: after the first (untimed) run of each side, its row count and the sums of volume and of
 *   eventTimestamp's nanoseconds (exact) and of price (to a relative 1e-9: summation order) must equal
 *   those of the rows the file was written from; every timed run checks its row count.
 * - Runs interleaved (Tickscope, DuckDB, ...) after that first one; medians reported.
 *
 * Standalone: `node dist/bench/import-case.js [--data DIR] [--runs N]` (after `npm run build`).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Column, ColumnType } from '../engine/core/column.js';
import { formatLocalNs, NULL_TS } from '../engine/core/time.js';
import { generateDemo } from '../engine/demo/generate.js';
import { Database } from '../engine/storage/database.js';
import { standardSchema } from '../engine/storage/schema.js';

export interface ImportCaseOptions {
  /** Timed runs of each side (default 5); one more untimed run each comes first. */
  readonly runs?: number;
  /** Trades in the file (default 1,000,000). */
  readonly trades?: number;
  readonly log?: (msg: string) => void;
}

export interface ImportCaseResult {
  readonly rows: number;
  /** Size of the CSV file. */
  readonly bytes: number;
  /** Medians. */
  readonly oursMs: number;
  readonly duckMs: number;
  /** oursMs / duckMs. */
  readonly ratio: number;
  readonly oursRuns: number[];
  readonly duckRuns: number[];
}

const TABLE = 'Trade';

const DUCK_TYPES: Partial<Record<ColumnType, string>> = { timestamp: 'TIMESTAMP_NS', symbol: 'VARCHAR', float: 'DOUBLE', long: 'BIGINT' };

/** What the file holds, to check both sides against. Kept beside it as JSON. */
interface FileFacts {
  readonly layout: number;
  readonly rows: number;
  readonly bytes: number;
  /** Exact sums as decimal strings; price as a number. */
  readonly volume: string;
  readonly eventTimestamp: string;
  readonly price: number;
}

/** Bumped when the file's content would change (its name carries it, so an older file is made again). */
const FILE_LAYOUT = 1;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Runs the case with files under `scratch` (made on first use, kept for the next run). */
export async function importCase(scratch: string, opts: ImportCaseOptions = {}): Promise<ImportCaseResult> {
  const runs = opts.runs ?? 5;
  const trades = opts.trades ?? 1_000_000;
  const log = opts.log ?? ((): void => {});
  const dir = join(resolve(scratch), 'import-case');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `trade-${trades}-v${FILE_LAYOUT}.csv`);
  const facts = tradeCsv(dir, file, trades, log);
  const child = fileURLToPath(new URL('./import-ours.cjs', import.meta.url));
  if (!existsSync(child)) throw new Error(`${child} is missing: run npm run build first`);

  const oursDb = join(dir, 'ours-db');
  const runOurs = (check: boolean): number => {
    rmSync(oursDb, { recursive: true, force: true });
    Database.create(oursDb); // what `tickscope init` makes: every standard table, empty
    const out = execFileSync(process.execPath, [child, JSON.stringify({ db: oursDb, table: TABLE, file })], { encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop()!) as { ms: number; rows: number };
    if (r.rows !== facts.rows) throw new Error(`import case: Tickscope imported ${r.rows} rows, the file holds ${facts.rows}`);
    if (check) checkOurs(oursDb, facts);
    rmSync(oursDb, { recursive: true, force: true });
    return r.ms;
  };

  const duckFile = join(dir, 'duck.duckdb');
  const schema = standardSchema().tables.get(TABLE)!;
  const columns = schema.columns.map((c) => `'${c.name}': '${DUCK_TYPES[c.type]!}'`).join(', ');
  const runDuck = async (check: boolean): Promise<number> => {
    rmSync(duckFile, { force: true });
    rmSync(`${duckFile}.wal`, { force: true });
    const started = performance.now();
    const instance = await DuckDBInstance.create(duckFile, { threads: '1' });
    const conn = await instance.connect();
    await conn.run(`CREATE TABLE t AS SELECT * FROM read_csv('${file}', header = true, columns = {${columns}})`);
    await conn.run('CHECKPOINT');
    const ms = performance.now() - started;
    const reader = await conn.runAndReadAll(
      'SELECT count(*)::VARCHAR, sum(volume)::VARCHAR, sum(epoch_ns(eventTimestamp)::HUGEINT)::VARCHAR, sum(price) FROM t',
    );
    const [count, volume, ts, price] = reader.getRows()[0]!;
    conn.closeSync();
    instance.closeSync();
    rmSync(duckFile, { force: true });
    rmSync(`${duckFile}.wal`, { force: true });
    if (Number(count) !== facts.rows) throw new Error(`import case: DuckDB read ${String(count)} rows, the file holds ${facts.rows}`);
    if (check) checkSums('DuckDB', { volume: String(volume), eventTimestamp: String(ts), price: Number(price) }, facts);
    return ms;
  };

  log(`import case: ${facts.rows.toLocaleString('en-US')} rows, ${(facts.bytes / 1048576).toFixed(1)} MiB; a first run of each side (values checked), then ${runs} timed`);
  runOurs(true);
  await runDuck(true);
  const ours: number[] = [];
  const duck: number[] = [];
  for (let i = 0; i < runs; i++) {
    ours.push(runOurs(false));
    duck.push(await runDuck(false));
    log(`  run ${i + 1}: tickscope ${ours[i]!.toFixed(0)} ms, duckdb ${duck[i]!.toFixed(0)} ms`);
  }
  const oursMs = median(ours);
  const duckMs = median(duck);
  return { rows: facts.rows, bytes: facts.bytes, oursMs, duckMs, ratio: oursMs / duckMs, oursRuns: ours, duckRuns: duck };
}

/** The CSV (and its facts), written from the demo generator's Trade rows unless already there. */
function tradeCsv(dir: string, file: string, trades: number, log: (msg: string) => void): FileFacts {
  const factsFile = `${file}.json`;
  if (existsSync(file) && existsSync(factsFile)) {
    const facts = JSON.parse(readFileSync(factsFile, 'utf8')) as FileFacts;
    if (facts.layout === FILE_LAYOUT && facts.bytes === statSync(file).size) return facts;
  }
  const demo = join(dir, 'demo-source');
  rmSync(demo, { recursive: true, force: true });
  log(`import case: generating ${trades.toLocaleString('en-US')} demo trades for ${basename(file)} ...`);
  generateDemo(demo, { days: 1, instruments: 20, tradesPerDay: trades, seed: 1 });
  const db = Database.open(demo);
  const defs = db.table(TABLE).columns;
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  let rows = 0;
  let volume = 0n;
  let eventTimestamp = 0n;
  let price = 0;
  try {
    let buf = `${defs.map((d) => d.name).join(',')}\n`;
    for (const key of db.partitionKeys(TABLE)) {
      const p = db.partition(TABLE, key)!;
      const cells = defs.map((d) => cellText(p.column(d.name)));
      const vol = p.column('volume');
      const ts = p.column('eventTimestamp');
      const px = p.column('price');
      // time order, as getTicks returns rows and the app exports them
      const order = p.timeOrder() ?? Int32Array.from({ length: p.rows }, (_, i) => i);
      for (const i of order) {
        for (let j = 0; j < cells.length; j++) buf += (j ? ',' : '') + cells[j]!(i);
        buf += '\n';
        if (vol.type === 'long' && vol.data[i] !== NULL_TS) volume += vol.data[i]!;
        if (ts.type === 'timestamp') eventTimestamp += ts.data[i]!;
        if (px.type === 'float' && px.data[i] === px.data[i]) price += px.data[i]!;
        rows++;
        if (buf.length > 1 << 20) {
          writeSync(fd, buf);
          buf = '';
        }
      }
    }
    writeSync(fd, buf);
  } finally {
    closeSync(fd);
  }
  const facts: FileFacts = { layout: FILE_LAYOUT, rows, bytes: statSync(tmp).size, volume: String(volume), eventTimestamp: String(eventTimestamp), price };
  renameSync(tmp, file);
  writeFileSync(factsFile, JSON.stringify(facts));
  rmSync(demo, { recursive: true, force: true });
  return facts;
}

const csvField = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** A column's CSV text per row, as the app exports it (UTC; null empty). */
function cellText(c: Column): (i: number) => string {
  switch (c.type) {
    case 'timestamp':
      return (i) => (c.data[i] === NULL_TS ? '' : formatLocalNs(c.data[i]!));
    case 'long':
      return (i) => (c.data[i] === NULL_TS ? '' : String(c.data[i]));
    case 'float':
      return (i) => (c.data[i] === c.data[i] ? String(c.data[i]) : '');
    case 'symbol':
      return (i) => csvField(c.dict.get(c.codes[i]!));
    default:
      throw new Error(`import case: no CSV text for ${c.type} columns`);
  }
}

/** The imported table's row count and sums against the file's. */
function checkOurs(dir: string, facts: FileFacts): void {
  const db = Database.open(dir);
  let rows = 0;
  let volume = 0n;
  let eventTimestamp = 0n;
  let price = 0;
  for (const key of db.partitionKeys(TABLE)) {
    const p = db.partition(TABLE, key)!;
    const vol = p.column('volume');
    const ts = p.column('eventTimestamp');
    const px = p.column('price');
    for (let i = 0; i < p.rows; i++) {
      if (vol.type === 'long' && vol.data[i] !== NULL_TS) volume += vol.data[i]!;
      if (ts.type === 'timestamp') eventTimestamp += ts.data[i]!;
      if (px.type === 'float' && px.data[i] === px.data[i]) price += px.data[i]!;
    }
    rows += p.rows;
  }
  if (rows !== facts.rows) throw new Error(`import case: Tickscope's table holds ${rows} rows, the file ${facts.rows}`);
  checkSums('Tickscope', { volume: String(volume), eventTimestamp: String(eventTimestamp), price }, facts);
}

function checkSums(side: string, got: { volume: string; eventTimestamp: string; price: number }, facts: FileFacts): void {
  if (got.volume !== facts.volume) throw new Error(`import case: ${side}'s sum of volume is ${got.volume}, the file's ${facts.volume}`);
  if (got.eventTimestamp !== facts.eventTimestamp) {
    throw new Error(`import case: ${side}'s sum of eventTimestamp is ${got.eventTimestamp} ns, the file's ${facts.eventTimestamp}`);
  }
  if (Math.abs(got.price - facts.price) > 1e-9 * Math.abs(facts.price)) throw new Error(`import case: ${side}'s sum of price is ${got.price}, the file's ${facts.price}`);
}

// Standalone: only when this file itself is the program (not when bundled into bench.js).
const self = fileURLToPath(import.meta.url);
if (basename(self) === 'import-case.js' && process.argv[1] !== undefined && resolve(process.argv[1]) === self) {
  const { values } = parseArgs({ options: { data: { type: 'string', default: '.bench-data' }, runs: { type: 'string', default: '5' } } });
  const r = await importCase(values.data, { runs: Number(values.runs), log: (msg) => console.log(msg) });
  console.log(
    `import ${r.rows.toLocaleString('en-US')} rows (${(r.bytes / 1048576).toFixed(1)} MiB CSV): tickscope ${r.oursMs.toFixed(0)} ms, duckdb ${r.duckMs.toFixed(0)} ms (1 thread), ratio ${r.ratio.toFixed(2)}`,
  );
}
