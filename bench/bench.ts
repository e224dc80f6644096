/**
 * npm run bench: Tickscope's engine and DuckDB on the same data, the frozen case list of cases.ts.
 *
 * Warm cases (one process, data loaded on both sides):
 * - values first: each side's result is read cell by cell and compared (cells.ts); a difference fails
 *   the case loudly, naming column, row and both values, and the run exits non-zero;
 * - timed region, symmetric: Tickscope = engine.call plus every column of its result as a typed array
 *   (`table.columns`: a result that is a view over stored columns is gathered, as DuckDB's is copied out);
 *   DuckDB = the query to a materialized result plus every column of every chunk read into a JS
 *   typed array or array (duck-read.ts). Neither side builds per-row objects or JSON;
 * - runs interleaved (ours, duck, ours, duck, ...), a full GC before each timed run (outside the
 *   timing), median of --runs after --warmups;
 * - at each --threads count N: DuckDB `SET threads = N`; Tickscope's getTicks/getStats cases run through
 *   an executor of N query workers (Executor.call: the query split across idle workers by identifier
 *   ranges when it can, its result's columns transferred to this thread), as `tickscope serve` and the
 *   desktop app run them; the order analytics cases too (they do not split: one worker runs each).
 * Order analytics cases (cases-orders.ts): the same method; generateOrderAnalytics writes, so it runs on
 * per-run scratch copies of the database and the .duckdb file (data.ts scratchCopies).
 * Cold and output cases: the command a user runs, timed whole (command-timing.ts): `tickscope call`
 * (bin/tickscope.cjs: launcher, code cache, query, rendering, exit) to /dev/null, spawned by a small
 * timer process (spawn-timer.ts) alternately with a bare `node -e 0`, wall clock less the bare node's.
 * DuckDB's side, spawned the same way: a node process opens the .duckdb file and COPYs the same rows
 * TO '/dev/null' (duck-copy.ts). Cold: ticks-1i-1h as JSON; output: a full day as JSON, CSV (both
 * beside DuckDB's) and Arrow. Row counts of both sides checked equal before the timed runs.
 * Import cases: import-case.ts (one 1M-row CSV, `importFile` timed in a fresh process against DuckDB's
 * read_csv at 1 thread) and import-many.ts (`tickscope import --map` of 100 small Lean CSVs against
 * DuckDB's read_csv of the same files by a glob, each a fresh process timed whole by the timer).
 * Memory cases: fresh processes (memory.ts; orders-memory.ts, peak RSS of generateOrderAnalytics over
 * every date with and without instrumentBatchSz).
 * The executor's measurements (informational, not in the frozen list), fresh processes too:
 * responsiveness.ts (latency of a trivial HTTP request while a full-day getTicks runs on the serving
 * thread vs on the executor), cancel-latency.ts (cancel of ticks-ffill-1d and the next query),
 * workers-memory.ts (RSS growth with 1 and 2 workers, and of an idle worker).
 * kdb+ cases (kdb-cases.ts; not against DuckDB): the bench's Trade table also written as kdb+ HDBs
 * (kdb-data.ts: uncompressed, zlib, zstd), the same queries timed there and on the native database;
 * kdb-year, only when asked by --cases: a cold narrow query on 250 date partitions vs one.
 * Results also go to <data>/last-run.json.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Table } from '../engine/core/table.js';
import { Engine } from '../engine/engine.js';
import { Executor } from '../engine/executor/executor.js';
import { importCase, type ImportCaseResult } from './import-case.js';
import { type ImportManyResult, printImportMany, runImportMany } from './import-many.js';
import { loadSettings } from '../engine/executor/settings.js';
import { STORAGE_FORMAT } from '../engine/storage/format.js';
import { type CaseContext, type CaseQuery, kdbDate, nextDate } from './case-query.js';
import { caseQueries } from './case-queries.js';
import { ALL_CASE_IDS, type CaseId, DEFAULT_CASE_IDS, EXECUTOR_CASES, KDB_CASES, type KdbWarmCaseId, WARM_CASES, type WarmCaseId } from './cases.js';
import { type CellColumn, checkValues, FLOAT_TOLERANCE, tableCells, ValueMismatch } from './cells.js';
import { beyondNode, COPY_OPTIONS, csvRows, type DuckCopyArg, median, type Probe, type TimedCommand, type TimerInput, type TimerOutput } from './command-timing.js';
import { benchData, type BenchData, DEFAULT_SCALE, type DemoScale, duckInMemory, QUICK_SCALE, removeScratch, scratchCopies } from './data.js';
import { type DuckColumns, duckCells, duckQuery } from './duck-read.js';
import { type KdbCaseResult, kdbQueries, printKdbWarm, runKdbWarm } from './kdb-cases.js';
import { kdbBenchData } from './kdb-data.js';
import { type KdbYearResult, printKdbYear, runKdbYear } from './kdb-year.js';

const HELP = `npm run bench -- [options]
  --runs N          timed runs per case and thread count, median reported (default 9; 7 or more for a result)
  --warmups N       untimed runs before them (default 3)
  --threads LIST    DuckDB thread counts, each a column (default 1,2)
  --cases LIST      case ids to run (default: all)
  --quick           small data: ${QUICK_SCALE.days} day, ${QUICK_SCALE.instruments} instruments, ${QUICK_SCALE.tradesPerDay.toLocaleString('en-US')} trades/day
  --days N --instruments N --trades-per-day N   another scale (default ${DEFAULT_SCALE.days}, ${DEFAULT_SCALE.instruments}, ${DEFAULT_SCALE.tradesPerDay.toLocaleString('en-US')})
  --data DIR        where data is kept (default .bench-data)
  --tickscope FILE  the tickscope command the cold and output cases run (default this checkout's bin/tickscope.cjs)
cases: ${ALL_CASE_IDS.join(', ')}
  the kdb+ cases write the data's Trade table as kdb+ HDBs under --data on first use (uncompressed, zlib, zstd: a few minutes);
  ${KDB_CASES.filter((c) => c.onlyAsked).map((c) => c.id).join(', ')} runs only when named in --cases (its 250-partition HDB, ~10 GB, is written on first use: a few minutes more)`;

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '9' },
    warmups: { type: 'string', default: '3' },
    threads: { type: 'string', default: '1,2' },
    cases: { type: 'string' },
    quick: { type: 'boolean', default: false },
    days: { type: 'string' },
    instruments: { type: 'string' },
    'trades-per-day': { type: 'string' },
    data: { type: 'string', default: '.bench-data' },
    tickscope: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(HELP);
  process.exit(0);
}

const usage = (msg: string): never => {
  console.error(`bench: ${msg}\n\n${HELP}`);
  process.exit(2);
};
const positive = (s: string, what: string): number => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 0) usage(`${what} must be a whole number, got ${s}`);
  return n;
};
const base = values.quick ? QUICK_SCALE : DEFAULT_SCALE;
const scale: DemoScale = {
  days: values.days ? positive(values.days, '--days') : base.days,
  instruments: values.instruments ? positive(values.instruments, '--instruments') : base.instruments,
  tradesPerDay: values['trades-per-day'] ? positive(values['trades-per-day'], '--trades-per-day') : base.tradesPerDay,
};
const runs = Math.max(1, positive(values.runs, '--runs'));
const warmups = positive(values.warmups, '--warmups');
const threadCounts = values.threads.split(',').map((t) => positive(t.trim(), '--threads'));
if (threadCounts.some((t) => t < 1)) usage('--threads counts must be 1 or more');
const selected: CaseId[] = values.cases ? values.cases.split(',').map((s) => s.trim()).filter(Boolean) as CaseId[] : [...DEFAULT_CASE_IDS];
for (const id of selected) {
  if (!ALL_CASE_IDS.includes(id)) usage(`unknown case ${id}`);
}
const root = resolve(values.data); // --data relative to the working folder, or absolute
// dist/bench/bench.js -> the checkout's bin/tickscope.cjs, the command `npx tickscope` runs
const tickscope = values.tickscope ? resolve(values.tickscope) : fileURLToPath(new URL('../../bin/tickscope.cjs', import.meta.url));

// A full GC between timed runs (outside the timing), so neither side pays for the other's garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const geomean = (xs: readonly number[]): number => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
const ms = (x: number): string => x.toFixed(2);
const mib = (b: number): string => (b / 1048576).toFixed(1);

interface Timing {
  readonly ours: number;
  readonly duck: number;
  readonly ratio: number;
  /** Informational: DuckDB's query to a materialized result alone, without reading it into JS (median of 3). */
  duckQueryOnly?: number;
  readonly oursRuns: number[];
  readonly duckRuns: number[];
}

