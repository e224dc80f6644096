/** The filter builder's rows against the request's list and string forms. */
import { describe, expect, it } from 'vitest';
import { filterBodyRows, filterRowsBody, filterRowsText, filterTextRows, rowWarning } from '../../renderer/src/form/filter-rows.js';
import { refBodyRows, refRowsBody, refTextRows } from '../../renderer/src/form/ref-filter-rows.js';
import { moveRow, sortRowsBody, sortTextRows } from '../../renderer/src/form/sort-rows.js';

const rows = [
  ['<', 'price', ' 100 ', ''],
  ['in', 'conditions', '@, F', ''],
  ['within', 'volume', '100', '500'],
  ['like', 'instrumentID', 'AA*', ''],
  ['=', '', '', ''], // blank: skipped
];

describe('filter rows', () => {
  it('become the list form, values as strings', () => {
    expect(filterRowsBody(rows)).toEqual([
      ['<', 'price', '100'],
      ['in', 'conditions', ['@', 'F']],
      ['within', 'volume', ['100', '500']],
      ['like', 'instrumentID', 'AA*'],
    ]);
    expect(filterRowsBody([['=', '', '', '']])).toBeUndefined();
  });

  it('name the row that cannot be sent', () => {
    expect(() => filterRowsBody([['<', 'price', '1', ''], ['>', '', '5', '']])).toThrow('filter: row 2 has no column');
    expect(() => filterRowsBody([['within', 'price', '1', '']])).toThrow('filter: row 1 needs both bounds for within');
  });

  it('come back from the list form, one triple or many', () => {
    const body = filterRowsBody(rows)!;
    expect(filterBodyRows(body)).toEqual(rows.slice(0, 4).map((r) => r.map((c) => c.trim())));
    expect(filterBodyRows(['>', 'price', 100])).toEqual([['>', 'price', '100', '']]);
    expect(filterBodyRows([['in', 'conditions', [['nested']]]])).toBeNull();
  });

  it('become the string form the engine reads, and come back', () => {
    const text = filterRowsText(rows);
    expect(text).toBe('price<100;conditions=@|F;volume>=100;volume<=500;instrumentID~AA*');
    expect(filterTextRows(text)).toEqual(filterBodyRows(filterRowsBody(rows)));
    expect(filterRowsText([['=', 'srcSys', 'a;b', ''], ['<>', 'conditions', '', ''], ['=', 'x', 'null', '']])).toBe('srcSys="a;b";conditions<>"";x="null"');
    expect(filterTextRows('srcSys="a;b"; x = "say \\"hi\\""')).toEqual([['=', 'srcSys', 'a;b', ''], ['=', 'x', 'say "hi"', '']]);
    expect(filterTextRows('price != 5')).toEqual([['<>', 'price', '5', '']]);
  });

  it('have no builder form for or, null tests and q parse trees', () => {
    expect(filterTextRows('price<10|price>200')).toBeNull();
    expect(filterTextRows('price=null')).toBeNull();
    expect(filterTextRows('((<;`price;100);(in;`instrumentID;`A`B))')).toBeNull();
    expect(filterTextRows('enlist (=;`srcSys;enlist `X)')).toBeNull();
    expect(filterTextRows('price<"open')).toBeNull();
    expect(filterTextRows('')).toEqual([]);
    expect(filterTextRows('[["<","price","100"]]')).toEqual([['<', 'price', '100', '']]);
  });

  it('warn of likely mistakes from the column type', () => {
    expect(rowWarning(['<', 'price', '1x', ''], 'float')).toBe('price is float: "1x" is not a number');
    expect(rowWarning(['in', 'volume', '1, 2, b', ''], 'long')).toBe('volume is long: "b" is not a number');
    expect(rowWarning(['like', 'price', 'A*', ''], 'float')).toBe('like needs a symbol or string column; price is float');
    expect(rowWarning(['>', '', '3', ''], undefined)).toBe('choose a column');
    expect(rowWarning(['<', 'price', '-1.5e3', ''], 'float')).toBeNull();
  });
});

describe('sortCols rows', () => {
  it('become the flat direction/column list', () => {
    expect(sortRowsBody([['desc', 'volume'], ['asc', ''], ['asc', 'eventTimestamp']])).toEqual(['desc', 'volume', 'asc', 'eventTimestamp']);
    expect(sortRowsBody([['asc', '']])).toBeUndefined();
  });

  it('read older text and JSON values', () => {
    expect(sortTextRows('desc volume, asc eventTimestamp')).toEqual([['desc', 'volume'], ['asc', 'eventTimestamp']]);
    expect(sortTextRows('[["desc","volume"],["asc","price"]]')).toEqual([['desc', 'volume'], ['asc', 'price']]);
    expect(sortTextRows('["desc","volume"]')).toEqual([['desc', 'volume']]);
  });

  it('reorder', () => {
    expect(moveRow(['a', 'b', 'c'], 2, -1)).toEqual(['a', 'c', 'b']);
    expect(moveRow(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
  });
});

describe('refFilter rows', () => {
  const ref = [
    ['Instrument', 'like', 'sector', 'Tech*', ''],
    ['Instrument', 'in', 'currency', 'USD, GBP', ''],
    ['Venue', '=', 'country', 'US', ''],
    ['Instrument', '=', '', '', ''],
  ];

  it('become the object keyed by reference table', () => {
    expect(refRowsBody(ref)).toEqual({
      Instrument: [['like', 'sector', 'Tech*'], ['in', 'currency', ['USD', 'GBP']]],
      Venue: [['=', 'country', 'US']],
    });
    expect(refRowsBody([['Instrument', 'like', '', '', '']])).toBeUndefined();
    expect(() => refRowsBody([['Instrument', 'like', '', 'x', '']])).toThrow('refFilter: row 1 has no column');
  });

  it('come back from the object and its JSON text, not from q text', () => {
    expect(refBodyRows({ Instrument: [['like', 'sector', 'Tech*']] })).toEqual([['Instrument', 'like', 'sector', 'Tech*', '']]);
    expect(refBodyRows({ Instrument: ['like', 'sector', 'Tech*'] })).toEqual([['Instrument', 'like', 'sector', 'Tech*', '']]);
    expect(refTextRows(JSON.stringify(refRowsBody(ref)))).toEqual(ref.slice(0, 3).map((r) => (r[1] === 'in' ? [...r.slice(0, 3), 'USD, GBP', ''] : r)));
    expect(refTextRows('(enlist `Instrument)!enlist ((like;`sector;"Tech*"))')).toBeNull();
  });
});
