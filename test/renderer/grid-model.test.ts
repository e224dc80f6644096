/** The grid's pure parts: keys and ranges, the clipboard's TSV, column layout, the first pages read, tick sizes. */
import { describe, expect, it } from 'vitest';
import type { BackendApi, RunResponse, SummaryFunctionInfo, TableInfo } from '../../engine/contract.js';
import { gridHints } from '../../renderer/src/components/grid/use-grid-hints.js';
import { samplePages } from '../../renderer/src/components/grid/use-result-pages.js';
import { autoWidth, cellChars, displayOrder, ROUGH_METRICS, rowNumberChars } from '../../renderer/src/grid/layout.js';
import { columnFormat, statsOfCells } from '../../renderer/src/grid/number-format.js';
import { keyTarget, moveRange, rangeBounds, rangeSize } from '../../renderer/src/grid/selection.js';
import { tickDecimalsOf, tickSizes, tickSource } from '../../renderer/src/grid/tick-sizes.js';
import { tsvField, tsvText } from '../../renderer/src/grid/tsv.js';

describe('keys move the selection', () => {
  const at = (key: string, focus: number | null, rows = 1000, page = 30): number | null => keyTarget({ key }, focus, rows, page);

  it('Home and End go to the first and last row, Page Up/Down by a page, arrows by one, clamped', () => {
    expect([at('Home', 500), at('End', 500), at('End', null)]).toEqual([0, 999, 999]);
    expect([at('PageDown', 10), at('PageUp', 10), at('PageDown', 990)]).toEqual([40, 0, 999]);
    expect([at('ArrowDown', 5), at('ArrowUp', 5), at('ArrowUp', 0), at('ArrowDown', 999)]).toEqual([6, 4, 0, 999]);
    expect(keyTarget({ key: 'End', ctrlKey: true }, 3, 10, 5)).toBe(9);
  });

  it('starts from the top (down keys) or the bottom (up) with nothing selected, and ignores other keys', () => {
    expect([at('ArrowDown', null), at('ArrowUp', null), at('PageDown', null), at('PageUp', null)]).toEqual([0, 999, 29, 0]);
    expect([at('a', 3), at('Tab', 3), at('Home', 0, 0)]).toEqual([null, null, null]);
    expect(at('PageDown', 3, 1000, 0)).toBe(4);
  });

  it('extends a range from its anchor with Shift, else selects one row', () => {
    const r = moveRange(moveRange(null, 10, false), 14, true);
    expect(r).toEqual({ anchor: 10, focus: 14 });
    expect(moveRange(r, 5, true)).toEqual({ anchor: 10, focus: 5 });
    expect(rangeBounds(moveRange(r, 5, true))).toEqual([5, 10]);
    expect(rangeSize(moveRange(r, 5, true))).toBe(6);
    expect(moveRange(r, 7, false)).toEqual({ anchor: 7, focus: 7 });
    expect(moveRange(null, 7, true)).toEqual({ anchor: 7, focus: 7 });
  });
});

describe('copied rows', () => {
  it('are TSV with a header line and each cell as the CSV writes it', () => {
    expect(tsvText(['eventTimestamp', 'price', 'bidPrice'], [['2024-03-06T14:30:00.000000000', '169.07999999999998', '[170.6,170.65]'], ['2024-03-06T14:30:01.000000000', '', '[]']])).toBe(
      'eventTimestamp\tprice\tbidPrice\n2024-03-06T14:30:00.000000000\t169.07999999999998\t[170.6,170.65]\n2024-03-06T14:30:01.000000000\t\t[]\n',
    );
  });

  it('quote the fields a spreadsheet would split', () => {
    expect(tsvField('a\tb')).toBe('"a\tb"');
    expect(tsvField('say "hi"')).toBe('"say ""hi"""');
    expect(tsvField('two\nlines')).toBe('"two\nlines"');
    expect(tsvField('a,b')).toBe('a,b');
  });
});

describe('column layout', () => {
  const cols = [
    { name: 'instrumentID', type: 'symbol' as const },
    { name: 'price', type: 'float' as const },
    { name: 'eventTimestamp', type: 'timestamp' as const },
  ];

  it('puts the time column first (frozen beside #), the others in the result’s order', () => {
    expect(displayOrder(cols, 'eventTimestamp')).toEqual([2, 0, 1]);
    expect(displayOrder(cols, null)).toEqual([0, 1, 2]);
    expect(displayOrder(cols, 'absent')).toEqual([0, 1, 2]);
  });

  it('sizes a column to its whole header and its widest formatted value', () => {
    const stats = statsOfCells(['-1234567.5', '2.25']);
    const f = columnFormat({ name: 'pnl', type: 'float' }, stats);
    expect(cellChars('float', f, stats, 10)).toBe('-1,234,567.50'.length);
    const long = statsOfCells(['60400', '1234567']);
    expect(cellChars('long', columnFormat({ name: 'volume', type: 'long' }, long), long, 7)).toBe('1,234,567'.length);
    expect(cellChars('symbol', columnFormat({ name: 's', type: 'symbol' }, long), undefined, 0)).toBe(6);
    // the header always fits, whatever the values
    const w = autoWidth('sequenceNumber', 3, ROUGH_METRICS);
    expect(w).toBeGreaterThanOrEqual(Math.ceil(ROUGH_METRICS.header('sequenceNumber')) + 16);
    // long text stops growing the column; the header does not
    expect(autoWidth('x', 500, ROUGH_METRICS)).toBe(360);
  });

  it('gives # room for the largest row number with separators', () => {
    expect(rowNumberChars(99_999)).toBe(6);
    expect(rowNumberChars(1_000_000)).toBe(9);
    expect(rowNumberChars(0)).toBe(1);
  });
});

