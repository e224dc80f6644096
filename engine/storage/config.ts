/**
 * config.json: the configurable parts of a database (SPEC 3.2). Each item is validated at load; an
 * error names the item and what was expected.
 */
import { TickscopeError } from '../core/errors.js';
import { formatTimespan, parseTimespan } from '../core/time.js';
import type { ParseTree } from '../registry/agg-operators.js';
import { type RolesConfig, rolesFromJson } from './roles.js';

export interface FilterRule {
  readonly column: string;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

/** How the app formats a summary function's values (SPEC 3.2). */
export const SUMMARY_KINDS = ['bps', 'pct', 'shares', 'count', 'minutes', 'price', 'value', 'number'] as const;
export type SummaryKind = (typeof SUMMARY_KINDS)[number];

/** A summary function of getOrderAnalyticSummary: a parse tree over OrderAnalytics columns. */
export interface SummaryFunction {
  readonly tree: ParseTree;
  readonly kind: SummaryKind;
  /** Which direction is a cost for the trader (the app colours it), or null when neither. */
  readonly adverse: 'high' | 'low' | null;
  readonly doc: string;
}

export interface Config {
  readonly filterRules: Readonly<Record<string, FilterRule>>;
  readonly idMap: Readonly<Record<string, string>>;
  /** Nanoseconds added either side of the window when timeCol is used; 0 turns it off. */
  readonly timeColBuffer: bigint;
  readonly analytics: Readonly<Record<string, Readonly<Record<string, ParseTree>>>>;
  readonly summaryFunctions: Readonly<Record<string, SummaryFunction>>;
  readonly defaultSummaryFunctions: readonly string[];
  /** Non-trading week days, 0 = Sunday ... 6 = Saturday. */
  readonly weekendDays: readonly number[];
  /** Stored identifier -> composite identifier (VOD.L -> VOD). */
  readonly compositeTickerMap: Readonly<Record<string, string>>;
  readonly mapToCompositeTicker: boolean;
  /** Which tables are the trades and quotes, and their columns' roles; null: the standard tables' (roles.ts). */
  readonly roles: RolesConfig | null;
}

export const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

const fn = (tree: ParseTree, kind: SummaryKind, adverse: 'high' | 'low' | null, doc: string): SummaryFunction => ({ tree, kind, adverse, doc });
/** Rows of orders with fills (executedQty > 0); elsewhere null, which aggregates skip. */
const filled = (x: ParseTree): ParseTree => ['?', ['>', 'executedQty', 0], x, '0n'];
const shortfallFilled = filled('executionShortfall');

/** The summary functions of SPEC 6.2, as parse trees over OrderAnalytics columns (all defaults). */
export const STANDARD_SUMMARY_FUNCTIONS: Readonly<Record<string, SummaryFunction>> = {
  orderCount: fn(['count', ['distinct', 'orderID']], 'count', null, 'Orders in the group (distinct orderID).'),
  sharesExecuted: fn(['sum', 'executedQty'], 'shares', null, 'Shares executed: sum of executedQty.'),
  fillRate: fn(['%', ['sum', 'executedQty'], ['sum', 'placementQty']], 'pct', 'low', 'Shares executed over shares placed.'),
  orderCompletionRate: fn(['avg', 'orderCompletion'], 'pct', 'low', 'Share of orders fully executed (orderCompletion true).'),
  durationMins: fn(['avg', 'durationMins'], 'minutes', null, 'Mean order duration in minutes, strike to completion.'),
  partRate: fn(
    ['%', ['sum', ['?', ['>', 'intervalVolume', 0], 'executedQty', '0N']], ['sum', ['?', ['>', 'intervalVolume', 0], 'intervalVolume', '0N']]],
    'pct',
    'high',
    'Participation: shares executed over the market volume of the orders’ intervals (orders with interval volume only).',
  ),
  executionShortfall: fn(['avg', shortfallFilled], 'bps', 'high', 'Mean implementation shortfall against the arrival mid, in bps (positive = cost), over orders with fills.'),
  executionShortfallStderr: fn(
    ['%', ['sdev', shortfallFilled], ['sqrt', ['count', shortfallFilled]]],
    'bps',
    null,
    'Standard error of executionShortfall: sample standard deviation over the orders with fills / sqrt(n); null below 2 orders.',
  ),
  spreadNormalizedExecutionShortfall: fn(
    ['avg', ['?', ['>', 'intervalSpreadBPS', 0], ['%', 'executionShortfall', 'intervalSpreadBPS'], '0n']],
    'number',
    'high',
    'Mean executionShortfall in units of the interval’s mean quoted spread (orders with a positive spread).',
  ),
  startToEndReturn: fn(['avg', 'strikeToEndReturn'], 'bps', 'high', 'Mean market move from arrival to completion, signed by side, in bps (positive = the price ran away).'),
  startToEnd5MinReturn: fn(['avg', 'reversionReturn_300'], 'bps', 'high', 'Mean move from arrival to 5 minutes after completion, signed by side, in bps.'),
  startToEnd30MinReturn: fn(['avg', 'reversionReturn_1800'], 'bps', 'high', 'Mean move from arrival to 30 minutes after completion, signed by side, in bps.'),
};

/** The demo's extra summary function (outside the defaults), SPEC 6.2. */
export const DEMO_SUMMARY_FUNCTIONS: Readonly<Record<string, SummaryFunction>> = {
  executionShortfallVW: fn(['wavg', 'executedValue', 'executionShortfall'], 'bps', 'high', 'executionShortfall weighted by executed value.'),
};

/** SPEC 3.2's trade analytics over a trades table's price and size columns. */
export function tradeAnalyticsOf(price: string, size: string): Readonly<Record<string, ParseTree>> {
  return {
    vwap: ['wavg', size, price],
    turnover: ['sum', ['*', price, size]],
    twap: ['%', ['+', ['+', ['first', price], ['max', price]], ['+', ['min', price], ['last', price]]], 4],
    tradeCount: ['count', price],
  };
}

/** The configured Trade analytics of SPEC 3.2. */
export const STANDARD_TRADE_ANALYTICS: Readonly<Record<string, ParseTree>> = tradeAnalyticsOf('price', 'volume');

/** The config a new database starts with. */
export function defaultConfig(): Config {
  return {
    filterRules: {},
    idMap: {},
    timeColBuffer: 3_600_000_000_000n,
    analytics: { Trade: STANDARD_TRADE_ANALYTICS },
    summaryFunctions: STANDARD_SUMMARY_FUNCTIONS,
    defaultSummaryFunctions: Object.keys(STANDARD_SUMMARY_FUNCTIONS),
    weekendDays: [6, 0],
    compositeTickerMap: {},
    mapToCompositeTicker: false,
    roles: null,
  };
}

/** The JSON document for config.json. */
export function configToJson(c: Config): Record<string, unknown> {
  return {
    filterRules: c.filterRules,
    idMap: c.idMap,
    timeColBuffer: formatTimespan(c.timeColBuffer),
    analytics: c.analytics,
    summaryFunctions: c.summaryFunctions,
    defaultSummaryFunctions: c.defaultSummaryFunctions,
    weekendDays: c.weekendDays.map((d) => WEEKDAY_NAMES[d]),
    compositeTickerMap: c.compositeTickerMap,
    mapToCompositeTicker: c.mapToCompositeTicker,
    ...(c.roles ? { roles: c.roles } : {}),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** True when a JSON value has the shape of a parse tree. */
export function isParseTree(v: unknown): v is ParseTree {
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return Number.isFinite(v);
  return Array.isArray(v) && v.length > 0 && typeof v[0] === 'string' && v.every(isParseTree);
}

/** Parses and validates config.json; missing items take their defaults. */
export function configFromJson(doc: unknown, where = 'config.json'): Config {
  const fail = (item: string, msg: string): never => {
    throw new TickscopeError('badConfig', `${where}: ${item} ${msg}`);
  };
  if (!isRecord(doc)) fail('document', 'must be a JSON object');
  const d = doc as Record<string, unknown>;
  const known = new Set([
    'filterRules', 'idMap', 'timeColBuffer', 'analytics', 'summaryFunctions', 'defaultSummaryFunctions',
    'weekendDays', 'compositeTickerMap', 'mapToCompositeTicker', 'roles',
  ]);
  for (const k of Object.keys(d)) if (!known.has(k)) fail(k, `is not a config item; expected one of ${[...known].join(', ')}`);
  const base = defaultConfig();

  const filterRules: Record<string, FilterRule> = {};
  const rawRules = d['filterRules'] ?? {};
  if (!isRecord(rawRules)) fail('filterRules', 'must be an object of name -> {column, include?, exclude?}');
  for (const [name, r] of Object.entries(rawRules as Record<string, unknown>)) {
    const at = `filterRules.${name}`;
    if (!isRecord(r) || typeof r['column'] !== 'string' || !r['column']) fail(at, 'needs a "column" name');
    const rule = r as Record<string, unknown>;
    for (const k of ['include', 'exclude']) {
      if (rule[k] !== undefined && !isStringArray(rule[k])) fail(`${at}.${k}`, 'must be an array of strings');
    }
    if (rule['include'] === undefined && rule['exclude'] === undefined) fail(at, 'needs "include" or "exclude"');
    filterRules[name] = {
      column: rule['column'] as string,
      ...(rule['include'] ? { include: rule['include'] as string[] } : {}),
      ...(rule['exclude'] ? { exclude: rule['exclude'] as string[] } : {}),
    };
  }

  const idMap = d['idMap'] ?? {};
  if (!isRecord(idMap) || !Object.values(idMap).every((v) => typeof v === 'string')) {
    fail('idMap', 'must be an object of custom identifier -> stored identifier (strings)');
  }

  let timeColBuffer = base.timeColBuffer;
  if (d['timeColBuffer'] !== undefined) {
    const span = typeof d['timeColBuffer'] === 'string' ? parseTimespan(d['timeColBuffer']) : undefined;
    if (span === undefined || span < 0n) fail('timeColBuffer', `${JSON.stringify(d['timeColBuffer'])} must be a timespan such as "0D01:00:00" ("0D00:00" turns it off)`);
    timeColBuffer = span as bigint;
  }

  const analytics = d['analytics'] ?? base.analytics; // not an argument: config.json's key
  if (!isRecord(analytics)) fail('analytics', 'must be an object of table -> name -> parse tree');
  for (const [table, defs] of Object.entries(analytics as Record<string, unknown>)) {
    if (!isRecord(defs)) fail(`analytics.${table}`, 'must be an object of name -> parse tree');
    for (const [name, tree] of Object.entries(defs as Record<string, unknown>)) {
      if (!isParseTree(tree)) fail(`analytics.${table}.${name}`, 'must be a parse tree such as ["wavg","volume","price"]');
    }
  }

  const rawSummary = d['summaryFunctions'] ?? base.summaryFunctions; // not an argument: config.json's key
  if (!isRecord(rawSummary)) fail('summaryFunctions', 'must be an object of name -> parse tree or {"tree", "kind", "adverse", "doc"}');
  const summaryFunctions: Record<string, SummaryFunction> = {};
  for (const [name, def] of Object.entries(rawSummary as Record<string, unknown>)) {
    const at = `summaryFunctions.${name}`;
    if (!isRecord(def)) {
      if (!isParseTree(def)) fail(at, 'must be a parse tree such as ["avg","durationMins"], or {"tree": ..., "kind": ..., "adverse": ..., "doc": ...}');
      summaryFunctions[name] = { tree: def as ParseTree, kind: 'number', adverse: null, doc: '' };
      continue;
    }
    for (const k of Object.keys(def)) if (!['tree', 'kind', 'adverse', 'doc'].includes(k)) fail(`${at}.${k}`, 'is not a summary function item; expected tree, kind, adverse, doc');
    if (!isParseTree(def['tree'])) fail(`${at}.tree`, 'must be a parse tree such as ["avg","durationMins"]');
    const kind = def['kind'] ?? 'number';
    if (!SUMMARY_KINDS.includes(kind as SummaryKind)) fail(`${at}.kind`, `is ${JSON.stringify(kind)}; expected one of ${SUMMARY_KINDS.join(', ')}`);
    const adverse = def['adverse'] ?? null;
    if (adverse !== null && adverse !== 'high' && adverse !== 'low') fail(`${at}.adverse`, `is ${JSON.stringify(adverse)}; expected "high", "low" or null`);
    const doc = def['doc'] ?? '';
    if (typeof doc !== 'string') fail(`${at}.doc`, 'must be a string');
    summaryFunctions[name] = { tree: def['tree'] as ParseTree, kind: kind as SummaryKind, adverse: adverse as 'high' | 'low' | null, doc: doc as string };
  }
  const defaults = d['defaultSummaryFunctions'] ?? (d['summaryFunctions'] === undefined ? base.defaultSummaryFunctions : Object.keys(summaryFunctions)); // not an argument: config.json's key
  if (!isStringArray(defaults)) fail('defaultSummaryFunctions', 'must be an array of summary function names');
  for (const name of defaults as string[]) {
    if (!(name in summaryFunctions)) fail('defaultSummaryFunctions', `names ${name}, which is not in summaryFunctions`);
  }

  const compositeTickerMap = d['compositeTickerMap'] ?? {};
  if (!isRecord(compositeTickerMap) || !Object.values(compositeTickerMap).every((v) => typeof v === 'string' && v !== '')) {
    fail('compositeTickerMap', 'must be an object of stored identifier -> composite identifier (non-empty strings), such as {"VOD.L": "VOD"}');
  }

  let weekendDays = base.weekendDays;
  if (d['weekendDays'] !== undefined) {
    const w = d['weekendDays'];
    if (!isStringArray(w)) fail('weekendDays', 'must be an array of day names such as ["Saturday","Sunday"]');
    weekendDays = (w as string[]).map((name) => {
      const i = WEEKDAY_NAMES.findIndex((n) => n.toLowerCase() === name.toLowerCase());
      return i >= 0 ? i : fail('weekendDays', `has ${JSON.stringify(name)}; expected day names ${WEEKDAY_NAMES.join(', ')}`);
    });
  }

  const composite = d['mapToCompositeTicker'] ?? false;
  if (typeof composite !== 'boolean') fail('mapToCompositeTicker', 'must be true or false');

  return {
    filterRules,
    idMap: idMap as Record<string, string>,
    timeColBuffer,
    analytics: analytics as Record<string, Record<string, ParseTree>>,
    summaryFunctions,
    defaultSummaryFunctions: defaults as string[],
    weekendDays,
    compositeTickerMap: compositeTickerMap as Record<string, string>,
    mapToCompositeTicker: composite as boolean,
    roles: d['roles'] === undefined ? null : rolesFromJson(d['roles'], fail),
  };
}
