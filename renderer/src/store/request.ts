/**
 * From form values to the JSON body of a call, REST-style (SPEC 2): what the form sends is exactly
 * what a script would POST, so the preview can be copied. Text values keep their older meaning
 * (lists split on commas and spaces, JSON parsed); builder rows and multi-selects become the same
 * REST shapes (lists of strings, filter triples, sortCols pairs, refFilter objects, agg trees). An
 * explicitly empty list ("[]", the "no grouping" choice of groupBy) is sent as [].
 */
import { type AppInfo, ARG, type ArgSpec, type OperationSpec } from '../../../engine/contract';
import { takes } from '../form/args';
import { aggBody } from '../form/agg-body';
import { filterRowsBody } from '../form/filter-rows';
import { refRowsBody } from '../form/ref-filter-rows';
import { sortRowsBody } from '../form/sort-rows';
import { type FormValue, type FormValues, isAgg, isList, isRows, namesOf, splitWords } from '../form/values';

export type { AggValue, FormValue, FormValues, ListValue, RowsValue } from '../form/values';

function parseJsonish(arg: ArgSpec, text: string): unknown {
  const t = text.trim();
  if (t.startsWith('[') || t.startsWith('{')) {
    try {
      return JSON.parse(t);
    } catch (e) {
      throw new Error(`${arg.name}: not valid JSON (${(e as Error).message})`);
    }
  }
  return t;
}

/** The request value of builder rows, by the argument's type. */
function rowsArg(arg: ArgSpec, rows: ReadonlyArray<readonly string[]>): unknown {
  switch (arg.type) {
    case 'filter':
      return filterRowsBody(rows, arg.name);
    case 'sortCols':
      return sortRowsBody(rows);
    case 'refFilter':
      return refRowsBody(rows, arg.name);
    default:
      throw new Error(`${arg.name}: the form has rows for an argument of type ${arg.type}`);
  }
}

/** The request value of one argument, or undefined when the field is empty (default applies). */
export function argValue(arg: ArgSpec, v: FormValue | undefined): unknown {
  if (v === undefined || v === '' || v === false) return undefined;
  if (v === true) return '1b';
  if (isRows(v)) return rowsArg(arg, v.rows);
  if (isAgg(v)) return aggBody(v, arg.name);
  if (isList(v)) {
    const names = namesOf(v, arg.widget === 'identifiers');
    return names.length ? names : undefined;
  }
  const text = v.trim();
  if (text === '') return undefined;
  switch (arg.type) {
    case 'symbols':
      return text.startsWith('[') ? parseJsonish(arg, text) : splitWords(text);
    case 'timespanPair': {
      const parts = text.split('|').map((s) => s.trim());
      return parts.every((p) => p === '') ? undefined : parts;
    }
    case 'sortCols':
      return text.startsWith('[') ? parseJsonish(arg, text) : splitWords(text);
    case 'booleanOrSymbol':
      // The form writes q's null symbol as a backtick; REST sends it as "" (SPEC 2).
      return text === '`' ? '' : text;
    case 'filter':
    case 'agg':
    case 'refFilter':
    case 'dict':
      return parseJsonish(arg, text);
    default:
      return text;
  }
}

/** The JSON body of a call from the form, skipping empty fields; throws naming a malformed field. */
export function buildArgs(op: OperationSpec, values: FormValues): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const arg of op.args) {
    const v = argValue(arg, values[arg.name]);
    if (v !== undefined) args[arg.name] = v;
  }
  return args;
}

/**
 * The request the form stands for, as it is run, previewed, copied, linked and saved: the form's body
 * and, when the assembly picked is not the default (the first mounted), `scope` naming it.
 */
export function requestArgs(op: OperationSpec, values: FormValues, where: { readonly assembly: string; readonly info: AppInfo | null }): Record<string, unknown> {
  const args = buildArgs(op, values);
  const first = where.info?.assemblies[0]?.name;
  if (where.assembly && where.assembly !== first && takes(op, ARG.scope)) args[ARG.scope.name] = { assembly: where.assembly };
  return args;
}

/** The assembly a request's `scope` names, when it is one of these (a link, a saved query, a history entry). */
export function scopedAssembly(args: Readonly<Record<string, unknown>>, info: AppInfo | null): string | undefined {
  const scope = args[ARG.scope.name];
  const name = scope && typeof scope === 'object' ? (scope as Record<string, unknown>)['assembly'] : undefined;
  return typeof name === 'string' && info?.assemblies.some((a) => a.name === name) ? name : undefined;
}
