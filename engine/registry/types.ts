/**
 * The shape of the operation registry. Pure data: the renderer receives it as JSON to build its
 * forms, the docs test reads it, the gateways route and decode with it.
 */

/** How an argument's value is decoded (native JSON, REST strings and q IPC values all accepted). */
export type ArgType =
  | 'symbol'
  | 'symbols'
  | 'timestamp'
  | 'date'
  | 'timespanPair'
  | 'integer'
  | 'boolean'
  | 'filter'
  | 'sortCols'
  | 'dict'
  | 'agg'
  | 'refFilter'
  | 'booleanOrSymbol';

/** Which form widget the app shows for the argument. */
export type Widget =
  | 'table'
  | 'timestamp'
  | 'date'
  | 'identifiers'
  | 'column'
  | 'columns'
  | 'filter'
  | 'enum'
  | 'slice'
  | 'sortCols'
  | 'checkbox'
  | 'number'
  | 'zone'
  | 'tables'
  | 'json'
  | 'analytics'
  | 'summaryFunctions'
  | 'holiday'
  | 'scope';

export interface ArgSpec {
  readonly name: string;
  readonly type: ArgType;
  readonly required: boolean;
  /** The default in q notation as INTERFACE writes it, or null when there is none. */
  readonly default: string | null;
  readonly allowed?: readonly string[];
  /** One line: what the argument does. */
  readonly doc: string;
  readonly widget: Widget;
  /** A REST-encoded example value (used by the docs and the conformance test). */
  readonly example: unknown;
  /** An explicitly empty list is a value of its own (groupBy [] is one group), not "not given". */
  readonly emptyMeansNone?: true;
}

export type OperationName = 'getTicks' | 'getStats' | 'getOrderAnalyticSummary' | 'generateOrderAnalytics';

export interface OperationSpec {
  readonly name: OperationName;
  /** Names accepted over q IPC and by `tickscope call`, the namespaced one first. */
  readonly ipcNames: readonly string[];
  readonly restPaths: readonly string[];
  readonly doc: string;
  readonly args: readonly ArgSpec[];
  /** Arguments implemented so far; giving any other answers a "not supported yet" error naming it. */
  readonly supported: readonly string[];
}
