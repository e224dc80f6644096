/** The import mapping's JSON (storage/import-map.ts): read, checked item by item, and its path parts. */
import { describe, expect, it } from 'vitest';
import { dateDays, importMapFromJson, pathValue } from '../../../engine/storage/import-map.js';
import { LEAN_MAP } from '../../helpers/lean.js';
import { expectError } from './kdb/kdb-helpers.js';

/** The mapping of Lean's AlgoSeek equity trade CSVs (docs/import.md), the exchange a constant. */
const LEAN = { ...LEAN_MAP, columns: { ...LEAN_MAP.columns, tradedExchange: { constant: 'XNAS' } } };

describe('an import mapping', () => {
  it('reads every kind of column: source by position, path with a pattern, constant, scale, time units', () => {
    const m = importMapFromJson(LEAN, 'lean.json');
    expect([m.table, m.header, m.zone]).toEqual(['Trade', false, 'America/New_York']);
    const t = m.columns.get('eventTimestamp')!;
    expect(t.from).toEqual({ kind: 'source', source: 0 });
    expect(t.time?.unit).toBe('ms');
    expect(t.time?.since).toBe('midnight');
    expect(t.time?.date?.kind).toBe('path');
    expect(m.columns.get('instrumentID')).toEqual({ from: { kind: 'path', template: '{dir}' }, case: 'upper' });
    expect(m.columns.get('price')).toEqual({ from: { kind: 'source', source: 1 }, scale: 0.0001 });
    expect(m.columns.get('tradedExchange')!.from).toEqual({ kind: 'constant', value: 'XNAS' });
    const file = '/data/equity/usa/tick/aapl/20131008_aapl_trade_tick.csv';
    expect(pathValue(t.time!.date as Extract<typeof t.from, { kind: 'path' }>, file, 'date')).toBe('20131008');
    expect(pathValue({ kind: 'path', template: '{dir}' }, file, 'instrumentID')).toBe('aapl');
    expect(pathValue({ kind: 'path', template: '{parent}/{file}' }, file, 'x')).toBe('tick/20131008_aapl_trade_tick.csv');
    expectError(() => pathValue({ kind: 'path', template: '{name}', pattern: /^(\d{8})$/ }, file, 'date'), 'importFailed', file, '"20131008_aapl_trade_tick" (from {name}) does not match ^(\\d{8})$');
    expect([dateDays('20131008'), dateDays('2013-10-08'), dateDays('2013.10.08')]).toEqual([15986, 15986, 15986]);
    expect([dateDays('20130230'), dateDays('2013-1-8'), dateDays('x')]).toEqual([undefined, undefined, undefined]);
  });

  it('names the item at fault and what it expects', () => {
    const bad = (over: Record<string, unknown>, col?: Record<string, unknown>): unknown =>
      importMapFromJson({ ...LEAN, ...over, ...(col ? { columns: { ...LEAN.columns, ...col } } : {}) }, 'm.json');
    expectError(() => importMapFromJson([], 'm.json'), 'badRequest', 'm.json: document must be a JSON object');
    expectError(() => bad({ tabel: 'x' }), 'badRequest', 'tabel is not an item of a mapping');
    expectError(() => bad({ table: '' }), 'badRequest', 'table must name the table');
    expectError(() => bad({ zone: 'New_York' }), 'badRequest', 'zone "New_York" is not a known time zone; expected an IANA zone name; near it: America/New_York');
    expectError(() => bad({ header: 'no' }), 'badRequest', 'header must be true');
    expectError(() => bad({ columns: {} }), 'badRequest', 'columns must be an object');
    expectError(() => bad({}, { price: { source: 'px' } }), 'badRequest', 'columns.price.source "px" names a column, but the files have no header');
    expectError(() => bad({}, { price: { source: -1 } }), 'badRequest', 'columns.price.source -1 is not a column position');
    expectError(() => bad({}, { price: { source: 1, constant: 2 } }), 'badRequest', 'columns.price needs exactly one of source, constant or path, not source and constant');
    expectError(() => bad({}, { price: {} }), 'badRequest', 'columns.price needs exactly one of source, constant or path');
    expectError(() => bad({}, { price: { source: 1, scale: 0 } }), 'badRequest', 'columns.price.scale 0 is not a non-zero number');
    expectError(() => bad({}, { price: { source: 1, pattern: 'x' } }), 'badRequest', 'columns.price.pattern cuts a path template');
    expectError(() => bad({}, { instrumentID: { path: '{folder}' } }), 'badRequest', '{folder} is not a part of a path');
    expectError(() => bad({}, { instrumentID: { path: '{dir}', pattern: '(' } }), 'badRequest', 'columns.instrumentID.pattern is not a regular expression');
    expectError(() => bad({}, { eventTimestamp: { source: 0, unit: 'minutes' } }), 'badRequest', 'columns.eventTimestamp.unit "minutes": expected s, ms, us or ns');
    expectError(() => bad({}, { eventTimestamp: { source: 0, unit: 'ms', since: 'midnight' } }), 'badRequest', 'columns.eventTimestamp.date is needed with "since": "midnight"');
    expectError(() => bad({}, { eventTimestamp: { source: 0, unit: 'ms', date: { constant: '20131008' } } }), 'badRequest', 'columns.eventTimestamp.date is used with "since": "midnight" only');
    expectError(() => bad({}, { price: { source: 1, round: 2 } }), 'badRequest', 'columns.price.round is not an item of a column');
    expectError(() => bad({}, { instrumentID: { path: '{dir}', case: 'title' } }), 'badRequest', 'columns.instrumentID.case "title": expected "upper" or "lower"');
  });
});
