/**
 * Words for the result area's states: which request a result or an error belongs to ("getTicks Trade
 * 2024-03-06 · AAPL"), what an empty result asked for (its window in the zones it used, the filters
 * and identifiers that left no rows), and why an identifier chip is red.
 */
import { ARG, type OperationSpec } from '../../../engine/contract';
import { windowDates } from '../form/export-name';

export interface RequestLike {
  readonly operation: string;
  readonly args: Readonly<Record<string, unknown>>;
}

interface WindowHeader {
  readonly startTS?: string;
  readonly endTS?: string;
}

/** The arguments of an operation that narrow the rows a window holds (its declaration's `narrows`): an empty result lists the ones its request gave. */
export function narrowingOf(spec: Pick<OperationSpec, 'args'> | undefined): readonly string[] {
  return spec?.args.filter((a) => a.narrows).map((a) => a.name) ?? [];
}
/** Identifiers shown in a label before "+n". */
const LABEL_IDS = 3;

const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));
const zoneOf = (v: unknown): string => (typeof v === 'string' && v.trim() ? v.trim() : 'UTC');

/** A value as one short line: strings as they are, lists of strings joined, the rest as JSON, cut at `max` characters. */
export function shortValue(v: unknown, max = 120): string {
  const s = Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.join(', ') : typeof v === 'boolean' ? (v ? '1b' : '0b') : text(v);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The dates a request's window names as typed (YYYY-MM-DD; dt or the date parts of startTS and endTS). */
function typedDates(args: Readonly<Record<string, unknown>>): string[] {
  const day = (v: unknown): string | null => {
    const m = /^\s*(\d{4})[.-](\d{2})[.-](\d{2})/.exec(text(v));
    return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
  };
  const dates = [day(args[ARG.dt.name]) ?? day(args[ARG.startTS.name]), day(args[ARG.endTS.name])].filter((d): d is string => d !== null);
  return [...new Set(dates)];
}

/**
 * A request in a few words: operation, table, the window's dates and the first identifiers
 * ("getTicks Trade 2024-03-06 · AAPL, MSFT"). The dates come from the response header when there is one
 * (the window as the engine read it), else as typed.
 */
export function requestLabel(req: RequestLike, header?: WindowHeader): string {
  const op = req.operation.split('.').pop() ?? req.operation;
  const parts = [op];
  const table = text(req.args[ARG.table.name]);
  if (table) parts.push(table);
  const dates = header?.startTS ? windowDates(req, header) : typedDates(req.args);
  if (dates.length) parts.push(dates.join(' → '));
  let label = parts.join(' ');
  const ids = req.args[ARG.idList.name];
  if (Array.isArray(ids) && ids.length > 0) {
    const shown = ids.slice(0, LABEL_IDS).map(text).join(', ');
    label += ` · ${shown}${ids.length > LABEL_IDS ? ` +${ids.length - LABEL_IDS}` : ''}`;
  }
  return label;
}

export interface EmptyDescription {
  /** The window as the request gave it, with its zone ("2024.03.06D03:00 → 2024.03.06D03:01 UTC"), or null. */
  readonly window: string | null;
  /** The window as the engine read it (the header's, in outputTZ), when that says more than `window`. */
  readonly read: string | null;
  /** The arguments that narrowed the window's rows, as name and short value. */
  readonly filters: ReadonlyArray<readonly [string, string]>;
  /** Likely reasons: the table's dates, identifiers it does not hold. */
  readonly hints: readonly string[];
  /** What to do next, in a sentence. */
  readonly next: string;
  /** The rows are made by generateOrderAnalytics (OrderAnalytics, SPEC 3.1) and the orders of the window are stored: the fix is to run it, for this date. */
  readonly generate: { readonly dt: string | null } | null;
}

/** The table generateOrderAnalytics writes (SPEC 3.1): its rows exist only once that operation has run. */
export const GENERATED_TABLE = 'OrderAnalytics';
/** The table it reads the orders from. */
export const ORDERS_TABLE = 'Order';

/** What the table list knows of the queried table. */
export interface TableDates {
  readonly name: string;
  readonly firstDate: string | null;
  readonly lastDate: string | null;
}

/** The description of an empty result: the window and filters that produced it, and likely reasons. */
export function describeEmpty(req: RequestLike, header: WindowHeader, table: TableDates | undefined, knownIds: readonly string[], narrowing: readonly string[], orders?: TableDates): EmptyDescription {
  const a = req.args;
  const inputTZ = zoneOf(a[ARG.inputTZ.name]);
  const outputTZ = zoneOf(a[ARG.outputTZ.name]);
  const start = text(a[ARG.startTS.name]).trim();
  const end = text(a[ARG.endTS.name]).trim();
  const dt = text(a[ARG.dt.name]).trim();
  const window = dt ? `dt ${dt} (${inputTZ})` : start || end ? `${start || '-0Wp'} → ${end || '0Wp'} ${inputTZ}` : null;
  const headerWindow = header.startTS ? `${header.startTS} → ${header.endTS ?? ''} ${outputTZ}` : null;
  const read = headerWindow && (window === null || inputTZ !== outputTZ || !start || !end) ? headerWindow : null;
  const filters = narrowing.filter((n) => a[n] !== undefined && a[n] !== '' && a[n] !== false).map((n) => [n, shortValue(a[n])] as const);

  const hints: string[] = [];
  const dates = header.startTS ? windowDates(req, header) : typedDates(a);
  if (table?.firstDate && table.lastDate && dates.length > 0) {
    const first = dates[0]!;
    const last = dates[dates.length - 1]!;
    if (last < table.firstDate || first > table.lastDate) hints.push(`${table.name} holds ${table.firstDate === table.lastDate ? table.firstDate : `${table.firstDate} → ${table.lastDate}`} only (UTC dates)`);
  } else if (table && !table.firstDate) {
    hints.push(`${table.name} holds no rows`);
  }
  const ids = a[ARG.idList.name];
  if (Array.isArray(ids) && knownIds.length > 0 && a[ARG.idMapping.name] !== true) {
    const known = new Set(knownIds);
    const missing = ids.map(text).filter((i) => !known.has(i));
    if (missing.length > 0) hints.push(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in ${table?.name ?? 'the table'} on any date`);
  }
  // An empty OrderAnalytics window is generateOrderAnalytics' to fill when nothing but the window chose
  // the rows (a filter may be what emptied them; the assembly is not a filter) and the table holds no
  // date of the window while the orders do (when it holds one, the rows are not in this part of it,
  // and the window is what to change).
  const holds = (t: TableDates | undefined): t is TableDates & { firstDate: string; lastDate: string } =>
    !!t?.firstDate && !!t.lastDate && dates.some((d) => d >= t.firstDate! && d <= t.lastDate!);
  const unfiltered = filters.every(([n]) => n === ARG.scope.name);
  if (table?.name === GENERATED_TABLE && holds(orders) && unfiltered && !holds(table)) {
    // the window is right (the orders are there): the rows are made by generateOrderAnalytics, from them
    const dt = dates.find((d) => d >= orders.firstDate && d <= orders.lastDate) ?? null;
    return {
      window,
      read,
      filters,
      hints,
      next: `${GENERATED_TABLE} rows are written by generateOrderAnalytics from the orders: run it for ${dt ?? 'these dates'}, then run this again.`,
      generate: { dt },
    };
  }
  return { window, read, filters, hints, next: 'Widen the window or loosen the filters in the form, then run again.', generate: null };
}

/**
 * Why an identifier chip is red: not among the identifiers the table holds on any of its dates
 * (the identifiers list covers every partition), with a near match when one differs only in case.
 */
export function idProblem(id: string, knownIds: readonly string[], table: TableDates | undefined): string | null {
  if (knownIds.length === 0 || knownIds.includes(id)) return null;
  const dates = table?.firstDate && table.lastDate ? ` on any date (${table.firstDate === table.lastDate ? table.firstDate : `${table.firstDate} → ${table.lastDate}`})` : '';
  const near = knownIds.find((k) => k.toLowerCase() === id.toLowerCase());
  return `not in ${table?.name ?? 'the table'}${dates}${near ? `; did you mean ${near}?` : ''}`;
}
