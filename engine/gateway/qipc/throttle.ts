/**
 * Throttling of failed q handshakes (password guesses): past `maxFailures` failures of one key (a
 * client id, an address) within a window, further attempts of that key are refused until the window
 * ends, without checking their secret. Entries expire with their window and the map is bounded, so
 * a flood of made-up ids or addresses cannot grow it without limit (it then forgets the oldest).
 */

interface Entry {
  readonly start: number;
  failures: number;
}

/** Failure counts per key over fixed windows, at most `maxEntries` keys. */
export class FailureThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly maxFailures = 10,
    readonly windowMs = 60_000,
    readonly maxEntries = 10_000,
  ) {}

  /** Keys remembered now (for tests). */
  get size(): number {
    return this.entries.size;
  }

  /** ms until `key` may try again, 0 when it may now. */
  blockedFor(key: string, now = Date.now()): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    const left = e.start + this.windowMs - now;
    if (left <= 0) {
      this.entries.delete(key);
      return 0;
    }
    return e.failures >= this.maxFailures ? left : 0;
  }

  /** Counts one failure of `key`. */
  fail(key: string, now = Date.now()): void {
    let e = this.entries.get(key);
    if (e && e.start + this.windowMs <= now) {
      this.entries.delete(key);
      e = undefined;
    }
    if (!e) {
      if (this.entries.size >= this.maxEntries) this.evict(now);
      // inserted in window order: the oldest are first
      e = { start: now, failures: 0 };
      this.entries.set(key, e);
    }
    e.failures++;
  }

  /** Drops expired entries, then the oldest if still full. */
  private evict(now: number): void {
    for (const [key, e] of this.entries) {
      if (e.start + this.windowMs > now) break;
      this.entries.delete(key);
    }
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
