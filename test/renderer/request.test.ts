/** The form's values become the REST-style JSON body a script would send. */
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../engine/registry/operations.js';
import { decodeArgs } from '../../engine/registry/decode.js';
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
    expect(() => decodeArgs({ ...getTicks, supported: getTicks.args.map((a) => a.name) }, body)).not.toThrow();
  });

  it('sends the string form of a filter as text, and names a malformed JSON field', () => {
    expect(buildArgs(getTicks, { table: 'Trade', filter: 'price<100;volume>=10' })['filter']).toBe('price<100;volume>=10');
    expect(() => buildArgs(getTicks, { table: 'Trade', filter: '[["<","price"' })).toThrow(/^filter: not valid JSON/);
  });
});
