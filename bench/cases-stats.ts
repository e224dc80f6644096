/**
 * getStats cases of npm run bench (issue 4), each with the DuckDB query returning the same rows.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Engine } from '../engine/engine.js';
import type { BenchCase } from './cases-ticks.js';

const rowsOf = async (duck: DuckDBConnection, sql: string): Promise<number> => (await duck.runAndReadAll(sql)).currentRowCount;

/** The getStats cases over the data's first date (and all dates for VWAP). */
export function statsCases(engine: Engine, duck: DuckDBConnection, ids: readonly string[], dates: readonly string[]): BenchCase[] {
  const first = dates[0]!;
  const last = dates[dates.length - 1]!;
  const kdb = (iso: string): string => iso.replace(/-/g, '.');
  const next = (iso: string): string => new Date(Date.parse(`${iso}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const startNs = BigInt(Date.parse(`${first}T00:00:00Z`)) * 1_000_000n;
  const ns = `epoch_ns(eventTimestamp)`;
  const call = (args: Record<string, unknown>) => (): number => engine.call('.fsi.getStats', { table: 'Trade', ...args }).table.length;
  const ten = ids.slice(0, 10);
  const hour = { start: `${first} 15:00:00`, end: `${first} 16:00:00` };
  const hourNs = BigInt(Date.parse(`${first}T15:00:00Z`)) * 1_000_000n;
  return [
    {
      name: '1-min buckets, 5 aggregates, all, 1 day',
      target: 1,
      ours: call({ startTS: kdb(first), endTS: kdb(next(first)), granularityUnit: 'minute', analytics: ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'] }),
      duck: () =>
        rowsOf(duck, `SELECT (${ns} - ${startNs}) // 60000000000 AS minute, instrumentID, arg_min(price, eventTimestamp) AS firstPrice, max(price), min(price), arg_max(price, eventTimestamp) AS lastPrice, sum(volume)
          FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${next(first)}' GROUP BY ALL ORDER BY minute, instrumentID`),
    },
    {
      name: `VWAP by instrument, ${dates.length} days`,
      target: 1,
      ours: call({ startTS: kdb(first), endTS: kdb(next(last)), analytics: ['vwap'] }),
      duck: () =>
        rowsOf(duck, `SELECT instrumentID, sum(price * volume) / sum(volume) AS vwap FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${next(last)}' GROUP BY instrumentID ORDER BY instrumentID`),
    },
    {
      name: '30-min moving window, 1-min buckets, 1 day',
      target: 1,
      ours: call({ startTS: kdb(first), endTS: kdb(next(first)), granularityUnit: 'minute', movingWindowSize: '30', agg: { v: ['sum', 'volume'], px: ['avg', 'price'] } }),
      duck: () =>
        rowsOf(duck, `WITH m AS (SELECT (${ns} - ${startNs}) // 60000000000 AS minute, instrumentID, sum(volume) AS v, sum(price) AS sp, count(price) AS cp
                         FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${next(first)}' GROUP BY ALL),
               b AS (SELECT DISTINCT instrumentID, minute + k AS bucket FROM m, range(0, 30) r(k) WHERE minute + k < 1440)
          SELECT b.bucket, b.instrumentID, sum(m.v), sum(m.sp) / sum(m.cp) FROM b JOIN m ON m.instrumentID = b.instrumentID AND m.minute BETWEEN b.bucket - 29 AND b.bucket
          GROUP BY ALL ORDER BY b.bucket, b.instrumentID`),
    },
    {
      name: 'racked forward fill, 1-s buckets, 10 ids, 1 h',
      target: 1,
      ours: call({ idList: ten, startTS: `${kdb(first)}D15:00`, endTS: `${kdb(first)}D16:00`, granularityUnit: 'second', fill: 'forward', agg: { px: ['last', 'price'], v: ['sum', 'volume'] } }),
      duck: () =>
        rowsOf(duck, `WITH s AS (SELECT (${ns} - ${hourNs}) // 1000000000 AS sec, instrumentID, arg_max(price, eventTimestamp) AS px, sum(volume) AS v
                         FROM trade WHERE instrumentID IN (${ten.map((i) => `'${i}'`).join(',')}) AND eventTimestamp >= TIMESTAMP_NS '${hour.start}' AND eventTimestamp < TIMESTAMP_NS '${hour.end}' GROUP BY ALL),
               g AS (SELECT sec, instrumentID FROM range(0, 3600) r(sec), (SELECT unnest([${ten.map((i) => `'${i}'`).join(',')}]) AS instrumentID))
          SELECT g.sec, g.instrumentID, last_value(s.px IGNORE NULLS) OVER w AS px, coalesce(s.v, 0) AS v
          FROM g LEFT JOIN s USING (sec, instrumentID) WINDOW w AS (PARTITION BY g.instrumentID ORDER BY g.sec ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
          ORDER BY g.sec, g.instrumentID`),
    },
  ];
}
