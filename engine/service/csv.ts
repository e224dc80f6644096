/**
 * CSV export (RFC 4180): a header row of column names, then every row rendered exactly as the grid
 * and the JSON payload render it (timestamps with nine fractional digits in outputTZ; null empty).
 */
import { textCells } from '../gateway/render.js';
import type { QueryResult } from '../ops/result.js';

const NEEDS_QUOTES = /[",\r\n]/;

/** A field quoted when it holds a comma, quote or line break (quotes doubled). */
export function csvField(s: string): string {
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A result as CSV text, in chunks of about `chunkBytes` (lazily: rows render as they are read). */
export function* csvChunks(r: QueryResult, chunkBytes = 1 << 16): Generator<string> {
  const { table, outputTZ } = r;
  const cells = table.readers((c) => textCells(c, outputTZ));
  let buf = `${table.names.map(csvField).join(',')}\n`;
  for (let i = 0; i < table.length; i++) {
    let line = '';
    for (let j = 0; j < cells.length; j++) line += (j ? ',' : '') + csvField(cells[j]!(i));
    buf += `${line}\n`;
    if (buf.length >= chunkBytes) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}
