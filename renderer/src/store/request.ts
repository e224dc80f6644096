/**
 * From form values to the JSON body of a call, REST-style (SPEC 2): what the form sends is exactly
 * what a script would POST, so the preview can be copied.
 */
import type { ArgSpec, OperationSpec } from '../../../engine/contract';

export type FormValue = string | boolean;
export type FormValues = Readonly<Record<string, FormValue>>;

const splitList = (text: string): string[] =>
  text
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');

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

/** The request value of one argument, or undefined when the field is empty (default applies). */
export function argValue(arg: ArgSpec, v: FormValue | undefined): unknown {
  if (v === undefined || v === '' || v === false) return undefined;
  if (v === true) return '1b';
  const text = v.trim();
  if (text === '') return undefined;
  switch (arg.type) {
    case 'symbols':
      return splitList(text);
    case 'timespanPair': {
      const parts = text.split('|').map((s) => s.trim());
      return parts.every((p) => p === '') ? undefined : parts;
    }
    case 'sortCols':
      return text.startsWith('[') ? parseJsonish(arg, text) : splitList(text);
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
