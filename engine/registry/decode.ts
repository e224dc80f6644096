/**
 * Argument decoding: native JSON values and REST strings (SPEC 2) into typed values, with errors
 * that name the argument, the value and the expected forms. An unknown argument is an error; so is
 * a value outside its declared range, or an argument given without the ones it requires.
 */
import { argError, quoteText, showValue, TickscopeError } from '../core/errors.js';
import { parseDate, parseTimespan, parseTimestampLiteral, type TimestampLiteral } from '../core/time.js';
import { type NamedTree, aggTrees } from './agg-value.js';
import { argumentDeclaration } from './args.js';
import type { ArgSpec, ArgType, OperationSpec } from './types.js';

/** A filter as given: list triples (not yet checked against the table) or the string form. */
export type FilterInput =
  | { readonly kind: 'list'; readonly clauses: readonly RawClause[] }
  | { readonly kind: 'text'; readonly text: string };

export interface RawClause {
  readonly fn: string;
  readonly column: string;
  readonly value: unknown;
  /** The clause as the caller wrote it, for error messages. */
  readonly source: unknown;
}

export interface SortKey {
  readonly dir: 'asc' | 'desc';
  readonly column: string;
}

/** The decoded value type of each argument type. */
export interface DecodedTypes {
  symbol: string;
  symbols: string[];
  timestamp: TimestampLiteral;
  date: number;
  timespanPair: [bigint, bigint];
  integer: number;
  boolean: boolean;
  filter: FilterInput;
  sortCols: SortKey[];
  dict: Record<string, unknown>;
  agg: NamedTree[];
  refFilter: Record<string, unknown> | string;
  booleanOrSymbol: boolean | string;
}

/** A declaration's decoded value: one of its allowed names when it lists them, else its type's value. */
type ValueOf<A> = A extends { readonly allowed: ReadonlyArray<infer S extends string> } ? S : A extends { readonly type: infer T extends ArgType } ? DecodedTypes[T] : never;

/** The decoded value of each of these declarations, by name (a wrong name or type in a read is a compile error). */
export type ValuesOf<A extends ArgSpec> = { [D in A as D['name']]: ValueOf<D> };

/** Decoded arguments that read these declarations (a kernel names what it reads). */
export type ArgsFor<A extends ArgSpec> = DecodedArgs<ValuesOf<A>>;

/** The decoded arguments an operation's `run` receives: it reads the arguments its declaration lists, and no other. */
export type ArgsOf<L extends readonly ArgSpec[]> = ArgsFor<L[number]>;

type Decoder<T> = (v: unknown, a: ArgSpec) => T | undefined;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const bad = (a: ArgSpec, v: unknown, expected: string, problem = 'is not valid'): TickscopeError =>
  argError('badValue', a.name, v, problem, expected);

function asName(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

const decodeSymbol: Decoder<string> = (v, a) => {
  if (Array.isArray(v) && v.length === 1 && typeof v[0] === 'string') v = v[0];
  const s = asName(v);
  if (s === undefined) throw bad(a, v, 'a name (string)');
  if (s === '') return undefined;
  if (a.allowed && !a.allowed.includes(s)) {
    throw argError('notAllowed', a.name, v, 'is not allowed', `one of ${a.allowed.join(', ')}`);
  }
  return s;
};

const decodeSymbols: Decoder<string[]> = (v, a) => {
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) {
    throw bad(a, v, 'a list of names such as ["AAPL","MSFT"] (or one name)');
  }
  const names = (list as string[]).filter((s) => s !== '');
  if (names.length === 0) return a.emptyMeansNone && Array.isArray(list) && list.length === 0 ? [] : undefined;
  return names;
};

