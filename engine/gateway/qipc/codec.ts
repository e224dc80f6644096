/**
 * The kdb+ IPC wire format (little-endian): message headers, decompression of compressed messages,
 * decoding q objects into the JavaScript values the registry decodes (as REST values are), and a
 * writer for q objects. Timestamps and dates count from 2000.01.01 in q.
 */
import { TickscopeError } from '../../core/errors.js';
import { formatLocalNs, formatTimespan, NEG_INF_TS, POS_INF_TS } from '../../core/time.js';

/** ns from 1970.01.01 to 2000.01.01 (q's epoch). */
export const Q_EPOCH_NS = 946_684_800_000_000_000n;
/** days from 1970.01.01 to 2000.01.01. */
export const Q_EPOCH_DAYS = 10_957;

export const MSG_ASYNC = 0;
export const MSG_SYNC = 1;
export const MSG_RESPONSE = 2;

/** A q message's header: its type (async, sync, response), whether compressed, its whole length. */
export interface MessageHeader {
  readonly littleEndian: boolean;
  readonly type: number;
  readonly compressed: boolean;
  readonly length: number;
}

export function readHeader(b: Uint8Array): MessageHeader {
  const little = b[0] === 1;
  const v = new DataView(b.buffer, b.byteOffset, 8);
  return { littleEndian: little, type: b[1]!, compressed: b[2] === 1, length: v.getUint32(4, little) };
}

/**
 * A compressed message (kdb+'s IPC compression) as the uncompressed message: the header copied
 * (compressed flag cleared), then the body rebuilt from literals and back references through a table
 * of the last position of each byte pair's XOR.
 */
export function decompress(src: Uint8Array): Uint8Array {
  const size = new DataView(src.buffer, src.byteOffset + 8, 4).getInt32(0, true);
  if (size < 8 || size > 2 ** 31 - 1) throw new TickscopeError('badRequest', `q message: compressed message claims ${size} bytes`);
  const dst = new Uint8Array(size);
  dst.set(src.subarray(0, 8));
  dst[2] = 0;
  const aa = new Int32Array(256);
  let s = 8;
  let p = 8;
  let d = 12;
  let f = 0;
  let i = 0;
  while (s < size) {
    if (d >= src.length) throw new TickscopeError('badRequest', 'q message: compressed data ends early');
    if (i === 0) {
      f = src[d++]!;
      i = 1;
    }
    let n = 0;
    if (f & i) {
      let r = aa[src[d++]!]!;
      dst[s++] = dst[r++]!;
      dst[s++] = dst[r++]!;
      n = src[d++]!;
      for (let m = 0; m < n; m++) dst[s + m] = dst[r + m]!;
    } else {
      dst[s++] = src[d++]!;
    }
    while (p < s - 1) {
      aa[dst[p]! ^ dst[p + 1]!] = p;
      p++;
    }
    if (f & i) p = s += n;
    i *= 2;
    if (i === 256) i = 0;
  }
  return dst;
}

/** A q value decoded for the dispatcher: a q symbol is marked (op names, callbacks) where a char vector is a plain string. */
export class QSymbol {
  constructor(readonly name: string) {}
}

/** q's generic null `::` (and the empty callback of `gw(...)`). */
export const Q_NULL = Symbol('q null');

const bad = (why: string): TickscopeError => new TickscopeError('badRequest', `q message: ${why}`);

/** The q literal of a timestamp (ns from 1970) for the registry: `2024.01.02D09:30:00.000000000`. */
function timestampText(ns: bigint): string {
  if (ns === -9223372036854775808n) return '';
  if (ns >= POS_INF_TS) return '0Wp';
  if (ns <= NEG_INF_TS) return '-0Wp';
  return formatLocalNs(ns).replace('T', 'D').replace(/-/g, '.');
}

/**
 * Decodes the body of a message (after its 8-byte header) into JavaScript values: atoms as numbers,
 * booleans and strings (timestamps, dates and timespans as their q literals, which the registry
 * reads as it reads REST strings), symbols as QSymbol at the top level of a list and as strings
 * inside dictionaries and vectors, lists as arrays, dictionaries with symbol keys as objects.
 */
