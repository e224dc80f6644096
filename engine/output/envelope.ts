/**
 * The response envelope (SPEC 7): {"header": {rc, ac, ai, api, corr, rcvTS, startTS, endTS, rows},
 * "payload": rows}. Streamed as bytes by engine/output/text.ts, so a million-row payload never
 * exists as objects or one string.
 */
import { randomUUID } from 'node:crypto';
import type { Header } from '../contract.js';
import type { TickscopeError } from '../core/errors.js';
import { NEG_INF_TS, POS_INF_TS } from '../core/time.js';
import type { QueryResult } from '../core/result.js';
import { textChunks } from './text.js';
import { textCells } from './text-cells.js';

export type { Header };

/** Request bookkeeping captured when a request arrives. */
export interface RequestInfo {
  readonly api: string;
  readonly corr: string;
  readonly rcvNs: bigint;
}

/** Starts a request's bookkeeping: the operation name as called, a correlation id, the arrival time. */
export function requestInfo(api: string, corr?: string): RequestInfo {
  return { api, corr: corr ?? randomUUID(), rcvNs: BigInt(Date.now()) * 1_000_000n };
}

function instantText(ns: bigint, zone: string): string {
  const c = textCells({ type: 'timestamp', data: BigInt64Array.of(ns) }, zone);
  return c(0);
}

/** The header of a successful response. */
export function okHeader(req: RequestInfo, result: QueryResult): Header {
  const h: Header = {
    rc: 0,
    ac: 0,
    ai: '',
    api: req.api,
    corr: req.corr,
    rcvTS: instantText(req.rcvNs, 'UTC'),
    rows: result.table.length,
  };
  if (result.window && result.window.start > NEG_INF_TS) h.startTS = instantText(result.window.start, result.outputTZ);
  if (result.window && result.window.end < POS_INF_TS) h.endTS = instantText(result.window.end, result.outputTZ);
  return h;
}

/** The header of a successful response that is no query result (getMeta). */
export function plainHeader(req: RequestInfo, rows: number): Header {
  return { rc: 0, ac: 0, ai: '', api: req.api, corr: req.corr, rcvTS: instantText(req.rcvNs, 'UTC'), rows };
}

/** The whole envelope of an error response (payload null). */
export function errorEnvelope(req: RequestInfo, err: TickscopeError): { header: Header; payload: null } {
  return {
    header: {
      rc: err.rc,
      ac: err.ac,
      ai: err.message,
      api: req.api,
      corr: req.corr,
      rcvTS: instantText(req.rcvNs, 'UTC'),
      rows: 0,
    },
    payload: null,
  };
}

/** The payload rows of a result as one JSON text (tests and small answers; streams use engine/output/text.ts). */
export function payloadJson(result: QueryResult): string {
  const dec = new TextDecoder();
  let text = '';
  for (const chunk of textChunks('json', result.table, result.outputTZ)) text += dec.decode(chunk, { stream: true });
  return text + dec.decode();
}

/** A whole successful envelope as one JSON text. */
export function envelopeJson(req: RequestInfo, result: QueryResult): string {
  return `{"header":${JSON.stringify(okHeader(req, result))},"payload":${payloadJson(result)}}`;
}
