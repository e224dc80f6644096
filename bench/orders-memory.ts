/**
 * The orders-memory case, one side: a fresh process opens the (scratch) database and runs
 * generateOrderAnalytics over every date (startTS = the first, endTS = the day after the last,
 * regenExistingIDs true), with or without instrumentBatchSz, holds the returned rows with every column
 * gathered, and reports the process's peak resident set and its RSS before the call.
 * Argument: JSON { db, startTS, endTS, batch? }. Prints one JSON line.
 *
 * The peak is /proc/self/status VmHWM, the high-water mark of this process's own address space. Not
 * getrusage's maxrss (process.resourceUsage().maxRSS): Linux carries the parent's resident set at
 * fork over the exec into the child's maxrss, so a child of the bench (which holds DuckDB's in-memory
 * tables, 1.6 GB) would report the parent's size whatever it did. maxrss is the fallback where there is
 * no /proc (it is then an upper bound).
 */
import { readFileSync } from 'node:fs';
import { Engine } from '../engine/engine.js';

const input = JSON.parse(process.argv[2]!) as { db: string; startTS: string; endTS: string; batch?: string };
const engine = Engine.open([input.db]);
const args = {
  table: 'Order',
  startTS: input.startTS,
  endTS: input.endTS,
  regenExistingIDs: '1b',
  ...(input.batch === undefined ? {} : { instrumentBatchSz: input.batch }),
};
const rssBefore = process.memoryUsage().rss;
const peakBefore = highWaterMark() ?? process.resourceUsage().maxRSS * 1024;
const t0 = performance.now();
const table = engine.call('.fsi.eqea.generateOrderAnalytics', args).table;
void table.columns;
const ms = performance.now() - t0;
const maxRSS = process.resourceUsage().maxRSS * 1024;
const vmHWM = highWaterMark();
const peak = vmHWM ?? maxRSS;
process.stdout.write(
  `${JSON.stringify({ rows: table.length, ms, rssBefore, peak, peakFrom: vmHWM === null ? 'maxRSS' : 'VmHWM', maxRSS, peakBefore, heapUsed: process.memoryUsage().heapUsed })}\n`,
);

function highWaterMark(): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}
