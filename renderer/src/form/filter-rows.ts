/**
 * The filter builder's rows and the filter's request forms (INTERFACE 4.1.1, SPEC 4): a row is
 * [function, column, value, second value]; the body is the list form [[fn, col, value], ...] with
 * values as strings (REST style), `in` a list and `within` a pair. Rows also convert to and from the
 * string form (`price<100;volume>=10`) when the text has a builder equivalent.
 */
import { ARG } from '../../../engine/contract';

/** The list form's functions (INTERFACE 4.1.1). */
export const FILTER_FNS = ['in', 'within', '<', '>', '<=', '>=', '=', '<>', 'like'] as const;
export type FilterFn = (typeof FILTER_FNS)[number];

/** [fn, column, value, second value (within's upper bound)]. */
export type FilterRow = readonly [string, string, string, string];

/** A new, blank row. */
export const blankFilterRow = (column = ''): FilterRow => ['=', column, '', ''];

/** Splits `in`'s comma list. */
export const inValues = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

const isBlank = (r: readonly string[]): boolean => r.slice(1).every((c) => c.trim() === '');

/** The triple a row sends, or an error text; `where` names the row in messages. */
export function rowTriple(r: readonly string[], where: string): unknown[] | string {
  const [fn = '=', col = '', v1 = '', v2 = ''] = r;
  if (!(FILTER_FNS as readonly string[]).includes(fn)) return `${where} has function ${JSON.stringify(fn)}; expected one of ${FILTER_FNS.join(' ')}`;
  if (col.trim() === '') return `${where} has no column`;
  if (fn === 'in') return [fn, col.trim(), inValues(v1)];
  if (fn === 'within') {
    if (v1.trim() === '' || v2.trim() === '') return `${where} needs both bounds for within`;
    return [fn, col.trim(), [v1.trim(), v2.trim()]];
  }
  return [fn, col.trim(), fn === 'like' ? v1 : v1.trim()];
}

/** The list-form body of builder rows (blank rows skipped), undefined when none; throws naming a bad row. */
export function filterRowsBody(rows: ReadonlyArray<readonly string[]>, arg: string = ARG.filter.name): unknown[][] | undefined {
  const out: unknown[][] = [];
  rows.forEach((r, i) => {
    if (isBlank(r)) return;
    const t = rowTriple(r, `row ${i + 1}`);
    if (typeof t === 'string') throw new Error(`${arg}: ${t}`);
    out.push(t);
  });
  return out.length ? out : undefined;
}

const scalar = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null);

/** A builder row from one list-form triple, or null when the builder cannot show it. */
export function tripleRow(t: unknown): FilterRow | null {
  if (!Array.isArray(t) || t.length !== 3 || typeof t[0] !== 'string' || typeof t[1] !== 'string') return null;
  const [fn, col, v] = t as [string, string, unknown];
  if (!(FILTER_FNS as readonly string[]).includes(fn)) return null;
  if (fn === 'in') {
    const items = (Array.isArray(v) ? v : [v]).map(scalar);
    if (items.some((s) => s === null || s.includes(','))) return null;
    return [fn, col, items.join(', '), ''];
  }
  if (fn === 'within') {
    if (!Array.isArray(v) || v.length !== 2) return null;
    const [lo, hi] = v.map(scalar);
    return lo == null || hi == null ? null : [fn, col, lo, hi];
  }
  const s = scalar(v);
  return s === null ? null : [fn, col, s, ''];
}

/** Builder rows of a list-form body (one triple or a list of them), or null when not representable. */
export function filterBodyRows(body: unknown): FilterRow[] | null {
  if (!Array.isArray(body)) return null;
  if (body.length === 0) return [];
  const triples = typeof body[0] === 'string' ? [body] : body;
  const rows = triples.map(tripleRow);
  return rows.every((r) => r !== null) ? (rows as FilterRow[]) : null;
}

