/**
 * Generated REST requests for the fuzzer: most are well-formed JSON with a valid token and plausible
 * arguments of an operation with ONE thing wrong (an argument's value or encoding, an unknown name, a
 * header), so most reach the executor; fewer break the body, the token, the method or the path. Case
 * N of a seed is always the same request.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { OPERATIONS } from '../engine/operations/index.js';
import type { OperationSpec } from '../engine/registry/types.js';
import { nested, plausibleArgs, tableFor, unknownArgName, wrongValue } from './fuzz-values.js';
import { Rand, type World } from './fuzz-world.js';
import type { RawRequest } from './raw-http.js';

export interface RestCase {
  /** rest#N: with the seed, what reproduces it. */
  readonly id: string;
  /** The mutation family (value, valid, argName, body, auth, contentType, encoding, header, route, token). */
  readonly family: string;
  readonly what: string;
  readonly req: RawRequest;
  /** What an error answer's message must name (its argument, or the part at fault). */
  readonly names: RegExp;
}

const STREAM_REST = 1;
/** Families and their weights: the first two keep most requests well-formed and authorised. */
export const REST_FAMILIES = ['value', 'valid', 'argName', 'body', 'auth', 'contentType', 'encoding', 'header', 'route', 'token'] as const;
const WEIGHTS = [50, 12, 5, 8, 7, 4, 4, 6, 3, 1];

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Any argument of the operation, or the body, named in an error message. */
export const argsNamed = (op: OperationSpec, more = ''): RegExp => new RegExp(`(^|[^A-Za-z])(${op.args.map((a) => esc(a.name)).join('|')}|body|argument)([^A-Za-z]|$)${more ? `|${more}` : ''}`);

