/**
 * From a bucket of a plotOrderbookSnapshots getStats result to the getTicks call that shows its book
 * in the depth ladder: the same table and zones, the group's identifier, and the bucket's own window
 * (SPEC 5.2), so the ladder's best bid and ask are the series' values at that bucket. Bounds are sent
 * as absolute instants (ISO with Z, nanoseconds), which DST cannot make ambiguous.
 */
import { ARG } from '../../../engine/contract';
import { ZoneClock } from '../chart/zone-clock';
import { givenArgs } from '../form/args';
import { checkTimestamp } from '../form/time-text';

const NS_PER_MS = 1_000_000n;
const DAY_NS = 86_400_000_000_000n;
const UNIT_NS: Readonly<Record<string, bigint>> = {
  millisecond: 1_000_000n,
  second: 1_000_000_000n,
  minute: 60_000_000_000n,
  hour: 3_600_000_000_000n,
  day: DAY_NS,
};

/** `2024-03-06T14:30:00.000000001Z`: an instant to the nanosecond. */
export function isoInstant(ns: bigint): string {
  const p = new ZoneClock('UTC').parts(ns);
  return `${p.date}T${p.time}.${p.frac}Z`;
}

/** The instant (UTC ns) a timestamp text stands for in a zone (SPEC 2 forms); null for empty or infinite. */
export function instantOf(text: string, zone: string): bigint | null {
  const c = checkTimestamp(text);
  if (!c?.ok || c.kind === 'infinite') return null;
  const { y, m, d, nsOfDay } = c.local;
  const wall = BigInt(Date.UTC(y, m - 1, d)) * NS_PER_MS + BigInt(nsOfDay);
  if (c.kind === 'instant') {
    if (c.offset === 'UTC') return wall;
    const sign = c.offset.startsWith('-') ? -1n : 1n;
    const [hh, mm] = [Number(c.offset.slice(1, 3)), Number(c.offset.replace(':', '').slice(3, 5))];
    return wall - sign * BigInt((hh * 60 + mm) * 60_000) * NS_PER_MS;
  }
  const clock = new ZoneClock(zone);
  // The offset at the wall time read as UTC, then at the instant that gives: right except inside a DST gap.
  const guess = wall - BigInt(clock.offsetMs(wall)) * NS_PER_MS;
  return wall - BigInt(clock.offsetMs(guess)) * NS_PER_MS;
}

/** The bucket arguments of a getStats call. */
export interface BucketSpec {
  readonly unit: string;
  readonly granularity: number;
  readonly movingWindowSize: number | null;
  readonly zone: string;
}

/** `n` units after an instant; day units are calendar days of the zone (23 or 25 hours across DST). */
function addUnits(ns: bigint, n: number, unit: string, zone: string): bigint {
  const step = UNIT_NS[unit] ?? 0n;
  const plain = ns + step * BigInt(n);
  if (unit !== 'day') return plain;
  const clock = new ZoneClock(zone);
  return plain + BigInt(clock.offsetMs(ns) - clock.offsetMs(plain)) * NS_PER_MS;
}

/**
 * The window [start, end) a bucket aggregates (SPEC 5.2): a label is its bucket's start, or with a
 * moving window its end, with the window reaching back movingWindowSize units. Clipped to the call's window.
 */
export function bucketWindow(label: bigint, b: BucketSpec, window: { start: bigint | null; end: bigint | null }): { start: bigint; end: bigint } {
  let start: bigint;
  let end: bigint;
  if (b.movingWindowSize !== null) {
    end = label;
    start = addUnits(label, -b.movingWindowSize, b.unit, b.zone);
  } else {
    start = label;
    end = addUnits(label, b.granularity, b.unit, b.zone);
  }
  if (window.start !== null && start < window.start) start = window.start;
  if (window.end !== null && end > window.end) end = window.end;
  return { start, end };
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const positive = (v: unknown): number | null => (/^\s*\d+\s*$/.test(text(v)) && Number(v) > 0 ? Number(v) : null);

/** The bucket arguments of a getStats request body, or null when it has no buckets. */
export function bucketSpec(args: Readonly<Record<string, unknown>>): BucketSpec | null {
  const unit = text(args[ARG.granularityUnit.name]);
  if (!(unit in UNIT_NS)) return null;
  return {
    unit,
    granularity: positive(args[ARG.granularity.name]) ?? 1,
    movingWindowSize: positive(args[ARG.movingWindowSize.name]),
    zone: text(args[ARG.inputTZ.name]) || 'UTC',
  };
}

/**
 * The getTicks body that reads the book of one group at one bucket of a getStats call (or over its
 * whole window when it has no buckets, `label` null). Null when the request has no table.
 */
export function ladderArgs(stats: Readonly<Record<string, unknown>>, id: string, label: bigint | null): Record<string, unknown> | null {
  const table = text(stats[ARG.table.name]);
  if (!table) return null;
  const zone = text(stats[ARG.inputTZ.name]) || 'UTC';
  const window = { start: instantOf(text(stats[ARG.startTS.name]), zone), end: instantOf(text(stats[ARG.endTS.name]), zone) };
  const spec = bucketSpec(stats);
  const w = label !== null && spec ? bucketWindow(label, spec, window) : null;
  return {
    [ARG.table.name]: table,
    [ARG.orderbook.name]: 'plotOrderbookSnapshots',
    [ARG.idList.name]: [id],
    ...(w ? { [ARG.startTS.name]: isoInstant(w.start), [ARG.endTS.name]: isoInstant(w.end) } : givenArgs(stats, [ARG.startTS, ARG.endTS])),
    ...givenArgs(stats, [ARG.inputTZ, ARG.outputTZ, ARG.scope]),
  };
}