describe('the first pages read of a result', () => {
  it('are all of a small result, else the first, the last and six between', () => {
    expect(samplePages(1000)).toEqual([0, 1, 2, 3, 4]);
    const pages = samplePages(1_000_000);
    expect(pages).toHaveLength(8);
    expect(pages[0]).toBe(0);
    expect(pages[7]).toBe(4999);
    expect([...pages].sort((a, b) => a - b)).toEqual(pages);
  });
});

describe('tick sizes', () => {
  const instrument: TableInfo = {
    name: 'Instrument', kind: 'reference', timeColumn: null, idColumn: 'instrumentID', key: 'instrumentID', rows: 3, firstDate: null, lastDate: null, foreignKeys: {}, analytics: [],
    columns: [{ name: 'instrumentID', type: 'symbol' }, { name: 'tickSize', type: 'float' }],
  };
  const trade: TableInfo = { ...instrument, name: 'Trade', kind: 'partitioned', key: null };

  /** A backend answering getTicks Instrument with three instruments, counting calls. */
  function fake(fail = 0): BackendApi & { calls: Array<Record<string, unknown>> } {
    const calls: Array<Record<string, unknown>> = [];
    let failures = fail;
    const ok = { ok: true, resultId: 'r1', rows: 3 } as unknown as RunResponse;
    return {
      calls,
      run: async (_op: string, args: Record<string, unknown>) => {
        calls.push(args);
        if (failures-- > 0) throw new Error('down');
        return ok;
      },
      page: async () => ({ offset: 0, rows: [['AAPL', '0.01'], ['BP', '0.0005'], ['XX', '']] }),
    } as unknown as BackendApi & { calls: Array<Record<string, unknown>> };
  }

  it('come from a reference table with a float tickSize, keyed by its key', () => {
    expect(tickSource([trade, instrument])).toEqual({ table: 'Instrument', key: 'instrumentID' });
    expect(tickSource([trade])).toBeNull();
  });

  it('are read once per connection and assembly; the most decimals among the result’s instruments count', async () => {
    const api = fake();
    const t = await tickSizes(api, '.fsi.getTicks', 'embedded-a', null, [trade, instrument]);
    expect(t?.sizes).toEqual(new Map([['AAPL', 0.01], ['BP', 0.0005]]));
    await tickSizes(api, '.fsi.getTicks', 'embedded-a', null, [trade, instrument]);
    expect(api.calls).toEqual([{ table: 'Instrument', columns: ['instrumentID', 'tickSize'] }]);
    await tickSizes(api, '.fsi.getTicks', 'embedded-a', 'research', [trade, instrument]);
    expect(api.calls[1]).toEqual({ table: 'Instrument', columns: ['instrumentID', 'tickSize'], scope: { assembly: 'research' } });
    expect(tickDecimalsOf(['AAPL'], t)).toBe(2);
    expect(tickDecimalsOf(['AAPL', 'BP'], t)).toBe(4);
    expect(tickDecimalsOf(['ZZZ'], t)).toBeNull();
    expect(tickDecimalsOf(['AAPL'], null)).toBeNull();
  });

  it('are read again after a failed read', async () => {
    const api = fake(1);
    expect(await tickSizes(api, '.fsi.getTicks', 'remote-b', null, [instrument])).toBeNull();
    expect((await tickSizes(api, '.fsi.getTicks', 'remote-b', null, [instrument]))?.sizes.get('BP')).toBe(0.0005);
    expect(api.calls).toHaveLength(2);
  });
});

describe('what the grid knows of a result besides its values', () => {
  const fn = (name: string, kind: SummaryFunctionInfo['kind']): SummaryFunctionInfo => ({ name, kind, adverse: null, doc: '', tree: '[]', isDefault: true });
  const fns = [fn('fillRate', 'pct'), fn('executionShortfall', 'bps'), fn('instrumentID', 'count'), fn('orderCount', 'count')];
  const result = (columns: string[], groupColumns: string[], idColumn: string | null, ids: string[]): Extract<RunResponse, { ok: true }> =>
    ({ ok: true, resultId: 'r', columns: columns.map((name) => ({ name, type: 'float' })), groupColumns, idColumn, ids, rows: 2 }) as unknown as Extract<RunResponse, { ok: true }>;
  const ticks = { key: 'instrumentID', sizes: new Map([['AAPL', 0.01], ['BP', 0.0005]]) };

  it('gives a summary’s function columns their kinds, never its group columns', () => {
    const r = result(['instrumentID', 'fillRate', 'executionShortfall'], ['instrumentID'], 'instrumentID', ['AAPL']);
    expect([...gridHints(r, 'summary', fns, null).kinds!]).toEqual([['fillRate', 'pct'], ['executionShortfall', 'bps']]);
    // a getTicks of OrderAnalytics has columns of the same names: its values decide
    expect(gridHints(r, 'ticks', fns, null).kinds!.size).toBe(0);
  });

  it('gives price columns the tick decimals of the result’s instruments', () => {
    expect(gridHints(result(['price'], [], 'instrumentID', ['AAPL', 'BP']), 'ticks', fns, ticks).tickDecimals).toBe(4);
    expect(gridHints(result(['price'], [], 'instrumentID', ['AAPL']), 'stats', fns, ticks).tickDecimals).toBe(2);
    // grouped by sector: no instruments to take tick sizes from
    expect(gridHints(result(['vwap'], ['sector'], null, []), 'stats', fns, ticks).tickDecimals).toBeNull();
  });
});
