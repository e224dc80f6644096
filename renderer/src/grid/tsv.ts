/**
 * Rows as tab-separated text for the clipboard: a header line of column names, then each row's cells
 * exactly as the CSV export writes them (the backend's page text in its `csv` form: timestamps outside
 * UTC with their offset, SPEC 8), in the result's column order. Spreadsheets paste it as columns.
 */
import type { PageResponse, ResultColumn } from '../../../engine/contract';

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

/** The most rows one page request may ask for (the backend's limit). */
const READ_LIMIT = 10_000;

/** What a copy needs of the result shown. */
export interface CopiedResult {
  readonly columns: readonly ResultColumn[];
  readonly outputTZ: string;
}

/** Whether a result's page text differs from its CSV text: a timestamp column shown outside UTC. */
export const needsCsvPages = (r: CopiedResult): boolean => !['', 'UTC', 'Etc/UTC'].includes(r.outputTZ) && r.columns.some((c) => c.type === 'timestamp');

/**
 * Rows lo..hi (inclusive) as TSV under a header line, their cells as the CSV writes them: `held`
 * (the grid's pages, read already) where those are the same text, else read again from the backend in
 * the page's `csv` form, READ_LIMIT rows a request, so the timestamps keep their offsets.
 */
export async function copyTsv(
  result: CopiedResult,
  lo: number,
  hi: number,
  held: (lo: number, hi: number) => Promise<ReadonlyArray<readonly string[]>>,
  readCsv: (offset: number, limit: number) => Promise<PageResponse>,
): Promise<{ readonly text: string; readonly rows: number }> {
  let rows: ReadonlyArray<readonly string[]>;
  if (!needsCsvPages(result)) rows = await held(lo, hi);
  else {
    const out: Array<readonly string[]> = [];
    for (let row = lo; row <= hi; ) {
      const page = await readCsv(row, Math.min(READ_LIMIT, hi - row + 1));
      if (page.rows.length === 0) break;
      out.push(...page.rows);
      row += page.rows.length;
    }
    rows = out;
  }
  return { text: tsvText(result.columns.map((c) => c.name), rows), rows: rows.length };
}
