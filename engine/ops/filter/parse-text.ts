/**
 * The string form of filter (SPEC 4, decided): clauses `column op value` separated by `;` (all must
 * hold); ops `=`, `<>` (also `!=`), `<`, `>`, `<=`, `>=`, `~` (wildcard match, as like). `|` separates
 * alternative values of a clause (`instrumentID=AAPL|MSFT`) or whole clauses (`price<10|price>200`).
 * `null` as a value tests for null. Whitespace around tokens is ignored; quoted values may hold any
 * character.
 */
import { argError } from '../../core/errors.js';
import { allOf, anyOf, type FilterNode } from './tree.js';

const EXPECTED = 'clauses "column op value" joined by ";" (ops = <> != < > <= >= ~; "|" for alternatives; null tests for null), e.g. price<100;instrumentID=AAPL|MSFT';
const OPS = ['<=', '>=', '<>', '!=', '=', '<', '>', '~'] as const;
const CLAUSE_START = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|<>|!=|=|<|>|~)/;

/** Splits on a separator outside double quotes. */
function splitOutsideQuotes(text: string, sep: string, arg: string, whole: string): string[] {
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
  if (quoted) throw argError('badFilter', arg, whole, 'has an unclosed quote', EXPECTED);
  parts.push(cur);
  return parts;
}

/** A value token: quoted text (escapes \" and \\), `null`, or the bare trimmed text. */
function valueOf(raw: string, arg: string, whole: string): { value: string; isNull: boolean } {
  const t = raw.trim();
  if (t === '') throw argError('badFilter', arg, whole, 'has a clause without a value', EXPECTED);
  if (t === 'null') return { value: '', isNull: true };
  if (t.startsWith('"')) {
    if (!t.endsWith('"') || t.length < 2) throw argError('badFilter', arg, whole, `has a badly quoted value ${t}`, EXPECTED);
    return { value: t.slice(1, -1).replace(/\\(["\\])/g, '$1'), isNull: false };
  }
  return { value: t, isNull: false };
}

function clause(column: string, op: string, raw: string, arg: string, whole: string): FilterNode {
  const { value, isNull } = valueOf(raw, arg, whole);
  const source = `${column}${op}${raw.trim()}`;
  if (isNull) {
    if (op === '=') return { kind: 'clause', fn: 'isnull', column, value: null, source };
    if (op === '<>' || op === '!=') return { kind: 'clause', fn: 'notnull', column, value: null, source };
    throw argError('badFilter', arg, whole, `compares ${column} with null using ${op}`, 'null with = or <> only (price=null, price<>null)');
  }
  const fn = op === '!=' ? '<>' : op === '~' ? 'like' : op;
  return { kind: 'clause', fn, column, value, source };
}

/** Parses the string form into a filter tree. */
export function parseFilterText(text: string, arg = 'filter'): FilterNode {
  const groups: FilterNode[] = [];
  for (const part of splitOutsideQuotes(text, ';', arg, text)) {
    if (part.trim() === '') continue;
    const alternatives: FilterNode[] = [];
    let last: { column: string; op: string } | undefined;
    for (const piece of splitOutsideQuotes(part, '|', arg, text)) {
      const m = CLAUSE_START.exec(piece);
      if (m && !piece.trim().startsWith('"')) {
        last = { column: m[1]!, op: m[2]! };
        alternatives.push(clause(last.column, last.op, piece.slice(m[0].length), arg, text));
      } else if (last) {
        // A piece with no operator is another value for the clause before it.
        alternatives.push(clause(last.column, last.op, piece, arg, text));
      } else {
        throw argError('badFilter', arg, text, `has ${JSON.stringify(piece.trim())}, which is not a clause`, EXPECTED);
      }
    }
    groups.push(anyOf(alternatives));
  }
  if (groups.length === 0) throw argError('badFilter', arg, text, 'has no clause', EXPECTED);
  return allOf(groups);
}

export { OPS as TEXT_FILTER_OPS };
