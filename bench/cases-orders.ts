/**
 * Order analytics cases of npm run bench (SPEC 6; docs/operations/generateOrderAnalytics.md and
 * getOrderAnalyticSummary.md say what each column and summary function is), each with DuckDB's
 * counterpart in SQL over the same rows (data.ts: order_event, quote, trade, instrument,
 * orderanalytics).
 *
 * orders-generate-1d: generateOrderAnalytics for the first date, regenExistingIDs true, on the
 * per-run scratch copies. DuckDB computes the same rows in one query (ASOF joins for the prevailing
 * quotes, range joins for the interval's trades and quotes), then writes them as Tickscope does: in
 * its file-backed copy, one transaction deletes the stored rows of the same orderIDs and inserts the
 * new ones, then CHECKPOINT; last, the rows are read into JS.
 *
 * orders-summary-*: getOrderAnalyticSummary, the twelve default summary functions over every date,
 * per instrumentID and per algoStrategy, over the stored OrderAnalytics rows; DuckDB the same twelve in
 * SQL over its copy of those rows.
 */
import { isDeepStrictEqual } from 'node:util';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Engine } from '../engine/engine.js';
import { type CaseContext, type CaseQuery, kdbDate, nextDate } from './case-query.js';
import type { WarmCaseId } from './cases.js';
import { type DuckColumns, duckQuery } from './duck-read.js';

type OrderCaseId = Extract<WarmCaseId, `orders-${string}`>;

/** A float of SQL, or NULL where it is not finite (Tickscope's analytics make such values null). */
const fin = (x: string): string => `CASE WHEN isfinite(${x}) THEN ${x} END`;
/** (bid + ask) / 2, as analytics.ts computes it. */
const mid = (bid: string, ask: string): string => fin(`(${bid} + ${ask}) / 2`);
/** sign·(x − ref)/ref·1e4 with the operations in analytics.ts's order, so equal inputs give equal bits. */
const bps = (x: string, ref: string): string => fin(`(sgn * (${x} - ${ref}) * 1e4) / ${ref}`);
/** A quote's spread in bps, (ask − bid) / mid · 1e4 (market-view.ts). */
const spreadBps = (bid: string, ask: string): string => fin(`((${ask} - ${bid}) / ((${ask} + ${bid}) / 2)) * 1e4`);
const plus = (ts: string, seconds: number): string => `make_timestamp_ns(epoch_ns(${ts}) + ${seconds}000000000)`;

/**
 * The OrderAnalytics rows of the orders whose New event lies in [start, end), in the schema's column
 * order, ordered by strikeTime, instrumentID, orderID (docs/operations/generateOrderAnalytics.md,
 * "What is computed"):
 * - ev: every Order event from the window's start on (an order's fills may come after its end);
 *   o: each order's first New event (storage order for equal times), kept when it lies in the window;
 *   f: fills (count, sum of lastQty, sum of lastQty·lastPx; a fill of known size and unknown price makes
 *   the value unknown) and the completion time (the last Done/Cancel, else the last Fill);
 * - pq: the prevailing quote (latest at or before; no day limit) at strikeTime, orderCompletedTime and
 *   300 s / 1800 s after it: one ASOF join over the four instants of each order, pivoted back. Quotes
 *   later than the last instant cannot prevail, so the join reads only quotes up to it;
 * - it: the interval's trades, strikeTime <= t <= orderCompletedTime, as a range join (equality on
 *   instrumentID, two inequalities on time); volume of every trade, VWAP over trades with a price.
 *   Every interval lies between the window's start and the last completion, so the join reads only
 *   the trades in that span (as Tickscope reads only the span its orders need);
 * - iq: the interval's quotes, likewise, with their spread in bps; the quote prevailing at strikeTime
 *   joins the mean when it lies before strikeTime (one at strikeTime is already in the interval);
 * - every value whose inputs are missing is NULL, as are non-finite results.
 */
