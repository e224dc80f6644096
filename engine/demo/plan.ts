/** Options of the demo generator, checked, and how each date's trades are shared among instruments. */
import { TickscopeError } from '../core/errors.js';
import { parseDate } from '../core/time.js';
import type { DemoInstrument } from './instruments.js';
import type { Rng } from './rng.js';

export const DEMO_DEFAULTS = {
  seed: 1,
  days: 5,
  instruments: 20,
  tradesPerDay: 200_000,
  startDate: '2024-03-06',
} as const;

export interface DemoPlan {
  readonly seed: number;
  readonly days: number;
  readonly instruments: number;
  readonly tradesPerDay: number;
  /** Day number of the start date. */
  readonly startDays: number;
}

function intIn(name: string, v: number | undefined, def: number, min: number, max: number): number {
  const n = v ?? def;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new TickscopeError('badRequest', `demo ${name}: ${String(v)} is not valid; expected an integer from ${min} to ${max}`);
  }
  return n;
}

/** The options with defaults applied; a bad value is an error naming it and the allowed range. */
export function demoPlan(opts: {
  seed?: number | undefined;
  days?: number | undefined;
  instruments?: number | undefined;
  tradesPerDay?: number | undefined;
  startDate?: string | undefined;
}): DemoPlan {
  const start = opts.startDate ?? DEMO_DEFAULTS.startDate;
  const startDays = parseDate(start);
  if (startDays === undefined) {
    throw new TickscopeError('badRequest', `demo startDate: ${JSON.stringify(start)} is not a date; expected YYYY-MM-DD`);
  }
  return {
    seed: intIn('seed', opts.seed, DEMO_DEFAULTS.seed, -(2 ** 31), 2 ** 32 - 1),
    days: intIn('days', opts.days, DEMO_DEFAULTS.days, 1, 2000),
    instruments: intIn('instruments', opts.instruments, DEMO_DEFAULTS.instruments, 2, 2000),
    tradesPerDay: intIn('tradesPerDay', opts.tradesPerDay, DEMO_DEFAULTS.tradesPerDay, 1, 50_000_000),
    startDays,
  };
}

/**
 * Trades per open instrument on one date: `total` shared by activity weight (with day-to-day noise)
 * by largest remainders, so the date's total is exact; every instrument gets at least its opening
 * and closing prints (so tiny totals are exceeded rather than leave an instrument without trades).
 */
export function allocateTrades(total: number, open: readonly DemoInstrument[], rng: Rng): number[] {
  const MIN = 2;
  const weights = open.map((i) => i.weight * Math.exp(0.15 * rng.normal()));
  const free = Math.max(0, total - MIN * open.length);
  const wSum = weights.reduce((a, b) => a + b, 0);
  const raw = weights.map((w) => (free * w) / wSum);
  const out = raw.map(Math.floor);
  let left = free - out.reduce((a, b) => a + b, 0);
  const byRemainder = raw.map((r, i) => ({ i, frac: r - Math.floor(r) })).sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left-- <= 0) break;
    out[i]!++;
  }
  return out.map((n) => n + MIN);
}
