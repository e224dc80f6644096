/**
 * The q IPC gateway (SPEC 7): kdb+ IPC on a TCP port (TLS with a certificate). The handshake's
 * user:password is a client id and secret (with an external issuer: any user and an access token);
 * the client's scopes apply as over REST. Accepted messages, op and gw each a symbol or char vector:
 * `(op; args)`, `(op; args; callback; opts)` (what `gw(`.fsi.getTicks; args; `; ()!())` sends through
 * a handle) and `(gw; op; args; callback; opts)`. A sync message is answered `(header; payload)` or a
 * q error starting with the ac; an async one with a callback is answered by calling it. Messages of a
 * connection are handled in order; a closed connection cancels its running query. Queries run and
 * render on the executor; this thread frames bytes and dispatches.
 *
 * Clients are not trusted (docs/gateway.md, "Limits"): the handshake must complete within
 * qHandshakeTimeoutMs and stay short, failed secrets are throttled per client id and address, a
 * client id holds at most maxQSocketsPerClient sockets, messages are framed without re-copying and
 * refused past maxQMessageBytes (compressed or not), decoding is bounded by maxJsonDepth and
 * maxJsonElements, an answer the client does not read for writeStallMs cuts it, and a failure of one
 * message answers that message (or closes that connection), never the process.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { asTickscopeError, listenError, quoteText, TickscopeError } from '../../core/errors.js';
import type { ProcessSettings } from '../../executor/settings.js';
import { operationByName } from '../../operations/index.js';
import type { GatewayHost } from '../host.js';
import type { Clients, Scope } from '../clients.js';
import { requestInfo, type RequestInfo } from '../../output/envelope.js';
import type { TokenVerifier } from '../tokens.js';
import { decompressBody, MSG_ASYNC, MSG_RESPONSE, MSG_SYNC, QWriter } from '../../q/codec.js';
import { callOf } from './call.js';
import { decodeMessage } from '../../q/decode.js';
import { type Frame, FrameReader } from './framing.js';
import { qErrorMessage, type QReply } from '../../output/q-result.js';
import { FAILED_SECRETS_PER_ADDRESS_PER_MINUTE, FAILED_SECRETS_PER_MINUTE, FailedSecrets, Throttle } from '../throttle.js';

/** The gateway's limits: the process settings it reads (SPEC 10) and its own. */
export interface QLimits extends Pick<ProcessSettings, 'maxJsonDepth' | 'maxJsonElements' | 'maxQMessageBytes' | 'qHandshakeTimeoutMs' | 'qIdleTimeoutMs' | 'writeStallMs' | 'maxQSocketsPerClient'> {
  /** Longest handshake before its 0 (user:password and capability byte). */
  readonly maxHandshakeBytes: number;
  /** Connections of one address still in their handshake; past it a new one is closed at once. */
  readonly maxPendingHandshakesPerAddress: number;
  /** Failed handshakes of one client id within failureWindowMs; past it refused until the window ends. */
  readonly maxFailedHandshakes: number;
  /** ... and of one address, whatever the ids it tries (many clients may share a host). */
  readonly maxFailedHandshakesPerAddress: number;
  readonly failureWindowMs: number;
}

export interface QGatewayOptions {
  readonly host: string;
  readonly port: number;
  /** Own clients (id and secret in the handshake), unless `external` verifies access tokens. */
  readonly clients: Clients;
  readonly external?: TokenVerifier;
  readonly tls?: { readonly cert: string; readonly key: string };
  readonly log?: (line: string) => void;
  /** Limits where they differ from the executor's process settings and the defaults below (tests set short ones). */
  readonly limits?: Partial<QLimits>;
}

export interface RunningQGateway {
  readonly port: number;
  readonly server: Server;
  /** The limits in force. */
  readonly limits: QLimits;
  /** Sizes of the per-client maps (the load script checks they go back down). */
  clientMaps(): Record<string, number>;
  close(): Promise<void>;
}

