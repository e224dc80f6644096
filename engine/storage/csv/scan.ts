/**
 * CSV records and fields found in a file's bytes (RFC 4180: `"` quotes, `""` inside quotes is one
 * quote, CRLF or LF or CR records, a UTF-8 BOM, empty lines skipped): where each field of a batch of
 * records starts and ends goes into two int32 arrays, and each record's first byte into a third, so
 * that the columns parse their fields from the bytes (columns.ts). Record structure errors keep the
 * words of csv-parse, which `import` used before (`Invalid Record Length: expect 3, got 2 on line 4`
 * ...); line numbers are lines of the file, counted only when an error asks.
 */
import { isUtf8 } from 'node:buffer';
import { TickscopeError } from '../../core/errors.js';

const LF = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const COMMA = 44;

const fail = (msg: string): never => {
  throw new TickscopeError('importFailed', msg);
};

/**
 * The input as a Buffer of valid UTF-8, and whether it is ours to change. Invalid sequences become
 * U+FFFD, as they did when the file was decoded to a string before parsing (the check costs a few
 * milliseconds; the copy is made only for such files).
 */
export function utf8Bytes(input: Uint8Array | string): { buf: Buffer; owned: boolean } {
  if (typeof input === 'string') return { buf: Buffer.from(input, 'utf8'), owned: true };
  const b = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  return isUtf8(b) ? { buf: b, owned: false } : { buf: Buffer.from(b.toString('utf8'), 'utf8'), owned: true };
}

const enum Rd {
  Unknown = 0,
  Lf = 1,
  CrLf = 2,
  Cr = 3,
}

/**
 * Finds records and fields; it never changes the bytes. The record delimiter is the first line break
 * found outside quotes (CRLF, LF or CR), as csv-parse settled it; a line break of another kind is then
 * data. A quoted field holding doubled quotes is recorded with its start complemented (~start) and
 * `escaped` set, for unescapeFields.
 */
export class Scanner {
  private readonly len: number;
  private pos = 0;
  private rd = Rd.Unknown;
  /** The last quoted field's content (doubled quotes still doubled when qEscaped). */
  private qs = 0;
  private qe = 0;
  private qEscaped = false;
  /** Whether a field scanned since the last reset holds doubled quotes. */
  escaped = false;
  /** Where the last record starts, and ends (its delimiter, or the end of the input). */
  recordStart = 0;
  private recordEnd = 0;
  private lineMemo = { pos: 0, line: 1 };
  /** buf as 4-byte words, for the scan's word-at-a-time step (see wordsOf). */
  private words: Int32Array;

  private buf: Buffer;

