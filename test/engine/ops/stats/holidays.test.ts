// ops/stats/holidays.ts: applyHolidayCalendar's parts (INTERFACE 4.2.5, SPEC 5.3): the calendar read
// from ExchangeHolidayCal, each group's exchange, and whether a bucket starting at an instant is a
// non-trading day (a weekend day of the config, or a calendar date of the exchange that applies).
import { describe, expect, it } from 'vitest';
import { TickscopeError } from '../../../../engine/core/errors.js';
import { Table } from '../../../../engine/core/table.js';
import { parseDate } from '../../../../engine/core/time.js';
import { groupExchanges, type HolidayMode, loadCalendar, nonTradingDay } from '../../../../engine/ops/stats/holidays.js';
import type { RowSource } from '../../../../engine/storage/row-source.js';
import type { Source } from '../../../../engine/storage/source.js';
import { expectTableEqual, tableFromRows, ts } from '../../../helpers/table-equal.js';

const day = (text: string): number => parseDate(text)!;

/** A calendar as a table of (exchange, date), sorted. */
function calendarTable(cal: ReadonlyMap<string, ReadonlySet<number>>): Table {
  const rows = [...cal].flatMap(([ex, days]) => [...days].map((d) => [ex, d] as const)).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  return tableFromRows({ exchangeID: 'symbol', date: 'date' }, rows);
}

/** A source that declares these tables and holds `cal` as its ExchangeHolidayCal rows (enough for loadCalendar). */
function sourceWith(tables: readonly string[], cal?: Table): Source {
  const rows: RowSource | undefined = cal && { rows: cal.length, idRanges: new Map(), column: (name) => cal.col(name) };
  const partial: Pick<Source, 'name' | 'reference'> & { schema: { tables: Map<string, unknown> } } = {
    name: 'demo',
    schema: { tables: new Map(tables.map((t) => [t, {}])) },
    reference: (name) => (name === 'ExchangeHolidayCal' ? rows : undefined),
  };
  return partial as unknown as Source;
}

describe('loadCalendar', () => {
  it('reads the dates of each exchange, skipping null dates and repeats', () => {
    const cal = tableFromRows({ exchangeID: 'symbol', date: 'date' }, [
      ['XNYS', '2024-07-04'],
      ['XNYS', '2024-01-15'],
      ['XLON', '2024-12-26'],
      ['XLON', null],
      ['XNYS', '2024-01-15'],
    ]);
    expectTableEqual(
      calendarTable(loadCalendar(sourceWith(['Trade', 'ExchangeHolidayCal'], cal))),
      tableFromRows({ exchangeID: 'symbol', date: 'date' }, [
        ['XLON', '2024-12-26'],
        ['XNYS', '2024-01-15'],
        ['XNYS', '2024-07-04'],
      ]),
    );
  });

  it('an empty calendar table is an empty calendar', () => {
    expect(loadCalendar(sourceWith(['ExchangeHolidayCal'])).size).toBe(0);
  });

  it('a database without the calendar table is an error naming it', () => {
    let err: unknown;
    try {
      loadCalendar(sourceWith(['Trade']));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TickscopeError);
    expect((err as TickscopeError).kind).toBe('requirement');
    expect((err as Error).message).toBe('applyHolidayCalendar: needs the ExchangeHolidayCal reference table, which demo does not declare');
  });
});

describe('groupExchanges', () => {
  it('a group’s first non-null tradedExchange, else its first non-null exchangeID, else the fallback', () => {
    const t = tableFromRows({ tradedExchange: 'symbol', exchangeID: 'symbol' }, [
      ['', 'XNYS'],
      ['ARCX', 'XNYS'],
      ['', ''],
      ['', 'XLON'],
      ['', ''],
      ['BATS', 'XNYS'],
    ]);
    const groupOf = Int32Array.of(0, 0, 1, 1, 2, 0);
    // group 3 has no rows
    const got = groupExchanges(t, groupOf, 4, (g) => `ref${g}`);
    expectTableEqual(tableFromRows({ exchange: 'symbol' }, got.map((e) => [e])), tableFromRows({ exchange: 'symbol' }, [['ARCX'], ['XLON'], ['ref2'], ['ref3']]));
  });

  it('reads exchangeID alone when there is no tradedExchange symbol column', () => {
    const t = tableFromRows({ tradedExchange: 'string', exchangeID: 'symbol' }, [
      ['ARCX', 'XNYS'],
      ['BATS', 'XLON'],
    ]);
    expect(groupExchanges(t, Int32Array.of(0, 1), 2, () => '?')).toEqual(['XNYS', 'XLON']);
  });
});

