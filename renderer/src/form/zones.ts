/** Time-zone names for the zone picker: UTC and the platform's IANA zones, common ones first. */
import { checkTimestamp } from './time-text';

/** Zones most users want, offered first. */
export const COMMON_ZONES: readonly string[] = [
  'UTC', 'America/New_York', 'Europe/London', 'Asia/Tokyo', 'America/Chicago', 'Europe/Paris', 'Europe/Berlin',
  'Europe/Zurich', 'Asia/Hong_Kong', 'Asia/Singapore', 'Asia/Shanghai', 'Asia/Kolkata', 'Australia/Sydney',
  'America/Los_Angeles', 'America/Toronto', 'America/Sao_Paulo',
];

let all: readonly string[] | undefined;

/** Every zone name: common ones first, then the platform's list (computed once). */
export function allZones(): readonly string[] {
  if (!all) {
    const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
    all = [...new Set([...COMMON_ZONES, ...(intl.supportedValuesOf?.('timeZone') ?? [])])];
  }
  return all;
}

const norm = (s: string): string => s.toLowerCase().replace(/[_\s]+/g, ' ');

/**
 * Zones matching a query, best first: recent picks, then names whose city starts with it, then any
 * part starting with it, then containing it. An empty query lists recent, common, then all.
 */
export function searchZones(query: string, recent: readonly string[] = [], zones: readonly string[] = allZones()): string[] {
  const q = norm(query.trim());
  const ordered = [...new Set([...recent.filter((z) => zones.includes(z)), ...zones])];
  if (q === '') return ordered;
  const rank = (z: string): number => {
    const n = norm(z);
    const city = n.slice(n.lastIndexOf('/') + 1);
    if (n === q || city === q) return 0;
    if (city.startsWith(q)) return 1;
    if (n.startsWith(q) || n.split('/').some((p) => p.startsWith(q))) return 2;
    if (n.includes(q)) return 3;
    return 9;
  };
  const recentSet = new Set(recent);
  return ordered
    .map((z, i) => ({ z, i, r: rank(z) }))
    .filter((x) => x.r < 9)
    .sort((a, b) => a.r - b.r || Number(recentSet.has(b.z)) - Number(recentSet.has(a.z)) || a.i - b.i)
    .map((x) => x.z);
}

/** True when the platform knows the zone (as the engine, an IANA name; UTC too). */
export function isKnownZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The zone's current UTC offset, such as `UTC-05:00` (empty for an unknown zone). */
export function zoneOffset(name: string, at: Date = new Date()): string {
  try {
    const part = new Intl.DateTimeFormat('en', { timeZone: name, timeZoneName: 'longOffset' })
      .formatToParts(at)
      .find((p) => p.type === 'timeZoneName')?.value;
    return part === 'GMT' ? 'UTC+00:00' : (part?.replace('GMT', 'UTC') ?? '');
  } catch {
    return '';
  }
}

/** A zone's short label for tight places: its city (`America/New_York` → `New York`). */
export function shortZone(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1).replace(/_/g, ' ');
}

/** Minutes east of UTC of an offset label (`UTC-05:00` → -300), 0 when it has none. */
function offsetMinutes(label: string): number {
  const m = /([+-])(\d{2}):(\d{2})$/.exec(label);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** A form's time text as an instant: local texts read in `zone`; undefined for an empty, infinite or bad text. */
function instantOf(text: string, zone: string): number | undefined {
  const c = checkTimestamp(text);
  if (!c || !c.ok || c.kind === 'infinite') return undefined;
  const { y, m, d, nsOfDay } = c.local;
  const wall = Date.UTC(y, m - 1, d) + Math.floor(nsOfDay / 1e6);
  if (c.kind === 'instant') return wall - offsetMinutes(c.offset) * 60_000;
  // a wall-clock time: its zone's offset then (read twice, so an instant near a change settles)
  const guess = wall - offsetMinutes(zoneOffset(zone, new Date(wall))) * 60_000;
  return wall - offsetMinutes(zoneOffset(zone, new Date(guess))) * 60_000;
}

/**
 * The UTC offsets of `zone` over a form's window (startTS and just before endTS, local texts read in
 * `inputZone`): one label when the window has one offset, both when it crosses a change (`UTC-04:00 → -05:00`); today's offset when the window gives no date. `dated` says whether the window gave one.
 */
export function windowOffsets(zone: string, startText: string, endText: string, inputZone: string): { readonly label: string; readonly dated: boolean } {
  const start = instantOf(startText, inputZone);
  const endAt = instantOf(endText, inputZone);
  const end = endAt === undefined ? undefined : endAt - 1;
  const at = [start, end].filter((x): x is number => x !== undefined && Number.isFinite(x));
  if (at.length === 0) return { label: zoneOffset(zone), dated: false };
  const labels = [...new Set(at.map((t) => zoneOffset(zone, new Date(t))))];
  return { label: labels.map((l, i) => (i > 0 ? l.replace(/^UTC/, '') : l)).join(' → '), dated: true };
}
