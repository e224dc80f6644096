/**
 * The frozen case list of npm run bench. Case ids, names and targets change only together with the
 * "Benchmarks" section of README.md; `--cases` picks a subset by id. Each case's queries are in
 * cases-ticks.ts, cases-stats.ts and cases-orders.ts (case-queries.ts gathers them).
 */

export interface CaseInfo {
  readonly id: string;
  readonly op: 'getTicks' | 'getStats' | 'generateOrderAnalytics' | 'getOrderAnalyticSummary';
  readonly name: string;
  /** What it queries, for the README and --help. */
  readonly queries: string;
  /** Target ratio (Tickscope ms / DuckDB ms), from the issues. */
  readonly target: number;
  /** In the geomean of ratios (the getTicks and getStats cases; the order analytics cases have their own targets only). */
  readonly geomean: boolean;
}

/** The warm cases, in the order they run and print. */
export const WARM_CASES = [
  {
    id: 'ticks-1i-1h',
    op: 'getTicks',
    name: '1 instrument, 1 hour',
    queries: 'Trade, all columns, the first instrument, first date 15:00-16:00',
    target: 0.5,
    geomean: true,
  },
  {
    id: 'ticks-10i-1d-vol500',
    op: 'getTicks',
    name: '10 instruments, 1 day, filter volume>=500',
    queries: 'Trade, all columns, the first 10 instruments, first date, volume >= 500',
    target: 1,
    geomean: true,
  },
  {
    id: 'ticks-slice-alldays',
    op: 'getTicks',
    name: 'slice 14:30-15:00, all days, all',
    queries: 'Trade, all columns, all instruments, every date, only 14:30-15:00 of each day',
    target: 1,
    geomean: true,
  },
  {
    id: 'ticks-ffill-1d',
    op: 'getTicks',
    name: 'forward fill, 1 day, all, 4 columns',
    queries: 'Trade, instrumentID price volume conditions exchTime, all instruments, first date, nulls filled forward per instrument',
    target: 1,
    geomean: true,
  },
  {
    id: 'stats-1min-5agg-1d',
    op: 'getStats',
    name: '1-min buckets, 5 aggregates, all, 1 day',
    queries: 'Trade, first date, per instrument and minute: first, max, min, last price and summed volume',
    target: 1,
    geomean: true,
  },
  {
    id: 'stats-vwap-alldays',
    op: 'getStats',
    name: 'VWAP by instrument, all days',
    queries: 'Trade, every date, one VWAP per instrument',
    target: 1,
    geomean: true,
  },
  {
    id: 'stats-mw30-1min-1d',
    op: 'getStats',
    name: '30-min moving window, 1-min buckets, 1 day',
    queries: 'Trade, first date, per instrument and minute: summed volume and average price over the 30 minutes before',
    target: 1,
    geomean: true,
  },
  {
    id: 'stats-racked-ffill-1s',
    op: 'getStats',
    name: 'racked forward fill, 1-s buckets, 10 ids, 1 h',
    queries: 'Trade, first 10 instruments, first date 15:00-16:00, every second x instrument: last price (filled forward) and summed volume',
    target: 1,
    geomean: true,
  },
  {
    id: 'orders-generate-1d',
    op: 'generateOrderAnalytics',
    name: 'generate order analytics, 1 day, write',
    queries: 'Order, first date, regenExistingIDs: one OrderAnalytics row per order from its events, Quote and Trade, written (replacing the same orderIDs) and returned; on a scratch copy',
    target: 1,
    geomean: false,
  },
  {
    id: 'orders-summary-instrument',
    op: 'getOrderAnalyticSummary',
    name: 'order summary, 12 functions, by instrument',
    queries: 'OrderAnalytics, every date, the twelve default summary functions per instrumentID',
    target: 1,
    geomean: false,
  },
  {
    id: 'orders-summary-algo',
    op: 'getOrderAnalyticSummary',
    name: 'order summary, 12 functions, by algoStrategy',
    queries: 'OrderAnalytics, every date, the twelve default summary functions per algoStrategy',
    target: 1,
    geomean: false,
  },
] as const satisfies readonly CaseInfo[];

export type WarmCaseId = (typeof WARM_CASES)[number]['id'];

/** The cold and memory cases (each runs in child processes). */
export const OTHER_CASES = [
  {
    id: 'cold',
    name: 'cold: open + 1 instrument, 1 hour',
    queries: '`tickscope call` of ticks-1i-1h (JSON) to /dev/null, timed whole from a small timer process, ms beyond a bare `node -e 0` timed alternately; DuckDB: a fresh node process opens its .duckdb file and COPYs the same rows as JSON to /dev/null',
    target: '<= 50 ms and <= DuckDB cold',
  },
  {
    id: 'memory',
    name: 'memory: full day, all columns',
    queries: 'a fresh process holds getTicks of Trade, first date, all instruments, all columns; RSS growth / column bytes on disk, then 10 repeats',
    target: '<= 1.5x raw bytes, flat within ±10%',
  },
  {
    id: 'output',
    name: 'output: tickscope call of a full day to /dev/null',
    queries: '`tickscope call --format json|csv|arrow` of getTicks Trade, first date, all instruments, all columns, to /dev/null, timed whole from a small timer process, ms beyond a bare `node -e 0` timed alternately, rows/s; beside DuckDB COPYing the same rows as JSON and CSV to /dev/null from a fresh node process (ratio)',
    target: 'json >= 2M rows/s, csv >= 2M rows/s, arrow >= 10M rows/s',
  },
  {
    id: 'import',
    name: 'import: a 1M-row Trade CSV into a fresh database',
    queries: 'tickscope import (a fresh node process: parse, check, durable append) vs DuckDB read_csv into a table of a fresh .duckdb file + CHECKPOINT, 1 thread; bench/import-case.ts',
    target: '<= DuckDB',
  },
  {
    id: 'import-many',
    name: 'import-many: a day of 100 symbols as 100 CSVs, mapped',
    queries: '`tickscope import --map` of 100 QuantConnect Lean (AlgoSeek) trade CSVs, one per symbol of one day (~846k rows), into a fresh database, timed whole beyond a bare node; DuckDB: a fresh node process reads the same files by a glob (read_csv, filename = true, the same columns made the same way) into a table of a new .duckdb file + CHECKPOINT, at each thread count; bench/import-many.ts',
    target: '<= DuckDB at the same thread count',
  },
  {
    id: 'orders-memory',
    name: 'memory: generate every date, batched vs not',
    queries: 'fresh processes run generateOrderAnalytics over every date (regenExistingIDs, scratch copy), with and without instrumentBatchSz 10; peak RSS of each',
    target: 'batched peak >= 30% lower',
  },
] as const;

