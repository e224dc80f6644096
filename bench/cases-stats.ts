/**
 * getStats cases of npm run bench (issue 4), each with the DuckDB query returning the same rows in
 * the same order. DuckDB numbers buckets from the window start; Tickscope labels them with a
 * timestamp (a bucket's start; a moving window's end, docs/operations/getStats.md), so the check maps
 * DuckDB's bucket numbers to those timestamps. First and last price follow stored order (`seq`,
 * data.ts) so that trades sharing a timestamp resolve as in Tickscope.
 */
import { type CaseContext, type CaseQuery, kdbDate, nextDate, nsAt } from './case-query.js';
import type { WarmCaseId } from './cases.js';
import type { Cell } from './cells.js';

type StatsCaseId = Extract<WarmCaseId, `stats-${string}`>;

/** Bucket number -> the timestamp Tickscope labels it with: base + (n + shift) * unit. */
const bucketTime =
  (base: bigint, unitNs: bigint, shift: bigint) =>
  (c: Cell): Cell =>
    c === null ? null : base + (BigInt(c as bigint | number) + shift) * unitNs;

const MINUTE = 60_000_000_000n;
const SECOND = 1_000_000_000n;

export function statsQueries(ctx: CaseContext): Record<StatsCaseId, CaseQuery> {
  const first = ctx.dates[0]!;
  const last = ctx.dates[ctx.dates.length - 1]!;
  const startNs = nsAt(`${first}T00:00:00`);
  const hourNs = nsAt(`${first}T15:00:00`);
  const ns = `epoch_ns(eventTimestamp)`;
  const ten = ctx.ids.slice(0, 10);
  const inList = ten.map((i) => `'${i}'`).join(',');
  const hour = { start: `${first} 15:00:00`, end: `${first} 16:00:00` };
  const op = '.fsi.getStats';
  return {
    'stats-1min-5agg-1d': {
      op,
      args: { table: 'Trade', startTS: kdbDate(first), endTS: kdbDate(nextDate(first)), granularityUnit: 'minute', analytics: ['firstPrice', 'maxPrice', 'minPrice', 'lastPrice', 'sumVolume'] },
      sql: `SELECT (${ns} - ${startNs}) // 60000000000 AS minute, instrumentID, arg_min(price, seq) AS firstPrice, max(price) AS maxPrice, min(price) AS minPrice, arg_max(price, seq) AS lastPrice, sum(volume) AS sumVolume
          FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${nextDate(first)}' GROUP BY ALL ORDER BY minute, instrumentID`,
      orderKeys: [0, 1],
      duckCell: { 0: bucketTime(startNs, MINUTE, 0n) },
    },
    'stats-vwap-alldays': {
      op,
      args: { table: 'Trade', startTS: kdbDate(first), endTS: kdbDate(nextDate(last)), analytics: ['vwap'] },
      sql: `SELECT instrumentID, sum(price * volume) / sum(volume) AS vwap FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${nextDate(last)}' GROUP BY instrumentID ORDER BY instrumentID`,
      orderKeys: [0],
    },
    'stats-mw30-1min-1d': {
      op,
      args: { table: 'Trade', startTS: kdbDate(first), endTS: kdbDate(nextDate(first)), granularityUnit: 'minute', movingWindowSize: '30', agg: { v: ['sum', 'volume'], px: ['avg', 'price'] } },
      sql: `WITH m AS (SELECT (${ns} - ${startNs}) // 60000000000 AS minute, instrumentID, sum(volume) AS v, sum(price) AS sp, count(price) AS cp
                         FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${nextDate(first)}' GROUP BY ALL),
               b AS (SELECT DISTINCT instrumentID, minute + k AS bucket FROM m, range(0, 30) r(k) WHERE minute + k < 1440)
          SELECT b.bucket, b.instrumentID, sum(m.v) AS v, sum(m.sp) / sum(m.cp) AS px FROM b JOIN m ON m.instrumentID = b.instrumentID AND m.minute BETWEEN b.bucket - 29 AND b.bucket
          GROUP BY ALL ORDER BY b.bucket, b.instrumentID`,
      orderKeys: [0, 1],
      // bucket b holds minutes b-29 .. b; Tickscope labels that window with its end, minute b + 1
      duckCell: { 0: bucketTime(startNs, MINUTE, 1n) },
    },
    'stats-racked-ffill-1s': {
      op,
      args: { table: 'Trade', idList: ten, startTS: `${kdbDate(first)}D15:00`, endTS: `${kdbDate(first)}D16:00`, granularityUnit: 'second', fill: 'forward', agg: { px: ['last', 'price'], v: ['sum', 'volume'] } },
      sql: `WITH s AS (SELECT (${ns} - ${hourNs}) // 1000000000 AS sec, instrumentID, arg_max(price, seq) AS px, sum(volume) AS v
                         FROM trade WHERE instrumentID IN (${inList}) AND eventTimestamp >= TIMESTAMP_NS '${hour.start}' AND eventTimestamp < TIMESTAMP_NS '${hour.end}' GROUP BY ALL),
               g AS (SELECT sec, instrumentID FROM range(0, 3600) r(sec), (SELECT unnest([${inList}]) AS instrumentID))
          SELECT g.sec, g.instrumentID, last_value(s.px IGNORE NULLS) OVER w AS px, coalesce(s.v, 0) AS v
          FROM g LEFT JOIN s USING (sec, instrumentID) WINDOW w AS (PARTITION BY g.instrumentID ORDER BY g.sec ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
          ORDER BY g.sec, g.instrumentID`,
      orderKeys: [0, 1],
      duckCell: { 0: bucketTime(hourNs, SECOND, 0n) },
    },
  };
}
