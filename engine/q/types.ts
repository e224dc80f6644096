/**
 * q's type numbers as the decoders name them in errors, and the bytes one item of each simple vector
 * takes: shared by the item decoder (decode.ts) and the columnar one (columns.ts), so both refuse a
 * q object in the same words.
 */

/** The simple vector types (1-19, no 3) by number. */
export const VECTOR_TYPE_NAMES: Readonly<Record<number, string>> = {
  1: 'boolean',
  2: 'guid',
  4: 'byte',
  5: 'short',
  6: 'int',
  7: 'long',
  8: 'real',
  9: 'float',
  10: 'char',
  11: 'symbol',
  12: 'timestamp',
  13: 'month',
  14: 'date',
  15: 'datetime',
  16: 'timespan',
  17: 'minute',
  18: 'second',
  19: 'time',
};

/** Bytes one item of a simple vector takes (a symbol at least its terminating 0). */
export const ITEM_BYTES: Readonly<Record<number, number>> = { 1: 1, 2: 16, 4: 1, 5: 2, 6: 4, 7: 8, 8: 4, 9: 8, 10: 1, 11: 1, 12: 8, 13: 4, 14: 4, 15: 8, 16: 8, 17: 4, 18: 4, 19: 4 };

/** True for a simple vector's type (1-19 but 3). */
export const isSimpleVector = (t: number): boolean => t >= 1 && t <= 19 && t !== 3;

const FUNCTION_NAMES: Readonly<Record<number, string>> = {
  100: 'a lambda',
  101: 'a unary primitive',
  102: 'an operator',
  103: 'an iterator',
  104: 'a projection',
  105: 'a composition',
  106: "an each (f')",
  107: 'an over (f/)',
  108: 'a scan (f\\)',
  109: "an each-prior (f':)",
  110: 'an each-right (f/:)',
  111: 'an each-left (f\\:)',
  112: 'a dynamic load',
};

const article = (w: string): string => (/^[aeiou]/i.test(w) ? `an ${w}` : `a ${w}`);

/** What a q type is, for errors: "a long vector (q type 7)", "a date atom (q type -14)", "a lambda (q type 100)". */
export function qTypeName(t: number): string {
  return `${qTypeWords(t)} (q type ${t})`;
}

/** True for a type number q has (atoms, vectors, enumerations, mapped lists, tables, dictionaries, functions, errors). */
export const isQType = (t: number): boolean => qTypeWords(t) !== NONE;

const NONE = 'no q type';

function qTypeWords(t: number): string {
  if (t === 0) return 'a general list';
  const simple = VECTOR_TYPE_NAMES[Math.abs(t)];
  if (simple !== undefined && t !== -128) return article(`${simple} ${t > 0 ? 'vector' : 'atom'}`);
  if (t === -128) return 'an error';
  if (t >= 20 && t <= 76) return 'an enumerated symbol vector';
  if (t <= -20 && t >= -76) return 'an enumerated symbol atom';
  if (t === 77) return 'an anymap list';
  if (t >= 78 && t <= 96) return article(`mapped list of ${VECTOR_TYPE_NAMES[t - 77] ?? 'unknown'} vectors`);
  if (t === 98) return 'a table';
  if (t === 99) return 'a dictionary';
  if (t === 127) return 'a sorted dictionary';
  const fn = FUNCTION_NAMES[t];
  if (fn !== undefined) return fn;
  return NONE;
}
