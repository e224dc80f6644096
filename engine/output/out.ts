/**
 * The byte buffer every text renderer writes into: one large Uint8Array filled in place (numbers,
 * timestamps and dictionary bytes written as bytes, never as intermediate strings), handed to the
 * consumer a chunk at a time. A handed-out chunk is never written again (a new buffer follows), so a
 * consumer may keep it (an HTTP response, a worker's transfer list) without copying; a consumer that
 * is done with each chunk before asking for the next (a synchronous write) may let the buffer be
 * reused, which spares the fresh pages' faults (about a third of the time of a large JSON output).
 */

/** Bytes a renderer may write without asking (the largest fixed-width cell, with its separators). */
export const CELL_SLACK = 64;

const encoder = new TextEncoder();

export class Out {
  buf: Uint8Array;
  pos = 0;
  /** Bytes handed to the consumer so far. */
  written = 0;

  constructor(
    private readonly sink: (chunk: Uint8Array) => void,
    readonly chunkBytes = 1 << 20,
    /** The consumer is done with a chunk when its call returns: the buffer is written again (no fresh pages). */
    private readonly reuse = false,
  ) {
    this.buf = new Uint8Array(chunkBytes + CELL_SLACK);
  }

  /** Makes room for `n` more bytes (hands the filled part over when it would not fit). */
  need(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) this.buf = new Uint8Array(n + CELL_SLACK);
  }

  /** A larger buffer keeping what is written (a row longer than a chunk). */
  grow(bytes: number): void {
    if (bytes <= this.buf.length) return;
    const next = new Uint8Array(bytes + CELL_SLACK);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** True when the chunk is full enough to hand over (checked between rows). */
  get full(): boolean {
    return this.pos >= this.chunkBytes;
  }

  /** Hands the filled part to the consumer and starts a new buffer. */
  flush(): void {
    if (this.pos === 0) return;
    const chunk = this.buf.subarray(0, this.pos);
    this.written += this.pos;
    if (!this.reuse) this.buf = new Uint8Array(this.chunkBytes + CELL_SLACK);
    this.pos = 0;
    this.sink(chunk);
  }

  /** Writes a string of ASCII characters (keys, separators, rendered numbers). */
  ascii(s: string): void {
    this.need(s.length);
    const b = this.buf;
    let p = this.pos;
    for (let k = 0; k < s.length; k++) b[p++] = s.charCodeAt(k);
    this.pos = p;
  }

  /** Writes any string as UTF-8. */
  text(s: string): void {
    this.need(s.length * 3);
    this.pos += encoder.encodeInto(s, this.buf.subarray(this.pos)).written;
  }

  /** Writes bytes. */
  bytes(src: Uint8Array): void {
    this.need(src.length);
    this.buf.set(src, this.pos);
    this.pos += src.length;
  }
}

/** A string's UTF-8 bytes. */
export const utf8 = (s: string): Uint8Array => encoder.encode(s);
