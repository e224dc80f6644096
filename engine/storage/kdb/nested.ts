/**
 * Nested kdb+ columns (docs/kdb-format.md 4): a column file of one entry per row plus a `name#` file
 * of the rows' elements. Read as SPEC 11 asks: rows that are char vectors (or char atoms) as strings,
 * rows that are vectors of one numeric family as long[] (byte, short, int, long) or float[] (real,
 * float); anything else (atoms in a list column, mixed families, symbols, other types) is a column
 * Tickscope has no type for: its type is undefined and reading it is an error naming the column and
 * its q type.
 *
 * - Anymap (type 77, kdb+ 3.6+) [sample, not in the fixtures]: an 8-byte locator per row (bits 0-55
 *   the element's offset from `name#`'s byte 4096, the top byte 1 compact or 0 mapped). A compact
 *   element is a code byte (>= 128: a vector of type c - 127 and a 1-byte count; < 128: an atom of
 *   type 127 - c), a mapped one a q vector header (type, attribute, count) at an 8-aligned offset.
 *   Unverified: compact counts past 255, other flags, `name##` (symbols: refused here).
 * - Typed nested (type 77 + t, before 3.6) [public, unverified on any bytes]: an int64 cumulative end
 *   offset per row into `name#`, bare or after a 16-byte `fe 20 t` header (whichever makes the last
 *   end land on the file's end).
 *
 * Every locator, offset, count and element is checked to lie inside `name#` before it is read.
 */
import type { Column, ColumnType } from '../../core/column.js';
import { TickscopeError } from '../../core/errors.js';
import { ITEM_BYTES, isSimpleVector, qTypeName, VECTOR_TYPE_NAMES } from '../../q/types.js';
import { numbersInto } from '../../q/vector-column.js';
import { openKdbFile } from './file.js';
import { type AnymapLayout, type NestedLayout, PAGE_BYTES, readLayout } from './header.js';
import { badFile, type KdbBytes, type KdbReadOptions } from './io.js';
import { Pages } from './pages.js';

/** One row's element: a vector of `n` items of type `t` (or an atom) whose bytes start at `at` in `name#`. */
interface Element {
  readonly t: number;
  readonly atom: boolean;
  readonly n: number;
  readonly at: number;
}

type Kind = 'string' | 'long[]' | 'float[]';
const KIND_OF: Readonly<Record<number, Kind>> = { 4: 'long[]', 5: 'long[]', 6: 'long[]', 7: 'long[]', 8: 'float[]', 9: 'float[]', 10: 'string' };

/** The kind a row reads as, or undefined when it has none (a numeric atom, a symbol, another type). */
const kindOf = (e: Element): Kind | undefined => (e.atom ? (e.t === 10 ? 'string' : undefined) : KIND_OF[e.t]);

/** Words for an element in errors. */
const describe = (e: Element): string => qTypeName(e.atom ? -e.t : e.t);

/** Reads a nested column's rows. */
export class NestedReader {
  private arenaBytes: KdbBytes | undefined;
  private known: Kind | null | undefined;
  private why = '';

  constructor(
    readonly bytes: KdbBytes,
    readonly layout: AnymapLayout | NestedLayout,
    readonly name: string,
    private readonly options: KdbReadOptions,
  ) {}

  private get qType(): number {
    return this.layout.kind === 'anymap' ? 77 : 77 + this.layout.itemType;
  }

  /** The `name#` file. */
  private arena(): KdbBytes {
    if (!this.arenaBytes) {
      const a = openKdbFile(`${this.bytes.path}#`, this.options);
      if (this.layout.kind === 'anymap' && readLayout(a).kind !== 'arena') throw badFile(a.path, "expected an anymap column's # file (fd 20, type 4 at byte 4082)");
      this.arenaBytes = a;
    }
    return this.arenaBytes;
  }

