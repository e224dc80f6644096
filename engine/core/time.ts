/**
 * Exact time arithmetic. Timestamps are int64 nanoseconds since 1970-01-01 UTC (bigint at the edges,
 * hi/lo int32 pairs in hot loops); nothing here rounds through float milliseconds.
 */

export const NS_PER_SECOND = 1_000_000_000n;
export const NS_PER_DAY = 86_400_000_000_000n;
export const NS_PER_DAY_NUM = 86_400_000_000_000;

/** kdb+ sentinels: 0Np (null), 0Wp (+infinity), -0Wp (-infinity). */
export const NULL_TS = -9223372036854775808n;
export const POS_INF_TS = 9223372036854775807n;
export const NEG_INF_TS = -9223372036854775807n;
export const NULL_INT32 = -2147483648;

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The civil date of a day number (inverse of daysFromCivil). */
export function civilFromDays(z: number): { y: number; m: number; d: number } {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: era * 400 + yoe + (m <= 2 ? 1 : 0), m, d };
}

/** Day of week of a day number: 0 = Sunday ... 6 = Saturday. */
export function weekday(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** A wall-clock date and time, not yet placed in a zone. */
export interface LocalDateTime {
  readonly y: number;
  readonly m: number;
  readonly d: number;
  /** nanoseconds since local midnight, 0 <= nsOfDay < 86400e9 */
  readonly nsOfDay: number;
}

/** A parsed timestamp literal: an absolute instant, a local time (zone applied later) or infinity. */
export type TimestampLiteral =
  | { readonly kind: 'instant'; readonly ns: bigint }
  | { readonly kind: 'local'; readonly local: LocalDateTime };

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

function fractionToNs(frac: string | undefined): number {
  if (!frac) return 0;
  return Number(frac.padEnd(9, '0'));
}

function checkedDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

function timeOfDayNs(h: number, mi: number, s: number, frac: string | undefined): number | undefined {
  if (h > 23 || mi > 59 || s > 59) return undefined;
  return ((h * 60 + mi) * 60 + s) * 1e9 + fractionToNs(frac);
}

const KDB_TS = /^(\d{4})\.(\d{2})\.(\d{2})(?:[DT](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;
const ISO_TS =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::\d{2}(?::\d{2})?|\d{2}))?$/;

/**
 * Parses the timestamp forms of SPEC 2: `2024.01.02D09:30:00.123456789`, `2024.01.02D09:30`,
 * `2024.01.02`, ISO `2024-01-02T09:30:00.123456789` (with `Z` or an offset, `±hh:mm`, `±hhmm` or
 * `±hh:mm:ss`, it is an instant; without, local time), `0Wp`, `-0Wp`. Returns undefined when the text is not a timestamp.
 */
export function parseTimestampLiteral(text: string): TimestampLiteral | undefined {
  const t = text.trim();
  if (t === '0Wp' || t === '0W') return { kind: 'instant', ns: POS_INF_TS };
  if (t === '-0Wp' || t === '-0W') return { kind: 'instant', ns: NEG_INF_TS };
  const m = KDB_TS.exec(t) ?? ISO_TS.exec(t);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (!checkedDate(y, mo, d)) return undefined;
  const nsOfDay = m[4] === undefined ? 0 : timeOfDayNs(Number(m[4]), Number(m[5]), Number(m[6] ?? 0), m[7]);
  if (nsOfDay === undefined) return undefined;
  const zone = m[8];
  const local: LocalDateTime = { y, m: mo, d, nsOfDay };
  if (zone === undefined) return { kind: 'local', local };
  let offsetSeconds = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(/:/g, '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2, 4));
    const os = Number(digits.slice(4, 6) || 0);
    if (oh > 23 || om > 59 || os > 59) return undefined;
    offsetSeconds = sign * ((oh * 60 + om) * 60 + os);
  }
  return { kind: 'instant', ns: localAsUtcNs(local) - BigInt(offsetSeconds) * NS_PER_SECOND };
}

/** The instant a local date-time denotes when read as UTC. */
export function localAsUtcNs(local: LocalDateTime): bigint {
  return BigInt(daysFromCivil(local.y, local.m, local.d)) * NS_PER_DAY + BigInt(local.nsOfDay);
}

/** Splits an instant into UTC day number and nanoseconds within that day. */
export function splitDay(ns: bigint): { days: number; nsOfDay: number } {
  let days = ns / NS_PER_DAY;
  let rem = ns % NS_PER_DAY;
  if (rem < 0n) {
    rem += NS_PER_DAY;
    days -= 1n;
  }
  return { days: Number(days), nsOfDay: Number(rem) };
}

function formatNsOfDay(nsOfDay: number): string {
  const totalSec = Math.floor(nsOfDay / 1e9);
  const frac = nsOfDay - totalSec * 1e9;
  const h = Math.floor(totalSec / 3600);
  const mi = Math.floor((totalSec % 3600) / 60);
  const s = totalSec % 60;
  return `${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(frac, 9)}`;
}

/** Formats a day number as `2024-01-02`. */
export function formatDate(days: number): string {
  const { y, m, d } = civilFromDays(days);
  const yy = y < 0 ? `-${pad(-y, 4)}` : pad(y, 4);
  return `${yy}-${pad(m, 2)}-${pad(d, 2)}`;
}

/** Formats a local-time instant (ns already shifted by the zone offset) as `2024-01-02T09:30:00.123456789`. */
export function formatLocalNs(localNs: bigint): string {
  const { days, nsOfDay } = splitDay(localNs);
  return `${formatDate(days)}T${formatNsOfDay(nsOfDay)}`;
}

/**
 * A UTC offset (ns, east positive) as ISO 8601 writes it after a time: `-05:00`, `+05:30`, `+00:00`;
 * with seconds (`-04:56:02`, New York's mean time before 1883) when it has them, so the text still
 * names the exact instant.
 */
export function formatOffset(offsetNs: bigint): string {
  const neg = offsetNs < 0n;
  const total = Number((neg ? -offsetNs : offsetNs) / NS_PER_SECOND);
  const h = Math.floor(total / 3600);
  const mi = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${neg ? '-' : '+'}${pad(h, 2)}:${pad(mi, 2)}${s ? `:${pad(s, 2)}` : ''}`;
}

/** Formats a timespan in nanoseconds as q does: `0D09:30:00.000000000`, `-1D02:00:00.000000000`. */
export function formatTimespan(ns: bigint): string {
  const neg = ns < 0n;
  const abs = neg ? -ns : ns;
  const days = abs / NS_PER_DAY;
  const rem = Number(abs % NS_PER_DAY);
  return `${neg ? '-' : ''}${days}D${formatNsOfDay(rem)}`;
}

const KDB_SPAN = /^(-)?(?:(\d+)D)?(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

/** Parses a timespan: `09:30`, `09:30:00`, `09:30:00.5`, `0D09:30:00.000000000`, `-0D01:00`. */
export function parseTimespan(text: string): bigint | undefined {
  const m = KDB_SPAN.exec(text.trim());
  if (!m) return undefined;
  const mi = Number(m[4]);
  const s = Number(m[5] ?? 0);
  if (mi > 59 || s > 59) return undefined;
  const days = BigInt(m[2] ?? 0);
  const h = BigInt(m[3]!);
  const ns =
    days * NS_PER_DAY + ((h * 60n + BigInt(mi)) * 60n + BigInt(s)) * NS_PER_SECOND + BigInt(fractionToNs(m[6]));
  return m[1] ? -ns : ns;
}

const DATE_RE = /^(\d{4})[.-](\d{2})[.-](\d{2})$/;

/** Parses `2024.01.02` or `2024-01-02` to a day number. */
export function parseDate(text: string): number | undefined {
  const m = DATE_RE.exec(text.trim());
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  return checkedDate(y, mo, d) ? daysFromCivil(y, mo, d) : undefined;
}

/** The UTC date key (`2024-01-02`) of the day holding an instant: how partitions are named. */
export function partitionKey(ns: bigint): string {
  return formatDate(splitDay(ns).days);
}

/** Midnight UTC of a partition key. */
export function partitionStartNs(key: string): bigint {
  const days = parseDate(key);
  if (days === undefined) throw new Error(`bad partition key ${key}`);
  return BigInt(days) * NS_PER_DAY;
}
