/**
 * Request bodies of the HTTP servers (the REST gateway and `tickscope serve`'s app API), bounded
 * before they are trusted (SPEC 7, 10): at most `maxBodyBytes` (after decompression), JSON nested at
 * most `maxJsonDepth` deep with at most `maxJsonElements` values, checked while parsing (before
 * anything is built from the text), and `Content-Encoding` honoured (gzip, deflate, br) or refused.
 */
import { PassThrough, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { type InputLimits, parseBoundedJson } from '../core/bounded-input.js';
import { quoteText, TickscopeError } from '../core/errors.js';

export interface BodyLimits {
  readonly maxBodyBytes: number;
  readonly maxJsonDepth: number;
  readonly maxJsonElements: number;
}

const DECODERS: Readonly<Record<string, () => NodeJS.ReadWriteStream>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * Limits of one endpoint where they differ from the server's (an upload, a large batch): the route's
 * `config: { inputLimits: {...} }`; its byte limit is fastify's own route option `bodyLimit`.
 */
export interface RouteInputLimits {
  readonly inputLimits?: Partial<Pick<BodyLimits, 'maxJsonDepth' | 'maxJsonElements'>>;
}

/** Installs the bounded JSON parser and the Content-Encoding handling on a fastify app. */
export function boundedBodies(app: FastifyInstance, limits: BodyLimits): void {
  const input: InputLimits = { maxDepth: limits.maxJsonDepth, maxElements: limits.maxJsonElements };
  app.removeContentTypeParser('application/json');
  // no bodyLimit of the parser's own: the server's (maxBodyBytes) applies, or a route's
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    try {
      const own = (req.routeOptions.config as RouteInputLimits | undefined)?.inputLimits;
      const bounds = own ? { maxDepth: own.maxJsonDepth ?? input.maxDepth, maxElements: own.maxJsonElements ?? input.maxElements } : input;
      done(null, parseBoundedJson(body as string, bounds, 'body'));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  // a compressed body is decompressed as it arrives; the body limit counts what comes out, so a
  // small bomb stops at maxBodyBytes
  app.addHook('preParsing', async (req, _reply, payload) => {
    const given = req.headers['content-encoding'];
    if (given === undefined) return payload;
    const coding = String(given).trim().toLowerCase();
    if (coding === '' || coding === 'identity') return payload;
    const make = DECODERS[coding];
    if (!make) throw new TickscopeError('unsupportedMediaType', `Content-Encoding: ${quoteText(String(given))} is not accepted; expected gzip, deflate, br or none`);
    const decoder = make();
    const out = new PassThrough() as PassThrough & { receivedEncodedLength?: number };
    // fastify compares Content-Length with what was received on the wire, not what came out
    out.receivedEncodedLength = 0;
    payload.on('data', (c: Buffer) => {
      out.receivedEncodedLength = (out.receivedEncodedLength ?? 0) + c.length;
    });
    decoder.on('error', (e: Error) => {
      out.destroy(new TickscopeError('badRequest', `body: not valid ${coding} data (${quoteText(e.message, 80)}); expected a body compressed as Content-Encoding says`));
    });
    payload.on('error', (e: Error) => out.destroy(e));
    (payload as Readable).pipe(decoder).pipe(out);
    return out;
  });
}
