/**
 * Decoding a q message's body into the JavaScript values the registry decodes (as REST values are).
 * The bytes come from a client and are trusted for nothing: every count or length is checked against
 * the bytes that remain before anything is allocated, and nesting and the number of values are
 * bounded (maxJsonDepth, maxJsonElements) as they are for a JSON body, so a 30-byte message cannot
 * claim 200M items and a deep or wide one cannot make the serving thread build millions of values.
 *
 * This is the decoder for a call: a few atoms and small vectors, each wanted as a JavaScript value.
 * Tables, keyed tables and q code (lambdas, primitives, projections, iterators) are refused, naming
 * their q type; a table is read as columns by columns.ts.
 */
import { quoteText, TickscopeError } from '../core/errors.js';
import { formatLocalNs, formatTimespan, NEG_INF_TS, POS_INF_TS } from '../core/time.js';
import { Q_EPOCH_DAYS, Q_EPOCH_NS } from './codec.js';
import { ITEM_BYTES, isQType, qTypeName, VECTOR_TYPE_NAMES } from './types.js';
import { datetimeMs, guidText } from './vector-column.js';

/** A q value decoded for the dispatcher: a q symbol is marked (op names, callbacks) where a char vector is a plain string. */
export class QSymbol {
  constructor(readonly name: string) {}
}

/** q's generic null `::` (and the empty callback of `gw(...)`). */
export const Q_NULL = Symbol('q null');

/** Bounds of one message's decoding (the process settings of the same names). */
export interface DecodeLimits {
  /** Deepest nesting of lists and dictionaries. */
  readonly maxJsonDepth: number;
  /** Most values: every atom, vector item, list and dictionary counts one (a string counts one). */
  readonly maxJsonElements: number;
}

const DEFAULT_LIMITS: DecodeLimits = { maxJsonDepth: 64, maxJsonElements: 1_000_000 };

const NULL_LONG = -9223372036854775808n;
/**
 * What a temporal value (types 12-19) counts against maxJsonElements: its text is built here, ~1-2 us
 * each (a million timestamps held the serving thread 2 s; 62,500 of them take ~0.1 s).
 */
const TEMPORAL_WEIGHT = 16;
const weight = (t: number): number => (t >= 12 && t <= 19 ? TEMPORAL_WEIGHT : 1);

/** The q literal of a timestamp (ns from 1970) for the registry: `2024.01.02D09:30:00.000000000`. */
function timestampText(ns: bigint): string {
  if (ns === NULL_LONG) return '';
  if (ns >= POS_INF_TS) return '0Wp';
  if (ns <= NEG_INF_TS) return '-0Wp';
  return formatLocalNs(ns).replace('T', 'D').replace(/-/g, '.');
}

/**
 * Decodes the body of a message (what follows its 8-byte header) into JavaScript values: atoms as numbers,
 * booleans and strings (timestamps, dates and timespans as their q literals, which the registry
 * reads as it reads REST strings), symbols as QSymbol at the top level of a list and as strings
 * inside dictionaries and vectors, lists as arrays, dictionaries with symbol keys as objects, nulls
 * (the null guid too) as null, `::` as Q_NULL. Throws ac 13 for a malformed message and ac 57 past a limit, naming where in the message.
 */
