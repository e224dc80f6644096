/**
 * The kdb+ IPC wire for the fuzzer and the load run, written apart from engine/gateway/qipc so the
 * gateway is tested against bytes it did not write: an encoder of the q values a client sends, kdb+'s
 * IPC compression (ported from kx's c.java), and a client socket that logs in and reads whole replies.
 */
import { connect, type Socket } from 'node:net';

/** A q value as the fuzzer builds it; `raw` is bytes written as they are (a hand-made object). */
export type QV =
  | { readonly t: 'sym'; readonly v: string }
  | { readonly t: 'syms'; readonly v: readonly string[] }
  | { readonly t: 'chars'; readonly v: string }
  | { readonly t: 'long'; readonly v: bigint }
  | { readonly t: 'float'; readonly v: number }
  | { readonly t: 'bool'; readonly v: boolean }
  /** ns since 2000.01.01 */
  | { readonly t: 'timestamp'; readonly v: bigint }
  /** days since 2000.01.01 */
  | { readonly t: 'date'; readonly v: number }
  | { readonly t: 'timespan'; readonly v: bigint }
  | { readonly t: 'list'; readonly v: readonly QV[] }
  | { readonly t: 'dict'; readonly keys: readonly string[]; readonly v: readonly QV[] }
  | { readonly t: 'null' }
  | { readonly t: 'raw'; readonly v: Uint8Array };

/** ns from 1970.01.01 to 2000.01.01 */
const Q_EPOCH_MS = 946_684_800_000;

/** A q timestamp atom from an ISO-like UTC text ("2024-03-06T14:30:00Z"). */
export const qTimestamp = (iso: string): QV => ({ t: 'timestamp', v: BigInt(Date.parse(iso) - Q_EPOCH_MS) * 1_000_000n });
/** A q date atom from "YYYY-MM-DD". */
export const qDate = (ymd: string): QV => ({ t: 'date', v: Math.round((Date.parse(`${ymd}T00:00:00Z`) - Q_EPOCH_MS) / 86_400_000) });

/** The plain JSON of a REST body as q values: strings as char vectors, lists of strings as symbol vectors, objects as dictionaries. */
export function fromJson(x: unknown): QV {
  if (x === null || x === undefined) return { t: 'null' };
  if (typeof x === 'string') return { t: 'chars', v: x };
  if (typeof x === 'boolean') return { t: 'bool', v: x };
  if (typeof x === 'number') return Number.isInteger(x) ? { t: 'long', v: BigInt(x) } : { t: 'float', v: x };
  if (Array.isArray(x)) return x.length > 0 && x.every((s) => typeof s === 'string') ? { t: 'syms', v: x as string[] } : { t: 'list', v: x.map(fromJson) };
  const o = x as Record<string, unknown>;
  return { t: 'dict', keys: Object.keys(o), v: Object.values(o).map(fromJson) };
}

