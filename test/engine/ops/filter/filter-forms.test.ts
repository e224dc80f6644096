/** The string form and q parse-tree text of filter (SPEC 4), against the list form on the same rows. */
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../../engine/core/errors.js';
import { csv, makeEngine, payloadRows } from '../../../helpers/db.js';

const TRADES = csv(['eventTimestamp', 'instrumentID', 'price', 'volume', 'conditions', 'executionID', 'srcSys'], [
  ['2024.03.06D09:30:00.000000001', 'MSFT', '400.5', '100', '@', 'r1', 'X'],
  ['2024.03.06D09:30:00.000000001', 'AAPL', '190.25', '200', 'F', 'r2', 'Y'],
  ['2024.03.06D09:30:00.5', 'AAPL', '190.30', '50', '', 'r3', 'X'],
  ['2024.03.06D10:00:00', 'IBM', '', '300', 'T', 'r4', 'X'],
  ['2024.03.06D10:00:00', 'AAPL', '190.10', '', 'Z', 'r5', 'Y'],
  ['2024.03.06D23:59:59.999999999', 'MSFT', '401', '10', '@', 'r6', 'X'],
  ['2024.03.07D00:00:00', 'AAPL', '191', '100', 'a;b|c', 'r7', 'X'],
  ['2024.03.07D14:30:00.123456789', 'MSFT', '402.125', '500', 'I', 'r8', 'X'],
]);
const engine = makeEngine({ Trade: TRADES });
const ids = (filter: unknown): unknown[] => payloadRows(engine, 'getTicks', { table: 'Trade', filter }).map((r) => r['executionID']);
const ALL = ['r2', 'r1', 'r3', 'r5', 'r4', 'r6', 'r7', 'r8'];

function errorOf(filter: unknown): TickscopeError {
  try {
    engine.call('getTicks', { table: 'Trade', filter });
  } catch (e) {
    if (e instanceof TickscopeError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('filter string form', () => {
  it('matches the list form for every operator', () => {
    const pairs: Array<[string, unknown]> = [
      ['price<190.3', [['<', 'price', '190.3']]],
      ['price>190.3', [['>', 'price', '190.3']]],
      ['price<=190.3', [['<=', 'price', '190.3']]],
      ['price>=190.3', [['>=', 'price', '190.3']]],
      ['volume=100', [['=', 'volume', '100']]],
      ['volume<>100', [['<>', 'volume', '100']]],
      ['volume!=100', [['<>', 'volume', '100']]],
      ['instrumentID~A*', [['like', 'instrumentID', 'A*']]],
      ['instrumentID~[^A]*', [['like', 'instrumentID', '[^A]*']]],
      ['price>=190.2;price<=191', [['within', 'price', ['190.2', '191']]]],
      ['eventTimestamp>=2024.03.07D00:00:00', [['>=', 'eventTimestamp', '2024.03.07D00:00:00']]],
    ];
    for (const [text, list] of pairs) expect(ids(text), text).toEqual(ids(list));
    expect(ids('price<190.3')).toEqual(['r2', 'r5']);
  });

  it('takes | between values of a clause and between whole clauses', () => {
    expect(ids('instrumentID=AAPL|IBM')).toEqual(ids([['in', 'instrumentID', ['AAPL', 'IBM']]]));
    expect(ids('price<190.2|price>401')).toEqual(['r5', 'r8']);
    expect(ids('price<190.2|price>401;volume>100')).toEqual(['r8']);
    expect(ids(' instrumentID = MSFT | IBM ; volume >= 100 ')).toEqual(['r1', 'r4', 'r8']);
  });

  it('tests for null with =null and <>null', () => {
    expect(ids('price=null')).toEqual(['r4']);
    expect(ids('volume<>null')).toEqual(ALL.filter((r) => r !== 'r5'));
    expect(ids('conditions=null')).toEqual(['r3']);
    expect(ids('conditions=null|conditions=T')).toEqual(['r3', 'r4']);
  });

  it('reads quoted values holding separators', () => {
    expect(ids('conditions="a;b|c"')).toEqual(['r7']);
    expect(ids('conditions~"a;*"')).toEqual(['r7']);
  });

  it('names what is wrong', () => {
    expect(errorOf('price<').message).toMatch(/^filter: "price<" has a clause without a value; expected clauses "column op value"/);
    expect(errorOf('AAPL').message).toMatch(/^filter: "AAPL" has "AAPL", which is not a clause/);
    expect(errorOf('price<null').message).toMatch(/compares price with null using <; expected null with = or <> only/);
    expect(errorOf('prise<1').ac).toBe(7);
    expect(errorOf('price<abc').ac).toBe(4);
    expect(errorOf('conditions="open').message).toMatch(/has an unclosed quote/);
  });
});

describe('filter as q parse-tree text', () => {
  it('reads the forms clients send', () => {
    expect(ids('enlist (=;`srcSys;enlist `Y)')).toEqual(['r2', 'r5']);
    expect(ids('((<;`price;400);(in;`instrumentID;`AAPL`IBM))')).toEqual(['r2', 'r3', 'r5', 'r7']);
    expect(ids('(>;`volume;100j)')).toEqual(['r2', 'r4', 'r8']);
    expect(ids('((like;`instrumentID;"?SFT"))')).toEqual(['r1', 'r6', 'r8']);
    expect(ids('(within;`price;190.2 191)')).toEqual(ids([['within', 'price', ['190.2', '191']]]));
    expect(ids('(>=;`eventTimestamp;2024.03.07D00:00:00.000000000)')).toEqual(['r7', 'r8']);
  });

  it('reads or, and, not and null', () => {
    expect(ids('enlist (or;(<;`price;190.2);(>;`price;401))')).toEqual(['r5', 'r8']);
    expect(ids('enlist (|;(=;`instrumentID;`IBM);(=;`conditions;`Z))')).toEqual(['r5', 'r4']);
    expect(ids('enlist (not;(in;`instrumentID;`AAPL`MSFT))')).toEqual(['r4']);
    expect(ids('enlist (null;`price)')).toEqual(['r4']);
    expect(ids('enlist (not;(null;`volume))')).toEqual(ALL.filter((r) => r !== 'r5'));
    expect(ids('enlist (and;(>;`price;190);(<;`price;191))')).toEqual(['r2', 'r3', 'r5']);
  });

  it('names what is wrong', () => {
    expect(errorOf('((<;`price;400)').message).toMatch(/^filter: .* has an unclosed "\("; expected q parse-tree text/);
    expect(errorOf('(foo;`price;1)').message).toMatch(/has function "foo"; expected one of in, within/);
    expect(errorOf('(<;price;1)').message).toMatch(/has < without a column symbol after it/);
    expect(errorOf('(<;`prise;1)').ac).toBe(7);
  });
});