interface WarmResult {
  readonly id: WarmCaseId;
  readonly name: string;
  readonly target: number;
  rows: number | null;
  readonly timings: Record<number, Timing>;
  error: string | null;
}

/** Interleaved timing: ours, duck, ours, duck, ...; medians of the runs after the warm-ups. */
async function timeInterleaved(ours: () => unknown, duck: () => Promise<unknown>): Promise<Timing> {
  // ours may be a promise (through the executor): awaited inside its timing
  const o: number[] = [];
  const d: number[] = [];
  for (let i = 0; i < warmups + runs; i++) {
    gc();
    let t0 = performance.now();
    await ours();
    const to = performance.now() - t0;
    gc();
    t0 = performance.now();
    await duck();
    const td = performance.now() - t0;
    if (i >= warmups) {
      o.push(to);
      d.push(td);
    }
  }
  const ours_ = median(o);
  const duck_ = median(d);
  return { ours: ours_, duck: duck_, ratio: ours_ / duck_, oursRuns: o, duckRuns: d };
}

/** The value check of one case; returns the row count. */
function checkCase(id: WarmCaseId, q: CaseQuery, ours: Table, duckResult: DuckColumns): number {
  const duckCols: CellColumn[] = duckCells(duckResult).map((c, i) => {
    const map = q.duckCell?.[i];
    return map ? { ...c, kind: 'time', cell: (r: number) => map(c.cell(r)) } : c;
  });
  const absolute = Object.fromEntries(Object.entries(q.tolerances ?? {}).map(([k, v]) => [k, v.absolute]));
  checkValues(id, tableCells(ours), duckCols, q.orderKeys, absolute);
  return ours.length;
}

async function runWarm(engine: Engine, duck: DuckDBConnection, id: WarmCaseId, q: CaseQuery, executors: ReadonlyMap<number, Executor>): Promise<WarmResult> {
  const info = WARM_CASES.find((c) => c.id === id)!;
  const res: WarmResult = { id, name: info.name, target: info.target, rows: null, timings: {}, error: null };
  const onExecutor = (ex: Executor) => async (): Promise<Table> => {
    const r = await ex.call(q.op, q.args);
    if (!r.ok) throw new Error(`${id}: ac ${r.header.ac}: ${r.header.ai}`);
    void r.result.table.columns; // a merged split result is a view until gathered
    return r.result.table;
  };
  const duckRun = q.duckRun;
  const theirs = duckRun ? () => duckRun(duck) : () => duckQuery(duck, q.sql);
  try {
    await q.precheck?.(engine, duck);
    for (const statement of q.duckSetup ?? []) await duck.run(statement);
    for (const threads of threadCounts) {
      await duck.run(`SET threads = ${threads}`);
      const ours = onExecutor(executors.get(threads)!);
      // values first (also the first warm-up): checked at every thread count, as DuckDB's plan differs
      res.rows = checkCase(id, q, await ours(), await theirs());
      const t = await timeInterleaved(ours, theirs);
      const alone: number[] = [];
      for (let i = 0; i < 3; i++) {
        gc();
        const t0 = performance.now();
        await duck.run(q.sql);
        alone.push(performance.now() - t0);
      }
      t.duckQueryOnly = median(alone);
      res.timings[threads] = t;
      const rest = duckRun ? 'its write and reading the rows into JS the rest' : 'reading it into JS the rest';
      console.log(
        `  ${id} @${threads}t: ${res.rows} rows, values equal; tickscope ${ms(t.ours)} ms, duckdb ${ms(t.duck)} ms (query alone ${ms(t.duckQueryOnly)}, ${rest}), ratio ${t.ratio.toFixed(2)}`,
      );
    }
  } catch (e) {
    res.error = e instanceof ValueMismatch ? e.message : `${id}: ${(e as Error).stack ?? String(e)}`;
    const setup = q.duckSetup ? `${q.duckSetup.join('; ')}; ` : '';
    res.error += `\n  tickscope: ${q.op} ${JSON.stringify(q.args)}${q.on === 'scratch' ? ' (on the scratch copy)' : ''}\n  duckdb: ${setup}${q.sql.replace(/\s+/g, ' ')}`;
    console.error(`\n!!! ${id} FAILED\n${res.error}\n`);
  }
  return res;
}

const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));

/** Runs a child node process; its last stdout line is JSON. */
function child<T>(script: string, arg: unknown, nodeFlags: readonly string[] = []): T {
  const out = execFileSync(process.execPath, [...nodeFlags, here(script), ...(arg === undefined ? [] : [JSON.stringify(arg)])], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}

/** Runs the timer (spawn-timer.cjs, one small process) over `input`: see command-timing.ts. */
function timeCommands(input: TimerInput): TimerOutput {
  // the input through standard input: command lines can be long
  const out = execFileSync(process.execPath, [here('spawn-timer.cjs')], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 26 });
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as TimerOutput;
}
const BARE_NODE = [process.execPath, '-e', '0'];
/** `tickscope call` of an operation, standard output as the timer sets it. */
const callCommand = (name: string, db: string, format: string, op: string, args: unknown): TimedCommand => ({
  name,
  argv: [process.execPath, tickscope, 'call', '--db', db, '--format', format, op, JSON.stringify(args)],
});
/** DuckDB's counterpart (duck-copy.ts): timed to /dev/null; its probe counts the bytes. */
const duckCommand = (name: string, arg: Omit<DuckCopyArg, 'to'>): TimedCommand => {
  const argv = (to: DuckCopyArg['to']): string[] => [process.execPath, here('duck-copy.cjs'), JSON.stringify({ ...arg, to } satisfies DuckCopyArg)];
  return { name, argv: argv('/dev/null'), probe: argv('count') };
};
/** Rows and bytes DuckDB's COPY wrote, from its probe's standard error. */
const duckProbe = (p: Probe): { rows: number; bytes: number } => JSON.parse(p.stderr.trim().split('\n').pop()!) as { rows: number; bytes: number };
/** Rows of `tickscope call`'s JSON, from its header. */
const jsonRows = (p: Probe): number => (JSON.parse(p.head.split(',"payload":')[0]! + '}') as { header: { rows: number } }).header.rows;

