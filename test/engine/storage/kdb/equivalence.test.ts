/**
 * Issue 29: getTicks, getStats and the order analytics operations answer on a kdb+ database exactly
 * as on the same rows in a Tickscope database. One generated data set (the demo generator: four
 * instruments, two of them London's, over three days, the third a London holiday) is written both
 * ways: the Tickscope database as generated (its OrderAnalytics made again by generateOrderAnalytics),
 * and a kdb+ HDB holding the same rows (kdb-writer.ts), each partitioned table under its own name by
 * q date with the same columns in the same order, in the storage order the Tickscope partition holds
 * (identifier runs, each in time order; the identifier `p#` but in one table, whose runs the reader
 * derives), the reference tables splayed at the root. Every call then runs on both engines and the
 * answers are compared cell by cell, names, types and values, the Tickscope database the reference.
 *
 * What the kdb+ side answers that Tickscope's does not: its virtual `date` column (first in a
 * getTicks without `columns`), left out of the answers compared. What it cannot answer yet: calls
 * that join a reference table through foreign keys (`ref`, `refFilter`, the orderbook shapings
 * instrumentNames and orderbookUpdatesRefData): a kdb+ table declares none, so they are not run here.
 * And it takes no writes: generateOrderAnalytics is refused, naming the database as read-only.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Column } from '../../../../engine/core/column.js';
import { TickscopeError } from '../../../../engine/core/errors.js';
import type { QueryResult } from '../../../../engine/core/result.js';
import type { Table } from '../../../../engine/core/table.js';
import { NS_PER_DAY } from '../../../../engine/core/time.js';
import { generateDemo } from '../../../../engine/demo/generate.js';
import { Engine } from '../../../../engine/engine.js';
import { Database } from '../../../../engine/storage/database.js';
import { KdbSource } from '../../../../engine/storage/kdb/source.js';
import { STANDARD_ROLES } from '../../../../engine/storage/roles.js';
import type { TableSchema } from '../../../../engine/storage/schema.js';
import { readOnlyError } from '../../../../engine/storage/source.js';
import type { RowSource } from '../../../../engine/storage/row-source.js';
import { tempDir } from '../../../helpers/db.js';
import { expectTableEqual } from '../../../helpers/table-equal.js';
import { type KdbColumn, writeHdb } from './kdb-writer.js';

const INT64_NULL = -(2n ** 63n);
const INT32_NULL = -2147483648;

// ---- the data set, the Tickscope side -------------------------------------------------------------

const dir = join(tempDir('equivalence-'), 'demo');
const report = generateDemo(dir, { days: 3, instruments: 4, tradesPerDay: 3000, seed: 29 });
const db = Database.open(dir);
const tickscope = new Engine([db]);
const keys = db.partitionKeys('Trade'); // 2024-03-06 ...
const days = keys.map((k) => k.replace(/-/g, '.')); // 2024.03.06 ...
// the order analytics, made again by the operation (replacing the generator's rows of the same orders)
const generated = days.map((dt) => tickscope.call('generateOrderAnalytics', { table: 'Order', dt, regenExistingIDs: true }).table.length);

// ---- the same rows as a kdb+ HDB ------------------------------------------------------------------

/** The table whose identifier is written without `p#`: the reader derives its runs from the rows. */
const UNPARTED = 'OrderbookUpdates';
/** Nested columns written with every element mapped (the others compact), so both encodings are read. */
const MAPPED = new Set(['OrderbookSnapshots.askPrice', 'OrderbookSnapshots.bidSize', 'ExchangeHolidayCal.description']);

