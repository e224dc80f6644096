/**
 * `tickscope serve`: the app (the same renderer Electron shows) and its backend over HTTP on
 * loopback, for machines without an Electron runtime and for the end-to-end tests.
 *
 * The app API (/app/api/*) answers only requests carrying the per-launch token that the served page
 * embeds, and only for a loopback Host header, so other web pages open in the browser cannot drive
 * it (CSRF, DNS rebinding).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { type ChartRequest, EXPORT_FORMATS, type ExportFormat } from '../contract.js';
import { asTickscopeError, listenError, quoteText, TickscopeError } from '../core/errors.js';
import type { QueryService } from '../service/query-service.js';
import { boundedBodies } from '../gateway/http-input.js';

export interface ServeOptions {
  readonly port: number;
  readonly host: string;
  /** Folder of the built renderer (default dist/renderer beside this bundle). */
  readonly rendererDir?: string;
}

export interface RunningServer {
  readonly url: string;
  readonly token: string;
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** dist/renderer, found from the bundled CLI (dist/bin) or from the sources (engine/server). */
export function defaultRendererDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const rel of ['../renderer', '../../dist/renderer']) {
    const dir = join(here, rel);
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  throw new TickscopeError('badRequest', 'the app is not built (no dist/renderer/index.html); run npm run build');
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Starts the server; resolves once it listens. This thread only routes: queries and their results run
 * on the service's executor workers.
 */
export async function serve(service: QueryService, opts: ServeOptions): Promise<RunningServer> {
  const rendererDir = opts.rendererDir ?? defaultRendererDir();
  const token = randomBytes(24).toString('base64url');
  const indexHtml = readFileSync(join(rendererDir, 'index.html'), 'utf8').replace(
    '<head>',
    `<head>\n    <meta name="tickscope-token" content="${token}" />`,
  );
  const limits = service.executor.settings;
  const app = Fastify({ bodyLimit: limits.maxBodyBytes });
  // the app's API bounds its bodies as the gateway does (SPEC 10): a page cannot send what a script cannot
  boundedBodies(app, limits);

  const fail = (reply: FastifyReply, e: unknown): FastifyReply => {
    const err = asTickscopeError(e);
    return reply.code(err.http).send({ error: { ac: err.ac, ai: err.message } });
  };
  app.setErrorHandler((e: Error & { code?: string; statusCode?: number }, _req, reply) => {
    if (e instanceof TickscopeError) return fail(reply, e);
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return fail(reply, new TickscopeError('tooLarge', `body: larger than ${limits.maxBodyBytes} bytes (maxBodyBytes)`));
    if (e.statusCode === 415 || e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return fail(reply, new TickscopeError('unsupportedMediaType', `Content-Type: ${quoteText(e.message, 120)}; expected application/json`));
    if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) return fail(reply, new TickscopeError('badRequest', `request: ${quoteText(e.message, 120)}`));
    return fail(reply, e);
  });

  app.addHook('onRequest', async (req, reply) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (opts.host === '127.0.0.1' && !LOOPBACK_HOSTS.has(host)) {
      return reply.code(403).send({ error: { ac: 13, ai: `Host ${JSON.stringify(req.headers.host)} is not a loopback address` } });
    }
    if (req.url.startsWith('/app/api/')) {
      const given = req.headers['x-tickscope-token'] ?? (req.query as Record<string, string | undefined>)['token'];
      if (given !== token) return reply.code(401).send({ error: { ac: 13, ai: 'missing or wrong app token; reload the page' } });
    }
    return undefined;
  });

  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Referrer-Policy', 'no-referrer');
    return payload;
  });

  const html = (_req: FastifyRequest, reply: FastifyReply): FastifyReply =>
    reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-store').send(indexHtml);
  app.get('/', html);
  app.get('/index.html', html);
  await app.register(fastifyStatic, { root: rendererDir, index: false, wildcard: true });

  app.get('/app/api/info', async (_req, reply) => {
    try {
      return await service.info();
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.get('/app/api/connections', async () => service.connections());
  app.post('/app/api/connections', async (req, reply) => {
    try {
      return await service.addConnection(req.body);
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.post('/app/api/connections/:id/use', async (req, reply) => {
    try {
      return service.useConnection((req.params as { id: string }).id);
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.delete('/app/api/connections/:id', async (req, reply) => {
    try {
      return service.removeConnection((req.params as { id: string }).id);
    } catch (e) {
      return fail(reply, e);
    }
  });
  // Open database…: a folder on this machine (the browser types its path), mounted as another assembly
  app.post('/app/api/databases', async (req, reply) => {
    try {
      return service.openDatabase(req.body);
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.delete('/app/api/databases/:name', async (req, reply) => {
    try {
      return service.closeDatabase((req.params as { name: string }).name);
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.post('/app/api/run', async (req, reply) => {
    const body = req.body as { operation?: unknown; args?: unknown; queryId?: unknown } | undefined;
    if (!body || typeof body.operation !== 'string' || (body.queryId !== undefined && typeof body.queryId !== 'string')) {
      return fail(reply, new TickscopeError('badRequest', 'body: expected {"operation": name, "args": {...}, "queryId"?: string}'));
    }
    const queryId = body.queryId ?? randomBytes(12).toString('base64url');
    // a connection closed before the answer cancels the query
    const onClose = (): void => {
      if (!reply.raw.writableFinished) service.cancel(queryId);
    };
    reply.raw.once('close', onClose);
    const timeout = req.headers['timeout'];
    const timeoutMs = typeof timeout === 'string' && /^\d+$/.test(timeout) ? Number(timeout) : undefined;
    return service.run(body.operation, body.args ?? {}, queryId, timeoutMs);
  });
  // Import… (issue 30): files on this machine, previewed and imported on a worker; the browser's own
  // files (its picker, its drop zone) uploaded first, one request each, into one upload folder
  app.post('/app/api/import/preview', async (req, reply) => {
    try {
      return await service.previewImport(req.body);
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.post('/app/api/import', async (req, reply) => {
    const body = req.body as { queryId?: unknown } | undefined;
    if (body && body.queryId !== undefined && typeof body.queryId !== 'string') return fail(reply, new TickscopeError('badRequest', `queryId: ${JSON.stringify(body.queryId)} is not text`));
    try {
      // progress and cancel answer for it by its queryId, as for a query
      return await service.importFiles(body, (body?.queryId as string | undefined) ?? randomBytes(12).toString('base64url'));
    } catch (e) {
      return fail(reply, e);
    }
  });
  // the bytes of one file streamed to disk as they come (no body limit of the JSON API's: MAX_UPLOAD_BYTES)
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
  app.post('/app/api/import/files', async (req, reply) => {
    if (!(req.body instanceof Readable)) return fail(reply, new TickscopeError('unsupportedMediaType', `Content-Type: ${quoteText(String(req.headers['content-type'] ?? '(none)'), 80)}; expected application/octet-stream (the file's bytes)`));
    try {
      return await service.uploadImportFile(req.headers['x-tickscope-path'], req.headers['x-tickscope-upload'], req.body);
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.get('/app/api/queries/:id', async (req) => service.progress((req.params as { id: string }).id));
  app.post('/app/api/queries/:id/cancel', async (req) => service.cancel((req.params as { id: string }).id));
  app.get('/app/api/results/:id/page', async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    try {
      return await service.page((req.params as { id: string }).id, q['offset'] ?? '0', q['limit'] ?? '100', q['form'] ?? 'grid');
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.post('/app/api/results/:id/sort', async (req, reply) => {
    try {
      return await service.sort((req.params as { id: string }).id, (req.body as { sortCols?: unknown } | undefined)?.sortCols);
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.post('/app/api/results/:id/chart', async (req, reply) => {
    try {
      const body = (req.body ?? {}) as Omit<ChartRequest, 'resultId'>;
      const bytes = await service.chart({ ...body, resultId: (req.params as { id: string }).id });
      return reply.type('application/vnd.apache.arrow.stream').send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.get('/app/api/results/:id/arrow', async (req, reply) => {
    try {
      const bytes = await service.table((req.params as { id: string }).id);
      return reply.type('application/vnd.apache.arrow.stream').send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    } catch (e) {
      return fail(reply, e);
    }
  });
  app.get('/app/api/identifiers', async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    try {
      return service.identifiers(q['assembly'], q['table']); // not an argument: this endpoint's query string
    } catch (e) {
      return fail(reply, e);
    }
  });
  // a whole result as a file (the app's Export); /arrow above is the typed table the charts read
  app.get('/app/api/results/:id/export/:format', async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    const { id, format } = req.params as { id: string; format: string };
    if (!(EXPORT_FORMATS as readonly string[]).includes(format)) return fail(reply, new TickscopeError('notFound', `/app/api/results/${id}/export/${format}: not an export format; expected ${EXPORT_FORMATS.join(', ')}`));
    // the app's name (SPEC 8) as it is: letters, digits, `_ . -`, and `+` (a zone such as Etc/GMT+5)
    const name = (q['name'] ?? `tickscope-result.${format}`).replace(/[^\w.+-]/g, '_');
    try {
      const chunks = service.exportFile(id, format as ExportFormat, q['exportId'] || undefined)[Symbol.asyncIterator]();
      // the first chunk (the header line) before answering: an unknown result is an error, not an empty file
      const first = await chunks.next();
      async function* all(): AsyncGenerator<Uint8Array> {
        try {
          if (!first.done) yield first.value;
          for (let c = await chunks.next(); !c.done; c = await chunks.next()) yield c.value;
        } finally {
          // the download closed early (or was cancelled): the worker stops rendering
          await chunks.return?.();
        }
      }
      return reply
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : format === 'arrow' ? 'application/vnd.apache.arrow.stream' : 'application/vnd.apache.parquet')
        .header('Content-Disposition', `attachment; filename="${name}"`)
        .send(Readable.from(all()));
    } catch (e) {
      return fail(reply, e);
    }
  });

  try {
    await app.listen({ port: opts.port, host: opts.host });
  } catch (e) {
    throw listenError(e, opts.host, opts.port, '--port');
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const shownHost = opts.host === '0.0.0.0' || opts.host === '::' ? 'localhost' : opts.host;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  app.server.on('close', () => resolveClosed());
  return {
    url: `http://${shownHost}:${port}/`,
    token,
    closed,
    close: async () => {
      await app.close();
    },
  };
}
