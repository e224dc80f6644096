/**
 * The REST gateway (INTERFACE 5, SPEC 1, 2, 7): `POST {base}/servicegateway/fsi/<op>` for every
 * operation of the registry (no per-operation routing code), `POST .../kxi/getMeta`, and the OAuth2
 * token endpoint of the client credentials grant. Every query runs on the executor; its response is
 * rendered in the worker and streamed (JSON envelope chunks, or Arrow IPC), gzip when asked. This
 * thread only authenticates, routes and relays.
 *
 * Order of checks: path (404), method (405), token (401), scope (403), content type (415), body size
 * (413), JSON (400), then the arguments (400 naming the argument). Every answer is an envelope with a
 * `corr` (also the `x-tickscope-corr` header and the access log's), except the token endpoint's,
 * which answers as OAuth2 says (RFC 6749 5.1, 5.2).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { createGzip, gzip as gzipCallback } from 'node:zlib';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { asTickscopeError, listenError, quoteText, TickscopeError } from '../core/errors.js';
import type { ProcessSettings } from '../executor/settings.js';
import { OPERATIONS } from '../operations/index.js';
import { boundedBodies } from './http-input.js';
import type { GatewayHost } from './host.js';
import { type Clients, type Scope } from './clients.js';
import { errorEnvelope, plainHeader, type RequestInfo, requestInfo } from '../output/envelope.js';
import { FailedSecrets, Throttle } from './throttle.js';
import { OwnIssuer, type TokenCheck, type TokenVerifier } from './tokens.js';

/** Token requests one client id, and one address, may make per minute. */
export const TOKEN_REQUESTS_PER_MINUTE = 30;
/** Token requests one address may make per minute, whatever the client ids (many clients may share a host). */
export const TOKEN_REQUESTS_PER_ADDRESS_PER_MINUTE = 600;
export { FAILED_SECRETS_PER_ADDRESS_PER_MINUTE, FAILED_SECRETS_PER_MINUTE } from './throttle.js';
const ARROW = 'application/vnd.apache.arrow.stream';
/** Answers up to this size are held whole and sent as one buffer; larger ones stream. */
const SMALL_ANSWER_BYTES = 64 * 1024;
const gzipAsync = promisify(gzipCallback);

export interface GatewayOptions {
  readonly host: string;
  readonly port: number;
  readonly realm: string;
  /** Tokens' audience (default the realm's name). */
  readonly audience?: string;
  readonly tokenTtlSeconds: number;
  /** The clients of the own issuer (unused with an external issuer). */
  readonly clients: Clients;
  /** An external issuer's verifier instead of the own one (no token endpoint then). */
  readonly external?: TokenVerifier;
  /** The clock the own issuer issues and checks its tokens by; default the real one (tests move theirs on). */
  readonly now?: () => Date;
  readonly tls?: { readonly cert: string; readonly key: string };
  /** One line per request (the access log); default none. */
  readonly log?: (line: string) => void;
  /** The limits (SPEC 10); default the service's process settings. */
  readonly limits?: Partial<ProcessSettings>;
  /** More per-client maps for /debug/gc (the q IPC server's connections). */
  readonly extraMaps?: () => Record<string, number>;
}

export interface RunningGateway {
  /** http(s)://host:port, no trailing slash */
  readonly url: string;
  readonly tokenUrl: string | null;
  readonly app: FastifyInstance;
  /** Sizes of the per-client maps (they go back to none once the clients have gone: the soak checks it). */
  clientMaps(): Record<string, number>;
  close(): Promise<void>;
}


interface Ctx {
  readonly corr: string;
  readonly started: number;
  op: string;
  rows: number;
  token?: TokenCheck;
  /** The request reached the executor (the fuzzer's measure of how deep its requests got). */
  exec?: boolean;
  /** ms spent on the token check, waiting for a worker, running, and rendering (Server-Timing). */
  authMs?: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: Ctx;
  }
}

