/**
 * The import-many case (issue 30): a mapped import of many small files, a day of 100 symbols as 100
 * CSVs in QuantConnect Lean's AlgoSeek layout, next to DuckDB reading the same files with a glob into
 * a table. Both are the whole command a user runs, timed by the command cases' timer
 * (command-timing.ts): wall clock beyond a bare `node -e 0`, runs interleaved, medians.
 *
 * - The files: `<sym>/20131008_trade.csv`, one folder per symbol (lower case, `aapl/`), no header,
 *   each row `ms since midnight New York,price x 10000,size,exchange,conditions,suspicious`
 *   (`34200000,4869900,100,NASDAQ,00000000,0`), in time order; 100 symbols whose trade counts fall
 *   from ~40,000 (the first) to ~2,700 (the last), 845,895 rows and 31 MB in all. Seeded, made once
 *   under <data>/import-many/ and reused (a few seconds); what they hold (rows per symbol, sums,
 *   first and last instant) is kept beside them as JSON.
 * - Tickscope: `tickscope import --db DIR --map lean.json FILES` (bin/tickscope.cjs: read, parse, map,
 *   check, durable atomic append, exit) into a fresh copy of an empty database (Database.create, what
 *   `tickscope init` makes), copied by the timer's untimed `before` step. The mapping is
 *   docs/import.md's: instrumentID from the folder upper-cased, eventTimestamp milliseconds since
 *   midnight New York of the file name's date, price x 0.0001, volume, tradedExchange, conditions.
 *   The import runs on one thread.
 * - DuckDB (duck-import.ts): a fresh node process creates a .duckdb file at N threads (each of the
 *   bench's thread counts) and runs `CREATE TABLE t AS SELECT <the same 14 Trade columns, made the same
 *   way> FROM read_csv('<files>/* /*.csv', header = false, filename = true, columns = {...})`, then
 *   `CHECKPOINT`, and exits; the file removed by the timer's `before` step.
 * - Values: after the timed runs, the table each side left (the last run's) is read back and must
 *   equal what the files hold: rows, rows per symbol, the sum of volume, the first and last
 *   eventTimestamp (ns, exact) and the sum of price (relative 1e-9: summation order), the distinct
 *   exchanges and conditions.
 *
 * Standalone: `node dist/bench/import-many.js [--data DIR] [--runs N] [--threads 1,2]` (after `npm
 * run build`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { symbolText } from '../engine/core/column.js';
import { mixSeed, Rng } from '../engine/demo/rng.js';
import { Database } from '../engine/storage/database.js';
import { standardSchema } from '../engine/storage/schema.js';
import { median, type DuckImportArg, type TimedCommand, type TimerInput, type TimerOutput } from './command-timing.js';
import { leanMap } from './lean-map.js';

/** What the case takes from the bench's run. */
export interface ImportManyContext {
  /** The bench's data folder: the files are kept under <root>/import-many/. */
  readonly root: string;
  /** Timed rounds (each: Tickscope, then DuckDB at each thread count). */
  readonly runs: number;
  readonly threadCounts: readonly number[];
  /** The `tickscope` command (bin/tickscope.cjs). */
  readonly tickscope: string;
  readonly log: (msg: string) => void;
  /** The timer over commands (command-timing.ts). */
  readonly timeCommands: (input: TimerInput) => TimerOutput;
  /** The bare process timed before each command: `node -e 0`. */
  readonly baseline: readonly string[];
}

export interface ImportManyResult {
  readonly files: number;
  readonly rows: number;
  readonly bytes: number;
  readonly runs: number;
  readonly nodeStartMs: number;
  readonly nodeRuns: number[];
  /** `tickscope import --map`, ms beyond the bare node. */
  readonly oursMs: number;
  readonly oursRuns: number[];
  /** DuckDB at each thread count: ms beyond the bare node, and Tickscope's ms / DuckDB's. */
  readonly duck: Record<number, { readonly ms: number; readonly runs: number[]; readonly ratio: number }>;
  /** What was checked equal on both sides. */
  readonly checked: string;
  readonly target: number;
}

const TABLE = 'Trade';
const DAY = '20131008';
/** New York's offset from UTC on DAY (EDT, UTC-4): the instants the files' facts expect. */
const DAY_UTC_MS = Date.UTC(2013, 9, 8) + 4 * 3_600_000;
const SEED = 30;
/** Bumped when the files' content would change (the folder's name carries it, so older files are made again). */
const FILES_LAYOUT = 1;
/** Trades of the first symbol, about; the k-th has about 1/(1 + k/8) of it. */
const TOP_TRADES = 40_000;
export const IMPORT_MANY_TARGET = 1;

