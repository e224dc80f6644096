/**
 * ref and refFilter (INTERFACE 4.1, SPEC 4): reference tables joined through the schema's foreign
 * keys, and filters on reference columns. Also the instrument names of the orderbook modes.
 */
import { codesOf, type Column, gatherOrNull } from '../../core/column.js';
import { argError, TickscopeError } from '../../core/errors.js';
import { Table } from '../../core/table.js';
import type { RowSource } from '../../storage/row-source.js';
import type { Source } from '../../storage/source.js';
import type { TableSchema } from '../../storage/schema.js';
import { andPredicates, compileFilter, listFilter, type Predicate } from '../filter/compile.js';
import { parseQDict } from '../filter/parse-q.js';
import type { FilterNode } from '../filter/tree.js';
import type { RawClause } from '../../registry/decode.js';
import { dictOf } from '../../core/dict.js';
import { dictStrings } from '../../core/dict.js';

export interface RefTable {
  readonly schema: TableSchema;
  /** The column of the queried table holding this table's key. */
  readonly fk: string;
  readonly key: string;
  readonly data: RowSource | undefined;
}

/** The reference table `name` as reached from `t` through a foreign key; errors name what is missing. */
export function refTable(db: Source, t: TableSchema, name: string, arg: string): RefTable {
  const r = db.schema.tables.get(name);
  if (!r) {
    throw argError('unknownTable', arg, name, `is not a table of ${db.name}`, `a reference table: ${[...db.schema.tables.values()].filter((x) => x.kind === 'reference').map((x) => x.name).join(', ')}`);
  }
  const fk = Object.entries(t.foreignKeys).find(([, target]) => target === name)?.[0];
  if (!fk || !r.key) {
    const reachable = Object.values(t.foreignKeys);
    throw new TickscopeError('requirement', `${arg}: ${name} is not reachable from ${t.name}: the schema has no foreign key from ${t.name} to ${name}; reachable: ${reachable.join(', ') || 'none'}`);
  }
  return { schema: r, fk, key: r.key, data: db.reference(name) };
}

/** For each row of `keys` (a symbol column of foreign-key values), the matching reference row or -1. */
function matchRows(keys: Column, ref: RefTable): Int32Array {
  const out = new Int32Array(keys.type === 'symbol' ? keys.codes.length : 0).fill(-1);
  if (keys.type !== 'symbol' || !ref.data) return out;
  const refKeys = ref.data.column(ref.key);
  if (refKeys.type !== 'symbol') return out;
  const rowOf = new Map<string, number>();
  for (let i = 0; i < ref.data.rows; i++) {
    const k = refKeys.dict.get(refKeys.codes[i]!);
    if (!rowOf.has(k)) rowOf.set(k, i);
  }
  const perCode = dictStrings(keys.dict).map((s) => rowOf.get(s) ?? -1);
  for (let i = 0; i < keys.codes.length; i++) out[i] = perCode[keys.codes[i]!]!;
  return out;
}

/** A reference column for every row of the result, null where no reference row matches. */
export function refColumn(result: Table, ref: RefTable, column: string): Column {
  const idx = matchRows(result.col(ref.fk), ref);
  if (!ref.data) return gatherOrNull({ type: 'float', data: new Float64Array(0) }, idx);
  return gatherOrNull(ref.data.column(column), idx);
}

/** The result with each reference table's columns (key omitted) appended; clashes are prefixed `<Ref>_`. */
export function joinRefs(result: Table, refs: readonly RefTable[], skip: ReadonlySet<string> = new Set()): Table {
  let out = result;
  for (const ref of refs) {
    const idx = matchRows(out.col(ref.fk), ref);
    for (const def of ref.schema.columns) {
      if (def.name === ref.key || skip.has(`${ref.schema.name}.${def.name}`)) continue;
      const name = out.has(def.name) ? `${ref.schema.name}_${def.name}` : def.name;
      const col = ref.data ? gatherOrNull(ref.data.column(def.name), idx) : gatherOrNull(emptyOf(def.type), idx);
      out = out.with(name, col);
    }
  }
  return out;
}

function emptyOf(type: Column['type']): Column {
  switch (type) {
    case 'symbol':
      return { type, codes: new Int32Array(0), dict: dictOf([]) };
    case 'string':
      return { type, values: [] };
    case 'float[]':
    case 'long[]':
      return { type, offsets: new Int32Array(1), values: new Float64Array(0) };
    case 'timestamp':
    case 'timespan':
    case 'long':
      return { type, data: new BigInt64Array(0) };
    case 'date':
    case 'int':
      return { type, data: new Int32Array(0) };
    case 'boolean':
      return { type, data: new Uint8Array(0) };
    default:
      return { type, data: new Float64Array(0) };
  }
}

