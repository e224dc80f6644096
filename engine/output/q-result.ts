/**
 * A result as q IPC bytes (SPEC 7): `(header; payload)`, the header a dictionary, the payload a q
 * table (type 98) whose timestamps hold the wall-clock time of outputTZ (what the JSON payload shows;
 * q has no zones), or for generateOrderAnalytics a one-item list holding the table (SPEC 6.1). An
 * async reply is the call `(callback; (header; payload))`. Rendered in the query's worker.
 */
import type { Header } from '../contract.js';
import { type Column, int32Pairs } from '../core/column.js';
import type { TickscopeError } from '../core/errors.js';
import { zoneOffsets } from '../core/tz.js';
import { NEG_INF_TS, POS_INF_TS } from '../core/time.js';
import type { QueryResult } from '../core/result.js';
import { errorEnvelope, type RequestInfo } from './envelope.js';
import { MSG_ASYNC, MSG_RESPONSE, Q_EPOCH_DAYS, Q_EPOCH_NS, QWriter } from '../q/codec.js';

/** How the client is answered: the response to a sync message, or an async call of its callback. */
export interface QReply {
  readonly kind: 'response' | 'async';
  /** the callback's name (async) */
  readonly callback?: string;
  /** generateOrderAnalytics: the payload is a one-item list holding the table */
  readonly wrapInList?: boolean;
}

const NULL_LONG = -9223372036854775808n;

/** Wall-clock ns (outputTZ) of an instant; nulls and infinities unchanged. */
function wallClock(zone: string): (ns: bigint) => bigint {
  const offsets = zoneOffsets(zone);
  return (ns) => (ns === NULL_LONG || ns >= POS_INF_TS || ns <= NEG_INF_TS ? ns : ns + offsets.offsetAt(ns));
}

const littleBytes = (a: Float64Array | BigInt64Array | Int32Array | Uint8Array): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

function writeColumn(w: QWriter, c: Column, n: number, zone: string): void {
  switch (c.type) {
    case 'float':
      w.vector(9, n);
      w.bytes(littleBytes(c.data.subarray(0, n)));
      return;
    case 'long':
    case 'timespan':
      w.vector(c.type === 'long' ? 7 : 16, n);
      w.bytes(littleBytes(c.data.subarray(0, n)));
      return;
    case 'int':
      w.vector(6, n);
      w.bytes(littleBytes(c.data.subarray(0, n)));
      return;
    case 'boolean':
      w.vector(1, n);
      w.bytes(c.data.subarray(0, n));
      return;
    case 'date': {
      w.vector(14, n);
      const out = new Int32Array(n);
      for (let i = 0; i < n; i++) out[i] = c.data[i] === -2147483648 ? -2147483648 : c.data[i]! - Q_EPOCH_DAYS;
      w.bytes(littleBytes(out));
      return;
    }
    case 'timestamp': {
      w.vector(12, n);
      const local = wallClock(zone);
      const out = new BigInt64Array(n);
      const p = int32Pairs(c.data);
      for (let i = 0; i < n; i++) {
        const hi = p[2 * i + 1]!;
        if (hi === -2147483648 && p[2 * i] === 0) out[i] = NULL_LONG;
        else {
          const x = local(c.data[i]!);
          out[i] = x >= POS_INF_TS || x <= NEG_INF_TS ? x : x - Q_EPOCH_NS;
        }
      }
      w.bytes(littleBytes(out));
      return;
    }
    case 'symbol': {
      w.vector(11, n);
      // each code's bytes once
      const cache = new Map<number, Buffer>();
      for (let i = 0; i < n; i++) {
        const code = c.codes[i]!;
        let b = cache.get(code);
        if (!b) {
          const s = c.dict.get(code);
          const cut = s.indexOf('\0');
          b = Buffer.from(`${cut >= 0 ? s.slice(0, cut) : s}\0`, 'utf8');
          cache.set(code, b);
        }
        w.bytes(b);
      }
      return;
    }
    case 'string':
      w.vector(0, n);
      for (let i = 0; i < n; i++) w.chars(c.values[i]!);
      return;
    case 'float[]':
    case 'long[]':
      w.vector(0, n);
      for (let i = 0; i < n; i++) {
        const a = c.offsets[i]!;
        const b = c.offsets[i + 1]!;
        w.vector(c.type === 'float[]' ? 9 : 7, b - a);
        if (c.type === 'float[]') w.bytes(littleBytes(c.values.subarray(a, b)));
        else for (let k = a; k < b; k++) w.i64(c.values[k]! !== c.values[k]! ? NULL_LONG : BigInt(Math.round(c.values[k]!)));
      }
      return;
  }
}

