/** Ctrl/Cmd+C of grid rows: TSV of the cells as the CSV writes them (timestamps outside UTC with their offset). */
import { describe, expect, it } from 'vitest';
import type { PageResponse, ResultColumn } from '../../engine/contract.js';
import { AppService } from '../../engine/service/app-service.js';
import { copyTsv, tsvText } from '../../renderer/src/grid/tsv.js';
import { csv, makeEngine } from '../helpers/db.js';

const engine = makeEngine({
  Trade: csv(
    ['eventTimestamp', 'instrumentID', 'price', 'conditions'],
    [
      ['2024-11-03T05:30:00.000000007Z', 'A', '10.5', '@'],
      ['2024-11-03T06:30:00.000000008Z', 'B', '20.25', '"F,X"'],
    ],
  ),
});
const app = new AppService(engine, 'browser');

/** A held result, and the page readers the grid gives a copy: its held (grid) pages and the csv form. */
function held(outputTZ: string): {
  result: { resultId: string; columns: readonly ResultColumn[]; outputTZ: string };
  grid: (lo: number, hi: number) => Promise<ReadonlyArray<readonly string[]>>;
  csvReads: number[][];
  readCsv: (offset: number, limit: number) => Promise<PageResponse>;
} {
  const r = app.run('.fsi.getTicks', { table: 'Trade', startTS: '2024.11.03', endTS: '2024.11.04', columns: ['instrumentID', 'price', 'conditions'], outputTZ });
  if (!r.ok) throw new Error(r.header.ai);
  const csvReads: number[][] = [];
  return {
    result: r,
    grid: async (lo, hi) => app.page(r.resultId, lo, hi - lo + 1).rows,
    csvReads,
    readCsv: async (offset, limit) => {
      csvReads.push([offset, limit]);
      return app.page(r.resultId, offset, limit, 'csv');
    },
  };
}

describe('copying grid rows', () => {
  it('keeps each timestamp\'s offset outside UTC: the same wall-clock time twice, two instants', async () => {
    const h = held('America/New_York');
    const { text, rows } = await copyTsv(h.result, 0, 1, h.grid, h.readCsv);
    expect(rows).toBe(2);
    expect(text).toBe('eventTimestamp\tinstrumentID\tprice\tconditions\n2024-11-03T01:30:00.000000007-04:00\tA\t10.5\t@\n2024-11-03T01:30:00.000000008-05:00\tB\t20.25\tF,X\n');
    expect(h.csvReads).toEqual([[0, 2]]);
    // the grid's own pages stay wall-clock times, as the views that read them expect
    expect((await h.grid(0, 0))[0]![0]).toBe('2024-11-03T01:30:00.000000007');
  });

  it('takes the grid\'s pages as they are in UTC, where they are the CSV\'s text', async () => {
    const h = held('UTC');
    const { text } = await copyTsv(h.result, 1, 1, h.grid, h.readCsv);
    expect(text).toBe(tsvText(['eventTimestamp', 'instrumentID', 'price', 'conditions'], [['2024-11-03T06:30:00.000000008', 'B', '20.25', 'F,X']]));
    expect(h.csvReads).toEqual([]);
  });
});
