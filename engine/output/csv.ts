/**
 * CSV fields (RFC 4180). The export itself (a header row of column names, then every row rendered as
 * the grid and the JSON payload render it: timestamps with nine fractional digits in outputTZ, there
 * followed by the instant's UTC offset unless outputTZ is UTC (SPEC 8), null empty) is
 * engine/output/text.ts.
 */

const NEEDS_QUOTES = /[",\r\n]/;

/** A field quoted when it holds a comma, quote or line break (quotes doubled). */
export function csvField(s: string): string {
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