const decodeTimestamp: Decoder<TimestampLiteral> = (v, a) => {
  if (typeof v !== 'string') {
    throw bad(a, v, 'a timestamp string: 2024.01.02D09:30:00.123456789, 2024.01.02D09:30, 2024.01.02, 2024-01-02T09:30:00Z, 0Wp or -0Wp');
  }
  if (v.trim() === '') return undefined;
  const t = parseTimestampLiteral(v);
  if (!t) {
    throw bad(a, v, 'a timestamp: 2024.01.02D09:30:00.123456789, 2024.01.02D09:30, 2024.01.02, 2024-01-02T09:30:00Z, 0Wp or -0Wp', 'is not a timestamp');
  }
  return t;
};

const decodeDate: Decoder<number> = (v, a) => {
  if (typeof v === 'string' && v.trim() === '') return undefined;
  const d = typeof v === 'string' ? parseDate(v) : undefined;
  if (d === undefined) throw bad(a, v, 'a date such as 2024.01.02 or 2024-01-02', 'is not a date');
  return d;
};

const decodeTimespanPair: Decoder<[bigint, bigint]> = (v, a) => {
  const expected = 'two times of day such as ["09:30","16:00"] (hh:mm, hh:mm:ss.nnnnnnnnn or 0D09:30:00)';
  if (!Array.isArray(v)) throw bad(a, v, expected);
  if (v.length === 0) return undefined;
  if (v.length !== 2) throw bad(a, v, expected, `has ${v.length} items`);
  const spans = v.map((s) => (typeof s === 'string' ? parseTimespan(s) : undefined));
  if (spans[0] === undefined || spans[1] === undefined) throw bad(a, v, expected, 'is not a pair of times');
  return [spans[0], spans[1]];
};