/** The REST case number `index` of a seed. */
export function restCase(w: World, seed: number, index: number): RestCase {
  const r = new Rand(seed, STREAM_REST, index);
  const family = REST_FAMILIES[r.weighted(WEIGHTS)]!;
  const op = r.pick(OPERATIONS);
  const path = r.pick(op.restPaths);
  const args = plausibleArgs(op, w, r);
  const json = (o: unknown): Buffer => Buffer.from(JSON.stringify(o));
  const headers = (token = w.token): Array<[string, string]> => [
    ['Authorization', `Bearer ${token}`],
    ['Content-Type', 'application/json'],
  ];
  const mk = (what: string, req: Partial<RawRequest>, names: RegExp): RestCase => ({
    id: `rest#${index}`,
    family,
    what: `${op.name}: ${what}`,
    req: { method: 'POST', path, headers: headers(), body: json(args), ...req },
    names,
  });
  const t = w.tables.get(tableFor(op))!;
  switch (family) {
    case 'value': {
      const arg = r.pick(op.args);
      const v = wrongValue(arg, t, w, r);
      return mk(`${arg.name} = ${String(JSON.stringify(v)).slice(0, 60)}`, { body: json({ ...args, [arg.name]: v }) }, argsNamed(op));
    }
    case 'valid':
      return mk(`plausible ${Object.keys(args).join(',')}`, {}, argsNamed(op));
    case 'argName': {
      const k = r.int(3);
      if (k === 0) {
        const name = unknownArgName(op, r);
        return mk(`unknown argument ${JSON.stringify(name).slice(0, 40)}`, { body: Buffer.from(JSON.stringify(args).replace(/^\{/, `{${JSON.stringify(name)}:1,`)) }, argsNamed(op, esc(name.trim()) || 'argument'));
      }
      const { table: _dropped, ...rest } = args;
      return mk(k === 1 ? 'no table' : 'empty object', { body: json(k === 1 ? rest : {}) }, argsNamed(op));
    }
    case 'body':
      return bodyCase(r, args, mk, op);
    case 'auth':
      return authCase(r, w, mk, op);
    case 'contentType': {
      const ct = r.pick(['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=latin1', 'text/json', 'application/jsonx', '', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json, text/plain', 'application/vnd.api+json', 'text/plain', 'application/xml', null]);
      const hs = headers().filter(([k]) => k !== 'Content-Type');
      return mk(`Content-Type ${String(ct)}`, { headers: ct === null ? hs : [...hs, ['Content-Type', ct]] }, new RegExp(`Content-Type|${argsNamed(op).source}`));
    }
    case 'encoding': {
      const text = json(args);
      const k = r.int(7);
      const [enc, body] =
        k === 0
          ? ['gzip', gzipSync(text)]
          : k === 1
            ? ['gzip', text] // says gzip, is not
            : k === 2
              ? ['deflate', deflateSync(text)]
              : k === 3
                ? ['br', text]
                : k === 4
                  ? ['identity', text]
                  : k === 5
                    ? ['gzip, gzip', gzipSync(gzipSync(text))]
                    : ['gzip', gzipSync(Buffer.concat([Buffer.from('{"table":"Trade","x":"'), Buffer.alloc(20 * 1024 * 1024, 0x61), Buffer.from('"}')]))]; // a bomb: 20 MiB of JSON in ~20 kB
      return mk(`Content-Encoding ${enc} (${k === 1 || k === 3 ? 'plain body' : k === 6 ? 'a 20 MiB bomb' : 'encoded'})`, { headers: [...headers(), ['Content-Encoding', enc]], body }, new RegExp(`Content-Encoding|${argsNamed(op).source}`));
    }
    case 'header': {
      const k = r.int(3);
      if (k === 0) {
        const v = r.pick(['0', '1', '5', '100000', '-1', '1.5', 'abc', '', '999999999', '9999999999', '1e3', ' 5 ', '0x10', '5, 5']);
        return mk(`timeout ${JSON.stringify(v)}`, { headers: [...headers(), ['timeout', v]] }, new RegExp(`timeout|${argsNamed(op).source}`));
      }
      if (k === 1) {
        const v = r.pick(['application/vnd.apache.arrow.stream', '*/*', 'text/csv', 'application/json', 'garbage', 'application/vnd.apache.arrow.file', 'application/vnd.apache.arrow.stream;q=0', '']);
        return mk(`Accept ${v}`, { headers: [...headers(), ['Accept', v]] }, new RegExp(`Accept|${argsNamed(op).source}`));
      }
      const v = r.pick(['gzip', 'br', 'deflate', '*', 'gzip;q=0', 'identity', 'gzip, deflate, br', 'x'.repeat(2000)]);
      return mk(`Accept-Encoding ${v.slice(0, 20)}`, { headers: [...headers(), ['Accept-Encoding', v]] }, argsNamed(op));
    }
    case 'route': {
      if (r.chance(0.5)) {
        const m = r.pick(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'post', 'FOO']);
        return mk(`method ${m}`, { method: m }, /only POST|method|no such path|POST/);
      }
      const p = r.pick([`${path}/`, path.toUpperCase(), path.replace('/fsi/', '//fsi/'), `${path}/../getTicks`, `${path}%00`, `${path}?x=1`, `${path}?table=Quote`, `/servicegateway/fsi/${'x'.repeat(5000)}`, '/servicegateway/fsi/getTick', '/', '/servicegateway/kxi/x', '/%ff', `${path}#frag`]);
      return mk(`path ${p.slice(0, 50)}`, { path: p }, new RegExp(`no such path|path|${argsNamed(op).source}`));
    }
    default: {
      const form = r.pick([
        `grant_type=client_credentials&client_id=${w.clientId}&client_secret=wrong`,
        `grant_type=password&client_id=${w.clientId}&client_secret=${w.clientSecret}`,
        'grant_type=client_credentials',
        `grant_type=client_credentials&client_id=${encodeURIComponent('x'.repeat(500))}&client_secret=x`,
        `client_id=${w.clientId}&client_secret=${w.clientSecret}`,
        '%%%',
      ]);
      const ct = r.pick(['application/x-www-form-urlencoded', 'application/json', 'text/plain']);
      const tokenPath = new URL(w.tokenUrl).pathname;
      return { id: `rest#${index}`, family, what: `token ${form.slice(0, 40)} as ${ct}`, req: { method: 'POST', path: tokenPath, headers: [['Content-Type', ct]], body: Buffer.from(form) }, names: /client|grant_type|Content-Type|secret|request|many|body/ };
    }
  }
}

type Mk = (what: string, req: Partial<RawRequest>, names: RegExp) => RestCase;

function bodyCase(r: Rand, args: Record<string, unknown>, mk: Mk, op: OperationSpec): RestCase {
  const text = JSON.stringify(args);
  // the 1.2M-element body names its idList, an argument some operations do not declare
  const names = argsNamed(op, '^idList:');
  const k = r.int(12);
  const variants: Array<[string, string | Buffer]> = [
    ['truncated', text.slice(0, r.int(text.length))],
    ['a byte changed', (() => {
      const b = Buffer.from(text);
      b[r.int(b.length)] = r.int(256);
      return b;
    })()],
    ['trailing data', `${text}${r.pick(['x', '{}', ',', ' ]', '\u0000'])}`],
    ['duplicate key', text.replace(/^\{/, '{"table":"Quote",')],
    ['a BOM first', `\ufeff${text}`],
    ['trailing comma', text.replace(/\}$/, ',}')],
    ['an array around it', `[${text}]`],
    ['a bad escape', text.replace(/^\{"/, '{"\\x')],
    ['a 70-deep filter', JSON.stringify({ ...args, filter: nested(70) })],
    ['1.2M elements', `{"table":"Trade","idList":[${'0,'.repeat(1_200_000)}0]}`],
    ['a huge number', text.replace(/^\{/, '{"decPlaces":1e999999,')],
    ['empty', ''],
  ];
  const [what, body] = variants[k]!;
  return mk(`body ${what}`, { body: Buffer.isBuffer(body) ? body : Buffer.from(body) }, names);
}

function authCase(r: Rand, w: World, mk: Mk, op: OperationSpec): RestCase {
  const [h, p, s] = w.token.split('.') as [string, string, string];
  const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  const forms: Array<string | null> = [
    null,
    '',
    'Bearer',
    'Bearer ',
    `bearer ${w.token}`,
    `BEARER ${w.token}`,
    `Bearer  ${w.token}`,
    `Bearer\t${w.token}`,
    w.token,
    `Token ${w.token}`,
    `Basic ${Buffer.from(`${w.clientId}:${w.clientSecret}`).toString('base64')}`,
    `Bearer ${w.token}x`,
    `Bearer ${h}.${b64({ ...payload, scope: 'fsi.read fsi.generate admin', exp: 4102444800 })}.${s}`,
    `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${p}.`,
    `Bearer ${b64({ alg: 'RS256', typ: 'JWT' })}.${p}.${s}`,
    `Bearer ${h}.${b64({ ...payload, exp: 1 })}.${s}`,
    `Bearer ${h}.${p}`,
    `Bearer ${'a'.repeat(8000)}`,
    'Bearer @@@',
    `Bearer ${w.token}, Bearer ${w.token}`,
    op.name === 'generateOrderAnalytics' ? `Bearer ${w.readToken}` : `Bearer ${w.token}.${s}`,
  ];
  const form = r.pick(forms);
  const rest: Array<[string, string]> = [['Content-Type', 'application/json']];
  const hs: Array<[string, string]> = form === null ? rest : [['Authorization', form], ...rest];
  // the scheme is case-insensitive and may be followed by more than one space (RFC 6750): those
  // forms are valid, so the request goes on and its error, if any, names an argument
  const valid = form !== null && /^bearer +\S+$/i.test(form) && form.replace(/^\S+ +/, '') === w.token;
  return mk(`Authorization ${form === null ? '(none)' : JSON.stringify(form.slice(0, 24))}`, { headers: hs }, valid ? argsNamed(op, 'Authorization|token') : /Authorization|token/);
}
