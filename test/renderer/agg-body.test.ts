/**
 * The agg builder and the request: rows sent in the three formats of INTERFACE 4.2.2, read back from
 * any agg JSON, and named exactly as the engine names the outputs.
 */
import { describe, expect, it } from 'vitest';
import { aggTrees } from '../../engine/registry/agg-value.js';
import { decodeArgs } from '../../engine/registry/decode.js';
import { OPERATIONS } from '../../engine/operations/index.js';
import { aggBody, aggTextValue, aggValue, aggValueText, outputNames, readAgg, rowFormatProblem } from '../../renderer/src/form/agg-body.js';
import { listValue } from '../../renderer/src/form/values.js';
import { buildArgs } from '../../renderer/src/store/request.js';

const getStats = OPERATIONS.find((o) => o.name === 'getStats')!;

const ROWS = [
  { name: 'hi', tree: ['max', 'price'] },
  { name: '', tree: ['last', ''] }, // blank: skipped
  { name: 'vwap', tree: ['wavg', 'volume', 'price'] },
  { name: '', tree: ['sum', ['*', 'price', 'volume']] },
  { name: '', tree: ['min', 'price'] },
];

describe('agg body from builder rows', () => {
  it('sends a dictionary by default; unnamed rows are <op><Column> or aggregation<k>', () => {
    const v = aggValue('dict', ROWS);
    expect(aggBody(v)).toEqual({ hi: ['max', 'price'], vwap: ['wavg', 'volume', 'price'], aggregation3: ['sum', ['*', 'price', 'volume']], minPrice: ['min', 'price'] });
    expect(outputNames(v)).toEqual(['hi', null, 'vwap', 'aggregation3', 'minPrice']);
  });

  it('sends a list of trees, named aggregation1, 2, ... by position among the sent rows', () => {
    const v = aggValue('list', ROWS);
    expect(aggBody(v)).toEqual([['max', 'price'], ['wavg', 'volume', 'price'], ['sum', ['*', 'price', 'volume']], ['min', 'price']]);
    expect(outputNames(v)).toEqual(['aggregation1', null, 'aggregation2', 'aggregation3', 'aggregation4']);
  });

  it('sends triplets [name, op, argument], whose argument may be a tree', () => {
    const v = aggValue('triplets', [
      { name: 'hi', tree: ['max', 'price'] },
      { name: 'turnover', tree: ['sum', ['*', 'price', 'volume']] },
    ]);
    expect(aggBody(v)).toEqual([['hi', 'max', 'price'], ['turnover', 'sum', ['*', 'price', 'volume']]]);
  });

  it('names the row that a format cannot carry', () => {
    const wavg = aggValue('triplets', [{ name: 'vwap', tree: ['wavg', 'volume', 'price'] }]);
    expect(rowFormatProblem(wavg, 0)).toMatch(/^a triplet holds one operator and one argument/);
    expect(() => aggBody(wavg)).toThrow(/^agg: row 1: a triplet holds one operator/);
    const opName = aggValue('triplets', [{ name: 'max', tree: ['max', 'price'] }]);
    expect(() => aggBody(opName)).toThrow('agg: row 1: the name max is an operator: the engine would read the triplet as a tree');
    const twice = aggValue('dict', [{ name: 'x', tree: ['max', 'price'] }, { name: 'x', tree: ['min', 'price'] }]);
    expect(() => aggBody(twice)).toThrow('agg: row 1: the name x is used twice');
    expect(aggBody(aggValue('dict', [{ name: '', tree: ['last', ''] }]))).toBeUndefined();
  });

  it('names outputs as the engine does, in every format', () => {
    for (const format of ['dict', 'list', 'triplets'] as const) {
      const v = aggValue(format, format === 'triplets' ? ROWS.filter((r) => r.tree.length === 2) : ROWS);
      const engine = aggTrees(aggBody(v)).map((t) => t.name);
      expect(engine).toEqual(outputNames(v).filter((n) => n !== null));
    }
  });
});

describe('agg JSON read back into rows', () => {
  it('recognises the three formats, a lone tree and a lone triplet, with REST number strings', () => {
    expect(readAgg({ hi: ['max', 'price'], half: ['%', ['max', 'price'], 2] })).toEqual({ format: 'dict', trees: [{ name: 'hi', tree: ['max', 'price'] }, { name: 'half', tree: ['%', ['max', 'price'], '2'] }] });
    expect(readAgg([['max', 'price'], ['sum', 'volume']])?.trees.map((t) => t.name)).toEqual(['aggregation1', 'aggregation2']);
    expect(readAgg([['hi', 'max', 'price'], ['lo', 'min', 'price']])).toEqual({ format: 'triplets', trees: [{ name: 'hi', tree: ['max', 'price'] }, { name: 'lo', tree: ['min', 'price'] }] });
    expect(readAgg(['max', 'price'])).toEqual({ format: 'list', trees: [{ name: 'aggregation1', tree: ['max', 'price'] }] });
    expect(readAgg(['hi', 'max', 'price'])?.format).toBe('triplets');
    // A 3-element tree whose first element is an operator stays a tree.
    expect(readAgg([['wavg', 'volume', 'price']])?.format).toBe('list');
  });

  it('has no builder form for mixed lists, objects inside trees or bad JSON', () => {
    expect(readAgg([['hi', 'max', 'price'], ['sum', 'volume']])).toBeNull();
    expect(aggTextValue('{"hi": ["max", {"c": 1}]}')).toBeNull();
    expect(aggTextValue('{"hi": "price"}')).toBeNull();
    expect(aggTextValue('[["max","price"')).toBeNull();
    expect(aggTextValue('')).toEqual(aggValue('dict', []));
  });

  it('round-trips text -> builder -> text', () => {
    for (const text of ['{"hi":["max","price"],"twap":["%",["+",["first","price"],["last","price"]],"2"]}', '[["max","price"],["count","i"]]', '[["hi","max","price"],["n","count",["distinct","instrumentID"]]]']) {
      const v = aggTextValue(text)!;
      expect(aggValueText(v)).toBe(text);
    }
  });
});

describe('getStats form values in the request', () => {
  it('sends agg rows, "no grouping" as [], and the holiday null symbol as ""; the engine accepts them', () => {
    const body = buildArgs(getStats, {
      table: 'Trade',
      analytics: listValue(['vwap'], 'maxPrice'),
      agg: aggValue('dict', [{ name: 'hi', tree: ['max', 'price'] }]),
      groupBy: '[]',
      granularity: '5',
      granularityUnit: 'minute',
      fill: 'forward',
      applyHolidayCalendar: '`',
    });
    expect(body).toEqual({ table: 'Trade', analytics: ['vwap', 'maxPrice'], agg: { hi: ['max', 'price'] }, groupBy: [], granularity: '5', granularityUnit: 'minute', fill: 'forward', applyHolidayCalendar: '' });
    const decoded = decodeArgs(getStats, body);
    expect(decoded.get('groupBy')).toEqual([]);
    expect(decoded.get('applyHolidayCalendar')).toBe('');
    // An empty groupBy multi-select is not "no grouping": the default applies.
    expect(buildArgs(getStats, { table: 'Trade', groupBy: listValue([]) })).toEqual({ table: 'Trade' });
  });
});
