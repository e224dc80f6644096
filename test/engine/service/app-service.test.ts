/**
 * The app's backend holds a few results for paging, charting and export. A result in use (paged,
 * read as Arrow, exported) stays; the least recently used is dropped, and asking for it says so.
 */
import { describe, expect, it } from 'vitest';
import { AppService } from '../../../engine/service/app-service.js';
import { MAX_RESULTS } from '../../../engine/session/session.js';
import { csv, makeEngine } from '../../helpers/db.js';

const engine = makeEngine({
  Trade: csv(
    ['eventTimestamp', 'instrumentID', 'price', 'volume'],
    [
      ['2024-03-06T14:00:00.000000001Z', 'A', '10.5', '100'],
      ['2024-03-06T14:00:01.000000002Z', 'B', '20.25', '200'],
      ['2024-03-06T14:00:02.000000003Z', 'A', '10.75', '300'],
    ],
  ),
});
const app = new AppService(engine, 'browser');
const run = (idList: string[]): string => {
  const r = app.run('.fsi.getTicks', { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07', idList });
  if (!r.ok) throw new Error(r.header.ai);
  return r.resultId;
};

describe('results held by the backend', () => {
  it('sorts a held result into a copy whose pages say where each row came from, through a second sort too', () => {
    const base = run(['A', 'B']);
    const byPrice = app.sort(base, ['desc', 'price']);
    if (!byPrice.ok) throw new Error(byPrice.header.ai);
    // prices 10.5, 20.25, 10.75 in time order: descending, the rows 1, 2, 0 of the result
    const price = byPrice.columns.findIndex((c) => c.name === 'price');
    const page = app.page(byPrice.resultId, 0, 3);
    expect(page.rows.map((r) => r[price])).toEqual(['20.25', '10.75', '10.5']);
    expect(page.baseRows).toEqual([1, 2, 0]);
    expect(page.rows.map((r) => r[0])).toEqual(['2024-03-06T14:00:01.000000002', '2024-03-06T14:00:02.000000003', '2024-03-06T14:00:00.000000001']);
    expect(app.page(byPrice.resultId, 1, 1).baseRows).toEqual([2]);
    // a copy sorted again still names the first result's rows; the result itself has no numbers
    const byVolume = app.sort(byPrice.resultId, ['asc', 'volume']);
    if (!byVolume.ok) throw new Error(byVolume.header.ai);
    expect(app.page(byVolume.resultId, 0, 3).baseRows).toEqual([0, 1, 2]);
    expect(app.page(base, 0, 3).baseRows).toBeUndefined();
    expect(byPrice.columns.map((c) => c.name)).not.toContain('\0row');
  });

  it('keeps a result that is used while newer lookups come and go', () => {
    const kept = run(['A']);
    const first = run(['B']);
    for (let i = 0; i < 3 * MAX_RESULTS; i++) {
      run(['A', 'B']);
      // the kept result is paged between lookups, as the grid and the ladder do
      expect(app.page(kept, 0, 10).rows).toHaveLength(2);
    }
    expect(Array.from(app.table(kept)).length).toBeGreaterThan(0);
    expect(Buffer.concat([...app.csv(kept).chunks]).toString()).toContain('2024-03-06T14:00:02.000000003');
    expect(() => app.page(first, 0, 10)).toThrow(/is not a result held here; run the query again/);
  });
});