const BARE = /^[A-Za-z0-9_.:@*?\-+[\]^/#$%&!']+$/;
const quote = (v: string): string => (BARE.test(v) && v !== 'null' ? v : `"${v.replace(/(["\\])/g, '\\$1')}"`);

/** The string form of builder rows (`price<100;conditions=@|F`), blank rows skipped. */
export function filterRowsText(rows: ReadonlyArray<readonly string[]>): string {
  const clauses: string[] = [];
  for (const r of rows) {
    if (isBlank(r)) continue;
    const [fn = '=', col = '', v1 = '', v2 = ''] = r;
    const c = col.trim();
    if (fn === 'in') clauses.push(`${c}=${inValues(v1).map(quote).join('|')}`);
    else if (fn === 'within') clauses.push(`${c}>=${quote(v1.trim())}`, `${c}<=${quote(v2.trim())}`);
    else if (fn === 'like') clauses.push(`${c}~${quote(v1)}`);
    else clauses.push(`${c}${fn}${quote(v1.trim())}`);
  }
  return clauses.join(';');
}

/** Splits on a separator outside double quotes (backslash escapes inside quotes); null on an open quote. */
function splitOutside(text: string, sep: string): string[] | null {
  const parts: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\\' && quoted && i + 1 < text.length) {
      cur += ch + text[++i]!;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === sep && !quoted) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (quoted) return null;
  parts.push(cur);
  return parts;
}

const CLAUSE = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|<>|!=|=|<|>|~)([\s\S]*)$/;

function unquote(raw: string): string | null {
  const t = raw.trim();
  if (t === '' || t === 'null') return null;
  if (!t.startsWith('"')) return t;
  if (!t.endsWith('"') || t.length < 2) return null;
  return t.slice(1, -1).replace(/\\(["\\])/g, '$1');
}

function textClauseRow(part: string): FilterRow | null {
  const pieces = splitOutside(part, '|');
  const m = pieces && CLAUSE.exec(pieces[0]!);
  if (!pieces || !m) return null;
  const [, col, op] = m as unknown as [string, string, string];
  const values: string[] = [];
  for (const [i, piece] of pieces.entries()) {
    // Another `column op` after `|` is an alternative clause: the list form has no "or".
    if (i > 0 && CLAUSE.test(piece) && !piece.trim().startsWith('"')) return null;
    const v = unquote(i === 0 ? m[3]! : piece);
    if (v === null) return null;
    values.push(v);
  }
  if (values.length > 1) return op === '=' && values.every((v) => !v.includes(',')) ? ['in', col, values.join(', '), ''] : null;
  const fn = op === '!=' ? '<>' : op === '~' ? 'like' : op;
  return [fn, col, values[0]!, ''];
}

/**
 * Builder rows of a filter text: the string form, or list-form JSON. Null when the text has no builder
 * equivalent (q parse trees, "or" between clauses, null tests, a malformed text).
 */
export function filterTextRows(text: string): FilterRow[] | null {
  const t = text.trim();
  if (t === '') return [];
  if (t.startsWith('[')) {
    try {
      return filterBodyRows(JSON.parse(t));
    } catch {
      return null;
    }
  }
  if (t.startsWith('(') || t.startsWith('enlist')) return null;
  const parts = splitOutside(t, ';');
  if (!parts) return null;
  const rows: FilterRow[] = [];
  for (const part of parts) {
    if (part.trim() === '') continue;
    const row = textClauseRow(part);
    if (!row) return null;
    const prev = rows[rows.length - 1];
    // `c>=a;c<=b` is how the string form writes within.
    if (prev && prev[0] === '>=' && row[0] === '<=' && prev[1] === row[1]) rows[rows.length - 1] = ['within', row[1], prev[2], row[2]];
    else rows.push(row);
  }
  return rows;
}

const NUMERIC = new Set(['float', 'long', 'int']);
const isNumber = (s: string): boolean => /^\s*-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(s) || s.trim() === '0n' || s.trim() === '0N';

/** A likely mistake in a row given its column's type (the engine answers the real error), or null. */
export function rowWarning(r: readonly string[], type: string | undefined): string | null {
  const [fn = '=', col = '', v1 = '', v2 = ''] = r;
  if (col.trim() === '') return isBlank(r) ? null : 'choose a column';
  if (type === undefined) return null;
  if (fn === 'like' && type !== 'symbol' && type !== 'string') return `like needs a symbol or string column; ${col} is ${type}`;
  if (NUMERIC.has(type)) {
    const values = fn === 'in' ? inValues(v1) : fn === 'within' ? [v1, v2] : [v1];
    const bad = values.find((v) => v.trim() !== '' && !isNumber(v));
    if (bad !== undefined) return `${col} is ${type}: ${JSON.stringify(bad.trim())} is not a number`;
  }
  if (fn === 'within' && (v1.trim() === '' || v2.trim() === '')) return 'within needs both bounds';
  return null;
}
