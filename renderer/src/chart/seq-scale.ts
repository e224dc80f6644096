/**
 * A horizontal scale keyed by result row (sequence), not by time: lightweight-charts needs unique,
 * ascending keys, and ticks share seconds and even nanoseconds. Every tick gets its own slot; labels
 * come from the tick's nanosecond timestamp in the result's zone.
 */
import type {
  ChartOptionsImpl,
  DataItem,
  IHorzScaleBehavior,
  InternalHorzScaleItem,
  InternalHorzScaleItemKey,
  LocalizationOptions,
  Mutable,
  TickMark,
  TickMarkWeightValue,
  TimeMark,
  TimeScalePoint,
} from 'lightweight-charts';
import { ZoneClock } from './zone-clock';

const DAY_MS = 86_400_000;

/** Tick-mark weight of the boundary between two local times (ms): bigger boundaries weigh more. */
export function boundaryWeight(prevMs: number, ms: number): number {
  const units: Array<[number, number]> = [
    [DAY_MS, 50],
    [3_600_000, 30],
    [1_800_000, 22],
    [300_000, 21],
    [60_000, 20],
    [10_000, 11],
    [1_000, 10],
    [100, 3],
    [10, 2],
    [1, 1],
  ];
  for (const [unit, weight] of units) if (Math.floor(prevMs / unit) !== Math.floor(ms / unit)) return weight;
  return 0;
}

export class SeqHorzScale implements IHorzScaleBehavior<number> {
  private opts!: ChartOptionsImpl<number>;
  private readonly slot = new Map<number, number>();
  private ts: BigInt64Array = new BigInt64Array(0);
  private localMs: Float64Array = new Float64Array(0);
  private clock = new ZoneClock('UTC');

  /** The points of the current data: result rows and their timestamps (UTC ns), in the zone. */
  setPoints(seq: Int32Array, ts: BigInt64Array, zone: string): void {
    this.clock = new ZoneClock(zone);
    this.slot.clear();
    seq.forEach((s, i) => this.slot.set(s, i));
    this.ts = ts;
    this.localMs = new Float64Array(ts.length);
    let offset = ts.length ? this.clock.offsetMs(ts[0]!) : 0;
    for (let i = 0; i < ts.length; i++) {
      // Re-read the offset hourly so weights follow DST changes inside the data.
      const ms = Number(ts[i]! / 1_000_000n);
      if (i > 0 && Math.floor(ms / 3_600_000) !== Math.floor((this.localMs[i - 1]! - offset) / 3_600_000)) offset = this.clock.offsetMs(ts[i]!);
      this.localMs[i] = ms + offset;
    }
  }

  /** The points' local times (ms), one per slot: what the zoom's spans are measured in. */
  localTimes(): Float64Array {
    return this.localMs;
  }

  /** The index in the data of a result row on the chart, if plotted. */
  indexOf(seq: number): number | undefined {
    return this.slot.get(seq);
  }

  /** The timestamp (UTC ns) of a result row on the chart, if plotted. */
  timeOf(seq: number): bigint | undefined {
    const i = this.slot.get(seq);
    return i === undefined ? undefined : this.ts[i];
  }

  options(): ChartOptionsImpl<number> {
    return this.opts;
  }
  setOptions(options: ChartOptionsImpl<number>): void {
    this.opts = options;
  }
  preprocessData(_data: DataItem<number> | DataItem<number>[]): void {}
  updateFormatter(options: LocalizationOptions<number>): void {
    if (this.opts) this.opts.localization = options;
  }
  createConverterToInternalObj(): (time: number) => InternalHorzScaleItem {
    return (time) => time as unknown as InternalHorzScaleItem;
  }
  key(item: InternalHorzScaleItem | number): InternalHorzScaleItemKey {
    return item as unknown as InternalHorzScaleItemKey;
  }
  cacheKey(item: InternalHorzScaleItem): number {
    return item as unknown as number;
  }
  convertHorzItemToInternal(item: number): InternalHorzScaleItem {
    return item as unknown as InternalHorzScaleItem;
  }
  formatHorzItem(item: InternalHorzScaleItem): string {
    const ns = this.timeOf(item as unknown as number);
    return ns === undefined ? '' : this.clock.full(ns);
  }
  formatTickmark(mark: TickMark): string {
    const ns = this.timeOf(mark.time as unknown as number);
    if (ns === undefined) return '';
    const p = this.clock.parts(ns);
    const w = mark.weight as number;
    if (w >= 50) return p.date;
    if (w >= 20) return p.time.slice(0, 5);
    if (w >= 10) return p.time;
    return `${p.time}.${p.frac.slice(0, 3)}`;
  }
  maxTickMarkWeight(marks: TimeMark[]): TickMarkWeightValue {
    let max = 0;
    for (const m of marks) if ((m.weight as number) > max) max = m.weight as number;
    return max as TickMarkWeightValue;
  }
  fillWeightsForPoints(points: readonly Mutable<TimeScalePoint>[], startIndex: number): void {
    for (let i = startIndex; i < points.length; i++) {
      const slot = this.slot.get(points[i]!.time as unknown as number);
      const prev = i > 0 ? this.slot.get(points[i - 1]!.time as unknown as number) : undefined;
      const weight =
        slot === undefined ? 0 : prev === undefined ? 50 : boundaryWeight(this.localMs[prev]!, this.localMs[slot]!);
      points[i]!.timeWeight = weight as TickMarkWeightValue;
    }
  }
}
