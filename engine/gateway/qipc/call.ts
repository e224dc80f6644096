/**
 * The calls a q message may make (SPEC 7): `(op; args)`, `(op; args; callback; opts)` and
 * `(gw; op; args; callback; opts)`, op and gw each a symbol or a char vector, args a dictionary.
 */
import { quoteText, showValue, TickscopeError } from '../../core/errors.js';
import { Q_NULL, QSymbol } from '../../q/decode.js';

const FORMS = 'send (op; args), (op; args; callback; opts) or (`gw; op; args; callback; opts), op a symbol or string such as `.fsi.getTicks and args a dictionary';

const name = (x: unknown): string | null => (x instanceof QSymbol ? x.name : typeof x === 'string' ? x : null);

/** What a message asks: an operation, its arguments, a callback to answer through, a timeout. */
export interface Call {
  readonly op: string;
  readonly args: unknown;
  readonly callback: string | null;
  readonly timeoutMs: number | undefined;
}

/** The call a message asks for (or an error naming the accepted forms). */
export function callOf(msg: unknown): Call {
  if (!Array.isArray(msg)) {
    throw new TickscopeError('badRequest', typeof msg === 'string' || msg instanceof QSymbol ? `q message: q code is not evaluated here; ${FORMS}` : `q message: not a list; ${FORMS}`);
  }
  let items = msg;
  if (items.length === 5) {
    if (name(items[0]) !== 'gw') throw new TickscopeError('badRequest', `q message: a 5-item message starts with gw; ${FORMS}`);
    items = items.slice(1);
  }
  if (items.length !== 2 && items.length !== 4) throw new TickscopeError('badRequest', `q message: a list of ${msg.length} items; ${FORMS}`);
  const op = name(items[0]);
  if (op === null) throw new TickscopeError('badRequest', `q message: the operation is not a symbol or string; ${FORMS}`);
  // no operation has so long a name: refused here, quoted short
  if (op.length > 100) throw new TickscopeError('unknownOperation', `operation: ${quoteText(op, 100)} is not an operation; ${FORMS}`);
  const args = items[1] === Q_NULL ? {} : items[1];
  if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new TickscopeError('badRequest', `args: expected a dictionary of arguments such as \`table\`startTS!(\`Trade;2024.01.02D09:30)`);
  let callback: string | null = null;
  let timeoutMs: number | undefined;
  if (items.length === 4) {
    const cb = items[2];
    if (cb !== Q_NULL && cb !== null) {
      const n = name(cb);
      if (n === null) throw new TickscopeError('badRequest', 'callback: expected a symbol (the function to call with the result) or `');
      callback = n === '' ? null : n;
    }
    const opts = items[3];
    if (opts !== Q_NULL && opts !== null && (typeof opts !== 'object' || Array.isArray(opts))) throw new TickscopeError('badRequest', 'opts: expected a dictionary such as (enlist `timeout)!enlist 5000');
    const t = opts && typeof opts === 'object' ? (opts as Record<string, unknown>)['timeout'] : undefined;
    if (t !== undefined && t !== null) {
      if (typeof t !== 'number' || !Number.isInteger(t) || t < 0) throw new TickscopeError('badValue', `opts.timeout: ${showValue(t)} is not valid; expected milliseconds as a whole number`);
      timeoutMs = t;
    }
  }
  return { op, args, callback, timeoutMs };
}
