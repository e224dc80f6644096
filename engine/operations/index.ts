/**
 * The operations of INTERFACE 4, each declared whole in its own module and registered here through
 * the registry's guarded register(). Everything that serves or shows an operation reads it from here:
 * the engine's dispatch, the gateways' routes and scopes, the q replies, the split planner, the remote
 * client, the docs and (as data, through getMeta) the app's forms and views.
 */
import { Registry } from '../registry/register.js';
import type { OperationSpec } from '../registry/types.js';
import { generateOrderAnalyticsOperation } from './generate-order-analytics.js';
import { getOrderAnalyticSummaryOperation } from './get-order-analytic-summary.js';
import { getStatsOperation } from './get-stats.js';
import { getTicksOperation } from './get-ticks.js';
import { type Operation, specOf } from './operation.js';

const registry = new Registry<Operation>();
for (const op of [getTicksOperation, getStatsOperation, getOrderAnalyticSummaryOperation, generateOrderAnalyticsOperation]) registry.register(op);

/** The registry of the four operations (an Engine dispatches through it unless given another). */
export const OPERATION_REGISTRY: Registry<Operation> = registry;

/** The four operations, as data (no implementation): what getMeta and the app receive. */
export const OPERATIONS: readonly OperationSpec[] = registry.all.map(specOf);

/** The operation a name refers to (any accepted IPC name, or the plain name); unknown is an error. */
export function operationByName(name: string): Operation {
  return registry.byName(name);
}

/** The operation served at a REST path, or undefined. */
export function operationByRestPath(path: string): Operation | undefined {
  return registry.byRestPath(path);
}
