/**
 * Wall-clock times of a zone read as instants: a kdb+ database's times (SPEC 11: wall-clock times of
 * its zone, UTC unless its settings name another) and a mapped import's times of day. Each is placed
 * in the zone by the `compatible` rule a query's inputTZ uses (tz.ts): a wall time in a
 * spring-forward gap moves forward, one in a fall-back overlap takes the earlier instant.
 *
 * Most times are far from a transition: the zone's offset at the wall time read as an instant gives
 * an instant in a period of that same offset, more than a day from either end, and that is the
 * answer; only within a day of a transition is the exact rule asked.
 */
import { civilFromDays, NS_PER_DAY, splitDay } from './time.js';
import { isUtcZone, localToInstant, zoneOffsets } from './tz.js';

const INT64_NULL = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** True when the zone needs no conversion. */
export const isUtcDatabase = (zone: string | undefined): boolean => zone === undefined || isUtcZone(zone) || zone === 'GMT' || zone === 'Etc/GMT';

/** Wall-clock times of `zone` (ns since 1970 as if UTC) as instants, in place; nulls and infinities kept. */
export function wallToInstants(data: BigInt64Array, zone: string): BigInt64Array {
  const offsets = zoneOffsets(zone);
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if (v === INT64_NULL || v === INT64_MAX || v === -INT64_MAX) continue;
    const first = offsets.offsetAt(v);
    const u = v - first;
    const seg = offsets.segmentOf(u);
    // the instant's offset is the one assumed, and no transition is within a day (no gap or overlap to rule on)
    if (seg.offsetNs === first && u - seg.start > NS_PER_DAY && seg.end - u > NS_PER_DAY) {
      data[i] = u;
      continue;
    }
    const { days, nsOfDay } = splitDay(v);
    const { y, m, d } = civilFromDays(days);
    data[i] = localToInstant({ y, m, d, nsOfDay }, zone);
  }
  return data;
}