  /** Tickscope's type of the column, from every row's element (read once); undefined when it has none. */
  type(): ColumnType | undefined {
    if (this.known === undefined) {
      const { kind, why } = this.kindOf(this.elements(0, this.layout.rows), 0);
      this.known = kind;
      this.why = why;
    }
    return this.known ?? undefined;
  }

  /** Rows [a, b) as a string or list column; an error naming the column when they have no type. */
  read(a: number, b: number): Column {
    const elements = this.elements(a, b);
    // the column's kind when known (type() read every row), else the kind of the rows read
    const own = this.known === undefined ? this.kindOf(elements, a) : { kind: this.known, why: this.why };
    const kind = own.kind;
    if (kind === null) throw this.unsupported(own.why);
    let lo = Infinity;
    let hi = 0;
    for (const e of elements) {
      lo = Math.min(lo, e.at);
      hi = Math.max(hi, e.at + e.n * ITEM_BYTES[e.t]!);
    }
    if (elements.length === 0) lo = hi = 0;
    // packed elements never share bytes: rows claiming more than name# holds are damage (and would
    // otherwise allocate past what the file could give)
    const claimed = elements.reduce((sum, e) => sum + e.n * ITEM_BYTES[e.t]!, 0);
    if (claimed > this.arena().length) throw badFile(this.arena().path, `rows ${a} to ${b - 1} of column ${this.name} claim ${claimed} bytes of elements; the file holds ${this.arena().length}`);
    const span = this.arena().read(lo, hi);
    if (kind === 'string') {
      const text = Buffer.from(span.buffer, span.byteOffset, span.byteLength);
      const values = elements.map((e, i) => {
        if (kindOf(e) !== 'string') throw this.unsupported(`row ${a + i} is ${describe(e)} in a column of strings`);
        return e.atom ? String.fromCharCode(span[e.at - lo]!) : text.toString('utf8', e.at - lo, e.at - lo + e.n);
      });
      return { type: 'string', values };
    }
    const offsets = new Int32Array(elements.length + 1);
    let total = 0;
    elements.forEach((e, i) => {
      if (kindOf(e) !== kind) throw this.unsupported(`row ${a + i} is ${describe(e)} in a column of ${kind} lists`);
      total += e.n;
      offsets[i + 1] = total;
    });
    const values = new Float64Array(total);
    elements.forEach((e, i) => numbersInto(e.t, span, e.at - lo, e.n, true, values, offsets[i]!));
    return { type: kind, offsets, values };
  }

  /** The one kind of all `elements`, or null and why not (no rows: strings, as q's empty string columns come). */
  private kindOf(elements: readonly Element[], a: number): { kind: Kind | null; why: string } {
    let kind: Kind | undefined;
    let first = -1;
    for (const [i, e] of elements.entries()) {
      const k = kindOf(e);
      if (!k) return { kind: null, why: `row ${a + i} is ${describe(e)}; a nested column reads as strings (char vectors) or lists of one numeric family` };
      if (kind === undefined) [kind, first] = [k, a + i];
      else if (k !== kind) return { kind: null, why: `a mixed list: row ${first} reads as ${kind}, row ${a + i} (${describe(e)}) as ${k}` };
    }
    return { kind: kind ?? 'string', why: '' };
  }

  private unsupported(why: string): TickscopeError {
    const items = this.layout.kind === 'nested' ? `, ${VECTOR_TYPE_NAMES[this.layout.itemType]} lists` : ', anymap';
    return new TickscopeError('notSupported', `kdb+ column ${this.name} (${this.bytes.path}, q type ${this.qType}${items}): ${why}`);
  }

  /** The elements of rows [a, b), each checked to lie inside `name#`. */
  private elements(a: number, b: number): Element[] {
    return this.layout.kind === 'anymap' ? this.anymapElements(a, b) : this.typedElements(a, b);
  }

