/**
 * One query split across the executor's workers (parallel/split.ts): the merged result is the one the
 * whole query gives in this thread, value for value and in the same order, for every query shape that
 * splits (getTicks by time: fills, filters, idList, slices, refs, sortCols, decPlaces; getStats by
 * identifier: buckets, moving windows, racking with holidays) and for those that run whole; parts are cancelled with their query, and the result limit
 * applies to the merged result.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { type CallResponse, Executor } from '../../../engine/executor/executor.js';
import { loadSettings, type ProcessSettings } from '../../../engine/executor/settings.js';
import { payloadJson } from '../../../engine/output/envelope.js';
import type { QueryResult } from '../../../engine/core/result.js';
import { shardsOf } from '../../../engine/core/query-hooks.js';
import { AppService } from '../../../engine/service/app-service.js';
import { tempDir } from '../../helpers/db.js';
import { BLOCK_ROWS } from '../../../engine/output/parallel-text.js';
import { textChunks } from '../../../engine/output/text.js';

let db = '';
let engine: Engine;
const started: Executor[] = [];
/** Parts of split queries each executor started on another worker (ExecutorOptions.onPartStarted). */
const parts = new Map<Executor, { started: number }>();
async function executor(over: Partial<ProcessSettings> = {}): Promise<Executor> {
  const count = { started: 0 };
  const ex = await Executor.start([db], { ...loadSettings({ env: {} }), workers: 2, maxRunningQueries: 2, splitMinRows: 1000, ...over }, { onPartStarted: () => count.started++ });
  parts.set(ex, count);
  started.push(ex);
  return ex;
}
/** Parts `ex` has started so far (a query that split started some). */
const partsRun = (ex: Executor): number => parts.get(ex)!.started;

beforeAll(() => {
  db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 5, days: 3, instruments: 9, tradesPerDay: 40000 });
  engine = Engine.open([db]);
});
afterAll(async () => {
  for (const ex of started) await ex.close();
});

const json = (r: QueryResult): string => payloadJson(r);
/** '' when equal, else the first differing row of each (results are too long to print whole). */
function firstDifference(a: string, b: string): string {
  if (a === b) return '';
  const x = JSON.parse(a) as unknown[];
  const y = JSON.parse(b) as unknown[];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (JSON.stringify(x[i]) !== JSON.stringify(y[i])) return `rows ${x.length} vs ${y.length}; row ${i}: ${JSON.stringify(x[i])} vs ${JSON.stringify(y[i])}`;
  }
  return 'same rows, different text';
}
const result = (r: CallResponse): QueryResult => {
  if (!r.ok) throw new Error(`expected success, got ac ${r.header.ac}: ${r.header.ai}`);
  return r.result;
};

const WINDOW = { startTS: '2024.01.01', endTS: '2030.01.01' };
const firstDay = (): { startTS: string; endTS: string } => {
  const t = engine.call('getTicks', { table: 'Trade', ...WINDOW, columns: ['eventTimestamp'] }).table;
  const first = (t.col('eventTimestamp') as { data: BigInt64Array }).data[0]!;
  const day = new Date(Number(first / 1_000_000n)).toISOString().slice(0, 10).replace(/-/g, '.');
  const next = new Date(Number(first / 1_000_000n) + 86_400_000).toISOString().slice(0, 10).replace(/-/g, '.');
  return { startTS: `${day}D13:00:00`, endTS: `${next}D00:00:00` };
};

