/**
 * The refFilter builder's rows ([reference table, function, column, value, second value]) and the
 * object the request sends (SPEC 4): {"Instrument": [["like","sector","Tech*"]]}, triples grouped by
 * table in the order the tables first appear.
 */
import { ARG } from '../../../engine/contract';
import { rowTriple, tripleRow } from './filter-rows';

export type RefFilterRow = readonly [string, string, string, string, string];

/** A new row for a reference table. */
export const blankRefRow = (table: string): RefFilterRow => [table, 'like', '', '', ''];

/** The refFilter object of rows (blank rows skipped), undefined when none; throws naming a bad row. */
export function refRowsBody(rows: ReadonlyArray<readonly string[]>, arg: string = ARG.refFilter.name): Record<string, unknown[][]> | undefined {
  const out: Record<string, unknown[][]> = {};
  let any = false;
  rows.forEach((r, i) => {
    const [table = '', ...rest] = r;
    if (rest.slice(1).every((c) => c.trim() === '')) return;
    if (table.trim() === '') throw new Error(`${arg}: row ${i + 1} has no reference table`);
    const t = rowTriple(rest, `row ${i + 1}`);
    if (typeof t === 'string') throw new Error(`${arg}: ${t}`);
    (out[table.trim()] ??= []).push(t);
    any = true;
  });
  return any ? out : undefined;
}

/** Builder rows of a refFilter object, or null when the builder cannot show it. */
export function refBodyRows(body: unknown): RefFilterRow[] | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const rows: RefFilterRow[] = [];
  for (const [table, triples] of Object.entries(body as Record<string, unknown>)) {
    if (!Array.isArray(triples)) return null;
    const list = typeof triples[0] === 'string' ? [triples] : triples;
    for (const t of list) {
      const r = tripleRow(t);
      if (!r) return null;
      rows.push([table, ...r]);
    }
  }
  return rows;
}

/** Builder rows of a refFilter text (JSON object); null for the q dictionary text or bad JSON. */
export function refTextRows(text: string): RefFilterRow[] | null {
  const t = text.trim();
  if (t === '') return [];
  if (!t.startsWith('{')) return null;
  try {
    return refBodyRows(JSON.parse(t));
  } catch {
    return null;
  }
}