/** Instrument names for the identifier column: the reference name, or the identifier where none. */
export function namesColumn(result: Table, ref: RefTable, idColumn: string): Column {
  if (!ref.schema.columns.some((c) => c.name === 'instrumentName')) {
    throw new TickscopeError('requirement', `orderbook: ${ref.schema.name} has no instrumentName column to name instruments with`);
  }
  const names = refColumn(result, ref, 'instrumentName');
  const ids = result.col(idColumn);
  const text = (c: Column, i: number): string =>
    c.type === 'symbol' ? c.dict.get(c.codes[i]!) : c.type === 'string' ? c.values[i]! : '';
  const values = Array.from({ length: result.length }, (_, i) => text(names, i) || text(ids, i));
  return { type: 'string', values };
}

/** The refFilter argument as (table, filter tree) pairs: a JSON object, JSON text, or q dictionary text. */
function refFilterEntries(value: unknown, arg: string): Array<[string, FilterNode]> {
  if (typeof value === 'string') {
    const t = value.trim();
    if (t.startsWith('{')) {
      try {
        return refFilterEntries(JSON.parse(t), arg);
      } catch (e) {
        if (e instanceof TickscopeError) throw e;
        throw argError('badFilter', arg, value, 'is not valid JSON', '{"Instrument": [["like","sector","Tech*"]]}');
      }
    }
    return parseQDict(t, arg);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw argError('badFilter', arg, value, 'is not a dictionary', '{"Instrument": [["like","sector","Tech*"]]} or q text (enlist `Instrument)!enlist ((like;`sector;"Tech*"))');
  }
  return Object.entries(value as Record<string, unknown>).map(([name, triplets]) => {
    const list = Array.isArray(triplets) && typeof triplets[0] === 'string' ? [triplets] : triplets;
    if (!Array.isArray(list) || !list.every((c) => Array.isArray(c) && c.length === 3 && typeof c[0] === 'string' && typeof c[1] === 'string')) {
      throw argError('badFilter', arg, value, `has ${name}: ${JSON.stringify(triplets)}, which is not a list of [operator, column, value] triplets`, '{"Instrument": [["like","sector","Tech*"]]}');
    }
    const clauses: RawClause[] = (list as unknown[][]).map((c) => ({ fn: c[0] as string, column: c[1] as string, value: c[2], source: c }));
    return [name, listFilter(clauses)];
  });
}

/** A predicate on the queried table keeping rows whose reference rows pass refFilter. */
export function refFilterPredicate(db: Source, t: TableSchema, value: unknown, inputTZ: string): Predicate | undefined {
  const arg = 'refFilter';
  const preds: Predicate[] = [];
  for (const [name, node] of refFilterEntries(value, arg)) {
    const ref = refTable(db, t, name, arg);
    const passing = new Set<string>();
    if (ref.data) {
      const filter = compileFilter(node, ref.schema, inputTZ, arg);
      let sel = Int32Array.from({ length: ref.data.rows }, (_, i) => i);
      sel = sel.subarray(0, filter.apply(ref.data, sel, sel.length));
      const keys = ref.data.column(ref.key);
      if (keys.type === 'symbol') for (const r of sel) passing.add(keys.dict.get(keys.codes[r]!));
    } else {
      // No reference data: nothing can pass; still check the filter against the schema.
      compileFilter(node, ref.schema, inputTZ, arg);
    }
    preds.push(keysIn(ref.fk, passing));
  }
  return andPredicates(preds);
}

function keysIn(column: string, keys: ReadonlySet<string>): Predicate {
  const run = (col: Column, sel: Int32Array, n: number, out?: Uint8Array): number => {
    if (col.type !== 'symbol') throw new Error(`${column} is not a symbol column`);
    const mask = codesOf(col.dict, keys);
    let k = 0;
    for (let i = 0; i < n; i++) {
      const pass = mask[col.codes[sel[i]!]!] === 1;
      if (out) out[i] = pass ? 1 : 0;
      else if (pass) sel[k++] = sel[i]!;
    }
    return out ? n : k;
  };
  return {
    columns: [column],
    apply: (src, sel, n) => run(src.column(column), sel, n),
    mark: (src, sel, n, out) => void run(src.column(column), sel, n, out),
  };
}
