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
  internal: { ac: 99, rc: 10, http: 500, title: 'internal error' },
} as const satisfies Record<string, ErrorKind>;

export type ErrorKindName = keyof typeof ErrorKinds;

/** An error that reaches the user: names what was wrong and what was expected. */
export class TickscopeError extends Error {
  readonly kind: ErrorKindName;

  constructor(kind: ErrorKindName, message: string) {
    super(message);
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

/** Wraps anything thrown into a TickscopeError, keeping application errors as they are. */
export function asTickscopeError(err: unknown): TickscopeError {
  if (err instanceof TickscopeError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new TickscopeError('internal', `internal error: ${message}`);
}
