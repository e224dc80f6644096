/**
 * The app's backend holds a few results for paging, charting and export. A result in use (paged,
 * read as Arrow, exported) stays; the least recently used is dropped, and asking for it says so.
 */
import { describe, expect, it } from 'vitest';
import { AppService, MAX_RESULTS } from '../../engine/service/app-service.js';
import { csv, makeEngine } from '../helpers/db.js';

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
