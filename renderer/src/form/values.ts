/**
 * What the form holds per argument. Plain text stays the power user's way in (and what scripts,
 * tests and older forms set); the richer widgets keep structured values the request body is built
 * from: rows of text cells (filter, sortCols and refFilter builders) and chips plus the text still
 * being typed (multi-selects), and the agg builder's output rows.
 */
import type { TreeArg } from './agg-tree';

/** Builder rows: each row is the text of its cells, exactly as typed. */
export interface RowsValue {
  readonly kind: 'rows';
  readonly rows: ReadonlyArray<readonly string[]>;
}

/** A multi-select: chosen items in order, plus the text being typed (it counts as items too). */
export interface ListValue {
  readonly kind: 'list';
  readonly items: readonly string[];
  readonly draft: string;
}

/** The agg builder: output rows of parse trees (REST JSON) and the format they are sent in (INTERFACE 4.2.2). */
export interface AggValue {
  readonly kind: 'agg';
  readonly format: AggFormat;
  readonly rows: readonly AggRow[];
}

/** dict: {"name": tree}; list: [tree, ...] named aggregation1, ...; triplets: [[name, op, column], ...]. */
export type AggFormat = 'dict' | 'list' | 'triplets';

/** One output: its name (empty: a default) and its tree (REST JSON: strings and nested arrays). */
export interface AggRow {
  readonly name: string;
  readonly tree: TreeArg;
}

export type FormValue = string | boolean | RowsValue | ListValue | AggValue;
export type FormValues = Readonly<Record<string, FormValue>>;

/** Rows as a form value. */
export const rowsValue = (rows: ReadonlyArray<readonly string[]>): RowsValue => ({ kind: 'rows', rows });

/** Chips and draft as a form value. */
export const listValue = (items: readonly string[], draft = ''): ListValue => ({ kind: 'list', items, draft });

/** The text of a plain value ('' for structured or missing ones). */
export const textOf = (v: FormValue | undefined): string => (typeof v === 'string' ? v : '');

/** True for builder rows. */
export const isRows = (v: FormValue | undefined): v is RowsValue => typeof v === 'object' && v.kind === 'rows';

/** True for a multi-select value. */
export const isList = (v: FormValue | undefined): v is ListValue => typeof v === 'object' && v.kind === 'list';

/** True for the agg builder's value. */
export const isAgg = (v: FormValue | undefined): v is AggValue => typeof v === 'object' && v.kind === 'agg';

/** Splits a typed list the way older forms did: commas and whitespace separate names. */
export const splitWords = (text: string): string[] =>
  text
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * Splits typed or pasted names: commas, semicolons, line breaks, tabs and q backticks separate them;
 * spaces too unless `keepSpaces` (identifiers such as "AAPL US Equity" hold spaces).
 */
export function splitNames(text: string, keepSpaces: boolean): string[] {
  return text
    .split(keepSpaces ? /[,;\n\t`]+/ : /[,;\s`]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The names a symbol-list value stands for: chips then the draft's names, or the words of a text. */
export function namesOf(v: FormValue | undefined, keepSpaces = true): string[] {
  if (isList(v)) return [...v.items, ...splitNames(v.draft, keepSpaces)];
  if (typeof v === 'string') return v.trim().startsWith('[') ? jsonNames(v) : splitWords(v);
  return [];
}

function jsonNames(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.every((s) => typeof s === 'string')) return parsed as string[];
  } catch {
    // not JSON after all: read it as words
  }
  return splitWords(text.replace(/[[\]"]/g, ' '));
}

/**
 * A multi-select's value after the user typed or pasted `typed` into its input: every name followed
 * by a separator becomes a chip (duplicates dropped), the rest stays the draft.
 */
export function typeIntoList(items: readonly string[], typed: string, keepSpaces: boolean): ListValue {
  const sep = keepSpaces ? /[,;\n\t`]/ : /[,;\s`]/;
  let last = -1;
  for (let i = typed.length - 1; i >= 0; i--) {
    if (sep.test(typed[i]!)) {
      last = i;
      break;
    }
  }
  if (last < 0) return listValue(items, typed);
  return listValue(addNames(items, splitNames(typed.slice(0, last), keepSpaces)), typed.slice(last + 1).trimStart());
}

/** Items with new names appended in order, skipping ones already chosen. */
export function addNames(items: readonly string[], names: readonly string[]): string[] {
  const out = [...items];
  for (const n of names) if (!out.includes(n)) out.push(n);
  return out;
}

/** The items of a symbol-list value as chips (a text value's words; a list's committed items). */
export function chipsOf(v: FormValue | undefined, keepSpaces: boolean): { items: string[]; draft: string } {
  if (isList(v)) return { items: [...v.items], draft: v.draft };
  return { items: addNames([], namesOf(v, keepSpaces)), draft: '' };
}
