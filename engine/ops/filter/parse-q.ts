/**
 * q parse-tree text, as the reference service's own clients send filters (SPEC 4):
 * `enlist (=;`srcSys;enlist `X)`, `((<;`price;100);(in;`instrumentID;`A`B))`. Also
 * `(or;c1;c2)` / `(|;c1;c2)`, `(and;..)` / `(&;..)`, `(not;c)` and `(null;`col)`.
 *
 * Values: numbers (`100`, `1.5`, `100j`, `1e3`), symbols (`` `A ``, vectors `` `A`B ``), strings
 * (`"Tech*"`), q temporal literals (`2024.03.06D09:30:00.5`, `2024.03.06`, `09:30`), number vectors
 * (`1 2 3`), `enlist x` and parenthesised lists.
 */
import { argError } from '../../core/errors.js';
import { allOf, anyOf, FILTER_FUNCTIONS, type FilterNode } from './tree.js';

const EXPECTED = 'q parse-tree text such as ((<;`price;100);(in;`instrumentID;`A`B)) or enlist (=;`srcSys;enlist `X)';

/** A parsed q value: an operator/name token, a symbol, a string, a number, temporal text or a list. */
type QValue =
  | { readonly t: 'name'; readonly v: string }
  | { readonly t: 'sym'; readonly v: string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'num'; readonly v: number }
  | { readonly t: 'lit'; readonly v: string }
  | { readonly t: 'list'; readonly v: readonly QValue[] };

type Token = { kind: '(' | ')' | ';' } | { kind: 'value'; value: QValue } | { kind: 'name'; name: string };

const TEMPORAL = /^(?:\d{4}\.\d{2}\.\d{2}(?:[DT]\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?|\d+D\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?|\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)/;
const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?[jihfe]?/;
const SYMBOLS = /^(?:`[A-Za-z0-9_.:/]*)+/;
const NAME = /^(?:<=|>=|<>|[=<>~&|!]|[A-Za-z_][A-Za-z0-9_.]*)/;

function tokenize(text: string, fail: (why: string) => never): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '(' || ch === ')' || ch === ';') {
      out.push({ kind: ch });
      i++;
    } else if (ch === '"') {
      let j = i + 1;
      let s = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        s += text[j];
        j++;
      }
      if (j >= text.length) fail('has an unclosed string');
      out.push({ kind: 'value', value: { t: 'str', v: s } });
      i = j + 1;
    } else if (ch === '`') {
      const m = SYMBOLS.exec(rest)![0];
      const names = m.split('`').slice(1);
      const value: QValue =
        names.length === 1 ? { t: 'sym', v: names[0]! } : { t: 'list', v: names.map((v) => ({ t: 'sym', v }) as QValue) };
      out.push({ kind: 'value', value });
      i += m.length;
    } else if (TEMPORAL.test(rest)) {
      const m = TEMPORAL.exec(rest)![0];
      out.push({ kind: 'value', value: { t: 'lit', v: m } });
      i += m.length;
    } else if (NUMBER.test(rest) && !(ch === '-' && out.length > 0 && out[out.length - 1]!.kind === 'value')) {
      const m = NUMBER.exec(rest)![0];
      out.push({ kind: 'value', value: { t: 'num', v: Number(m.replace(/[jihfe]$/, '')) } });
      i += m.length;
    } else if (NAME.test(rest)) {
      const m = NAME.exec(rest)![0];
      out.push({ kind: 'name', name: m });
      i += m.length;
    } else {
      fail(`has ${JSON.stringify(ch)} at position ${i + 1}, which q text cannot hold here`);
    }
  }
  return out;
}

/** Recursive-descent parser over the tokens: juxtaposed numbers form vectors, `enlist x` a list. */
function parse(tokens: Token[], fail: (why: string) => never): QValue {
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];

  const expr = (): QValue => {
    const t = peek();
    if (!t) return fail('ends early');
    if (t.kind === 'name' && t.name === 'enlist' && tokens[pos + 1] && tokens[pos + 1]!.kind !== ';' && tokens[pos + 1]!.kind !== ')') {
      pos++;
      return { t: 'list', v: [expr()] };
    }
    const first = term();
    // Juxtaposed numbers are a vector: `1 2 3`.
    if (first.t === 'num' && peek()?.kind === 'value' && (peek() as { value: QValue }).value.t === 'num') {
      const items: QValue[] = [first];
      while (peek()?.kind === 'value' && (peek() as { value: QValue }).value.t === 'num') items.push(term());
      return { t: 'list', v: items };
    }
    return first;
  };

  const term = (): QValue => {
    const t = tokens[pos++];
    if (!t) return fail('ends early');
    if (t.kind === 'value') return t.value;
    if (t.kind === 'name') return { t: 'name', v: t.name };
    if (t.kind !== '(') return fail(`has an unexpected ${JSON.stringify(t.kind)}`);
    const items: QValue[] = [];
    if (peek()?.kind === ')') {
      pos++;
      return { t: 'list', v: [] };
    }
    for (;;) {
      items.push(expr());
      const sep = tokens[pos++];
      if (!sep) return fail('has an unclosed "("');
      if (sep.kind === ')') break;
      if (sep.kind !== ';') return fail('needs ";" between list items');
    }
    return items.length === 1 ? items[0]! : { t: 'list', v: items };
  };

  const value = expr();
  if (pos < tokens.length) fail('has text after the end of the expression');
  return value;
}

