/** The depth ladder's model, from page rows (text cells, list cells as JSON text). */
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ResultColumn } from '../../engine/contract.js';
import { LadderView } from '../../renderer/src/components/ladder-view.js';
import { decimalsOf, ladderColumns, ladderModel, latestById, parseNumberList, snapshotOf } from '../../renderer/src/ladder/ladder-model.js';

/** The columns plotOrderbookSnapshots returns. */
const COLUMNS: ResultColumn[] = [
  { name: 'eventTimestamp', type: 'timestamp' },
  { name: 'instrumentID', type: 'symbol' },
  { name: 'bidPrice', type: 'float[]' },
  { name: 'bidSize', type: 'long[]' },
  { name: 'bidCount', type: 'long[]' },
  { name: 'askPrice', type: 'float[]' },
  { name: 'askSize', type: 'long[]' },
  { name: 'askCount', type: 'long[]' },
  { name: 'bestBid', type: 'float' },
  { name: 'bestAsk', type: 'float' },
  { name: 'maxSize', type: 'long' },
  { name: 'spread', type: 'float' },
  { name: 'midPoint', type: 'float' },
];

const ROWS: string[][] = [
  ['2024-03-06T14:30:30.000000000', 'AAPL', '[101.5,101.4,101.25]', '[300,1200,600]', '[2,5,1]', '[101.55,101.6,101.7]', '[100,2400,800]', '[1,7,3]', '101.5', '101.55', '2400', '0.04999999999999716', '101.525'],
  ['2024-03-06T14:30:30.000000000', 'MSFT', '[409.9]', '[100]', '[1]', '[]', '[]', '[]', '409.9', '', '100', '', ''],
];

const cols = ladderColumns(COLUMNS, 'eventTimestamp', 'instrumentID')!;

describe('ladder model', () => {
  it('finds the ladder columns, or none without level lists', () => {
    expect(cols).toMatchObject({ bidPrice: 2, bidSize: 3, askPrice: 5, askSize: 6, bestBid: 8, midPoint: 12, time: 0, id: 1, totalBidSize: -1 });
    expect(ladderColumns(COLUMNS.filter((c) => c.name !== 'askSize'), 'eventTimestamp', 'instrumentID')).toBeNull();
    expect(ladderColumns([{ name: 'bidPrice', type: 'float' }, { name: 'bidSize', type: 'long' }, { name: 'askPrice', type: 'float' }, { name: 'askSize', type: 'long' }], null, null)).toBeNull();
  });

  it('parses list cells', () => {
    expect(parseNumberList('[101.5,101.4]')).toEqual([101.5, 101.4]);
    expect(parseNumberList('')).toEqual([]);
    expect(parseNumberList('[1,null,3]')).toEqual([1, NaN, 3]);
    expect(decimalsOf(101.25)).toBe(2);
    expect(decimalsOf(0.7011)).toBe(4);
    expect(decimalsOf(100)).toBe(0);
  });

  it('reads a snapshot with the figures the engine appended', () => {
    const s = snapshotOf(ROWS[0]!, cols, 0);
    expect(s).toMatchObject({ id: 'AAPL', time: '2024-03-06T14:30:30.000000000', bestBid: 101.5, bestAsk: 101.55, maxSize: 2400, midPoint: 101.525, totalBid: 2100, totalAsk: 3300 });
    expect(s.bids.map((l) => [l.price, l.size, l.count])).toEqual([[101.5, 300, 2], [101.4, 1200, 5], [101.25, 600, 1]]);
  });

  it('lays the levels on one descending price axis, mid between best ask and best bid', () => {
    const m = ladderModel(snapshotOf(ROWS[0]!, cols, 0));
    expect(m.rows.map((r) => [r.price, r.bid?.size ?? null, r.ask?.size ?? null, r.best])).toEqual([
      [101.7, null, 800, null],
      [101.6, null, 2400, null],
      [101.55, null, 100, 'ask'],
      [101.5, 300, null, 'bid'],
      [101.4, 1200, null, null],
      [101.25, 600, null, null],
    ]);
    expect(m.midAt).toBe(3);
    expect(m.rows[1]!.askBar).toBe(1);
    expect(m.rows[3]!.bidBar).toBe(0.125);
    expect(m.decimals).toBe(2);
    expect(m.spreadBps).toBeCloseTo(4.925, 3);
    expect(m.crossed).toBe(false);
    expect(m.bidShare).toBeCloseTo(2100 / 5400, 9);
  });

  it('computes what a raw snapshot row lacks, and copes with a one-sided book', () => {
    const raw = COLUMNS.slice(0, 8);
    const rawCols = ladderColumns(raw, 'eventTimestamp', 'instrumentID')!;
    const s = snapshotOf(ROWS[0]!.slice(0, 8), rawCols, 0);
    expect([s.bestBid, s.bestAsk, s.maxSize, s.midPoint]).toEqual([101.5, 101.55, 2400, 101.525]);
    expect(s.spread).toBeCloseTo(0.05, 9);
    const oneSided = ladderModel(snapshotOf(ROWS[1]!, cols, 1));
    expect(oneSided.rows).toHaveLength(1);
    expect([oneSided.midAt, oneSided.spreadBps]).toEqual([-1, null]);
  });

  it('flags a crossed book and merges levels at the same price', () => {
    const crossed = ['t', 'X', '[10.02,10]', '[5,5]', '', '[10.01,10.02]', '[7,7]', '', '', '', '', '', ''];
    const m = ladderModel(snapshotOf(crossed, cols, 0));
    expect(m.crossed).toBe(true);
    expect(m.rows.map((r) => [r.price, r.bid?.size, r.ask?.size, r.best])).toEqual([
      [10.02, 5, 7, 'bid'],
      [10.01, undefined, 7, 'ask'],
      [10, 5, undefined, null],
    ]);
  });

  it('keeps the latest snapshot of each identifier', () => {
    const snaps = [snapshotOf(ROWS[0]!, cols, 0), snapshotOf(ROWS[1]!, cols, 1), snapshotOf(ROWS[0]!, cols, 2)];
    expect([...latestById(snaps)].map(([id, s]) => [id, s.row])).toEqual([['AAPL', 2], ['MSFT', 1]]);
  });

  it('renders asks above the mid marker and bids below it, best levels highlighted', () => {
    const s = snapshotOf(ROWS[0]!, cols, 0);
    const html = renderToString(createElement(LadderView, { snapshot: s, model: ladderModel(s) }));
    const order = [...html.matchAll(/data-testid="(ladder-row|ladder-mid)"/g)].map((m) => m[1]);
    expect(order).toEqual(['ladder-row', 'ladder-row', 'ladder-row', 'ladder-mid', 'ladder-row', 'ladder-row', 'ladder-row']);
    expect(html).toContain('class="lrow ask best-ask"');
    expect(html).toContain('class="lrow bid best-bid"');
    // the spread at the left of the mid marker, in bps at its right
    expect(html).toContain('<i>spread<!-- --> <!-- -->0.05</i>');
    expect(html).toContain('<i>4.92 bps</i>');
    expect(html).toContain('101.525');
  });
});
