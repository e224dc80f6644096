/**
 * Column roles (SPEC 3.2 `roles`, 11): which table holds the trades and which the quotes, and which
 * of their columns is the price, the size, the bid, the ask... Order analytics, and the views, ask
 * for a role, never for a column's name, so a database whose columns are named otherwise (a kdb+
 * `trade` with `size`, a Quote with `bid` and `ask`) works once its roles say so.
 */
import { TickscopeError } from '../core/errors.js';
import type { Schema, TableSchema } from './schema.js';

export const COLUMN_ROLES = ['price', 'size', 'bid', 'ask', 'bidSize', 'askSize', 'exchange'] as const;
export type ColumnRole = (typeof COLUMN_ROLES)[number];

/** Roles as config.json gives them: the trades and quotes tables, and table -> role -> column. */
export interface RolesConfig {
  readonly trades?: string;
  readonly quotes?: string;
  readonly columns?: Readonly<Record<string, Readonly<Partial<Record<ColumnRole, string>>>>>;
}

/** The roles of the standard tables (SPEC 3.1): what a database without `roles` in its config has. */
export const STANDARD_ROLES: RolesConfig = {
  trades: 'Trade',
  quotes: 'Quote',
  columns: {
    Trade: { price: 'price', size: 'volume', exchange: 'tradedExchange' },
    Quote: { bid: 'bidPrice', ask: 'askPrice', bidSize: 'bidSize', askSize: 'askSize', exchange: 'exchangeID' },
  },
};

/** The roles a trades table needs, and a quotes table. */
const NEEDED = { trades: ['price', 'size'], quotes: ['bid', 'ask'] } as const;

export interface TradesRoles {
  readonly table: TableSchema;
  readonly price: string;
  readonly size: string;
}

export interface QuotesRoles {
  readonly table: TableSchema;
  readonly bid: string;
  readonly ask: string;
}

/** The roles of a source's tables, resolved against its schema. */
export interface Roles {
  readonly trades: TradesRoles | null;
  readonly quotes: QuotesRoles | null;
  /** table -> role -> column, of the tables the schema has. */
  readonly columns: ReadonlyMap<string, ReadonlyMap<ColumnRole, string>>;
}

const NUMERIC = new Set(['float', 'long', 'int']);

/** Reads config.json's `roles` (shape only; names are checked against the schema by resolveRoles). */
export function rolesFromJson(v: unknown, fail: (item: string, msg: string) => never): RolesConfig {
  const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (!isRecord(v)) return fail('roles', 'must be an object such as {"trades": "Trade", "quotes": "Quote", "columns": {"Trade": {"price": "price", "size": "volume"}}}');
  for (const k of Object.keys(v)) if (!['trades', 'quotes', 'columns'].includes(k)) fail(`roles.${k}`, 'is not a roles item; expected trades, quotes, columns');
  for (const k of ['trades', 'quotes'] as const) if (v[k] !== undefined && (typeof v[k] !== 'string' || !v[k])) fail(`roles.${k}`, 'must be a table name');
  const columns: Record<string, Partial<Record<ColumnRole, string>>> = {};
  const { columns: given } = v;
  if (given !== undefined) {
    if (!isRecord(given)) fail('roles.columns', 'must be an object of table -> role -> column');
    for (const [table, roles] of Object.entries(given as Record<string, unknown>)) {
      if (!isRecord(roles)) fail(`roles.columns.${table}`, `must be an object of role -> column; roles are ${COLUMN_ROLES.join(', ')}`);
      for (const [role, column] of Object.entries(roles)) {
        if (!(COLUMN_ROLES as readonly string[]).includes(role)) fail(`roles.columns.${table}.${role}`, `is not a role; expected one of ${COLUMN_ROLES.join(', ')}`);
        if (typeof column !== 'string' || !column) fail(`roles.columns.${table}.${role}`, 'must be a column name');
      }
      columns[table] = roles as Partial<Record<ColumnRole, string>>;
    }
  }
  return { ...(v['trades'] ? { trades: v['trades'] as string } : {}), ...(v['quotes'] ? { quotes: v['quotes'] as string } : {}), columns };
}

/**
 * The roles against a schema. Given roles (`strict`) must name its tables and columns, numeric where
 * they are numbers (`where` names the config in the error); the standard roles apply to the tables
 * the schema has as declared, and are left out where it lacks them.
 */
export function resolveRoles(schema: Schema, given: RolesConfig | null, where: string): Roles {
  const strict = given !== null;
  const roles = given ?? STANDARD_ROLES;
  const fail = (item: string, msg: string): never => {
    throw new TickscopeError('badConfig', `${where}: roles.${item} ${msg}`);
  };
  const columns = new Map<string, Map<ColumnRole, string>>();
  for (const [table, byRole] of Object.entries(roles.columns ?? {})) {
    const t = schema.tables.get(table);
    if (!t) {
      if (strict) fail(`columns.${table}`, `names no table; expected one of ${[...schema.tables.keys()].join(', ')}`);
      continue;
    }
    const own = new Map<ColumnRole, string>();
    for (const [role, column] of Object.entries(byRole) as Array<[ColumnRole, string]>) {
      const def = t.columns.find((c) => c.name === column);
      const fits = def && (role === 'exchange' ? def.type === 'symbol' : NUMERIC.has(def.type));
      if (!fits) {
        if (strict) fail(`columns.${table}.${role}`, `is ${JSON.stringify(column)}, ${def ? `a ${def.type} column` : `not a column of ${table}`}; expected ${role === 'exchange' ? 'a symbol' : 'a numeric'} column of ${table}`);
        continue;
      }
      own.set(role, column);
    }
    columns.set(table, own);
  }
  const pick = <K extends 'trades' | 'quotes'>(kind: K): { table: TableSchema; cols: ReadonlyMap<ColumnRole, string> } | null => {
    const name = roles[kind];
    if (!name) return null;
    const t = schema.tables.get(name);
    if (!t || t.kind !== 'partitioned') {
      if (strict) fail(kind, `is ${JSON.stringify(name)}, ${t ? 'a reference table' : 'not a table'}; expected a partitioned table`);
      return null;
    }
    const cols = columns.get(name) ?? new Map<ColumnRole, string>();
    const missing = NEEDED[kind].filter((r) => !cols.has(r));
    if (missing.length > 0) {
      if (strict) fail(kind, `is ${name}, whose roles lack ${missing.join(' and ')}; give them in roles.columns.${name}`);
      return null;
    }
    return { table: t, cols };
  };
  const tr = pick('trades');
  const qu = pick('quotes');
  return {
    trades: tr ? { table: tr.table, price: tr.cols.get('price')!, size: tr.cols.get('size')! } : null,
    quotes: qu ? { table: qu.table, bid: qu.cols.get('bid')!, ask: qu.cols.get('ask')! } : null,
    columns,
  };
}