  constructor(
    buf: Buffer,
    readonly fileName: string,
  ) {
    if (buf.length >= 0x7fffffff) fail(`${fileName}: larger than 2 GB; split it into smaller files`);
    this.len = buf.length;
    this.buf = buf;
    this.words = wordsOf(buf);
    if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) this.pos = 3;
  }

  /** Goes on over a copy of the bytes (unescapeFields makes one). */
  useBuffer(buf: Buffer): void {
    this.buf = buf;
    this.words = wordsOf(buf);
  }

  /** Where scanning goes on. */
  get offset(): number {
    return this.pos;
  }

  /** The first record's fields, the scan then back where it was (a file without a header: its width). */
  peek(): string[] | undefined {
    const at = this.pos;
    const first = this.header();
    this.pos = at;
    return first;
  }

  /** The header's names, or undefined when the file holds no record. */
  header(): string[] | undefined {
    // room for any width: scan again with more when the first try was too narrow
    let cap = 256;
    for (;;) {
      const starts = new Int32Array(cap);
      const ends = new Int32Array(cap);
      const at = this.pos;
      const n = this.record(starts, ends, 0, cap);
      if (n < 0) return undefined;
      if (n <= cap) return Array.from({ length: n }, (_, j) => fieldText(this.buf, starts[j]!, ends[j]!));
      this.pos = at;
      cap = n;
    }
  }

  /**
   * Scans up to `max` records of `ncols` fields into starts/ends (`ncols` per record) and where each
   * record starts into rowStarts; returns how many (0 at the end).
   */
  batch(starts: Int32Array, ends: Int32Array, rowStarts: Int32Array, max: number, ncols: number): number {
    let r = 0;
    while (r < max) {
      const n = this.record(starts, ends, r * ncols, ncols);
      if (n < 0) break;
      if (n !== ncols) this.recordLength(ncols, n);
      rowStarts[r] = this.recordStart;
      r++;
    }
    return r;
  }

  /** Scans the remaining records only for their structure (what csv-parse reported first). */
  skipRest(ncols: number): void {
    const none = new Int32Array(0);
    for (;;) {
      const n = this.record(none, none, 0, 0);
      if (n < 0) return;
      if (n !== ncols) this.recordLength(ncols, n);
    }
  }

  /**
   * One record: its fields' content ranges go to starts/ends from `base` (at most `ncols` of them);
   * returns its number of fields, or -1 when no record is left. Empty lines are skipped.
   */
  private record(starts: Int32Array, ends: Int32Array, base: number, ncols: number): number {
    const len = this.len;
    const buf = this.buf;
    const words = this.words;
    let p = this.pos;
    for (;;) {
      if (p >= len) {
        this.pos = p;
        return -1;
      }
      const c = buf[p]!;
      if (c !== LF && c !== CR) break;
      const d = this.delimiterAt(p);
      if (d === 0) break; // a line break of another kind than the file's: data
      p += d;
    }
    this.recordStart = p;
    let nf = 0;
    for (;;) {
      let s = p;
      let e: number;
      let c = -1;
      if (p < len && buf[p] === QUOTE) {
        p = this.quoted(p);
        s = this.qs;
        e = this.qe;
        if (this.qEscaped) {
          s = ~s;
          this.escaped = true;
        }
        if (p < len) {
          c = buf[p]!;
          if (c !== COMMA && this.delimiterAt(p) === 0) {
            fail(`${this.fileName}: Invalid Closing Quote: got "${String.fromCharCode(c)}" at line ${this.lineAt(p)} instead of delimiter, record delimiter, trimable character (if activated) or comment`);
          }
        }
      } else {
        // Four bytes at a time while none of them is a delimiter, quote or line break: those are
        // the only bytes below 45 that end a field, and (x - 0x2d2d2d2d) & ~x & 0x80808080 is
        // nonzero exactly when a byte of x is below 45 (the lowest such byte borrows; no byte
        // from 45 up, ASCII or UTF-8, sets its top bit in both terms). Fields average ~10 bytes.
        while ((p & 3) !== 0 && p < len && buf[p]! > COMMA) p++;
        if ((p & 3) === 0) {
          const last = words.length;
          let w = p >> 2;
          while (w < last) {
            const x = words[w]!;
            if (((x - 0x2d2d2d2d) & ~x & 0x80808080) !== 0) break;
            w++;
          }
          p = w << 2;
        }
        // then byte by byte: every byte above ',' (digits, letters, '.', '-', ':', UTF-8) is content
        for (;;) {
          if (p >= len) {
            c = -1;
            break;
          }
          c = buf[p]!;
          if (c > COMMA) {
            p++;
            continue;
          }
          if (c === COMMA) break;
          if (c === QUOTE) {
            const bom = p - s === 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf ? ' (utf8 bom)' : '';
            fail(`${this.fileName}: Invalid Opening Quote: a quote is found on field ${nf} at line ${this.lineAt(p)}, value is ${JSON.stringify(buf.toString('utf8', s, p))}${bom}`);
          }
          if ((c === LF || c === CR) && this.delimiterAt(p) !== 0) break;
          p++;
        }
        e = p;
      }
      if (nf < ncols) {
        starts[base + nf] = s;
        ends[base + nf] = e;
      }
      nf++;
      if (c === COMMA) {
        p++;
        continue;
      }
      this.recordEnd = p;
      this.pos = c < 0 ? len : p + this.delimiterAt(p);
      return nf;
    }
  }

  /**
   * A quoted field from its opening quote at p0: sets qs/qe to its content (doubled quotes still
   * doubled; qEscaped says whether there are any) and returns the position after the closing quote.
   */
  private quoted(p0: number): number {
    const buf = this.buf;
    const len = this.len;
    let p = p0 + 1;
    let escaped = false;
    for (;;) {
      p = buf.indexOf(QUOTE, p);
      if (p < 0) fail(`${this.fileName}: Quote Not Closed: the parsing is finished with an opening quote at line ${this.lineAt(len - 1)}`);
      if (p + 1 < len && buf[p + 1] === QUOTE) {
        escaped = true;
        p += 2;
        continue;
      }
      break;
    }
    this.qs = p0 + 1;
    this.qe = p;
    this.qEscaped = escaped;
    return p + 1;
  }

  /** The length of the record delimiter at p (0 when there is none), settling the delimiter on first sight. */
  private delimiterAt(p: number): number {
    const buf = this.buf;
    const c = buf[p];
    switch (this.rd) {
      case Rd.Lf:
        return c === LF ? 1 : 0;
      case Rd.CrLf:
        return c === CR && p + 1 < this.len && buf[p + 1] === LF ? 2 : 0;
      case Rd.Cr:
        return c === CR ? 1 : 0;
      default:
        if (c === LF) {
          this.rd = Rd.Lf;
          return 1;
        }
        if (c === CR) {
          if (p + 1 < this.len && buf[p + 1] === LF) {
            this.rd = Rd.CrLf;
            return 2;
          }
          this.rd = Rd.Cr;
          return 1;
        }
        return 0;
    }
  }

  private recordLength(expected: number, got: number): never {
    const at = this.recordEnd < this.len ? this.recordEnd : this.len - 1;
    return fail(`${this.fileName}: Invalid Record Length: expect ${expected}, got ${got} on line ${this.lineAt(at)}`);
  }

  /**
   * The line (from 1) holding byte p: one more than the line breaks before it (LF, CRLF or a lone
   * CR). Only errors ask, so it counts then (on from the last answer when p is past it).
   */
  lineAt(p: number): number {
    const buf = this.buf;
    let { pos: i, line } = this.lineMemo;
    if (p < i) {
      i = 0;
      line = 1;
    }
    for (; i < p; i++) {
      const c = buf[i];
      if (c === LF || (c === CR && buf[i + 1] !== LF)) line++;
    }
    this.lineMemo = { pos: i, line };
    return line;
  }
}

