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

/** An integer's declared range in words ("From 0 to 15."), or '' when it has none. */
export function rangeText(arg: Pick<ArgSpec, 'range'>): string {
  const r = arg.range;
  if (!r) return '';
  return `${r.min !== undefined && r.max !== undefined ? `From ${r.min} to ${r.max}` : r.min !== undefined ? `At least ${r.min}` : `At most ${r.max}`}.`;
}

/** What an argument cannot be given with, in words ("Not with startTS or endTS: why."); '' when nothing. */
export function excludesText(arg: Pick<ArgSpec, 'excludes'>, name: (n: string) => string = (n) => n): string {
  return arg.excludes ? `Not with ${arg.excludes.args.map(name).join(' or ')}: ${arg.excludes.why}.` : '';
}

/** What an argument needs, in words ("Needs fill and granularityUnit (why)."), names shown by `name`; '' when nothing. */
export function needsText(arg: Pick<ArgSpec, 'requires'>, name: (n: string) => string = (n) => n): string {
  return arg.requires ? `Needs ${arg.requires.args.map(name).join(' and ')} ${arg.requires.why}.` : '';
}
