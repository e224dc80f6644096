/**
 * config.json: the configurable parts of a database (SPEC 3.2). Each item is validated at load; an
 * error names the item and what was expected.
 */
import { TickscopeError } from '../core/errors.js';
import { formatTimespan, parseTimespan } from '../core/time.js';

/** A parse tree as written in JSON: [operator, argument, ...]; arguments are names, numbers or trees. */
export type ParseTree = string | number | readonly ParseTree[];

export interface FilterRule {
  readonly column: string;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

export interface Config {
  readonly filterRules: Readonly<Record<string, FilterRule>>;
  readonly idMap: Readonly<Record<string, string>>;
  /** Nanoseconds added either side of the window when timeCol is used; 0 turns it off. */
  readonly timeColBuffer: bigint;
  readonly analytics: Readonly<Record<string, Readonly<Record<string, ParseTree>>>>;
  readonly summaryFunctions: Readonly<Record<string, ParseTree>>;
  readonly defaultSummaryFunctions: readonly string[];
  /** Non-trading week days, 0 = Sunday ... 6 = Saturday. */
  readonly weekendDays: readonly number[];
  readonly mapToCompositeTicker: boolean;
}

export const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** The summary functions of SPEC 6.2, as parse trees over OrderAnalytics columns. */
export const STANDARD_SUMMARY_FUNCTIONS: Readonly<Record<string, ParseTree>> = {
  orderCount: ['count', ['distinct', 'orderID']],
  sharesExecuted: ['sum', 'executedQty'],
  fillRate: ['%', ['sum', 'executedQty'], ['sum', 'placementQty']],
  orderCompletionRate: ['avg', 'orderCompletion'],
  durationMins: ['avg', 'durationMins'],
  partRate: ['%', ['sum', ['*', 'executedQty', ['>', 'intervalVolume', 0]]], ['sum', 'intervalVolume']],
  executionShortfall: ['avg', 'executionShortfall'],
  executionShortfallStderr: ['%', ['sdev', 'executionShortfall'], ['sqrt', ['count', 'executionShortfall']]],
  spreadNormalizedExecutionShortfall: ['avg', ['%', 'executionShortfall', 'intervalSpreadBPS']],
  startToEndReturn: ['avg', 'strikeToEndReturn'],
  startToEnd5MinReturn: ['avg', 'reversionReturn_300'],
  startToEnd30MinReturn: ['avg', 'reversionReturn_1800'],
};

/** The configured Trade analytics of SPEC 3.2. */
export const STANDARD_TRADE_ANALYTICS: Readonly<Record<string, ParseTree>> = {
  vwap: ['wavg', 'volume', 'price'],
  turnover: ['sum', ['*', 'price', 'volume']],
  twap: ['%', ['+', ['+', ['first', 'price'], ['max', 'price']], ['+', ['min', 'price'], ['last', 'price']]], 4],
  tradeCount: ['count', 'price'],
};

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
    mapToCompositeTicker: false,
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
    mapToCompositeTicker: c.mapToCompositeTicker,
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
    'weekendDays', 'mapToCompositeTicker',
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

  const analytics = d['analytics'] ?? base.analytics;
  if (!isRecord(analytics)) fail('analytics', 'must be an object of table -> name -> parse tree');
  for (const [table, defs] of Object.entries(analytics as Record<string, unknown>)) {
    if (!isRecord(defs)) fail(`analytics.${table}`, 'must be an object of name -> parse tree');
    for (const [name, tree] of Object.entries(defs as Record<string, unknown>)) {
      if (!isParseTree(tree)) fail(`analytics.${table}.${name}`, 'must be a parse tree such as ["wavg","volume","price"]');
    }
  }

  const summaryFunctions = d['summaryFunctions'] ?? base.summaryFunctions;
  if (!isRecord(summaryFunctions)) fail('summaryFunctions', 'must be an object of name -> parse tree');
  for (const [name, tree] of Object.entries(summaryFunctions as Record<string, unknown>)) {
    if (!isParseTree(tree)) fail(`summaryFunctions.${name}`, 'must be a parse tree such as ["avg","durationMins"]');
  }
  const defaults = d['defaultSummaryFunctions'] ?? Object.keys(summaryFunctions as object);
  if (!isStringArray(defaults)) fail('defaultSummaryFunctions', 'must be an array of summary function names');
  for (const name of defaults as string[]) {
    if (!(name in (summaryFunctions as object))) fail('defaultSummaryFunctions', `names ${name}, which is not in summaryFunctions`);
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
    summaryFunctions: summaryFunctions as Record<string, ParseTree>,
    defaultSummaryFunctions: defaults as string[],
    weekendDays,
    mapToCompositeTicker: composite as boolean,
  };
}