const decodeInteger: Decoder<number> = (v, a) => {
  if (v === '0N' || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw bad(a, v, 'an integer such as 5 or "5"', 'is not an integer');
  return n;
};

const decodeBoolean: Decoder<boolean> = (v, a) => {
  if (v === true || v === 1 || v === '1b' || v === 'true' || v === '1') return true;
  if (v === false || v === 0 || v === '0b' || v === 'false' || v === '0') return false;
  throw bad(a, v, 'a boolean: true, false, "1b" or "0b"', 'is not a boolean');
};

const decodeBooleanOrSymbol: Decoder<boolean | string> = (v, a) => {
  if (v === true || v === 1 || v === '1b' || v === 'true') return true;
  if (v === false || v === 0 || v === '0b' || v === 'false') return false;
  if (typeof v === 'string') return v;
  throw bad(a, v, 'a boolean ("1b"/"0b"), an exchange name, or "" for all holidays');
};

const FILTER_EXPECTED =
  '[function, column, value] triples (functions in, within, <, >, <=, >=, =, <>, like) or a string such as "price<100;volume>=10"';

function toClause(a: ArgSpec, t: unknown): RawClause {
  if (!Array.isArray(t) || t.length !== 3 || typeof t[0] !== 'string' || typeof t[1] !== 'string') {
    throw argError('badFilter', a.name, t, 'is not a filter triple', FILTER_EXPECTED);
  }
  return { fn: t[0], column: t[1], value: t[2], source: t };
}

const decodeFilter: Decoder<FilterInput> = (v, a) => {
  if (typeof v === 'string') return v.trim() === '' ? undefined : { kind: 'text', text: v };
  if (!Array.isArray(v)) throw argError('badFilter', a.name, v, 'is not a filter', FILTER_EXPECTED);
  if (v.length === 0) return undefined;
  const clauses = typeof v[0] === 'string' ? [toClause(a, v)] : v.map((t) => toClause(a, t));
  return { kind: 'list', clauses };
};

const SORT_EXPECTED = 'direction/column pairs such as ["desc","volume","asc","eventTimestamp"] or [["desc","volume"]]';

const decodeSortCols: Decoder<SortKey[]> = (v, a) => {
  if (!Array.isArray(v)) throw argError('badSort', a.name, v, 'is not a list', SORT_EXPECTED);
  if (v.length === 0) return undefined;
  const flat: unknown[] = v.every((p) => Array.isArray(p)) ? (v as unknown[][]).flat() : v;
  if (flat.length % 2 !== 0 || !flat.every((s) => typeof s === 'string')) {
    throw argError('badSort', a.name, v, 'is not a list of direction/column pairs', SORT_EXPECTED);
  }
  const keys: SortKey[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const dir = flat[i] as string;
    if (dir !== 'asc' && dir !== 'desc') {
      throw argError('badSort', a.name, v, `has direction ${JSON.stringify(dir)}`, `asc or desc before each column; ${SORT_EXPECTED}`);
    }
    keys.push({ dir, column: flat[i + 1] as string });
  }
  return keys;
};

/** Sort keys in the sortCols forms, for sorting a held result (errors name `name`). */
export function decodeSortKeys(v: unknown, name = 'sortCols'): SortKey[] {
  const keys = decodeSortCols(v, { name } as ArgSpec);
  if (!keys) throw argError('badSort', name, v, 'is empty', SORT_EXPECTED);
  return keys;
}

const decodeDict: Decoder<Record<string, unknown>> = (v, a) => {
  if (!isRecord(v)) throw bad(a, v, 'an object such as {"assembly": "demo"}');
  return Object.keys(v).length === 0 ? undefined : v;
};

const isEmpty = (v: unknown): boolean => v === '' || (Array.isArray(v) && v.length === 0);

/** Parse trees by name, their shape checked here (their columns, against the table, by the operation). */
const decodeAgg: Decoder<NamedTree[]> = (v, a) => {
  if (isEmpty(v)) return undefined;
  const trees = aggTrees(v, a.name);
  return trees.length === 0 ? undefined : trees;
};

/** Reference filters: a dictionary of table -> triplets, or its JSON or q text (read by the operation, which knows the tables). */
const decodeRefFilter: Decoder<Record<string, unknown> | string> = (v, a) => {
  if (isEmpty(v)) return undefined;
  if (typeof v === 'string' || isRecord(v)) return v;
  throw argError('badFilter', a.name, v, 'is not a dictionary', '{"Instrument": [["like","sector","Tech*"]]} or q text (enlist `Instrument)!enlist ((like;`sector;"Tech*"))');
};

const DECODERS: { [K in ArgType]: Decoder<DecodedTypes[K]> } = {
  symbol: decodeSymbol,
  symbols: decodeSymbols,
  timestamp: decodeTimestamp,
  date: decodeDate,
  timespanPair: decodeTimespanPair,
  integer: decodeInteger,
  boolean: decodeBoolean,
  filter: decodeFilter,
  sortCols: decodeSortCols,
  dict: decodeDict,
  agg: decodeAgg,
  refFilter: decodeRefFilter,
  booleanOrSymbol: decodeBooleanOrSymbol,
};

/**
 * Decoded arguments of one call. Arguments not given (or given as their null) are absent.
 * `V` is the values its reader may read, by name: an operation's `run` gets `ArgsOf` its
 * declaration, a kernel names the declarations it reads (`ArgsFor`), so reading an argument the
 * operation does not take, or as another type, is a compile error; arguments that read more pass
 * where fewer are read, never the reverse (those a shared kernel reads beyond an operation's are
 * granted by `widen`). Untyped (`any`), it is what decoding returns before dispatch.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- before dispatch, the values of any operation
export class DecodedArgs<V extends object = any> {
  constructor(
    readonly op: OperationSpec,
    private readonly values: ReadonlyMap<string, unknown>,
    /** The arguments as given (sent as they are to the workers running parts of a split query). */
    readonly raw: unknown = undefined,
  ) {}

  has(name: keyof V & string): boolean {
    return this.values.has(name);
  }

  /** The decoded value, typed by the argument's declaration (undefined when it was not given). */
  get<K extends keyof V & string>(name: K): V[K] | undefined {
    return this.values.get(name) as V[K] | undefined;
  }

  /**
   * The value of an argument that always has one: a required argument, or one with a declared
   * default (decoding applied it; an operation that does not take the argument, such as the summary
   * on the stats machinery, works with its declaration's default). Its absence is a bug of the
   * declaration, not the caller's error.
   */
  must<K extends keyof V & string>(name: K): V[K] {
    if (this.values.has(name)) return this.values.get(name) as V[K];
    const own = argumentDeclaration(name);
    const d = own?.default === undefined ? undefined : (DECODERS[own.type] as Decoder<unknown>)(own.default, own);
    if (d === undefined) throw new Error(`${this.op.name}: ${name} has no value; it is neither required nor given a default by its declaration`);
    return d as V[K];
  }

  /** The decoded value of an argument a declaration names at run time (a bucket's unit), untyped. */
  value(name: string): unknown {
    return this.values.get(name);
  }

  /**
   * These arguments, read by a kernel that reads more than their operation takes (the order summary
   * runs getStats's machinery): the arguments it does not take read as not given, and `must` gives
   * their declared defaults.
   */
  widen<M extends ArgSpec>(): DecodedArgs<V & ValuesOf<M>> {
    return this as DecodedArgs<V & ValuesOf<M>>;
  }

  /** Names of the arguments given. */
  names(): string[] {
    return [...this.values.keys()];
  }
}

