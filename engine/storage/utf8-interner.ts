/**
 * Symbols read from files (CSV cells, Parquet values): each distinct byte string once, in order of
 * first appearance, in a UTF-8 dictionary (the layout a partition stores), found again through an
 * open-addressing hash table over the bytes. No string is made, and the dictionary is known to hold
 * no repeats, so storing it needs no dedupe by string (prepare.ts).
 */
import { Utf8Dict } from '../core/dict.js';

/** The fullest the hash table gets before it doubles. */
const MAX_LOAD = 0.7;

/** An array of at least `need` elements holding the first `n` of `a` (doubling). */
function grown<T extends Int32Array | Uint8Array>(a: T, n: number, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, a.length * 2));
  next.set(a.subarray(0, n) as never);
  return next;
}

export class Utf8Interner {
  /** entry k is bytes[offsets[k] .. offsets[k + 1]) */
  private offsets = new Int32Array(1024);
  private bytes = new Uint8Array(1 << 12);
  /** Distinct byte strings so far. */
  entries = 0;
  /**
   * Slots of (hash, entry + 1) pairs, entry + 1 = 0 when free; at most 70% full (linear probing
   * stays within a cache line or two). The hash beside the entry settles most probes without
   * touching the entries. For a million distinct values this is 16 MB probed at random: the largest
   * cost of such a column, so it is kept no larger than that.
   */
  private table = new Int32Array(2 * 4096);

  /** The code of buf[s .. s + len), added when new. */
  code(buf: Uint8Array, s: number, len: number): number {
    let h = 0x811c9dc5 ^ len; // FNV-1a over the bytes
    for (let i = s; i < s + len; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
    h ^= h >>> 15;
    const { table, offsets, bytes } = this;
    const mask = (table.length >> 1) - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const v = table[2 * slot + 1]!;
      if (v === 0) return this.insert(buf, s, len, h, slot);
      if (table[2 * slot] !== h) continue;
      const a = offsets[v - 1]!;
      if (offsets[v]! - a !== len) continue;
      let x = 0;
      while (x < len && bytes[a + x] === buf[s + x]) x++;
      if (x === len) return v - 1;
    }
  }

  private insert(buf: Uint8Array, s: number, len: number, h: number, slot: number): number {
    const k = this.entries++;
    this.offsets = grown(this.offsets, k + 1, k + 2);
    const at = this.offsets[k]!;
    const bytes = (this.bytes = grown(this.bytes, at, at + len));
    for (let x = 0; x < len; x++) bytes[at + x] = buf[s + x]!;
    this.offsets[k + 1] = at + len;
    this.table[2 * slot] = h;
    this.table[2 * slot + 1] = k + 1;
    if (this.entries > MAX_LOAD * (this.table.length >> 1)) this.rehash(this.table.length);
    return k;
  }

  /** Room for `entries` distinct values in all, sized by those seen so far (a column of nearly unique values). */
  reserve(entries: number): void {
    const m = this.entries;
    this.offsets = grown(this.offsets, m + 1, entries + 2);
    if (m > 0) this.bytes = grown(this.bytes, this.offsets[m]!, Math.ceil((this.offsets[m]! / m) * entries));
    let slots = this.table.length >> 1;
    while (slots * MAX_LOAD < entries) slots *= 2;
    if (slots > this.table.length >> 1) this.rehash(slots);
  }

  /** The table with this many slots (a power of two). */
  private rehash(slots: number): void {
    const old = this.table;
    const table = new Int32Array(slots * 2);
    const mask = slots - 1;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i + 1] === 0) continue;
      let slot = old[i]! & mask;
      while (table[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      table[2 * slot] = old[i]!;
      table[2 * slot + 1] = old[i + 1]!;
    }
    this.table = table;
  }

  /** The dictionary of every entry (unique: storing skips its dedupe). */
  dict(): Utf8Dict {
    const m = this.entries;
    const offsets = this.offsets.slice(0, m + 1);
    return new Utf8Dict(offsets, this.bytes.slice(0, offsets[m]!), false, true);
  }
}
