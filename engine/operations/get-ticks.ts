/**
 * getTicks: its whole declaration (names, REST paths, scope, arguments, how it splits, what a remote
 * result carries, its view and starting form) and its implementation. Raw ticks (INTERFACE 4.1, SPEC 4).
 */
import { applyCanCor, columns, decPlaces, endTS, fill, filter, filterRule, idCol, idList, idMapping, inputTZ, orderbook, outputTZ, ref, refFilter, scope, slice, sortCols, startTS, table, temporality, timeCol } from '../registry/args.js';
import type { ArgSpec } from '../registry/types.js';
import { getTicks } from '../ops/get-ticks.js';
import type { OperationOf } from './operation.js';

export const GETTICKS_ARGS = [
  table, startTS, endTS, columns, idList, idCol, filter, fill, temporality, slice, sortCols, applyCanCor, inputTZ,
  outputTZ, idMapping, filterRule, timeCol, orderbook, decPlaces, ref, refFilter, scope,
] as const satisfies readonly ArgSpec[];

export const getTicksOperation: OperationOf<typeof GETTICKS_ARGS> = {
  name: 'getTicks',
  ipcNames: ['.fsi.getTicks', 'getTicks'],
  restPaths: ['/servicegateway/fsi/getTicks'],
  doc: 'Raw ticks of a table for a time window, filtered, sorted and shaped.',
  args: GETTICKS_ARGS,
  scope: 'fsi.read',
  writes: false,
  qReply: 'table',
  view: 'ticks',
  form: { table: 'Trade', window: 'startEnd' },
  split: 'time',
  remoteResult: { timeColumn: 'always', groupColumns: null },
  buckets: null,
  run: getTicks,
};
