/**
 * What an operation's bucket arguments mean for the current form, in words (INTERFACE 4.2.3-4.2.5,
 * SPEC 5.2-5.3): the bucket size and roughly how many buckets the window makes, what a moving window
 * covers, and what an argument that needs others lacks. The arguments are the ones the operation's
 * declaration names (`buckets`, `requires`). Notes and warnings only; the engine decides.
 */
import { ARG, type ArgSpec, type BucketArgs, type OperationSpec } from '../../../engine/contract';
import { textArg } from './args';
import { checkTimestamp, type LocalStamp } from './time-text';
import { type FormValues, textOf } from './values';

export interface Hint {
  readonly text: string;
  readonly level: 'note' | 'warn';
}

/** Nanoseconds per unit (a day as 24 hours: estimates only). */
export const UNIT_NS: Readonly<Record<string, number>> = { millisecond: 1e6, second: 1e9, minute: 6e10, hour: 3.6e12, day: 8.64e13 };

/** Buckets per group beyond which the hint warns. */
export const MANY_BUCKETS = 200_000;

const dayNumber = (s: LocalStamp): number => Date.UTC(s.y, s.m - 1, s.d) / 86_400_000;

/** The window's length in ns read from the start and end texts (wall clock, DST ignored), or null. */
export function windowLengthNs(start: string, end: string): number | null {
  const a = checkTimestamp(start);
  const b = checkTimestamp(end);
  if (!a?.ok || !b?.ok || a.kind === 'infinite' || b.kind === 'infinite' || a.kind !== b.kind) return null;
  const ns = (dayNumber(b.local) - dayNumber(a.local)) * 8.64e13 + b.local.nsOfDay - a.local.nsOfDay;
  return ns > 0 ? ns : null;
}

const positiveInt = (t: string): number | null => (/^\s*\d+\s*$/.test(t) && Number(t) > 0 ? Number(t) : null);

const plural = (n: number, unit: string): string => `${n.toLocaleString('en-US')} ${unit}${n === 1 ? '' : 's'}`;

/** The hint under the bucket size: it needs the unit, and must be a positive integer. */
export function granularityHint(v: FormValues, b: BucketArgs): Hint | null {
  const g = textOf(v[b.size]).trim();
  if (g === '') return null;
  if (positiveInt(g) === null) return { level: 'warn', text: 'a positive integer, such as 5' };
  if (textOf(v[b.unit]) === '') return { level: 'warn', text: `needs ${b.unit}; without it the whole window is one bucket` };
  return null;
}

/** The hint under the bucket unit: bucket size, labels and an estimate of buckets per group. */
export function unitHint(v: FormValues, b: BucketArgs): Hint | null {
  const unit = textOf(v[b.unit]);
  if (unit === '') return null;
  const g = positiveInt(textOf(v[b.size])) ?? 1;
  const mws = positiveInt(textOf(v[b.moving]));
  const size = g === 1 ? `1-${unit}` : `${g}-${unit}`;
  const labels = mws === null ? 'labelled by their start' : 'labelled by their end';
  const span = windowLengthNs(textArg(v, ARG.startTS), textArg(v, ARG.endTS));
  const count = span === null ? null : Math.ceil(span / (g * UNIT_NS[unit]!));
  const base = `${size} buckets from startTS, ${labels}`;
  if (count === null) return { level: 'note', text: base };
  if (count > MANY_BUCKETS) return { level: 'warn', text: `${base}: about ${plural(count, 'bucket')} per group; a coarser unit keeps the result small` };
  return { level: 'note', text: `${base}: about ${plural(count, 'bucket')} per group` };
}

/** The hint under the moving window: what each bucket then covers. */
export function movingWindowHint(v: FormValues, b: BucketArgs): Hint | null {
  const text = textOf(v[b.moving]).trim();
  if (text === '' || text === '0N') return null;
  const w = positiveInt(text);
  if (w === null) return { level: 'warn', text: `a positive integer, in ${b.unit} units` };
  const unit = textOf(v[b.unit]);
  if (unit === '') return { level: 'warn', text: `needs ${b.unit} (the window is counted in its units)` };
  const g = positiveInt(textOf(v[b.size])) ?? 1;
  const rel = w > g ? '; overlaps earlier buckets' : w < g ? '; covers only the last part of each bucket' : '; same values as without it';
  return { level: 'note', text: `each bucket aggregates the last ${plural(w, unit)} up to its end (labels are bucket ends)${rel}` };
}

/** What an argument given in the form needs (its declaration's `requires`) and the form lacks. */
export function missingNeeds(arg: Pick<ArgSpec, 'name' | 'requires'>, v: FormValues): string[] {
  const given = (name: string): boolean => {
    const t = textOf(v[name]).trim();
    return t !== '' && t !== '0b' && v[name] !== false;
  };
  if (!arg.requires || !given(arg.name)) return [];
  return arg.requires.args.filter((n) => !given(n));
}

/** The hint an argument shows under its field, from its operation's bucket arguments. */
export function bucketHint(op: Pick<OperationSpec, 'buckets'>, name: string, v: FormValues): Hint | null {
  const b = op.buckets;
  if (!b) return null;
  if (name === b.size) return granularityHint(v, b);
  if (name === b.unit) return unitHint(v, b);
  if (name === b.moving) return movingWindowHint(v, b);
  return null;
}
