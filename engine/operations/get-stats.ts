/**
 * getStats: its whole declaration (names, REST paths, scope, arguments, how it splits, what a remote
 * result carries, its view and starting form) and its implementation. Aggregates (INTERFACE 4.2, SPEC 5).
 */
import { agg, analytics, omitArgs, applyHolidayCalendar, granularity, granularityUnit, groupBy, movingWindowSize } from '../registry/args.js';
import type { ArgSpec } from '../registry/types.js';
import { getStats } from '../ops/get-stats.js';
import { GETTICKS_ARGS } from './get-ticks.js';
import type { OperationOf } from './operation.js';

export const GETSTATS_ARGS = [
  ...omitArgs(GETTICKS_ARGS, 'applyCanCor', 'columns').map((a) =>
  a.name === 'fill'
    ? {
        ...a,
        doc: 'Rack the result (every bucket of every group, idList identifiers included) and fill its nulls per group in bucket order: null, zero, forward, linear (on bucket time) or linearStep (on position).',
      }
    : a,
  ),
  analytics, agg, groupBy, granularity, granularityUnit, movingWindowSize, applyHolidayCalendar,
] as const satisfies readonly ArgSpec[];

export const getStatsOperation: OperationOf<typeof GETSTATS_ARGS> = {
  name: 'getStats',
  ipcNames: ['.fsi.getStats', 'getStats'],
  restPaths: ['/servicegateway/fsi/getStats'],
  doc: 'Aggregates of a table over a window: analytics, parse trees, groups, time buckets, moving windows.',
  args: GETSTATS_ARGS,
  scope: 'fsi.read',
  writes: false,
  qReply: 'table',
  view: 'stats',
  form: { table: 'Trade', window: 'startEnd' },
  split: 'identifiers',
  remoteResult: { timeColumn: { whenGiven: 'granularityUnit' }, groupColumns: { arg: 'groupBy' } },
  buckets: { unit: 'granularityUnit', size: 'granularity', moving: 'movingWindowSize' },
  run: getStats,
};
