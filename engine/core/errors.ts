/**
 * One error type for the whole engine. Each kind has an application code (`ac`), the envelope's
 * return code (`rc`: 5 application error, 10 internal) and the HTTP status the REST gateway answers.
 * docs/errors.md lists every kind; a test keeps the two in step.
 */

export interface ErrorKind {
  readonly ac: number;
  readonly rc: 5 | 10;
  readonly http: number;
  readonly title: string;
}

const app = (ac: number, title: string, http = 400): ErrorKind => ({ ac, rc: 5, http, title });

/** Every error kind the engine raises, by name. */
export const ErrorKinds = {
  unknownOperation: app(1, 'unknown operation', 404),
  unknownArgument: app(2, 'unknown argument'),
  missingArgument: app(3, 'missing required argument'),
  badValue: app(4, 'value does not parse as the argument type'),
  notAllowed: app(5, 'value is not one of the allowed values'),
  unknownTable: app(6, 'unknown table'),
  unknownColumn: app(7, 'unknown column'),
  notSupported: app(8, 'not supported yet'),
  unknownAssembly: app(9, 'unknown assembly'),
  badFilter: app(10, 'invalid filter'),
  badSort: app(11, 'invalid sortCols'),
  unknownTimeZone: app(12, 'unknown time zone'),
  badRequest: app(13, 'malformed request'),
  columnType: app(14, 'operation not valid for the column type'),
  requirement: app(15, 'requirement not met'),
  startNotBeforeEnd: app(23, 'startTS >= endTS'),
  importFailed: app(30, 'import rejected'),
  reimport: app(35, 'rows imported before', 409),
  badDatabase: app(31, 'database folder missing or invalid'),
  badConfig: app(32, 'invalid config.json'),
  badSchema: app(33, 'invalid schema.json'),
  badSettings: app(34, 'invalid process settings'),
  cancelled: app(40, 'cancelled'),
  timeout: app(41, 'timeout', 504),
  resultTooLarge: app(42, 'result too large'),
  busy: app(43, 'busy', 503),
  unauthorized: app(50, 'missing or invalid token or credentials', 401),
  forbidden: app(51, 'token lacks the operation\'s scope', 403),
  notFound: app(52, 'unknown path', 404),
  methodNotAllowed: app(53, 'method not allowed', 405),
  tooLarge: app(54, 'request body too large', 413),
  unsupportedMediaType: app(55, 'unsupported content type', 415),
  rateLimited: app(56, 'too many requests', 429),
  inputLimit: app(57, 'input past a limit'),
  diskFull: app(60, 'disk full', 507),
  readOnlyStorage: app(61, 'storage is read-only', 503),
  accessDenied: app(62, 'permission denied', 503),
  tooManyOpenFiles: app(63, 'too many open files', 503),
  internal: { ac: 99, rc: 10, http: 500, title: 'internal error' },
} as const satisfies Record<string, ErrorKind>;

export type ErrorKindName = keyof typeof ErrorKinds;

/** An error that reaches the user: names what was wrong and what was expected. */
export class TickscopeError extends Error {
  readonly kind: ErrorKindName;

  constructor(kind: ErrorKindName, message: string) {
    super(message.length > 400 ? shortenQuotes(message) : message);
    this.name = 'TickscopeError';
    this.kind = kind;
  }

  get ac(): number {
    return ErrorKinds[this.kind].ac;
  }

  get rc(): 5 | 10 {
    return ErrorKinds[this.kind].rc;
  }

  get http(): number {
    return ErrorKinds[this.kind].http;
  }
}

/** A quoted value longer than this in an error message is cut (SPEC 7: ~200 characters). */
const QUOTED_MAX = 200;

/**
 * An error message with every long JSON string literal in it (a bad value quoted whole) cut to
 * ~200 characters, and the whole capped: a 7 MB value never comes back in an answer.
 */
function shortenQuotes(message: string): string {
  // one pass: a literal runs from a quote to the next unescaped quote (or the end)
  let out = '';
  let i = 0;
  while (i < message.length) {
    const open = message.indexOf('"', i);
    if (open < 0) {
      out += message.slice(i);
      break;
    }
    let close = open + 1;
    while (close < message.length && message[close] !== '"') close += message[close] === '\\' ? 2 : 1;
    const literal = message.slice(open, close + 1);
    out += message.slice(i, open) + (literal.length > QUOTED_MAX + 2 ? `${literal.slice(0, QUOTED_MAX + 1)}..." (${literal.length - 2} characters)` : literal);
    i = close + 1;
  }
  return out.length > 4000 ? `${out.slice(0, 4000)}... (${out.length} characters)` : out;
}