export function decodeMessage(b: Uint8Array): unknown {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let pos = 8;
  const need = (n: number): void => {
    if (pos + n > b.length) throw bad('ends early');
  };
  const i8 = (): number => (need(1), v.getInt8(pos++));
  const u8 = (): number => (need(1), b[pos++]!);
  const i16 = (): number => (need(2), (pos += 2), v.getInt16(pos - 2, true));
  const i32 = (): number => (need(4), (pos += 4), v.getInt32(pos - 4, true));
  const i64 = (): bigint => (need(8), (pos += 8), v.getBigInt64(pos - 8, true));
  const f32 = (): number => (need(4), (pos += 4), v.getFloat32(pos - 4, true));
  const f64 = (): number => (need(8), (pos += 8), v.getFloat64(pos - 8, true));
  const sym = (): string => {
    const end = b.indexOf(0, pos);
    if (end < 0) throw bad('a symbol without its terminating 0');
    const s = Buffer.from(b.buffer, b.byteOffset + pos, end - pos).toString('utf8');
    pos = end + 1;
    return s;
  };
  const intOrNull = (x: number, nul: number): number | null => (x === nul ? null : x);
  const atom = (t: number): unknown => {
    switch (t) {
      case 1:
        return u8() !== 0;
      case 2: {
        need(16);
        const g = Buffer.from(b.buffer, b.byteOffset + pos, 16).toString('hex');
        pos += 16;
        return `${g.slice(0, 8)}-${g.slice(8, 12)}-${g.slice(12, 16)}-${g.slice(16, 20)}-${g.slice(20)}`;
      }
      case 4:
        return u8();
      case 5:
        return intOrNull(i16(), -32768);
      case 6:
        return intOrNull(i32(), -2147483648);
      case 7: {
        const x = i64();
        if (x === -9223372036854775808n) return null;
        return Number.isSafeInteger(Number(x)) ? Number(x) : x.toString();
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
        return x === -9223372036854775808n ? null : timestampText(x === POS_INF_TS || x === NEG_INF_TS ? x : x + Q_EPOCH_NS);
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
        return x !== x ? null : timestampText(BigInt(Math.round(x * 86_400_000)) * 1_000_000n + Q_EPOCH_NS);
      }
      case 16: {
        const x = i64();
        return x === -9223372036854775808n ? null : formatTimespan(x);
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
  const value = (top: boolean): unknown => {
    if (++depth > 64) throw bad('nested more than 64 deep');
    try {
      const t = i8();
      if (t === -128) throw bad(`the client sent an error: ${sym()}`);
      if (t === -11) {
        const s = sym();
        return top ? new QSymbol(s) : s;
      }
      if (t < 0 && t >= -19) return atom(-t);
      if (t === 0) {
        u8(); // attribute
        const n = i32();
        if (n < 0 || n > b.length) throw bad(`a list of ${n} items`);
        const out: unknown[] = [];
        for (let k = 0; k < n; k++) out.push(value(top && depth === 1));
        return out;
      }
      if (t > 0 && t <= 19 && t !== 3) {
        u8(); // attribute
        const n = i32();
        if (n < 0 || n > b.length) throw bad(`a vector of ${n} items`);
        if (t === 10) {
          need(n);
          const s = Buffer.from(b.buffer, b.byteOffset + pos, n).toString('utf8');
          pos += n;
          return s;
        }
        const out: unknown[] = new Array(n);
        for (let k = 0; k < n; k++) out[k] = atom(t);
        return out;
      }
      if (t === 99 || t === 127) {
        const keys = value(false);
        const vals = value(false);
        if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) {
          if (Array.isArray(keys) && keys.length === 0) return {};
          throw bad('a dictionary whose keys are not symbols; arguments are a dictionary of symbols to values');
        }
        const list = Array.isArray(vals) ? vals : typeof vals === 'string' ? [...vals] : null;
        if (!list || list.length !== keys.length) throw bad('a dictionary whose keys and values differ in count');
        const o: Record<string, unknown> = {};
        keys.forEach((k, idx) => {
          if (list[idx] !== Q_NULL) o[k as string] = list[idx];
        });
        return o;
      }
      if (t === 98) throw bad('a table; arguments are a dictionary');
      if (t === 101) {
        u8();
        return Q_NULL;
      }
      if (t >= 100 && t <= 112) throw bad('a function or q code; send (op; args) or (op; args; callback; opts)');
      throw bad(`type ${t} is not a q type`);
    } finally {
      depth--;
    }
  };
  const out = value(true);
  if (pos !== b.length) throw bad(`${b.length - pos} bytes after the object`);
  return out;
}

/** A growable little-endian buffer of q objects. */
export class QWriter {
  private buf: Buffer;
  pos: number;

  constructor(initial = 1 << 16) {
    this.buf = Buffer.allocUnsafe(initial);
    this.pos = 0;
  }

  reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  u8(x: number): void {
    this.reserve(1);
    this.buf[this.pos++] = x & 0xff;
  }

  i32(x: number): void {
    this.reserve(4);
    this.buf.writeInt32LE(x, this.pos);
    this.pos += 4;
  }

  i64(x: bigint): void {
    this.reserve(8);
    this.buf.writeBigInt64LE(x, this.pos);
    this.pos += 8;
  }

  f64(x: number): void {
    this.reserve(8);
    this.buf.writeDoubleLE(x, this.pos);
    this.pos += 8;
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** A symbol's text and its terminating 0 (a 0 inside would end it early: cut there). */
  symText(s: string): void {
    const n = Buffer.byteLength(s);
    this.reserve(n + 1);
    this.buf.write(s, this.pos, 'utf8');
    const zero = this.buf.indexOf(0, this.pos);
    this.pos = zero >= 0 && zero < this.pos + n ? zero : this.pos + n;
    this.buf[this.pos++] = 0;
  }

  /** A vector's type, attribute and count. */
  vector(type: number, n: number): void {
    this.u8(type);
    this.u8(0);
    this.i32(n);
  }

  symbol(s: string): void {
    this.u8(-11 & 0xff);
    this.symText(s);
  }

  chars(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.vector(10, b.length);
    this.bytes(b);
  }

  long(x: number | bigint): void {
    this.u8(-7 & 0xff);
    this.i64(BigInt(x));
  }

  /** A timestamp atom from ns since 1970 (already shifted to wall-clock time where asked). */
  timestamp(ns: bigint): void {
    this.u8(-12 & 0xff);
    this.i64(ns === -9223372036854775808n || ns >= POS_INF_TS || ns <= NEG_INF_TS ? ns : ns - Q_EPOCH_NS);
  }

  error(text: string): void {
    this.u8(-128 & 0xff);
    this.symText(text);
  }

  /** The bytes written, as a message of this type: the 8-byte header followed by what was written after reserving it. */
  message(type: number): Buffer {
    const out = this.buf.subarray(0, this.pos);
    out[0] = 1;
    out[1] = type;
    out[2] = 0;
    out[3] = 0;
    out.writeUInt32LE(this.pos, 4);
    return out;
  }

  /** Starts a message: its header is filled in by `message`. */
  static forMessage(initial?: number): QWriter {
    const w = new QWriter(initial);
    w.pos = 8;
    return w;
  }
}
