/**
 * Scratch memory for the transient index arrays of one query (selected rows, cells, buckets). Large
 * typed arrays are external memory to V8: allocating tens of megabytes per query triggers garbage
 * collections whose cost grows with everything else the process holds (cached dictionaries of
 * millions of strings), so a query reuses one buffer instead. Arrays handed out are not zeroed: the
 * caller writes every element. They are valid until the next `reset`, which the query calls first.
 */
export class Int32Arena {
  private buffer = new Int32Array(0);
  private used = 0;
  private wanted = 0;

  /** At most this many elements are kept between queries (4 bytes each). */
  constructor(private readonly maxKept: number) {}

  /** Starts a query: every array handed out before may be reused. Grows to what the last query wanted. */
  reset(): void {
    if (this.wanted > this.buffer.length && this.wanted <= this.maxKept) this.buffer = new Int32Array(this.wanted);
    this.used = 0;
    this.wanted = 0;
  }

  /** An array of n elements (contents undefined). */
  take(n: number): Int32Array {
    this.wanted += n;
    if (this.used + n > this.buffer.length) return new Int32Array(n);
    const a = this.buffer.subarray(this.used, this.used + n);
    this.used += n;
    return a;
  }
}

/** The arena of getStats queries (the engine runs one query at a time). */
export const statsArena = new Int32Arena(96 * 1024 * 1024);
