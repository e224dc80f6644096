/** The form's values become the REST-style JSON body a script would send. */
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../engine/operations/index.js';
import { decodeArgs } from '../../engine/registry/decode.js';
import { listValue, rowsValue } from '../../renderer/src/form/values.js';
import { buildArgs } from '../../renderer/src/store/request.js';

const getTicks = OPERATIONS.find((o) => o.name === 'getTicks')!;

describe('form values to request body', () => {
  it('keeps filled fields only, splitting lists and parsing JSON fields', () => {
    const body = buildArgs(getTicks, {
      table: 'Trade',
      startTS: ' 2024.03.06D14:30 ',
      endTS: '',
      idList: 'AAPL, MSFT  IBM',
      columns: 'price,volume',
      filter: '[[">","price","100"]]',
      sortCols: 'desc volume, asc eventTimestamp',
      applyCanCor: false,
      idMapping: true,
      slice: '09:30|16:00',
      decPlaces: '2',
    });
    expect(body).toEqual({
      table: 'Trade',
      startTS: '2024.03.06D14:30',
      idList: ['AAPL', 'MSFT', 'IBM'],
      columns: ['price', 'volume'],
      filter: [['>', 'price', '100']],
      sortCols: ['desc', 'volume', 'asc', 'eventTimestamp'],
      idMapping: '1b',
      slice: ['09:30', '16:00'],
      decPlaces: '2',
    });
    // What the form sends, the engine accepts.
    expect(() => decodeArgs(getTicks, body)).not.toThrow();
  });

  it('sends the string form of a filter as text, and names a malformed JSON field', () => {
    expect(buildArgs(getTicks, { table: 'Trade', filter: 'price<100;volume>=10' })['filter']).toBe('price<100;volume>=10');
    expect(() => buildArgs(getTicks, { table: 'Trade', filter: '[["<","price"' })).toThrow(/^filter: not valid JSON/);
  });

  it('sends what the richer widgets hold in the same REST shapes', () => {
    const body = buildArgs(getTicks, {
      table: 'Trade',
      idList: listValue(['AAPL', 'AAPL US Equity'], 'MSFT.OQ, '),
      columns: listValue(['price', 'volume'], 'conditions'),
      filter: rowsValue([
        ['<', 'price', '100', ''],
        ['in', 'conditions', '@, F', ''],
        ['within', 'volume', '10', '20'],
        ['=', '', '', ''],
      ]),
      sortCols: rowsValue([['desc', 'volume'], ['asc', 'eventTimestamp'], ['asc', '']]),
      slice: '22:00|06:00',
      ref: listValue(['Instrument']),
      refFilter: rowsValue([['Instrument', 'like', 'sector', 'Tech*', '']]),
      orderbook: 'instrumentNames',
    });
    expect(body).toEqual({
      table: 'Trade',
      columns: ['price', 'volume', 'conditions'],
      idList: ['AAPL', 'AAPL US Equity', 'MSFT.OQ'],
      filter: [['<', 'price', '100'], ['in', 'conditions', ['@', 'F']], ['within', 'volume', ['10', '20']]],
      slice: ['22:00', '06:00'],
      sortCols: ['desc', 'volume', 'asc', 'eventTimestamp'],
      orderbook: 'instrumentNames',
      ref: ['Instrument'],
      refFilter: { Instrument: [['like', 'sector', 'Tech*']] },
    });
    expect(() => decodeArgs(getTicks, body)).not.toThrow();
  });

  it('leaves out empty widgets and names an incomplete builder row', () => {
    expect(buildArgs(getTicks, { table: 'Trade', idList: listValue([], ' '), filter: rowsValue([]), sortCols: rowsValue([['asc', '']]), refFilter: rowsValue([]) })).toEqual({ table: 'Trade' });
    expect(() => buildArgs(getTicks, { table: 'Trade', filter: rowsValue([['>', '', '5', '']]) })).toThrow('filter: row 1 has no column');
    expect(() => buildArgs(getTicks, { table: 'Trade', refFilter: rowsValue([['', 'like', 'sector', 'T*', '']]) })).toThrow('refFilter: row 1 has no reference table');
  });

  it('keeps text values for power users: q text, JSON lists, the string filter', () => {
    const body = buildArgs(getTicks, {
      table: 'Trade',
      idList: '["AAPL","MSFT"]',
      filter: '((<;`price;100);(in;`instrumentID;`A`B))',
      refFilter: '(enlist `Instrument)!enlist ((like;`sector;"Tech*"))',
    });
    expect(body['idList']).toEqual(['AAPL', 'MSFT']);
    expect(body['filter']).toBe('((<;`price;100);(in;`instrumentID;`A`B))');
    expect(body['refFilter']).toBe('(enlist `Instrument)!enlist ((like;`sector;"Tech*"))');
    expect(() => decodeArgs(getTicks, body)).not.toThrow();
  });
});
