/** Time-zone names for the zone picker: UTC and the platform's IANA zones, common ones first. */

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