interface DuckCommandResult {
  readonly ms: number;
  readonly runs: number[];
  readonly bytes: number;
  /** Tickscope's ms / DuckDB's ms, both beyond the bare node. */
  readonly ratio: number;
}

interface ColdResult {
  readonly runs: number;
  /** Median wall clock of the bare node (`node -e 0`) the timer ran before each command. */
  readonly nodeStartMs: number;
  readonly nodeRuns: number[];
  /** `tickscope call`, ms beyond the bare node. */
  readonly oursMs: number;
  readonly oursRuns: number[];
  readonly bytes: number;
  readonly duck: Record<number, DuckCommandResult>;
  readonly rows: number;
}

/**
 * The cold case: `tickscope call` of ticks-1i-1h (JSON, the default format) to /dev/null, and DuckDB's
 * fresh process COPYing the same query's rows as JSON to /dev/null at each thread count; each timed
 * whole by the timer, beyond a bare node. Row counts checked equal on the probe runs.
 */
function runCold(data: BenchData, q: CaseQuery): ColdResult {
  const ours = callCommand('tickscope', data.dir, 'json', q.op, q.args);
  const duck = threadCounts.map((t) => duckCommand(`duckdb@${t}`, { file: data.duckFile, threads: t, sql: q.sql, format: 'json' }));
  const t = timeCommands({ commands: [ours, ...duck], baseline: BARE_NODE, warmups: 1, runs });
  const rows = jsonRows(t.probes['tickscope']!);
  for (const d of duck) {
    const r = duckProbe(t.probes[d.name]!).rows;
    if (r !== rows) throw new Error(`cold: Tickscope returned ${rows} rows, DuckDB (${d.name}) ${r}`);
  }
  const oursMs = beyondNode(t, 'tickscope');
  return {
    runs,
    nodeStartMs: median(t.baseline),
    nodeRuns: t.baseline,
    oursMs,
    oursRuns: t.runs['tickscope']!,
    bytes: t.probes['tickscope']!.bytes,
    rows,
    duck: Object.fromEntries(
      threadCounts.map((n) => {
        const name = `duckdb@${n}`;
        const ms = beyondNode(t, name);
        return [n, { ms, runs: t.runs[name]!, bytes: duckProbe(t.probes[name]!).bytes, ratio: oursMs / ms }];
      }),
    ),
  };
}