export function generateSql(start: string, end: string): string {
  const span = `eventTimestamp >= TIMESTAMP_NS '${start}' AND eventTimestamp <= (SELECT max(endTime) FROM b)`;
  return `WITH
ev AS (SELECT * FROM order_event WHERE eventTimestamp >= TIMESTAMP_NS '${start}'),
o AS (
  SELECT * FROM (
    SELECT * FROM ev WHERE eventType = 'New' AND orderID IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY orderID ORDER BY eventTimestamp, seq) = 1
  ) WHERE eventTimestamp < TIMESTAMP_NS '${end}'
),
f AS (
  SELECT orderID,
    count(*) FILTER (WHERE eventType = 'Fill') AS numFills,
    coalesce(sum(lastQty) FILTER (WHERE eventType = 'Fill'), 0) AS qty,
    coalesce(sum(lastQty * lastPx) FILTER (WHERE eventType = 'Fill'), 0) AS value,
    count(*) FILTER (WHERE eventType = 'Fill' AND lastQty IS NOT NULL AND lastPx IS NULL) AS unpriced,
    coalesce(max(eventTimestamp) FILTER (WHERE eventType IN ('Done', 'Cancel')), max(eventTimestamp) FILTER (WHERE eventType = 'Fill')) AS endTime
  FROM ev WHERE orderID IN (SELECT orderID FROM o) GROUP BY orderID
),
b AS (
  SELECT o.eventTimestamp AS strikeTime, o.instrumentID, orderID, o.algoStrategy, o.exchangeID, o.MIC, o.ISIN, o.tradingVenueCode,
    o.executingBrokerCode, o.orderQty, o.side, o.currency, o.limitPrice, f.endTime, f.numFills, f.qty::BIGINT AS executedQty,
    CASE WHEN f.unpriced = 0 THEN f.value END AS executedValue,
    CASE o.side WHEN 'Buy' THEN 1::DOUBLE WHEN 'Sell' THEN -1::DOUBLE END AS sgn
  FROM o JOIN f USING (orderID)
),
lk AS (
  SELECT orderID, instrumentID, 0 AS k, strikeTime AS t FROM b
  UNION ALL SELECT orderID, instrumentID, 1, endTime FROM b WHERE endTime IS NOT NULL
  UNION ALL SELECT orderID, instrumentID, 2, ${plus('endTime', 300)} FROM b WHERE endTime IS NOT NULL
  UNION ALL SELECT orderID, instrumentID, 3, ${plus('endTime', 1800)} FROM b WHERE endTime IS NOT NULL
),
pq AS (
  SELECT lk.orderID,
    max(q.eventTimestamp) FILTER (WHERE lk.k = 0) AS arrTime,
    max(q.bidPrice) FILTER (WHERE lk.k = 0) AS arrBid, max(q.askPrice) FILTER (WHERE lk.k = 0) AS arrAsk,
    max(q.bidPrice) FILTER (WHERE lk.k = 1) AS endBid, max(q.askPrice) FILTER (WHERE lk.k = 1) AS endAsk,
    max(q.bidPrice) FILTER (WHERE lk.k = 2) AS bid300, max(q.askPrice) FILTER (WHERE lk.k = 2) AS ask300,
    max(q.bidPrice) FILTER (WHERE lk.k = 3) AS bid1800, max(q.askPrice) FILTER (WHERE lk.k = 3) AS ask1800
  FROM lk ASOF JOIN (SELECT instrumentID, eventTimestamp, bidPrice, askPrice FROM quote WHERE eventTimestamp <= (SELECT max(t) FROM lk)) q
    ON q.instrumentID = lk.instrumentID AND q.eventTimestamp <= lk.t
  GROUP BY lk.orderID
),
it AS (
  SELECT b.orderID, sum(t.volume) AS vol, sum(t.volume) FILTER (WHERE t.price IS NOT NULL) AS pricedVol, sum(t.price * t.volume) AS val
  FROM b JOIN (SELECT * FROM trade WHERE ${span}) t ON t.instrumentID = b.instrumentID AND t.eventTimestamp >= b.strikeTime AND t.eventTimestamp <= b.endTime
  GROUP BY b.orderID
),
iq AS (
  SELECT b.orderID, sum(q.bps) AS s, count(q.bps) AS n
  FROM b JOIN (SELECT instrumentID, eventTimestamp, ${spreadBps('bidPrice', 'askPrice')} AS bps FROM quote WHERE ${span}) q
    ON q.instrumentID = b.instrumentID AND q.eventTimestamp >= b.strikeTime AND q.eventTimestamp <= b.endTime
  GROUP BY b.orderID
),
m AS (
  SELECT b.*, pq.arrBid, pq.arrAsk, pq.endBid, pq.endAsk,
    ${mid('pq.arrBid', 'pq.arrAsk')} AS arrMid, ${mid('pq.endBid', 'pq.endAsk')} AS endMid,
    ${mid('pq.bid300', 'pq.ask300')} AS mid300, ${mid('pq.bid1800', 'pq.ask1800')} AS mid1800,
    CASE WHEN b.endTime IS NOT NULL THEN coalesce(it.vol, 0)::BIGINT END AS intervalVolume,
    CASE WHEN b.endTime IS NOT NULL AND it.pricedVol > 0 THEN it.val / it.pricedVol::DOUBLE END AS intervalVWAP,
    CASE WHEN pq.arrTime < b.strikeTime AND pq.arrTime <= b.endTime THEN ${spreadBps('pq.arrBid', 'pq.arrAsk')} END AS arrAdd,
    coalesce(iq.s, 0) AS s, coalesce(iq.n, 0) AS n,
    CASE WHEN b.executedQty > 0 THEN ${fin('b.executedValue / b.executedQty')} END AS avgExecPrice,
    i.exchangeID AS refExchangeID, i.MIC AS refMIC, i.ISIN AS refISIN
  FROM b LEFT JOIN pq USING (orderID) LEFT JOIN it USING (orderID) LEFT JOIN iq USING (orderID)
    LEFT JOIN instrument i ON i.instrumentID = b.instrumentID
)
SELECT strikeTime, instrumentID, orderID, algoStrategy,
  (epoch_ns(strikeTime) // 86400000000000)::INTEGER AS tradeDate,
  coalesce(exchangeID, refExchangeID) AS exchangeID, coalesce(MIC, refMIC) AS MIC, coalesce(ISIN, refISIN) AS ISIN,
  tradingVenueCode, executingBrokerCode, orderQty AS placementQty, side, currency, limitPrice,
  endTime AS orderCompletedTime, executedQty, numFills, avgExecPrice, executedValue,
  coalesce(executedQty >= orderQty, false) AS orderCompletion,
  (epoch_ns(endTime) - epoch_ns(strikeTime))::DOUBLE / 60000000000 AS durationMins,
  arrBid AS arrivalBidPrice, arrAsk AS arrivalAskPrice, arrMid AS arrivalMid, ${fin('((arrAsk - arrBid) / arrMid) * 1e4')} AS arrivalSpreadBPS,
  endBid AS endBidPrice, endAsk AS endAskPrice, endMid,
  intervalVWAP, intervalVolume,
  CASE WHEN endTime IS NOT NULL AND n + (arrAdd IS NOT NULL)::INTEGER > 0 THEN (s + coalesce(arrAdd, 0)) / (n + (arrAdd IS NOT NULL)::INTEGER) END AS intervalSpreadBPS,
  CASE WHEN intervalVolume > 0 THEN ${fin('executedQty::DOUBLE / intervalVolume')} END AS participationRate,
  ${bps('avgExecPrice', 'arrMid')} AS executionShortfall,
  ${bps('avgExecPrice', 'intervalVWAP')} AS vwapSlippage,
  ${bps('endMid', 'arrMid')} AS strikeToEndReturn,
  ${bps('mid300', 'arrMid')} AS reversionReturn_300,
  ${bps('mid1800', 'arrMid')} AS reversionReturn_1800
FROM m
ORDER BY strikeTime, instrumentID, orderID`;
}

