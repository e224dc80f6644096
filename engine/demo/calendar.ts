/**
 * Exchanges of the demo, their sessions and holiday calendars. Sessions are wall-clock times in the
 * exchange's own zone, turned into exact UTC instants per date (so the US session moves by an hour
 * across the March DST change while London's does not).
 */
import { civilFromDays, daysFromCivil, weekday } from '../core/time.js';
import { localToInstant } from '../core/tz.js';

export type Region = 'US' | 'UK';

export interface Exchange {
  readonly mic: string;
  readonly region: Region;
  readonly zone: string;
  /** Continuous session in local minutes after midnight: [open, close]. */
  readonly openMinute: number;
  readonly closeMinute: number;
  readonly currency: string;
  /** Source system names stamped on this exchange's trades, quotes and book data. */
  readonly tradeSrc: string;
  readonly quoteSrc: string;
  readonly bookSrc: string;
}

export const XNYS: Exchange = {
  mic: 'XNYS', region: 'US', zone: 'America/New_York', openMinute: 9 * 60 + 30, closeMinute: 16 * 60,
  currency: 'USD', tradeSrc: 'CTA', quoteSrc: 'CQS', bookSrc: 'OPENBOOK',
};
export const XNAS: Exchange = {
  mic: 'XNAS', region: 'US', zone: 'America/New_York', openMinute: 9 * 60 + 30, closeMinute: 16 * 60,
  currency: 'USD', tradeSrc: 'UTP', quoteSrc: 'UQDF', bookSrc: 'ITCH',
};
export const XLON: Exchange = {
  mic: 'XLON', region: 'UK', zone: 'Europe/London', openMinute: 8 * 60, closeMinute: 16 * 60 + 30,
  currency: 'GBP', tradeSrc: 'LSE', quoteSrc: 'LSE', bookSrc: 'MITCH',
};

export const EXCHANGES: readonly Exchange[] = [XLON, XNAS, XNYS];

/** The exchange that gets the synthetic weekday holiday inside the demo range. */
export const DEMO_HOLIDAY_EXCHANGE = XLON;
export const DEMO_HOLIDAY_DESCRIPTION = 'Demo exchange holiday';

/** Session open and close of an exchange on a date (day number), as exact UTC nanoseconds. */
export function sessionBounds(ex: Exchange, days: number): { open: bigint; close: bigint } {
  const { y, m, d } = civilFromDays(days);
  const at = (minute: number): bigint => localToInstant({ y, m, d, nsOfDay: minute * 60e9 }, ex.zone);
  return { open: at(ex.openMinute), close: at(ex.closeMinute) };
}

/** The first `count` weekdays (Monday to Friday) from `startDays` on, as day numbers. */
export function weekdaysFrom(startDays: number, count: number): number[] {
  const out: number[] = [];
  for (let d = startDays; out.length < count; d++) {
    const w = weekday(d);
    if (w !== 0 && w !== 6) out.push(d);
  }
  return out;
}

export interface Holiday {
  readonly days: number;
  readonly description: string;
}

/** Day number of the n-th (1-based) given weekday of a month; n = -1 is the last one. */
function nthWeekday(y: number, m: number, wd: number, n: number): number {
  if (n > 0) {
    const first = daysFromCivil(y, m, 1);
    return first + ((wd - weekday(first) + 7) % 7) + (n - 1) * 7;
  }
  const last = daysFromCivil(m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1, 1) - 1;
  return last - ((weekday(last) - wd + 7) % 7);
}

/** Easter Sunday (Gregorian, anonymous algorithm) as a day number. */
export function easterSunday(y: number): number {
  const a = y % 19;
  const b = Math.floor(y / 100);
  const c = y % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const mm = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * mm + 114) / 31);
  const day = ((h + l - 7 * mm + 114) % 31) + 1;
  return daysFromCivil(y, month, day);
}

/** US federal-style observance: Saturday -> Friday, Sunday -> Monday. */
function usObserved(days: number): number {
  const w = weekday(days);
  return w === 6 ? days - 1 : w === 0 ? days + 1 : days;
}

function usHolidays(y: number): Holiday[] {
  const out: Holiday[] = [];
  const jan1 = daysFromCivil(y, 1, 1);
  // NYSE does not close on Friday 31 December when New Year's Day falls on a Saturday
  if (weekday(jan1) !== 6) out.push({ days: usObserved(jan1), description: "New Year's Day" });
  out.push({ days: nthWeekday(y, 1, 1, 3), description: 'Martin Luther King Jr. Day' });
  out.push({ days: nthWeekday(y, 2, 1, 3), description: "Washington's Birthday" });
  out.push({ days: easterSunday(y) - 2, description: 'Good Friday' });
  out.push({ days: nthWeekday(y, 5, 1, -1), description: 'Memorial Day' });
  if (y >= 2022) out.push({ days: usObserved(daysFromCivil(y, 6, 19)), description: 'Juneteenth' });
  out.push({ days: usObserved(daysFromCivil(y, 7, 4)), description: 'Independence Day' });
  out.push({ days: nthWeekday(y, 9, 1, 1), description: 'Labor Day' });
  out.push({ days: nthWeekday(y, 11, 4, 4), description: 'Thanksgiving Day' });
  out.push({ days: usObserved(daysFromCivil(y, 12, 25)), description: 'Christmas Day' });
  return out;
}

function ukHolidays(y: number): Holiday[] {
  const jan1 = daysFromCivil(y, 1, 1);
  const w1 = weekday(jan1);
  const easter = easterSunday(y);
  const xmas = daysFromCivil(y, 12, 25);
  // UK substitute days: a holiday on a weekend moves to the next weekday not already a holiday
  const wx = weekday(xmas);
  const xmasObs = wx === 6 || wx === 0 ? xmas + 2 : xmas;
  const boxingObs = wx === 5 || wx === 6 ? xmas + 3 : xmas + 1;
  return [
    { days: w1 === 6 ? jan1 + 2 : w1 === 0 ? jan1 + 1 : jan1, description: "New Year's Day" },
    { days: easter - 2, description: 'Good Friday' },
    { days: easter + 1, description: 'Easter Monday' },
    { days: nthWeekday(y, 5, 1, 1), description: 'Early May Bank Holiday' },
    { days: nthWeekday(y, 5, 1, -1), description: 'Spring Bank Holiday' },
    { days: nthWeekday(y, 8, 1, -1), description: 'Summer Bank Holiday' },
    { days: xmasObs, description: 'Christmas Day' },
    { days: boxingObs, description: 'Boxing Day' },
  ];
}

/** Rule-based exchange holidays of a year (one-off closures such as royal events are not included). */
export function regionHolidays(region: Region, year: number): Holiday[] {
  return (region === 'US' ? usHolidays(year) : ukHolidays(year)).sort((a, b) => a.days - b.days);
}

/** Per exchange MIC: the closed dates (day number -> description) over the given years, plus the demo holiday. */
export function holidayCalendar(years: readonly number[], demoHolidayDays: number): Map<string, Map<number, string>> {
  const cal = new Map<string, Map<number, string>>();
  for (const ex of EXCHANGES) {
    const dates = new Map<number, string>();
    for (const y of years) for (const h of regionHolidays(ex.region, y)) dates.set(h.days, h.description);
    if (ex === DEMO_HOLIDAY_EXCHANGE) dates.set(demoHolidayDays, DEMO_HOLIDAY_DESCRIPTION);
    cal.set(ex.mic, new Map([...dates].sort((a, b) => a[0] - b[0])));
  }
  return cal;
}
