/**
 * An argument's default as people read it (docs/arguments.md, the form's placeholders and tooltips),
 * from its declaration's real value: q notation for booleans as INTERFACE writes them, the value
 * itself otherwise, or what not giving the argument means. Pure: the renderer uses it too.
 */
import type { ArgSpec } from './types.js';

export function defaultText(arg: Pick<ArgSpec, 'default' | 'otherwise'>): string | null {
  if (typeof arg.default === 'boolean') return arg.default ? '1b' : '0b';
  if (arg.default !== undefined) return String(arg.default);
  return arg.otherwise ?? null;
}
