/**
 * Casting values (REST strings or native JSON, imported cells) to a column's type, for filters and imports.
 * Returns a CastValue or throws an error naming the argument, value and expected form.
 */
import type { ColumnType } from './column.js';
import { argError } from './errors.js';
import { NULL_INT32, NULL_TS, parseDate, parseTimespan, parseTimestampLiteral } from './time.js';
import { localToInstant } from './tz.js';

/** A scalar in a column's domain: number (NaN null), bigint ns (NULL_TS null), string ("" null), boolean. */
export type CastValue = number | bigint | string | boolean;

const EXPECTED: Record<ColumnType, string> = {
  float: 'a number such as 101.5 or "101.5"',
  long: 'an integer such as 100 or "100"',
  int: 'an integer such as 100 or "100"',
  timestamp: 'a timestamp such as 2024.01.02D09:30:00.000000000',
  timespan: 'a timespan such as 0D00:00:01.5 or 00:00:01',
  date: 'a date such as 2024.01.02',
  symbol: 'a name (string)',
  string: 'a string',
  boolean: 'a boolean: true, false, "1b" or "0b"',
  'float[]': 'no filter value (list columns cannot be filtered)',
  'long[]': 'no filter value (list columns cannot be filtered)',
};

/** True when the value is the null of its type. */
export function isNullValue(v: CastValue): boolean {
  return (typeof v === 'number' && v !== v) || v === NULL_TS || v === '' || v === NULL_INT32;
}

/** Casts one value to a column type; `arg` and `column` name it in errors. */
export function castValue(
  v: unknown,
  type: ColumnType,
  ctx: { arg: string; column: string; inputTZ: string; source?: unknown },
): CastValue {
  const fail = (): never => {
    throw argError('badValue', ctx.arg, ctx.source ?? v, `has ${JSON.stringify(v)}, which does not fit column ${ctx.column} (${type})`, EXPECTED[type]);
  };
  switch (type) {
    case 'float':
    case 'long':
    case 'int': {
      if (v === null || v === '' || v === '0n' || v === '0N') return NaN;
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      if (Number.isNaN(n)) return fail();
      if (type !== 'float' && !Number.isInteger(n)) return fail();
      return n;
    }
    case 'timestamp': {
      if (v === null || v === '' || v === '0Np') return NULL_TS;
      const lit = typeof v === 'string' ? parseTimestampLiteral(v) : undefined;
      if (!lit) return fail();
      return lit.kind === 'instant' ? lit.ns : localToInstant(lit.local, ctx.inputTZ);
    }
    case 'timespan': {
      if (v === null || v === '' || v === '0Nn') return NULL_TS;
      const s = typeof v === 'string' ? parseTimespan(v) : undefined;
      return s ?? fail();
    }
    case 'date': {
      if (v === null || v === '' || v === '0Nd') return NULL_INT32;
      const d = typeof v === 'string' ? parseDate(v) : undefined;
      return d ?? fail();
    }
    case 'symbol':
    case 'string':
      if (v === null) return '';
      if (typeof v === 'string') return v;
      if (typeof v === 'number' || typeof v === 'boolean') return String(v);
      return fail();
    case 'boolean':
      if (v === true || v === '1b' || v === 'true' || v === 1 || v === '1') return true;
      if (v === false || v === '0b' || v === 'false' || v === 0 || v === '0') return false;
      return fail();
    case 'float[]':
    case 'long[]':
      return fail();
  }
}
