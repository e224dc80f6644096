/**
 * The small flatbuffer reader of the Arrow IPC checks (arrow-check.ts, arrow-layout.ts): the fields
 * they read of a Message, Footer, Schema or RecordBatch, every offset checked against the
 * flatbuffer's bytes, so a damaged one is a Damage error, never a read elsewhere.
 */

/** A number for a message, with thousands separators. */
export const n = (v: number | bigint): string => v.toLocaleString('en-US');

/** A damaged flatbuffer field: the message's name is added where it is caught. */
export class Damage extends Error {}

/** A flatbuffer inside [start, end) of the file, read with every offset checked against that range. */
export class Flat {
  constructor(
    private readonly v: DataView,
    private readonly start: number,
    private readonly end: number,
  ) {}

  private at(p: number, size: number, what: string): number {
    if (!(p >= this.start && p + size <= this.end)) throw new Damage(`its metadata's ${what} points outside its ${n(this.end - this.start)} bytes`);
    return p;
  }

  /** Its length in bytes. */
  get size(): number {
    return this.end - this.start;
  }

  /** The root table's position. */
  root(): number {
    return this.start + this.v.getUint32(this.at(this.start, 4, 'root'), true);
  }

  /** Where field `id` of the table at `t` is, or undefined when absent (its default). */
  private field(t: number, id: number, what: string): number | undefined {
    const vt = t - this.v.getInt32(this.at(t, 4, `${what} table`), true);
    const vtSize = this.v.getUint16(this.at(vt, 4, `${what} vtable`), true);
    if (4 + 2 * id + 2 > vtSize) return undefined;
    const off = this.v.getUint16(this.at(vt + 4 + 2 * id, 2, `${what} vtable`), true);
    return off === 0 ? undefined : t + off;
  }

  u8(t: number, id: number, what: string): number {
    const p = this.field(t, id, what);
    return p === undefined ? 0 : this.v.getUint8(this.at(p, 1, what));
  }

  /** A short field, or `dflt` when absent. */
  i16(t: number, id: number, what: string, dflt = 0): number {
    const p = this.field(t, id, what);
    return p === undefined ? dflt : this.v.getInt16(this.at(p, 2, what), true);
  }

  /** An int field, or `dflt` when absent. */
  i32(t: number, id: number, what: string, dflt = 0): number {
    const p = this.field(t, id, what);
    return p === undefined ? dflt : this.v.getInt32(this.at(p, 4, what), true);
  }

  i64(t: number, id: number, what: string): bigint {
    const p = this.field(t, id, what);
    return p === undefined ? 0n : this.v.getBigInt64(this.at(p, 8, what), true);
  }

  /** The table or vector field `id` refers to, or undefined when absent. */
  ref(t: number, id: number, what: string): number | undefined {
    const p = this.field(t, id, what);
    return p === undefined ? undefined : p + this.v.getUint32(this.at(p, 4, what), true);
  }

  /** A vector of structs of `size` bytes: its first element's position and its length. */
  vector(p: number | undefined, size: number, what: string): { first: number; count: number } {
    if (p === undefined) return { first: 0, count: 0 };
    const count = this.v.getUint32(this.at(p, 4, what), true);
    this.at(p + 4, count * size, `${what} (${n(count)} entries)`);
    return { first: p + 4, count };
  }

  /** A string field's text (for an error: at most 80 characters), or "" when absent. */
  text(t: number, id: number, what: string): string {
    const p = this.ref(t, id, what);
    if (p === undefined) return '';
    const { first, count } = this.vector(p, 1, what);
    return new TextDecoder().decode(new Uint8Array(this.v.buffer, this.v.byteOffset + first, Math.min(count, 80)));
  }

  /** The table an offset at `p` (an element of a vector of tables) refers to. */
  deref(p: number, what: string): number {
    return p + this.v.getUint32(this.at(p, 4, what), true);
  }

  i64At(p: number): bigint {
    return this.v.getBigInt64(p, true);
  }

  i32At(p: number): number {
    return this.v.getInt32(p, true);
  }
}

/** A length read from the file as a number, or undefined when it is negative or beyond 2^53. */
export const safe = (v: bigint): number | undefined => (v >= 0n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : undefined);