/** Longest handshake of a client id and secret; an external issuer's access token (a JWT with roles) needs more. */
const HANDSHAKE_BYTES = 1024;
const HANDSHAKE_BYTES_EXTERNAL = 16 * 1024;
/** Answers are written in slices this size, each waiting for the previous: the write-stall clock sees progress at this grain. */
const WRITE_SLICE = 64 * 1024;
/** Messages waiting on one connection before it is read no further (the client's TCP window then holds the rest). */
const MAX_QUEUED_MESSAGES = 256;
/** Longest error text answered. */
const MAX_ERROR_TEXT = 1000;
/** How long a connection closed for a framing error may take to send its last answer. */
const CLOSE_GRACE_MS = 2000;

/** A q error as a response message: its text starts with the ac. */
function errorOnly(err: TickscopeError): Uint8Array {
  const w = QWriter.forMessage(256);
  w.error(`${err.ac} ${err.message}`);
  return w.message(MSG_RESPONSE);
}

/**
 * The error as answered: the messages quote a bad value to ~200 characters, but a message built
 * elsewhere from a client's huge value must still not send it back whole.
 */
function bounded(err: TickscopeError): TickscopeError {
  if (err.message.length <= MAX_ERROR_TEXT) return err;
  return new TickscopeError(err.kind, `${err.message.slice(0, MAX_ERROR_TEXT - 40)}... (${err.message.length} characters)`);
}

/** A counter per key that forgets a key at 0. */
class Counts {
  private readonly map = new Map<string, number>();
  get(key: string): number {
    return this.map.get(key) ?? 0;
  }
  get size(): number {
    return this.map.size;
  }
  add(key: string, by: number): void {
    const n = this.get(key) + by;
    if (n > 0) this.map.set(key, n);
    else this.map.delete(key);
  }
}

