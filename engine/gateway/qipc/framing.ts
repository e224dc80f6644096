/**
 * Whole q messages out of a socket's chunks. Chunks are kept as they arrive and a message is copied
 * once, when its claimed length is in (concatenating on every chunk made a 63 MB message sent in
 * 64 KB chunks cost minutes); the claim is checked as soon as the 8-byte header is in, so a client
 * cannot make the gateway hold more than `maxBytes` for it.
 */
import { TickscopeError } from '../../core/errors.js';
import { MSG_RESPONSE, type MessageHeader, readHeader } from '../../q/codec.js';

/** A whole message: its header and its bytes (header included). */
export interface Frame {
  readonly header: MessageHeader;
  readonly bytes: Buffer;
}

/** Frames q messages out of the bytes of one connection. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private have = 0;
  private header: MessageHeader | null = null;

  constructor(private readonly maxBytes: number) {}

  /** Bytes received and not yet handed out as a message. */
  get buffered(): number {
    return this.have;
  }

  /** Adds bytes as they arrived. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.have += chunk.length;
  }

  /**
   * The next whole message, or null while its bytes are not all in. Throws at a header that cannot
   * be framed or is refused (big-endian, an unknown type, a length under 9 or past maxBytes): the
   * connection's framing is lost, so the caller answers and closes.
   */
  next(): Frame | null {
    if (!this.header) {
      if (this.have < 8) return null;
      const h = readHeader(this.peek(8));
      if (!h.littleEndian) throw new TickscopeError('badRequest', 'q message: a big-endian message; send little-endian messages (byte 0 = 1)');
      if (h.type > MSG_RESPONSE) throw new TickscopeError('badRequest', `q message: message type ${h.type}; expected 0 (async), 1 (sync) or 2 (response)`);
      if (h.length < 9) throw new TickscopeError('badRequest', `q message: a length of ${h.length} bytes; a message has at least 9`);
      if (h.length > this.maxBytes) throw new TickscopeError('tooLarge', `q message: ${h.length} bytes claimed; at most ${this.maxBytes} (maxQMessageBytes)`);
      this.header = h;
    }
    if (this.have < this.header.length) return null;
    const frame = { header: this.header, bytes: this.take(this.header.length) };
    this.header = null;
    return frame;
  }

  /** The first n bytes (n <= have), not consumed. */
  private peek(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= n) return first.subarray(0, n);
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    for (const c of this.chunks) {
      at += c.copy(out, at, 0, Math.min(c.length, n - at));
      if (at === n) break;
    }
    return out;
  }

  /** The first n bytes (n <= have), consumed: a view of one chunk, or one copy of several. */
  private take(n: number): Buffer {
    this.have -= n;
    const first = this.chunks[0]!;
    if (first.length >= n) {
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    let used = 0;
    for (const c of this.chunks) {
      const k = Math.min(c.length, n - at);
      c.copy(out, at, 0, k);
      at += k;
      if (k < c.length) {
        this.chunks[used] = c.subarray(k);
        break;
      }
      used++;
      if (at === n) break;
    }
    this.chunks.splice(0, used);
    return out;
  }
}