  private anymapElements(a: number, b: number): Element[] {
    const arena = this.arena();
    const raw = this.bytes.read(PAGE_BYTES + 8 * a, PAGE_BYTES + 8 * b);
    const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const pages = new Pages(arena);
    const out: Element[] = [];
    for (let i = 0; i < b - a; i++) {
      const row = a + i;
      const hi = v.getUint32(8 * i + 4, true);
      const flag = hi >>> 24;
      const at = PAGE_BYTES + (hi & 0xffffff) * 4294967296 + v.getUint32(8 * i, true);
      const bad = (why: string): Error => badFile(arena.path, `row ${row} of column ${this.name}: ${why}`);
      if (flag > 1) throw bad(`its locator's flag is ${flag}; expected 1 (compact) or 0 (mapped)`);
      if (at >= arena.length) throw bad(`its element at byte ${at} lies past the file's ${arena.length} bytes`);
      let e: Element;
      if (flag === 1) {
        const c = pages.u8(at);
        if (c >= 128) {
          if (at + 2 > arena.length) throw bad(`its compact vector's count lies past the file's end`);
          e = { t: c - 127, atom: false, n: pages.u8(at + 1), at: at + 2 };
        } else e = { t: 127 - c, atom: true, n: 1, at: at + 1 };
      } else {
        if ((at - PAGE_BYTES) % 8 !== 0 || at + 16 > arena.length) throw bad(`its mapped element at byte ${at} is not an 8-aligned vector header inside the file`);
        const n = pages.i64(at + 8);
        if (n < 0) throw bad(`its mapped vector claims a negative or huge count`);
        e = { t: pages.u8(at + 2), atom: false, n, at: at + 16 };
      }
      if (!isSimpleVector(e.t)) throw this.unsupported(`row ${row} is an element of q type ${e.atom ? -e.t : e.t}; expected vectors or atoms of simple types`);
      if (e.at + e.n * ITEM_BYTES[e.t]! > arena.length) throw bad(`its ${describe(e)} of ${e.n} items runs past the file's ${arena.length} bytes`);
      out.push(e);
    }
    return out;
  }

  private typedElements(a: number, b: number): Element[] {
    const layout = this.layout as NestedLayout;
    const t = layout.itemType;
    const width = ITEM_BYTES[t]!;
    const arena = this.arena();
    const endAt = (r: number): number => layout.dataStart + 8 * r;
    const ends = (from: number, to: number): Float64Array => {
      const raw = this.bytes.read(endAt(from), endAt(to));
      const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
      return Float64Array.from({ length: to - from }, (_, i) => {
        const hi = v.getInt32(8 * i + 4, true);
        return hi < 0 || hi >= 2 ** 21 ? -1 : hi * 4294967296 + v.getUint32(8 * i, true);
      });
    };
    const rows = layout.rows;
    const last = rows === 0 ? 0 : ends(rows - 1, rows)[0]!;
    // bare, or after a 16-byte vector header of the items' type: whichever ends exactly at the file's end
    const head = arena.length >= 16 ? arena.read(0, 4) : new Uint8Array(0);
    const base = arena.length === last + 16 && head[0] === 0xfe && head[1] === 0x20 && head[2] === t ? 16 : arena.length === last ? 0 : -1;
    if (base < 0) throw badFile(arena.path, `its ${arena.length} bytes do not end where column ${this.name}'s last offset, ${last}, says (bare, or after a 16-byte header)`);
    const e = ends(Math.max(0, a - 1), b);
    const out: Element[] = [];
    let prev = a === 0 ? 0 : e[0]!;
    for (let r = a; r < b; r++) {
      const end = e[r - Math.max(0, a - 1)]!;
      const bytes = end - prev;
      if (end < 0 || bytes < 0 || end > last || bytes % width !== 0) throw badFile(this.bytes.path, `row ${r}'s end offset ${end} does not follow ${prev} by whole ${width}-byte items within ${last}`);
      out.push({ t, atom: false, n: bytes / width, at: base + prev });
      prev = end;
    }
    return out;
  }
}
