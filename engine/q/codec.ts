/**
 * The kdb+ IPC wire format (little-endian): message headers, decompression of compressed messages
 * and a writer for q objects (decode.ts reads them). Timestamps and dates count from 2000.01.01 in q.
 */
import { TickscopeError } from '../core/errors.js';
import { decompressBlockAsync } from './decompress.js';
import { NEG_INF_TS, POS_INF_TS } from '../core/time.js';

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

/** The header at the start of a message (its first 8 bytes). */
export function readHeader(b: Uint8Array): MessageHeader {
  const little = b[0] === 1;
  const v = new DataView(b.buffer, b.byteOffset, 8);
  return { littleEndian: little, type: b[1]!, compressed: b[2] === 1, length: v.getUint32(4, little) };
}

/**
 * The body of a compressed message (kdb+'s IPC compression: the 8-byte header, the unpacked message's
 * whole length as a 32-bit int, then the compressed body), unpacked. The length is checked against
 * `maxBytes` and what the compressed bytes could give before anything is allocated; the body is
 * unpacked in slices that yield to the event loop (decompressBlockAsync).
 */
export async function decompressBody(msg: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  if (msg.length < 12) throw new TickscopeError('badRequest', `q message: a compressed message of ${msg.length} bytes; it needs at least 12 (header and unpacked length)`);
  const size = new DataView(msg.buffer, msg.byteOffset + 8, 4).getInt32(0, true);
  if (size < 9) throw new TickscopeError('badRequest', `q message: a compressed message claims ${size} bytes unpacked; a message has at least 9`);
  try {
    return await decompressBlockAsync(msg.subarray(12), size - 8, maxBytes - 8);
  } catch (e) {
    if (!(e instanceof TickscopeError)) throw e;
    // the block's limit is the message's less its header: name the message's
    const text = e.kind === 'tooLarge' ? `a compressed message claims ${size} bytes unpacked; at most ${maxBytes} (maxQMessageBytes)` : e.message;
    throw new TickscopeError(e.kind, `q message: ${text}`);
  }
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