/** A stored column's rows as a kdb+ column of the same type (nulls as q's). */
function kdbColumn(c: Column, table: string, name: string, parted: boolean): KdbColumn {
  const mapped = MAPPED.has(`${table}.${name}`);
  const lists = (offsets: Int32Array, values: Float64Array): number[][] => Array.from({ length: offsets.length - 1 }, (_, i) => Array.from(values.subarray(offsets[i]!, offsets[i + 1]!)));
  switch (c.type) {
    case 'timestamp':
    case 'timespan':
    case 'long':
      return { type: c.type, values: Array.from(c.data, (v) => (v === INT64_NULL ? null : v)) };
    case 'float':
      return { type: 'float', values: Array.from(c.data, (v) => (Number.isNaN(v) ? null : v)) };
    case 'int':
    case 'date':
      return { type: c.type, values: Array.from(c.data, (v) => (v === INT32_NULL ? null : v)) };
    case 'boolean':
      return { type: 'boolean', values: Array.from(c.data, (v) => v !== 0) };
    case 'symbol':
      return { type: 'symbol', values: Array.from(c.codes, (k) => c.dict.get(k) || null), parted };
    case 'string':
      return { type: 'string', values: c.values, mapped };
    case 'float[]':
    case 'long[]':
      return { type: c.type, values: lists(c.offsets, c.values), mapped };
  }
}

/** Every column of a stored partition or reference table, in the schema's order, as the source holds its rows. */
function kdbTable(t: TableSchema, rows: RowSource): Array<[string, KdbColumn]> {
  const parted = (name: string): boolean => t.kind === 'partitioned' && name === t.idColumn && t.name !== UNPARTED;
  return t.columns.map((d) => [d.name, kdbColumn(rows.column(d.name), t.name, d.name, parted(d.name))]);
}

const root = tempDir('equivalence-hdb-');
{
  const partitions: Record<string, Record<string, Array<[string, KdbColumn]>>> = {};
  const splayed: Record<string, Array<[string, KdbColumn]>> = {};
  for (const t of db.schema.tables.values()) {
    if (t.kind === 'reference') {
      const rows = db.reference(t.name);
      if (rows) splayed[t.name] = kdbTable(t, rows);
      continue;
    }
    for (const key of db.partitionKeys(t.name)) (partitions[key.replace(/-/g, '.')] ??= {})[t.name] = kdbTable(t, db.partition(t.name, key)!);
  }
  writeHdb(root, partitions, splayed);
}
// the same config: analytics, filter rules, idMap, summary functions; the roles the Tickscope side
// resolves (a database without roles has the standard tables'; the kdb+ source would guess them)
const kdb = KdbSource.open(root, { name: 'hdb', config: { ...db.config, roles: db.config.roles ?? STANDARD_ROLES } });
const kdbEngine = new Engine([kdb]);

// ---- comparing answers ----------------------------------------------------------------------------

/** The kdb+ answer without its virtual date column (where the Tickscope answer has no column of that name). */
function withoutDate(got: Table, want: Table): Table {
  return got.names.includes('date') && !want.names.includes('date') ? got.select(got.names.filter((n) => n !== 'date')) : got;
}

/**
 * Runs a call on both engines and compares the answers: every cell (floats exactly), and what is
 * rendered with them (the zone, the window, the table's time and identifier columns, the groups).
 * Answers the Tickscope one, and the kdb+ one whole.
 */
function same(op: string, args: Record<string, unknown>): { want: QueryResult; got: QueryResult } {
  const want = tickscope.call(op, args);
  const got = kdbEngine.call(op, args);
  try {
    expectTableEqual(withoutDate(got.table, want.table), want.table);
  } catch (e) {
    (e as Error).message = `${op} ${JSON.stringify(args)}: ${(e as Error).message}`;
    throw e;
  }
  const meta = (r: QueryResult): unknown => ({
    outputTZ: r.outputTZ,
    window: r.window,
    tableName: r.tableName,
    timeColumn: r.timeColumn,
    idColumn: r.idColumn,
    groupColumns: r.groupColumns,
  });
  expect(meta(got), `${op} ${JSON.stringify(args)}`).toEqual(meta(want));
  return { want, got };
}

/** Compares a battery of calls of one operation; each answer must hold rows unless marked empty. */
function battery(op: string, calls: ReadonlyArray<readonly [string, Record<string, unknown>, 'empty'?]>): void {
  for (const [name, args, empty] of calls) {
    it(name, () => {
      const { want } = same(op, args);
      if (empty) expect(want.table.length).toBe(0);
      else expect(want.table.length, 'a comparison of answers with rows').toBeGreaterThan(0);
    });
  }
}

