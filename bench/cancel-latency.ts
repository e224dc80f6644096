/**
 * The cancel measurement (informational, not in the frozen list), in a fresh process: an Executor with
 * 1 worker over the database runs the ticks-ffill-1d case's query (cases-ticks.ts) once to warm its
 * cache, then `usualRuns` times to completion (its usual time: their median). Then, `trials` times:
 * start it, cancel it after 30% of its usual time, and right after the cancel submit a trivial query
 * (getTicks Trade, the first instrument, one minute of the first date); measure (a) ms from cancel()
 * to the cancelled answer, (b) ms from cancel() to the trivial query's answer. Between trials, a pause
 * long enough for the cancelled query to have stopped (or its worker to have been replaced).
 * Argument: JSON { db, ctx, trials, usualRuns }. Prints one JSON line.
 */
import type { RunResponse } from '../engine/contract.js';
import { Executor } from '../engine/executor/executor.js';
import { loadSettings } from '../engine/executor/settings.js';
import { type CaseContext, kdbDate } from './case-query.js';
import { tickQueries } from './cases-ticks.js';

/** The cancelled error's ac (docs: a cancelled query answers ac 40). */
const CANCELLED_AC = 40;
const FRACTION = 0.3;

const input = JSON.parse(process.argv[2]!) as { db: string; ctx: CaseContext; trials: number; usualRuns: number };
const big = tickQueries(input.ctx)['ticks-ffill-1d'];
const day = kdbDate(input.ctx.dates[0]!);
const small = { op: '.fsi.getTicks', args: { table: 'Trade', idList: [input.ctx.ids[0]!], startTS: `${day}D15:00`, endTS: `${day}D15:01` } };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const ok = (r: RunResponse, what: string): Extract<RunResponse, { ok: true }> => {
  if (!r.ok) throw new Error(`cancel: ${what} failed: ac ${r.header.ac}: ${r.header.ai}`);
  return r;
};
function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface Trial {
  /** true: the query answered cancelled; false: it had finished before the cancel (not counted). */
  readonly cancelled: boolean;
  /** ms from cancel() to the cancelled query's answer. */
  readonly toCancelled: number;
  /** ms from cancel() to the trivial query's answer. */
  readonly toNext: number;
}

async function main(): Promise<void> {
  const ex = await Executor.start([input.db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1 });
  try {
    // the executor starts its spare worker after the first is ready: let it open the databases
    await sleep(1000);
    const timed = async (op: string, args: unknown, what: string): Promise<{ rows: number; ms: number }> => {
      const t0 = performance.now();
      const r = ok(await ex.run(op, args), what);
      return { rows: r.rows, ms: performance.now() - t0 };
    };
    const first = await timed(big.op, big.args, 'ticks-ffill-1d');
    const usualRuns: number[] = [];
    for (let i = 0; i < input.usualRuns; i++) usualRuns.push((await timed(big.op, big.args, 'ticks-ffill-1d')).ms);
    const usual = median(usualRuns);
    const smallRun = await timed(small.op, small.args, 'the trivial query');
    const delay = Math.max(1, Math.round(FRACTION * usual));

    const trials: Trial[] = [];
    for (let i = 0; i < input.trials; i++) {
      const queryId = `cancel-${i}`;
      const run = ex.run(big.op, big.args, { queryId });
      await sleep(delay);
      const tc = performance.now();
      ex.cancel(queryId);
      const next = ex.run(small.op, small.args);
      const r = await run;
      const toCancelled = performance.now() - tc;
      ok(await next, 'the trivial query after the cancel');
      const toNext = performance.now() - tc;
      if (!r.ok && r.header.ac !== CANCELLED_AC) throw new Error(`cancel: the cancelled query answered ac ${r.header.ac}: ${r.header.ai}`);
      trials.push({ cancelled: !r.ok, toCancelled, toNext });
      // the cancelled query stops at its next checkpoint, or its worker is ended after the grace period
      // and the spare takes its place: let that settle before the next trial
      await sleep(Math.max(usual, 300) + 500);
    }
    const counted = trials.filter((t) => t.cancelled);
    process.stdout.write(
      `${JSON.stringify({
        rows: first.rows,
        firstMs: first.ms,
        usualMs: usual,
        usualRuns,
        delayMs: delay,
        smallRows: smallRun.rows,
        smallMs: smallRun.ms,
        trials,
        cancelled: counted.length,
        toCancelledMs: median(counted.map((t) => t.toCancelled)),
        toNextMs: median(counted.map((t) => t.toNext)),
      })}\n`,
    );
  } finally {
    await ex.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