/**
 * DuckDB's whole generate operation, timed as Tickscope's engine.call: the rows computed into a
 * temporary table, the stored rows of the same orderIDs deleted and the new ones inserted in one
 * transaction, a CHECKPOINT (the rows in the database file, as Tickscope's commit leaves them in its
 * partition files), then the new rows read into JS.
 */
function duckGenerate(sql: string): (conn: DuckDBConnection) => Promise<DuckColumns> {
  return async (conn) => {
    await conn.run('BEGIN TRANSACTION');
    try {
      await conn.run(`CREATE OR REPLACE TEMP TABLE oa_new AS ${sql}`);
      await conn.run('DELETE FROM orderanalytics WHERE orderID IN (SELECT orderID FROM oa_new)');
      await conn.run('INSERT INTO orderanalytics BY NAME SELECT * FROM oa_new');
      await conn.run('COMMIT');
    } catch (e) {
      await conn.run('ROLLBACK');
      throw e;
    }
    await conn.run('CHECKPOINT');
    const rows = await duckQuery(conn, 'SELECT * FROM oa_new ORDER BY strikeTime, instrumentID, orderID');
    await conn.run('DROP TABLE oa_new');
    return rows;
  };
}

/**
 * The default summary functions the SQL below implements (docs/operations/getOrderAnalyticSummary.md,
 * SPEC 6.2): names, order and parse trees. The summary cases check the database's configured defaults
 * against them first, so a changed definition fails the case instead of comparing different things.
 */
