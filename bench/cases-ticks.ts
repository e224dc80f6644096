/**
 * getTicks cases of npm run bench, each with the DuckDB query returning the same rows in the same
 * order (eventTimestamp, then instrumentID; trades of one instrument at one timestamp in stored
 * order). DuckDB's `SELECT * EXCLUDE (seq)` leaves out the stored-order column (see data.ts).
 */
import { type CaseContext, type CaseQuery, kdbDate, nextDate } from './case-query.js';
import type { WarmCaseId } from './cases.js';

type TickCaseId = Extract<WarmCaseId, `ticks-${string}`>;

/** Result order: eventTimestamp (column 0), instrumentID (column 1). */
const BY_TIME_AND_ID = [0, 1];

export function tickQueries(ctx: CaseContext): Record<TickCaseId, CaseQuery> {
  const first = ctx.dates[0]!;
  const last = ctx.dates[ctx.dates.length - 1]!;
  const one = ctx.ids[0]!;
  const ten = ctx.ids.slice(0, 10);
  const inList = ten.map((i) => `'${i}'`).join(',');
  const op = '.fsi.getTicks';
  return {
    'ticks-1i-1h': {
      op,
      args: { table: 'Trade', idList: [one], startTS: `${kdbDate(first)}D15:00`, endTS: `${kdbDate(first)}D16:00` },
      sql: `SELECT * EXCLUDE (seq) FROM trade WHERE instrumentID = '${one}' AND eventTimestamp >= TIMESTAMP_NS '${first} 15:00:00' AND eventTimestamp < TIMESTAMP_NS '${first} 16:00:00' ORDER BY eventTimestamp, instrumentID`,
      orderKeys: BY_TIME_AND_ID,
    },
    'ticks-10i-1d-vol500': {
      op,
      args: { table: 'Trade', idList: ten, startTS: kdbDate(first), endTS: kdbDate(nextDate(first)), filter: [['>=', 'volume', '500']] },
      sql: `SELECT * EXCLUDE (seq) FROM trade WHERE instrumentID IN (${inList}) AND eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${nextDate(first)}' AND volume >= 500 ORDER BY eventTimestamp, instrumentID`,
      orderKeys: BY_TIME_AND_ID,
    },
    'ticks-slice-alldays': {
      op,
      args: { table: 'Trade', startTS: kdbDate(first), endTS: kdbDate(nextDate(last)), temporality: 'slice', slice: ['14:30', '15:00'] },
      sql: `SELECT * EXCLUDE (seq) FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${nextDate(last)}' AND CAST(eventTimestamp AS TIME) >= TIME '14:30:00' AND CAST(eventTimestamp AS TIME) < TIME '15:00:00' ORDER BY eventTimestamp, instrumentID`,
      orderKeys: BY_TIME_AND_ID,
    },
    // The fill runs in stored order (ORDER BY seq: time, then stored order for equal timestamps), so
    // a null after a same-timestamp trade takes that trade's value, as in Tickscope.
    'ticks-ffill-1d': {
      op,
      args: { table: 'Trade', startTS: kdbDate(first), endTS: kdbDate(nextDate(first)), fill: 'forward', columns: ['instrumentID', 'price', 'volume', 'conditions', 'exchTime'] },
      sql: `SELECT eventTimestamp, instrumentID, last_value(price IGNORE NULLS) OVER w AS price, last_value(volume IGNORE NULLS) OVER w AS volume, last_value(conditions IGNORE NULLS) OVER w AS conditions, last_value(exchTime IGNORE NULLS) OVER w AS exchTime FROM trade WHERE eventTimestamp >= TIMESTAMP_NS '${first}' AND eventTimestamp < TIMESTAMP_NS '${nextDate(first)}' WINDOW w AS (PARTITION BY instrumentID ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) ORDER BY eventTimestamp, instrumentID`,
      orderKeys: BY_TIME_AND_ID,
    },
  };
}
