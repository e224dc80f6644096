/**
 * The gateway's OAuth2 clients (SPEC 7): a JSON file of client ids, their scopes and salted scrypt
 * hashes of their secrets (never the secrets). Secrets are compared in constant time.
 */
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { TickscopeError } from '../core/errors.js';

/** The scopes of SPEC 7: fsi.read for the three queries and getMeta, fsi.generate for generateOrderAnalytics. */
export const SCOPES = ['fsi.read', 'fsi.generate'] as const;
export type Scope = (typeof SCOPES)[number];

export interface StoredClient {
  readonly id: string;
  readonly scopes: readonly Scope[];
  /** base64url of 16 random bytes */
  readonly salt: string;
  /** base64url of scrypt(secret, salt, 32) */
  readonly hash: string;
  readonly created: string;
}

interface ClientsFile {
  readonly clients: readonly StoredClient[];
}

const ID = /^[A-Za-z0-9._-]{1,64}$/;

const hashOf = (secret: string, salt: string): Buffer => scryptSync(secret, Buffer.from(salt, 'base64url'), 32);

/** A new random secret (printed once to whoever creates the client). */
export const newSecret = (): string => randomBytes(24).toString('base64url');

export function parseScopes(text: string, where: string): Scope[] {
  const scopes = text.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of scopes) {
    if (!(SCOPES as readonly string[]).includes(s)) throw new TickscopeError('badRequest', `${where}: ${JSON.stringify(s)} is not a scope; expected a comma-separated list of ${SCOPES.join(', ')}`);
  }
  if (scopes.length === 0) throw new TickscopeError('badRequest', `${where}: no scope given; expected a comma-separated list of ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

/** The clients a gateway accepts, kept in memory or in a file. */
export class Clients {
  /** The file's identity when last read (size, time, inode): another means it was changed. */
  private seen = '';
  private readonly removedListeners = new Set<(ids: readonly string[]) => void>();
  private timer: ReturnType<typeof setInterval> | null = null;

  private constructor(
    private clients: StoredClient[],
    readonly file: string | null,
  ) {
    this.seen = stamp(file);
  }

  /** The clients of a file (none when it does not exist yet). */
  static load(file: string): Clients {
    return new Clients(Clients.read(file), file);
  }

  private static read(file: string): StoredClient[] {
    if (!existsSync(file)) return [];
    let doc: unknown;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new TickscopeError('badRequest', `${file}: not a clients file (${(e as Error).message}); expected {"clients": [...]} as written by tickscope clients add`);
    }
    const list = (doc as ClientsFile | null)?.clients;
    if (!Array.isArray(list) || list.some((c) => typeof c?.id !== 'string' || typeof c.salt !== 'string' || typeof c.hash !== 'string' || !Array.isArray(c.scopes))) {
      throw new TickscopeError('badRequest', `${file}: not a clients file; expected {"clients": [{"id", "scopes", "salt", "hash"}, ...]} as written by tickscope clients add`);
    }
    return [...list];
  }

  /**
   * Reads the file again when it changed since it was last read (`tickscope clients add|remove` by
   * another process): a removed client's tokens and connections stop at once. A file that cannot be
   * read now (mid-edit by hand) keeps the clients last read.
   */
  refresh(): void {
    if (!this.file) return;
    const now = stamp(this.file);
    if (now === this.seen) return;
    let next: StoredClient[];
    try {
      next = Clients.read(this.file);
    } catch {
      return;
    }
    this.seen = now;
    const kept = new Set(next.map((c) => c.id));
    const removed = this.clients.filter((c) => !kept.has(c.id)).map((c) => c.id);
    this.clients = next;
    if (removed.length) for (const f of this.removedListeners) f(removed);
  }

  /** Re-reads the file every `ms` while the gateway runs (it does not keep the process alive). */
  watch(ms = 1000): void {
    if (!this.file || this.timer) return;
    this.timer = setInterval(() => this.refresh(), ms);
    this.timer.unref();
  }

  /** Stops watching the file. */
  unwatch(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Calls `f` with the ids of clients gone from the file (their q connections close). */
  onRemoved(f: (ids: readonly string[]) => void): () => void {
    this.removedListeners.add(f);
    return () => this.removedListeners.delete(f);
  }

  /** Whether a client of this id is registered now (a token's subject must still be). */
  has(id: string): boolean {
    this.refresh();
    return this.clients.some((c) => c.id === id);
  }

  /** Clients held in memory only (the one-off client of a gateway started without a clients file). */
  static inMemory(): Clients {
    return new Clients([], null);
  }

  list(): readonly StoredClient[] {
    return this.clients;
  }

  get size(): number {
    return this.clients.length;
  }

  /** Adds (or replaces) a client; returns the secret (the given one, or a new one). */
  add(id: string, scopes: readonly Scope[], secret = newSecret()): string {
    if (!ID.test(id)) throw new TickscopeError('badRequest', `--id: ${JSON.stringify(id)} is not a client id; expected 1 to 64 letters, digits, '.', '_' or '-'`);
    if (secret.length < 12) throw new TickscopeError('badRequest', '--secret: too short; expected at least 12 characters (leave it out to have one generated)');
    const salt = randomBytes(16).toString('base64url');
    const client: StoredClient = { id, scopes: [...scopes], salt, hash: hashOf(secret, salt).toString('base64url'), created: new Date().toISOString() };
    this.clients = [...this.clients.filter((c) => c.id !== id), client];
    this.save();
    return secret;
  }

  /** Removes a client; false when there was none of that id. */
  remove(id: string): boolean {
    const before = this.clients.length;
    this.clients = this.clients.filter((c) => c.id !== id);
    if (this.clients.length === before) return false;
    this.save();
    return true;
  }

  /**
   * The client whose id and secret these are, or null. The hash is computed even for an unknown id
   * (against a dummy salt), so the answer takes as long either way.
   */
  verify(id: string, secret: string): StoredClient | null {
    const client = this.clients.find((c) => c.id === id);
    const salt = client?.salt ?? 'AAAAAAAAAAAAAAAAAAAAAA';
    const got = hashOf(secret, salt);
    const want = client ? Buffer.from(client.hash, 'base64url') : Buffer.alloc(32);
    return client && want.length === got.length && timingSafeEqual(got, want) ? client : null;
  }

  /** verify, with the hash computed off the event loop (libuv's thread pool): what a server calls. */
  async verifyAsync(id: string, secret: string): Promise<StoredClient | null> {
    this.refresh();
    const client = this.clients.find((c) => c.id === id);
    const salt = client?.salt ?? 'AAAAAAAAAAAAAAAAAAAAAA';
    const got = await new Promise<Buffer>((resolve, reject) => scrypt(secret, Buffer.from(salt, 'base64url'), 32, (e, key) => (e ? reject(e) : resolve(key))));
    const want = client ? Buffer.from(client.hash, 'base64url') : Buffer.alloc(32);
    return client && want.length === got.length && timingSafeEqual(got, want) ? client : null;
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp-${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify({ clients: this.clients } satisfies ClientsFile, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.file);
    this.seen = stamp(this.file);
  }
}

/** A file's size, modification time and inode as one string ('' when absent). */
function stamp(file: string | null): string {
  if (!file) return '';
  try {
    const s = statSync(file, { bigint: true });
    return `${s.size}:${s.mtimeNs}:${s.ino}`;
  } catch {
    return '';
  }
}