describe('nonTradingDay', () => {
  const calendar = new Map([
    ['XNYS', new Set([day('2024-01-15'), day('2024-07-04')])],
    ['XLON', new Set([day('2024-12-26')])],
  ]);
  const exchangeOf = ['XNYS', 'XLON', 'XTKS'];
  // bucket starts, each tried for groups 0 (XNYS), 1 (XLON), 2 (XTKS: not in the calendar)
  const starts = [
    '2024-01-12T09:30:00Z', // Friday
    '2024-01-13T09:30:00Z', // Saturday
    '2024-01-14T09:30:00Z', // Sunday
    '2024-01-15T09:30:00Z', // Monday, XNYS holiday
    '2024-07-04T00:00:00Z', // Thursday, XNYS holiday
    '2024-12-26T23:59:59.999999999Z', // Thursday, XLON holiday
    '2024-12-27T00:00:00Z', // Friday
  ];

  /** Which of the starts are closed for each group, as a table. */
  function closed(mode: HolidayMode, weekend: readonly number[], zone = 'UTC', at: readonly string[] = starts): Table {
    const test = nonTradingDay(mode, calendar, weekend, exchangeOf, zone);
    return new Table(
      ['start', 'g0', 'g1', 'g2'],
      [
        tableFromRows({ start: 'timestamp' }, at.map((s) => [s])).col('start'),
        ...[0, 1, 2].map((g) => tableFromRows({ c: 'boolean' }, at.map((s) => [test(ts(s), g)])).col('c')),
      ],
    );
  }
  const want = (rows: ReadonlyArray<readonly [boolean, boolean, boolean]>, at: readonly string[] = starts): Table =>
    tableFromRows(
      { start: 'timestamp', g0: 'boolean', g1: 'boolean', g2: 'boolean' },
      at.map((s, i) => [s, ...rows[i]!]),
    );

  it('per group (1b): weekends for all, each group its own exchange’s dates', () => {
    expectTableEqual(
      closed({ kind: 'perGroup' }, [0, 6]),
      want([
        [false, false, false],
        [true, true, true],
        [true, true, true],
        [true, false, false],
        [true, false, false],
        [false, true, false],
        [false, false, false],
      ]),
    );
  });

  it('one exchange (a symbol): its dates for every group', () => {
    expectTableEqual(
      closed({ kind: 'exchange', exchange: 'XLON' }, [0, 6]),
      want([
        [false, false, false],
        [true, true, true],
        [true, true, true],
        [false, false, false],
        [false, false, false],
        [true, true, true],
        [false, false, false],
      ]),
    );
  });

  it('the null symbol: every calendar date for every group', () => {
    expectTableEqual(
      closed({ kind: 'all' }, [0, 6]),
      want([
        [false, false, false],
        [true, true, true],
        [true, true, true],
        [true, true, true],
        [true, true, true],
        [true, true, true],
        [false, false, false],
      ]),
    );
  });

  it('weekend days come from the config (here Friday and Saturday)', () => {
    expectTableEqual(
      closed({ kind: 'perGroup' }, [5, 6]),
      want([
        [true, true, true],
        [true, true, true],
        [false, false, false],
        [true, false, false],
        [true, false, false],
        [false, true, false],
        [true, true, true],
      ]),
    );
  });

  it('the day is the bucket start’s date in the zone', () => {
    // 2024-07-04T02:00Z is 3 July 22:00 in New York; 2024-07-05T03:00Z is 4 July 23:00 there
    const at = ['2024-07-04T02:00:00Z', '2024-07-05T03:00:00Z', '2024-07-05T04:00:00Z'];
    expectTableEqual(
      closed({ kind: 'perGroup' }, [0, 6], 'America/New_York', at),
      want(
        [
          [false, false, false],
          [true, false, false],
          [false, false, false],
        ],
        at,
      ),
    );
    expectTableEqual(
      closed({ kind: 'perGroup' }, [0, 6], 'UTC', at),
      want(
        [
          [true, false, false],
          [false, false, false],
          [false, false, false],
        ],
        at,
      ),
    );
    // Saturday 13 January begins at 05:00Z in New York
    const sat = ['2024-01-13T04:59:59.999999999Z', '2024-01-13T05:00:00Z'];
    expectTableEqual(closed({ kind: 'all' }, [0, 6], 'America/New_York', sat), want([[false, false, false], [true, true, true]], sat));
  });
});
