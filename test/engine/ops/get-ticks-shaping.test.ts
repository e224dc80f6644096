/** getTicks applyCanCor, idMapping, filterRule, timeCol, ref, refFilter and orderbook (SPEC 4). */
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { Engine } from '../../../engine/engine.js';
import { configFromJson } from '../../../engine/storage/config.js';
import { csv, makeDb, payloadRows } from '../../helpers/db.js';

const TRADES = csv(['eventTimestamp', 'instrumentID', 'price', 'volume', 'conditions', 'exchTime', 'executionID'], [
  ['2024.03.06D10:00:00', 'AAPL', '100', '10', '@', '2024.03.06D09:59:59.999', 'E1'],
  ['2024.03.06D10:00:01', 'AAPL', '101', '20', 'Z', '2024.03.06D10:00:00.9', 'E2'],
  ['2024.03.06D10:00:02', 'MSFT', '400', '30', '@', '', 'E3'],
  ['2024.03.06D23:59:59.5', 'MSFT', '401', '40', '@', '2024.03.07D00:00:00.2', 'E4'],
  ['2024.03.07D00:00:00.3', 'AAPL', '102', '50', 'T', '2024.03.06D23:59:59.8', 'E5'],
  ['2024.03.07D10:00:00', 'VOD', '80', '60', 'F', '', 'E6'],
]);
const CANCOR = csv(['eventTimestamp', 'instrumentID', 'executionID', 'action', 'price', 'volume'], [
  ['2024.03.06D10:05', 'AAPL', 'E1', 'cancel', '', ''],
  ['2024.03.06D10:06', 'AAPL', 'E2', 'correct', '101.5', ''],
  ['2024.03.06D11:00', 'AAPL', 'E2', 'correct', '101.7', '25'],
  ['2024.03.08D09:00', 'MSFT', 'E3', 'correct', '', '33'],
  ['2024.03.06D09:00', 'MSFT', 'E4', 'correct', '400.9', ''],
]);
const INSTRUMENTS = csv(['instrumentID', 'instrumentName', 'ISIN', 'exchangeID', 'sector'], [
  ['AAPL', 'Apple Inc.', 'US0378331005', 'XNAS', 'Technology'],
  ['MSFT', 'Microsoft Corp.', 'US5949181045', 'XNAS', 'Technology'],
  ['IBM', 'IBM', 'US4592001014', 'XNYS', 'Technology'],
]);
const QUOTES = csv(['eventTimestamp', 'instrumentID', 'bidPrice', 'exchangeID'], [
  ['2024.03.06D10:00:00', 'AAPL', '99.9', 'BATS'],
  ['2024.03.06D10:00:00', 'VOD', '79.9', 'XLON'],
]);
const SNAPSHOTS = csv(['eventTimestamp', 'instrumentID', 'bidPrice', 'bidSize', 'askPrice', 'askSize'], [
  ['2024.03.06D10:00:00', 'AAPL', '"[100.1,100.0,99.9]"', '"[5,7,9]"', '"[100.2,100.3]"', '"[4,12]"'],
  ['2024.03.06D10:01:00', 'AAPL', '"[100.2,100.1]"', '"[3,4]"', '"[100.4,100.3]"', '"[6,2]"'],
  ['2024.03.06D10:00:30', 'MSFT', '"[400]"', '"[1]"', '"[]"', '"[]"'],
]);
const UPDATES = csv(['eventTimestamp', 'instrumentID', 'side', 'price'], [
  ['2024.03.06D10:00:00', 'MSFT', 'bid', '400'],
  ['2024.03.06D10:00:01', 'VOD', 'ask', '80'],
]);
const CONFIG = configFromJson({
  idMap: { 'AAPL.OQ': 'AAPL', 'MSFT US Equity': 'MSFT' },
  filterRules: { regularTrades: { column: 'conditions', exclude: ['Z', 'T'] }, atOnly: { column: 'conditions', include: ['@'] } },
});
const tables = { Trade: TRADES, TradeCanCor: CANCOR, Instrument: INSTRUMENTS, Quote: QUOTES, OrderbookSnapshots: SNAPSHOTS, OrderbookUpdates: UPDATES };
const engine = new Engine([makeDb(tables, 'db', CONFIG)]);
const plain = new Engine([makeDb({ Trade: TRADES }, 'plain', configFromJson({ timeColBuffer: '0D00:00' }))]);

const rows = (args: Record<string, unknown>, e = engine): Array<Record<string, unknown>> => payloadRows(e, 'getTicks', args);
const execs = (args: Record<string, unknown>, e = engine): unknown[] => rows({ table: 'Trade', ...args }, e).map((r) => r['executionID']);

