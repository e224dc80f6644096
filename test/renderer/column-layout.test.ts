/** The grid's columns: shown, hidden and moved by name; a header click's sort cycle. */
import { describe, expect, it } from 'vitest';
import type { ResultColumn } from '../../engine/contract.js';
import { arrangeColumns, moveColumn, nextSort, sortColsOf } from '../../renderer/src/grid/column-layout.js';

const cols = (...names: string[]): ResultColumn[] => names.map((name) => ({ name, type: 'float' }));
const names = (c: ResultColumn[], order: number[]): string[] => order.map((j) => c[j]!.name);
const none = (): boolean => false;

describe('the grid’s columns', () => {
  const trade = cols('instrumentID', 'eventTimestamp', 'price', 'volume', 'exchTime');

  it('puts the time column first, then the saved order where it names columns, hidden ones left out', () => {
    expect(names(trade, arrangeColumns(trade, 'eventTimestamp', { order: [], hidden: none }))).toEqual(['eventTimestamp', 'instrumentID', 'price', 'volume', 'exchTime']);
    expect(names(trade, arrangeColumns(trade, 'eventTimestamp', { order: ['volume', 'instrumentID'], hidden: none }))).toEqual(['eventTimestamp', 'volume', 'price', 'instrumentID', 'exchTime']);
    expect(names(trade, arrangeColumns(trade, 'eventTimestamp', { order: ['exchTime', 'gone', 'price'], hidden: (n) => n === 'volume' }))).toEqual(['eventTimestamp', 'instrumentID', 'exchTime', 'price']);
    // the time column may be hidden too; without one nothing is frozen first
    expect(names(trade, arrangeColumns(trade, 'eventTimestamp', { order: [], hidden: (n) => n === 'eventTimestamp' }))).toEqual(['instrumentID', 'price', 'volume', 'exchTime']);
    expect(names(trade, arrangeColumns(trade, null, { order: ['price'], hidden: none }))).toEqual(['instrumentID', 'eventTimestamp', 'price', 'volume', 'exchTime']);
  });

  it('moves a column beside another, keeping the order of other results’ columns', () => {
    const now = ['instrumentID', 'price', 'volume', 'exchTime'];
    expect(moveColumn([], now, 'volume', 'instrumentID', 'before')).toEqual(['volume', 'instrumentID', 'price', 'exchTime']);
    expect(moveColumn([], now, 'instrumentID', 'exchTime', 'after')).toEqual(['price', 'volume', 'exchTime', 'instrumentID']);
    expect(moveColumn(['bidPrice', 'price'], now, 'price', 'exchTime', 'before')).toEqual(['instrumentID', 'volume', 'price', 'exchTime', 'bidPrice']);
    expect(moveColumn(['a'], now, 'price', 'price', 'before')).toEqual(['a']);
    expect(moveColumn(['a'], now, 'nope', 'price', 'before')).toEqual(['a']);
  });

  it('sorts by a header: ascending, descending, then the result’s own order; another header starts ascending', () => {
    const asc = nextSort(null, 'price');
    expect(asc).toEqual({ column: 'price', dir: 'asc' });
    const desc = nextSort(asc, 'price');
    expect(desc).toEqual({ column: 'price', dir: 'desc' });
    expect(nextSort(desc, 'price')).toBeNull();
    expect(nextSort(desc, 'volume')).toEqual({ column: 'volume', dir: 'asc' });
    expect(sortColsOf(desc!)).toEqual([['desc', 'price']]);
  });
});
