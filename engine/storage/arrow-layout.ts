/**
 * A record batch's buffers against its schema (issue 30): each field's validity, values and offsets
 * buffers hold at least what its field node's values take (a fixed-width value's bytes, n + 1
 * offsets, a bit a boolean or a null), so a buffer cut short is damage named by its field, never a
 * read past its values in apache-arrow's getters. A type whose buffers are not known here (unions,
 * views, run-end encoded) ends the check of its batch: the buffers after it cannot be told apart.
 */
import { Damage, type Flat, n } from './arrow-flat.js';

/** A schema table and the flatbuffer it is in. */
export interface SchemaAt {
  readonly fb: Flat;
  readonly table: number;
}

// the Type union's ids (Arrow's Schema.fbs)
const NULL = 1;
const INT = 2;
const FLOATING_POINT = 3;
const BINARY = 4;
const UTF8 = 5;
const BOOL = 6;
const DECIMAL = 7;
const DATE = 8;
const TIME = 9;
const TIMESTAMP = 10;
const INTERVAL = 11;
const LIST = 12;
const STRUCT = 13;
const FIXED_SIZE_BINARY = 15;
const FIXED_SIZE_LIST = 16;
const MAP = 17;
const DURATION = 18;
const LARGE_BINARY = 19;
const LARGE_UTF8 = 20;
const LARGE_LIST = 21;

/** The least bytes a buffer takes for a node's values. */
type Need = (values: number) => number;
const bitmap: Need = (v) => Math.ceil(v / 8);
const width =
  (w: number): Need =>
  (v) =>
    v * w;
const offsets =
  (w: number): Need =>
  (v) =>
    v > 0 ? (v + 1) * w : 0;
const unbounded: Need = () => 0;

/** A field's buffers: whether the first is a validity bitmap, and what the others need; undefined for a type not checked. */
function layoutOf(s: SchemaAt, field: number): { validity: boolean; buffers: Need[] } | undefined {
  const { fb } = s;
  const fixed = (bytes: number): { validity: boolean; buffers: Need[] } | undefined => (Number.isInteger(bytes) && bytes > 0 ? { validity: true, buffers: [width(bytes)] } : undefined);
  const dictionary = fb.ref(field, 4, 'field dictionary');
  if (dictionary !== undefined) {
    const index = fb.ref(dictionary, 1, 'dictionary indexType');
    return fixed((index === undefined ? 32 : fb.i32(index, 0, 'dictionary index bitWidth')) / 8);
  }
  const type = fb.ref(field, 3, 'field type');
  const param = (id: number, size: 2 | 4, dflt: number): number => (type === undefined ? dflt : size === 2 ? fb.i16(type, id, 'type', dflt) : fb.i32(type, id, 'type', dflt));
  switch (fb.u8(field, 2, 'field type')) {
    case NULL:
      return { validity: false, buffers: [] };
    case INT:
      return fixed(param(0, 4, 0) / 8);
    case FLOATING_POINT:
      return fixed([2, 4, 8][param(0, 2, 0)] ?? 0);
    case BOOL:
      return { validity: true, buffers: [bitmap] };
    case DECIMAL:
      return fixed(param(2, 4, 128) / 8);
    case DATE:
      return fixed(param(0, 2, 1) === 0 ? 4 : 8);
    case TIME:
      return fixed(param(1, 4, 32) / 8);
    case TIMESTAMP:
    case DURATION:
      return fixed(8);
    case INTERVAL:
      return fixed([4, 8, 16][param(0, 2, 0)] ?? 0);
    case FIXED_SIZE_BINARY:
      return fixed(param(0, 4, 0));
    case BINARY:
    case UTF8:
      return { validity: true, buffers: [offsets(4), unbounded] };
    case LARGE_BINARY:
    case LARGE_UTF8:
      return { validity: true, buffers: [offsets(8), unbounded] };
    case LIST:
    case MAP:
      return { validity: true, buffers: [offsets(4)] };
    case LARGE_LIST:
      return { validity: true, buffers: [offsets(8)] };
    case STRUCT:
    case FIXED_SIZE_LIST:
      return { validity: true, buffers: [] };
    default:
      return undefined;
  }
}

/**
 * Checks an uncompressed record batch's buffers (at `rb` in `fb`) against the fields of `schema`,
 * taken depth first as its field nodes and buffers are.
 */
export function checkBuffers(schema: SchemaAt, fb: Flat, rb: number): void {
  const rows = fb.i64(rb, 0, 'record batch length');
  const nodes = fb.vector(fb.ref(rb, 1, 'nodes'), 16, 'nodes');
  const buffers = fb.vector(fb.ref(rb, 2, 'buffers'), 16, 'buffers');
  let node = 0;
  let buffer = 0;
  // false: a field whose buffers are not known here, after which nothing can be checked
  const visit = (fields: number | undefined, depth: number): boolean => {
    const list = schema.fb.vector(fields, 4, 'schema fields');
    for (let k = 0; k < list.count; k++) {
      const field = schema.fb.deref(list.first + 4 * k, 'schema fields');
      const layout = layoutOf(schema, field);
      if (!layout) return false;
      const name = schema.fb.text(field, 0, 'field name');
      if (node >= nodes.count) throw new Damage(`it has ${n(nodes.count)} field nodes, fewer than its schema's fields`);
      const claimed = fb.i64At(nodes.first + 16 * node);
      // a column has the batch's rows (apache-arrow reads the batch's rows of each)
      if (depth === 0 && claimed !== rows) throw new Damage(`its field node ${node + 1} (field ${JSON.stringify(name)}) has ${n(claimed)} values, the record batch ${n(rows)} rows`);
      const length = Number(claimed);
      const nulls = Number(fb.i64At(nodes.first + 16 * node + 8));
      node++;
      for (const need of layout.validity ? [nulls > 0 ? bitmap : unbounded, ...layout.buffers] : layout.buffers) {
        if (buffer >= buffers.count) throw new Damage(`it has ${n(buffers.count)} buffers, fewer than its schema's fields take`);
        const have = Number(fb.i64At(buffers.first + 16 * buffer + 8));
        const wanted = need(length);
        if (have < wanted) throw new Damage(`its buffer ${buffer + 1} (of field ${JSON.stringify(name)}) is ${n(have)} bytes, less than the ${n(wanted)} its ${n(length)} values take`);
        buffer++;
      }
      // checkSchema bounded the nesting
      if (!visit(schema.fb.ref(field, 5, 'field children'), depth + 1)) return false;
    }
    return true;
  };
  visit(schema.fb.ref(schema.table, 1, 'schema fields'), 0);
}
