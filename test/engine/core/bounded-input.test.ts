/**
 * Requests bounded before they are trusted (engine/core/bounded-input.ts), the environment's errors
 * (engine/core/errors.ts), long quoted values cut, and the throttle behind 429s (gateway/throttle.ts).
 */
import { describe, expect, it } from 'vitest';
import { checkValueBounds, parseBoundedJson, scanJson } from '../../../engine/core/bounded-input.js';
import { environmentError, TickscopeError } from '../../../engine/core/errors.js';
import { GATEWAY_DEFAULTS, loadSettings } from '../../../engine/executor/settings.js';
import { FailedSecrets, Throttle } from '../../../engine/gateway/throttle.js';

const LIMITS = { maxDepth: 4, maxElements: 20 };
const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return '';
};

describe('bounded JSON', () => {
  it('names the top-level key whose value is too deep, or the body', () => {
    expect(message(() => scanJson('{"a":1,"filter":[[[[1]]]]}', LIMITS))).toBe('filter: nested deeper than 4 levels of arrays and objects (maxJsonDepth 4); expected a shallower value');
    expect(message(() => scanJson('[[[[[1]]]]]', LIMITS))).toMatch(/^body: nested deeper than 4 levels/);
    expect(message(() => scanJson('{"a":[[[1]]]}', LIMITS))).toBe('');
  });

  it('counts values, not keys, and is not fooled by quotes, escapes and brackets inside strings', () => {
    expect(() => scanJson('{"k":"[[[[[[[[[[","q":"\\"[[[[[[[[[[\\\\","z":[1,2]}', LIMITS)).not.toThrow();
    expect(message(() => scanJson(`{"idList":[${Array.from({ length: 20 }, (_, i) => i).join(',')}]}`, LIMITS))).toMatch(/^idList: holds more than 20 values \(maxJsonElements 20\)/);
    // keys do not count: 15 keys with 15 values + the object itself
    expect(() => scanJson(JSON.stringify(Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, i]))), LIMITS)).not.toThrow();
  });

  it('parses what it scanned; malformed text names the body, its message cut short', () => {
    expect(parseBoundedJson('{"table":"Trade","x":[1,{"y":null}]}', LIMITS)).toEqual({ table: 'Trade', x: [1, { y: null }] });
    const e = message(() => parseBoundedJson(`{"table":"${'x'.repeat(10_000)}`, LIMITS));
    expect(e).toMatch(/^body: not JSON/);
    expect(e.length).toBeLessThan(400);
  });

  it('bounds a built value without recursion, cycles included', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(message(() => checkValueBounds({ filter: deep }, LIMITS))).toMatch(/^filter: nested deeper than 4 levels/);
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(message(() => checkValueBounds(cycle, LIMITS))).toMatch(/^self: nested deeper/);
    expect(message(() => checkValueBounds({ a: new Array(30).fill(0) }, LIMITS))).toMatch(/^a: holds more than 20 values/);
    expect(() => checkValueBounds({ table: 'Trade', idList: ['A', 'B'], agg: { v: ['wavg', 'volume', 'price'] } }, LIMITS)).not.toThrow();
  });
});

