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
import { createGzip } from 'node:zlib';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { asTickscopeError, TickscopeError } from '../core/errors.js';
import { OPERATIONS } from '../registry/operations.js';
import type { QueryService } from '../service/query-service.js';
import { type Clients, type Scope } from './clients.js';
import { errorEnvelope, plainHeader, type RequestInfo, requestInfo } from './envelope.js';
import { OwnIssuer, type TokenCheck, type TokenVerifier } from './tokens.js';

/** Largest request body (an operation's arguments, a token request). */
export const BODY_LIMIT = 8 * 1024 * 1024;
/** Token requests one client (or address) may make per minute. */
export const TOKEN_REQUESTS_PER_MINUTE = 30;
const ARROW = 'application/vnd.apache.arrow.stream';

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
  readonly tls?: { readonly cert: string; readonly key: string };
  /** One line per request (the access log); default none. */
  readonly log?: (line: string) => void;
}

export interface RunningGateway {
  /** http(s)://host:port, no trailing slash */
  readonly url: string;
  readonly tokenUrl: string | null;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/** The scope an operation needs (SPEC 7). */
const scopeOf = (op: string): Scope => (op === 'generateOrderAnalytics' ? 'fsi.generate' : 'fsi.read');

interface Ctx {
  readonly corr: string;
  readonly started: number;
  op: string;
  rows: number;
  token?: TokenCheck;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: Ctx;
  }
}

