/**
 * What the fuzzer knows of the gateway it fuzzes: its tokens and the database's tables, columns,
 * identifiers, dates and named analytics (read from getMeta, so the mutations start from plausible
 * requests), and a seeded random source per case, so case N of a seed is the same case whatever ran
 * before it (`--seed S` and the case's number reproduce it).
 */
import { mixSeed, Rng } from '../engine/demo/rng.js';

/** Seeded choices for one case. */
export class Rand {
  private readonly r: Rng;
  constructor(seed: number, stream: number, index: number) {
    this.r = new Rng(mixSeed(seed, stream, index));
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.r.next();
  }
  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.r.next() * n);
  }
  /** One item of a list. */
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  /** True with probability p. */
  chance(p: number): boolean {
    return this.r.next() < p;
  }
  /** Up to n distinct items. */
  some<T>(xs: readonly T[], n: number): T[] {
    const copy = [...xs];
    const out: T[] = [];
    while (out.length < n && copy.length) out.push(copy.splice(this.int(copy.length), 1)[0]!);
    return out;
  }
  /** A branch by weight: the index of the weight the draw falls in. */
  weighted(weights: readonly number[]): number {
    const total = weights.reduce((a, b) => a + b, 0);
    let x = this.r.next() * total;
    for (let k = 0; k < weights.length; k++) {
      x -= weights[k]!;
      if (x < 0) return k;
    }
    return weights.length - 1;
  }
}

export interface TableInfo {
  readonly name: string;
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: string }>;
  readonly analytics: readonly string[];
}

/** The gateway under fuzz, as the cases need it. */
export interface World {
  readonly host: string;
  readonly restPort: number;
  readonly base: string;
  readonly tokenUrl: string;
  readonly ipcPort: number;
  /** A token with both scopes, and one with fsi.read only (a write then gets 403). */
  readonly token: string;
  readonly readToken: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly readClientId: string;
  readonly readClientSecret: string;
  readonly assembly: string;
  readonly tables: ReadonlyMap<string, TableInfo>;
  readonly instruments: readonly string[];
  /** The first day of data, 2024.03.06 style, and the next. */
  readonly day: string;
  readonly nextDay: string;
  readonly filterRules: readonly string[];
  readonly summaryFunctions: readonly string[];
}

/** A token of the client credentials grant. */
export async function fetchToken(tokenUrl: string, id: string, secret: string): Promise<{ token: string; expiresIn: number }> {
  const r = await fetch(tokenUrl, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }) });
  const j = (await r.json()) as { access_token?: string; expires_in?: number; error_description?: string };
  if (!j.access_token) throw new Error(`token request ${r.status}: ${j.error_description ?? ''}`);
  return { token: j.access_token, expiresIn: j.expires_in ?? 300 };
}

/** POSTs an operation's JSON arguments and returns status and parsed answer. */
export async function callJson(base: string, token: string, path: string, body: unknown, timeoutMs = 30_000): Promise<{ status: number; json: { header?: { rc: number; ac: number; ai: string; rows?: number }; payload?: unknown } }> {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
  return { status: r.status, json: (await r.json()) as { header?: { rc: number; ac: number; ai: string } } };
}

interface MetaPayload {
  assemblies: Array<{ name: string; tables: Array<{ name: string; columns: Array<{ name: string; type: string }>; analytics?: string[] }>; filterRules?: Record<string, unknown> | string[]; summaryFunctions?: Record<string, unknown> | string[] }>;
}

/** Reads getMeta and the Instrument table into a World. */
export async function discoverWorld(g: { base: string; tokenUrl: string; ipcPort: number }, full: { id: string; secret: string }, read: { id: string; secret: string }, startDay: string): Promise<World> {
  const [{ token }, { token: readToken }] = await Promise.all([fetchToken(g.tokenUrl, full.id, full.secret), fetchToken(g.tokenUrl, read.id, read.secret)]);
  const meta = await callJson(g.base, token, '/servicegateway/kxi/getMeta', {});
  const asm = (meta.json.payload as MetaPayload).assemblies[0]!;
  const tables = new Map(asm.tables.map((t) => [t.name, { name: t.name, columns: t.columns, analytics: t.analytics ?? [] }]));
  const inst = await callJson(g.base, token, '/servicegateway/fsi/getTicks', { table: 'Instrument' });
  const rows = (inst.json.payload as Array<Record<string, unknown>> | null) ?? [];
  const instruments = rows.map((r) => String(r['instrumentID'] ?? '')).filter(Boolean);
  const names = (x: Record<string, unknown> | string[] | undefined): string[] => (Array.isArray(x) ? x : Object.keys(x ?? {}));
  const url = new URL(g.base);
  const next = new Date(Date.parse(`${startDay.replace(/\./g, '-')}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10).replace(/-/g, '.');
  return {
    host: url.hostname,
    restPort: Number(url.port),
    base: g.base,
    tokenUrl: g.tokenUrl,
    ipcPort: g.ipcPort,
    token,
    readToken,
    clientId: full.id,
    clientSecret: full.secret,
    readClientId: read.id,
    readClientSecret: read.secret,
    assembly: asm.name,
    tables,
    instruments: instruments.length ? instruments : ['AAPL'],
    day: startDay,
    nextDay: next,
    filterRules: names(asm.filterRules),
    summaryFunctions: names(asm.summaryFunctions),
  };
}