/** Decodes a call's arguments against an operation's declaration. */
export function decodeArgs(op: OperationSpec, raw: unknown): DecodedArgs {
  if (!isRecord(raw)) {
    throw new TickscopeError('badRequest', `arguments: ${showValue(raw)} is not an object; expected {"table": ..., ...}`);
  }
  const specs = new Map(op.args.map((a) => [a.name, a]));
  const values = new Map<string, unknown>();
  /** Arguments the caller gave (not defaulted). */
  const explicit = new Set<string>();
  for (const [name, value] of Object.entries(raw)) {
    const spec = specs.get(name);
    if (!spec) {
      throw new TickscopeError(
        'unknownArgument',
        `${/^[A-Za-z_$][\w$]{0,63}$/.test(name) ? name : quoteText(name)}: is not an argument of ${op.name}; expected one of ${op.args.map((a) => a.name).join(', ')}`,
      );
    }
    if (value === null || value === undefined) continue;
    const decoded = (DECODERS[spec.type] as Decoder<unknown>)(value, spec);
    if (decoded === undefined) continue;
    const r = spec.range;
    if (r && typeof decoded === 'number' && ((r.min !== undefined && decoded < r.min) || (r.max !== undefined && decoded > r.max))) {
      throw argError('badValue', name, decoded, r.problem, r.expected);
    }
    values.set(name, decoded);
    explicit.add(name);
  }
  for (const spec of op.args) {
    if (spec.required && !values.has(spec.name)) {
      throw new TickscopeError('missingArgument', `${spec.name}: is required by ${op.name}; ${spec.doc}`);
    }
    // an argument not given takes its declared default, decoded as a given value is
    if (!values.has(spec.name) && spec.default !== undefined) {
      const d = (DECODERS[spec.type] as Decoder<unknown>)(spec.default, spec);
      if (d !== undefined) values.set(spec.name, d);
    }
  }
  // relations the declaration states: an argument given (and not false) with the ones it needs
  const given = (name: string): boolean => values.has(name) && values.get(name) !== false;
  for (const spec of op.args) {
    const needs = spec.requires;
    if (!needs || !given(spec.name)) continue;
    const missing = needs.args.filter((n) => !given(n));
    if (missing.length === 0) continue;
    const also = needs.args.length > 1 ? `; missing ${missing.join(' and ')}` : '';
    throw new TickscopeError('requirement', `${spec.name}: needs ${needs.args.join(' and ')} ${needs.why}${also}`);
  }
  for (const spec of op.args) {
    const not = spec.excludes;
    if (!not || !explicit.has(spec.name)) continue;
    const both = not.args.filter((n) => explicit.has(n));
    if (both.length > 0) throw new TickscopeError('requirement', `${spec.name}: ${not.why} (got ${[spec.name, ...both].join(' and ')})`);
  }
  return new DecodedArgs(op, values, raw);
}
