/**
 * Symbol dictionaries. A stored dictionary is UTF-8 bytes plus offsets (storage v2), decoded one
 * string at a time when asked: a query that touches 100 codes of a 2M-entry dictionary decodes about
 * 100 strings. Its buffers may be SharedArrayBuffers, so worker threads can share one copy. A
 * dictionary built in memory (results, the demo) is a plain string array; a CSV import builds a UTF-8
 * one from the file's bytes (storage/csv/columns.ts).
 */
import type { StreamedFiles } from './streamed-files.js';

/** A dictionary: code -> string. "" is the null symbol. */
export interface Dict {
  readonly length: number;
  /** The string of a code (codes are 0 .. length-1). */
  get(code: number): string;
  /** Ascending by code-point order with no repeats (stored dictionaries are). */
  readonly sorted: boolean;
  /**
   * True when no string appears twice (sorted dictionaries hold none either); absent or false when
   * not known. Lets storing skip a dedupe by string (prepare.ts).
   */
  readonly unique?: boolean;
  /**
   * Where a stored dictionary lies (its file, in a partition folder that never changes): two
   * dictionaries with the same source hold the same entries under the same codes, in any thread.
   */
  readonly source?: string | undefined;
  /** Bytes held (for cache accounting). */
  readonly bytes: number;
  /**
   * Brings the entries of these codes (undefined: all) into memory, for a dictionary read from disk
   * in parts: a query calls it for the codes its result keeps, so the result stays renderable after
   * the query (even once a later write has removed the files).
   */
  prefetch?(codes?: Int32Array): void;
  /**
   * For a streamed result that writes every entry (core/streamed-files.ts): reads the
   * entries' offsets now and opens the file of their bytes through `files`, which a writer then
   * copies out as it writes them instead of holding them (a day of execution IDs: 42 MB).
   */
  prefetchStreamed?(files: StreamedFiles): void;
}

/** A dictionary over an array of strings. */
export class StringDict implements Dict {
  readonly sorted: boolean;

  constructor(
    readonly strings: readonly string[],
    sorted = false,
  ) {
    this.sorted = sorted;
  }

  get length(): number {
    return this.strings.length;
  }

  get(code: number): string {
    return this.strings[code]!;
  }

  get bytes(): number {
    return this.strings.length * 16;
  }
}

const EMPTY = new StringDict([], true);

/** A dictionary over strings (no copy). */
export function dictOf(strings: readonly string[], sorted = false): Dict {
  return strings.length === 0 ? EMPTY : new StringDict(strings, sorted);
}

/** Below this many entries a UTF-8 dictionary is decoded whole on first use (cheaper than a lookup cache). */
const EAGER_ENTRIES = 4096;

/**
 * A dictionary stored as UTF-8 `bytes` with `offsets` (length + 1 entries): entry k is
 * bytes[offsets[k] .. offsets[k+1]). Decoded lazily, each entry once.
 */
export class Utf8Dict implements Dict {
  /** How many entries have been decoded (tests check that lookups stay lazy). */
  decoded = 0;
  private all: string[] | undefined;
  private readonly some = new Map<number, string>();
  private readonly text: Buffer;
  readonly length: number;

  constructor(
    readonly offsets: Int32Array,
    readonly data: Uint8Array,
    readonly sorted: boolean,
    readonly unique: boolean = sorted,
    readonly source?: string,
  ) {
    this.length = offsets.length - 1;
    this.text = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }

  get bytes(): number {
    return this.offsets.byteLength + this.data.byteLength + (this.all ? this.length * 16 : this.some.size * 48);
  }

  get(code: number): string {
    if (this.all) return this.all[code]!;
    if (this.length <= EAGER_ENTRIES) {
      this.all = Array.from({ length: this.length }, (_, k) => this.decode(k));
      return this.all[code]!;
    }
    let s = this.some.get(code);
    if (s === undefined) {
      s = this.decode(code);
      this.some.set(code, s);
    }
    return s;
  }

  private decode(code: number): string {
    this.decoded++;
    const { offsets, data, text } = this;
    const a = offsets[code]!;
    const b = offsets[code + 1]!;
    if (b - a < 24) {
      // short ASCII strings (identifiers, codes): avoid the decoder call
      let ascii = true;
      for (let i = a; i < b; i++) if (data[i]! > 0x7f) ascii = false;
      if (ascii) return String.fromCharCode.apply(null, data.subarray(a, b) as unknown as number[]);
    }
    return text.toString('utf8', a, b);
  }

