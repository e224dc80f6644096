/** The query window: startTS/endTS in inputTZ resolved to instants (SPEC 4). */
import { TickscopeError, argError } from '../core/errors.js';
import { NEG_INF_TS, POS_INF_TS, partitionKey, type TimestampLiteral } from '../core/time.js';
import { expectedZone, isKnownZone, localToInstant } from '../core/tz.js';
import type * as ARG from '../registry/args.js';
import type { ArgsFor } from '../registry/decode.js';

/** The instant of a timestamp literal, local forms read in `zone`. */
export function resolveTimestamp(t: TimestampLiteral, zone: string): bigint {
  return t.kind === 'instant' ? t.ns : localToInstant(t.local, zone);
}

/** A zone argument, checked; its default is UTC. */
export function zoneArg(args: ArgsFor<typeof ARG.inputTZ | typeof ARG.outputTZ>, name: typeof ARG.inputTZ.name | typeof ARG.outputTZ.name): string {
  const zone = args.must(name);
  if (!isKnownZone(zone)) {
    throw argError('unknownTimeZone', name, zone, 'is not a known time zone', expectedZone(zone));
  }
  return zone;
}

export interface Window {
  readonly start: bigint;
  readonly end: bigint;
}

/** startTS and endTS resolved in inputTZ; start must be before end (ac 23, as the reference service). */
export function windowArg(args: ArgsFor<typeof ARG.startTS | typeof ARG.endTS>, inputTZ: string): Window {
  const s = args.get('startTS');
  const e = args.get('endTS');
  const start = s ? resolveTimestamp(s, inputTZ) : NEG_INF_TS;
  const end = e ? resolveTimestamp(e, inputTZ) : POS_INF_TS;
  if (start >= end) throw new TickscopeError('startNotBeforeEnd', 'startTS >= endTS');
  return { start, end };
}

/** Partition keys of the window, as an inclusive range of UTC date keys. */
export function partitionRange(w: Window): { first: string; last: string } {
  return {
    first: w.start <= NEG_INF_TS ? '' : partitionKey(w.start),
    last: w.end >= POS_INF_TS ? '\uffff' : partitionKey(w.end - 1n),
  };
}