export function decodeMessage(b: Uint8Array, limits: DecodeLimits = DEFAULT_LIMITS): unknown {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let pos = 0;
  let elements = 0;
  // where the decoder is, for errors: [1].idList[3]
  const path: string[] = [];
  const where = (): string => {
    const at = path.join('');
    if (!at) return '';
    return ` at ${at.length > 200 ? `...${at.slice(-197)}` : at}`;
  };
  const bad = (why: string): TickscopeError => new TickscopeError('badRequest', `q message${where()}: ${why}`);
  const need = (n: number): void => {
    if (pos + n > b.length) throw bad('ends early');
  };
  const count = (n: number): void => {
    elements += n;
    if (elements > limits.maxJsonElements) {
      throw new TickscopeError('inputLimit', `q message${where()}: more than ${limits.maxJsonElements} values (maxJsonElements; a temporal value counts ${TEMPORAL_WEIGHT}); send fewer or smaller arguments`);
    }
  };
  const i8 = (): number => (need(1), v.getInt8(pos++));
  const u8 = (): number => (need(1), b[pos++]!);
  const i16 = (): number => (need(2), (pos += 2), v.getInt16(pos - 2, true));
  const i32 = (): number => (need(4), (pos += 4), v.getInt32(pos - 4, true));
  const i64 = (): bigint => (need(8), (pos += 8), v.getBigInt64(pos - 8, true));
  const text = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const f32 = (): number => (need(4), (pos += 4), v.getFloat32(pos - 4, true));
  const f64 = (): number => (need(8), (pos += 8), v.getFloat64(pos - 8, true));
  const sym = (): string => {
    // short ASCII symbols (most of them) built here: a call into Buffer per symbol costs ~0.8 us
    let end = pos;
    let ascii = true;
    while (end < b.length && b[end] !== 0) {
      if (b[end]! > 0x7f) ascii = false;
      end++;
    }
    if (end >= b.length) throw bad('a symbol without its terminating 0');
    const s = ascii && end - pos <= 64 ? String.fromCharCode.apply(null, b.subarray(pos, end) as unknown as number[]) : text.toString('utf8', pos, end);
    pos = end + 1;
    return s;
  };
  /** A count read from the message, checked against what remains before anything is built for it. */
  const itemCount = (what: string, itemBytes: number): number => {
    const n = i32();
    const left = b.length - pos;
    if (n < 0) throw bad(`${what} of ${n} items`);
    if (n * itemBytes > left) throw bad(`${what} claims ${n} items (at least ${n * itemBytes} bytes) but ${left} bytes remain`);
    return n;
  };
  const intOrNull = (x: number, nul: number): number | null => (x === nul ? null : x);
  const atom = (t: number): unknown => {
    switch (t) {
      case 1:
        return u8() !== 0;
      case 2: {
        need(16);
        const g = guidText(b, pos);
        pos += 16;
        return g === '' ? null : g;
      }
      case 4:
        return u8();
      case 5:
        return intOrNull(i16(), -32768);
      case 6:
        return intOrNull(i32(), -2147483648);
      case 7: {
        // in halves: a BigInt per long costs ~0.1 us, a million of them 0.1 s
        need(8);
        const lo = v.getUint32(pos, true);
        const hi = v.getInt32(pos + 4, true);
        pos += 8;
        if (hi === -2147483648 && lo === 0) return null;
        const x = hi * 4294967296 + lo;
        return Number.isSafeInteger(x) ? x : ((BigInt(hi) << 32n) | BigInt(lo)).toString();
      }
      case 8: {
        const x = f32();
        return x !== x ? null : x;
      }
      case 9: {
        const x = f64();
        return x !== x ? null : x;
      }
      case 10:
        return String.fromCharCode(u8());
      case 11:
        return sym();
      case 12: {
        const x = i64();
        return x === NULL_LONG ? null : timestampText(x === POS_INF_TS || x === NEG_INF_TS ? x : x + Q_EPOCH_NS);
      }
      case 13: {
        const m = i32();
        return m === -2147483648 ? null : `${2000 + Math.floor(m / 12)}.${String((((m % 12) + 12) % 12) + 1).padStart(2, '0')}.01`;
      }
      case 14: {
        const d = i32();
        return d === -2147483648 ? null : timestampText(BigInt(d + Q_EPOCH_DAYS) * 86_400_000_000_000n).slice(0, 10);
      }
      case 15: {
        const x = f64();
        if (x !== x) return null;
        // q's datetime infinities (0w, -0w), and days past any timestamp, are the timestamp infinities
        const ms = datetimeMs(x);
        if (ms === Infinity || ms === -Infinity) return ms > 0 ? '0Wp' : '-0Wp';
        return timestampText(BigInt(ms) * 1_000_000n);
      }
      case 16: {
        const x = i64();
        return x === NULL_LONG ? null : formatTimespan(x);
      }
      case 17: {
        const x = i32();
        return x === -2147483648 ? null : formatTimespan(BigInt(x) * 60_000_000_000n);
      }
      case 18: {
        const x = i32();
        return x === -2147483648 ? null : formatTimespan(BigInt(x) * 1_000_000_000n);
      }
      case 19: {
        const x = i32();
        return x === -2147483648 ? null : formatTimespan(BigInt(x) * 1_000_000n);
      }
      default:
        throw bad(`type ${-t} is not a q atom type`);
    }
  };
  let depth = 0;
  /** One q object; `names` label a general list's items in errors (a dictionary's keys). */
  const value = (top: boolean, names?: readonly string[]): unknown => {
    if (++depth > limits.maxJsonDepth) throw new TickscopeError('inputLimit', `q message${where()}: nested deeper than ${limits.maxJsonDepth} (maxJsonDepth)`);
    try {
      count(1);
      const t = i8();
      if (t === -128) throw bad(`the client sent an error: ${quoteText(sym())}`);
      if (t === -11) {
        const s = sym();
        return top ? new QSymbol(s) : s;
      }
      if (t < 0 && t >= -19) {
        count(weight(-t) - 1);
        return atom(-t);
      }
      if (t === 0) {
        u8(); // attribute
        // every q object takes at least 2 bytes (a type and one more)
        const n = itemCount('a list', 2);
        const out: unknown[] = [];
        for (let k = 0; k < n; k++) {
          const key = names?.[k];
          path.push(key !== undefined && /^[A-Za-z_][\w.]*$/.test(key) && key.length <= 64 ? `.${key}` : `[${k}]`);
          out.push(value(top && depth === 1));
          path.pop();
        }
        return out;
      }
      if (t > 0 && t <= 19 && t !== 3) {
        u8(); // attribute
        const n = itemCount(`a ${VECTOR_TYPE_NAMES[t]} vector`, ITEM_BYTES[t]!);
        if (t === 10) {
          const s = text.toString('utf8', pos, pos + n);
          pos += n;
          return s;
        }
        count(n * weight(t));
        const out: unknown[] = new Array(n);
        for (let k = 0; k < n; k++) out[k] = atom(t);
        return out;
      }
      if (t === 99 || t === 127) {
        need(1);
        const keyType = v.getInt8(pos);
        if (keyType !== 11 && keyType !== 0) throw bad(`a dictionary whose keys are ${qTypeName(keyType)}; arguments are a dictionary of symbols to values`);
        const keys = value(false);
        const keyNames = Array.isArray(keys) && keys.every((k) => typeof k === 'string') ? (keys as string[]) : undefined;
        const vals = value(false, keyNames);
        if (!Array.isArray(keys) || !keyNames) {
          if (Array.isArray(keys) && keys.length === 0) return {};
          throw bad('a dictionary whose keys are a general list (q type 0) of other than symbols; arguments are a dictionary of symbols to values');
        }
        // a char vector of values is one char per key: spread only once its length is known to fit
        const list = Array.isArray(vals) ? vals : typeof vals === 'string' && vals.length === keyNames.length ? [...vals] : null;
        if (!list || list.length !== keyNames.length) throw bad('a dictionary whose keys and values differ in count');
        const o: Record<string, unknown> = {};
        keyNames.forEach((k, idx) => {
          if (list[idx] !== Q_NULL) o[k] = list[idx];
        });
        return o;
      }
      if (t === 98) throw bad('a table (q type 98); arguments are a dictionary');
      // :: is the unary primitive 0; any other primitive is q code
      if (t === 101 && (need(1), b[pos] === 0)) {
        pos++;
        return Q_NULL;
      }
      if (t >= 100 && t <= 112) throw bad(`${qTypeName(t)}: q code is not evaluated here; send (op; args) or (op; args; callback; opts)`);
      throw bad(isQType(t) ? `${qTypeName(t)} is not read here` : `type ${t} is not a q type`);
    } finally {
      depth--;
    }
  };
  const out = value(true);
  if (pos !== b.length) throw bad(`${b.length - pos} bytes after the object`);
  return out;
}