/** The q table of a result. */
export function writeTable(w: QWriter, r: QueryResult): void {
  const t = r.table;
  w.u8(98);
  w.u8(0);
  w.u8(99);
  w.vector(11, t.names.length);
  for (const name of t.names) w.symText(name);
  w.vector(0, t.names.length);
  for (const c of t.columns) writeColumn(w, c, t.length, r.outputTZ);
}

/** The header as a q dictionary: rc, ac (longs), ai (string), api (symbol), corr (string), times (timestamps), rows. */
function writeHeader(w: QWriter, h: Header, rcvNs: bigint, window: { start: bigint; end: bigint } | undefined, zone: string): void {
  const keys = ['rc', 'ac', 'ai', 'api', 'corr', 'rcvTS', ...(h.startTS !== undefined && window ? ['startTS'] : []), ...(h.endTS !== undefined && window ? ['endTS'] : []), 'rows'];
  w.u8(99);
  w.vector(11, keys.length);
  for (const k of keys) w.symText(k);
  w.vector(0, keys.length);
  const local = wallClock(zone);
  for (const k of keys) {
    switch (k) {
      case 'rc':
        w.long(h.rc);
        break;
      case 'ac':
        w.long(h.ac);
        break;
      case 'ai':
        w.chars(h.ai);
        break;
      case 'api':
        w.symbol(h.api);
        break;
      case 'corr':
        w.chars(h.corr);
        break;
      case 'rcvTS':
        w.timestamp(rcvNs);
        break;
      case 'startTS':
        w.timestamp(local(window!.start));
        break;
      case 'endTS':
        w.timestamp(local(window!.end));
        break;
      default:
        w.long(h.rows ?? 0);
    }
  }
}

/** Opens the reply's frame; returns the writer positioned for `(header; payload)`'s two items. */
function begin(reply: QReply): QWriter {
  const w = QWriter.forMessage();
  if (reply.kind === 'async') {
    w.vector(0, 2);
    w.symbol(reply.callback ?? '');
  }
  w.vector(0, 2);
  return w;
}

/** A successful reply. */
export function qResultMessage(r: QueryResult, header: Header, rcvNs: bigint, reply: QReply): Uint8Array {
  const w = begin(reply);
  writeHeader(w, header, rcvNs, r.window, r.outputTZ);
  if (reply.wrapInList) w.vector(0, 1);
  writeTable(w, r);
  return w.message(reply.kind === 'async' ? MSG_ASYNC : MSG_RESPONSE);
}

/**
 * A failed call's reply: to a sync message a q error whose text starts with the ac
 * (`"15 startTS: ..."`); to an async one with a callback `(callback; (header; ()))`.
 */
export function qErrorMessage(err: TickscopeError, req: RequestInfo, reply: QReply): Uint8Array {
  if (reply.kind === 'response') {
    const w = QWriter.forMessage();
    w.error(`${err.ac} ${err.message}`);
    return w.message(MSG_RESPONSE);
  }
  const w = begin(reply);
  writeHeader(w, errorEnvelope(req, err).header, req.rcvNs, undefined, 'UTC');
  w.vector(0, 0);
  return w.message(MSG_ASYNC);
}
