/**
 * The q IPC gateway (SPEC 7): kdb+ IPC on a TCP port (TLS with a certificate). The handshake's
 * user:password is a client id and secret (with an external issuer: any user and an access token);
 * the client's scopes apply as over REST. Accepted messages, op and gw each a symbol or char vector:
 * `(op; args)`, `(op; args; callback; opts)` (what `gw(`.fsi.getTicks; args; `; ()!())` sends through
 * a handle) and `(gw; op; args; callback; opts)`. A sync message is answered `(header; payload)` or a
 * q error starting with the ac; an async one with a callback is answered by calling it. Messages of a
 * connection are handled in order; a closed connection cancels its running query. Queries run and
 * render on the executor; this thread frames bytes and dispatches.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { asTickscopeError, TickscopeError } from '../../core/errors.js';
import { operationByName } from '../../registry/operations.js';
import type { QueryService } from '../../service/query-service.js';
import type { Clients, Scope } from '../clients.js';
import { requestInfo } from '../envelope.js';
import type { TokenVerifier } from '../tokens.js';
import { decodeMessage, decompress, MSG_ASYNC, MSG_RESPONSE, MSG_SYNC, Q_NULL, QSymbol, QWriter, readHeader } from './codec.js';
import { qErrorMessage, type QReply } from './result.js';

/** Largest message accepted from a client. */
export const MAX_Q_MESSAGE = 64 * 1024 * 1024;
/** Longest handshake (user:password) before the connection is dropped. */
const MAX_HANDSHAKE = 16 * 1024;

export interface QGatewayOptions {
  readonly host: string;
  readonly port: number;
  /** Own clients (id and secret in the handshake), unless `external` verifies access tokens. */
  readonly clients: Clients;
  readonly external?: TokenVerifier;
  readonly tls?: { readonly cert: string; readonly key: string };
  readonly log?: (line: string) => void;
}

export interface RunningQGateway {
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

const FORMS = 'send (op; args), (op; args; callback; opts) or (`gw; op; args; callback; opts), op a symbol or string such as `.fsi.getTicks and args a dictionary';

const name = (x: unknown): string | null => (x instanceof QSymbol ? x.name : typeof x === 'string' ? x : null);

interface Call {
  readonly op: string;
  readonly args: unknown;
  readonly callback: string | null;
  readonly timeoutMs: number | undefined;
}

/** The call a message asks for (or an error naming the accepted forms). */
function callOf(msg: unknown): Call {
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
      if (typeof t !== 'number' || !Number.isInteger(t) || t < 0) throw new TickscopeError('badValue', `opts.timeout: ${JSON.stringify(t)} is not valid; expected milliseconds as a whole number`);
      timeoutMs = t;
    }
  }
  return { op, args, callback, timeoutMs };
}