/** 100 symbols, the most traded first. */
const SYMBOLS = (
  'aapl msft amzn goog fb nflx tsla intc csco orcl ibm qcom txn amd nvda mu adbe crm hpq emc ebay yhoo v ma jpm bac c ' +
  'wfc gs ms axp blk schw usb pnc cof met pru aig xom cvx cop slb hal oxy psx vlo mpc eog ko pep pg jnj pfe mrk abbv ' +
  'lly bmy amgn gild unh cvs wmt tgt cost hd low mcd sbux nke dis cmcsa t vz s ba lmt noc gd rtn cat de mmm ge hon ups ' +
  'fdx unp csx f gm so duk d nee exc spy qqq iwm dia'
).split(' ');

const EXCHANGES = ['NASDAQ', 'NASDAQ', 'NASDAQ', 'ARCA', 'ARCA', 'NYSE', 'BATS', 'EDGX', 'EDGA', 'BYX', 'FINRA', 'FINRA', 'AMEX', 'CHX'];
const CONDITIONS = ['00000000', '00000000', '00000000', '00000000', '00000000', '00000001', '00000010', '00100000', '04000000', '40000000'];

/** What the files hold, to check both sides against. Kept beside them as JSON. */
interface Facts {
  readonly layout: number;
  readonly files: number;
  readonly rows: number;
  readonly bytes: number;
  /** Rows per symbol, upper case. */
  readonly perSymbol: Record<string, number>;
  /** Sum of size (exact: under 2^53). */
  readonly volume: number;
  /** Sum of price x 10,000 (exact integer). */
  readonly priceUnits: number;
  /** First and last instant, ns since the epoch, as decimal strings. */
  readonly minNs: string;
  readonly maxNs: string;
  readonly exchanges: number;
  readonly conditions: number;
}

/** The mapping `tickscope import --map` reads (docs/import.md's Lean example, plus conditions). */
const LEAN_MAP = { ...leanMap({ tradedExchange: { source: 3 }, conditions: { source: 4 } }), table: TABLE };

const DUCK_TYPES: Record<string, string> = { timestamp: 'TIMESTAMP_NS', symbol: 'VARCHAR', float: 'DOUBLE', long: 'BIGINT' };

/**
 * DuckDB's statement: the 14 Trade columns, those the mapping names made as it makes them (the
 * symbol from the folder upper-cased, the instant as the file date's midnight in New York plus the
 * milliseconds, price / 10,000), the others NULL. The file name and its parts are the same for every
 * row of a file, so DuckDB works out the zone's midnight once per chunk (that expression reads as fast
 * as a literal instant; the wall-clock reading per row, timezone() of midnight + ms, took twice as long
 * to read the files); on the bench's day, no DST change, midnight + ms and the wall-clock reading
 * (Tickscope's) agree.
 */
function duckSql(filesDir: string): string {
  const made: Record<string, string> = {
    eventTimestamp: `make_timestamp_ns(epoch_ns(timezone('America/New_York', strptime(regexp_extract(filename, '(\\d{8})[^/]*$', 1), '%Y%m%d'))) + ms * 1000000)`,
    instrumentID: `upper(regexp_extract(filename, '([^/]+)/[^/]+$', 1))`,
    price: 'price / 10000',
    volume: 'size',
    tradedExchange: 'exchange',
    conditions: 'conditions',
  };
  const columns = standardSchema()
    .tables.get(TABLE)!
    .columns.map((c) => `${made[c.name] ?? `NULL::${DUCK_TYPES[c.type]!}`} AS ${c.name}`)
    .join(', ');
  const csvColumns = `{'ms': 'BIGINT', 'price': 'BIGINT', 'size': 'BIGINT', 'exchange': 'VARCHAR', 'conditions': 'VARCHAR', 'suspicious': 'BIGINT'}`;
  return `CREATE TABLE t AS SELECT ${columns} FROM read_csv('${filesDir}/*/*.csv', header = false, filename = true, columns = ${csvColumns})`;
}