/** Starts the q IPC gateway on the service's executor. */
export async function startQGateway(service: GatewayHost, opts: QGatewayOptions): Promise<RunningQGateway> {
  const s = service.executor.settings;
  const limits: QLimits = {
    maxJsonDepth: s.maxJsonDepth,
    maxJsonElements: s.maxJsonElements,
    maxQMessageBytes: s.maxQMessageBytes,
    qHandshakeTimeoutMs: s.qHandshakeTimeoutMs,
    qIdleTimeoutMs: s.qIdleTimeoutMs,
    writeStallMs: s.writeStallMs,
    maxQSocketsPerClient: s.maxQSocketsPerClient,
    maxHandshakeBytes: opts.external ? HANDSHAKE_BYTES_EXTERNAL : HANDSHAKE_BYTES,
    // many clients may share a host (loopback, a NAT): generous, as the handshake timeout already bounds how long each is held
    maxPendingHandshakesPerAddress: 4096,
    maxFailedHandshakes: FAILED_SECRETS_PER_MINUTE,
    maxFailedHandshakesPerAddress: FAILED_SECRETS_PER_ADDRESS_PER_MINUTE,
    failureWindowMs: 60_000,
    ...opts.limits,
  };
  const sockets = new Set<Socket>();
  const pendingByAddress = new Counts();
  const socketsByClient = new Counts();
  // the REST gateway's per-client minute (SPEC 10 maxRequestsPerClientPerMinute), counted here for q
  const perMinute = new Throttle(s.maxRequestsPerClientPerMinute);
  // a client removed from the clients file loses its open connections at once
  const bySubject = new Map<string, Set<Socket>>();
  const stopWatching = opts.external ? () => undefined : opts.clients.onRemoved((ids) => {
    for (const id of ids) {
      for (const sock of bySubject.get(id) ?? []) {
        log(`q connection closed: client ${quoteText(id)} was removed from the clients file`);
        sock.destroy();
      }
    }
  });
  if (!opts.external) opts.clients.watch();
  // the same limits as the REST token endpoint's failed secrets (rest.ts)
  const failedSecrets = new FailedSecrets(limits.maxFailedHandshakes, limits.maxFailedHandshakesPerAddress, limits.failureWindowMs);
  const log = (line: string): void => {
    try {
      opts.log?.(`${new Date().toISOString()} ${line}`);
    } catch {
      // a failing logger must not fail a connection
    }
  };

  const onConnection = (socket: Socket): void => {
    const address = socket.remoteAddress ?? '?';
    socket.on('error', () => undefined);
    if (pendingByAddress.get(address) >= limits.maxPendingHandshakesPerAddress) {
      // cheap refusal of a connection flood: no timers, no buffers
      socket.destroy();
      return;
    }
    sockets.add(socket);
    pendingByAddress.add(address, 1);
    let pendingCounted = true;
    const unpend = (): void => {
      if (pendingCounted) pendingByAddress.add(address, -1);
      pendingCounted = false;
    };
    let state: 'handshake' | 'login' | 'open' | 'closing' = 'handshake';
    let scopes: readonly Scope[] = [];
    let subject = '';
    let clientCounted = false;
    const framer = new FrameReader(limits.maxQMessageBytes);
    const queue: Array<Frame | TickscopeError> = [];
    let queuedBytes = 0;
    let working = false;
    let writing = false;
    const running = new Set<string>();
    let auth: Buffer[] = [];
    let authBytes = 0;

    const handshakeTimer = setTimeout(() => {
      log(`q handshake from ${address} not complete within ${limits.qHandshakeTimeoutMs} ms (qHandshakeTimeoutMs): closed`);
      socket.destroy();
    }, limits.qHandshakeTimeoutMs);
    let idleTimer: NodeJS.Timeout | undefined;
    const touch = (): void => {
      if (limits.qIdleTimeoutMs <= 0 || state !== 'open') return;
      if (idleTimer) idleTimer.refresh();
      else {
        idleTimer = setTimeout(() => {
          // a query or an answer in progress is not idleness
          if (working || writing || queue.length > 0) return void idleTimer?.refresh();
          log(`q connection idle for ${limits.qIdleTimeoutMs} ms (qIdleTimeoutMs): closed client=${subject}`);
          socket.destroy();
        }, limits.qIdleTimeoutMs);
      }
    };

    socket.once('close', () => {
      sockets.delete(socket);
      clearTimeout(handshakeTimer);
      clearTimeout(idleTimer);
      unpend();
      if (clientCounted) {
        socketsByClient.add(subject, -1);
        const mine = bySubject.get(subject);
        mine?.delete(socket);
        if (mine?.size === 0) bySubject.delete(subject);
      }
      clientCounted = false;
      queue.length = 0;
      for (const id of running) service.executor.cancel(id);
    });

    /** Reads on while the messages waiting are few; a client sending faster than it is served waits in its TCP window. */
    const flow = (): void => {
      if (socket.destroyed || state === 'closing') return;
      const hold = state === 'login' || queuedBytes >= limits.maxQMessageBytes || queue.length >= MAX_QUEUED_MESSAGES;
      if (hold && !socket.isPaused()) socket.pause();
      else if (!hold && socket.isPaused()) socket.resume();
    };

    /**
     * Writes a message in slices, each after the previous left for the client: a client that takes
     * nothing for writeStallMs is cut (its close cancels what it runs), and a client that reads
     * nothing holds no worker, as the next message waits for this answer.
     */
    const send = async (bytes: Uint8Array): Promise<void> => {
      if (socket.destroyed) return;
      writing = true;
      const stall =
        limits.writeStallMs > 0
          ? setTimeout(() => {
              log(`q client read nothing of its answer for ${limits.writeStallMs} ms (writeStallMs): cut client=${subject}`);
              socket.destroy();
            }, limits.writeStallMs)
          : undefined;
      try {
        for (let at = 0; at < bytes.length && !socket.destroyed; at += WRITE_SLICE) {
          const slice = bytes.subarray(at, Math.min(bytes.length, at + WRITE_SLICE));
          await new Promise<void>((resolve) => {
            const done = (): void => {
              socket.off('close', done);
              resolve();
            };
            socket.once('close', done);
            socket.write(slice, () => done());
          });
          stall?.refresh();
        }
      } finally {
        clearTimeout(stall);
        writing = false;
      }
    };

    /** A failed call's answer; if even that cannot be encoded, a plain one, else the connection closes. */
    const answerError = async (err: TickscopeError, req: RequestInfo, reply: QReply): Promise<void> => {
      let bytes: Uint8Array;
      try {
        bytes = qErrorMessage(bounded(err), req, reply);
      } catch (e) {
        log(`q corr=${req.corr} the error answer could not be encoded: ${asTickscopeError(e).message}`);
        if (reply.kind !== 'response') throw e;
        bytes = errorOnly(new TickscopeError('internal', `internal error: the answer to this message could not be encoded (corr ${req.corr})`));
      }
      await send(bytes);
    };

    /** Handles one message: a call of an operation, answered as its type asks. */
    const handle = async (frame: Frame): Promise<void> => {
      const type = frame.header.type;
      const corr = randomUUID();
      const started = performance.now();
      // the header's rcvTS is when the message arrived, for an answer and an error alike
      const received = requestInfo('?', corr);
      let op = '?';
      let reply: QReply = { kind: 'response' };
      let status = 'ok';
      let rows = 0;
      const answers = (): boolean => type === MSG_SYNC || reply.callback !== undefined;
      try {
        const body = frame.header.compressed ? await decompressBody(frame.bytes, limits.maxQMessageBytes) : frame.bytes.subarray(8);
        if (socket.destroyed) return;
        // a call is a few atoms and small vectors the registry reads as values: decoded item by item,
        // bounded by maxJsonDepth and maxJsonElements (engine/q/decode.ts); a table, which no call
        // carries, is refused there naming its q type (engine/q/columns.ts reads tables as columns)
        const call = callOf(decodeMessage(body, limits));
        op = call.op;
        if (type === MSG_ASYNC) reply = call.callback ? { kind: 'async', callback: call.callback } : { kind: 'async' }; // no callback: runs, answers nothing
        const minute = perMinute.hit(subject);
        if (!minute.ok) throw new TickscopeError('rateLimited', `client ${quoteText(subject, 64)}: more than ${s.maxRequestsPerClientPerMinute} requests this minute (maxRequestsPerClientPerMinute); retry in ${minute.retryAfterS} s`);
        const spec = operationByName(call.op);
        const scope: Scope = spec.scope;
        if (!scopes.includes(scope)) throw new TickscopeError('forbidden', `the client's scopes (${scopes.join(', ') || 'none'}) lack ${scope}, which ${spec.name} needs`);
        const queryId = corr;
        running.add(queryId);
        let answer: Uint8Array;
        try {
          const r = await service.executor.envelope(call.op, call.args, { format: 'q', req: { ...received, api: call.op }, reply }, () => undefined, {
            queryId,
            ...(call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs } : {}),
          });
          if (!r.ok) throw r.error;
          rows = r.answer.header.rows ?? 0;
          if (!r.answer.q) throw new TickscopeError('internal', 'internal error: the executor answered no q message');
          answer = r.answer.q;
        } finally {
          running.delete(queryId);
        }
        if (answers()) await send(answer);
      } catch (e) {
        const err = asTickscopeError(e);
        status = `ac=${err.ac}`;
        if (answers()) await answerError(err, { ...received, api: op }, reply);
      }
      log(`corr=${corr} q ${type === MSG_SYNC ? 'sync' : 'async'} ${quoteText(op, 100)} ${status} rows=${rows} ms=${(performance.now() - started).toFixed(1)} client=${subject}`);
    };

    /** Handles the waiting messages one after another; a failure closes this connection only. */
    const pump = async (): Promise<void> => {
      if (working) return;
      working = true;
      try {
        while (queue.length > 0 && !socket.destroyed) {
          const item = queue.shift()!;
          if (item instanceof TickscopeError) {
            // the framing is lost: answer in turn, then close
            await send(errorOnly(bounded(item)));
            socket.end();
            setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
            return;
          }
          queuedBytes -= item.bytes.length;
          flow();
          await handle(item);
          touch();
        }
      } catch (e) {
        log(`q connection failed: ${asTickscopeError(e).message} client=${subject}: closed`);
        socket.destroy();
      } finally {
        working = false;
      }
    };

    /** Frames what has arrived and queues it, in order. */
    const frames = (): void => {
      for (;;) {
        let f: Frame | null;
        try {
          f = framer.next();
        } catch (e) {
          const err = asTickscopeError(e);
          log(`q message refused: ${err.message} client=${subject}: closing`);
          state = 'closing';
          queue.push(err);
          socket.pause();
          break;
        }
        if (!f) break;
        if (f.header.type === MSG_RESPONSE) continue; // a response to nothing we sent: ignored
        queue.push(f);
        queuedBytes += f.bytes.length;
      }
      if (state === 'open') flow();
      void pump();
    };

    const login = async (text: string, capability: number): Promise<void> => {
      const at = text.indexOf(':');
      const user = at >= 0 ? text.slice(0, at) : text;
      const password = at >= 0 ? text.slice(at + 1) : '';
      const idKey = `id:${user}`;
      const addressKey = `address:${address}`;
      const refused = failedSecrets.refused(idKey, addressKey);
      const wait = refused ? refused.retryAfterS * 1000 : 0;
      if (refused) {
        // as kdb+ answers a bad handshake: the connection closes; the secret is not even checked
        log(`q handshake refused for ${quoteText(user)} from ${address}: more than ${limits.maxFailedHandshakes} failed handshakes of this client id (or ${limits.maxFailedHandshakesPerAddress} of this address) within ${limits.failureWindowMs / 1000} s; refused for ${Math.ceil(wait / 1000)} s more`);
        socket.destroy();
        return;
      }
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
          failedSecrets.succeeded(idKey, addressKey);
        }
      } catch (e) {
        failedSecrets.failed(idKey, addressKey);
        // as kdb+ does: a refused handshake closes the connection (the client reports "access")
        log(`q handshake refused for ${quoteText(user)} from ${address}: ${asTickscopeError(e).message}`);
        socket.destroy();
        return;
      }
      if (socket.destroyed) return;
      if (socketsByClient.get(subject) >= limits.maxQSocketsPerClient) {
        log(`q handshake refused for ${quoteText(subject)} from ${address}: ${limits.maxQSocketsPerClient} q connections of this client open (maxQSocketsPerClient)`);
        socket.destroy();
        return;
      }
      socketsByClient.add(subject, 1);
      (bySubject.get(subject) ?? bySubject.set(subject, new Set()).get(subject)!).add(socket);
      clientCounted = true;
      clearTimeout(handshakeTimer);
      unpend();
      state = 'open';
      socket.write(Uint8Array.of(Math.min(capability, 3)));
      touch();
      frames();
    };

    /** The handshake's bytes: user:password, a capability byte (absent from very old clients), then 0. */
    const onHandshake = (chunk: Buffer): void => {
      const zero = chunk.indexOf(0);
      const head = zero < 0 ? chunk : chunk.subarray(0, zero);
      auth.push(head);
      authBytes += head.length;
      if (authBytes > limits.maxHandshakeBytes) {
        log(`q handshake from ${address} longer than ${limits.maxHandshakeBytes} bytes: closed`);
        socket.destroy();
        return;
      }
      if (zero < 0) return;
      const body = Buffer.concat(auth);
      auth = [];
      const capability = body.length > 0 && body[body.length - 1]! < 32 ? body[body.length - 1]! : 0;
      const text = (capability ? body.subarray(0, body.length - 1) : body).toString('utf8');
      // what follows the 0 is the first message
      framer.push(chunk.subarray(zero + 1));
      state = 'login';
      flow();
      login(text, capability).catch((e: unknown) => {
        log(`q handshake from ${address} failed: ${asTickscopeError(e).message}: closed`);
        socket.destroy();
      });
    };

    socket.on('data', (chunk: Buffer) => {
      try {
        if (state === 'handshake') onHandshake(chunk);
        else if (state === 'login') framer.push(chunk);
        else if (state === 'open') {
          framer.push(chunk);
          touch();
          frames();
        }
        // closing: what else the client sends is dropped
      } catch (e) {
        log(`q connection failed: ${asTickscopeError(e).message} client=${subject}: closed`);
        socket.destroy();
      }
    });
  };

  const server = opts.tls
    ? createTlsServer({ cert: readFileSync(opts.tls.cert), key: readFileSync(opts.tls.key), handshakeTimeout: limits.qHandshakeTimeoutMs }, onConnection)
    : createTcpServer(onConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(listenError(e, opts.host, opts.port, '--ipc-port')));
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : opts.port,
    server,
    limits,
    clientMaps: () => ({ qSockets: sockets.size, qClients: bySubject.size, qPendingAddresses: pendingByAddress.size, ...Object.fromEntries(Object.entries(failedSecrets.sizes).map(([k, v]) => [`q${k[0]!.toUpperCase()}${k.slice(1)}`, v])), qRequestsPerMinute: perMinute.size }),
    // stopping drops the clients (server.close alone waits for every connection to end)
    close: () =>
      new Promise<void>((resolve) => {
        stopWatching();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
