import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { csv, makeEngine, payloadRows } from '../../helpers/db.js';

// Eight trades over two UTC days, with equal timestamps, nulls and a midnight edge.
// Row labels r1..r8 are in the order written (not time order).
const HEADER = ['eventTimestamp', 'instrumentID', 'price', 'volume', 'conditions', 'tradedExchange', 'executionID'];
const TRADES = csv(HEADER, [
  ['2024.03.06D09:30:00.000000001', 'MSFT', '400.5', '100', '@', 'XNAS', 'r1'],
  ['2024.03.06D09:30:00.000000001', 'AAPL', '190.25', '200', 'F', 'XNAS', 'r2'],
  ['2024.03.06D09:30:00.5', 'AAPL', '190.30', '50', '', 'XNAS', 'r3'],
  ['2024.03.06D10:00:00', 'IBM', '', '300', 'T', 'XNYS', 'r4'],
  ['2024.03.06D10:00:00', 'AAPL', '190.10', '', 'Z', 'XNAS', 'r5'],
  ['2024.03.06D23:59:59.999999999', 'MSFT', '401', '10', '@', 'XNAS', 'r6'],
  ['2024-03-07T00:00:00Z', 'AAPL', '191', '100', '@', 'XNAS', 'r7'],
  ['2024-03-07T14:30:00.123456789', 'MSFT', '402.125', '500', 'I', 'XNAS', 'r8'],
]);

const engine = makeEngine({ Trade: TRADES });
const ticks = (args: Record<string, unknown>): Array<Record<string, unknown>> =>
  payloadRows(engine, '.fsi.getTicks', { table: 'Trade', ...args });
const ids = (rows: Array<Record<string, unknown>>): unknown[] => rows.map((r) => r['executionID']);