describe('a query split across workers', () => {
  it('cuts identifiers into contiguous ranges of about equal rows, open at both ends', () => {
    const shards = shardsOf(
      [
        ['A', 10],
        ['B', 10],
        ['C', 30],
        ['D', 10],
        ['E', 40],
      ],
      2,
    );
    expect(shards).toEqual([
      { lo: null, hi: 'D' },
      { lo: 'D', hi: null },
    ]);
    expect(shardsOf([['A', 5]], 3)).toEqual([{ lo: null, hi: null }]);
  });

  it('gives the whole query\'s result, value for value and in order, for every shape that splits', async () => {
    const ex = await executor();
    const day = firstDay();
    const ids = engine.call('getTicks', { table: 'Instrument' }).table;
    const someIds = Array.from({ length: 5 }, (_, i) => (ids.col('instrumentID') as { dict: { get(k: number): string }; codes: Int32Array }).dict.get((ids.col('instrumentID') as { codes: Int32Array }).codes[i * 2]!));
    const cases: Array<[string, Record<string, unknown>]> = [
      ['getTicks', { table: 'Trade', ...WINDOW, fill: 'zero' }],
      ['getTicks', { table: 'Trade', ...WINDOW, columns: ['instrumentID', 'price', 'volume', 'conditions', 'exchTime'], fill: 'forward' }],
      ['getTicks', { table: 'Trade', ...WINDOW, idList: [...someIds, 'NOT-THERE'], filter: [['>=', 'volume', 100]], sortCols: [['desc', 'price']], decPlaces: 1, fill: 'forward' }],
      ['getTicks', { table: 'Quote', ...day, fill: 'forward' }],
      ['getTicks', { table: 'Trade', ...day, fill: 'zero', columns: ['price', 'volume'], decPlaces: 0 }],
      ['getTicks', { table: 'Trade', ...day, temporality: 'slice', slice: ['14:30', '15:00'], ref: ['Instrument'], fill: 'zero' }],
      // no fill, over several partitions (the whole query would gather every column too)
      ['getTicks', { table: 'Trade', ...WINDOW, temporality: 'slice', slice: ['14:30', '15:00'] }],
      ['getTicks', { table: 'Quote', ...WINDOW, columns: ['instrumentID', 'bidPrice', 'askPrice'], sortCols: [['asc', 'instrumentID']] }],
      ['getStats', { table: 'Trade', ...day, granularity: 1, granularityUnit: 'minute', agg: { o: ['first', 'price'], h: ['max', 'price'], l: ['min', 'price'], c: ['last', 'price'], v: ['sum', 'volume'] } }],
      ['getStats', { table: 'Trade', ...WINDOW, analytics: ['vwap', 'twap', 'tradeCount'] }],
      ['getStats', { table: 'Trade', ...day, granularity: 1, granularityUnit: 'minute', movingWindowSize: 30, agg: { v: ['sum', 'volume'], p: ['avg', 'price'] } }],
      ['getStats', { table: 'Trade', ...day, idList: [...someIds, 'NOT-THERE'], granularity: 10, granularityUnit: 'minute', fill: 'forward', agg: { c: ['last', 'price'] }, sortCols: [['desc', 'c']] }],
      ['getStats', { table: 'Trade', ...WINDOW, granularity: 1, granularityUnit: 'day', fill: 'forward', applyHolidayCalendar: true, agg: { c: ['last', 'price'], n: ['count', 'price'] } }],
      ['getStats', { table: 'Trade', ...WINDOW, groupBy: ['instrumentID', 'tradedExchange'], agg: { n: ['count', 'price'], d: ['count', ['distinct', 'conditions']] }, decPlaces: 2 }],
    ];
    for (const [op, args] of cases) {
      const before = partsRun(ex);
      const whole = json(engine.call(op, args));
      const split = json(result(await ex.call(op, args)));
      expect(split.length, `${op} ${JSON.stringify(args)}`).toBeGreaterThan(10);
      expect(firstDifference(split, whole), `${op} ${JSON.stringify(args)}`).toBe('');
      expect(partsRun(ex), `${op} ${JSON.stringify(args)} did not split`).toBeGreaterThan(before);
    }
  });

  it('writes the parts of a split getTicks into one shared output when their rows are known, and appends them when not', async () => {
    const ex = await executor();
    const shared = (r: QueryResult, name: string): boolean => (r.table.col(name) as { data: ArrayBufferView }).data.buffer instanceof SharedArrayBuffer;
    // no filter: each part's rows are counted before it runs, and it writes them in place
    for (const args of [
      { table: 'Trade', ...WINDOW, columns: ['instrumentID', 'price', 'volume', 'conditions', 'exchTime'], fill: 'forward' },
      { table: 'Trade', ...firstDay(), fill: 'zero', columns: ['price', 'volume'] },
      { table: 'Trade', ...WINDOW, columns: ['price', 'volume'] },
      // a slice: the parts' rows are counted in each day's slice, not the whole window
      { table: 'Trade', ...WINDOW, temporality: 'slice', slice: ['14:30', '15:00'], columns: ['price', 'volume'] },
    ]) {
      const before = partsRun(ex);
      const split = result(await ex.call('getTicks', args));
      expect(partsRun(ex)).toBeGreaterThan(before);
      expect(firstDifference(json(split), json(engine.call('getTicks', args)))).toBe('');
      for (const name of ['eventTimestamp', 'price', 'volume']) expect(shared(split, name), `${name} of ${JSON.stringify(args)}`).toBe(true);
      expect(split.wroteInto).toBeUndefined();
    }
    // symbols: their codes go into the output too, those of one partition's stored dictionary as they
    // are; parts over several partitions (different dictionaries) offset theirs by the entries of the
    // parts before them, and the dictionaries are appended
    const codesShared = (r: QueryResult, name: string): boolean => (r.table.col(name) as { codes: Int32Array }).codes.buffer instanceof SharedArrayBuffer;
    const oneDay = { table: 'Trade', ...firstDay(), columns: ['instrumentID', 'price', 'conditions'], fill: 'forward' };
    const day = result(await ex.call('getTicks', oneDay));
    expect(firstDifference(json(day), json(engine.call('getTicks', oneDay)))).toBe('');
    for (const name of ['instrumentID', 'conditions']) expect(codesShared(day, name), name).toBe(true);
    for (const manyDays of [
      { table: 'Trade', ...WINDOW, columns: ['instrumentID', 'price', 'conditions'], fill: 'forward' },
      { table: 'Trade', ...WINDOW, temporality: 'slice', slice: ['14:30', '15:00'] },
    ]) {
      const before = partsRun(ex);
      const days = result(await ex.call('getTicks', manyDays));
      expect(partsRun(ex)).toBeGreaterThan(before);
      expect(firstDifference(json(days), json(engine.call('getTicks', manyDays)))).toBe('');
      for (const name of ['instrumentID', 'conditions']) expect(codesShared(days, name), `${name} of ${JSON.stringify(manyDays)}`).toBe(true);
    }
    // a filter: the parts' rows are only known once they ran, so they are appended (the same result)
    const filtered = { table: 'Trade', ...WINDOW, filter: [['>=', 'volume', 100]], fill: 'forward', columns: ['instrumentID', 'price', 'volume'] };
    const split = result(await ex.call('getTicks', filtered));
    expect(firstDifference(json(split), json(engine.call('getTicks', filtered)))).toBe('');
    expect(shared(split, 'price')).toBe(false);
  });

  it('runs whole what does not split, with the same result', async () => {
    const ex = await executor();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['getStats', { table: 'Trade', ...WINDOW, groupBy: ['tradedExchange'], agg: { n: ['count', 'price'], v: ['sum', 'volume'] } }],
      ['getStats', { table: 'Trade', ...WINDOW, idList: ['AAPL'], granularity: 1, granularityUnit: 'hour', agg: { v: ['sum', 'volume'] } }],
      ['getTicks', { table: 'Trade', ...WINDOW, applyCanCor: true, columns: ['instrumentID', 'price'] }],
      ['getTicks', { table: 'Trade', ...WINDOW, timeCol: 'exchTime', columns: ['exchTime', 'instrumentID', 'price'] }],
      ['getTicks', { table: 'Quote', ...WINDOW, fill: 'linear' }],
      // no fill within one partition: its result is a row index over the stored columns
      ['getTicks', { table: 'Trade', ...firstDay() }],
      ['getTicks', { table: 'Trade', ...WINDOW, fill: 'forward', columns: ['price', 'conditions'] }],
    ];
    for (const [op, args] of cases) {
      const before = partsRun(ex);
      expect(firstDifference(json(result(await ex.call(op, args))), json(engine.call(op, args)))).toBe('');
      expect(partsRun(ex), `${op} ${JSON.stringify(args)} split`).toBe(before);
    }
  });

  it('splits generateOrderAnalytics by instrument ranges and writes the merged rows once, as the whole call does', async () => {
    const ex = await executor();
    const args = { table: 'Order', startTS: '2024.01.01', endTS: '2030.01.01', regenExistingIDs: true };
    const summary = { table: 'OrderAnalytics', startTS: '2024.01.01', endTS: '2030.01.01', groupBy: [], summaryFunctions: ['orderCount'], agg: { n: ['count', 'orderID'] } };
    // in this thread, whole: the rows written (replacing those of the same orders)
    const whole = json(engine.call('generateOrderAnalytics', args));
    const held = json(engine.call('getOrderAnalyticSummary', summary));
    const before = partsRun(ex);
    const split = result(await ex.call('generateOrderAnalytics', args));
    expect(partsRun(ex), 'generate did not split').toBeGreaterThan(before);
    expect(split.table.length).toBeGreaterThan(100);
    expect(firstDifference(json(split), whole)).toBe('');
    // one commit of every part's rows: the same orders held, none lost or doubled
    expect(json(Engine.open([db]).call('getOrderAnalyticSummary', summary))).toBe(held);
    expect(JSON.parse(held)).toEqual([{ orderCount: split.table.length, n: split.table.length }]);
  });

  it('holds a split result for paging like any other', async () => {
    const ex = await executor();
    const args = { table: 'Trade', ...WINDOW, columns: ['instrumentID', 'price', 'volume'], fill: 'forward' };
    const before = partsRun(ex);
    const r = await ex.run('getTicks', args);
    expect(partsRun(ex)).toBeGreaterThan(before);
    if (!r.ok) throw new Error(r.header.ai);
    const local = new AppService(Engine.open([db]), 'browser');
    const l = local.run('getTicks', args);
    if (!l.ok) throw new Error(l.header.ai);
    expect(r.rows).toBe(l.rows);
    expect(await ex.page(r.resultId, 50_000, 40)).toEqual(local.page(l.resultId, 50_000, 40));
  });

  it('exports a large held result as CSV rendered on two threads, byte for byte the one-thread text', async () => {
    const ex = await executor();
    const args = { table: 'Trade', ...WINDOW, outputTZ: 'America/New_York' };
    const r = await ex.run('getTicks', args);
    if (!r.ok) throw new Error(r.header.ai);
    expect(r.rows).toBeGreaterThan(4 * BLOCK_ROWS); // enough rows for helper threads
    const chunks: Uint8Array[] = [];
    for await (const chunk of ex.csv(r.resultId)) chunks.push(chunk);
    const local = engine.call('getTicks', args);
    const expected = Buffer.concat([...textChunks('csv', local.table, local.outputTZ)]);
    expect(Buffer.concat(chunks).equals(expected)).toBe(true);
  });

  it('applies maxResultRows to the merged result, naming the limit, and to a getTicks before any part runs', async () => {
    // 120,000 trades; per-second counts: 98,673 rows, from parts that select about 60,000 trades each
    const ex = await executor({ maxResultRows: 80_000 });
    // getStats: each part's rows are under the limit, the merged result is not
    const perSecond = { table: 'Trade', ...WINDOW, granularity: 1, granularityUnit: 'second', agg: { n: ['count', 'price'] } };
    const stats = await ex.call('getStats', perSecond);
    expect(partsRun(ex)).toBeGreaterThan(0);
    expect(stats.ok).toBe(false);
    expect(!stats.ok && stats.header.ac).toBe(42);
    expect(!stats.ok && stats.header.ai).toMatch(/the result has 98,673 rows, more than maxResultRows \(80,000\)/);
    // getTicks: its rows are known to pass the limit, so it runs whole and stops while selecting,
    // before any column is gathered
    const before = partsRun(ex);
    const ticks = await ex.call('getTicks', { table: 'Trade', ...WINDOW, columns: ['price'], fill: 'zero' });
    expect(partsRun(ex)).toBe(before);
    expect(!ticks.ok && ticks.header.ac).toBe(42);
    expect(!ticks.ok && ticks.header.ai).toMatch(/selects more than maxResultRows \(80,000\)/);
  });

  it('stops its parts when cancelled, and the workers then run the next queries', async () => {
    const ex = await executor();
    const slow = { table: 'Trade', ...WINDOW, granularity: 1, granularityUnit: 'second', agg: { m: ['med', 'price'], d: ['sdev', 'price'] } };
    const before = partsRun(ex);
    const run = ex.call('getStats', slow, {
      queryId: 'split-slow',
      onProgress: (p) => {
        if (p.state === 'running' && partsRun(ex) > before) ex.cancel('split-slow');
      },
    });
    const r = await run;
    expect(!r.ok && r.header.ac).toBe(40);
    const next = { table: 'Trade', ...WINDOW, analytics: ['vwap'] };
    const [a, b] = await Promise.all([ex.call('getStats', next), ex.call('getTicks', { table: 'Trade', ...WINDOW, idList: ['AAPL'], columns: ['price'] })]);
    expect(json(result(a))).toBe(json(engine.call('getStats', next)));
    expect(result(b).table.length).toBeGreaterThan(0);
  });
});
