/**
 * The sortCols builder's rows ([direction, column]) and the flat list the request sends
 * (SPEC 4: ["desc","volume","asc","eventTimestamp"]).
 */
import { splitWords } from './values';

export type SortRow = readonly [string, string];

/** The flat direction/column list of rows (rows without a column skipped), undefined when none. */
export function sortRowsBody(rows: ReadonlyArray<readonly string[]>): string[] | undefined {
  const out: string[] = [];
  for (const [dir = 'asc', col = ''] of rows) if (col.trim() !== '') out.push(dir, col.trim());
  return out.length ? out : undefined;
}

/** Rows of a typed sortCols text: `desc volume, asc eventTimestamp`, a flat JSON list or JSON pairs. */
export function sortTextRows(text: string): SortRow[] {
  const t = text.trim();
  let words: unknown[] = splitWords(t);
  if (t.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(t);
      if (Array.isArray(parsed)) words = parsed.flat();
    } catch {
      words = splitWords(t.replace(/[[\]"]/g, ' '));
    }
  }
  const rows: SortRow[] = [];
  for (let i = 0; i < words.length; i += 2) {
    const a = String(words[i]);
    const b = words[i + 1] === undefined ? '' : String(words[i + 1]);
    rows.push(a === 'asc' || a === 'desc' ? [a, b] : ['asc', a]);
  }
  return rows;
}

/** Moves row `from` by `by` places (clamped), returning new rows. */
export function moveRow<T>(rows: readonly T[], from: number, by: number): T[] {
  const to = Math.max(0, Math.min(rows.length - 1, from + by));
  const out = [...rows];
  const [r] = out.splice(from, 1);
  if (r !== undefined) out.splice(to, 0, r);
  return out;
}