const OUTPUT_FORMATS = ['json', 'csv', 'arrow'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

interface OutputFormatResult {
  /** `tickscope call --format F`, ms beyond the bare node. */
  readonly ms: number;
  readonly runs: number[];
  readonly bytes: number;
  readonly rowsPerSec: number;
  readonly target: number;
  /** DuckDB's COPY of the same rows in the same format, at each thread count (none for Arrow). */
  readonly duck: Record<number, DuckCommandResult> | null;
}

interface OutputResult {
  readonly rows: number;
  readonly runs: number;
  readonly nodeStartMs: number;
  readonly nodeRuns: number[];
  readonly formats: Record<OutputFormat, OutputFormatResult>;
}

/**
 * The output case: `tickscope call --format json|csv|arrow` of a full day (getTicks Trade, first date,
 * every column) to /dev/null; for JSON and CSV beside DuckDB's fresh process COPYing the same rows in
 * that format to /dev/null at each thread count. Each timed whole by the timer, beyond a bare node.
 * The probe runs count the bytes and check the rows: JSON's header, CSV's lines, DuckDB's COPY count.
 */
function runOutput(data: BenchData, ctx: CaseContext, times: number): OutputResult {
  const first = ctx.dates[0]!;
  const args = { table: 'Trade', startTS: kdbDate(first), endTS: kdbDate(nextDate(first)) };
  // the rows getTicks returns, in its order (eventTimestamp, then instrumentID): see cases-ticks.ts
  const sql = `SELECT * EXCLUDE (seq) FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${nextDate(first)}' ORDER BY eventTimestamp, instrumentID`;
  const duckFormat = (f: OutputFormat): f is 'json' | 'csv' => f !== 'arrow';
  const commands = OUTPUT_FORMATS.flatMap((f) => [
    callCommand(f, data.dir, f, '.fsi.getTicks', args),
    ...(duckFormat(f) ? threadCounts.map((t) => duckCommand(`duckdb-${f}@${t}`, { file: data.duckFile, threads: t, sql, format: f })) : []),
  ]);
  const t = timeCommands({ commands, baseline: BARE_NODE, warmups: 0, runs: times });
  const rows = jsonRows(t.probes['json']!);
  const csv = csvRows(t.probes['csv']!);
  if (csv !== rows) throw new Error(`output: JSON says ${rows} rows, CSV has ${csv}`);
  for (const c of commands.filter((c) => c.name.startsWith('duckdb'))) {
    const r = duckProbe(t.probes[c.name]!).rows;
    if (r !== rows) throw new Error(`output: Tickscope returned ${rows} rows, DuckDB (${c.name}) ${r}`);
  }
  const target: Record<OutputFormat, number> = { json: 2e6, csv: 2e6, arrow: 10e6 };
  const formats = Object.fromEntries(
    OUTPUT_FORMATS.map((f) => {
      const ms = beyondNode(t, f);
      const duck = duckFormat(f)
        ? Object.fromEntries(
            threadCounts.map((n) => {
              const name = `duckdb-${f}@${n}`;
              const d = beyondNode(t, name);
              return [n, { ms: d, runs: t.runs[name]!, bytes: duckProbe(t.probes[name]!).bytes, ratio: ms / d }];
            }),
          )
        : null;
      return [f, { ms, runs: t.runs[f]!, bytes: t.probes[f]!.bytes, rowsPerSec: rows / (ms / 1000), target: target[f], duck }];
    }),
  ) as OutputResult['formats'];
  return { rows, runs: times, nodeStartMs: median(t.baseline), nodeRuns: t.baseline, formats };
}

interface MemoryChild {
  rows: number;
  heldRows: number;
  rawBytes: number;
  files: number;
  excluded: string[];
  before: NodeJS.MemoryUsage;
  held: NodeJS.MemoryUsage;
  /** The held result with every column gathered (`table.columns`). */
  gathered: NodeJS.MemoryUsage;
  repeats: NodeJS.MemoryUsage[];
}

interface MemoryResult extends MemoryChild {
  readonly date: string;
  readonly growth: number;
  readonly multiple: number;
  readonly repeatRss: number[];
  /** Largest deviation of a repeat's RSS from the first measurement, as a fraction. */
  readonly drift: number;
}

interface OrdersMemoryChild {
  rows: number;
  ms: number;
  rssBefore: number;
  /** The process's peak RSS: VmHWM (getrusage's maxrss only without /proc; see orders-memory.ts). */
  peak: number;
  peakFrom: 'VmHWM' | 'maxRSS';
  maxRSS: number;
  peakBefore: number;
  heapUsed: number;
}

interface OrdersMemoryResult {
  readonly startTS: string;
  readonly endTS: string;
  readonly batch: string;
  readonly rows: number;
  /** Medians over the runs: peak RSS of the whole process (VmHWM), and its RSS before the call. */
  readonly peakAll: number;
  readonly peakBatched: number;
  readonly rssBeforeAll: number;
  readonly rssBeforeBatched: number;
  /** 1 - batched / all. */
  readonly lower: number;
  readonly all: OrdersMemoryChild[];
  readonly batched: OrdersMemoryChild[];
}

/** Fresh processes, interleaved: generateOrderAnalytics over every date without, then with, instrumentBatchSz. */
function runOrdersMemory(dir: string, dates: readonly string[], times: number): OrdersMemoryResult {
  const startTS = kdbDate(dates[0]!);
  const endTS = kdbDate(nextDate(dates[dates.length - 1]!));
  const batch = '10';
  const all: OrdersMemoryChild[] = [];
  const batched: OrdersMemoryChild[] = [];
  for (let i = 0; i < times; i++) {
    all.push(child<OrdersMemoryChild>('orders-memory.cjs', { db: dir, startTS, endTS }));
    batched.push(child<OrdersMemoryChild>('orders-memory.cjs', { db: dir, startTS, endTS, batch }));
  }
  const rows = all[0]!.rows;
  for (const r of [...all, ...batched]) if (r.rows !== rows) throw new Error(`orders-memory: one run returned ${r.rows} rows, another ${rows}`);
  const peakAll = median(all.map((r) => r.peak));
  const peakBatched = median(batched.map((r) => r.peak));
  return {
    startTS,
    endTS,
    batch,
    rows,
    peakAll,
    peakBatched,
    rssBeforeAll: median(all.map((r) => r.rssBefore)),
    rssBeforeBatched: median(batched.map((r) => r.rssBefore)),
    lower: 1 - peakBatched / peakAll,
    all,
    batched,
  };
}

function runMemory(data: BenchData, date: string): MemoryResult {
  const r = child<MemoryChild>('memory.cjs', { db: data.dir, date }, ['--expose-gc']);
  const growth = r.held.rss - r.before.rss;
  const repeatRss = r.repeats.map((u) => u.rss);
  const drift = Math.max(...repeatRss.map((x) => Math.abs(x - r.held.rss) / r.held.rss));
  return { ...r, date, growth, multiple: growth / r.rawBytes, repeatRss, drift };
}

// The executor's measurements (informational, not in the frozen list).

interface ResponsivenessChild {
  readonly mode: 'before' | 'after';
  readonly rows: number;
  readonly warmupMs: number;
  /** ms of each probed run of the query. */
  readonly queryMs: number[];
  readonly probeMs: number;
  /** Probes sent while a query ran, and their latency quantiles (ms). */
  readonly samples: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** The same probe with nothing running (the idle stretch before the runs). */
  readonly idleSamples: number;
  readonly idleP50: number;
  readonly idleP99: number;
  /** Every probe's latency (ms): while a query ran, and in the idle stretch. */
  readonly latencies: number[];
  readonly idleLatencies: number[];
}

/** One configuration over its processes: quantiles of their probes pooled. */
interface ResponsivenessSide {
  readonly processes: number;
  readonly runs: number;
  readonly queryMedianMs: number;
  readonly samples: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly idleP50: number;
  readonly idleP99: number;
  readonly p99PerProcess: number[];
  readonly children: ResponsivenessChild[];
}

interface ResponsivenessResult {
  readonly date: string;
  readonly rows: number;
  readonly probeMs: number;
  readonly before: ResponsivenessSide;
  readonly after: ResponsivenessSide;
  readonly targetP99Ms: number;
}

/** The q-quantile, nearest rank. */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/**
 * Fresh processes, interleaved, `times` of each configuration: the query on the serving thread
 * (before), through the executor (after); each side's quantiles over the probes of its processes.
 */
function runResponsiveness(dir: string, date: string, times: number): ResponsivenessResult {
  const arg = (mode: 'before' | 'after') => ({ db: dir, date, mode, minRuns: 5, minQueryMs: 3000 });
  const before: ResponsivenessChild[] = [];
  const after: ResponsivenessChild[] = [];
  for (let i = 0; i < times; i++) {
    before.push(child<ResponsivenessChild>('responsiveness.cjs', arg('before')));
    after.push(child<ResponsivenessChild>('responsiveness.cjs', arg('after')));
  }
  const rows = before[0]!.rows;
  for (const r of [...before, ...after]) if (r.rows !== rows) throw new Error(`responsiveness: one getTicks returned ${r.rows} rows, another ${rows}`);
  const side = (cs: ResponsivenessChild[]): ResponsivenessSide => {
    const all = cs.flatMap((c) => c.latencies);
    const idle = cs.flatMap((c) => c.idleLatencies);
    const queries = cs.flatMap((c) => c.queryMs);
    return {
      processes: cs.length,
      runs: queries.length,
      queryMedianMs: median(queries),
      samples: all.length,
      p50: quantile(all, 0.5),
      p99: quantile(all, 0.99),
      max: Math.max(...all),
      idleP50: quantile(idle, 0.5),
      idleP99: quantile(idle, 0.99),
      p99PerProcess: cs.map((c) => c.p99),
      children: cs,
    };
  };
  return { date, rows, probeMs: before[0]!.probeMs, before: side(before), after: side(after), targetP99Ms: 20 };
}

interface CancelResult {
  readonly rows: number;
  readonly firstMs: number;
  readonly usualMs: number;
  readonly usualRuns: number[];
  readonly delayMs: number;
  readonly smallRows: number;
  readonly smallMs: number;
  readonly trials: Array<{ cancelled: boolean; toCancelled: number; toNext: number }>;
  /** Trials where the query was still running at the cancel (the medians are over these). */
  readonly cancelled: number;
  readonly toCancelledMs: number;
  readonly toNextMs: number;
  readonly targetNextMs: number;
}

function runCancel(dir: string, ctx: CaseContext, trials: number): CancelResult {
  const r = child<Omit<CancelResult, 'targetNextMs'>>('cancel-latency.cjs', { db: dir, ctx, trials, usualRuns: 3 });
  return { ...r, targetNextMs: 100 };
}

interface WorkersMemoryChild {
  readonly workers: number;
  readonly before: number;
  readonly after: number;
  readonly growth: number;
  /** With workers >= 1: RSS once the executor had started, before any query. */
  readonly started?: number;
  readonly ran?: Array<{ id: string; rows: number; ms: number }>;
}

interface WorkersMemoryResult {
  /** Medians over the runs (bytes). */
  readonly growth1: number;
  readonly growth2: number;
  readonly idleWorker: number;
  /** growth(2) / (growth(1) + idle worker). */
  readonly ratio: number;
  /** The target: growth(2) <= 1.2 x growth(1) + idle worker. */
  readonly limit: number;
  readonly met: boolean;
  readonly runs: { readonly one: WorkersMemoryChild[]; readonly two: WorkersMemoryChild[]; readonly idle: WorkersMemoryChild[] };
}

/** Fresh processes, interleaved (1 worker, 2 workers, an idle worker), `times` of each; medians. */
function runWorkersMemory(dir: string, ctx: CaseContext, times: number): WorkersMemoryResult {
  const one: WorkersMemoryChild[] = [];
  const two: WorkersMemoryChild[] = [];
  const idle: WorkersMemoryChild[] = [];
  const run = (workers: number) => child<WorkersMemoryChild>('workers-memory.cjs', { db: dir, ctx, workers }, ['--expose-gc']);
  for (let i = 0; i < times; i++) {
    one.push(run(1));
    two.push(run(2));
    idle.push(run(0));
  }
  const growth1 = median(one.map((r) => r.growth));
  const growth2 = median(two.map((r) => r.growth));
  const idleWorker = median(idle.map((r) => r.growth));
  const limit = 1.2 * growth1 + idleWorker;
  return { growth1, growth2, idleWorker, ratio: growth2 / (growth1 + idleWorker), limit, met: growth2 <= limit, runs: { one, two, idle } };
}

// ---------------------------------------------------------------------------------------------------

const log = (msg: string): void => console.log(msg);
const data = await benchData(root, scale, log);
log(`data: ${data.name}: ${data.trades.toLocaleString('en-US')} trades, ${scale.instruments} instruments, ${scale.days} days (${data.dir})`);
if (data.generatedSeconds !== null) log(`  generated by tickscope demo in ${data.generatedSeconds.toFixed(1)} s`);
if (data.duckBuiltSeconds !== null) log(`  ${data.name}.duckdb built in ${data.duckBuiltSeconds.toFixed(1)} s`);
const engine = Engine.open([data.dir]);
const dates = engine.defaultDatabase.partitionKeys('Trade');
// The in-memory DuckDB is for the warm cases; a run of only the child-process cases does without it
// (the instrument IDs then come from Tickscope's partition metadata, ordered as DuckDB orders them).
let duck: DuckDBConnection | null = null;
let duckVersion: string;
let ids: string[];
if (selected.some((id) => WARM_CASES.some((c) => c.id === id))) {
  const t0 = performance.now();
  duck = await duckInMemory(data);
  log(`  copied into an in-memory DuckDB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  duckVersion = String((await duckQuery(duck, 'SELECT version()')).columns[0]![0]);
  const duckRows = Number((await duckQuery(duck, 'SELECT count(*)::DOUBLE FROM trade')).columns[0]![0]);
  if (duckRows !== data.trades) throw new Error(`bench: DuckDB holds ${duckRows} trades, Tickscope ${data.trades}; delete ${data.duckFile}`);
  ids = (await duckQuery(duck, 'SELECT DISTINCT instrumentID FROM trade ORDER BY 1')).columns[0] as string[];
} else {
  const instance = await DuckDBInstance.create();
  const conn = await instance.connect();
  duckVersion = String((await duckQuery(conn, 'SELECT version()')).columns[0]![0]);
  conn.closeSync();
  instance.closeSync();
  const seen = new Set<string>();
  for (const date of dates) for (const id of engine.defaultDatabase.partition('Trade', date)!.idRanges.keys()) seen.add(id);
  seen.delete('');
  ids = [...seen].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}
const ctx: CaseContext = { dates, ids };
const queries = caseQueries(ctx);
log(`runs: median of ${runs} after ${warmups} warm-ups, interleaved; DuckDB ${duckVersion} at ${threadCounts.join(', ')} thread(s); node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'})`);
if (runs < 7) log(`  NOTE: fewer than 7 runs: a quick check, not a result`);
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ');
const loadAtStart = load();
log(`  load average at start ${loadAtStart} (other work on the machine skews the timings)`);

// The cases that write run on copies made for this run (removed at the end).
const needScratch = selected.some((id) => id === 'orders-memory' || (WARM_CASES.some((c) => c.id === id) && queries[id as WarmCaseId].on === 'scratch'));
let scratch: { dir: string; engine: Engine; instance: DuckDBInstance; duck: DuckDBConnection } | null = null;
if (needScratch) {
  const t1 = performance.now();
  const copies = scratchCopies(root, data);
  const instance = await DuckDBInstance.create(copies.duckFile);
  scratch = { dir: copies.dir, engine: Engine.open([copies.dir]), instance, duck: await instance.connect() };
  log(`  scratch copies for the cases that write: ${copies.dir} and its .duckdb (${((performance.now() - t1) / 1000).toFixed(1)} s)`);
}

// Every warm case runs through executors of 1, 2, ... workers (one per thread count and database:
// the bench's data, and the scratch copy for the cases that write), as the app and the gateway run it.
const executorsOf = new Map<string, Map<number, Executor>>();
async function executorsFor(dir: string): Promise<ReadonlyMap<number, Executor>> {
  let m = executorsOf.get(dir);
  if (!m) {
    m = new Map();
    for (const t of threadCounts) m.set(t, await Executor.start([dir], { ...loadSettings({ env: {} }), workers: t, maxRunningQueries: t }));
    executorsOf.set(dir, m);
  }
  return m;
}
const warm: WarmResult[] = [];
for (const c of WARM_CASES) {
  if (!selected.includes(c.id)) continue;
  const q = queries[c.id];
  const sides = q.on === 'scratch' ? scratch! : { engine, duck: duck!, dir: data.dir };
  warm.push(await runWarm(sides.engine, sides.duck, c.id, q, await executorsFor(sides.dir)));
}
for (const m of executorsOf.values()) for (const ex of m.values()) await ex.close();

let cold: ColdResult | null = null;
let coldError: string | null = null;
if (selected.includes('cold')) {
  log('  cold: fresh processes ...');
  try {
    cold = runCold(data, queries['ticks-1i-1h']);
  } catch (e) {
    coldError = (e as Error).stack ?? String(e);
    console.error(`\n!!! cold FAILED\n${coldError}\n`);
  }
}
let output: OutputResult | null = null;
let outputError: string | null = null;
if (selected.includes('output')) {
  log('  output: fresh processes ...');
  try {
    output = runOutput(data, ctx, Math.min(runs, 5));
  } catch (e) {
    outputError = (e as Error).stack ?? String(e);
    console.error(`\n!!! output FAILED\n${outputError}\n`);
  }
}
let imported: ImportCaseResult | null = null;
let importError: string | null = null;
if (selected.includes('import')) {
  log('  import: fresh processes ...');
  try {
    imported = await importCase(root, { runs: Math.min(runs, 5), log }); // its CSV kept under <data>/import-case between runs
  } catch (e) {
    importError = (e as Error).stack ?? String(e);
    console.error(`\n!!! import FAILED\n${importError}\n`);
  }
}
let importMany: ImportManyResult | null = null;
let importManyError: string | null = null;
if (selected.includes('import-many')) {
  log('  import-many: fresh processes ...');
  try {
    // its files kept under <data>/import-many between runs
    importMany = await runImportMany({ root, runs: Math.min(runs, 5), threadCounts, tickscope, log, timeCommands, baseline: BARE_NODE });
  } catch (e) {
    importManyError = (e as Error).stack ?? String(e);
    console.error(`\n!!! import-many FAILED\n${importManyError}\n`);
  }
}
let ordersMemory: OrdersMemoryResult | null = null;
let ordersMemoryError: string | null = null;
if (selected.includes('orders-memory')) {
  log('  orders-memory: fresh processes ...');
  try {
    ordersMemory = runOrdersMemory(scratch!.dir, dates, Math.min(runs, 3));
  } catch (e) {
    ordersMemoryError = (e as Error).stack ?? String(e);
    console.error(`\n!!! orders-memory FAILED\n${ordersMemoryError}\n`);
  }
}
let memory: MemoryResult | null = null;
let memoryError: string | null = null;
if (selected.includes('memory')) {
  log('  memory: fresh process ...');
  try {
    memory = runMemory(data, dates[0]!);
  } catch (e) {
    memoryError = (e as Error).stack ?? String(e);
    console.error(`\n!!! memory FAILED\n${memoryError}\n`);
  }
}
let responsiveness: ResponsivenessResult | null = null;
let cancelLatency: CancelResult | null = null;
let workersMemory: WorkersMemoryResult | null = null;
const executorErrors: Record<string, string> = {};
for (const c of EXECUTOR_CASES) {
  if (!selected.includes(c.id)) continue;
  log(`  ${c.id}: fresh processes ...`);
  try {
    if (c.id === 'responsiveness') responsiveness = runResponsiveness(data.dir, dates[0]!, Math.min(runs, 3));
    else if (c.id === 'cancel') cancelLatency = runCancel(data.dir, ctx, Math.max(5, runs));
    else workersMemory = runWorkersMemory(data.dir, ctx, Math.min(runs, 3));
  } catch (e) {
    executorErrors[c.id] = (e as Error).stack ?? String(e);
    console.error(`\n!!! ${c.id} FAILED\n${executorErrors[c.id]}\n`);
  }
}

// The kdb+ cases: the data's Trade table as kdb+ HDBs (written on first use), the same queries there and natively.
const kdbWarmIds = KDB_CASES.map((c) => c.id).filter((id): id is KdbWarmCaseId => id !== 'kdb-year' && selected.includes(id));
let kdbWarm: KdbCaseResult[] = [];
const kdbErrors: Record<string, string> = {};
if (kdbWarmIds.length > 0) {
  log(`  ${kdbWarmIds.join(', ')}: kdb+ HDBs of ${data.name}'s Trade ...`);
  try {
    const hdbs = kdbBenchData(root, data, log);
    const executor = (dir: string, workers: number): Promise<Executor> => Executor.start([dir], { ...loadSettings({ env: {} }), workers, maxRunningQueries: workers });
    kdbWarm = await runKdbWarm({ runs, warmups, threadCounts, gc, log, executor }, data.dir, hdbs, kdbWarmIds, kdbQueries(ctx));
  } catch (e) {
    for (const id of kdbWarmIds) kdbErrors[id] = (e as Error).stack ?? String(e);
    console.error(`\n!!! ${kdbWarmIds.join(', ')} FAILED\n${kdbErrors[kdbWarmIds[0]!]}\n`);
  }
  for (const r of kdbWarm) if (r.error) kdbErrors[r.id] = r.error;
}
let kdbYear: KdbYearResult | null = null;
if (selected.includes('kdb-year')) {
  log('  kdb-year: the year HDB, fresh processes ...');
  try {
    kdbYear = runKdbYear({ root, runs, log, timeCommands, callCommand, baseline: BARE_NODE, jsonRows, child: (script, arg) => child(script, arg) });
  } catch (e) {
    kdbErrors['kdb-year'] = (e as Error).stack ?? String(e);
    console.error(`\n!!! kdb-year FAILED\n${kdbErrors['kdb-year']}\n`);
  }
}

// ---------------------------------------------------------------------------------------------------
// The final table.

const W = 46;
const col = (s: string, w: number): string => s.padStart(w);
const header = [
  'case'.padEnd(W),
  col('rows', 9),
  ...threadCounts.flatMap((t) => [col(`tickscope@${t}t`, 13), col(`duckdb@${t}t`, 10), col(`ratio@${t}t`, 9)]),
  col('target', 7),
].join(' ');
console.log('');
// the table of warm cases (none when only the child-process cases were asked for)
if (warm.length > 0) {
  console.log(`Tickscope vs DuckDB: ${data.name}, ms (median of ${runs}); ratio = tickscope / duckdb, below 1: Tickscope faster`);
  console.log(header);
  console.log('-'.repeat(header.length));
}
const printRow = (r: WarmResult): void => {
  const cells = threadCounts.flatMap((t) => {
    const x = r.timings[t];
    return x ? [col(ms(x.ours), 13), col(ms(x.duck), 10), col(x.ratio.toFixed(2), 9)] : [col('-', 13), col('-', 10), col('-', 9)];
  });
  const missed = threadCounts.filter((t) => r.timings[t] && r.timings[t].ratio > r.target);
  const mark = r.error ? '  FAILED: values differ or error (above)' : missed.length ? `  MISSED${threadCounts.length > 1 ? ` @${missed.map((t) => `${t}t`).join(',')}` : ''}` : '';
  console.log([r.name.padEnd(W), col(r.rows === null ? '-' : String(r.rows), 9), ...cells, col(`<=${r.target}`, 7)].join(' ') + mark);
};
const inGeomean = (id: WarmCaseId): boolean => WARM_CASES.find((c) => c.id === id)!.geomean;
// the getTicks/getStats cases and their geomean, then the order analytics cases (own targets, not in the geomean)
const queryRows = warm.filter((r) => inGeomean(r.id));
const orderRows = warm.filter((r) => !inGeomean(r.id));
for (const r of queryRows) printRow(r);
const complete = WARM_CASES.filter((c) => c.geomean).every((c) => warm.some((r) => r.id === c.id));
const geomeans: Record<number, number | null> = {};
if (queryRows.length > 0) {
  const line = threadCounts.map((t) => {
    const ratios = queryRows.map((r) => r.timings[t]?.ratio).filter((x): x is number => x !== undefined);
    const g = ratios.length === queryRows.length ? geomean(ratios) : null;
    geomeans[t] = g;
    return `@${t}t ${g === null ? '-' : g.toFixed(2)}${g !== null && g > 0.5 ? ' MISSED' : ''}`;
  });
  console.log(`${'geomean of ratios'.padEnd(W)} ${line.join('   ')}   target <= 0.5${complete ? '' : '   (subset of the frozen list: not comparable)'}`);
}
for (const r of orderRows) printRow(r);
const tolerated = warm.flatMap((r) => Object.entries(queries[r.id].tolerances ?? {}).map(([column, t]) => `${r.id} ${column}: also within ${t.absolute} absolute (${t.why})`));
const mb = (b: number): string => (b / 1e6).toFixed(b < 1e7 ? 2 : 0);
if (cold || output) {
  console.log('');
  const nodeMs = [cold, output].filter((x) => x !== null).map((x) => ms(x.nodeStartMs));
  console.log(
    `command cases: the whole command, start to exit, standard output to /dev/null, spawned by a small timer process alternately with a bare node (\`node -e 0\`: ${nodeMs.join(' and ')} ms); ms beyond the bare node's median. DuckDB: a fresh node process imports @duckdb/node-api, opens the .duckdb file read-only and runs COPY (the same query) TO '/dev/null'.`,
  );
}
if (cold) {
  console.log('');
  console.log(`cold: tickscope call of ticks-1i-1h (${cold.rows} rows, JSON, ${mb(cold.bytes)} MB), median of ${cold.runs}:`);
  const duckBest = Math.min(...threadCounts.map((t) => cold!.duck[t]!.ms));
  const missed = cold.oursMs > 50 || cold.oursMs > duckBest;
  console.log(`  tickscope      ${col(ms(cold.oursMs), 8)} ms   target <= 50 ms and <= duckdb cold (best thread count)${missed ? '  MISSED' : ''}`);
  for (const t of threadCounts) {
    const d = cold.duck[t]!;
    console.log(`  duckdb @${t}t     ${col(ms(d.ms), 8)} ms   ratio ${d.ratio.toFixed(2)}   (COPY ... (${COPY_OPTIONS.json}), ${mb(d.bytes)} MB)`);
  }
} else if (coldError) console.log(`\ncold: FAILED (above)`);
if (output) {
  console.log('');
  console.log(`output: tickscope call, getTicks of a full day (${output.rows} rows, 14 columns), median of ${output.runs}; ratio = tickscope / duckdb:`);
  for (const f of OUTPUT_FORMATS) {
    const o = output.formats[f];
    const missed = o.rowsPerSec < o.target;
    console.log(`  ${f.padEnd(12)} ${col(ms(o.ms), 9)} ms  ${col((o.rowsPerSec / 1e6).toFixed(2), 6)}M rows/s  ${col(mb(o.bytes), 5)} MB   target >= ${o.target / 1e6}M rows/s${missed ? '  MISSED' : ''}`);
    for (const t of o.duck ? threadCounts : []) {
      const d = o.duck![t]!;
      console.log(`    duckdb @${t}t ${col(ms(d.ms), 9)} ms  ${col((output.rows / d.ms / 1e3).toFixed(2), 6)}M rows/s  ${col(mb(d.bytes), 5)} MB   ratio ${d.ratio.toFixed(2)}   (COPY ... (${COPY_OPTIONS[f as 'json' | 'csv']}))`);
    }
  }
} else if (outputError) console.log(`\noutput: FAILED (above)`);
if (imported) {
  console.log('');
  console.log(`import: ${imported.rows} Trade rows from a ${(imported.bytes / 1e6).toFixed(0)} MB CSV into a fresh database, 1 thread, median of ${imported.oursRuns.length}:`);
  console.log(`  tickscope ${col(ms(imported.oursMs), 9)} ms   duckdb ${col(ms(imported.duckMs), 9)} ms   ratio ${imported.ratio.toFixed(2)}   target <= 1${imported.ratio > 1 ? '  MISSED' : ''}`);
} else if (importError) console.log(`\nimport: FAILED (above)`);
if (importMany) printImportMany(importMany, threadCounts);
else if (importManyError) console.log(`\nimport-many: FAILED (above)`);
if (memory) {
  const m = memory;
  console.log('');
  console.log(`memory: fresh process, getTicks Trade ${m.date}, all instruments, all columns (${m.rows} rows):`);
  console.log(`  raw column bytes on disk ${mib(m.rawBytes)} MiB (${m.files} column files of the partition; not counted: ${m.excluded.join(', ') || 'nothing'})`);
  console.log(`  RSS growth holding the result ${mib(m.growth)} MiB = ${m.multiple.toFixed(2)}x raw   target <= 1.5x${m.multiple > 1.5 ? '  MISSED' : ''}`);
  console.log(`    (before ${mib(m.before.rss)} MiB, holding ${mib(m.held.rss)} MiB; of which heap ${mib(m.held.heapUsed)}, array buffers ${mib(m.held.arrayBuffers)})`);
  console.log(`    the result as getTicks returns it: a row index over the cached columns; with every column gathered into its own array: ${mib(m.gathered.rss - m.before.rss)} MiB = ${((m.gathered.rss - m.before.rss) / m.rawBytes).toFixed(2)}x raw`);
  console.log(`  RSS after each of 10 repeats (MiB): ${m.repeatRss.map(mib).join(' ')}`);
  const lo = Math.min(...m.repeatRss);
  const hi = Math.max(...m.repeatRss);
  console.log(
    `    largest change from holding the first result ${(m.drift * 100).toFixed(1)}% (repeats among themselves ${(((hi - lo) / lo) * 100).toFixed(1)}%)   target flat within ±10%${m.drift > 0.1 ? '  MISSED' : ''}`,
  );
} else if (memoryError) console.log(`\nmemory: FAILED (above)`);
if (ordersMemory) {
  const m = ordersMemory;
  const runsNote = m.all.length > 1 ? `median of ${m.all.length} runs each, interleaved` : 'one run each';
  console.log('');
  const from = m.all[0]!.peakFrom === 'VmHWM' ? 'VmHWM' : "getrusage maxrss (no /proc: includes the bench's own RSS at fork, an upper bound)";
  console.log(`orders-memory: fresh processes, generateOrderAnalytics ${m.startTS}-${m.endTS} (every date, ${m.rows} orders, regenExistingIDs, scratch copy), peak RSS of the process (${from}; ${runsNote}):`);
  console.log(`  all instruments at once      ${col(mib(m.peakAll), 8)} MiB   (RSS before the call ${mib(m.rssBeforeAll)} MiB)`);
  console.log(`  instrumentBatchSz ${m.batch.padEnd(10)} ${col(mib(m.peakBatched), 8)} MiB   (RSS before the call ${mib(m.rssBeforeBatched)} MiB)`);
  console.log(`  batched peak ${(m.lower * 100).toFixed(1)}% lower   target >= 30% lower${m.lower < 0.3 ? '  MISSED' : ''}`);
  console.log(`    peaks of each run (MiB): all ${m.all.map((r) => mib(r.peak)).join(' ')}; batched ${m.batched.map((r) => mib(r.peak)).join(' ')}`);
} else if (ordersMemoryError) console.log(`\norders-memory: FAILED (above)`);
if (responsiveness || cancelLatency || workersMemory || Object.keys(executorErrors).length > 0) {
  console.log('');
  console.log('executor (informational figures, not in the frozen list; each in fresh processes):');
}
if (responsiveness) {
  const r = responsiveness;
  const line = (what: string, x: ResponsivenessSide, mark: string): void =>
    console.log(
      `    ${what.padEnd(32)} p50 ${col(ms(x.p50), 7)} ms   p99 ${col(ms(x.p99), 7)} ms   (max ${ms(x.max)}; ${x.samples} probes during ${x.runs} runs, query median ${ms(x.queryMedianMs)} ms; idle p50 ${ms(x.idleP50)}, p99 ${ms(x.idleP99)}${x.processes > 1 ? `; p99 of each process ${x.p99PerProcess.map(ms).join(' ')}` : ''})${mark}`,
    );
  const n = r.before.processes;
  console.log(
    `  responsiveness: GET /app/api/info every ${r.probeMs} ms over HTTP on loopback (serve()), while getTicks Trade ${r.date}, all instruments, all columns (${r.rows} rows) runs; ${n > 1 ? `${n} processes each, interleaved, their probes pooled` : 'one process each'}:`,
  );
  line('before: on the serving thread', r.before, '');
  line('after: executor, 1 worker', r.after, `   target p99 <= ${r.targetP99Ms} ms${r.after.p99 > r.targetP99Ms ? '  MISSED' : ''}`);
} else if (executorErrors['responsiveness']) console.log('  responsiveness: FAILED (above)');
if (cancelLatency) {
  const c = cancelLatency;
  console.log(
    `  cancel: ticks-ffill-1d (${c.rows} rows, usually ${ms(c.usualMs)} ms) on an executor with 1 worker, cancelled after ${c.delayMs} ms (30%), median of ${c.cancelled} trials${c.cancelled < c.trials.length ? ` (${c.trials.length - c.cancelled} more finished before the cancel: not counted)` : ''}:`,
  );
  console.log(`    cancel() to the cancelled answer        ${col(ms(c.toCancelledMs), 8)} ms`);
  console.log(
    `    cancel() to the next query's answer     ${col(ms(c.toNextMs), 8)} ms   (getTicks, 1 instrument, 1 minute: ${c.smallRows} rows, ${ms(c.smallMs)} ms alone)   target <= ${c.targetNextMs} ms${!(c.toNextMs <= c.targetNextMs) ? '  MISSED' : ''}`,
  );
  console.log(`    each trial, to the cancelled answer / to the next answer (ms): ${c.trials.map((t) => `${ms(t.toCancelled)}/${ms(t.toNext)}${t.cancelled ? '' : ' (finished first)'}`).join('  ')}`);
} else if (executorErrors['cancel']) console.log('  cancel: FAILED (above)');
if (workersMemory) {
  const w = workersMemory;
  const n = w.runs.one.length;
  const each = (rs: readonly WorkersMemoryChild[]): string => (n > 1 ? `   (runs: ${rs.map((r) => mib(r.growth)).join(' ')})` : '');
  console.log(
    `  workers-memory: RSS growth of a fresh process after the getTicks/getStats cases, each run once (split across the workers when it can; the executor's idle spare worker included in both), ${n > 1 ? `median of ${n}, interleaved` : 'one run each'}:`,
  );
  console.log(`    growth(1 worker)     ${col(mib(w.growth1), 8)} MiB${each(w.runs.one)}`);
  console.log(`    growth(2 workers)    ${col(mib(w.growth2), 8)} MiB${each(w.runs.two)}`);
  console.log(`    idle worker          ${col(mib(w.idleWorker), 8)} MiB   (one query worker started, running nothing)${each(w.runs.idle)}`);
  console.log(
    `    growth(2) / (growth(1) + idle) = ${w.ratio.toFixed(2)}   target growth(2) <= 1.2 x growth(1) + idle = ${mib(w.limit)} MiB${w.met ? '' : '  MISSED'}`,
  );
} else if (executorErrors['workers-memory']) console.log('  workers-memory: FAILED (above)');
printKdbWarm(kdbWarm, threadCounts, runs, data.name);
if (kdbYear) printKdbYear(kdbYear);
else if (kdbErrors['kdb-year']) console.log('\nkdb-year: FAILED (above)');
console.log('');
if (warm.length > 0) console.log(
  `values checked cell by cell before timing (floats relative ${FLOAT_TOLERANCE}, timestamps exact ns, symbols as strings); timed: every case through an executor of N workers (Executor.call, split across them when the query allows) + every column as an array in this thread; vs DuckDB query + every column read into JS arrays.`,
);
for (const line of tolerated) console.log(`  ${line}`);
if (orderRows.length > 0) {
  console.log('orders: generate timed as the whole operation on both sides (compute, write durably replacing the same orderIDs, rows into JS); summaries as the queries above.');
}

const failed = warm.filter((r) => r.error).map((r) => r.id as string);
if (coldError) failed.push('cold');
if (outputError) failed.push('output');
if (importError) failed.push('import');
if (importManyError) failed.push('import-many');
if (memoryError) failed.push('memory');
if (ordersMemoryError) failed.push('orders-memory');
failed.push(...Object.keys(executorErrors));
failed.push(...Object.keys(kdbErrors));
const report = {
  when: new Date().toISOString(),
  dataset: data.name,
  storageFormat: STORAGE_FORMAT,
  scale,
  trades: data.trades,
  runs,
  warmups,
  threads: threadCounts,
  node: process.version,
  duckdb: duckVersion,
  cores: availableParallelism(),
  cpu: cpus()[0]?.model ?? null,
  loadAverage: { start: loadAtStart, end: load() },
  floatTolerance: FLOAT_TOLERANCE,
  alsoTolerated: tolerated,
  completeList: complete,
  warm,
  geomean: geomeans,
  geomeanTarget: 0.5,
  cold,
  output,
  import: imported,
  importMany,
  memory,
  ordersMemory,
  executor: { informational: true, responsiveness, cancel: cancelLatency, workersMemory },
  kdb: { warm: kdbWarm, year: kdbYear },
  failed,
};
writeFileSync(join(root, 'last-run.json'), `${JSON.stringify(report, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v), 2)}\n`);
console.log(`load average at start ${loadAtStart}, at end ${report.loadAverage.end} (${availableParallelism()} cores); results: ${join(root, 'last-run.json')}`);
if (failed.length > 0) {
  console.error(`\nFAILED: ${failed.join(', ')}`);
  process.exitCode = 1;
}
duck?.closeSync();
if (scratch) {
  scratch.duck.closeSync();
  scratch.instance.closeSync();
  removeScratch(root);
}
