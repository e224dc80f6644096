/**
 * Generated kdb+ IPC messages for the fuzzer, sent after a valid handshake: most are calls of an
 * operation in one of the accepted forms with one argument wrong (a q type the argument does not
 * take, a near miss), then broken shapes, bytes changed in a valid message, truncations, absurd
 * counts, compressed messages (real, literal-only, garbage), slow writers and handshakes gone wrong.
 */
import { OPERATIONS } from '../engine/operations/index.js';
import type { OperationSpec } from '../engine/registry/types.js';
import { plausibleArgs, tableFor, wrongValue } from './fuzz-values.js';
import { Rand, type World } from './fuzz-world.js';
import { compressQ, encodeQ, fromJson, literalCompressQ, qDate, qMessage, qTimestamp, type QV } from './q-wire.js';

export interface QCase {
  /** q#N: with the seed, what reproduces it. */
  readonly id: string;
  readonly family: string;
  readonly what: string;
  /** handshake: `bytes` are a handshake on a new connection; message: sent on a logged-in one. */
  readonly kind: 'handshake' | 'message';
  readonly bytes: Buffer;
  /** A reply is due (a complete sync message, or a handshake). */
  readonly expectReply: boolean;
  /** The message is incomplete on purpose: the gateway rightly waits for the rest. */
  readonly incomplete?: boolean;
  /** Written in pieces this many ms apart. */
  readonly slowMs?: number;
  /** What a q error's text must name after its ac. */
  readonly names: RegExp;
}

const STREAM_Q = 2;
export const Q_FAMILIES = ['value', 'valid', 'shape', 'bytes', 'truncated', 'counts', 'compressed', 'async', 'slow', 'handshake', 'random'] as const;
const WEIGHTS = [34, 12, 10, 12, 4, 5, 8, 4, 2, 5, 4];

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A q error's text: the ac, then an argument or a part of the message. */
const qNamed = (op: OperationSpec | null): RegExp =>
  new RegExp(`^\\d+ .*(q message|args|callback|opts|operation|argument|timeout|${op ? op.args.map((a) => esc(a.name)).join('|') : 'table'})`, 's');

/** The arguments as q values: timestamps and dates as q atoms, symbols as symbols, the rest as REST values are. */
function argsToQ(op: OperationSpec, args: Record<string, unknown>, r: Rand): QV {
  const keys = Object.keys(args);
  const v = keys.map((k): QV => {
    const x = args[k];
    const spec = op.args.find((a) => a.name === k);
    if (typeof x === 'string' && spec?.type === 'symbol' && r.chance(0.7)) return { t: 'sym', v: x };
    if (typeof x === 'string' && spec?.type === 'timestamp' && /^\d{4}\.\d\d\.\d\d(D\d\d:\d\d)?$/.test(x) && r.chance(0.6)) {
      const [d, t = '00:00'] = x.split('D');
      return qTimestamp(`${d!.replace(/\./g, '-')}T${t}:00Z`);
    }
    if (typeof x === 'string' && spec?.type === 'date' && /^\d{4}\.\d\d\.\d\d$/.test(x)) return qDate(x.replace(/\./g, '-'));
    if (x === '1b' || x === '0b') return r.chance(0.5) ? { t: 'bool', v: x === '1b' } : { t: 'chars', v: x };
    return fromJson(x);
  });
  return { t: 'dict', keys, v };
}

/** A call in one of the three accepted forms. */
function call(op: OperationSpec, args: QV, r: Rand, callback = ''): QV {
  const name: QV = r.chance(0.8) ? { t: 'sym', v: r.pick(op.ipcNames) } : { t: 'chars', v: r.pick(op.ipcNames) };
  // a call's own timeout wins over the gateway's (SPEC 7, 10): 0 or 300 s would ask for an enormous
  // legal query to run past the hang limit, so the fuzzer asks only for ones that end inside it
  const opts: QV = r.chance(0.3) ? { t: 'dict', keys: ['timeout'], v: [{ t: 'long', v: BigInt(r.pick([1, 50, 5000, 20000])) }] } : { t: 'dict', keys: [], v: [] };
  const k = r.int(3);
  if (k === 0 && !callback) return { t: 'list', v: [name, args] };
  if (k === 1) return { t: 'list', v: [name, args, { t: 'sym', v: callback }, opts] };
  return { t: 'list', v: [{ t: 'sym', v: 'gw' }, name, args, { t: 'sym', v: callback }, opts] };
}

