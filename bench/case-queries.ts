/** Every warm case's queries, gathered from the case files (each keyed by the ids of cases.ts). */
import type { CaseContext, CaseQuery } from './case-query.js';
import type { WarmCaseId } from './cases.js';
import { orderQueries } from './cases-orders.js';
import { statsQueries } from './cases-stats.js';
import { tickQueries } from './cases-ticks.js';

/** Every warm case's queries for this data. */
export function caseQueries(ctx: CaseContext): Record<WarmCaseId, CaseQuery> {
  return { ...tickQueries(ctx), ...statsQueries(ctx), ...orderQueries(ctx) };
}