const filled = (x: unknown): unknown => ['?', ['>', 'executedQty', 0], x, '0n'];
const withVolume = (x: string): unknown => ['?', ['>', 'intervalVolume', 0], x, '0N'];
export const SUMMARY_DEFAULTS: ReadonlyArray<readonly [string, unknown, string]> = [
  ['orderCount', ['count', ['distinct', 'orderID']], 'count(DISTINCT orderID)'],
  ['sharesExecuted', ['sum', 'executedQty'], 'sum(executedQty)'],
  ['fillRate', ['%', ['sum', 'executedQty'], ['sum', 'placementQty']], 'sum(executedQty) / sum(placementQty)'],
  ['orderCompletionRate', ['avg', 'orderCompletion'], 'avg(orderCompletion::INTEGER)'],
  ['durationMins', ['avg', 'durationMins'], 'avg(durationMins)'],
  [
    'partRate',
    ['%', ['sum', withVolume('executedQty')], ['sum', withVolume('intervalVolume')]],
    'sum(executedQty) FILTER (WHERE intervalVolume > 0) / sum(intervalVolume) FILTER (WHERE intervalVolume > 0)',
  ],
  ['executionShortfall', ['avg', filled('executionShortfall')], 'avg(executionShortfall) FILTER (WHERE executedQty > 0)'],
  [
    'executionShortfallStderr',
    ['%', ['sdev', filled('executionShortfall')], ['sqrt', ['count', filled('executionShortfall')]]],
    'stddev_samp(executionShortfall) FILTER (WHERE executedQty > 0) / sqrt(count(executionShortfall) FILTER (WHERE executedQty > 0))',
  ],
  [
    'spreadNormalizedExecutionShortfall',
    ['avg', ['?', ['>', 'intervalSpreadBPS', 0], ['%', 'executionShortfall', 'intervalSpreadBPS'], '0n']],
    'avg(executionShortfall / intervalSpreadBPS) FILTER (WHERE intervalSpreadBPS > 0)',
  ],
  ['startToEndReturn', ['avg', 'strikeToEndReturn'], 'avg(strikeToEndReturn)'],
  ['startToEnd5MinReturn', ['avg', 'reversionReturn_300'], 'avg(reversionReturn_300)'],
  ['startToEnd30MinReturn', ['avg', 'reversionReturn_1800'], 'avg(reversionReturn_1800)'],
];

async function checkSummaryDefaults(engine: Engine): Promise<void> {
  const config = engine.defaultDatabase.config;
  const names = SUMMARY_DEFAULTS.map(([n]) => n);
  if (!isDeepStrictEqual([...config.defaultSummaryFunctions], names)) {
    throw new Error(`the database's defaultSummaryFunctions are ${config.defaultSummaryFunctions.join(', ')}; the bench's SQL implements ${names.join(', ')}`);
  }
  for (const [name, tree] of SUMMARY_DEFAULTS) {
    const configured = config.summaryFunctions[name]?.tree;
    if (!isDeepStrictEqual(configured, tree)) {
      throw new Error(`summary function ${name} is configured as ${JSON.stringify(configured)}; the bench's SQL implements ${JSON.stringify(tree)}`);
    }
  }
}

/**
 * The prevailing quote of Tickscope is the last of equal-time quotes in storage order; an ASOF join
 * does not say which of them it takes. The data must have no such ties (the demo's have none).
 */