/** Odd q values for an argument: types the registry does not expect. */
function oddQ(r: Rand): QV {
  return r.pick<QV>([
    { t: 'float', v: 1.5 },
    { t: 'long', v: -9223372036854775808n },
    { t: 'long', v: 9223372036854775807n },
    { t: 'timestamp', v: -9223372036854775808n },
    { t: 'timestamp', v: 9223372036854775807n },
    { t: 'date', v: -2147483648 },
    { t: 'date', v: 2147483647 },
    { t: 'chars', v: '' },
    { t: 'syms', v: [] },
    { t: 'dict', keys: [], v: [] },
    { t: 'null' },
    { t: 'timespan', v: 86_400_000_000_001n },
    { t: 'raw', v: Buffer.from([0xfe, ...Buffer.alloc(16, 0xab)]) }, // guid atom
    { t: 'raw', v: Buffer.from([0xf3, 1, 0, 0, 0]) }, // month
    { t: 'raw', v: Buffer.from([0xef, 30, 0, 0, 0]) }, // minute
    { t: 'raw', v: Buffer.from([0xf8, 0, 0, 0xc0, 0x7f]) }, // real NaN
    { t: 'raw', v: Buffer.from([0xfb, 0xff, 0x7f]) }, // short
    { t: 'raw', v: Buffer.from([4, 0, 3, 0, 0, 0, 1, 2, 3]) }, // byte vector
    { t: 'raw', v: Buffer.from([98, 0, 99, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }, // a table of nothing
    { t: 'raw', v: Buffer.from([100, 0, 10, 0, 1, 0, 0, 0, 0x78]) }, // a lambda
    { t: 'raw', v: Buffer.from([0x80, 0x6f, 0x6f, 0x70, 0x73, 0]) }, // an error object
    { t: 'list', v: [{ t: 'sym', v: 'a' }, { t: 'long', v: 1n }, { t: 'null' }] },
    deepList(70),
  ]);
}

function deepList(n: number): QV {
  let x: QV = { t: 'syms', v: ['a'] };
  for (let k = 0; k < n; k++) x = { t: 'list', v: [x] };
  return x;
}

/** The q case number `index` of a seed. */
export function qCase(w: World, seed: number, index: number): QCase {
  const r = new Rand(seed, STREAM_Q, index);
  const family = Q_FAMILIES[r.weighted(WEIGHTS)]!;
  const op = r.pick(OPERATIONS);
  const args = plausibleArgs(op, w, r);
  const id = `q#${index}`;
  const sync = (what: string, body: Buffer, names = qNamed(op), extra: Partial<QCase> = {}): QCase => ({ id, family, what: `${op.name}: ${what}`, kind: 'message', bytes: qMessage(1, body), expectReply: true, names, ...extra });
  switch (family) {
    case 'value': {
      const arg = r.pick(op.args);
      const q = argsToQ(op, args, r) as Extract<QV, { t: 'dict' }>;
      const bad = r.chance(0.5) ? oddQ(r) : fromJson(wrongValue(arg, w.tables.get(tableFor(op))!, w, r));
      const keys = q.keys.includes(arg.name) ? q.keys : [...q.keys, arg.name];
      const v = keys.map((k, at) => (k === arg.name ? bad : q.v[at]!));
      return sync(`${arg.name} wrong`, encodeQ(call(op, { t: 'dict', keys, v }, r)));
    }
    case 'valid':
      return sync(`plausible ${Object.keys(args).join(',')}`, encodeQ(call(op, argsToQ(op, args, r), r)));
    case 'shape': {
      const a = argsToQ(op, args, r);
      const name: QV = { t: 'sym', v: op.ipcNames[0]! };
      const shapes: Array<[string, QV]> = [
        ['q code', { t: 'chars', v: r.pick(['select from Trade', '1+1', '\\\\', 'exit 0', '.z.pw:{1b}']) }],
        ['a symbol alone', name],
        ['one item', { t: 'list', v: [name] }],
        ['three items', { t: 'list', v: [name, a, a] }],
        ['six items', { t: 'list', v: [name, a, a, a, a, a] }],
        ['5 items not gw', { t: 'list', v: [{ t: 'sym', v: 'gx' }, name, a, { t: 'sym', v: '' }, { t: 'null' }] }],
        ['op a long', { t: 'list', v: [{ t: 'long', v: 1n }, a] }],
        ['unknown op', { t: 'list', v: [{ t: 'sym', v: r.pick(['.fsi.getTick', 'getticks', '', '.q.exit', 'value']) }, a] }],
        ['args a list', { t: 'list', v: [name, { t: 'list', v: [a] }] }],
        ['args a symbol', { t: 'list', v: [name, { t: 'sym', v: 'Trade' }] }],
        ['callback a long', { t: 'list', v: [name, a, { t: 'long', v: 3n }, { t: 'null' }] }],
        ['opts a list', { t: 'list', v: [name, a, { t: 'sym', v: '' }, { t: 'syms', v: ['timeout'] }] }],
        ['opts.timeout -1', { t: 'list', v: [name, a, { t: 'sym', v: '' }, { t: 'dict', keys: ['timeout'], v: [{ t: 'long', v: -1n }] }] }],
        ['opts.timeout a float', { t: 'list', v: [name, a, { t: 'sym', v: '' }, { t: 'dict', keys: ['timeout'], v: [{ t: 'float', v: 1.5 }] }] }],
        ['dict keys longs', { t: 'list', v: [name, { t: 'raw', v: Buffer.concat([Buffer.of(99), encodeQ({ t: 'list', v: [{ t: 'long', v: 1n }] }), encodeQ({ t: 'list', v: [{ t: 'long', v: 1n }] })]) }] }],
        ['dict counts differ', { t: 'list', v: [name, { t: 'raw', v: Buffer.concat([Buffer.of(99), encodeQ({ t: 'syms', v: ['table', 'idList'] }), encodeQ({ t: 'list', v: [{ t: 'sym', v: 'Trade' }] })]) }] }],
      ];
      const [what, x] = r.pick(shapes);
      return sync(what, encodeQ(x), qNamed(op));
    }
    case 'bytes': {
      const b = encodeQ(call(op, argsToQ(op, args, r), r));
      const n = 1 + r.int(3);
      for (let k = 0; k < n; k++) {
        const at = r.int(b.length);
        if (r.chance(0.3) && at + 4 <= b.length) b.writeInt32LE(r.pick([0x7fffffff, -1, -2147483648, b.length, b.length + 1, 1 << 24]), at);
        else b[at] = r.int(256);
      }
      return sync(`${n} byte(s) changed`, b);
    }
    case 'truncated': {
      const m = qMessage(1, encodeQ(call(op, argsToQ(op, args, r), r)));
      const cut = 1 + r.int(m.length - 1);
      if (r.chance(0.5)) {
        // the length says the whole message: the gateway waits for the rest, rightly
        return { id, family, what: `${op.name}: first ${cut} of ${m.length} bytes`, kind: 'message', bytes: m.subarray(0, cut), expectReply: false, incomplete: true, names: qNamed(op) };
      }
      // the length says what was sent: the object ends early
      const body = m.subarray(8, Math.max(9, cut));
      return sync(`body cut to ${body.length} bytes`, Buffer.from(body));
    }
    case 'counts': {
      const t = r.pick([0, 1, 4, 6, 7, 9, 10, 11, 12, 14]);
      const n = r.pick([0x7fffffff, -1, -2147483648, 200_000_000, 65536, 1 << 20]);
      const head = Buffer.alloc(6);
      head[0] = t;
      head.writeInt32LE(n, 2);
      return sync(`a type ${t} list claiming ${n} items`, Buffer.concat([head, Buffer.alloc(r.int(40), r.int(256))]));
    }
    case 'compressed': {
      const m = qMessage(1, encodeQ(call(op, argsToQ(op, args, r), r)));
      const k = r.int(4);
      if (k === 0) return { ...sync('compressed (kdb+ compression)', Buffer.alloc(0)), bytes: compressQ(m) ?? literalCompressQ(m) };
      if (k === 1) return { ...sync('compressed (literals only)', Buffer.alloc(0)), bytes: literalCompressQ(m) };
      const c = literalCompressQ(m);
      if (k === 2) c.writeInt32LE(r.pick([0, 7, -1, 0x7fffffff, 60_000_000, c.length + 1]), 8); // the unpacked size lies
      else for (let j = 12; j < c.length; j++) if (r.chance(0.2)) c[j] = r.int(256); // the stream is garbage
      return { ...sync(k === 2 ? 'compressed, claimed size wrong' : 'compressed, data garbled', Buffer.alloc(0)), bytes: c };
    }
    case 'async': {
      const cb = r.pick(['', 'onTicks', 'upd', '.z.ps']);
      const m = qMessage(0, encodeQ(call(op, argsToQ(op, args, r), r, cb)));
      // an async call with a callback is answered by calling it
      return { id, family, what: `${op.name}: async, callback ${cb || '(none)'}`, kind: 'message', bytes: m, expectReply: cb !== '', names: qNamed(op) };
    }
    case 'slow':
      return { ...sync('written a few bytes at a time', encodeQ(call(op, argsToQ(op, args, r), r))), slowMs: 20 };
    case 'handshake': {
      // failed secrets are throttled per client id (SPEC 10), so they are given for another registered
      // client than the one the correct requests use, which would otherwise be locked out for a minute
      const forms: Array<[string, Buffer, boolean]> = [
        ['wrong secret', Buffer.from(`reader:wrong\u0003\u0000`), true],
        ['unknown user', Buffer.from(`nobody:${w.clientSecret}\u0003\u0000`), true],
        ['no capability byte', Buffer.from(`${w.clientId}:${w.clientSecret}\u0000`), true],
        ['capability 6', Buffer.from(`${w.clientId}:${w.clientSecret}\u0006\u0000`), true],
        ['no colon', Buffer.from(`reader\u0003\u0000`), true],
        ['empty', Buffer.of(0), true],
        ['20 kB user', Buffer.concat([Buffer.alloc(20_000, 0x61), Buffer.of(3, 0)]), true],
        ['no terminating 0', Buffer.from(`${w.clientId}:${w.clientSecret}\u0003`), false],
        ['binary', Buffer.from(Array.from({ length: 30 }, () => 1 + r.int(255)).concat([0])), true],
      ];
      const [what, bytes, complete] = r.pick(forms);
      return { id, family, what: `handshake ${what}`, kind: 'handshake', bytes, expectReply: complete, incomplete: !complete, names: /.*/ };
    }
    default: {
      const body = Buffer.from(Array.from({ length: 1 + r.int(80) }, () => r.int(256)));
      return sync('random bytes', body, qNamed(null));
    }
  }
}