/** Starts the REST gateway on the service's executor; resolves once it listens. */
export async function startGateway(service: GatewayHost, opts: GatewayOptions): Promise<RunningGateway> {
  const limits: ProcessSettings = { ...service.executor.settings, ...opts.limits };
  const app = Fastify({
    bodyLimit: limits.maxBodyBytes,
    exposeHeadRoutes: false,
    // stopping the gateway drops its connections (a slow reader would otherwise hold it open)
    forceCloseConnections: true,
    // a request node's HTTP parser refuses (an unknown method, a malformed line or header) still gets
    // an envelope naming the part at fault
    clientErrorHandler: (err: NodeJS.ErrnoException, socket: import('node:net').Socket) => {
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      const code = err.code ?? '';
      const part = code === 'HPE_INVALID_METHOD' ? 'method' : code.includes('HEADER') ? 'headers' : code === 'HPE_INVALID_URL' ? 'path' : 'request';
      const e = new TickscopeError(code === 'HPE_HEADER_OVERFLOW' ? 'tooLarge' : 'badRequest', `${part}: not valid HTTP (${code || err.message}); expected POST /servicegateway/fsi/<operation> with JSON`);
      const body = JSON.stringify(errorEnvelope(requestInfo('', randomUUID()), e));
      socket.end(`HTTP/1.1 ${e.http} ${e.http === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    },
    // the router's own refusals (a path that is not a valid URL) answer as every other error
    frameworkErrors: (e: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply) => {
      req.ctx ??= { corr: randomUUID(), started: performance.now(), op: '', rows: 0 };
      return fail(req, reply, new TickscopeError('badRequest', `path: ${quoteText(req.url.split('?')[0] ?? '', 120)} is not a valid URL (${e.code ?? e.message}); expected /servicegateway/fsi/<operation>`));
    },
    ...(opts.tls ? { https: { cert: readFileSync(opts.tls.cert), key: readFileSync(opts.tls.key) } } : {}),
  }) as unknown as FastifyInstance;
  const scheme = opts.tls ? 'https' : 'http';
  const tokenPath = `/auth/realms/${encodeURIComponent(opts.realm)}/protocol/openid-connect/token`;
  const issuer = opts.external ? null : new OwnIssuer(`${scheme}://${opts.host}:${opts.port}/auth/realms/${opts.realm}`, opts.audience ?? opts.realm, opts.tokenTtlSeconds, undefined, opts.now);
  const verifier: TokenVerifier = opts.external ?? issuer!;
  // per client id: requests at once, and a minute's requests (SPEC 10); token endpoint abuse
  const inFlight = new Map<string, number>();
  const perMinute = new Throttle(limits.maxRequestsPerClientPerMinute);
  const tokenById = new Throttle(TOKEN_REQUESTS_PER_MINUTE);
  const tokenByAddress = new Throttle(TOKEN_REQUESTS_PER_ADDRESS_PER_MINUTE);
  const failedSecrets = new FailedSecrets();
  if (!opts.external) opts.clients.watch();
  boundedBodies(app, limits);

  app.decorateRequest('ctx', null as unknown as Ctx);
  app.addHook('onRequest', async (req, reply) => {
    req.ctx = { corr: randomUUID(), started: performance.now(), op: req.url.split('?')[0]!, rows: 0 };
    reply.header('x-tickscope-corr', req.ctx.corr);
  });
  app.addHook('onResponse', async (req, reply) => {
    opts.log?.(`${new Date().toISOString()} corr=${req.ctx.corr} ${req.method} ${req.ctx.op} status=${reply.statusCode} rows=${req.ctx.rows} ms=${(performance.now() - req.ctx.started).toFixed(1)}${req.ctx.token ? ` client=${req.ctx.token.subject}` : ''} exec=${req.ctx.exec ? 1 : 0}`);
  });

  /** An error envelope with the error's status (and the headers the status needs). */
  const fail = (req: FastifyRequest, reply: FastifyReply, e: unknown, api = req.ctx.op): FastifyReply => {
    const err = asTickscopeError(e);
    if (err.http === 401) reply.header('WWW-Authenticate', `Bearer realm="${opts.realm}"${req.headers.authorization ? ', error="invalid_token"' : ''}`);
    if ((err.http === 503 || err.http === 429) && !reply.hasHeader('Retry-After')) reply.header('Retry-After', '1');
    if (err.kind === 'internal' && process.env['TICKSCOPE_DEBUG']) console.error(e);
    reply.header('x-tickscope-rc', String(err.rc));
    return reply.code(err.http).type('application/json').send(errorEnvelope(requestInfo(api, req.ctx.corr), err));
  };

  app.setNotFoundHandler((req, reply) => fail(req, reply, new TickscopeError('notFound', `${req.method} ${quoteText(req.url.split('?')[0] ?? '', 120)}: no such path; operations are POST /servicegateway/fsi/<operation> (docs/gateway.md)`)));
  app.setErrorHandler((e: Error & { code?: string; statusCode?: number }, req, reply) => {
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return fail(req, reply, new TickscopeError('tooLarge', `body: larger than ${limits.maxBodyBytes} bytes (maxBodyBytes)`));
    if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return fail(req, reply, new TickscopeError('unsupportedMediaType', `Content-Type: ${quoteText(String(req.headers['content-type'] ?? ''))} is not accepted; expected application/json`));
    }
    if (e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e instanceof SyntaxError) {
      return fail(req, reply, new TickscopeError('badRequest', `body: not JSON (${quoteText(e.message, 120)}); expected an object of arguments such as {"table":"Trade"}`));
    }
    if (e.statusCode === 400 && !(e instanceof TickscopeError)) return fail(req, reply, new TickscopeError('badRequest', `request: ${quoteText(e.message, 120)}`));
    return fail(req, reply, e instanceof TickscopeError ? e : new TickscopeError('internal', e.message));
  });

  // form bodies for the token endpoint
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, new URLSearchParams(body as string)));

  /** The token's check and the operation's scope: 401 / 403. */
  const authorize = async (req: FastifyRequest, scope: Scope): Promise<void> => {
    const h = req.headers.authorization;
    if (!h) throw new TickscopeError('unauthorized', `Authorization: missing; expected "Authorization: Bearer <access token>"${issuer ? ` from POST ${tokenPath}` : ''}`);
    // the scheme's name is case-insensitive (RFC 6750 2.1, RFC 9110 11.1)
    const m = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(h);
    if (!m) throw new TickscopeError('unauthorized', 'Authorization: malformed; expected "Bearer <access token>"');
    const check = await verifier.verify(m[1]!);
    // a client removed from the clients file loses its tokens at once
    if (!opts.external && !opts.clients.has(check.subject)) throw new TickscopeError('unauthorized', `Authorization: the token's client ${quoteText(check.subject, 64)} is no longer registered`);
    req.ctx.token = check;
    if (!check.scopes.includes(scope)) throw new TickscopeError('forbidden', `Authorization: the token's scopes (${check.scopes.join(', ') || 'none'}) lack ${scope}, which ${req.ctx.op} needs`);
  };

  const notPost = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (reply.sent) return reply;
    return fail(req, reply.header('Allow', 'POST'), new TickscopeError('methodNotAllowed', `${req.method} ${req.url.split('?')[0]}: only POST is accepted`));
  };
  const OTHER_METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

  // authentication before the body is read: a stranger's large body is not parsed
  const guard = (scope: Scope, op: string, api: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    req.ctx.op = op;
    try {
      const t0 = performance.now();
      await authorize(req, scope);
      req.ctx.authMs = performance.now() - t0;
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') throw new TickscopeError('unsupportedMediaType', `Content-Type: ${quoteText(String(req.headers['content-type'] ?? ''))} is not accepted; expected application/json`);
      admit(req, reply);
    } catch (e) {
      return fail(req, reply, e, api);
    }
    return undefined;
  };

  /** Counts the request against its client's limits (SPEC 10), or refuses it with 429 and Retry-After. */
  const admit = (req: FastifyRequest, reply: FastifyReply): void => {
    const client = req.ctx.token!.subject;
    const rate = perMinute.hit(client);
    if (!rate.ok) {
      reply.header('Retry-After', String(rate.retryAfterS));
      throw new TickscopeError('rateLimited', `client ${quoteText(client, 64)}: more than ${limits.maxRequestsPerClientPerMinute} requests this minute (maxRequestsPerClientPerMinute); retry in ${rate.retryAfterS} s`);
    }
    const now = inFlight.get(client) ?? 0;
    if (now >= limits.maxInFlightPerClient) {
      reply.header('Retry-After', '1');
      throw new TickscopeError('rateLimited', `client ${quoteText(client, 64)}: ${now} requests already running or waiting (maxInFlightPerClient ${limits.maxInFlightPerClient}); wait for one to answer`);
    }
    inFlight.set(client, now + 1);
    // the count goes down however the request ends (answered, failed, or its client gone)
    reply.raw.once('close', () => {
      const left = (inFlight.get(client) ?? 1) - 1;
      if (left <= 0) inFlight.delete(client);
      else inFlight.set(client, left);
    });
  };

  for (const op of OPERATIONS) {
    for (const path of op.restPaths) {
      const url = `${path}`;
      const api = op.ipcNames[0]!;
      app.route({ method: 'POST', url, onRequest: guard(op.scope, op.name, api), handler: (req, reply) => runOperation(req, reply, api) });
      // answered before any body is read (a PUT with a body would otherwise be parsed first)
      app.route({ method: [...OTHER_METHODS], url, onRequest: notPost, handler: notPost });
    }
  }
  app.route({
    method: 'POST',
    url: `/servicegateway/kxi/getMeta`,
    onRequest: guard('fsi.read', 'getMeta', 'getMeta'),
    handler: async (req, reply) => {
      // the forms' data and where this gateway's kdb+ IPC listens; not the app's connection (its
      // folders and clients file are this machine's business)
      const { connection: _own, ...info } = await service.info();
      return reply.type('application/json').send({ header: plainHeader(requestInfo('getMeta', req.ctx.corr), info.assemblies.length), payload: info });
    },
  });
  app.route({ method: [...OTHER_METHODS], url: `/servicegateway/kxi/getMeta`, onRequest: notPost, handler: notPost });

  /** Runs an operation on the executor and streams its rendered response. */
  async function runOperation(req: FastifyRequest, reply: FastifyReply, api: string): Promise<FastifyReply> {
    const body = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return fail(req, reply, new TickscopeError('badRequest', 'body: expected a JSON object of arguments such as {"table":"Trade"}'), api);
    }
    const t = req.headers['timeout'];
    let timeoutMs: number | undefined;
    if (t !== undefined) {
      if (typeof t !== 'string' || !/^\d{1,9}$/.test(t)) return fail(req, reply, new TickscopeError('badValue', `timeout header: ${quoteText(String(t))} is not valid; expected milliseconds as a whole number`), api);
      timeoutMs = Number(t);
    }
    const arrow = (req.headers.accept ?? '').includes(ARROW);
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const info: RequestInfo = requestInfo(api, req.ctx.corr);
    const queryId = req.ctx.corr;
    // a connection closed before the answer cancels the query
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) service.executor.cancel(queryId);
    });
    let stream: PassThrough | null = null;
    // where the time goes (Server-Timing): the token check, the queue, the query, then the rendering
    let running = 0;
    let firstChunk = 0;
    const timing = (): void => {
      if (reply.hasHeader('Server-Timing')) return;
      const now = performance.now();
      firstChunk ||= now;
      const queue = running ? running - req.ctx.started - (req.ctx.authMs ?? 0) : 0;
      // render: from the first byte to the whole answer, known when it is held whole (a streamed one's headers go first)
      const render = held.length > 0 && !stream ? `, render;dur=${(now - firstChunk).toFixed(2)}` : '';
      reply.header('Server-Timing', `auth;dur=${(req.ctx.authMs ?? 0).toFixed(2)}, queue;dur=${Math.max(0, queue).toFixed(2)}, exec;dur=${(running ? firstChunk - running : 0).toFixed(2)}${render}`);
    };
    // a small answer is held whole and sent as one buffer: no stream machinery for what fits in a
    // few packets (most answers), and a failure while it renders is still an error answer
    const held: Uint8Array[] = [];
    let heldBytes = 0;
    const start = (): PassThrough => {
      timing();
      stream = new PassThrough();
      // a client gone mid-response: the stream is dropped, nothing to report to anyone
      stream.on('error', () => undefined);
      reply.code(200).header('x-tickscope-rc', '0');
      reply.type(arrow ? ARROW : 'application/json');
      if (gzip) {
        reply.header('Content-Encoding', 'gzip');
        const z = createGzip();
        stream.pipe(z);
        void reply.send(z);
      } else void reply.send(stream);
      for (const c of held.splice(0)) stream.write(c);
      return stream;
    };
    /** Sends the held answer whole (gzip'd off this thread when asked and worth it). */
    const sendHeld = async (): Promise<FastifyReply> => {
      timing();
      const whole = Buffer.concat(held);
      reply.code(200).header('x-tickscope-rc', '0').type(arrow ? ARROW : 'application/json');
      if (gzip && whole.length >= 1024) return reply.header('Content-Encoding', 'gzip').send(await gzipAsync(whole));
      return reply.send(whole);
    };
    // settles once the response has taken the chunk: a slow client holds back the worker's rendering
    // (one wait for the next drain, shared by every chunk written meanwhile)
    let draining: Promise<void> | null = null;
    // Arrow: the first chunk is the header (the rows go in a response header, before the body)
    let arrowHeader = arrow;
    const write = (bytes: Uint8Array): Promise<void> | void => {
      if (arrowHeader) {
        arrowHeader = false;
        const header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as { rows?: number };
        reply.header('x-tickscope-rows', String(header.rows ?? 0));
        return undefined;
      }
      if (!stream && heldBytes + bytes.byteLength <= SMALL_ANSWER_BYTES) {
        firstChunk ||= performance.now();
        held.push(bytes);
        heldBytes += bytes.byteLength;
        return undefined;
      }
      const s = stream ?? start();
      if (s.destroyed || s.write(bytes)) return undefined;
      draining ??= new Promise<void>((taken) => {
        // a client that reads nothing for writeStallMs is cut: its worker goes back to the others
        const stall = limits.writeStallMs > 0 ? setTimeout(() => {
          opts.log?.(`${new Date().toISOString()} corr=${req.ctx.corr} cut: read nothing for ${limits.writeStallMs} ms (writeStallMs)`);
          service.executor.cancel(queryId);
          s.destroy();
          // the connection itself: a response destroyed alone can leave the socket open behind it
          req.raw.socket.destroy();
        }, limits.writeStallMs) : null;
        const done = (): void => {
          if (stall) clearTimeout(stall);
          s.off('drain', done);
          s.off('close', done);
          draining = null;
          taken();
        };
        s.on('drain', done);
        s.on('close', done);
      });
      return draining;
    };
    req.ctx.exec = true;
    const r = await service.executor.envelope(api, body, { format: arrow ? 'arrow' : 'json', req: info }, write, {
      queryId,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      onProgress: (p) => {
        if (p.state === 'running' && !running) running = performance.now();
      },
    });
    if (!r.ok) {
      reply.removeHeader('x-tickscope-rows'); // an Arrow answer's header chunk came before the failure
      if (stream) {
        // the header went out as success: end the response short (the client sees a truncated body)
        (stream as PassThrough).destroy();
        return reply;
      }
      return fail(req, reply, r.error, api);
    }
    req.ctx.rows = r.answer.header.rows ?? 0;
    if (!stream) return sendHeld();
    (stream as PassThrough).end();
    return reply;
  }

  if (issuer) {
    app.route({
      method: 'POST',
      url: tokenPath,
      handler: async (req, reply) => {
        req.ctx.op = 'token';
        const oauthError = (status: number, error: string, description: string): FastifyReply => {
          if (status === 401) reply.header('WWW-Authenticate', `Basic realm="${opts.realm}"`);
          return reply.code(status).header('Cache-Control', 'no-store').send({ error, error_description: description });
        };
        const slowDown = (retryAfterS: number, what: string): FastifyReply => {
          reply.header('Retry-After', String(retryAfterS));
          return oauthError(429, 'slow_down', `${what}; retry in ${retryAfterS} s`);
        };
        // per address first: varying the client id must not get round the limits
        const byAddress = tokenByAddress.hit(req.ip);
        if (!byAddress.ok) return slowDown(byAddress.retryAfterS, 'too many token requests from this address');
        if (!(req.body instanceof URLSearchParams)) return oauthError(415, 'invalid_request', 'Content-Type: expected application/x-www-form-urlencoded');
        const form = req.body;
        let id = form.get('client_id');
        let secret = form.get('client_secret');
        // client_secret_basic (RFC 6749 2.3.1) as well as client_secret_post
        const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(req.headers.authorization ?? '');
        if (basic) {
          const text = Buffer.from(basic[1]!, 'base64').toString('utf8');
          const at = text.indexOf(':');
          if (at > 0) {
            id = decodeURIComponent(text.slice(0, at));
            secret = decodeURIComponent(text.slice(at + 1));
          }
        }
        if (form.get('grant_type') !== 'client_credentials') {
          return oauthError(400, 'unsupported_grant_type', `grant_type: ${JSON.stringify(form.get('grant_type'))}; expected client_credentials`);
        }
        if (!id || !secret) return oauthError(401, 'invalid_client', 'client_id and client_secret are required');
        const byId = tokenById.hit(id);
        if (!byId.ok) return slowDown(byId.retryAfterS, 'too many token requests from this client');
        const refused = failedSecrets.refused(id, req.ip);
        if (refused) return slowDown(refused.retryAfterS, refused.by === 'id' ? `too many failed secrets for this client (${failedSecrets.perId} a minute)` : `too many failed secrets from this address (${failedSecrets.perAddress} a minute)`);
        const client = await opts.clients.verifyAsync(id, secret);
        if (!client) {
          failedSecrets.failed(id, req.ip);
          return oauthError(401, 'invalid_client', 'unknown client or wrong secret');
        }
        failedSecrets.succeeded(client.id, req.ip);
        req.ctx.token = { subject: client.id, scopes: client.scopes };
        return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache').send(await issuer.issue(client.id, client.scopes));
      },
    });
    app.route({ method: [...OTHER_METHODS], url: tokenPath, onRequest: notPost, handler: notPost });
  }

  // the fuzzer's and the load script's view of memory (TICKSCOPE_TEST_HOOKS=1, loopback callers only):
  // a forced GC when node runs with --expose-gc, the heap after it, and the per-client maps
  if (process.env['TICKSCOPE_TEST_HOOKS'] === '1') {
    app.post('/debug/gc', async (req, reply) => {
      if (!['127.0.0.1', '::1', '::ffff:127.0.0.1'].includes(req.ip)) return reply.code(404).send();
      (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      return { heapUsed: m.heapUsed, heapTotal: m.heapTotal, rss: m.rss, external: m.external, arrayBuffers: m.arrayBuffers, perClient: { ...clientMaps(), ...(opts.extraMaps?.() ?? {}) } };
    });
  }
  app.addHook('onClose', async () => opts.clients.unwatch());
  try {
    await app.listen({ port: opts.port, host: opts.host });
  } catch (e) {
    throw listenError(e, opts.host, opts.port, '--port');
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `${scheme}://${shownHost}:${port}`;
  // the issuer names the port actually bound (0 picks one)
  if (issuer) issuer.issuer = `${url}/auth/realms/${opts.realm}`;
  const clientMaps = (): Record<string, number> => ({
    inFlight: inFlight.size,
    requestsPerMinute: perMinute.size,
    tokenRequestsById: tokenById.size,
    tokenRequestsByAddress: tokenByAddress.size,
    ...failedSecrets.sizes,
    queries: service.executor.queriesHeld,
  });
  return { url, tokenUrl: issuer ? `${url}${tokenPath}` : null, app, clientMaps, close: () => app.close() };
}


