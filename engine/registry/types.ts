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
  /**
   * The value the argument takes when it is not given, in its REST form (decoding applies it, so the
   * operations read it like a given value); absent when there is none.
   */
  readonly default?: string | number | boolean;
  /** What not giving it means when no fixed value can say it (the table's identifier column, every column). */
  readonly otherwise?: string;
  readonly allowed?: readonly string[];
  /** One line: what the argument does. */
  readonly doc: string;
  readonly widget: Widget;
  /** A REST-encoded example value (used by the docs and the conformance test). */
  readonly example: unknown;
  /** An explicitly empty list is a value of its own (groupBy [] is one group), not "not given". */
  readonly emptyMeansNone?: true;
  /** An integer's range, both ends inclusive, and how its error says what is expected. */
  readonly range?: { readonly min?: number; readonly max?: number; readonly problem: string; readonly expected: string };
  /** It narrows the rows a window holds (an identifier list, a filter, a slice...): an empty result lists it among the reasons. */
  readonly narrows?: true;
  /** Arguments this one needs when it is given (not false), and why: the error and the form say it. */
  readonly requires?: {
    readonly args: readonly string[];
    readonly why: string;
    /** A value that satisfies each need in one click, with its label ("fill forward"). */
    readonly fixes?: Readonly<Record<string, { readonly value: string; readonly label: string }>>;
  };
  /** Arguments that cannot be given with this one (given explicitly, not by default), and why. */
  readonly excludes?: { readonly args: readonly string[]; readonly why: string };
}

/** Who may call an operation (an OAuth2 scope of the gateway; q handshakes map to the same). */
export type Scope = 'fsi.read' | 'fsi.generate';

/** The view that shows an operation's result in the app. */
export type ResultView = 'ticks' | 'stats' | 'summary' | 'generate';

/** How the q gateway sends an operation's result: the table, or the table in a one-item list (SPEC 7). */
export type QReply = 'table' | 'tableInList';

/** An operation's starting form in the app: its preferred table, its window as one day (startTS/endTS or dt), other values. */
export interface StartForm {
  readonly table: string;
  readonly window: 'startEnd' | 'day';
  readonly values?: Readonly<Record<string, string | boolean>>;
}

export type OperationName = 'getTicks' | 'getStats' | 'getOrderAnalyticSummary' | 'generateOrderAnalytics';

export interface OperationSpec {
  readonly name: OperationName;
  /** Names accepted over q IPC and by `tickscope call`, the namespaced one first. */
  readonly ipcNames: readonly string[];
  readonly restPaths: readonly string[];
  readonly doc: string;
  readonly args: readonly ArgSpec[];
  /** The scope a caller needs. */
  readonly scope: Scope;
  /** Whether it stores rows (it is never retried, never takes the small-query lane). */
  readonly writes: boolean;
  readonly qReply: QReply;
  readonly view: ResultView;
  readonly form: StartForm;
  /**
   * How a large call splits across the executor's idle workers (parallel/split.ts): into time ranges
   * whose rows follow one another, into identifiers whose groups are merged, or not at all.
   */
  readonly split: 'time' | 'identifiers' | null;
  /** What a remote gateway's result of it carries (service/remote.ts): its time column, its group columns. */
  readonly remoteResult: RemoteResultShape;
  /**
   * The arguments that cut its window into time buckets, if any: a bucket's unit, how many units, and
   * the moving window (in units). The cost estimate counts the buckets; the form explains them.
   */
  readonly buckets: BucketArgs | null;
}

/** The names of the arguments that shape time buckets. */
export interface BucketArgs {
  readonly unit: string;
  readonly size: string;
  readonly moving: string;
}

/** The columns a result's views lean on, read from the request and the table when a remote result does not say. */
export interface RemoteResultShape {
  /** The table's time column: always, never, or when an argument is given (buckets). */
  readonly timeColumn: 'always' | 'never' | { readonly whenGiven: string };
  /** The group columns: an argument's list (the table's identifier column when it is not given), or none. */
  readonly groupColumns: { readonly arg: string } | null;
}