/** Starts the REST gateway on the service's executor; resolves once it listens. */
export async function startGateway(service: QueryService, opts: GatewayOptions): Promise<RunningGateway> {
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    exposeHeadRoutes: false,
    // stopping the gateway drops its connections (a slow reader would otherwise hold it open)
    forceCloseConnections: true,
    ...(opts.tls ? { https: { cert: readFileSync(opts.tls.cert), key: readFileSync(opts.tls.key) } } : {}),
  }) as unknown as FastifyInstance;
  const scheme = opts.tls ? 'https' : 'http';
  const tokenPath = `/auth/realms/${encodeURIComponent(opts.realm)}/protocol/openid-connect/token`;
  const issuer = opts.external ? null : new OwnIssuer(`${scheme}://${opts.host}:${opts.port}/auth/realms/${opts.realm}`, opts.audience ?? opts.realm, opts.tokenTtlSeconds);
  const verifier: TokenVerifier = opts.external ?? issuer!;

  app.decorateRequest('ctx', null as unknown as Ctx);
  app.addHook('onRequest', async (req, reply) => {
    req.ctx = { corr: randomUUID(), started: performance.now(), op: req.url.split('?')[0]!, rows: 0 };
    reply.header('x-tickscope-corr', req.ctx.corr);
  });
  app.addHook('onResponse', async (req, reply) => {
    opts.log?.(`${new Date().toISOString()} corr=${req.ctx.corr} ${req.method} ${req.ctx.op} status=${reply.statusCode} rows=${req.ctx.rows} ms=${(performance.now() - req.ctx.started).toFixed(1)}${req.ctx.token ? ` client=${req.ctx.token.subject}` : ''}`);
  });

  /** An error envelope with the error's status (and the headers the status needs). */
  const fail = (req: FastifyRequest, reply: FastifyReply, e: unknown, api = req.ctx.op): FastifyReply => {
    const err = asTickscopeError(e);
    if (err.http === 401) reply.header('WWW-Authenticate', `Bearer realm="${opts.realm}"${req.headers.authorization ? ', error="invalid_token"' : ''}`);
    if (err.http === 503) reply.header('Retry-After', '1');
    if (err.kind === 'internal' && process.env['TICKSCOPE_DEBUG']) console.error(e);
    reply.header('x-tickscope-rc', String(err.rc));
    return reply.code(err.http).type('application/json').send(errorEnvelope(requestInfo(api, req.ctx.corr), err));
  };

  app.setNotFoundHandler((req, reply) => fail(req, reply, new TickscopeError('notFound', `${req.method} ${req.url.split('?')[0]}: no such path; operations are POST /servicegateway/fsi/<operation> (docs/gateway.md)`)));
  app.setErrorHandler((e: Error & { code?: string; statusCode?: number }, req, reply) => {
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return fail(req, reply, new TickscopeError('tooLarge', `body: larger than ${BODY_LIMIT} bytes`));
    if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return fail(req, reply, new TickscopeError('unsupportedMediaType', `Content-Type: ${JSON.stringify(req.headers['content-type'] ?? '')} is not accepted; expected application/json`));
    }
    if (e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e instanceof SyntaxError) {
      return fail(req, reply, new TickscopeError('badRequest', `body: not JSON (${e.message}); expected an object of arguments such as {"table":"Trade"}`));
    }
    if (e.statusCode === 429) {
      const r = e as unknown as { error?: string; error_description?: string };
      return reply.code(429).header('Cache-Control', 'no-store').send({ error: r.error ?? 'slow_down', error_description: r.error_description ?? 'too many requests' });
    }
    return fail(req, reply, e instanceof TickscopeError ? e : new TickscopeError('internal', e.message));
  });

  // form bodies for the token endpoint
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => done(null, new URLSearchParams(body as string)));

  /** The token's check and the operation's scope: 401 / 403. */
  const authorize = async (req: FastifyRequest, scope: Scope): Promise<void> => {
    const h = req.headers.authorization;
    if (!h) throw new TickscopeError('unauthorized', `Authorization: missing; expected "Authorization: Bearer <access token>"${issuer ? ` from POST ${tokenPath}` : ''}`);
    const m = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(h);
    if (!m) throw new TickscopeError('unauthorized', 'Authorization: malformed; expected "Bearer <access token>"');
    const check = await verifier.verify(m[1]!);
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
      await authorize(req, scope);
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') throw new TickscopeError('unsupportedMediaType', `Content-Type: ${JSON.stringify(req.headers['content-type'] ?? '')} is not accepted; expected application/json`);
    } catch (e) {
      return fail(req, reply, e, api);
    }
    return undefined;
  };

  for (const op of OPERATIONS) {
    for (const path of op.restPaths) {
      const url = `${path}`;
      const api = op.ipcNames[0]!;
      app.route({ method: 'POST', url, onRequest: guard(scopeOf(op.name), op.name, api), handler: (req, reply) => runOperation(req, reply, api) });
      // answered before any body is read (a PUT with a body would otherwise be parsed first)
      app.route({ method: [...OTHER_METHODS], url, onRequest: notPost, handler: notPost });
    }
  }
  app.route({
    method: 'POST',
    url: `/servicegateway/kxi/getMeta`,
    onRequest: guard('fsi.read', 'getMeta', 'getMeta'),
    handler: async (req, reply) => {
      const info = await service.info();
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
      if (typeof t !== 'string' || !/^\d{1,9}$/.test(t)) return fail(req, reply, new TickscopeError('badValue', `timeout header: ${JSON.stringify(t)} is not valid; expected milliseconds as a whole number`), api);
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
    const start = (): PassThrough => {
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
      return stream;
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
      const s = stream ?? start();
      if (s.destroyed || s.write(bytes)) return undefined;
      draining ??= new Promise<void>((taken) => {
        const done = (): void => {
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
    const r = await service.executor.envelope(api, body, { format: arrow ? 'arrow' : 'json', req: info }, write, {
      queryId,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
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
    (stream ?? start()).end();
    return reply;
  }

  if (issuer) {
    await app.register(rateLimit, { global: false });
    app.route({
      method: 'POST',
      url: tokenPath,
      config: {
        rateLimit: {
          max: TOKEN_REQUESTS_PER_MINUTE,
          timeWindow: '1 minute',
          hook: 'preHandler',
          keyGenerator: (req: FastifyRequest) => {
            const form = req.body instanceof URLSearchParams ? req.body : null;
            return `client:${form?.get('client_id') ?? ''}:${req.ip}`;
          },
          errorResponseBuilder: (_req: FastifyRequest, ctx: { after: string; ttl: number }) => ({
            statusCode: 429,
            error: 'slow_down',
            error_description: `too many token requests from this client; retry in ${ctx.after}`,
          }),
        },
      },
      handler: async (req, reply) => {
        req.ctx.op = 'token';
        const oauthError = (status: number, error: string, description: string): FastifyReply => {
          if (status === 401) reply.header('WWW-Authenticate', `Basic realm="${opts.realm}"`);
          return reply.code(status).header('Cache-Control', 'no-store').send({ error, error_description: description });
        };
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
        const client = await opts.clients.verifyAsync(id, secret);
        if (!client) return oauthError(401, 'invalid_client', 'unknown client or wrong secret');
        req.ctx.token = { subject: client.id, scopes: client.scopes };
        return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache').send(await issuer.issue(client.id, client.scopes));
      },
    });
    app.route({ method: [...OTHER_METHODS], url: tokenPath, onRequest: notPost, handler: notPost });
  }

  await app.listen({ port: opts.port, host: opts.host });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `${scheme}://${shownHost}:${port}`;
  // the issuer names the port actually bound (0 picks one)
  if (issuer) issuer.issuer = `${url}/auth/realms/${opts.realm}`;
  return { url, tokenUrl: issuer ? `${url}${tokenPath}` : null, app, close: () => app.close() };
}

