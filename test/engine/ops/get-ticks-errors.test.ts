/**
 * Every wrong value of every getTicks argument: an error naming the argument and the value, saying
 * what was expected, with an application code listed in docs/errors.md.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { OPERATIONS } from '../../../engine/operations/index.js';
import { csv, makeEngine } from '../../helpers/db.js';

const engine = makeEngine({ Trade: csv(['eventTimestamp', 'instrumentID', 'price'], [['2024.03.06D10:00', 'AAPL', '1']]) });
const documented = new Set([...readFileSync('docs/errors.md', 'utf8').matchAll(/^\| *(\d+) \|/gm)].map((m) => Number(m[1])));

// [argument, wrong value, expected ac, text the value shows as in the message]
const CASES: Array<[string, unknown, number, string]> = [
  ['table', 42, 4, '42'],
  ['table', 'Trades', 6, '"Trades"'],
  ['startTS', 'yesterday', 4, '"yesterday"'],
  ['startTS', 1709719200, 4, '1709719200'],
  ['endTS', '2024.02.30', 4, '"2024.02.30"'],
  ['columns', ['price', 'prise'], 7, '"prise"'],
  ['columns', [1, 2], 4, '[1,2]'],
  ['idList', [1], 4, '[1]'],
  ['idCol', 'instrument', 7, '"instrument"'],
  ['filter', 17, 10, '17'],
  ['filter', [['>', 'price']], 10, '[">","price"]'],
  ['filter', [['>', 'prise', '1']], 7, '[">","prise","1"]'],
  ['filter', 'price<', 10, '"price<"'],
  ['filter', '((<;`price;1)', 10, '"((<;`price;1)"'],
  ['fill', 'backward', 5, '"backward"'],
  ['temporality', 'sliced', 5, '"sliced"'],
  ['slice', ['9am', '10am'], 4, '["9am","10am"]'],
  ['sortCols', ['up', 'price'], 11, '["up","price"]'],
  ['sortCols', ['asc', 'prise'], 11, '"prise"'],
  ['applyCanCor', 'maybe', 4, '"maybe"'],
  ['inputTZ', 'Mars/Base', 12, '"Mars/Base"'],
  ['outputTZ', 'EST5', 12, '"EST5"'],
  ['idMapping', 'yes', 4, '"yes"'],
  ['filterRule', 'oddLots', 15, '"oddLots"'],
  ['timeCol', 'price', 14, '"price"'],
  ['timeCol', 'exchangeTime', 7, '"exchangeTime"'],
  ['orderbook', 'depth', 5, '"depth"'],
  ['decPlaces', 'two', 4, '"two"'],
  ['decPlaces', -1, 4, '-1'],
  ['ref', ['Instruments'], 6, '"Instruments"'],
  ['ref', [3], 4, '[3]'],
  ['refFilter', { Instrument: 'sector' }, 10, '"sector"'],
  ['refFilter', 'sector=Tech', 10, '"sector=Tech"'],
  ['scope', 'demo', 4, '"demo"'],
  ['scope', { region: 'EU' }, 4, '{"region":"EU"}'],
];

describe('getTicks errors', () => {
  const getTicks = OPERATIONS.find((o) => o.name === 'getTicks')!;

  it('covers every argument of getTicks', () => {
    expect(new Set(CASES.map((c) => c[0]))).toEqual(new Set(getTicks.args.map((a) => a.name)));
  });

  for (const [arg, value, ac, shown] of CASES) {
    it(`${arg}: ${JSON.stringify(value)}`, () => {
      let err: TickscopeError | undefined;
      try {
        engine.call('getTicks', { table: 'Trade', [arg]: value });
      } catch (e) {
        if (!(e instanceof TickscopeError)) throw e;
        err = e;
      }
      expect(err, 'an error').toBeDefined();
      expect(err!.ac).toBe(ac);
      expect(documented.has(err!.ac)).toBe(true);
      expect(err!.message.startsWith(`${arg}`), err!.message).toBe(true);
      expect(err!.message, err!.message).toContain(shown);
      expect(err!.message, err!.message).toMatch(/expected|needs/);
    });
  }

  it('names an unknown assembly and lists the mounted ones', () => {
    expect(() => engine.call('getTicks', { table: 'Trade', scope: { assembly: 'prod' } })).toThrow(
      'scope.assembly: "prod" is not a mounted assembly; expected one of db',
    );
  });
});
