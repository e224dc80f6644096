/**
 * Export file names (SPEC 8): `<operation>_<table>_<startDate>[_<endDate>][_<zone>].<ext>`, the dates
 * in the request's inputTZ, endDate the last day the window touches (left out when that is
 * startDate's day), zone the outputTZ with `/` as `-` (`America-New_York`), left out for UTC: the
 * zone the file's wall-clock times are in (a CSV's timestamps also carry their offsets). The window
 * comes from the response header (its startTS/endTS are wall-clock times of outputTZ).
 */
import { ARG } from '../../../engine/contract';
import { stringArg } from './args';

/** The UTC offset (ms) of a zone at an instant. */
function offsetMs(zone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(at));
  const n = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return wall - Math.floor(at / 1000) * 1000;
}

/**
 * The instant of a wall-clock time `2024-03-06T14:30:00.123456789` in a zone, to the millisecond
 * (`rest`: nanoseconds beyond it).
 */
function instantOf(wallText: string, zone: string): { ms: number; rest: number } | null {
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(wallText);
  if (!m) return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3)));
  // the offset at the guess, then at the instant it gives (right on either side of a DST change)
  let at = wall - offsetMs(zone, wall);
  at = wall - offsetMs(zone, at);
  return { ms: at, rest: Number((m[7] ?? '0').padEnd(9, '0').slice(3)) };
}

/** The date (YYYY-MM-DD) of an instant in a zone. */
function dateIn(at: number, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date(at));
  const v = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${v('year')}-${v('month')}-${v('day')}`;
}

const safe = (s: string): string => s.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'result';

export interface ExportRequest {
  readonly operation: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * The dates (YYYY-MM-DD, the request's inputTZ) of the window a response header gives: the first,
 * and the last day the window touches when that is another day. Empty without a window.
 */
export function windowDates(req: ExportRequest, header: { readonly startTS?: string; readonly endTS?: string }): string[] {
  const inputTZ = stringArg(req.args, ARG.inputTZ) || 'UTC';
  const outputTZ = stringArg(req.args, ARG.outputTZ) || 'UTC';
  const dates: string[] = [];
  const start = header.startTS ? instantOf(header.startTS, outputTZ) : null;
  const end = header.endTS ? instantOf(header.endTS, outputTZ) : null;
  try {
    if (start !== null) {
      const first = dateIn(start.ms, inputTZ);
      dates.push(first);
      // the window's end is exclusive: its last day is the day of the instant just before it
      if (end !== null && (end.ms > start.ms || end.rest > start.rest)) {
        const last = dateIn(end.rest > 0 ? end.ms : end.ms - 1, inputTZ);
        if (last !== first) dates.push(last);
      }
    }
  } catch {
    // an unknown zone name: no dates (the query itself would have said so)
  }
  return dates;
}

/** UTC under any of its names, or none given: no zone in the name. */
const UTC_NAMES = new Set(['', 'UTC', 'Etc/UTC']);

/**
 * The outputTZ as a name part (`America/New_York` -> `America-New_York`; a sign stays, as `Etc/GMT+5`
 * and `Etc/GMT-5` are different zones), or null for UTC.
 */
function zonePart(req: ExportRequest): string | null {
  const zone = stringArg(req.args, ARG.outputTZ).trim();
  if (UTC_NAMES.has(zone)) return null;
  return zone.replace(/\//g, '-').replace(/[^\w.+-]+/g, '-');
}

/** The file name an export of this request's result takes. */
export function exportName(req: ExportRequest, header: { readonly startTS?: string; readonly endTS?: string }, ext: string): string {
  const op = safe(req.operation.split('.').pop() ?? req.operation);
  const table = safe(stringArg(req.args, ARG.table) || 'result');
  const zone = zonePart(req);
  return `${[op, table, ...windowDates(req, header), ...(zone ? [zone] : [])].join('_')}.${ext}`;
}