/** The whole 4-byte words of a buffer whose first byte is 4-aligned (else none: bytes are scanned one by one). */
function wordsOf(buf: Buffer): Int32Array {
  return buf.byteOffset % 4 === 0 ? new Int32Array(buf.buffer, buf.byteOffset, buf.length >> 2) : new Int32Array(0);
}

/** A field's text; `s` complemented marks doubled quotes to undo. */
function fieldText(buf: Buffer, s: number, e: number): string {
  return s < 0 ? buf.toString('utf8', ~s, e).replaceAll('""', '"') : buf.toString('utf8', s, e);
}

/**
 * Undoes doubled quotes in the marked fields of a batch, in place: the content moves left within its
 * own field and the bytes it leaves become blanks (so line counts over them stay as they were).
 * Needs a buffer of our own: the caller's bytes are copied the first time.
 */
export function unescapeFields(input: { buf: Buffer; owned: boolean }, starts: Int32Array, ends: Int32Array, n: number): void {
  if (!input.owned) {
    input.buf = Buffer.from(input.buf);
    input.owned = true;
  }
  const buf = input.buf;
  for (let k = 0; k < n; k++) {
    if (starts[k]! >= 0) continue;
    const s = ~starts[k]!;
    const e = ends[k]!;
    let w = s;
    for (let p = s; p < e; p++) {
      buf[w++] = buf[p]!;
      if (buf[p] === QUOTE) p++; // the second of a pair
    }
    buf.fill(SPACE, w, e);
    starts[k] = s;
    ends[k] = w;
  }
}
