/**
 * A raw HTTP/1.1 client for the fuzzer: it writes exactly the request it is given (duplicate headers,
 * values node:http would refuse to send, any body bytes) on a fresh connection and reads the whole
 * answer, so the gateway's own parsing is what is exercised and a hang is seen as one.
 */
import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface RawRequest {
  readonly method: string;
  /** Path and query as sent on the request line. */
  readonly path: string;
  /** Sent in this order, as they are (Host, Content-Length and Connection are added unless given). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: Uint8Array;
}

export type RawResponse =
  | { readonly kind: 'answer'; readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: Buffer; readonly ms: number }
  | { readonly kind: 'hang'; readonly ms: number; readonly received: number }
  | { readonly kind: 'failed'; readonly ms: number; readonly error: string };

/** Sends one request on its own connection (Connection: close) and reads the whole answer. */
export function rawHttp(host: string, port: number, req: RawRequest, hangMs: number): Promise<RawResponse> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const socket = connect(port, host);
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (r: RawResponse): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish({ kind: 'hang', ms: performance.now() - t0, received }), hangMs);
    socket.on('error', (e) => {
      // a reset after a whole answer (the gateway closing first) is still that answer
      const parsed = received > 0 ? parseResponse(Buffer.concat(chunks)) : null;
      finish(parsed ? { kind: 'answer', ...parsed, ms: performance.now() - t0 } : { kind: 'failed', ms: performance.now() - t0, error: (e as NodeJS.ErrnoException).code ?? e.message });
    });
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      received += c.length;
    });
    socket.on('end', () => {
      const parsed = parseResponse(Buffer.concat(chunks));
      finish(parsed ? { kind: 'answer', ...parsed, ms: performance.now() - t0 } : { kind: 'failed', ms: performance.now() - t0, error: `closed after ${received} bytes without a whole answer` });
    });
    socket.once('connect', () => {
      const names = new Set(req.headers.map(([k]) => k.toLowerCase()));
      const lines = [`${req.method} ${req.path} HTTP/1.1`];
      if (!names.has('host')) lines.push(`Host: ${host}:${port}`);
      for (const [k, v] of req.headers) lines.push(`${k}: ${v}`);
      if (req.body && !names.has('content-length') && !names.has('transfer-encoding')) lines.push(`Content-Length: ${req.body.length}`);
      if (!names.has('connection')) lines.push('Connection: close');
      socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), req.body ?? Buffer.alloc(0)]));
    });
  });
}

/** Status, headers (lower-case names; repeated ones joined) and the decoded body of an HTTP/1.1 answer. */
export function parseResponse(raw: Buffer): { status: number; headers: Record<string, string>; body: Buffer } | null {
  let at = 0;
  // 1xx answers come before the final one
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) return null;
    const head = raw.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? Number.NaN);
    if (!Number.isFinite(status)) return null;
    if (status >= 100 && status < 200) {
      at = end + 4;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of head.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const k = line.slice(0, colon).trim().toLowerCase();
      const v = line.slice(colon + 1).trim();
      headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
    }
    let body = raw.subarray(end + 4);
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
    else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
    if (/gzip/i.test(headers['content-encoding'] ?? '')) {
      try {
        body = gunzipSync(body);
      } catch {
        // a truncated gzip answer (an error after the 200 went out) stays as it came
      }
    }
    return { status, headers, body: Buffer.from(body) };
  }
}

function dechunk(b: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < b.length) {
    const eol = b.indexOf('\r\n', at);
    if (eol < 0) break;
    const n = parseInt(b.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(n) || n === 0) break;
    out.push(b.subarray(eol + 2, eol + 2 + n));
    at = eol + 2 + n + 2;
  }
  return Buffer.concat(out);
}
