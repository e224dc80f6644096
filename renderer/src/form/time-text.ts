/**
 * Time values as the form's users type them (SPEC 2): kdb timestamps, ISO, dates and times of day.
 * Validation mirrors the engine's parser so the form can flag a bad value before it is sent; the
 * engine stays the judge (it answers the same forms).
 */

/** A wall-clock date and time with nanoseconds, no zone. */
export interface LocalStamp {
  readonly y: number;
  readonly m: number;
  readonly d: number;
  /** Nanoseconds since local midnight. */
  readonly nsOfDay: number;
}

export type StampCheck =
  | { readonly ok: true; readonly kind: 'local'; readonly local: LocalStamp }
  | { readonly ok: true; readonly kind: 'instant'; readonly local: LocalStamp; readonly offset: string }
  | { readonly ok: true; readonly kind: 'infinite'; readonly sign: 1 | -1 }
  | { readonly ok: false; readonly error: string };

const KDB_TS = /^(\d{4})\.(\d{2})\.(\d{2})(?:[DT](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;
const ISO_TS = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const DATE = /^(\d{4})[.-](\d{2})[.-](\d{2})$/;
const SPAN = /^(?:(\d+)D)?(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

/** The timestamp forms, for help texts. */
export const TIMESTAMP_FORMS = '2024.03.06D09:30:00.123456789, 2024.03.06D09:30, 2024.03.06, ISO 2024-03-06T09:30:00 (Z or +01:00 = absolute), 0Wp, -0Wp';
/** The time-of-day forms, for help texts. */
export const TIME_OF_DAY_FORMS = '09:30, 09:30:00, 09:30:00.123456789 or 0D09:30:00';

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

const daysIn = (y: number, m: number): number => (m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);

function dateProblem(y: number, m: number, d: number): string | undefined {
  if (m < 1 || m > 12) return `month ${pad(m)} does not exist`;
  if (d < 1 || d > daysIn(y, m)) return `${y}.${pad(m)} has no day ${pad(d)}`;
  return undefined;
}

function clockNs(h: number, mi: number, s: number, frac: string | undefined): number | string {
  if (h > 23) return `hour ${pad(h)} is past 23`;
  if (mi > 59) return `minute ${pad(mi)} is past 59`;
  if (s > 59) return `second ${pad(s)} is past 59`;
  return ((h * 60 + mi) * 60 + s) * 1e9 + Number((frac ?? '').padEnd(9, '0'));
}

/** Checks a timestamp as the engine reads it; an empty text is fine (the default applies). */
export function checkTimestamp(text: string): StampCheck | null {
  const t = text.trim();
  if (t === '') return null;
  if (t === '0Wp' || t === '0W') return { ok: true, kind: 'infinite', sign: 1 };
  if (t === '-0Wp' || t === '-0W') return { ok: true, kind: 'infinite', sign: -1 };
  const m = KDB_TS.exec(t) ?? ISO_TS.exec(t);
  if (!m) return { ok: false, error: `not a timestamp; use ${TIMESTAMP_FORMS}` };
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const bad = dateProblem(y, mo, d);
  if (bad) return { ok: false, error: bad };
  const ns = m[4] === undefined ? 0 : clockNs(Number(m[4]), Number(m[5]), Number(m[6] ?? 0), m[7]);
  if (typeof ns === 'string') return { ok: false, error: ns };
  const local = { y, m: mo, d, nsOfDay: ns };
  const zone = m[8];
  if (zone === undefined) return { ok: true, kind: 'local', local };
  if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 23 || Number(zone.replace(':', '').slice(3, 5)) > 59)) {
    return { ok: false, error: `offset ${zone} is out of range` };
  }
  return { ok: true, kind: 'instant', local, offset: zone === 'Z' ? 'UTC' : zone };
}

/** Checks a date (`2024.03.06` or `2024-03-06`); empty is fine. */
export function checkDate(text: string): { readonly ok: true } | { readonly ok: false; readonly error: string } | null {
  const t = text.trim();
  if (t === '') return null;
  const m = DATE.exec(t);
  if (!m) return { ok: false, error: 'not a date; use 2024.03.06 or 2024-03-06' };
  const bad = dateProblem(Number(m[1]), Number(m[2]), Number(m[3]));
  return bad ? { ok: false, error: bad } : { ok: true };
}

/** Nanoseconds of a time of day (timespan forms), or an error text; empty gives null. */
export function parseTimeOfDay(text: string): number | string | null {
  const t = text.trim();
  if (t === '') return null;
  const m = SPAN.exec(t);
  if (!m) return `not a time of day; use ${TIME_OF_DAY_FORMS}`;
  const days = Number(m[1] ?? 0);
  const ns = clockNs(Number(m[2]), Number(m[3]), Number(m[4] ?? 0), m[5]);
  if (typeof ns === 'string') return ns;
  if (days > 0) return `${days}D is more than a time of day`;
  return ns;
}

/** Orders two wall-clock stamps: negative, zero or positive. */
export function compareLocal(a: LocalStamp, b: LocalStamp): number {
  return a.y - b.y || a.m - b.m || a.d - b.d || a.nsOfDay - b.nsOfDay;
}

/** A problem with a window: start not before end when both are read in the same zone. */
export function windowProblem(start: string, end: string): string | null {
  const a = checkTimestamp(start);
  const b = checkTimestamp(end);
  if (!a?.ok || !b?.ok) return null;
  if (a.kind === 'infinite' || b.kind === 'infinite') return a.kind === 'infinite' && b.kind === 'infinite' && a.sign >= b.sign ? 'startTS >= endTS' : null;
  if (a.kind !== b.kind || (a.kind === 'instant' && b.kind === 'instant' && a.offset !== b.offset)) return null;
  return compareLocal(a.local, b.local) >= 0 ? 'startTS >= endTS' : null;
}

function clockText(nsOfDay: number, keepFraction: boolean): string {
  const s = Math.floor(nsOfDay / 1e9);
  const frac = nsOfDay - s * 1e9;
  const base = `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
  return keepFraction && frac > 0 ? `${base}.${pad(frac, 9)}` : base;
}

/** The `datetime-local` picker value (to the second) of a timestamp text, or '' when it has none. */
export function pickerValue(text: string): string {
  const c = checkTimestamp(text);
  if (!c?.ok || c.kind === 'infinite') return '';
  const { y, m, d, nsOfDay } = c.local;
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}T${clockText(nsOfDay, false)}`;
}

/**
 * The kdb text for a value picked in the calendar (`2024-03-06T09:30` or with seconds). When the picked
 * clock time is the previous value's to the second, the previous sub-second digits are kept, so
 * changing only the day never loses nanoseconds.
 */
export function fromPicker(picked: string, previous: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(picked);
  if (!m) return previous;
  const date = `${m[1]}.${m[2]}.${m[3]}`;
  const clock = `${m[4]}:${m[5]}:${m[6] ?? '00'}`;
  const prev = checkTimestamp(previous);
  if (prev?.ok && prev.kind === 'local' && clockText(prev.local.nsOfDay, false) === clock) {
    return `${date}D${clockText(prev.local.nsOfDay, true)}`;
  }
  return `${date}D${clock}`;
}

/** A readable reading of a valid timestamp: `2024-03-06 09:30:00.123456789`. */
export function describeStamp(c: StampCheck): string {
  if (!c.ok) return c.error;
  if (c.kind === 'infinite') return c.sign > 0 ? '+infinity (0Wp)' : '-infinity (-0Wp)';
  const { y, m, d, nsOfDay } = c.local;
  return `${pad(y, 4)}-${pad(m)}-${pad(d)} ${clockText(nsOfDay, true)}${c.kind === 'instant' ? ` ${c.offset}` : ''}`;
}