// ---- argument values, from the data ---------------------------------------------------------------

const [d0, d1, d2] = [days[0]!, days[1]!, days[2]!];
/** The day after the last (the end of a window over every day). */
const after = new Date(Date.parse(`${keys[2]!}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10).replace(/-/g, '.');
const ids = [...report.instruments].sort(); // AAPL BP MSFT VOD
const us = ids.filter((id) => !db.config.idMap[`${id}.L`]);
const london = ids.filter((id) => db.config.idMap[`${id}.L`]);
const ric = Object.keys(db.config.idMap).find((k) => db.config.idMap[k] === us[0] && k.includes('.'))!;
const sideCol = tickscope.call('getTicks', { table: 'OrderAnalytics', startTS: d0, endTS: d1, columns: ['side'] }).table.col('side');
const orderSide = sideCol.type === 'symbol' ? sideCol.dict.get(sideCol.codes[0]!) : ''; // the first order's side

describe('the data set', () => {
  it('holds every table on both sides, the same days and rows', () => {
    expect(days).toHaveLength(3);
    expect(report.holiday.date).toBe(keys[2]); // London closed on the third day
    expect(london.length).toBeGreaterThan(0);
    for (const t of db.schema.tables.values()) {
      if (t.kind === 'reference') {
        expect(kdb.reference(t.name)?.rows, t.name).toBe(db.reference(t.name)?.rows);
        expect(kdb.table(t.name).columns, t.name).toEqual(t.columns);
        continue;
      }
      expect(kdb.partitionKeys(t.name), t.name).toEqual(db.partitionKeys(t.name));
      for (const key of db.partitionKeys(t.name)) {
        // the same rows, the same identifier runs (from p#, or derived in the one table without it)
        const [k, p] = [kdb.partition(t.name, key)!, db.partition(t.name, key)!];
        expect(k.rows, `${t.name} ${key}`).toBe(p.rows);
        expect([...k.idRanges].sort(), `${t.name} ${key}`).toEqual([...p.idRanges].sort());
      }
      // the kdb+ table: the virtual date column, then the columns as the Tickscope table has them
      expect(kdb.table(t.name).columns, t.name).toEqual([{ name: 'date', type: 'date' }, ...t.columns]);
      expect([kdb.table(t.name).timeColumn, kdb.table(t.name).idColumn], t.name).toEqual([t.timeColumn, t.idColumn]);
    }
    // every day's orders analysed, and what was generated is what both sides hold
    expect(generated.every((n) => n > 0)).toBe(true);
    expect(db.partitionKeys('OrderAnalytics').map((k) => db.partition('OrderAnalytics', k)!.rows)).toEqual(generated);
    expect(orderSide).not.toBe('');
  });
});

describe('getTicks answers alike', () => {
  it('every column of a table over every day: the kdb+ answer has its date column first, the day of each row', () => {
    const { want, got } = same('getTicks', { table: 'Trade', startTS: d0, endTS: after });
    expect(got.table.names[0]).toBe('date');
    const date = got.table.col('date') as { data: Int32Array };
    const time = want.table.col('eventTimestamp') as { data: BigInt64Array };
    for (let i = 0; i < want.table.length; i++) expect(date.data[i]).toBe(Number(time.data[i]! / NS_PER_DAY));
    expect(want.table.length).toBeGreaterThan(6000);
  });

  battery('getTicks', [
    ['columns and idList in a window of one day', { table: 'Trade', startTS: `${d0}D14:00`, endTS: `${d0}D16:00`, idList: [us[0], london[0]], columns: ['instrumentID', 'price', 'volume'] }],
    ['a window across days, list filters', { table: 'Trade', startTS: `${d0}D15:00`, endTS: `${d2}D15:00`, filter: [['>', 'volume', '200'], ['in', 'conditions', ['@', 'F']]] }],
    ['an identifier across days, in a narrow window', { table: 'Quote', startTS: `${d0}D20:55`, endTS: `${d1}D14:35`, idList: [us[1]], columns: ['bidPrice', 'askPrice', 'bidSize'] }],
    ['the string form of filters', { table: 'Trade', startTS: d0, endTS: after, filter: `instrumentID=${us.join('|')};volume>=500;conditions<>O`, columns: ['instrumentID', 'volume', 'conditions'] }],
    ['slices of each day in New York time', { table: 'Trade', temporality: 'slice', slice: ['10:00', '10:30'], inputTZ: 'America/New_York', outputTZ: 'America/New_York', startTS: d0, endTS: after, columns: ['instrumentID', 'price'] }],
    ['a slice crossing midnight', { table: 'Quote', temporality: 'slice', slice: ['15:55', '08:05'], startTS: d0, endTS: after }],
    ['sorted and rounded', { table: 'Trade', startTS: d1, endTS: d2, sortCols: ['desc', 'volume', 'asc', 'eventTimestamp'], decPlaces: 1, columns: ['instrumentID', 'price', 'volume'] }],
    ['applyCanCor', { table: 'Trade', startTS: d0, endTS: after, applyCanCor: true, columns: ['executionID', 'price', 'volume'] }],
    ['idMapping', { table: 'Trade', startTS: d0, endTS: d1, idList: [ric], idMapping: '1b' }],
    ['filterRule', { table: 'Trade', startTS: d0, endTS: after, filterRule: 'regularTrades', columns: ['conditions'] }],
    ['timeCol: by exchange time', { table: 'Trade', timeCol: 'exchTime', startTS: `${d1}D14:30`, endTS: `${d1}D15:30`, columns: ['exchTime', 'price'] }],
    ['idCol: another symbol column', { table: 'Trade', idCol: 'tradedExchange', idList: ['XLON'], startTS: d0, endTS: after, columns: ['instrumentID', 'tradedExchange'] }],
    ['fill forward', { table: 'Quote', idList: [us[0]], startTS: `${d0}D14:00`, endTS: `${d0}D15:00`, fill: 'forward' }],
    ['fill linear', { table: 'OrderAnalytics', startTS: d0, endTS: after, fill: 'linear', columns: ['instrumentID', 'arrivalMid', 'intervalVWAP', 'vwapSlippage'] }],
    ['fill linearStep', { table: 'OrderAnalytics', startTS: d0, endTS: after, fill: 'linearStep', columns: ['instrumentID', 'endMid', 'reversionReturn_1800'] }],
    ['fill zero', { table: 'OrderAnalytics', startTS: d0, endTS: after, fill: 'zero' }],
    ['list columns', { table: 'OrderbookSnapshots', startTS: d0, endTS: after, idList: [us[0], london[0]] }],
    ['list columns of one instrument, ten minutes', { table: 'OrderbookSnapshots', startTS: `${d1}D10:00`, endTS: `${d1}D10:10`, idList: [london[0]], columns: ['bidPrice', 'bidSize', 'askCount'] }],
    ['top of book from snapshots', { table: 'OrderbookSnapshots', orderbook: 'plotOrderbookSnapshots', startTS: d0, endTS: `${d0}D15:00` }],
    ['orderbook updates (runs derived, no p#)', { table: 'OrderbookUpdates', startTS: `${d1}D14:00`, endTS: `${d1}D15:00` }],
    ['orders, in another zone', { table: 'Order', startTS: d0, endTS: after, outputTZ: 'Europe/London' }],
    ['trade cancels and corrections', { table: 'TradeCanCor', startTS: d0, endTS: after }],
    ['order analytics (a date and a boolean column)', { table: 'OrderAnalytics', startTS: d0, endTS: after }],
    ['a reference table (a string column)', { table: 'Instrument' }],
    ['a reference table with a date and a string column', { table: 'ExchangeHolidayCal' }],
    ['a window without rows', { table: 'Trade', startTS: '2001.01.01', endTS: '2001.01.02' }, 'empty'],
    ['the holiday: London instruments have no rows', { table: 'Trade', startTS: d2, endTS: after, idList: london }, 'empty'],
  ]);
});

describe('getStats answers alike', () => {
  battery('getStats', [
    ['named analytics over every day', { table: 'Trade', startTS: d0, endTS: after, analytics: ['vwap', 'twap', 'turnover', 'tradeCount', 'firstPrice', 'maxPrice', 'avgVolume', 'lastPrice'] }],
    ['parse trees, filtered', { table: 'Trade', startTS: d0, endTS: d2, filter: [['>', 'volume', 100]], agg: { notional: ['sum', ['*', 'price', 'volume']], range: ['-', ['max', 'price'], ['min', 'price']], n: ['count', 'i'], sd: ['dev', 'price'], w: ['wavg', 'volume', 'price'] } }],
    ['agg as a list of triples', { table: 'Trade', startTS: d0, endTS: after, agg: [['v', 'sum', 'volume'], ['px', 'avg', 'price']] }],
    ['one group, two-hour buckets', { table: 'Trade', startTS: d0, endTS: d2, groupBy: [], granularity: 2, granularityUnit: 'hour', agg: { v: ['sum', 'volume'], hi: ['max', 'price'] } }],
    ['two group columns', { table: 'Trade', startTS: d0, endTS: after, groupBy: ['instrumentID', 'tradedExchange'], agg: { v: ['sum', 'volume'], w: ['wavg', 'volume', 'price'] } }],
    ['grouped by a column other than the identifier', { table: 'Trade', startTS: d0, endTS: after, groupBy: ['conditions'], agg: { n: ['count', 'i'], v: ['sum', 'volume'] } }],
    ['five-minute bars per instrument', { table: 'Trade', startTS: `${d0}D14:00`, endTS: `${d0}D16:00`, granularity: 5, granularityUnit: 'minute', analytics: ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'] }],
    ['a moving window larger than the buckets', { table: 'Trade', startTS: `${d0}D13:00`, endTS: `${d0}D18:00`, granularity: 10, granularityUnit: 'minute', movingWindowSize: 25, agg: { v: ['sum', 'volume'], px: ['avg', 'price'] } }],
    ['a moving window smaller than the buckets', { table: 'Trade', startTS: `${d1}D08:00`, endTS: `${d1}D18:00`, granularity: 30, granularityUnit: 'minute', movingWindowSize: 7, agg: { n: ['count', 'i'], lo: ['min', 'price'] } }],
    ['racked and filled forward, an unknown identifier included', { table: 'Trade', idList: [...ids, 'NOPE'], startTS: `${d0}D15:00`, endTS: `${d0}D15:05`, granularityUnit: 'second', fill: 'forward', agg: { px: ['last', 'price'], v: ['sum', 'volume'] } }],
    ['slices, filled linearly', { table: 'Trade', idList: ids, startTS: d0, endTS: after, temporality: 'slice', slice: ['14:00', '15:00'], granularity: 15, granularityUnit: 'minute', fill: 'linear', agg: { px: ['avg', 'price'] } }],
    ['daily, the holiday calendar applied per exchange', { table: 'Trade', idList: ids, startTS: d0, endTS: after, granularityUnit: 'day', fill: 'forward', applyHolidayCalendar: '1b', agg: { px: ['last', 'price'] } }],
    ['hourly, the holidays of one exchange', { table: 'Trade', startTS: d1, endTS: after, granularityUnit: 'hour', fill: 'zero', applyHolidayCalendar: 'XLON', agg: { v: ['sum', 'volume'] } }],
    ['quotes: the mean spread per minute', { table: 'Quote', idList: [us[1]], startTS: `${d2}D14:30`, endTS: `${d2}D15:30`, granularityUnit: 'minute', agg: { spread: ['avg', ['-', 'askPrice', 'bidPrice']], bid: ['last', 'bidPrice'] } }],
    ['by exchange time', { table: 'Trade', timeCol: 'exchTime', startTS: `${d0}D14:00`, endTS: `${d0}D20:00`, granularityUnit: 'hour', agg: { v: ['sum', 'volume'] } }],
    ['sorted and rounded, in New York time', { table: 'Trade', startTS: d0, endTS: after, inputTZ: 'America/New_York', outputTZ: 'America/New_York', granularityUnit: 'day', sortCols: ['desc', 'v'], decPlaces: 2, agg: { v: ['sum', 'volume'], px: ['avg', 'price'] } }],
    ['a filter rule and idMapping', { table: 'Trade', startTS: d0, endTS: after, idList: [ric], idMapping: '1b', filterRule: 'regularTrades', analytics: ['vwap'] }],
    ['order book snapshots: totals per quarter hour', { table: 'OrderbookSnapshots', startTS: d1, endTS: d2, granularity: 15, granularityUnit: 'minute', agg: { bid: ['avg', 'totalBidSize'], ask: ['max', 'totalAskSize'] } }],
    ['orders by strategy and side', { table: 'Order', startTS: d0, endTS: after, groupBy: ['algoStrategy', 'side'], agg: { q: ['sum', 'lastQty'], px: ['wavg', 'lastQty', 'lastPx'] } }],
    ['order analytics by trade date (a date column) and completion (a boolean one)', { table: 'OrderAnalytics', startTS: d0, endTS: after, groupBy: ['tradeDate', 'orderCompletion'], agg: { n: ['count', 'i'], s: ['avg', 'executionShortfall'] } }],
    ['nothing in the window', { table: 'Trade', startTS: '2001.01.01', endTS: '2001.01.02', groupBy: [], agg: { n: ['count', 'i'] } }],
  ]);
});

describe('getOrderAnalyticSummary answers alike', () => {
  battery('getOrderAnalyticSummary', [
    ['the default summary per instrument', { table: 'OrderAnalytics', startTS: d0, endTS: after }],
    ['by strategy, chosen functions (one outside the defaults)', { table: 'OrderAnalytics', startTS: d0, endTS: after, groupBy: ['algoStrategy'], summaryFunctions: ['orderCount', 'fillRate', 'executionShortfallVW', 'partRate'] }],
    ['one row, filtered, more aggregations', { table: 'OrderAnalytics', startTS: d0, endTS: d2, groupBy: [], filter: [['=', 'side', orderSide]], agg: { hi: ['max', 'limitPrice'], n: ['count', 'i'] } }],
    ['by trade date and instrument, racked over trading days and filled', { table: 'OrderAnalytics', startTS: d0, endTS: after, groupBy: ['tradeDate', 'instrumentID'], fill: 'forward' }],
    ['by trade date and exchange, filled with zeros', { table: 'OrderAnalytics', startTS: d0, endTS: after, groupBy: ['tradeDate', 'exchangeID'], fill: 'zero', summaryFunctions: ['orderCount', 'sharesExecuted'] }],
    ['several group columns, sorted', { table: 'OrderAnalytics', startTS: d0, endTS: after, groupBy: ['executingBrokerCode', 'side'], sortCols: ['desc', 'orderCount'] }],
    ['slices in New York time', { table: 'OrderAnalytics', startTS: d0, endTS: after, temporality: 'slice', slice: ['09:30', '12:00'], inputTZ: 'America/New_York', outputTZ: 'America/New_York' }],
  ]);
});

describe('generateOrderAnalytics on the kdb+ database', () => {
  it('is refused: the database is read in place, never written', () => {
    let err: unknown;
    try {
      kdbEngine.call('generateOrderAnalytics', { table: 'Order', dt: d0 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TickscopeError);
    expect((err as TickscopeError).message).toBe(`generateOrderAnalytics: ${readOnlyError(kdb)}`);
    expect((err as TickscopeError).message).toContain('hdb is a kdb+ database, read in place and never written');
    // and the database is as it was
    expect(kdb.partitionKeys('OrderAnalytics')).toEqual(keys);
  });
});