class Bytes {
  private parts: Buffer[] = [];
  u8(x: number): void {
    this.parts.push(Buffer.of(x & 0xff));
  }
  i32(x: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(x | 0);
    this.parts.push(b);
  }
  i64(x: bigint): void {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(BigInt.asIntN(64, x));
    this.parts.push(b);
  }
  f64(x: number): void {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(x);
    this.parts.push(b);
  }
  sym(s: string): void {
    this.parts.push(Buffer.from(s, 'utf8'), Buffer.of(0));
  }
  raw(b: Uint8Array): void {
    this.parts.push(Buffer.from(b));
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function write(w: Bytes, x: QV): void {
  switch (x.t) {
    case 'sym':
      w.u8(-11);
      return w.sym(x.v);
    case 'syms':
      w.u8(11);
      w.u8(0);
      w.i32(x.v.length);
      for (const s of x.v) w.sym(s);
      return;
    case 'chars': {
      const b = Buffer.from(x.v, 'utf8');
      w.u8(10);
      w.u8(0);
      w.i32(b.length);
      return w.raw(b);
    }
    case 'long':
      w.u8(-7);
      return w.i64(x.v);
    case 'float':
      w.u8(-9);
      return w.f64(x.v);
    case 'bool':
      w.u8(-1);
      return w.u8(x.v ? 1 : 0);
    case 'timestamp':
      w.u8(-12);
      return w.i64(x.v);
    case 'date':
      w.u8(-14);
      return w.i32(x.v);
    case 'timespan':
      w.u8(-16);
      return w.i64(x.v);
    case 'list':
      w.u8(0);
      w.u8(0);
      w.i32(x.v.length);
      for (const y of x.v) write(w, y);
      return;
    case 'dict':
      w.u8(99);
      write(w, { t: 'syms', v: x.keys });
      // a general list of values, as q sends a dictionary of mixed values
      return write(w, { t: 'list', v: x.v });
    case 'null':
      w.u8(101);
      return w.u8(0);
    case 'raw':
      return w.raw(x.v);
  }
}

/** A q object's bytes (no message header). */
export function encodeQ(x: QV): Buffer {
  const w = new Bytes();
  write(w, x);
  return w.done();
}

/** A whole little-endian message: header (type 0 async, 1 sync) and body. */
export function qMessage(type: number, body: Uint8Array): Buffer {
  const h = Buffer.alloc(8);
  h[0] = 1;
  h[1] = type;
  h.writeUInt32LE(8 + body.length, 4);
  return Buffer.concat([h, body]);
}

/**
 * kdb+ IPC compression of a whole message (header included), as kx's c.java does it: literals and
 * two-byte back references found through a table of the last position of each byte pair's XOR. Null
 * when compressing would not pay (kdb+ then sends the message as it is).
 */
export function compressQ(y: Uint8Array): Buffer | null {
  const t = y.length;
  const out = Buffer.alloc(Math.max(t, 64));
  const e = out.length;
  y.subarray(0, 4).forEach((b, k) => (out[k] = b));
  out[2] = 1;
  out.writeInt32LE(t, 8);
  const a = new Int32Array(256);
  let i = 0;
  let f = 0;
  let h0 = 0;
  let h = 0;
  let c = 12;
  let d = c;
  let p = 0;
  let r = 0;
  let s0 = 0;
  let s = 8;
  for (; s < t; i = (i * 2) & 0xff) {
    if (i === 0) {
      if (d > e - 17) return null;
      i = 1;
      out[c] = f;
      c = d++;
      f = 0;
    }
    let g = s > t - 3;
    if (!g) {
      h = (y[s]! ^ y[s + 1]!) & 0xff;
      p = a[h]!;
      g = p === 0 || (y[s]! ^ y[p]!) !== 0;
    }
    if (s0 > 0) {
      a[h0] = s0;
      s0 = 0;
    }
    if (g) {
      h0 = h;
      s0 = s;
      out[d++] = y[s++]!;
    } else {
      a[h] = s++;
      f |= i;
      p += 2;
      s += 1;
      r = s;
      const q = Math.min(s + 255, t);
      for (; y[p] === y[s] && ++s < q; ) ++p;
      out[d++] = h;
      out[d++] = s - r;
    }
  }
  out[c] = f;
  out.writeUInt32LE(d, 4);
  return out.subarray(0, d);
}

/** The same message in the compressed format, every byte a literal (valid at any size). */
export function literalCompressQ(y: Uint8Array): Buffer {
  const parts: number[] = [y[0]!, y[1]!, 1, y[3]!, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let s = 8; s < y.length; s += 8) {
    parts.push(0);
    for (let k = s; k < Math.min(s + 8, y.length); k++) parts.push(y[k]!);
  }
  const out = Buffer.from(parts);
  out.writeUInt32LE(out.length, 4);
  out.writeInt32LE(y.length, 8);
  return out;
}

/** What came back for one message: a reply, the connection closed, or nothing within the wait. */
export type QOutcome = { readonly kind: 'reply'; readonly bytes: Buffer; readonly ms: number } | { readonly kind: 'closed'; readonly ms: number } | { readonly kind: 'silent'; readonly ms: number };

/** A kdb+ IPC client socket: handshake, then messages and whole replies. */
export class QClient {
  private got: Buffer = Buffer.alloc(0);
  private waiter: (() => void) | null = null;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    socket.on('data', (c: Buffer) => {
      this.got = this.got.length ? Buffer.concat([this.got, c]) : c;
      this.waiter?.();
    });
  }

  /** A connected socket (no handshake yet). */
  static async open(port: number, host = '127.0.0.1'): Promise<QClient> {
    const socket = connect(port, host);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    return new QClient(socket);
  }

  /** Opens and logs in with user:password and capability 3; throws when the gateway refuses. */
  static async login(port: number, user: string, password: string, waitMs = 10_000): Promise<QClient> {
    const c = await QClient.open(port);
    const r = await c.handshake(Buffer.concat([Buffer.from(`${user}:${password}`), Buffer.of(3, 0)]), waitMs);
    if (r.kind !== 'reply') {
      c.socket.destroy();
      throw new Error(`q handshake ${r.kind} after ${r.ms.toFixed(0)} ms`);
    }
    return c;
  }

  /** Sends handshake bytes and waits for the one-byte capability answer. */
  async handshake(bytes: Uint8Array, waitMs: number): Promise<QOutcome> {
    const t0 = performance.now();
    this.socket.write(bytes);
    const ok = await this.until(() => this.got.length >= 1, waitMs);
    const ms = performance.now() - t0;
    if (ok) {
      const b = this.got.subarray(0, 1);
      this.got = this.got.subarray(1);
      return { kind: 'reply', bytes: Buffer.from(b), ms };
    }
    return this.closed ? { kind: 'closed', ms } : { kind: 'silent', ms };
  }

  /** Sends bytes; with expectReply waits for one whole message back. */
  async send(bytes: Uint8Array, expectReply: boolean, waitMs: number): Promise<QOutcome> {
    const t0 = performance.now();
    if (this.closed) return { kind: 'closed', ms: 0 };
    this.socket.write(bytes);
    if (!expectReply) return { kind: 'reply', bytes: Buffer.alloc(0), ms: 0 };
    return this.reply(waitMs, t0);
  }

  /** Waits for the next whole message. */
  async reply(waitMs: number, t0 = performance.now()): Promise<QOutcome> {
    const whole = (): boolean => this.got.length >= 8 && this.got.length >= this.got.readUInt32LE(4);
    const ok = await this.until(whole, waitMs);
    const ms = performance.now() - t0;
    if (!ok) return this.closed ? { kind: 'closed', ms } : { kind: 'silent', ms };
    const n = this.got.readUInt32LE(4);
    const bytes = Buffer.from(this.got.subarray(0, n));
    this.got = this.got.subarray(n);
    return { kind: 'reply', bytes, ms };
  }

  close(): void {
    this.socket.destroy();
  }

  private until(cond: () => boolean, waitMs: number): Promise<boolean> {
    if (cond()) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve(cond());
      }, waitMs);
      this.waiter = () => {
        if (cond() || this.closed) {
          clearTimeout(timer);
          this.waiter = null;
          resolve(cond());
        }
      };
    });
  }
}

/** A reply's q error text (type -128), or null when it is not an error. */
export function qErrorText(reply: Buffer): string | null {
  if (reply.length < 10 || reply[8] !== 0x80) return null;
  const end = reply.indexOf(0, 9);
  return reply.subarray(9, end < 0 ? reply.length : end).toString('utf8');
}