function errorOf(args: Record<string, unknown>, e = engine): TickscopeError {
  try {
    e.call('getTicks', args);
  } catch (err) {
    if (err instanceof TickscopeError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe('applyCanCor', () => {
  it('drops cancelled executions and applies the latest correction, whatever its timestamp', () => {
    const got = rows({ table: 'Trade', applyCanCor: '1b', columns: ['executionID', 'price', 'volume'] });
    expect(got.map((r) => [r['executionID'], r['price'], r['volume']])).toEqual([
      ['E2', 101.7, 25],
      ['E3', 400, 33],
      ['E4', 400.9, 40],
      ['E5', 102, 50],
      ['E6', 80, 60],
    ]);
  });

  it('lets filters see corrected values', () => {
    expect(execs({ filter: [['>', 'price', '101.6'], ['<', 'price', '105']] })).toEqual(['E5']);
    expect(execs({ filter: [['>', 'price', '101.6'], ['<', 'price', '105']], applyCanCor: '1b' })).toEqual(['E2', 'E5']);
  });

  it('needs a CanCor table', () => {
    const e = errorOf({ table: 'Quote', applyCanCor: true });
    expect([e.ac, e.message]).toEqual([15, 'applyCanCor: 1b needs a QuoteCanCor table of cancellations and corrections, which db does not declare']);
  });
});

describe('idMapping and filterRule', () => {
  it('maps custom symbology through idMap; unknown names pass through', () => {
    expect(execs({ idList: ['AAPL.OQ', 'MSFT US Equity'], idMapping: '1b' })).toEqual(['E1', 'E2', 'E3', 'E4', 'E5']);
    expect(execs({ idList: ['AAPL.OQ', 'VOD'], idMapping: true })).toEqual(['E1', 'E2', 'E5', 'E6']);
    expect(execs({ idList: ['AAPL.OQ'] })).toEqual([]);
    expect(errorOf({ table: 'Trade', idList: ['AAPL.OQ'], idMapping: '1b' }, plain).message).toMatch(/^idMapping: 1b needs an idMap in plain's config.json/);
  });

  it('applies a configured rule: exclude keeps nulls and other values, include keeps only its values', () => {
    expect(execs({ filterRule: 'regularTrades' })).toEqual(['E1', 'E3', 'E4', 'E6']);
    expect(execs({ filterRule: 'atOnly' })).toEqual(['E1', 'E3', 'E4']);
    const e = errorOf({ table: 'Trade', filterRule: 'oddLots' });
    expect([e.ac, e.message]).toEqual([15, 'filterRule: "oddLots" is not a filter rule of db\'s config.json; expected one of regularTrades, atOnly']);
  });
});

describe('timeCol', () => {
  it('selects on another timestamp column, reading partitions within the buffer, ordered by it', () => {
    // E4's exchange time is after midnight though it is stored in the 03-06 partition.
    expect(execs({ timeCol: 'exchTime', startTS: '2024.03.07D00:00', endTS: '2024.03.07D01:00' })).toEqual(['E4']);
    expect(execs({ timeCol: 'exchTime', startTS: '2024.03.06D23:00', endTS: '2024.03.07D01:00' })).toEqual(['E5', 'E4']);
    expect(execs({ startTS: '2024.03.06D23:00', endTS: '2024.03.07D01:00' })).toEqual(['E4', 'E5']);
  });

  it('reads only the window\'s own dates when the buffer is off', () => {
    expect(execs({ timeCol: 'exchTime', startTS: '2024.03.07D00:00', endTS: '2024.03.07D01:00' }, plain)).toEqual([]);
  });

  it('must name a timestamp column', () => {
    const e = errorOf({ table: 'Trade', timeCol: 'price' });
    expect([e.ac, e.message]).toEqual([14, 'timeCol: "price" is a float column; expected a timestamp column of Trade: eventTimestamp, exchTime']);
  });
});

describe('ref and refFilter', () => {
  it('appends the reference columns through the foreign key; no match gives nulls', () => {
    const got = rows({ table: 'Trade', columns: ['instrumentID'], ref: ['Instrument'], idList: ['AAPL', 'VOD'], endTS: '2024.03.06D10:00:01' });
    expect(got).toEqual([
      { eventTimestamp: '2024-03-06T10:00:00.000000000', instrumentID: 'AAPL', instrumentName: 'Apple Inc.', ISIN: 'US0378331005', MIC: '', exchangeID: 'XNAS', currency: '', sector: 'Technology', lotSize: null, tickSize: null },
    ]);
    const vod = rows({ table: 'Trade', columns: ['instrumentID'], ref: 'Instrument', idList: ['VOD'] })[0]!;
    expect([vod['instrumentName'], vod['sector']]).toEqual(['', '']);
  });

  it('prefixes a reference column whose name the result already has', () => {
    const [q] = rows({ table: 'Quote', columns: ['exchangeID'], ref: ['Instrument'], idList: ['AAPL'] });
    expect([q!['exchangeID'], q!['Instrument_exchangeID']]).toEqual(['BATS', 'XNAS']);
  });

  it('names a table with no foreign key from the queried one', () => {
    const e = errorOf({ table: 'Trade', ref: ['ExchangeHolidayCal'] });
    expect([e.ac, e.message]).toEqual([15, 'ref: ExchangeHolidayCal is not reachable from Trade: the schema has no foreign key from Trade to ExchangeHolidayCal; reachable: Instrument']);
    expect(errorOf({ table: 'Trade', ref: ['Instruments'] }).ac).toBe(6);
  });

  it('filters on reference columns, as JSON or q text, with or without ref', () => {
    expect(execs({ refFilter: { Instrument: [['=', 'sector', 'Technology']] } })).toEqual(['E1', 'E2', 'E3', 'E4', 'E5']);
    expect(execs({ refFilter: '{"Instrument": [["like","instrumentName","Micro*"]]}' })).toEqual(['E3', 'E4']);
    expect(execs({ refFilter: '(enlist `Instrument)!enlist ((like;`instrumentName;"Micro*"))' })).toEqual(['E3', 'E4']);
    expect(execs({ refFilter: '(enlist `Instrument)!enlist ((like;`instrumentName;"*Inc*");(=;`exchangeID;enlist `XNAS))' })).toEqual(['E1', 'E2', 'E5']);
    const joined = rows({ table: 'Trade', ref: ['Instrument'], refFilter: { Instrument: ['=', 'ISIN', 'US5949181045'] }, columns: ['price'] });
    expect(joined.map((r) => r['instrumentName'])).toEqual(['Microsoft Corp.', 'Microsoft Corp.']);
    expect(errorOf({ table: 'Trade', refFilter: { Instrument: [['=', 'sectr', 'x']] } }).ac).toBe(7);
    expect(errorOf({ table: 'Trade', refFilter: 'Instrument:sector=Tech' }).message).toMatch(
      /^refFilter: "Instrument:sector=Tech" has ":" at position 11, which q text cannot hold here; expected a q dictionary such as/,
    );
    expect(errorOf({ table: 'Trade', refFilter: '`Instrument' }).message).toMatch(/^refFilter: "`Instrument" is not a dictionary/);
  });
});

describe('orderbook', () => {
  it('plotOrderbookSnapshots: the latest snapshot per identifier with top of book appended', () => {
    const got = rows({ table: 'OrderbookSnapshots', orderbook: 'plotOrderbookSnapshots', startTS: '2024.03.06D10:00', endTS: '2024.03.06D10:02', decPlaces: 4, columns: ['instrumentID', 'bidPrice', 'askPrice'] });
    expect(got).toEqual([
      { eventTimestamp: '2024-03-06T10:00:30.000000000', instrumentID: 'MSFT', bidPrice: [400], askPrice: [], bestBid: 400, bestAsk: null, maxSize: 1, spread: null, midPoint: null },
      { eventTimestamp: '2024-03-06T10:01:00.000000000', instrumentID: 'AAPL', bidPrice: [100.2, 100.1], askPrice: [100.4, 100.3], bestBid: 100.2, bestAsk: 100.3, maxSize: 6, spread: 0.1, midPoint: 100.25 },
    ]);
    const earlier = rows({ table: 'OrderbookSnapshots', orderbook: 'plotOrderbookSnapshots', endTS: '2024.03.06D10:00:45', idList: ['AAPL'] })[0]!;
    expect([earlier['bestBid'], earlier['bestAsk'], earlier['maxSize']]).toEqual([100.1, 100.2, 12]);
  });

  it('plotOrderbookSnapshots needs level lists', () => {
    expect(errorOf({ table: 'Trade', orderbook: 'plotOrderbookSnapshots' }).message).toMatch(
      /^orderbook: plotOrderbookSnapshots needs level lists bidPrice \(float\[\]\), askPrice \(float\[\]\), bidSize \(long\[\]\), askSize \(long\[\]\), as OrderbookSnapshots has; Trade lacks bidPrice, askPrice, bidSize, askSize$/,
    );
  });

  it('instrumentNames: the name right after the identifier, the identifier where none', () => {
    const got = rows({ table: 'OrderbookUpdates', orderbook: 'instrumentNames', ref: ['Instrument'], columns: ['instrumentID', 'side', 'price'] });
    expect(Object.keys(got[0]!)).toEqual(['eventTimestamp', 'instrumentID', 'instrumentName', 'side', 'price', 'ISIN', 'MIC', 'exchangeID', 'currency', 'sector', 'lotSize', 'tickSize']);
    expect(got.map((r) => r['instrumentName'])).toEqual(['Microsoft Corp.', 'VOD']);
  });

  it('orderbookUpdatesRefData: identifiers replaced by instrument names', () => {
    const got = rows({ table: 'OrderbookUpdates', orderbook: 'orderbookUpdatesRefData', ref: ['Instrument'], columns: ['instrumentID', 'side'] });
    expect(got.map((r) => r['instrumentID'])).toEqual(['Microsoft Corp.', 'VOD']);
    expect(Object.keys(got[0]!)).not.toContain('instrumentName');
    // The other reference columns still come from the matched rows.
    expect(got.map((r) => [r['ISIN'], r['sector']])).toEqual([['US5949181045', 'Technology'], ['', '']]);
  });

  it('names the missing ref Instrument', () => {
    const e = errorOf({ table: 'OrderbookUpdates', orderbook: 'instrumentNames' });
    expect([e.ac, e.message]).toEqual([15, 'orderbook: instrumentNames needs ref Instrument (add "ref":["Instrument"]) to read instrument names from']);
  });
});
