// ops/stats/analytics.ts: named analytics (INTERFACE 4.2.1, SPEC 5.1): `<agg><Column>` built from a
// table's schema (first and last of any column; min, max, avg, med of numeric and timestamp columns;
// sum of numeric columns), then those configured for the table.
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../../engine/core/errors.js';
import { analyticsOf, resolveAnalytics } from '../../../../engine/ops/stats/analytics.js';
import { type Config, defaultConfig } from '../../../../engine/storage/config.js';
import type { TableSchema } from '../../../../engine/storage/schema.js';
import { expectTableEqual, tableFromRows } from '../../../helpers/table-equal.js';

const tiny: TableSchema = {
  name: 'Tiny',
  kind: 'partitioned',
  timeColumn: 'at',
  idColumn: 'sym',
  foreignKeys: {},
  columns: [
    { name: 'at', type: 'timestamp' },
    { name: 'sym', type: 'symbol' },
    { name: 'price', type: 'float' },
    { name: 'size', type: 'long' },
    { name: 'n', type: 'int' },
    { name: 'flag', type: 'boolean' },
    { name: 'd', type: 'date' },
    { name: 'levels', type: 'float[]' },
  ],
};
const config: Config = { ...defaultConfig(), analytics: { Tiny: { spread: ['-', ['max', 'price'], ['min', 'price']] }, Other: { other: ['count', 'i'] } } };

const asTable = (m: ReadonlyMap<string, unknown>): ReturnType<typeof tableFromRows> =>
  tableFromRows(
    { name: 'string', tree: 'string' },
    [...m].map(([name, tree]) => [name, JSON.stringify(tree)]),
  );

describe('analyticsOf', () => {
  it('builds every analytic of the schema in order, then the configured ones of this table only', () => {
    const built = (agg: string, cols: string[]): Array<[string, string]> => cols.map((c) => [`${agg}${c.charAt(0).toUpperCase()}${c.slice(1)}`, JSON.stringify([agg, c])]);
    const any = ['at', 'sym', 'price', 'size', 'n', 'flag', 'd'];
    const numericOrTime = ['at', 'price', 'size', 'n'];
    const want = tableFromRows({ name: 'string', tree: 'string' }, [
      ...built('first', any),
      ...built('last', any),
      ...built('min', numericOrTime),
      ...built('max', numericOrTime),
      ...built('avg', numericOrTime),
      ...built('med', numericOrTime),
      ...built('sum', ['price', 'size', 'n']),
      ['spread', '["-",["max","price"],["min","price"]]'],
    ]);
    expectTableEqual(asTable(analyticsOf(tiny, config)), want);
  });

  it('a configured analytic may replace a built-in one', () => {
    const c: Config = { ...config, analytics: { Tiny: { firstPrice: ['first', 'size'] } } };
    expect(analyticsOf(tiny, c).get('firstPrice')).toEqual(['first', 'size']);
  });
});

describe('resolveAnalytics', () => {
  it('gives each named analytic its tree, in the order asked', () => {
    const got = resolveAnalytics(['spread', 'sumSize', 'firstSym'], tiny, config);
    expectTableEqual(
      asTable(new Map(got.map((a) => [a.name, a.tree]))),
      tableFromRows({ name: 'string', tree: 'string' }, [
        ['spread', '["-",["max","price"],["min","price"]]'],
        ['sumSize', '["sum","size"]'],
        ['firstSym', '["first","sym"]'],
      ]),
    );
  });

  it('an unknown name is an error listing the table’s analytics', () => {
    let err: unknown;
    try {
      resolveAnalytics(['firstPrice', 'sumFlag'], tiny, config);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TickscopeError);
    expect((err as TickscopeError).kind).toBe('notAllowed');
    const message = (err as Error).message;
    expect(message).toMatch(/^analytics: "sumFlag" is not an analytic of Tiny; expected one of firstAt, firstSym, firstPrice, /);
    expect(message).toMatch(/, sumPrice, sumSize, sumN, spread$/);
    expect(message).not.toContain('other');
  });
});