function errorOf(args: Record<string, unknown>, op = '.fsi.getTicks'): TickscopeError {
  try {
    engine.call(op, args);
  } catch (e) {
    if (e instanceof TickscopeError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('getTicks window and order', () => {
  it('returns every row in time order, equal times by identifier', () => {
    expect(ids(ticks({}))).toEqual(['r2', 'r1', 'r3', 'r5', 'r4', 'r6', 'r7', 'r8']);
  });

  it('includes startTS and excludes endTS', () => {
    expect(ids(ticks({ startTS: '2024.03.06D09:30:00.5', endTS: '2024.03.06D10:00:00' }))).toEqual(['r3']);
    expect(ids(ticks({ startTS: '2024.03.06D09:30:00.000000001', endTS: '2024.03.06D09:30:00.000000002' }))).toEqual(['r2', 'r1']);
  });

  it('reads a window across midnight from two partitions', () => {
    expect(ids(ticks({ startTS: '2024.03.06D23:00', endTS: '2024.03.07D01:00' }))).toEqual(['r6', 'r7']);
  });

  it('renders timestamps with nine fractional digits', () => {
    const rows = ticks({ idList: ['MSFT'] });
    expect(rows.map((r) => r['eventTimestamp'])).toEqual([
      '2024-03-06T09:30:00.000000001',
      '2024-03-06T23:59:59.999999999',
      '2024-03-07T14:30:00.123456789',
    ]);
  });

  it('answers startTS >= endTS with ac 23', () => {
    const e = errorOf({ table: 'Trade', startTS: '2024.03.07', endTS: '2024.03.06' });
    expect([e.ac, e.message]).toEqual([23, 'startTS >= endTS']);
    expect(errorOf({ table: 'Trade', startTS: '2024.03.07', endTS: '2024.03.07' }).ac).toBe(23);
  });
});

describe('getTicks identifiers and columns', () => {
  it('selects idList on the identifier column (one name or a list)', () => {
    expect(ids(ticks({ idList: ['MSFT', 'IBM'] }))).toEqual(['r1', 'r4', 'r6', 'r8']);
    expect(ids(ticks({ idList: 'IBM' }))).toEqual(['r4']);
    expect(ticks({ idList: ['NOPE'] })).toEqual([]);
  });

  it('applies idList to another column through idCol', () => {
    expect(ids(ticks({ idCol: 'tradedExchange', idList: ['XNYS'] }))).toEqual(['r4']);
  });

  it('returns the time column first, then the chosen columns in order', () => {
    const [row] = ticks({ columns: ['volume', 'price'], idList: ['IBM'] });
    expect(Object.keys(row!)).toEqual(['eventTimestamp', 'volume', 'price']);
    expect(row).toEqual({ eventTimestamp: '2024-03-06T10:00:00.000000000', volume: 300, price: null });
  });

  it('returns every column of the schema by default, nulls as null', () => {
    const [row] = ticks({ idList: ['AAPL'], startTS: '2024.03.06D10:00', endTS: '2024.03.06D10:00:01' });
    expect(Object.keys(row!)).toHaveLength(14);
    expect(row!['volume']).toBeNull();
    expect(row!['exchTime']).toBeNull();
    expect(row!['srcSys']).toBe('');
  });
});

describe('getTicks filters (list form)', () => {
  it('compares numbers; nulls satisfy nothing but <>', () => {
    expect(ids(ticks({ filter: [['>', 'price', '190.2']] }))).toEqual(['r2', 'r1', 'r3', 'r6', 'r7', 'r8']);
    expect(ids(ticks({ filter: ['<>', 'price', '190.1'] }))).toEqual(['r2', 'r1', 'r3', 'r4', 'r6', 'r7', 'r8']);
    expect(ids(ticks({ filter: [['<', 'volume', 100]] }))).toEqual(['r3', 'r6']);
    expect(ids(ticks({ filter: [['<=', 'volume', '100']] }))).toEqual(['r1', 'r3', 'r6', 'r7']);
    expect(ids(ticks({ filter: [['>=', 'volume', '300']] }))).toEqual(['r4', 'r8']);
    expect(ids(ticks({ filter: [['=', 'price', '191']] }))).toEqual(['r7']);
  });

  it('takes within as an inclusive range', () => {
    expect(ids(ticks({ filter: [['within', 'price', ['190.1', '191']]] }))).toEqual(['r2', 'r3', 'r5', 'r7']);
  });

  it('matches symbols with in, = and <>; the null symbol matches only <> of a value', () => {
    expect(ids(ticks({ filter: [['in', 'conditions', ['@', 'F']]] }))).toEqual(['r2', 'r1', 'r6', 'r7']);
    expect(ids(ticks({ filter: [['in', 'conditions', 'T']] }))).toEqual(['r4']);
    expect(ids(ticks({ filter: [['=', 'conditions', '']] }))).toEqual([]);
    expect(ids(ticks({ filter: [['<>', 'conditions', '@']] }))).toEqual(['r2', 'r3', 'r5', 'r4', 'r8']);
    expect(ids(ticks({ filter: [['<>', 'conditions', '']] }))).toEqual(['r2', 'r1', 'r5', 'r4', 'r6', 'r7', 'r8']);
  });

  it('matches like patterns with *, ?, [..] and [^..]', () => {
    expect(ids(ticks({ filter: [['like', 'instrumentID', 'A*']] }))).toEqual(['r2', 'r3', 'r5', 'r7']);
    expect(ids(ticks({ filter: [['like', 'instrumentID', '?SFT']] }))).toEqual(['r1', 'r6', 'r8']);
    expect(ids(ticks({ filter: [['like', 'instrumentID', '[AI]*']] }))).toEqual(['r2', 'r3', 'r5', 'r4', 'r7']);
    expect(ids(ticks({ filter: [['like', 'instrumentID', '[^A]*']] }))).toEqual(['r1', 'r4', 'r6', 'r8']);
  });

  it('compares timestamps exactly to the nanosecond', () => {
    expect(ids(ticks({ filter: [['>=', 'eventTimestamp', '2024.03.07D00:00:00']] }))).toEqual(['r7', 'r8']);
    expect(ids(ticks({ filter: [['=', 'eventTimestamp', '2024.03.06D09:30:00.000000001']] }))).toEqual(['r2', 'r1']);
    expect(ids(ticks({ filter: [['>', 'eventTimestamp', '2024.03.06D23:59:59.999999998']] }))).toEqual(['r6', 'r7', 'r8']);
  });

  it('applies several filters in order, all must hold', () => {
    expect(ids(ticks({ filter: [['>', 'volume', '60'], ['<', 'price', '300']] }))).toEqual(['r2', 'r7']);
  });

  it('rejects a bad function, column or value with the argument named', () => {
    const fn = errorOf({ table: 'Trade', filter: [['~', 'price', '1']] });
    expect(fn.ac).toBe(10);
    expect(fn.message).toMatch(/^filter: \["~","price","1"\] has function "~"; expected function one of in, within/);
    const col = errorOf({ table: 'Trade', filter: [['>', 'prise', '1']] });
    expect(col.ac).toBe(7);
    expect(col.message).toMatch(/column "prise", which Trade does not have; expected one of eventTimestamp/);
    const val = errorOf({ table: 'Trade', filter: [['>', 'price', 'abc']] });
    expect(val.ac).toBe(4);
    expect(val.message).toMatch(/filter: .* "abc", which does not fit column price \(float\); expected a number/);
    expect(errorOf({ table: 'Trade', filter: [['like', 'price', '1*']] }).ac).toBe(14);
    expect(errorOf({ table: 'Trade', filter: [['within', 'price', '1']] }).ac).toBe(10);
  });
});

describe('getTicks sortCols and decPlaces', () => {
  it('sorts stably; nulls last when descending', () => {
    expect(ids(ticks({ sortCols: ['desc', 'volume'] }))).toEqual(['r8', 'r4', 'r2', 'r1', 'r7', 'r3', 'r6', 'r5']);
    expect(ids(ticks({ sortCols: [['asc', 'instrumentID'], ['desc', 'eventTimestamp']] }))).toEqual([
      'r7', 'r5', 'r3', 'r2', 'r4', 'r8', 'r6', 'r1',
    ]);
  });

  it('rejects an unknown direction or column', () => {
    expect(errorOf({ table: 'Trade', sortCols: ['up', 'price'] }).ac).toBe(11);
    const e = errorOf({ table: 'Trade', sortCols: ['asc', 'nope'] });
    expect(e.ac).toBe(11);
    expect(e.message).toMatch(/sortCols: \["asc","nope"\] sorts on column "nope"/);
  });

  it('rounds floats half away from zero', () => {
    const prices = ticks({ decPlaces: '1', columns: ['price'] }).map((r) => r['price']);
    expect(prices).toEqual([190.3, 400.5, 190.3, 190.1, null, 401, 191, 402.1]);
    expect(ticks({ decPlaces: 2, idList: ['MSFT'], columns: ['price'] }).map((r) => r['price'])).toEqual([400.5, 401, 402.13]);
  });
});

describe('getTicks time zones', () => {
  it('reads startTS/endTS in inputTZ and renders in outputTZ', () => {
    const rows = ticks({
      startTS: '2024.03.07D09:30',
      endTS: '2024.03.07D09:31',
      inputTZ: 'America/New_York',
      outputTZ: 'America/New_York',
    });
    expect(ids(rows)).toEqual(['r8']);
    expect(rows[0]!['eventTimestamp']).toBe('2024-03-07T09:30:00.123456789');
  });

  it('rejects an unknown zone', () => {
    const e = errorOf({ table: 'Trade', inputTZ: 'Mars/Olympus' });
    expect(e.ac).toBe(12);
    expect(e.message).toMatch(/^inputTZ: "Mars\/Olympus" is not a known time zone; expected an IANA zone name/);
  });
});

describe('getTicks argument validation', () => {
  it('names an unknown table and lists the tables', () => {
    const e = errorOf({ table: 'Trades' });
    expect(e.ac).toBe(6);
    expect(e.message).toMatch(/^table: "Trades" is not a table of db; expected one of Trade, Quote/);
  });

  it('names an unknown argument, a missing one and a bad value', () => {
    expect(errorOf({ table: 'Trade', startTs: '2024.01.01' }).ac).toBe(2);
    expect(errorOf({}).message).toMatch(/^table: is required by getTicks/);
    const ts = errorOf({ table: 'Trade', startTS: '2024.13.01' });
    expect(ts.ac).toBe(4);
    expect(ts.message).toMatch(/^startTS: "2024.13.01" is not a timestamp; expected a timestamp: 2024.01.02D09:30:00.123456789/);
    expect(errorOf({ table: 'Trade', columns: ['price', 'bogus'] }).ac).toBe(7);
    expect(errorOf({ table: 'Trade', idCol: 'bogus' }).ac).toBe(7);
    expect(errorOf({ table: 'Trade', decPlaces: 'two' }).ac).toBe(4);
  });

  it('accepts an argument given its default value', () => {
    expect(ticks({ applyCanCor: '0b', temporality: 'continuous', idMapping: false })).toHaveLength(8);
  });

  it('accepts the same call natively and REST-encoded', () => {
    const native = ticks({ startTS: '2024.03.06', endTS: '2024.03.07', decPlaces: 1, idList: ['AAPL'] });
    const rest = ticks({ startTS: '2024.03.06', endTS: '2024.03.07', decPlaces: '1', idList: ['AAPL'] });
    expect(rest).toEqual(native);
    expect(native).toHaveLength(3);
  });
});
