/**
 * getOrderAnalyticSummary: its whole declaration (names, REST paths, scope, arguments, how it splits, what a remote
 * result carries, its view and starting form) and its implementation. The order-analytics summary (INTERFACE 4.3, SPEC 6.3).
 */
import { agg, endTS, fill, filter, groupBy, inputTZ, outputTZ, scope, slice, sortCols, startTS, summaryFunctions, table, temporality } from '../registry/args.js';
import type { ArgSpec } from '../registry/types.js';
import { getOrderAnalyticSummary } from '../orders/summary.js';
import type { OperationOf } from './operation.js';

export const SUMMARY_ARGS = [
  { ...table, example: 'OrderAnalytics', doc: 'The order analytics table to summarise (OrderAnalytics).' },
  { ...startTS, doc: 'Inclusive start of the window on strikeTime.' },
  { ...endTS, doc: 'Exclusive end of the window on strikeTime.' },
  { ...filter, example: [['=', 'side', 'Buy']] },
  {
  ...fill,
  doc: 'With tradeDate in groupBy: rack every trading date of the window for every combination of the other groups, then fill (null, zero, forward, linear, linearStep); otherwise zero replaces null results with 0.',
  },
  temporality, slice, sortCols,
  { ...agg, doc: 'More aggregations over OrderAnalytics columns, after the summary columns: {"name": tree}, [tree, ...] or [[name, op, column], ...].' },
  { ...groupBy, example: ['algoStrategy'], doc: 'Columns to group by (default instrumentID; several allowed; [] for one row).' },
  summaryFunctions, scope, inputTZ, outputTZ,
] as const satisfies readonly ArgSpec[];

export const getOrderAnalyticSummaryOperation: OperationOf<typeof SUMMARY_ARGS> = {
  name: 'getOrderAnalyticSummary',
  ipcNames: ['getOrderAnalyticSummary', '.fsi.getOrderAnalyticSummary', '.fsi.eqea.getOrderAnalyticSummary'],
  restPaths: ['/servicegateway/fsi/getOrderAnalyticSummary', '/servicegateway/fsi/eqea/getOrderAnalyticSummary'],
  doc: 'Summary functions over OrderAnalytics rows, per group.',
  args: SUMMARY_ARGS,
  scope: 'fsi.read',
  writes: false,
  qReply: 'table',
  view: 'summary',
  form: { table: 'OrderAnalytics', window: 'startEnd' },
  split: null,
  remoteResult: { timeColumn: 'never', groupColumns: null },
  buckets: null,
  run: getOrderAnalyticSummary,
};
