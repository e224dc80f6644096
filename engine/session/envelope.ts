/**
 * A result rendered as the gateway's response (SPEC 7) where it ran: the JSON envelope streamed as
 * text (the header first), an Arrow IPC stream (the header first as JSON, then in the schema's
 * metadata, a record batch at a time), or a whole q IPC message.
 */
import type { Header } from '../contract.js';
import type { QueryResult } from '../core/result.js';
import { operationByName } from '../operations/index.js';
import { ARROW_BATCH_ROWS, writeArrowStream } from '../output/arrow.js';
import { okHeader, type RequestInfo } from '../output/envelope.js';
import { Out, utf8 } from '../output/out.js';
import { RenderHelpers, writeText } from '../output/parallel-text.js';
import { type QReply, qResultMessage } from '../output/q-result.js';

/** How the gateway wants a result: JSON envelope text in chunks, Arrow IPC bytes, or a q IPC message. */
export interface EnvelopeRequest {
  readonly format: 'json' | 'arrow' | 'q';
  readonly req: RequestInfo;
  /** q: how the client is answered (the response to its sync message, or an async callback) */
  readonly reply?: QReply;
}

/**
 * The answer of an envelope: JSON and Arrow were streamed (Arrow's first chunk is the header as
 * JSON, then the IPC stream), a q IPC message comes whole.
 */
export interface EnvelopeAnswer {
  readonly header: Header;
  readonly q?: Uint8Array;
}

/** Bytes per streamed chunk: small enough that a slow reader holds back the writer early. */
export const STREAM_CHUNK_BYTES = 1 << 16;

/**
 * Writes `result` of `operation` as the gateway's response: JSON or Arrow through `write` (each chunk
 * a buffer of its own, the consumer's to keep), rendered on up to `renderThreads` threads; a q
 * message in the answer.
 */
export function writeEnvelope(operation: string, result: QueryResult, request: EnvelopeRequest, write: (bytes: Uint8Array) => void, renderThreads?: number): EnvelopeAnswer {
  const { format, req } = request;
  const header = okHeader(req, result);
  if (format === 'q') {
    const q = qResultMessage(result, header, req.rcvNs, { ...request.reply!, wrapInList: operationByName(operation).qReply === 'tableInList' });
    return { header, q };
  }
  if (format === 'arrow') {
    // the header first (the gateway sets its response headers from it), then the IPC stream a
    // record batch at a time, its pieces gathered into chunks of their own (each moves on)
    write(utf8(JSON.stringify(header)));
    const o = new Out(write, STREAM_CHUNK_BYTES);
    // helpers started once the header is out (a cancel there leaves none behind); closed by the writer
    const helpers = RenderHelpers.forRows(result.table.length, renderThreads);
    writeArrowStream(
      result.table,
      { exact: true, zone: result.outputTZ, metadata: new Map([['header', JSON.stringify(header)]]) },
      (piece) => {
        o.bytes(piece);
        if (o.full) o.flush();
      },
      ARROW_BATCH_ROWS,
      helpers,
    );
    o.flush();
    return { header };
  }
  const framing = { prefix: `{"header":${JSON.stringify(header)},"payload":`, suffix: '}', chunkBytes: STREAM_CHUNK_BYTES };
  writeText('json', result.table, result.outputTZ, framing, write, RenderHelpers.forRows(result.table.length, renderThreads));
  return { header };
}
