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

/** How long a client id that gave its secret from an address is not held back by that address's failures. */
const TRUSTED_MS = 10 * 60_000;

/**
 * Failed secrets (token requests, q handshakes), throttled per client id and per address. Past a
 * limit, attempts are refused without checking the secret, so a guesser cannot tell it found one.
 * A client id that gave its secret from an address in the last ten minutes is not held back by
 * others' failures from that address (many clients may share a host): the per-id limit still holds
 * for it, so guessing its secret stays as slow.
 */
export class FailedSecrets {
  private readonly byId: Throttle;
  private readonly byAddress: Throttle;
  /** `id address` -> when it last gave its secret; bounded, oldest first. */
  private readonly trusted = new Map<string, number>();

  constructor(
    readonly perId = FAILED_SECRETS_PER_MINUTE,
    readonly perAddress = FAILED_SECRETS_PER_ADDRESS_PER_MINUTE,
    windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.byId = new Throttle(perId, windowMs, 100_000, now);
    this.byAddress = new Throttle(perAddress, windowMs, 100_000, now);
  }

  /** The refusal of an attempt of `id` from `address` (which limit, and when to retry), or null: it may try. */
  refused(id: string, address: string): { readonly by: 'id' | 'address'; readonly retryAfterS: number } | null {
    const own = this.byId.check(id);
    if (!own.ok) return { by: 'id', retryAfterS: own.retryAfterS };
    const at = this.byAddress.check(address);
    if (at.ok) return null;
    const since = this.trusted.get(`${id} ${address}`);
    return since !== undefined && this.now() - since < TRUSTED_MS ? null : { by: 'address', retryAfterS: at.retryAfterS };
  }

  /** Counts a failed secret of `id` from `address`. */
  failed(id: string, address: string): void {
    this.byId.hit(id);
    this.byAddress.hit(address);
  }

  /** Remembers that `id` gave its secret from `address`. */
  succeeded(id: string, address: string): void {
    const key = `${id} ${address}`;
    this.trusted.delete(key);
    this.trusted.set(key, this.now());
    if (this.trusted.size > 10_000) this.trusted.delete(this.trusted.keys().next().value!);
  }

  /** Entries held (the load script checks they go back down). */
  get sizes(): { failedSecretsById: number; failedSecretsByAddress: number; trustedClients: number } {
    const now = this.now();
    for (const [k, t] of this.trusted) {
      if (now - t < TRUSTED_MS) break;
      this.trusted.delete(k);
    }
    return { failedSecretsById: this.byId.size, failedSecretsByAddress: this.byAddress.size, trustedClients: this.trusted.size };
  }
}