/** Starts the q IPC gateway on the service's executor. */
export async function startQGateway(service: QueryService, opts: QGatewayOptions): Promise<RunningQGateway> {
  const sockets = new Set<Socket>();
  const onConnection = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    let handshake = true;
    let scopes: readonly Scope[] = [];
    let subject = '';
    let pending: Buffer = Buffer.alloc(0);
    let chain = Promise.resolve();
    const running = new Set<string>();
    let closed = false;
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      for (const id of running) service.executor.cancel(id);
    });

    const send = (bytes: Uint8Array): void => {
      if (!closed) socket.write(bytes);
    };

    /** Handles one message: a call of an operation, answered as its type asks. */
    const handle = async (type: number, body: Uint8Array): Promise<void> => {
      const corr = randomUUID();
      const started = performance.now();
      // the header's rcvTS is when the message arrived, for an answer and an error alike
      const received = requestInfo('?', corr);
      let op = '?';
      let reply: QReply = { kind: 'response' };
      let status = 'ok';
      let rows = 0;
      const answerError = (e: unknown): void => {
        const err = asTickscopeError(e);
        status = `ac=${err.ac}`;
        send(qErrorMessage(err, { ...received, api: op }, reply));
      };
      try {
        const call = callOf(decodeMessage(body));
        op = call.op;
        if (type === MSG_ASYNC) {
          if (!call.callback) reply = { kind: 'async' }; // nobody to answer: runs, answers nothing
          else reply = { kind: 'async', callback: call.callback };
        }
        const spec = operationByName(call.op);
        const scope: Scope = spec.name === 'generateOrderAnalytics' ? 'fsi.generate' : 'fsi.read';
        if (!scopes.includes(scope)) throw new TickscopeError('forbidden', `the client's scopes (${scopes.join(', ') || 'none'}) lack ${scope}, which ${spec.name} needs`);
        const queryId = corr;
        running.add(queryId);
        try {
          const r = await service.executor.envelope(call.op, call.args, { format: 'q', req: { ...received, api: call.op }, reply }, () => undefined, {
            queryId,
            ...(call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs } : {}),
          });
          if (!r.ok) throw r.error;
          rows = r.answer.header.rows ?? 0;
          if (type === MSG_SYNC || reply.callback) send(r.answer.q!);
        } finally {
          running.delete(queryId);
        }
      } catch (e) {
        if (type === MSG_SYNC || reply.callback) answerError(e);
        else status = `ac=${asTickscopeError(e).ac}`;
      }
      opts.log?.(`${new Date().toISOString()} corr=${corr} q ${type === MSG_SYNC ? 'sync' : 'async'} ${op} ${status} rows=${rows} ms=${(performance.now() - started).toFixed(1)} client=${subject}`);
    };

    const login = async (text: string, capability: number): Promise<void> => {
      const at = text.indexOf(':');
      const user = at >= 0 ? text.slice(0, at) : text;
      const password = at >= 0 ? text.slice(at + 1) : '';
      try {
        if (opts.external) {
          const check = await opts.external.verify(password);
          scopes = check.scopes;
          subject = check.subject || user;
        } else {
          const client = await opts.clients.verifyAsync(user, password);
          if (!client) throw new TickscopeError('unauthorized', 'unknown client or wrong secret');
          scopes = client.scopes;
          subject = client.id;
        }
      } catch (e) {
        // as kdb+ does: a refused handshake closes the connection (the client reports "access")
        opts.log?.(`${new Date().toISOString()} q handshake refused for ${JSON.stringify(user)}: ${asTickscopeError(e).message}`);
        socket.destroy();
        return;
      }
      send(Uint8Array.of(Math.min(capability, 3)));
      handshake = false;
      drain();
    };

    /** Frames whole messages out of what has arrived and queues them, in order. */
    const drain = (): void => {
      while (!handshake && pending.length >= 8) {
        const h = readHeader(pending);
        if (!h.littleEndian) {
          send(errorOnly('q message: big-endian messages are not accepted'));
          socket.destroy();
          return;
        }
        if (h.length < 9 || h.length > MAX_Q_MESSAGE) {
          send(errorOnly(`q message: ${h.length} bytes; at most ${MAX_Q_MESSAGE}`));
          socket.end();
          return;
        }
        if (pending.length < h.length) return;
        let msg: Uint8Array = pending.subarray(0, h.length);
        pending = pending.subarray(h.length);
        if (h.type === MSG_RESPONSE) continue; // a response to nothing we sent: ignored
        chain = chain.then(async () => {
          try {
            if (h.compressed) msg = decompress(msg);
          } catch (e) {
            if (h.type === MSG_SYNC) send(errorOnly(asTickscopeError(e).message));
            return;
          }
          await handle(h.type, msg);
        });
      }
    };

    let auth: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      if (handshake) {
        auth = Buffer.concat([auth, chunk]);
        const zero = auth.indexOf(0);
        if (zero < 0) {
          if (auth.length > MAX_HANDSHAKE) socket.destroy();
          return;
        }
        // user:password, then a capability byte (absent from very old clients), then 0
        const body = auth.subarray(0, zero);
        const capability = body.length > 0 && body[body.length - 1]! < 32 ? body[body.length - 1]! : 0;
        const text = (capability ? body.subarray(0, body.length - 1) : body).toString('utf8');
        pending = auth.subarray(zero + 1);
        auth = Buffer.alloc(0);
        socket.pause();
        void login(text, capability).finally(() => socket.resume());
        return;
      }
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      drain();
    });
  };

  const server = opts.tls ? createTlsServer({ cert: readFileSync(opts.tls.cert), key: readFileSync(opts.tls.key) }, onConnection) : createTcpServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : opts.port,
    server,
    // stopping drops the clients (server.close alone waits for every connection to end)
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** A malformed message's q error (ac 13, malformed request) as a response message. */
function errorOnly(text: string): Uint8Array {
  const w = QWriter.forMessage();
  w.error(`${new TickscopeError('badRequest', text).ac} ${text}`);
  return w.message(MSG_RESPONSE);
}