/** Runs the case (the files made on first use, kept for the next run). */
export async function runImportMany(k: ImportManyContext): Promise<ImportManyResult> {
  const dir = join(resolve(k.root), 'import-many');
  mkdirSync(dir, { recursive: true });
  const filesDir = join(dir, `lean-v${FILES_LAYOUT}-${SYMBOLS.length}s`);
  const facts = leanFiles(filesDir, k.log);
  const child = fileURLToPath(new URL('./duck-import.cjs', import.meta.url));
  if (!existsSync(child)) throw new Error(`${child} is missing: run npm run build first`);

  const mapFile = join(dir, 'lean.json');
  writeFileSync(mapFile, `${JSON.stringify(LEAN_MAP, null, 2)}\n`);
  const emptyDb = join(dir, 'empty-db');
  rmSync(emptyDb, { recursive: true, force: true });
  Database.create(emptyDb); // what `tickscope init` makes: every standard table, empty
  const oursDb = join(dir, 'ours-db');
  const duckFile = (t: number): string => join(dir, `duck-${t}t.duckdb`);
  const clean = (): void => {
    rmSync(oursDb, { recursive: true, force: true });
    for (const t of k.threadCounts) for (const f of [duckFile(t), `${duckFile(t)}.wal`]) rmSync(f, { force: true });
  };
  clean();

  const ours: TimedCommand = {
    name: 'tickscope',
    argv: [process.execPath, k.tickscope, 'import', '--db', oursDb, '--map', mapFile, filesDir],
    before: ['sh', '-c', 'rm -rf "$1" && cp -R "$2" "$1"', 'sh', oursDb, emptyDb],
  };
  const sql = duckSql(filesDir);
  const duck = k.threadCounts.map(
    (t): TimedCommand => ({
      name: `duckdb@${t}`,
      argv: [process.execPath, child, JSON.stringify({ file: duckFile(t), threads: t, sql } satisfies DuckImportArg)],
      before: ['rm', '-f', duckFile(t), `${duckFile(t)}.wal`],
    }),
  );
  k.log(`  import-many: ${facts.files} files, ${facts.rows.toLocaleString('en-US')} rows, ${(facts.bytes / 1e6).toFixed(1)} MB; ${k.runs} timed rounds after one untimed`);
  const timed = k.timeCommands({ commands: [ours, ...duck], baseline: k.baseline, warmups: 1, runs: k.runs });
  const said = timed.probes['tickscope']!.head;
  if (!said.includes(`imported ${facts.rows} rows from ${facts.files} files`)) throw new Error(`import-many: tickscope import said ${JSON.stringify(said.trim())}; the files hold ${facts.rows} rows in ${facts.files} files`);

  // the tables the last runs left, against the files
  const checked = [checkSums('Tickscope', oursSums(oursDb), facts)];
  for (const t of k.threadCounts) checked.push(checkSums(`DuckDB @${t}t`, await duckSums(duckFile(t)), facts));
  clean();
  const nodeStartMs = median(timed.baseline);
  const oursMs = median(timed.runs['tickscope']!) - nodeStartMs;
  return {
    files: facts.files,
    rows: facts.rows,
    bytes: facts.bytes,
    runs: k.runs,
    nodeStartMs,
    nodeRuns: timed.baseline,
    oursMs,
    oursRuns: timed.runs['tickscope']!,
    duck: Object.fromEntries(
      k.threadCounts.map((t) => {
        const ms = median(timed.runs[`duckdb@${t}`]!) - nodeStartMs;
        return [t, { ms, runs: timed.runs[`duckdb@${t}`]!, ratio: oursMs / ms }];
      }),
    ),
    checked: checked[0]!,
    target: IMPORT_MANY_TARGET,
  };
}

/** A side's table, read back: what is checked against the files. */
interface Sums {
  readonly rows: number;
  readonly perSymbol: Record<string, number>;
  readonly volume: number;
  readonly price: number;
  readonly minNs: string;
  readonly maxNs: string;
  readonly exchanges: number;
  readonly conditions: number;
}

