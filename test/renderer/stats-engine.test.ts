/**
 * The stats view's pure parts against the real engine on demo data: the Arrow result read into series
 * equals the grid's text, the plan finds the candles, the ladder link reads the very book of each
 * bucket, and the agg builder's local checks agree with the engine's answers.
 */
import { tableFromIPC } from 'apache-arrow';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDemo } from '../../engine/demo/generate.js';
import { Engine } from '../../engine/engine.js';
import { OPERATIONS } from '../../engine/operations/index.js';
import { AppService } from '../../engine/service/app-service.js';
import { aggValue } from '../../renderer/src/form/agg-body.js';
import { type TreeArg, treeIssues } from '../../renderer/src/form/agg-tree.js';
import { listValue } from '../../renderer/src/form/values.js';
import { ladderColumns, snapshotOf } from '../../renderer/src/ladder/ladder-model.js';
import { planChart } from '../../renderer/src/stats/chart-plan.js';
import { ladderArgs } from '../../renderer/src/stats/ladder-link.js';
import { statsModel } from '../../renderer/src/stats/stats-model.js';
import { buildArgs } from '../../renderer/src/store/request.js';
import { tempDir } from '../helpers/db.js';

const dir = join(tempDir(), 'demo');
const report = generateDemo(dir, { days: 1, instruments: 4, tradesPerDay: 4000, seed: 7 });
const app = new AppService(Engine.open([dir]), 'browser');
const day = report.dates[0]!.replace(/-/g, '.');
const getStats = OPERATIONS.find((o) => o.name === 'getStats')!;

function run(op: string, args: Record<string, unknown>): Extract<ReturnType<AppService['run']>, { ok: true }> {
  const r = app.run(op, args);
  if (!r.ok) throw new Error(r.header.ai);
  return r;
}

function modelOf(r: ReturnType<typeof run>): ReturnType<typeof statsModel> {
  return statsModel(tableFromIPC(app.table(r.resultId)), { timeColumn: r.timeColumn, groupColumns: r.groupColumns });
}

describe('getStats results as series', () => {
  it('hold the values the grid shows, per group and bucket, and chart OHLC as candles', () => {
    const args = buildArgs(getStats, {
      table: 'Trade',
      startTS: `${day}D14:30`,
      endTS: `${day}D16:00`,
      analytics: listValue(['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume', 'vwap']),
      agg: aggValue('dict', [{ name: 'trades', tree: ['count', 'i'] }]),
      granularity: '15',
      granularityUnit: 'minute',
    });
    const r = run('.fsi.getStats', args);
    const m = modelOf(r);
    expect(m.times.length).toBe(6);
    expect(m.groups.length).toBe(r.ids.length);
    const page = app.page(r.resultId, 0, r.rows).rows;
    const at = (name: string): number => r.columns.findIndex((c) => c.name === name);
    const clock = (cells: readonly string[]): string => cells[at('eventTimestamp')]!;
    const slots = [...new Set(page.map(clock))].sort();
    for (const cells of page) {
      const g = m.groups.findIndex((x) => x.values[0] === cells[at('instrumentID')]);
      const slot = slots.indexOf(clock(cells));
      for (const [c, name] of m.columns.entries()) expect(m.values[c]![g]![slot], `${name} ${cells.join(',')}`).toBeCloseTo(Number(cells[at(name)]), 9);
    }
    const plan = planChart(m, new Map([['trades', ['count', 'i']]]), false);
    expect(plan.candles).toEqual({ stem: 'price', open: 'firstPrice', high: 'maxPrice', low: 'minPrice', close: 'lastPrice' });
    expect(plan.panes.map((p) => [...p.lines, ...p.histograms])).toEqual([['vwap'], ['sumVolume'], ['trades']]);
  });
});

describe('the ladder at a bucket', () => {
  for (const extra of [{}, { movingWindowSize: '15' }]) {
    it(`reads the book whose best bid and ask the series show ${JSON.stringify(extra)}`, () => {
      const args = {
        table: 'OrderbookSnapshots', orderbook: 'plotOrderbookSnapshots', startTS: `${day}D09:30`, endTS: `${day}D10:32:30`,
        inputTZ: 'America/New_York', outputTZ: 'Europe/London', granularity: '5', granularityUnit: 'minute', ...extra,
      };
      const r = run('.fsi.getStats', args);
      const m = modelOf(r);
      const bid = m.columns.indexOf('bestBid');
      const ask = m.columns.indexOf('bestAsk');
      let checked = 0;
      m.groups.forEach((g, gi) => {
        for (const slot of [0, 3, m.times.length - 1]) {
          const q = run('.fsi.getTicks', ladderArgs(args, g.values[0]!, m.times[slot]!)!);
          const cols = ladderColumns(q.columns, q.timeColumn, q.idColumn)!;
          const cells = app.page(q.resultId, 0, 1).rows[0];
          const expected = m.values[bid]![gi]![slot]!;
          if (!Number.isFinite(expected)) {
            expect(cells).toBeUndefined();
            continue;
          }
          const snap = snapshotOf(cells!, cols, 0);
          expect([snap.id, snap.bestBid, snap.bestAsk]).toEqual([g.values[0], expected, m.values[ask]![gi]![slot]]);
          checked++;
        }
      });
      expect(checked).toBeGreaterThan(4);
    });
  }
});

describe('agg trees: local checks and the engine agree', () => {
  const schema = { table: 'Trade', columns: new Map(app.info().assemblies[0]!.tables.find((t) => t.name === 'Trade')!.columns.map((c) => [c.name, c.type])) };
  const trees: TreeArg[] = [
    ['max', 'price'],
    ['wavg', 'volume', 'price'],
    ['count', ['distinct', 'conditions']],
    ['%', ['+', ['first', 'price'], ['last', 'price']], '2'],
    ['last', ['sums', 'volume']],
    ['maximum', 'price'],
    ['max', 'price', 'volume'],
    ['wavg', 'volume'],
    ['max', 'pirce'],
    ['*', 'price', 'volume'],
    ['deltas', 'price'],
    ['sum', 'instrumentID'],
    ['last', ['deltas', ['max', 'price']]],
  ];
  for (const tree of trees) {
    const local = treeIssues(tree, schema);
    it(`${JSON.stringify(tree)}: ${local.length ? local[0]!.text : 'fine'}`, () => {
      const r = app.run('.fsi.getStats', { table: 'Trade', startTS: `${day}D14:30`, endTS: `${day}D14:40`, agg: { x: tree } });
      expect(r.ok, r.ok ? '' : r.header.ai).toBe(local.length === 0);
    });
  }
});
