/**
 * Rows as tab-separated text for the clipboard: a header line of column names, then each row's cells
 * exactly as the CSV export writes them (the backend's page text), in the result's column order.
 * Spreadsheets paste it as columns.
 */

const NEEDS_QUOTES = /[\t\r\n"]/;

/** A field quoted when it holds a tab, line break or quote (quotes doubled), as spreadsheets read TSV. */
export function tsvField(s: string): string {
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The TSV text of rows under a header line, each line ending in a newline. */
export function tsvText(names: readonly string[], rows: Iterable<readonly string[]>): string {
  let out = `${names.map(tsvField).join('\t')}\n`;
  for (const row of rows) out += `${row.map(tsvField).join('\t')}\n`;
  return out;
}
