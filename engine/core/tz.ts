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