async function checkQuoteTies(_engine: Engine, duck: DuckDBConnection): Promise<void> {
  const r = await duckQuery(duck, 'SELECT count(*)::DOUBLE FROM (SELECT instrumentID, eventTimestamp FROM quote GROUP BY ALL HAVING count(*) > 1)');
  const ties = Number(r.columns[0]![0]);
  if (ties > 0) throw new Error(`quote holds ${ties} (instrumentID, eventTimestamp) pairs with several quotes: an ASOF join would not resolve them in storage order`);
}

/**
 * DuckDB rewrites an ASOF join as a nested loop when it expects at most asof_loop_join_threshold
 * (default 64) rows on the left; it misjudges the lookups (a CTE of a CTE) that small, and the loop
 * over every quote takes seconds (3.5 s instead of 0.15 s on the --quick data, 2.2 s instead of
 * 1.1 s at full scale). Its sort-merge ASOF join is the fair comparison, so the case turns the
 * rewrite off.
 */
const GENERATE_DUCK_SETUP = ['SET asof_loop_join_threshold = 0'];

/**
 * Summation order: Tickscope takes an interval's trade sums as differences of running sums over the
 * instrument's trades (market-view.ts), DuckDB sums the interval's trades directly, so intervalVWAP
 * differs in its last bits (relative 3e-13 at most on the bench data; executedValue likewise, summed
 * in another order). The bps of a difference of two close prices inherit that difference as an
 * absolute one: sign·(x − ref)/ref·1e4 moves by about 1e4·ε for a relative ε in x or ref, however small
 * the value itself (a slippage of 0.03 bps differs by 2e-9 bps: 6e-8 relative). Those columns are
 * therefore also equal within 1e4 × the relative 1e-9 allowed on the prices: 1e-5 bps.
 */
const GENERATE_TOLERANCES = {
  vwapSlippage: { absolute: 1e-5, why: 'bps of avgExecPrice − intervalVWAP: 1e4 × the relative 1e-9 allowed on intervalVWAP, whose trades Tickscope sums as differences of running sums and DuckDB directly' },
  executionShortfall: { absolute: 1e-5, why: 'bps of avgExecPrice − arrivalMid: 1e4 × the relative 1e-9 allowed on avgExecPrice, whose executedValue the two sum in another order' },
} as const;

export function orderQueries(ctx: CaseContext): Record<OrderCaseId, CaseQuery> {
  const first = ctx.dates[0]!;
  const last = ctx.dates[ctx.dates.length - 1]!;
  const gen = generateSql(first, nextDate(first));
  const summary = (group: string): string =>
    `SELECT ${group}, ${SUMMARY_DEFAULTS.map(([name, , sql]) => `${sql} AS ${name}`).join(', ')}
      FROM orderanalytics WHERE strikeTime >= TIMESTAMP_NS '${first}' AND strikeTime < TIMESTAMP_NS '${nextDate(last)}'
      GROUP BY ${group} ORDER BY ${group}`;
  const summaryArgs = (group: string) => ({ table: 'OrderAnalytics', startTS: kdbDate(first), endTS: kdbDate(nextDate(last)), groupBy: [group] });
  return {
    'orders-generate-1d': {
      op: '.fsi.eqea.generateOrderAnalytics',
      args: { table: 'Order', dt: kdbDate(first), regenExistingIDs: '1b' },
      sql: gen,
      // one row per order, ordered by strikeTime, instrumentID, orderID on both sides: rows line up by orderID
      orderKeys: [0, 1, 2],
      on: 'scratch',
      duckRun: duckGenerate(gen),
      precheck: checkQuoteTies,
      duckSetup: GENERATE_DUCK_SETUP,
      tolerances: GENERATE_TOLERANCES,
    },
    'orders-summary-instrument': {
      op: 'getOrderAnalyticSummary',
      args: summaryArgs('instrumentID'),
      sql: summary('instrumentID'),
      orderKeys: [0],
      precheck: checkSummaryDefaults,
    },
    'orders-summary-algo': {
      op: 'getOrderAnalyticSummary',
      args: summaryArgs('algoStrategy'),
      sql: summary('algoStrategy'),
      orderKeys: [0],
      precheck: checkSummaryDefaults,
    },
  };
}