/** A q value as the JSON-ish value the clause casting understands. */
function plain(v: QValue): unknown {
  switch (v.t) {
    case 'list':
      return v.v.map(plain);
    case 'num':
      return v.v;
    default:
      return v.v;
  }
}

const isOperator = (v: QValue | undefined): v is { t: 'name'; v: string } => v?.t === 'name';

/** A q clause (or and/or/not node) as a filter tree. */
function toNode(v: QValue, fail: (why: string) => never, text: string): FilterNode {
  if (v.t !== 'list' || v.v.length === 0 || !isOperator(v.v[0])) {
    return fail('has an item that is not a clause (op;`column;value)');
  }
  const [head, ...rest] = v.v;
  const op = (head as { v: string }).v;
  if (op === 'and' || op === '&') return allOf(rest.map((c) => toNode(c, fail, text)));
  if (op === 'or' || op === '|') return anyOf(rest.map((c) => toNode(c, fail, text)));
  if (op === 'not') {
    const inner = rest[0];
    if (rest.length !== 1 || !inner) return fail('has not with other than one clause');
    const node = toNode(inner, fail, text);
    if (node.kind === 'clause' && node.fn === 'isnull') return { ...node, fn: 'notnull' };
    return { kind: 'not', child: node };
  }
  const col = rest[0];
  if (!col || col.t !== 'sym') return fail(`has ${op} without a column symbol after it`);
  if (op === 'null') {
    if (rest.length !== 1) return fail('has null with more than a column');
    return { kind: 'clause', fn: 'isnull', column: col.v, value: null, source: `(null;\`${col.v})` };
  }
  if (!(FILTER_FUNCTIONS as readonly string[]).includes(op)) {
    return fail(`has function ${JSON.stringify(op)}; expected one of ${FILTER_FUNCTIONS.join(', ')}, and, or, not, null`);
  }
  if (rest.length !== 2) return fail(`has (${op};\`${col.v};...) with ${rest.length - 1} values; expected one`);
  let value = plain(rest[1]!);
  // In a q parse tree a literal symbol is enlisted (a bare one would name a column): `enlist `X` is X.
  if (op !== 'in' && op !== 'within' && Array.isArray(value) && value.length === 1) value = value[0];
  return { kind: 'clause', fn: op, column: col.v, value, source: `(${op};\`${col.v};${JSON.stringify(value)})` };
}

/** True when a filter string is q parse-tree text rather than the string form. */
export function isQText(text: string): boolean {
  const t = text.trimStart();
  return t.startsWith('(') || t.startsWith('enlist');
}

/** Parses q parse-tree text into a filter tree. */
export function parseFilterQ(text: string, arg = 'filter'): FilterNode {
  const fail = (why: string): never => {
    throw argError('badFilter', arg, text, why, EXPECTED);
  };
  const value = parse(tokenize(text, fail), fail);
  if (value.t !== 'list' || value.v.length === 0) return fail('is not a list of clauses');
  // One clause `(op;`col;value)` or a list of clauses `((..);(..))`.
  const clauses = isOperator(value.v[0]) ? [value] : value.v;
  return allOf(clauses.map((c) => toNode(c, fail, text)));
}

/**
 * q dictionary text of per-table filters, as refFilter's q form:
 * `(enlist `Instrument)!enlist ((like;`sector;"Tech*"))`, or `` `A`B!((..);(..)) ``.
 * Returns each table name with its filter tree.
 */
export function parseQDict(text: string, arg: string): Array<[string, FilterNode]> {
  const expected = 'a q dictionary such as (enlist `Instrument)!enlist ((like;`sector;"Tech*"))';
  const fail = (why: string): never => {
    throw argError('badFilter', arg, text, why, expected);
  };
  const tokens = tokenize(text, fail);
  let depth = 0;
  let bang = -1;
  tokens.forEach((t, i) => {
    if (t.kind === '(') depth++;
    else if (t.kind === ')') depth--;
    else if (t.kind === 'name' && t.name === '!' && depth === 0 && bang < 0) bang = i;
  });
  if (bang < 0) return fail('is not a dictionary (no top-level "!")');
  const keys = parse(tokens.slice(0, bang), fail);
  const values = parse(tokens.slice(bang + 1), fail);
  const names = keys.t === 'sym' ? [keys.v] : keys.t === 'list' && keys.v.every((k) => k.t === 'sym') ? keys.v.map((k) => (k as { v: string }).v) : fail('has keys that are not table symbols');
  // One key: the values side is `enlist <filters>`; several: one item per key.
  const items = values.t === 'list' ? (names.length === 1 && !isOperator(values.v[0]) && values.v.length === 1 ? values.v : names.length === 1 ? [values] : values.v) : fail('has values that are not filter lists');
  if (items.length !== names.length) fail(`has ${names.length} keys but ${items.length} filter lists`);
  return names.map((name, i) => {
    const item = items[i]!;
    const clauses = item.t === 'list' && isOperator(item.v[0]) ? [item] : item.t === 'list' ? item.v : fail('has a filter that is not a list of clauses');
    return [name, allOf(clauses.map((c) => toNode(c, fail, text)))];
  });
}