/** Tickscope's imported table, read back. */
function oursSums(dbDir: string): Sums {
  const db = Database.open(dbDir);
  const perSymbol: Record<string, number> = {};
  let rows = 0;
  let volume = 0;
  let price = 0;
  let minNs: bigint | null = null;
  let maxNs: bigint | null = null;
  const exchanges = new Set<string>();
  const conditions = new Set<string>();
  for (const key of db.partitionKeys(TABLE)) {
    const p = db.partition(TABLE, key)!;
    const id = p.column('instrumentID');
    const vol = p.column('volume');
    const ts = p.column('eventTimestamp');
    const px = p.column('price');
    const ex = p.column('tradedExchange');
    const cond = p.column('conditions');
    if (id.type !== 'symbol' || vol.type !== 'long' || ts.type !== 'timestamp' || px.type !== 'float' || ex.type !== 'symbol' || cond.type !== 'symbol') {
      throw new Error(`import-many: Tickscope's ${TABLE} columns are not of the types expected`);
    }
    for (let i = 0; i < p.rows; i++) {
      const s = symbolText(id, i);
      perSymbol[s] = (perSymbol[s] ?? 0) + 1;
      volume += Number(vol.data[i]!);
      price += px.data[i]!;
      const t = ts.data[i]!;
      if (minNs === null || t < minNs) minNs = t;
      if (maxNs === null || t > maxNs) maxNs = t;
      exchanges.add(symbolText(ex, i));
      conditions.add(symbolText(cond, i));
    }
    rows += p.rows;
  }
  return { rows, perSymbol, volume, price, minNs: String(minNs), maxNs: String(maxNs), exchanges: exchanges.size, conditions: conditions.size };
}

/** DuckDB's table, read back from its file. */
async function duckSums(file: string): Promise<Sums> {
  const instance = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const all = (
      await conn.runAndReadAll(
        `SELECT count(*)::DOUBLE, sum(volume)::DOUBLE, sum(price), min(epoch_ns(eventTimestamp))::VARCHAR, max(epoch_ns(eventTimestamp))::VARCHAR,
                count(DISTINCT tradedExchange)::DOUBLE, count(DISTINCT conditions)::DOUBLE FROM t`,
      )
    ).getRows()[0]!;
    const bySymbol = (await conn.runAndReadAll('SELECT instrumentID, count(*)::DOUBLE FROM t GROUP BY 1')).getRows();
    return {
      rows: Number(all[0]),
      volume: Number(all[1]),
      price: Number(all[2]),
      minNs: String(all[3]),
      maxNs: String(all[4]),
      exchanges: Number(all[5]),
      conditions: Number(all[6]),
      perSymbol: Object.fromEntries(bySymbol.map((r) => [String(r[0]), Number(r[1])])),
    };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** A side's table against the files; returns what was checked, or throws naming the first difference. */
function checkSums(side: string, got: Sums, facts: Facts): string {
  const differ = (what: string, g: unknown, want: unknown): never => {
    throw new Error(`import-many: ${side}'s ${what} is ${String(g)}, the files' ${String(want)}`);
  };
  if (got.rows !== facts.rows) differ('row count', got.rows, facts.rows);
  const symbols = Object.keys(facts.perSymbol);
  if (Object.keys(got.perSymbol).length !== symbols.length) differ('number of symbols', Object.keys(got.perSymbol).length, symbols.length);
  for (const s of symbols) if (got.perSymbol[s] !== facts.perSymbol[s]) differ(`row count of ${s}`, got.perSymbol[s], facts.perSymbol[s]);
  if (got.volume !== facts.volume) differ('sum of volume', got.volume, facts.volume);
  const price = facts.priceUnits / 10_000;
  if (!(Math.abs(got.price - price) <= 1e-9 * Math.abs(price))) differ('sum of price', got.price, price);
  if (got.minNs !== facts.minNs) differ('first eventTimestamp (ns)', got.minNs, facts.minNs);
  if (got.maxNs !== facts.maxNs) differ('last eventTimestamp (ns)', got.maxNs, facts.maxNs);
  if (got.exchanges !== facts.exchanges) differ('number of distinct tradedExchange', got.exchanges, facts.exchanges);
  if (got.conditions !== facts.conditions) differ('number of distinct conditions', got.conditions, facts.conditions);
  return `rows, rows of each of the ${symbols.length} symbols, sum of volume, first and last eventTimestamp (ns), sum of price (relative 1e-9), distinct tradedExchange and conditions`;
}

/** The files (and their facts), written unless already there. */
function leanFiles(dir: string, log: (msg: string) => void): Facts {
  const factsFile = `${dir}.json`;
  if (existsSync(dir) && existsSync(factsFile)) {
    const facts = JSON.parse(readFileSync(factsFile, 'utf8')) as Facts;
    if (facts.layout === FILES_LAYOUT) return facts;
  }
  log(`  import-many: writing ${SYMBOLS.length} Lean trade files under ${dir} ...`);
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
  const perSymbol: Record<string, number> = {};
  let rows = 0;
  let bytes = 0;
  let volume = 0;
  let priceUnits = 0;
  let minMs = Infinity;
  let maxMs = -Infinity;
  const exchanges = new Set<string>();
  const conditions = new Set<string>();
  SYMBOLS.forEach((sym, k) => {
    const rng = new Rng(mixSeed(SEED, k));
    const n = Math.round((TOP_TRADES / (1 + k / 8)) * (0.85 + 0.3 * rng.next()));
    // times: uniform over the session 09:30-16:00 New York, sorted (ties allowed: trades in one ms)
    const times = new Int32Array(n);
    for (let i = 0; i < n; i++) times[i] = 34_200_000 + rng.int(23_400_000);
    times.sort();
    let cents = Math.round(1000 + rng.next() * 49000); // $10 to $500
    const lines: string[] = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const u = rng.next();
      if (u < 0.2 && cents > 100) cents--;
      else if (u < 0.4) cents++;
      const units = cents * 100 + (rng.chance(0.05) ? 1 + rng.int(99) : 0); // some sub-penny prints
      const v = rng.next();
      const size = v < 0.55 ? 100 : v < 0.8 ? 1 + rng.int(99) : v < 0.97 ? 100 * (2 + rng.int(9)) : 1000 + rng.int(9000);
      const exchange = rng.pick(EXCHANGES);
      const condition = rng.pick(CONDITIONS);
      lines[i] = `${times[i]},${units},${size},${exchange},${condition},${rng.chance(0.001) ? 1 : 0}`;
      volume += size;
      priceUnits += units;
      exchanges.add(exchange);
      conditions.add(condition);
    }
    if (n > 0) {
      minMs = Math.min(minMs, times[0]!);
      maxMs = Math.max(maxMs, times[n - 1]!);
    }
    const text = `${lines.join('\n')}\n`;
    mkdirSync(join(tmp, sym), { recursive: true });
    writeFileSync(join(tmp, sym, `${DAY}_trade.csv`), text);
    perSymbol[sym.toUpperCase()] = n;
    rows += n;
    bytes += Buffer.byteLength(text);
  });
  const ns = (ms: number): string => String(BigInt(DAY_UTC_MS + ms) * 1_000_000n);
  const facts: Facts = {
    layout: FILES_LAYOUT,
    files: SYMBOLS.length,
    rows,
    bytes,
    perSymbol,
    volume,
    priceUnits,
    minNs: ns(minMs),
    maxNs: ns(maxMs),
    exchanges: exchanges.size,
    conditions: conditions.size,
  };
  renameSync(tmp, dir);
  writeFileSync(factsFile, JSON.stringify(facts));
  return facts;
}

