/**
 * Time zones through the Temporal polyfill (IANA data from the platform's Intl). Local times resolve
 * by Temporal's `compatible` rule: a time in a DST gap moves forward by the gap, an ambiguous time takes
 * the earlier instant. Rendering uses cached offset segments so a result of a million rows asks
 * Temporal only once per DST period.
 */
import { createRequire } from 'node:module';
import type { Temporal as TemporalApi } from 'temporal-polyfill';
import { type LocalDateTime, localAsUtcNs, NEG_INF_TS, POS_INF_TS } from './time.js';

/**
 * The polyfill's module, relative to the built bundle: scripts/build.mjs bundles it into one file,
 * dist/vendor/temporal.js, and defines this name. Run from source (tests), the package itself.
 */
declare const TICKSCOPE_TEMPORAL_MODULE: string | undefined;

let temporalApi: typeof TemporalApi | undefined;

/**
 * Temporal, loaded on first use: a query whose zones are all UTC (the default) never loads it, which
 * keeps its parsing and set-up (~10 ms) out of every cold start.
 */
function temporal(): typeof TemporalApi {
  if (!temporalApi) {
    const specifier = typeof TICKSCOPE_TEMPORAL_MODULE === 'string' ? TICKSCOPE_TEMPORAL_MODULE : 'temporal-polyfill';
    temporalApi = (createRequire(import.meta.url)(specifier) as { Temporal: typeof TemporalApi }).Temporal;
  }
  return temporalApi;
}

const validity = new Map<string, boolean>([
  ['UTC', true],
  ['Etc/UTC', true],
]);

/** True when the zone name is one the platform knows (IANA names, `UTC`). */
export function isKnownZone(zone: string): boolean {
  let known = validity.get(zone);
  if (known === undefined) {
    try {
      temporal().ZonedDateTime.from({ timeZone: zone, year: 2000, month: 1, day: 1 });
      known = zone.length > 0;
    } catch {
      known = false;
    }
    validity.set(zone, known);
  }
  return known;
}

const isUtc = (zone: string): boolean => zone === 'UTC' || zone === 'Etc/UTC';

/**
 * True for UTC (also `Etc/UTC`, and no zone at all): where CSV timestamps go without an offset and
 * export names without a zone (SPEC 8). Any other zone's CSV text carries each instant's offset.
 */
export const isUtcZone = (zone: string): boolean => zone === '' || isUtc(zone);

/** The instant of a local date-time in a zone, by the `compatible` disambiguation rule. */
export function localToInstant(local: LocalDateTime, zone: string): bigint {
  if (isUtc(zone)) return localAsUtcNs(local);
  const ns = local.nsOfDay;
  const second = Math.floor(ns / 1e9);
  const frac = ns - second * 1e9;
  const pdt = new (temporal().PlainDateTime)(
    local.y,
    local.m,
    local.d,
    Math.floor(second / 3600),
    Math.floor((second % 3600) / 60),
    second % 60,
    Math.floor(frac / 1e6),
    Math.floor((frac % 1e6) / 1e3),
    frac % 1e3,
  );
  return pdt.toZonedDateTime(zone, { disambiguation: 'compatible' }).epochNanoseconds;
}

/** A period [start, end) during which a zone's UTC offset is constant. */
export interface Segment {
  readonly start: bigint;
  readonly end: bigint;
  readonly offsetNs: bigint;
}

const ALWAYS_UTC: Segment = { start: NEG_INF_TS - 1n, end: POS_INF_TS + 1n, offsetNs: 0n };

/** Offsets of one zone, cached as the periods between its transitions. */
export class ZoneOffsets {
  private readonly segments: Segment[] = [];
  private last: Segment | undefined;

  constructor(readonly zone: string) {}

  /** The zone's UTC offset (ns) at an instant. */
  offsetAt(ns: bigint): bigint {
    return this.segmentOf(ns).offsetNs;
  }

  /** The period of constant offset holding an instant. */
  segmentOf(ns: bigint): Segment {
    if (isUtc(this.zone) || ns <= NEG_INF_TS || ns >= POS_INF_TS) return ALWAYS_UTC;
    const last = this.last;
    if (last && ns >= last.start && ns < last.end) return last;
    for (const seg of this.segments) {
      if (ns >= seg.start && ns < seg.end) {
        this.last = seg;
        return seg;
      }
    }
    const seg = this.segmentAt(ns);
    this.segments.push(seg);
    this.last = seg;
    return seg;
  }

  private segmentAt(ns: bigint): Segment {
    const zdt = temporal().Instant.fromEpochNanoseconds(ns).toZonedDateTimeISO(this.zone);
    const prev = zdt.getTimeZoneTransition('previous');
    const next = zdt.getTimeZoneTransition('next');
    return {
      start: prev ? prev.epochNanoseconds : NEG_INF_TS,
      end: next ? next.epochNanoseconds : POS_INF_TS,
      offsetNs: BigInt(zdt.offsetNanoseconds),
    };
  }
}

const offsetCache = new Map<string, ZoneOffsets>();

/** The shared offset cache for a zone. */
export function zoneOffsets(zone: string): ZoneOffsets {
  let z = offsetCache.get(zone);
  if (!z) {
    z = new ZoneOffsets(zone);
    offsetCache.set(zone, z);
  }
  return z;
}

/** Every zone name the platform knows (IANA), ascending. */
export function zoneNames(): readonly string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')].sort();
}

/** Edit distance between two names, case ignored. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[y.length]!;
}

/**
 * Known zone names near an unknown one, best first (at most `max`): those whose city or whole name
 * contains it or it contains (New_York -> America/New_York), then the closest by spelling.
 */
export function nearZones(name: string, max = 5): string[] {
  const want = name.trim().toLowerCase().replace(/\s+/g, '_');
  if (!want) return [];
  const all = zoneNames();
  const city = (z: string): string => z.slice(z.lastIndexOf('/') + 1).toLowerCase();
  const contained = all.filter((z) => z.toLowerCase().includes(want) || (city(z).length > 2 && want.includes(city(z))));
  const scored = all
    .filter((z) => !contained.includes(z))
    .map((z) => ({ z, d: Math.min(distance(want, z), distance(want, city(z))) }))
    .filter(({ d }) => d <= Math.max(2, Math.floor(want.length / 3)))
    .sort((a, b) => a.d - b.d || (a.z < b.z ? -1 : 1))
    .map(({ z }) => z);
  return [...contained, ...scored].slice(0, max);
}

/** What an error expects in place of an unknown zone: the known names near it, or examples. */
export function expectedZone(name: string): string {
  const near = nearZones(name);
  return near.length > 0 ? `an IANA zone name; near it: ${near.join(', ')}` : 'an IANA zone name such as America/New_York, Europe/London or UTC';
}
