/**
 * The ladder and the filter builder against the real engine: plotOrderbookSnapshots pages (as the app
 * receives them) give ladders whose figures match the engine's; builder rows sent as the list form and
 * as their string form select the same rows.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDemo } from '../../engine/demo/generate.js';
import { Engine } from '../../engine/engine.js';
import { AppService } from '../../engine/service/app-service.js';
import { OPERATIONS } from '../../engine/operations/index.js';
import { ladderColumns, ladderModel, snapshotOf } from '../../renderer/src/ladder/ladder-model.js';
import { filterRowsText } from '../../renderer/src/form/filter-rows.js';
import { rowsValue } from '../../renderer/src/form/values.js';
import { buildArgs } from '../../renderer/src/store/request.js';
import { tempDir } from '../helpers/db.js';

const dir = join(tempDir(), 'demo');
const report = generateDemo(dir, { days: 1, instruments: 4, tradesPerDay: 4000, seed: 5 });
const app = new AppService(Engine.open([dir]), 'browser');
const day = report.dates[0]!.replace(/-/g, '.');
const getTicks = OPERATIONS.find((o) => o.name === 'getTicks')!;

function run(args: Record<string, unknown>): Extract<ReturnType<AppService['run']>, { ok: true }> {
  const r = app.run('.fsi.getTicks', args);
  if (!r.ok) throw new Error(r.header.ai);
  return r;
}

describe('the ladder on plotOrderbookSnapshots results', () => {
  it('reads one snapshot per identifier with the engine figures', () => {
    const r = run(buildArgs(getTicks, { table: 'OrderbookSnapshots', startTS: `${day}D14:00`, endTS: `${day}D15:00`, orderbook: 'plotOrderbookSnapshots' }));
    const cols = ladderColumns(r.columns, r.timeColumn, r.idColumn);
    expect(cols).not.toBeNull();
    const page = app.page(r.resultId, 0, r.rows);
    expect(page.rows).toHaveLength(r.ids.length);
    for (const [i, cells] of page.rows.entries()) {
      const s = snapshotOf(cells, cols!, i);
      const m = ladderModel(s);
      expect(s.time.startsWith(report.dates[0]!)).toBe(true);
      expect(s.bids.length).toBeGreaterThan(0);
      expect(s.bestBid).toBe(s.bids[0]!.price); // best-first lists
      expect(s.bestAsk).toBe(s.asks[0]!.price);
      expect(m.crossed).toBe(false);
      expect(m.rows.filter((row) => row.best !== null)).toHaveLength(2);
      expect(m.rows[m.midAt - 1]!.price).toBe(s.bestAsk);
      expect(m.rows[m.midAt]!.price).toBe(s.bestBid);
      expect(Math.max(...m.rows.map((row) => Math.max(row.bidBar, row.askBar)))).toBe(1);
      expect(m.spreadBps).toBeGreaterThan(0);
    }
  });
});

describe('filter builder rows through the engine', () => {
  it('select the same rows as list form and as their string form', () => {
    const rows = [
      ['within', 'price', '0', '100000'],
      ['in', 'conditions', '@, F, 4', ''],
      ['>=', 'volume', '100', ''],
      ['like', 'instrumentID', '*A*', ''],
    ];
    const base = { table: 'Trade', startTS: day, endTS: `${day}D23:59`, columns: 'price, volume, conditions' };
    const list = run(buildArgs(getTicks, { ...base, filter: rowsValue(rows) }));
    const text = run(buildArgs(getTicks, { ...base, filter: filterRowsText(rows) }));
    const all = run(buildArgs(getTicks, base));
    expect(list.rows).toBeGreaterThan(0);
    expect(list.rows).toBeLessThan(all.rows);
    expect(text.rows).toBe(list.rows);
    expect(app.page(text.resultId, 0, 50).rows).toEqual(app.page(list.resultId, 0, 50).rows);
  });
});
