/**
 * `tickscope demo`: a deterministic, realistic demo database filling every standard table
 * consistently (SPEC 3.1). The same options give byte-identical files. The database is built in a
 * sibling folder and renamed into place at the end, so a crash never leaves a half-filled demo
 * where the app would take it for a finished one (the app checks for schema.json).
 */
import { existsSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { TickscopeError } from '../core/errors.js';
import { Table } from '../core/table.js';
import { civilFromDays, formatDate, NS_PER_DAY } from '../core/time.js';
import { columnFromValues } from '../core/builder.js';
import { floats } from '../core/column.js';
import { type Config, defaultConfig, DEMO_SUMMARY_FUNCTIONS, STANDARD_SUMMARY_FUNCTIONS } from '../storage/config.js';
import { Database } from '../storage/database.js';
import { fsyncDir } from '../storage/partition-io.js';
import { type Schema, standardSchema, type TableSchema } from '../storage/schema.js';
import { computeOrderAnalytics } from '../orders/analytics.js';
import { InMemoryMarketView } from '../orders/market-view.js';
import { addCanCor } from './cancor.js';
import { DEMO_HOLIDAY_EXCHANGE, EXCHANGES, holidayCalendar, regionHolidays, sessionBounds, weekdaysFrom } from './calendar.js';
import { DayData } from './day.js';
import { type DemoInstrument, demoIdMap, demoInstruments, instrumentTable } from './instruments.js';
import { addOrders } from './orders.js';
import { allocateTrades, DEMO_DEFAULTS, type DemoPlan, demoPlan } from './plan.js';
import { mixSeed, Rng } from './rng.js';
import { type InstrumentState, SessionScratch, simulateSession } from './session.js';
import { type DayTables, dayTables } from './tables.js';
import { micCode, NON_REGULAR_CONDITIONS } from './vocab.js';

export { DEMO_DEFAULTS };

export interface DemoOptions {
  seed?: number | undefined;
  days?: number | undefined;
  instruments?: number | undefined;
  tradesPerDay?: number | undefined;
  /** 'YYYY-MM-DD', default '2024-03-06'. */
  startDate?: string | undefined;
  progress?: ((msg: string) => void) | undefined;
}

export interface DemoReport {
  rows: Record<string, number>;
  dates: string[];
  instruments: string[];
  holiday: { exchangeID: string; date: string };
}

/** The demo's config.json: defaults plus the `regularTrades` filter rule and RIC/Bloomberg idMap entries. */
export function demoConfig(instruments: number = DEMO_DEFAULTS.instruments): Config {
  return {
    ...defaultConfig(),
    filterRules: { regularTrades: { column: 'conditions', exclude: NON_REGULAR_CONDITIONS } },
    idMap: demoIdMap(demoInstruments(instruments)),
    // the value-weighted shortfall, outside the defaults (SPEC 6.2)
    summaryFunctions: { ...STANDARD_SUMMARY_FUNCTIONS, ...DEMO_SUMMARY_FUNCTIONS },
    defaultSummaryFunctions: Object.keys(STANDARD_SUMMARY_FUNCTIONS),
  };
}

const TABLE_ORDER = [
  'Trade', 'Quote', 'OrderbookSnapshots', 'OrderbookUpdates', 'TradeCanCor', 'Order', 'OrderAnalytics', 'Instrument',
  'ExchangeHolidayCal',
] as const;

/** Creates the demo database folder `dir` (absent or empty) and fills every standard table. */
export function generateDemo(dir: string, opts: DemoOptions = {}): DemoReport {
  const plan = demoPlan(opts);
  const progress = opts.progress ?? ((): void => {});
  const root = resolve(dir);
  if (existsSync(root) && readdirSync(root).length > 0) {
    throw new TickscopeError('badDatabase', `${root} already exists and is not empty; choose a new folder`);
  }
  const instruments = demoInstruments(plan.instruments);
  const dates = weekdaysFrom(plan.startDays, plan.days);
  const holidayDays = demoHoliday(plan.startDays);
  const years = [...new Set([...dates, holidayDays].map((d) => civilFromDays(d).y))].sort();
  const calendar = holidayCalendar(years, holidayDays);
  const rows: Record<string, number> = Object.fromEntries(TABLE_ORDER.map((t) => [t, 0]));
  const run: Run = {
    plan,
    instruments,
    calendar,
    schema: standardSchema(),
    states: instruments.map((i) => ({ logPrice: Math.log(i.startPrice), lastTradeTicks: NaN, lastDir: 0 })),
    scratch: new SessionScratch(),
    instDict: ['', ...instruments.map((i) => i.id)],
    isinDict: ['', ...instruments.map((i) => i.isin)],
  };

  // built in a sibling folder, one commit per date (bounded memory), published by one rename at the end
  const staging = join(dirname(root), `.${basename(root)}.demo-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    const db = Database.create(staging, run.schema, demoConfig(plan.instruments));
    for (const [i, days] of dates.entries()) {
      const date = formatDate(days);
      const tables = generateDay(run, days);
      const partitions = Object.entries(tables)
        .filter(([, data]) => data.length > 0)
        .map(([table, data]) => ({ table, key: date, data }));
      if (partitions.length > 0) db.commit({ partitions });
      for (const p of partitions) rows[p.table]! += p.data.length;
      progress(`demo: ${date} (${i + 1}/${dates.length}): ${tables['Trade']?.length ?? 0} trades`);
    }
    const references = [
      { table: 'Instrument', data: instrumentTable(instruments) },
      { table: 'ExchangeHolidayCal', data: holidayTable(calendar) },
    ];
    db.commit({ references });
    for (const r of references) rows[r.table] = r.data.length;
    // an empty target folder (e.g. from mkdtemp) is replaced; a non-empty one was refused above
    if (existsSync(root)) rmdirSync(root);
    renameSync(staging, root);
    fsyncDir(dirname(root));
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  return {
    rows,
    dates: dates.map(formatDate),
    instruments: instruments.map((i) => i.id),
    holiday: { exchangeID: DEMO_HOLIDAY_EXCHANGE.mic, date: formatDate(holidayDays) },
  };
}

/** What every date of one run shares. */
interface Run {
  readonly plan: DemoPlan;
  readonly instruments: readonly DemoInstrument[];
  readonly calendar: Map<string, Map<number, string>>;
  readonly schema: Schema;
  /** Per instrument, the price state carried from date to date. */
  readonly states: InstrumentState[];
  readonly scratch: SessionScratch;
  readonly instDict: readonly string[];
  readonly isinDict: readonly string[];
}

/** Every partitioned table's rows for one date (none when all exchanges are closed). */
function generateDay(run: Run, days: number): Record<string, Table> {
  const { plan, instruments } = run;
  const open = instruments.map((inst, k) => ({ inst, k })).filter(({ inst }) => !run.calendar.get(inst.exchange.mic)!.has(days));
  if (open.length === 0) return {};
  const dayRng = new Rng(mixSeed(plan.seed, 2, days));
  const trades = allocateTrades(plan.tradesPerDay, open.map((o) => o.inst), dayRng);
  const quotes = trades.map((n) => 1 + Math.round(n * dayRng.range(0.9, 1.15)));
  const base = BigInt(days) * NS_PER_DAY;
  const sessions = new Map(
    EXCHANGES.map((ex) => {
      const b = sessionBounds(ex, days);
      return [ex.mic, { open: Number(b.open - base), close: Number(b.close - base) }] as const;
    }),
  );
  const snapshots = open.reduce((s, { inst }) => {
    const b = sessions.get(inst.exchange.mic)!;
    return s + Math.ceil((b.close - b.open) / 30e9);
  }, 0);
  const sum = (a: number[]): number => a.reduce((x, y) => x + y, 0);
  const day = new DayData(days, base, sum(trades), sum(quotes), snapshots);
  const dateTag = formatDate(days).replaceAll('-', '');
  for (const [j, { inst, k }] of open.entries()) {
    const { open: o, close: c } = sessions.get(inst.exchange.mic)!;
    // one stream per instrument and date: the same seed gives the same data in any processing order
    const rng = new Rng(mixSeed(plan.seed, 1, days, k));
    const tradeStart = day.trades.time.length;
    const quoteStart = day.quotes.time.length;
    const session = { inst, code: k + 1, open: o, close: c, trades: trades[j]!, quotes: quotes[j]!, rng };
    const volume = simulateSession(day, session, run.states[k]!, run.scratch);
    const range = { code: k + 1, tradeStart, tradeEnd: day.trades.time.length, quoteStart, quoteEnd: day.quotes.time.length };
    day.ranges.push(range);
    addCanCor(day, range, inst, c, rng);
    addOrders(day, {
      inst, range, open: o, close: c, dayVolume: volume, isinCode: k + 1, micCode: micCode(inst.exchange), dateTag, rng,
    });
  }
  const schemaOf = (name: string): TableSchema => run.schema.tables.get(name)!;
  const tables = dayTables(day, { schema: schemaOf, instDict: run.instDict, isinDict: run.isinDict, dateTag });
  const analytics = computeOrderAnalytics(tables.Order, dayMarketView(tables, day, instruments));
  return { ...tables, OrderAnalytics: analytics };
}

/**
 * The demo holiday: the third weekday from the start that no exchange already closes for (so inside
 * the range whenever the demo has three or more trading days, and never on a real holiday).
 */
function demoHoliday(startDays: number): number {
  const candidates = weekdaysFrom(startDays, 40);
  const years = [...new Set(candidates.map((d) => civilFromDays(d).y))];
  const real = new Set(years.flatMap((y) => [...regionHolidays('US', y), ...regionHolidays('UK', y)].map((h) => h.days)));
  return candidates.filter((d) => !real.has(d))[2]!;
}

/** The market view order analytics reads for one date, straight over that date's sorted columns. */
function dayMarketView(t: DayTables, day: DayData, instruments: readonly DemoInstrument[]): InMemoryMarketView {
  const view = new InMemoryMarketView();
  const col = (table: Table, name: string): Float64Array => floats(table.col(name));
  const qTime = (t.Quote.col('eventTimestamp') as { data: BigInt64Array }).data;
  const tTime = (t.Trade.col('eventTimestamp') as { data: BigInt64Array }).data;
  const [bid, ask, price, volume] = [col(t.Quote, 'bidPrice'), col(t.Quote, 'askPrice'), col(t.Trade, 'price'), col(t.Trade, 'volume')];
  for (const r of day.ranges) {
    const inst = instruments[r.code - 1]!;
    const qs = r.quoteStart;
    const qe = r.quoteEnd;
    view.setQuotes(inst.id, { time: qTime.subarray(qs, qe), bid: bid.subarray(qs, qe), ask: ask.subarray(qs, qe) });
    view.setTrades(inst.id, {
      time: tTime.subarray(r.tradeStart, r.tradeEnd),
      price: price.subarray(r.tradeStart, r.tradeEnd),
      volume: volume.subarray(r.tradeStart, r.tradeEnd),
    });
    view.setInstrument(inst.id, { ISIN: inst.isin, MIC: inst.exchange.mic, exchangeID: inst.exchange.mic });
  }
  return view;
}

function holidayTable(calendar: Map<string, Map<number, string>>): Table {
  const entries = [...calendar].flatMap(([mic, dates]) => [...dates].map(([days, description]) => ({ mic, days, description })));
  return new Table(
    ['exchangeID', 'date', 'description'],
    [
      columnFromValues('symbol', entries.map((e) => e.mic)),
      columnFromValues('date', entries.map((e) => e.days)),
      columnFromValues('string', entries.map((e) => e.description)),
    ],
  );
}