describe('errors', () => {
  it('reports the environment as the environment, naming the path', () => {
    const err = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: x`), { code, path: '/db/Trade/2024-03-06/price.f64' });
    const full = environmentError(err('ENOSPC'), 'writing Trade')!;
    expect(full).toBeInstanceOf(TickscopeError);
    expect([full.kind, full.ac, full.http]).toEqual(['diskFull', 60, 507]);
    expect(full.message).toBe('writing Trade: /db/Trade/2024-03-06/price.f64: ENOSPC: the disk is full; free space on it (or move the database) and retry');
    expect(environmentError(err('EROFS'))!.http).toBe(503);
    expect(environmentError(err('EPERM'))!.kind).toBe('accessDenied');
    expect(environmentError(err('EACCES'))!.kind).toBe('accessDenied');
    expect(environmentError(err('EMFILE'))!.kind).toBe('tooManyOpenFiles');
    expect(environmentError(err('ENOENT'))).toBeNull();
    expect(environmentError(new TypeError('a bug'))).toBeNull();
  });

  it('quotes at most ~200 characters of a bad value, however long', () => {
    const e = new TickscopeError('unknownTable', `table: ${JSON.stringify('T'.repeat(1_000_000))} is not a table of demo; expected one of Trade, Quote`);
    expect(e.message.length).toBeLessThan(400);
    expect(e.message).toMatch(/^table: "T{200}\.\.\." \(1000000 characters\) is not a table of demo; expected one of Trade, Quote$/);
    const short = `table: ${JSON.stringify('Tradd')} is not a table of demo; expected one of ${'Trade, '.repeat(80)}`;
    expect(new TickscopeError('unknownTable', short).message).toBe(short);
  });
});

describe('settings and throttles', () => {
  it('gives the gateway a query timeout by default, and SPEC 10 its limits', () => {
    const app = loadSettings({ env: {} });
    const gw = loadSettings({ env: {}, defaults: GATEWAY_DEFAULTS });
    expect([app.queryTimeoutMs, gw.queryTimeoutMs]).toEqual([0, 300_000]);
    expect(gw).toMatchObject({ maxBodyBytes: 8 * 1024 * 1024, maxJsonDepth: 64, maxJsonElements: 1_000_000, maxQMessageBytes: 64 * 1024 * 1024, qHandshakeTimeoutMs: 10_000, qIdleTimeoutMs: 0, writeStallMs: 30_000, maxInFlightPerClient: 8, maxQSocketsPerClient: 16, maxRequestsPerClientPerMinute: 0 });
    expect(loadSettings({ env: { TICKSCOPE_QUERY_TIMEOUT_MS: '5' }, defaults: GATEWAY_DEFAULTS }).queryTimeoutMs).toBe(5);
  });

  it('counts per key in one-minute windows and forgets ended windows', () => {
    let now = 0;
    const t = new Throttle(2, 60_000, 100_000, () => now);
    expect([t.hit('a').ok, t.hit('a').ok, t.hit('a').ok, t.hit('b').ok]).toEqual([true, true, false, true]);
    now = 30_000;
    expect(t.check('a')).toEqual({ ok: false, retryAfterS: 30 });
    now = 60_000;
    expect(t.hit('a').ok).toBe(true);
    now = 200_000;
    expect(t.size).toBe(0);
    // capped: a stream of made-up keys does not grow it past maxKeys
    const capped = new Throttle(1, 60_000, 1000, () => now);
    for (let i = 0; i < 50_000; i++) capped.hit(`id${i}`);
    expect(capped.size).toBeLessThanOrEqual(1000);
  });
});

describe('limits per endpoint', () => {
  it('a route may set its own depth, elements and bytes; the others keep the server\'s', async () => {
    const { default: Fastify } = await import('fastify');
    const { boundedBodies } = await import('../../../engine/gateway/http-input.js');
    const app = Fastify({ bodyLimit: 1024 });
    boundedBodies(app, { maxBodyBytes: 1024, maxJsonDepth: 8, maxJsonElements: 100 });
    app.setErrorHandler((e: Error & { statusCode?: number }, _req, reply) => reply.code(e instanceof TickscopeError ? e.http : (e.statusCode ?? 500)).send({ ai: e.message }));
    app.post('/default', async (req) => ({ ok: req.body !== undefined }));
    app.post('/upload', { bodyLimit: 1 << 20, config: { inputLimits: { maxJsonDepth: 200, maxJsonElements: 100_000 } } }, async () => ({ ok: true }));
    const deep = `{"a":${'['.repeat(100)}${']'.repeat(100)}}`;
    const big = JSON.stringify({ a: Array.from({ length: 5000 }, (_, i) => i) });
    const inject = (url: string, payload: string) => app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
    expect((await inject('/default', deep)).statusCode).toBe(400);
    expect((await inject('/upload', deep)).statusCode).toBe(200);
    expect((await inject('/default', big)).statusCode).toBe(413);
    expect((await inject('/upload', big)).statusCode).toBe(200);
    await app.close();
  });
});

describe('failed secrets', () => {
  it('refuse an id past its limit and an address past its own, except ids that gave their secret from it', () => {
    let now = 0;
    const f = new FailedSecrets(3, 5, 60_000, () => now);
    f.succeeded('good', 'host');
    for (let i = 0; i < 3; i++) f.failed('guessed', 'host');
    expect(f.refused('guessed', 'host')).toEqual({ by: 'id', retryAfterS: 60 });
    for (let i = 0; i < 3; i++) f.failed(`spray${i}`, 'host');
    // the address is past 5: a stranger from it is refused, a client that logged in from it is not
    expect(f.refused('stranger', 'host')?.by).toBe('address');
    expect(f.refused('good', 'host')).toBeNull();
    expect(f.refused('stranger', 'elsewhere')).toBeNull();
    // ...but its own failures still count against it
    for (let i = 0; i < 3; i++) f.failed('good', 'host');
    expect(f.refused('good', 'host')?.by).toBe('id');
    now = 61_000;
    expect(f.refused('stranger', 'host')).toBeNull();
    now = 11 * 60_000;
    expect(f.sizes).toEqual({ failedSecretsById: 0, failedSecretsByAddress: 0, trustedClients: 0 });
  });
});
