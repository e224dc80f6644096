/**
 * Chart labels for int64 UTC nanosecond timestamps in the result's outputTZ. Wall-clock parts come
 * from Intl (the platform's zone data); the sub-second digits come from the integer, so labels keep
 * all nine fractional digits.
 */

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

export interface ClockParts {
  readonly date: string;
  readonly time: string;
  /** Nine fractional digits. */
  readonly frac: string;
}

export class ZoneClock {
  private readonly fmt: Intl.DateTimeFormat;

  constructor(readonly zone: string) {
    this.fmt = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
  }

  /** Local date, time and fraction of an instant. */
  parts(ns: bigint): ClockParts {
    let sec = ns / NS_PER_S;
    let rem = ns % NS_PER_S;
    if (rem < 0n) {
      rem += NS_PER_S;
      sec -= 1n;
    }
    const p: Record<string, string> = {};
    for (const part of this.fmt.formatToParts(new Date(Number(sec) * 1000))) p[part.type] = part.value;
    return { date: `${p['year']}-${p['month']}-${p['day']}`, time: `${p['hour']}:${p['minute']}:${p['second']}`, frac: String(rem).padStart(9, '0') };
  }

  /** `2024-03-06 09:30:00.123456789` */
  full(ns: bigint): string {
    const p = this.parts(ns);
    return `${p.date} ${p.time}.${p.frac}`;
  }

  /** The zone's offset from UTC (ms) at an instant. */
  offsetMs(ns: bigint): number {
    const ms = Number(ns / NS_PER_MS);
    const p = this.parts(ns);
    const [y, mo, d] = p.date.split('-').map(Number) as [number, number, number];
    const [h, mi, s] = p.time.split(':').map(Number) as [number, number, number];
    return Date.UTC(y, mo - 1, d, h, mi, s) - (ms - (((ms % 1000) + 1000) % 1000));
  }
}
