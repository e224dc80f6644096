/** Multi-select values, zone search and the orderbook requirements. */
import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../engine/contract.js';
import { matchNames } from '../../renderer/src/form/match.js';
import { orderbookCheck } from '../../renderer/src/form/orderbook-check.js';
import { columnChoices, reachableRefs } from '../../renderer/src/form/schema.js';
import { chipsOf, listValue, namesOf, splitNames, typeIntoList } from '../../renderer/src/form/values.js';
import { allZones, isKnownZone, searchZones, zoneOffset } from '../../renderer/src/form/zones.js';

const table = (name: string, columns: Array<[string, TableInfo['columns'][number]['type']]>, fk: Record<string, string> = {}): TableInfo => ({
  name,
  kind: 'partitioned',
  timeColumn: 'eventTimestamp',
  idColumn: 'instrumentID',
  columns: columns.map(([n, type]) => ({ name: n, type })),
  foreignKeys: fk,
  key: null,
  rows: 1,
  firstDate: null,
  lastDate: null, analytics: [],
});

const trade = table('Trade', [['eventTimestamp', 'timestamp'], ['instrumentID', 'symbol'], ['exchTime', 'timestamp'], ['price', 'float'], ['conditions', 'symbol']], { instrumentID: 'Instrument' });
const book = table('OrderbookSnapshots', [['eventTimestamp', 'timestamp'], ['instrumentID', 'symbol'], ['bidPrice', 'float[]'], ['askPrice', 'float[]']], { instrumentID: 'Instrument' });

describe('multi-select values', () => {
  it('turn typed or pasted lists into chips, keeping the unfinished name as the draft', () => {
    expect(typeIntoList(['AAPL'], 'AAPL, MSFT', true)).toEqual(listValue(['AAPL'], 'MSFT'));
    expect(typeIntoList([], 'AAPL US Equity,MSFT US Equity,', true)).toEqual(listValue(['AAPL US Equity', 'MSFT US Equity'], ''));
    expect(typeIntoList([], 'price volume', false)).toEqual(listValue(['price'], 'volume'));
    expect(typeIntoList([], '`AAPL`MSFT', true)).toEqual(listValue(['AAPL'], 'MSFT'));
    expect(typeIntoList(['a'], 'GO', true)).toEqual(listValue(['a'], 'GO'));
  });

  it('send the chips then the draft', () => {
    expect(namesOf(listValue(['AAPL'], 'MSFT, IBM'))).toEqual(['AAPL', 'MSFT', 'IBM']);
    expect(namesOf('AAPL, MSFT  IBM')).toEqual(['AAPL', 'MSFT', 'IBM']);
    expect(chipsOf('AAPL, AAPL MSFT', true)).toEqual({ items: ['AAPL', 'MSFT'], draft: '' });
    expect(splitNames('a; b\nc\td', true)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('narrow options, prefix matches first', () => {
    const opts = ['AMZN', 'MSFT', 'NVDA', 'META'].map((value) => ({ value }));
    expect(matchNames(opts, 'm').map((o) => o.value)).toEqual(['MSFT', 'META', 'AMZN']);
    expect(matchNames(opts, '', ['MSFT']).map((o) => o.value)).toEqual(['AMZN', 'NVDA', 'META']);
  });
});

describe('schema choices', () => {
  it('offers timestamp columns for timeCol, name columns for idCol, all for the rest', () => {
    expect(columnChoices('timeCol', trade).map((c) => c.name)).toEqual(['eventTimestamp', 'exchTime']);
    expect(columnChoices('idCol', trade).map((c) => c.name)).toEqual(['instrumentID', 'conditions']);
    expect(columnChoices('columns', trade)).toHaveLength(5);
    expect(columnChoices('columns', undefined)).toEqual([]);
    expect(reachableRefs(trade)).toEqual(['Instrument']);
  });
});

describe('zones', () => {
  it('lists UTC and common zones first, recent ones before them', () => {
    expect(allZones().slice(0, 4)).toEqual(['UTC', 'America/New_York', 'Europe/London', 'Asia/Tokyo']);
    expect(searchZones('', ['Asia/Kolkata']).slice(0, 2)).toEqual(['Asia/Kolkata', 'UTC']);
    expect(new Set(allZones()).size).toBe(allZones().length);
  });

  it('finds zones by city, region or part of a name', () => {
    expect(searchZones('new york')[0]).toBe('America/New_York');
    expect(searchZones('tok')[0]).toBe('Asia/Tokyo');
    expect(searchZones('lond')[0]).toBe('Europe/London');
    expect(searchZones('europe').every((z) => z.toLowerCase().includes('europe'))).toBe(true);
    expect(searchZones('zzzz')).toEqual([]);
  });

  it('knows zones and their offsets', () => {
    expect(isKnownZone('America/New_York')).toBe(true);
    expect(isKnownZone('Mars/Olympus')).toBe(false);
    expect(zoneOffset('America/New_York', new Date('2024-01-15T12:00:00Z'))).toBe('UTC-05:00');
    expect(zoneOffset('UTC')).toBe('UTC+00:00');
  });
});

describe('orderbook requirements', () => {
  it('explain each mode and say what the form lacks, with a fix', () => {
    expect(orderbookCheck('', trade, [])).toBeNull();
    expect(orderbookCheck('plotOrderbookSnapshots', book, [])!.problems).toEqual([]);
    expect(orderbookCheck('plotOrderbookSnapshots', trade, [])!.problems).toEqual([
      { text: 'Trade has no bidPrice/askPrice level lists', fix: { arg: 'table', value: 'OrderbookSnapshots', label: 'use OrderbookSnapshots' } },
    ]);
    expect(orderbookCheck('instrumentNames', trade, [])!.problems.map((p) => p.fix?.label)).toEqual(['add Instrument to ref']);
    expect(orderbookCheck('instrumentNames', trade, ['Instrument'])!.problems).toEqual([]);
    expect(orderbookCheck('orderbookUpdatesRefData', trade, ['Instrument'])!.problems.map((p) => p.text)).toEqual(['meant for table OrderbookUpdates, not Trade']);
    expect(orderbookCheck('orderbookUpdatesRefData', undefined, [])!.needs).toMatch(/OrderbookUpdates and ref Instrument/);
  });
});
