/**
 * applyHolidayCalendar (INTERFACE 4.2.5, SPEC 5.3): buckets starting on a non-trading day are removed
 * before racking and filling, so interpolation runs across the gap. Non-trading days: the weekend days
 * of config.json and the ExchangeHolidayCal dates of the group's exchange (1b), of one exchange for
 * every group (a symbol), or every calendar date for every group (the null symbol).
 */
import { TickscopeError } from '../../core/errors.js';
import type { Table } from '../../core/table.js';
import { splitDay, weekday } from '../../core/time.js';
import { zoneOffsets } from '../../core/tz.js';
import type { Source } from '../../storage/source.js';

export type HolidayMode = { readonly kind: 'perGroup' } | { readonly kind: 'exchange'; readonly exchange: string } | { readonly kind: 'all' };

/** The calendar: exchange -> set of day numbers. */
export function loadCalendar(db: Source): Map<string, Set<number>> {
  if (!db.schema.tables.has('ExchangeHolidayCal')) {
    throw new TickscopeError('requirement', `applyHolidayCalendar: needs the ExchangeHolidayCal reference table, which ${db.name} does not declare`);
  }
  const cal = new Map<string, Set<number>>();
  const p = db.reference('ExchangeHolidayCal');
  if (!p) return cal;
  const ex = p.column('exchangeID');
  const date = p.column('date');
  if (ex.type !== 'symbol' || date.type !== 'date') return cal;
  for (let i = 0; i < p.rows; i++) {
    const name = ex.dict.get(ex.codes[i]!);
    let set = cal.get(name);
    if (!set) cal.set(name, (set = new Set()));
    if (date.data[i] !== -2147483648) set.add(date.data[i]!);
  }
  return cal;
}

/** The exchange of each group: its first non-null tradedExchange, else exchangeID (rows in time order). */
export function groupExchanges(t: Table, groupOf: Int32Array, groups: number, fallback: (g: number) => string): string[] {
  const out = new Array<string>(groups).fill('');
  for (const name of ['tradedExchange', 'exchangeID']) {
    const c = t.get(name);
    if (!c || c.type !== 'symbol') continue;
    for (let i = 0; i < t.length; i++) {
      const g = groupOf[i]!;
      if (out[g] === '') out[g] = c.dict.get(c.codes[i]!);
    }
  }
  return out.map((e, g) => e || fallback(g));
}

/** A test of whether a bucket starting at an instant is a non-trading day for a group. */
export function nonTradingDay(
  mode: HolidayMode,
  calendar: ReadonlyMap<string, ReadonlySet<number>>,
  weekendDays: readonly number[],
  exchangeOf: readonly string[],
  zone: string,
): (start: bigint, group: number) => boolean {
  const everything = new Set<number>();
  for (const days of calendar.values()) for (const d of days) everything.add(d);
  const weekend = new Set(weekendDays);
  const offsets = zoneOffsets(zone);
  return (start, group) => {
    const day = splitDay(start + offsets.offsetAt(start)).days;
    if (weekend.has(weekday(day))) return true;
    const days = mode.kind === 'all' ? everything : calendar.get(mode.kind === 'exchange' ? mode.exchange : exchangeOf[group]!);
    return days?.has(day) ?? false;
  };
}
