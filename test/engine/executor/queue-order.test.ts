/**
 * Small queries first (executor queue, SPEC 10 smallQueryRows): a query estimated from partition
 * metadata to read few rows is started before larger ones waiting, unless one of those has waited
 * largeQueryWaitMs; and the estimate itself against the rows the queries read.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemo } from '../../../engine/demo/generate.js';
import { Engine } from '../../../engine/engine.js';
import { loadSettings } from '../../../engine/executor/settings.js';
import { estimateRows } from '../../../engine/service/cost-estimate.js';
import { QueryService } from '../../../engine/service/query-service.js';
import { tempDir } from '../../helpers/db.js';

let db = '';
let service: QueryService;
const SLOW = { table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01', granularity: 1, granularityUnit: 'second', agg: { m: ['med', 'price'], d: ['sdev', 'price'] } };
const LARGE = { table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01', analytics: ['vwap'] };
const SMALL = { table: 'Trade', startTS: '2024.03.06D15:00', endTS: '2024.03.06D16:00', idList: ['AAPL'] };

beforeAll(async () => {
  db = join(tempDir(), 'demo');
  generateDemo(db, { seed: 11, days: 3, instruments: 6, tradesPerDay: 60_000 });
  // a large query never ages past the small ones here, however slowly the machine runs the slow one
  service = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1, largeQueryWaitMs: 600_000 }, 'browser');
}, 60_000);
afterAll(async () => service?.close());

describe('the queue', () => {
  it('starts a small query before a larger one that arrived first', async () => {
    const order: string[] = [];
    const slow = service.executor.run('getStats', SLOW).then(() => order.push('slow'));
    for (let i = 0; i < 200 && service.executor.runningQueries === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const large = service.executor.run('getStats', LARGE).then((r) => order.push(r.ok ? 'large' : 'large failed'));
    const small = service.executor.run('getTicks', SMALL).then((r) => order.push(r.ok ? 'small' : 'small failed'));
    await Promise.all([slow, large, small]);
    expect(order).toEqual(['slow', 'small', 'large']);
  }, 30_000);

  it('runs a small gateway query at once on the spare worker while every worker is busy (the express lane)', async () => {
    const order: string[] = [];
    const slow = service.executor.call('getStats', SLOW).then(() => order.push('slow'));
    for (let i = 0; i < 200 && service.executor.runningQueries === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const small = await service.executor.call('getTicks', SMALL);
    order.push('small');
    expect(small.ok && small.result.table.length).toBeGreaterThan(0);
    await slow;
    expect(order).toEqual(['small', 'slow']);
    // an app query (its result held for paging) waits for a worker of its own
    const order2: string[] = [];
    const slow2 = service.executor.run('getStats', SLOW).then(() => order2.push('slow'));
    for (let i = 0; i < 200 && service.executor.runningQueries === 0; i++) await new Promise((r) => setTimeout(r, 5));
    await service.executor.run('getTicks', SMALL).then(() => order2.push('small'));
    await slow2;
    expect(order2).toEqual(['slow', 'small']);
  }, 30_000);

  it.each([
    ['smallQueryRows 0', { smallQueryRows: 0 }],
    ['a large query that has waited largeQueryWaitMs', { largeQueryWaitMs: 0 }],
  ])('keeps arrival order with %s', async (_what, settings) => {
    const strict = await QueryService.start([db], { ...loadSettings({ env: {} }), workers: 1, maxRunningQueries: 1, ...settings }, 'browser');
    try {
      const order: string[] = [];
      const slow = strict.executor.run('getStats', SLOW).then(() => order.push('slow'));
      for (let i = 0; i < 200 && strict.executor.runningQueries === 0; i++) await new Promise((r) => setTimeout(r, 5));
      const large = strict.executor.run('getStats', LARGE).then(() => order.push('large'));
      const small = strict.executor.run('getTicks', SMALL).then(() => order.push('small'));
      await Promise.all([slow, large, small]);
      expect(order).toEqual(['slow', 'large', 'small']);
    } finally {
      await strict.close();
    }
  }, 30_000);
});

describe('the estimate', () => {
  it('is the rows of the partitions, the listed identifiers and the share of the day the window covers', () => {
    const engine = Engine.open([db]);
    const d = engine.databases[0]!;
    const keys = d.partitionKeys('Trade');
    const day = d.partition('Trade', keys[0]!)!;
    const aapl = day.idRanges.get('AAPL')!;
    const est = (args: unknown): number => estimateRows(engine, 'getTicks', args);
    expect(est({ table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07' })).toBe(day.rows);
    expect(est({ table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07', idList: ['AAPL'] })).toBe(aapl[1] - aapl[0]);
    expect(est(SMALL)).toBeCloseTo((aapl[1] - aapl[0]) / 24, 6);
    expect(est({ table: 'Trade', startTS: '2024.01.01', endTS: '2030.01.01' })).toBe(keys.reduce((s, k) => s + d.partition('Trade', k)!.rows, 0));
    expect(est({ table: 'Instrument' })).toBe(d.reference('Instrument')!.rows);
    // buckets count: a one-second getStats over a day is not small, whatever rows it reads
    expect(estimateRows(engine, 'getStats', { table: 'Trade', startTS: '2024.03.06D15:00', endTS: '2024.03.06D16:00', idList: ['AAPL'], granularity: 1, granularityUnit: 'second', analytics: ['vwap'] })).toBe(3600);
    expect(estimateRows(engine, 'getStats', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07', idList: ['AAPL'], granularity: 1, granularityUnit: 'millisecond', fill: 'forward', analytics: ['vwap'] })).toBe(86_400_000);
    // what it cannot tell waits its turn
    expect(est({ table: 'Nope' })).toBe(Infinity);
    expect(estimateRows(engine, 'generateOrderAnalytics', { table: 'Order', dt: '2024.03.06' })).toBe(Infinity);
  });
});
