/**
 * Counting what a client does in a minute, to refuse it past a limit (429 with Retry-After): token
 * requests and failed secrets per client id and per address, requests per client id, q handshakes.
 * Fixed one-minute windows per key; a key's entry goes once its window is over, and the map is
 * capped, so a stream of made-up ids or addresses cannot grow it without bound.
 */

/** Failed secrets (token requests, q handshakes) one client id may give per minute before its attempts are refused. */
export const FAILED_SECRETS_PER_MINUTE = 10;
/** ... and one address, whatever the ids it tries (many clients may share a host). */
export const FAILED_SECRETS_PER_ADDRESS_PER_MINUTE = 100;

export interface ThrottleVerdict {
  readonly ok: boolean;
  /** Seconds until the key's window ends (for Retry-After). */
  readonly retryAfterS: number;
}

interface Window {
  start: number;
  count: number;
}

/** Keys counted per window of `windowMs`; at most `limit` a window each. */
export class Throttle {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
    /** Most keys kept; past it the oldest windows go first (their keys start afresh). */
    readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  private current(key: string): Window | undefined {
    const w = this.windows.get(key);
    if (w && this.now() - w.start >= this.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  private verdict(w: Window | undefined): ThrottleVerdict {
    const ok = this.limit <= 0 || !w || w.count < this.limit;
    return { ok, retryAfterS: w ? Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000)) : 1 };
  }

  /** Whether `key` is still under its limit, without counting anything. */
  check(key: string): ThrottleVerdict {
    return this.verdict(this.current(key));
  }

  /** Counts one more for `key`; the verdict says whether it was within the limit. */
  hit(key: string): ThrottleVerdict {
    if (this.limit <= 0) return { ok: true, retryAfterS: 0 };
    let w = this.current(key);
    const v = this.verdict(w);
    if (!v.ok) return v;
    if (!w) {
      this.sweep();
      w = { start: this.now(), count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return v;
  }

  /** Keys held now (tests, and the load script's check that they go back to none). */
  get size(): number {
    this.sweep(true);
    return this.windows.size;
  }

  /** Drops ended windows; past maxKeys, the oldest too (a Map iterates in insertion order). */
  private sweep(all = false): void {
    if (!all && this.windows.size < this.maxKeys && this.windows.size % 1024 !== 0) return;
    const now = this.now();
    for (const [k, w] of this.windows) {
      if (now - w.start >= this.windowMs || this.windows.size >= this.maxKeys) this.windows.delete(k);
      else if (!all) break;
    }
  }
}