  /** Compares entry `code` with UTF-8 `probe` bytewise (UTF-8 byte order is code-point order). */
  compareBytes(code: number, probe: Uint8Array): number {
    const { offsets, data } = this;
    const a = offsets[code]!;
    const len = offsets[code + 1]! - a;
    const n = Math.min(len, probe.length);
    for (let i = 0; i < n; i++) {
      const d = data[a + i]! - probe[i]!;
      if (d !== 0) return d;
    }
    return len - probe.length;
  }
}

const encoder = new TextEncoder();

/** The code of `s` in `d`, or -1; a binary search over the bytes when `d` is a sorted UTF-8 dictionary. */
export function dictIndexOf(d: Dict, s: string): number {
  if (d instanceof Utf8Dict && d.sorted) {
    const probe = encoder.encode(s);
    let lo = 0;
    let hi = d.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = d.compareBytes(mid, probe);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }
  for (let k = 0; k < d.length; k++) if (d.get(k) === s) return k;
  return -1;
}

/** Every string of a dictionary, in code order (decodes all: for small dictionaries or whole scans). */
export function dictStrings(d: Dict): readonly string[] {
  if (d instanceof StringDict) return d.strings;
  return Array.from({ length: d.length }, (_, k) => d.get(k));
}

/** Encodes strings as a UTF-8 dictionary's two buffers. */
export function encodeDict(strings: readonly string[]): { offsets: Int32Array; data: Uint8Array } {
  const parts = strings.map((s) => Buffer.from(s, 'utf8'));
  const offsets = new Int32Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
  const data = new Uint8Array(offsets[parts.length]!);
  for (let i = 0; i < parts.length; i++) data.set(parts[i]!, offsets[i]!);
  return { offsets, data };
}

/** Several dictionaries one after another: code `bases[i] + k` is entry k of `parts[i]` (nothing decoded). */
export class ConcatDict implements Dict {
  readonly length: number;
  readonly sorted = false;
  readonly bases: Int32Array;

  constructor(readonly parts: readonly Dict[]) {
    this.bases = new Int32Array(parts.length + 1);
    for (let i = 0; i < parts.length; i++) this.bases[i + 1] = this.bases[i]! + parts[i]!.length;
    this.length = this.bases[parts.length]!;
  }

  get bytes(): number {
    return this.parts.reduce((s, p) => s + p.bytes, 0);
  }

  get(code: number): string {
    const part = this.partOf(code);
    return this.parts[part]!.get(code - this.bases[part]!);
  }

  /** The part holding a code. */
  partOf(code: number): number {
    let lo = 0;
    let hi = this.parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.bases[mid]! <= code) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** A code's part and its code there. */
  locate(code: number): readonly [Dict, number] {
    const part = this.partOf(code);
    return [this.parts[part]!, code - this.bases[part]!];
  }
}

/** Some entries of a dictionary: code k is entry `picks[k]` of `base` (nothing decoded). */
export class PickDict implements Dict {
  readonly sorted = false;

  /** `prefetch`: read the base's parts the picks use now (false where they were read already: a dictionary passed between threads). */
  constructor(
    readonly base: Dict,
    readonly picks: Int32Array,
    prefetch = true,
  ) {
    if (prefetch) base.prefetch?.(picks);
  }

  get length(): number {
    return this.picks.length;
  }

  get bytes(): number {
    return this.picks.byteLength;
  }

  get(code: number): string {
    return this.base.get(this.picks[code]!);
  }
}

/** Dictionaries one after another (one part: that part itself). */
export function concatDicts(parts: readonly Dict[]): Dict {
  const nonEmpty = parts.filter((p) => p.length > 0);
  if (nonEmpty.length === 0) return EMPTY;
  if (nonEmpty.length === 1) return nonEmpty[0]!;
  return new ConcatDict(nonEmpty);
}

