/**
 * Scratch memory for the transient index arrays of a query (selected rows, merge keys, groups, cells,
 * buckets). Large typed arrays are external memory to V8: allocating tens of megabytes per query
 * triggers garbage collections whose cost grows with everything else the process holds (cached
 * dictionaries of millions of strings), so queries reuse one buffer instead.
 *
 * A query opens a scope, takes arrays, and closes the scope; arrays taken are valid until then and
 * must not reach its result. Scopes nest (a query inside a query takes above the outer one's arrays).
 * Arrays are not zeroed: the caller writes every element it reads.
 */
export class Int32Arena {
  private buffer = new Int32Array(0);
  private used = 0;
  private depth = 0;
  /** what the current outermost scope has wanted at most, counting arrays that did not fit */
  private wanted = 0;
  private spilled = 0;

  /** At most this many elements are kept between queries (4 bytes each). */
  constructor(private readonly maxKept: number) {}

  /** Opens a scope; the outermost grows the buffer to what the last query wanted. Returns the mark for close. */
  open(): number {
    if (this.depth === 0) {
      if (this.wanted > this.buffer.length && this.wanted <= this.maxKept) this.buffer = new Int32Array(this.wanted);
      this.used = 0;
      this.wanted = 0;
      this.spilled = 0;
    }
    this.depth++;
    return this.used;
  }

  /** Closes the scope opened at `mark`: its arrays may be reused. */
  close(mark: number): void {
    this.depth--;
    this.used = mark;
  }

  /** Runs `f` in a scope. */
  scoped<T>(f: () => T): T {
    const mark = this.open();
    try {
      return f();
    } finally {
      this.close(mark);
    }
  }

  /** An Int32Array of n elements (contents undefined); a new array outside any scope or past the buffer. */
  take(n: number): Int32Array {
    if (this.depth === 0) return new Int32Array(n);
    this.wanted = Math.max(this.wanted, this.used + this.spilled + n);
    if (this.used + n > this.buffer.length) {
      this.spilled += n;
      return new Int32Array(n);
    }
    const a = this.buffer.subarray(this.used, this.used + n);
    this.used += n;
    return a;
  }

  /** A Float64Array of n elements (contents undefined), from the same buffer. */
  takeFloat64(n: number): Float64Array {
    if (this.depth === 0) return new Float64Array(n);
    if (this.used % 2) this.take(1);
    const words = this.take(2 * n);
    return new Float64Array(words.buffer, words.byteOffset, n);
  }
}

/** The arena of engine queries (the engine runs on one thread); TICKSCOPE_SCRATCH_MB bounds what it keeps. */
export const queryArena = new Int32Arena((Number(process.env['TICKSCOPE_SCRATCH_MB'] ?? 256) * 1024 * 1024) / 4);

/** Allocation through the arena (for specs and plans that take an allocator). */
export const scratchInt32 = (n: number): Int32Array => queryArena.take(n);
