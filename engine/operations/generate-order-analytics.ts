/**
 * generateOrderAnalytics: its whole declaration (names, REST paths, scope, arguments, how it splits, what a remote
 * result carries, its view and starting form) and its implementation. Order analytics generated and stored (INTERFACE 4.4, SPEC 6.1, 6.2).
 */
import { dt, endTS, filter, idList, instrumentBatchSz, regenExistingIDs, scope, startTS, table, withoutDefault } from '../registry/args.js';
import type { ArgSpec } from '../registry/types.js';
import { generateOrderAnalytics } from '../orders/generate.js';
import type { OperationOf } from './operation.js';

export const GENERATE_ARGS = [
  { ...table, example: 'Order', doc: 'The table of orders and their events to analyse (Order).' },
  dt,
  { ...withoutDefault(startTS), doc: 'Start (UTC) of the window of New order events (instead of dt).' },
  { ...withoutDefault(endTS), doc: 'Exclusive end (UTC) of the window of New order events (instead of dt).' },
  { ...idList, doc: 'Instruments whose orders to analyse (default all).' },
  { ...filter, example: [['=', 'side', 'Buy']], doc: 'Conditions on the orders\u2019 New events (Order columns), as in getTicks.' },
  scope, regenExistingIDs, instrumentBatchSz,
] as const satisfies readonly ArgSpec[];

export const generateOrderAnalyticsOperation: OperationOf<typeof GENERATE_ARGS> = {
  name: 'generateOrderAnalytics',
  ipcNames: ['.fsi.eqea.generateOrderAnalytics', 'generateOrderAnalytics'],
  restPaths: ['/servicegateway/fsi/eqea/generateOrderAnalytics'],
  doc: 'Builds OrderAnalytics rows (transaction cost analysis) from the Order table and stores them.',
  args: GENERATE_ARGS,
  scope: 'fsi.generate',
  writes: true,
  // SPEC 7: the q gateway answers generateOrderAnalytics with its table in a one-item list
  qReply: 'tableInList',
  view: 'generate',
  // one day of orders, replacing what an earlier run stored for them (no duplicates by default)
  form: { table: 'Order', window: 'day', values: { regenExistingIDs: true } },
  // it splits by instrument itself (orders/generate.ts), not through the split planner
  split: null,
  remoteResult: { timeColumn: 'never', groupColumns: null },
  buckets: null,
  run: generateOrderAnalytics,
};