/** Renders a user-supplied value for an error message, short enough to read. */
export function showValue(value: unknown): string {
  let text: string;
  if (typeof value === 'bigint') text = value.toString();
  else if (value === undefined) text = 'undefined';
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** The standard message for a bad argument value: `arg: value <problem>; expected <forms>`. */
export function argError(
  kind: ErrorKindName,
  arg: string,
  value: unknown,
  problem: string,
  expected: string,
): TickscopeError {
  return new TickscopeError(kind, `${arg}: ${showValue(value)} ${problem}; expected ${expected}`);
}

/** A value from outside quoted for an error message: at most ~200 characters, whatever its size. */
export function quoteText(text: string, max = 200): string {
  const q = JSON.stringify(text.length > max ? text.slice(0, max) : text);
  return text.length > max ? `${q.slice(0, -1)}..." (${text.length} characters)` : q;
}

/**
 * The environment's failures (SPEC 7): a full disk, a read-only or forbidden folder, too many open
 * files are application errors of their own naming the path and the fix, never internal errors.
 */
const ENVIRONMENT: Readonly<Record<string, { kind: ErrorKindName; fix: string }>> = {
  ENOSPC: { kind: 'diskFull', fix: 'the disk is full; free space on it (or move the database) and retry' },
  EDQUOT: { kind: 'diskFull', fix: 'the disk quota is used up; free space or raise the quota and retry' },
  EROFS: { kind: 'readOnlyStorage', fix: 'the file system is read-only; mount it read-write or use a writable folder' },
  EPERM: { kind: 'accessDenied', fix: 'the operation is not permitted (an immutable or foreign-owned file?); check its attributes and owner' },
  EACCES: { kind: 'accessDenied', fix: 'permission denied; give this process read and write access to it' },
  EMFILE: { kind: 'tooManyOpenFiles', fix: 'this process has too many files open; raise its limit (ulimit -n) or run fewer queries at once' },
  ENFILE: { kind: 'tooManyOpenFiles', fix: 'the system has too many files open; raise its limit or close other programs' },
};

/**
 * The application error of an environment failure (ENOSPC, EROFS, EPERM, EACCES, EMFILE, ...) naming
 * the path and what was being done, or null when `err` is not one.
 */
export function environmentError(err: unknown, doing?: string): TickscopeError | null {
  if (err instanceof TickscopeError || typeof err !== 'object' || err === null) return null;
  const e = err as NodeJS.ErrnoException;
  const env = e.code ? ENVIRONMENT[e.code] : undefined;
  if (!env) return null;
  const path = e.path ?? (e as { dest?: string }).dest;
  return new TickscopeError(env.kind, `${doing ? `${doing}: ` : ''}${path ? `${path}: ` : ''}${e.code}: ${env.fix}`);
}

/** A listen that failed for a reason the user can fix (the port in use, a privileged port), said in one line. */
export function listenError(e: unknown, host: string, port: number, flag: string): unknown {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new TickscopeError('badRequest', `${flag} ${port}: ${host}:${port} is already in use by another process; stop it or give another port (0 picks a free one)`);
  if (code === 'EACCES') return new TickscopeError('accessDenied', `${flag} ${port}: not permitted to listen on ${host}:${port} (ports below 1024 need privileges); give a port of 1024 or more`);
  if (code === 'EADDRNOTAVAIL') return new TickscopeError('badRequest', `--host ${host}: not an address of this machine; expected one of its addresses (127.0.0.1 for loopback)`);
  return e;
}

/** Wraps anything thrown into a TickscopeError, keeping application errors as they are. */
export function asTickscopeError(err: unknown): TickscopeError {
  if (err instanceof TickscopeError) return err;
  const env = environmentError(err);
  if (env) return env;
  const message = err instanceof Error ? err.message : String(err);
  return new TickscopeError('internal', `internal error: ${message}`);
}