/** 1 for each code whose string is the null symbol "" (a sorted dictionary holds it at code 0 at most). */
export function nullCodes(d: Dict): Uint8Array {
  const out = new Uint8Array(d.length);
  if (d.sorted) {
    if (d.length > 0 && d.get(0) === '') out[0] = 1;
    return out;
  }
  for (let k = 0; k < d.length; k++) if (d.get(k) === '') out[k] = 1;
  return out;
}

/** Most strings numbered by textId before the table starts again (bounding its memory). */
const MAX_INTERNED = 1_000_000;
const interned = new Map<string, number>();
let internEpoch = 0;
const textIds = new WeakMap<Dict, { epoch: number; ids: Int32Array }>();

/** The numbering's generation: a textId is comparable only with those of the same epoch. */
export const textIdEpoch = (): number => internEpoch;

/**
 * textId of every code of `codes[0 .. n)` into `out` (-1 for a negative code): the dictionary's table
 * is looked up once, not per row, and a picked or concatenated dictionary keeps a table of its own for
 * the call. Check textIdEpoch around it: a numbering that starts again mid-way leaves mixed epochs.
 */
export function textIdsOf(d: Dict, codes: Int32Array, n: number, out: Int32Array): void {
  if (d instanceof PickDict) {
    const base = new Int32Array(n);
    for (let e = 0; e < n; e++) base[e] = codes[e]! < 0 ? -1 : d.picks[codes[e]!]!;
    textIdsOf(d.base, base, n, out);
    return;
  }
  if (d instanceof ConcatDict) {
    // the entries grouped by part (a counting sort), each part's codes numbered by its own table
    const parts = d.parts.length;
    const start = new Int32Array(parts + 1);
    const part = new Int32Array(n);
    for (let e = 0; e < n; e++) {
      const code = codes[e]!;
      if (code < 0) {
        part[e] = -1;
        out[e] = -1;
      } else start[(part[e] = d.partOf(code)) + 1]!++;
    }
    for (let p = 0; p < parts; p++) start[p + 1]! += start[p]!;
    const at = start.slice(0, parts);
    const order = new Int32Array(start[parts]!);
    const local = new Int32Array(start[parts]!);
    for (let e = 0; e < n; e++) {
      const p = part[e]!;
      if (p < 0) continue;
      const j = at[p]!++;
      order[j] = e;
      local[j] = codes[e]! - d.bases[p]!;
    }
    const ids = new Int32Array(local.length);
    for (let p = 0; p < parts; p++) {
      const from = start[p]!;
      const m = start[p + 1]! - from;
      if (m > 0) textIdsOf(d.parts[p]!, local.subarray(from, from + m), m, ids.subarray(from, from + m));
    }
    for (let j = 0; j < order.length; j++) out[order[j]!] = ids[j]!;
    return;
  }
  let cache = textIds.get(d);
  if (!cache || cache.epoch !== internEpoch) textIds.set(d, (cache = { epoch: internEpoch, ids: new Int32Array(d.length).fill(-1) }));
  const ids = cache.ids;
  const epoch = internEpoch;
  for (let e = 0; e < n; e++) {
    const code = codes[e]!;
    if (code < 0) {
      out[e] = -1;
      continue;
    }
    let k = ids[code]!;
    if (k < 0) {
      k = textId(d, code);
      if (epoch === internEpoch) ids[code] = k;
    }
    out[e] = k;
  }
}

/**
 * A number for a code's text, the same for equal strings in any dictionary (count distinct compares
 * texts without a string per row). Stored dictionaries keep their codes' numbers, so later queries
 * over the same partitions look them up instead of decoding again.
 */
export function textId(d: Dict, code: number): number {
  if (d instanceof PickDict) return textId(d.base, d.picks[code]!);
  if (d instanceof ConcatDict) {
    const [part, local] = d.locate(code);
    return textId(part, local);
  }
  let cache = textIds.get(d);
  if (!cache || cache.epoch !== internEpoch) textIds.set(d, (cache = { epoch: internEpoch, ids: new Int32Array(d.length).fill(-1) }));
  let k = cache.ids[code]!;
  if (k < 0) {
    if (interned.size >= MAX_INTERNED) {
      interned.clear();
      internEpoch++;
      return textId(d, code);
    }
    const text = d.get(code);
    k = interned.get(text) ?? -1;
    if (k < 0) interned.set(text, (k = interned.size));
    cache.ids[code] = k;
  }
  return k;
}
