/** Every wrong value of every getStats argument: named argument and value, expected forms, documented code. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../engine/core/errors.js';
import { OPERATIONS } from '../../../engine/operations/index.js';
import { csv, makeEngine } from '../../helpers/db.js';

const engine = makeEngine({ Trade: csv(['eventTimestamp', 'instrumentID', 'price'], [['2024.03.06D10:00', 'AAPL', '1']]) });
const documented = new Set([...readFileSync('docs/errors.md', 'utf8').matchAll(/^\| *(\d+) \|/gm)].map((m) => Number(m[1])));
const BASE = { table: 'Trade', startTS: '2024.03.06', endTS: '2024.03.07', agg: { n: ['count', 'i'] } };

// [argument, wrong value, expected ac, text the value shows as in the message]
const CASES: Array<[string, unknown, number, string]> = [
  ['table', 'Trades', 6, '"Trades"'],
  ['startTS', 'yesterday', 4, '"yesterday"'],
  ['endTS', '2024.02.30', 4, '"2024.02.30"'],
  ['idList', [1], 4, '[1]'],
  ['idCol', 'instrument', 7, '"instrument"'],
  ['filter', [['>', 'prise', '1']], 7, '[">","prise","1"]'],
  ['fill', 'backward', 5, '"backward"'],
  ['temporality', 'sliced', 5, '"sliced"'],
  ['slice', ['9am', '10am'], 4, '["9am","10am"]'],
  ['sortCols', ['asc', 'prise'], 11, '"prise"'],
  ['inputTZ', 'Mars/Base', 12, '"Mars/Base"'],
  ['outputTZ', 'EST5', 12, '"EST5"'],
  ['idMapping', 'yes', 4, '"yes"'],
  ['filterRule', 'oddLots', 15, '"oddLots"'],
  ['timeCol', 'price', 14, '"price"'],
  ['orderbook', 'depth', 5, '"depth"'],
  ['decPlaces', -1, 4, '-1'],
  ['ref', ['Instruments'], 6, '"Instruments"'],
  ['refFilter', 'sector=Tech', 10, '"sector=Tech"'],
  ['scope', { region: 'EU' }, 4, '{"region":"EU"}'],
  ['analytics', ['maxprice'], 5, '"maxprice"'],
  ['agg', { x: ['maximum', 'price'] }, 4, '["maximum","price"]'],
  ['groupBy', ['sector'], 7, '"sector"'],
  ['groupBy', ['instrumentID', 'instrumentID'], 4, '["instrumentID","instrumentID"]'],
  ['granularity', '0', 4, '0'],
  ['granularityUnit', 'week', 5, '"week"'],
  ['movingWindowSize', 'ten', 4, '"ten"'],
  ['applyHolidayCalendar', 7, 4, '7'],
];

describe('getStats errors', () => {
  const getStats = OPERATIONS.find((o) => o.name === 'getStats')!;

  it('covers every argument of getStats', () => {
    expect(new Set(CASES.map((c) => c[0]))).toEqual(new Set(getStats.args.map((a) => a.name)));
  });

  for (const [arg, value, ac, shown] of CASES) {
    it(`${arg}: ${JSON.stringify(value)}`, () => {
      let err: TickscopeError | undefined;
      try {
        engine.call('getStats', { ...BASE, granularityUnit: 'minute', [arg]: value });
      } catch (e) {
        if (!(e instanceof TickscopeError)) throw e;
        err = e;
      }
      expect(err, 'an error').toBeDefined();
      expect([err!.ac, documented.has(err!.ac)]).toEqual([ac, true]);
      expect(err!.message.startsWith(arg), err!.message).toBe(true);
      expect(err!.message, err!.message).toContain(shown);
      expect(err!.message, err!.message).toMatch(/expected|needs/);
    });
  }
});