/**
 * The executor's measurements: informational figures, not in the frozen list (their targets are the
 * executor issue's, printed with MISSED when missed, but they are no ratio against DuckDB and change
 * without touching the list). Each runs in fresh child processes.
 */
export const EXECUTOR_CASES = [
  {
    id: 'responsiveness',
    name: 'responsiveness: GET /app/api/info during a full-day getTicks',
    queries: 'p50/p99 latency of GET /app/api/info every 10 ms over HTTP on loopback while getTicks Trade, first date, all instruments, all columns runs: on the serving thread (before) vs through the executor, 1 worker (after)',
    target: 'after: p99 <= 20 ms',
  },
  {
    id: 'cancel',
    name: 'cancel: ticks-ffill-1d cancelled at 30%, then a trivial query',
    queries: 'executor with 1 worker: ms from cancel() to the cancelled answer, and to the answer of a 1-minute getTicks of one instrument submitted right after; median of the trials',
    target: 'next query <= 100 ms after cancel()',
  },
  {
    id: 'workers-memory',
    name: 'workers-memory: RSS growth with 1 and 2 workers',
    queries: 'fresh process per configuration: the getTicks/getStats cases, each once (split across the workers when it can); RSS growth with 1 and with 2 workers, and of one idle worker',
    target: 'growth(2) <= 1.2 x growth(1) + one idle worker',
  },
] as const;

export type ExecutorCaseId = (typeof EXECUTOR_CASES)[number]['id'];

/**
 * The kdb+ cases (issue 29; kdb-cases.ts): the bench's Trade table as kdb+ HDBs (kdb-data.ts), each
 * query timed there and on the native database. Not against DuckDB, so not in the geomean. The year
 * case writes a 10 GB HDB on first use: it runs only when named in --cases (`onlyAsked`).
 */
export const KDB_CASES = [
  {
    id: 'kdb-narrow',
    name: 'kdb+: 1 instrument, 1 hour',
    queries: 'ticks-1i-1h on the HDBs (uncompressed, zlib, zstd) and on the native database; compressed HDBs also fresh (partitions opened again, block cache empty) vs bare decompression of the blocks read',
    target: 'uncompressed <= 1.2x native; compressed fresh <= 1.2x bare decompression',
    onlyAsked: false,
  },
  {
    id: 'kdb-day',
    name: 'kdb+: a full day, all columns',
    queries: 'getTicks Trade, first date, all instruments, all columns, as kdb-narrow',
    target: 'uncompressed <= 1.2x native; compressed fresh <= 1.2x bare decompression',
    onlyAsked: false,
  },
  {
    id: 'kdb-vwap',
    name: 'kdb+: VWAP by instrument, all days',
    queries: 'getStats Trade, every date, agg vwap ["wavg","volume","price"] per instrument, as kdb-narrow',
    target: 'uncompressed <= 1.2x native; compressed fresh <= 1.2x bare decompression',
    onlyAsked: false,
  },
  {
    id: 'kdb-year',
    name: 'kdb+: a year of partitions, cold narrow query',
    queries:
      '`tickscope call` of a 1-instrument, 1-hour getTicks on an HDB of 250 date partitions (100 instruments, 400,000 trades a day) and on its last day alone, timed whole; what mounting it and the app\'s table list open',
    target: 'year <= 1.5x one partition; the table list without reading every partition',
    onlyAsked: true,
  },
] as const;

export type KdbCaseId = (typeof KDB_CASES)[number]['id'];
export type KdbWarmCaseId = Exclude<KdbCaseId, 'kdb-year'>;

export type CaseId = WarmCaseId | (typeof OTHER_CASES)[number]['id'] | ExecutorCaseId | KdbCaseId;

export const ALL_CASE_IDS: readonly CaseId[] = [...WARM_CASES.map((c) => c.id), ...OTHER_CASES.map((c) => c.id), ...EXECUTOR_CASES.map((c) => c.id), ...KDB_CASES.map((c) => c.id)];

/** The cases a run without --cases runs: all but those run only when asked. */
export const DEFAULT_CASE_IDS: readonly CaseId[] = ALL_CASE_IDS.filter((id) => !KDB_CASES.some((c) => c.id === id && c.onlyAsked));
