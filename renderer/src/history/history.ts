/**
 * The app's memory (SPEC 9): every run recorded (newest first, the last 1,000 kept), saved queries by
 * name, and the current form in the URL (`#op=<name>&args=<url-encoded JSON>`), so a link or a reload
 * restores it. What is stored is the request body (REST JSON, what a script would POST), never a
 * secret: arguments whose names say they hold one are dropped before anything is kept.
 */
import { ARG, type OperationSpec } from '../../../engine/contract';
import { stringArg } from '../form/args';
import type { FormValue, FormValues } from '../form/values';

export const HISTORY_LIMIT = 1000;

/** One run, as the history keeps it. */
export interface HistoryEntry {
  readonly id: string;
  readonly operation: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The connection's name ("This computer" for the app's own engine). */
  readonly connection: string;
  /** ISO time the run started. */
  readonly startedAt: string;
  readonly ms: number;
  readonly ok: boolean;
  /** Rows of a successful run. */
  readonly rows: number | null;
  /** The envelope's ac and message of a failed one. */
  readonly code: number | null;
  readonly message: string | null;
}

/** A saved query. */
export interface SavedQuery {
  readonly name: string;
  readonly operation: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly savedAt: string;
}

/** Argument names that may carry a secret (a remote gateway's client secret, a password, a token). */
const SECRET = /secret|password|passwd|token|credential|apikey|api_key/i;

/** The arguments without any that could hold a secret (at any depth of objects). */
export function withoutSecrets(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const clean = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>)
          .filter(([k]) => !SECRET.test(k))
          .map(([k, x]) => [k, clean(x)]),
      );
    }
    return v;
  };
  return clean(args) as Record<string, unknown>;
}

/** The history with `entry` first, the oldest beyond HISTORY_LIMIT dropped. */
export function addEntry(list: readonly HistoryEntry[], entry: HistoryEntry): HistoryEntry[] {
  return [{ ...entry, args: withoutSecrets(entry.args) }, ...list].slice(0, HISTORY_LIMIT);
}

/** The table a request reads ('' when it names none). */
export const tableOf = (args: Readonly<Record<string, unknown>>): string => stringArg(args, ARG.table);

/**
 * Entries matching every word of `query` (case-insensitive) in their operation, table, connection,
 * arguments, outcome (ok, error code) or start time.
 */
export function searchHistory<T extends HistoryEntry | SavedQuery>(list: readonly T[], query: string): T[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...list];
  return list.filter((e) => {
    const parts = [e.operation, JSON.stringify(e.args)];
    if ('name' in e) parts.push(e.name, e.savedAt);
    else parts.push(e.connection, e.startedAt, e.ok ? 'ok' : `error ${e.code ?? ''} ${e.message ?? ''}`);
    const text = parts.join(' ').toLowerCase();
    return words.every((w) => text.includes(w));
  });
}

/**
 * The form that sends these arguments: each value as the text the form's fields take (lists and
 * trees as JSON, a pair of times as `a|b`, true as the checkbox). buildArgs of it gives the same
 * arguments back.
 */
export function formFromArgs(op: OperationSpec, args: Readonly<Record<string, unknown>>): Record<string, FormValue> {
  const form: Record<string, FormValue> = {};
  for (const arg of op.args) {
    const v = args[arg.name];
    if (v === undefined || v === null) continue;
    if (v === true || v === '1b') form[arg.name] = true;
    else if (v === false || v === '0b') form[arg.name] = false;
    else if (arg.type === 'timespanPair' && Array.isArray(v)) form[arg.name] = v.map(String).join('|');
    else if (arg.type === 'booleanOrSymbol' && v === '') form[arg.name] = '`';
    else if (typeof v === 'string') form[arg.name] = v;
    else if (typeof v === 'number') form[arg.name] = String(v);
    else form[arg.name] = JSON.stringify(v);
  }
  return form;
}

/** The URL fragment holding an operation and its arguments. */
export function hashOf(operation: string, args: Readonly<Record<string, unknown>>): string {
  return `#op=${encodeURIComponent(operation)}&args=${encodeURIComponent(JSON.stringify(withoutSecrets(args)))}`;
}

/** The operation and arguments of a URL fragment, or null when it holds none (or is malformed). */
export function parseHash(hash: string): { operation: string; args: Record<string, unknown> } | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const operation = params.get('op');
  const text = params.get('args');
  if (!operation) return null;
  try {
    const args: unknown = text ? JSON.parse(text) : {};
    if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
    return { operation, args: args as Record<string, unknown> };
  } catch {
    return null;
  }
}

/** Saved queries as one JSON file (export). */
export function savedQueriesJson(list: readonly SavedQuery[]): string {
  return `${JSON.stringify({ tickscope: 'saved-queries', version: 1, queries: list.map((q) => ({ ...q, args: withoutSecrets(q.args) })) }, null, 2)}\n`;
}

/** Saved queries from an exported file; an error names what is wrong and where. */
export function parseSavedQueries(text: string): SavedQuery[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON (${(e as Error).message}); expected a file exported from Saved queries`);
  }
  const queries = Array.isArray(doc) ? doc : (doc as { queries?: unknown } | null)?.queries;
  if (!Array.isArray(queries)) throw new Error('no "queries" list; expected a file exported from Saved queries');
  return queries.map((q: unknown, i) => {
    const o = q as Partial<SavedQuery> | null;
    if (!o || typeof o.name !== 'string' || !o.name.trim()) throw new Error(`queries[${i}]: no name`);
    if (typeof o.operation !== 'string' || !o.operation) throw new Error(`queries[${i}] (${o.name}): no operation`);
    if (!o.args || typeof o.args !== 'object' || Array.isArray(o.args)) throw new Error(`queries[${i}] (${o.name}): args is not an object`);
    return { name: o.name.trim(), operation: o.operation, args: withoutSecrets(o.args), savedAt: typeof o.savedAt === 'string' ? o.savedAt : new Date().toISOString() };
  });
}

/** Saved queries with `q` added, replacing one of the same name; sorted by name. */
export function putSaved(list: readonly SavedQuery[], q: SavedQuery): SavedQuery[] {
  return [...list.filter((x) => x.name !== q.name), { ...q, args: withoutSecrets(q.args) }].sort((a, b) => a.name.localeCompare(b.name));
}

/** True when two form states send the same request (the URL need not change). */
export const sameForm = (a: FormValues | undefined, b: FormValues | undefined): boolean => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});