/** The case's lines of the bench's printout. */
export function printImportMany(r: ImportManyResult, threadCounts: readonly number[]): void {
  const ms = (x: number): string => x.toFixed(2).padStart(9);
  console.log('');
  console.log(
    `import-many: a mapped import of ${r.files} Lean trade CSVs (a day of ${r.files} symbols, ${r.rows} rows, ${(r.bytes / 1e6).toFixed(1)} MB) into a fresh database, the whole command, ms beyond a bare node (${r.nodeStartMs.toFixed(2)} ms), median of ${r.runs}; ratio = tickscope / duckdb:`,
  );
  console.log(`  tickscope import --map ${ms(r.oursMs)} ms   (one thread)`);
  for (const t of threadCounts) {
    const d = r.duck[t]!;
    console.log(`  duckdb @${t}t read_csv   ${ms(d.ms)} ms   ratio @${t}t ${d.ratio.toFixed(2)}   target <= ${r.target}${d.ratio > r.target ? '  MISSED' : ''}`);
  }
  console.log(`  values equal: ${r.checked}`);
}

// Standalone: only when this file itself is the program (not when bundled into bench.js).
const self = fileURLToPath(import.meta.url);
if (basename(self) === 'import-many.js' && process.argv[1] !== undefined && resolve(process.argv[1]) === self) {
  const { values } = parseArgs({ options: { data: { type: 'string', default: '.bench-data' }, runs: { type: 'string', default: '5' }, threads: { type: 'string', default: '1,2' } } });
  const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
  const threadCounts = values.threads.split(',').map(Number);
  const r = await runImportMany({
    root: values.data,
    runs: Number(values.runs),
    threadCounts,
    tickscope: here('../../bin/tickscope.cjs'),
    log: (msg) => console.log(msg),
    timeCommands: (input) => {
      const out = execFileSync(process.execPath, [here('spawn-timer.cjs')], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 26 });
      return JSON.parse(out.trim().split('\n').pop()!) as TimerOutput;
    },
    baseline: [process.execPath, '-e', '0'],
  });
  printImportMany(r, threadCounts);
}
