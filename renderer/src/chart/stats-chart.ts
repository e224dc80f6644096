/**
 * The stats chart adapter: lightweight-charts driven imperatively from a stats model and its plan.
 * One slot per bucket on the sequence-keyed scale (buckets may be a millisecond apart), labels in the
 * result's outputTZ; per group candles (up green, down red) or lines in pane 0, further line panes,
 * the spread pane and volume histograms (auction-sized bars clipped to a robust scale, in the clipped
 * colour), each pane after the first titled (the readout over pane 0 names it). Groups show and hide
 * without rebuilding the series.
 */
import {
  CandlestickSeries,
  createChartEx,
  createTextWatermark,
  HistogramSeries,
  type IChartApiBase,
  type ISeriesApi,
  LineSeries,
  LineStyle,
  type MouseEventParams,
  PriceScaleMode,
  type SeriesType,
} from 'lightweight-charts';
import { withAlpha } from '../stats/group-colours';
import type { ChartPlan } from '../stats/chart-plan';
import { scaleKey } from '../stats/readout';
import { seriesOf, type StatsModel } from '../stats/stats-model';
import { baseChartOptions, clippedColour, upDownColours } from './chart-theme';
import { SeqHorzScale } from './seq-scale';
import { drawnValue, isClipped, type VolumeScale } from './volume-scale';

const bookColours = (): Readonly<Record<string, string>> => {
  const { up, down } = upDownColours();
  return { bestBid: up, bestAsk: down, midPoint: '#4ea1ff', spread: '#e6b450' };
};

export interface StatsChartHandlers {
  /** The crosshair moved to a bucket slot (null: left the chart), over a group's series if any. */
  readonly onHover: (slot: number | null, group: number | null) => void;
  readonly onClick: (slot: number) => void;
}

export interface StatsChartData {
  readonly model: StatsModel;
  readonly plan: ChartPlan;
  readonly colours: readonly string[];
  readonly zone: string;
  /** Volume scales of the histogram columns, by scaleKey(column, group): bars above a top are drawn clipped. */
  readonly scales: ReadonlyMap<string, VolumeScale>;
}

interface Drawn {
  readonly series: ISeriesApi<SeriesType, number>;
  readonly group: number;
}

const points = (values: Float64Array | undefined): Array<{ time: number; value?: number }> =>
  Array.from(values ?? [], (v, time) => (Number.isFinite(v) ? { time, value: v } : { time }));

/** Histogram points, the bars above the scale's top drawn at the top in the clipped colour. */
function bars(values: Float64Array | undefined, scale: VolumeScale | undefined, clipped: string): Array<{ time: number; value?: number; color?: string }> {
  return Array.from(values ?? [], (v, time) => {
    if (!Number.isFinite(v)) return { time };
    return scale && isClipped(scale, v) ? { time, value: drawnValue(scale, v), color: clipped } : { time, value: v };
  });
}

/** The chart of one stats result in a host element; React owns the host, this class the chart. */
export class StatsChart {
  private chart: IChartApiBase<number> | null = null;
  private data: StatsChartData | null = null;
  private drawn: Drawn[] = [];
  /** Groups whose series exist: series are made when a group is first shown (results may have hundreds). */
  private made = new Set<number>();
  private titled = false;
  private readonly scale = new SeqHorzScale();

  constructor(
    private readonly el: HTMLElement,
    private readonly handlers: StatsChartHandlers,
  ) {}

  /** Takes a model (rebuilding the chart); its groups are drawn by setShown. */
  setData(data: StatsChartData): void {
    this.remove();
    const chart = createChartEx<number, SeqHorzScale>(this.el, this.scale, baseChartOptions(0.5));
    this.chart = chart;
    this.data = data;
    const n = data.model.times.length;
    this.scale.setPoints(Int32Array.from({ length: n }, (_, i) => i), data.model.times, data.zone);
    chart.subscribeCrosshairMove((param: MouseEventParams<number>) => {
      const hovered = param.hoveredSeries ? this.drawn.find((d) => d.series === param.hoveredSeries)?.group : undefined;
      this.handlers.onHover(param.time ?? null, hovered ?? null);
    });
    chart.subscribeClick((param: MouseEventParams<number>) => {
      if (param.time !== undefined) this.handlers.onClick(param.time);
    });
  }

  /** The series of one group, in every pane of the plan. */
  private draw(g: number): void {
    const chart = this.chart;
    const data = this.data;
    if (!chart || !data) return;
    const { model, plan, colours, scales } = data;
    const n = model.times.length;
    const single = model.groups.length === 1;
    const colour = colours[g] ?? '#4ea1ff';
    const { up, down } = upDownColours();
    const clipped = clippedColour();
    const book = bookColours();
    const add = (s: ISeriesApi<SeriesType, number>): void => void this.drawn.push({ series: s, group: g });
    plan.panes.forEach((pane, p) => {
      if (p === 0 && plan.candles) {
        const c = plan.candles;
        const [o, h, l, cl] = [c.open, c.high, c.low, c.close].map((col) => seriesOf(model, col, g));
        const s = chart.addSeries(
          CandlestickSeries,
          single
            ? { upColor: up, downColor: down, borderUpColor: up, borderDownColor: down, wickUpColor: up, wickDownColor: down, priceLineVisible: false, lastValueVisible: false }
            : // Several groups: bodies up green and down red, outlined and wicked in the group's colour.
              { upColor: up, downColor: down, borderUpColor: colour, borderDownColor: colour, wickUpColor: colour, wickDownColor: colour, priceLineVisible: false, lastValueVisible: false },
          0,
        );
        s.setData(Array.from({ length: n }, (_, time) => {
          const v = [o?.[time], h?.[time], l?.[time], cl?.[time]] as number[];
          return v.every(Number.isFinite) ? { time, open: v[0]!, high: v[1]!, low: v[2]!, close: v[3]! } : { time };
        }));
        add(s);
      }
      for (const col of pane.lines) {
        const bookColour = plan.book && (p === 0 || pane.kind === 'spread') ? book[col] : undefined;
        const s = chart.addSeries(
          LineSeries,
          {
            color: bookColour ?? colour,
            lineWidth: 1,
            // Lines over candles and the mid are dashed, so bodies and bid/ask stay the eye's anchors.
            lineStyle: col === 'midPoint' || (p === 0 && plan.candles) ? LineStyle.Dashed : LineStyle.Solid,
            priceLineVisible: false,
            lastValueVisible: false,
            // With one group, names tell the lines of a pane apart on the scale; with more, the readout does.
            title: single && pane.lines.length + (p === 0 && plan.candles ? 1 : 0) > 1 ? col : '',
          },
          p,
        );
        s.setData(points(seriesOf(model, col, g)));
        add(s);
      }
      for (const col of pane.histograms) {
        const s = chart.addSeries(HistogramSeries, { color: withAlpha(colour, single ? 0.7 : 0.5), priceFormat: { type: 'volume' }, priceLineVisible: false, lastValueVisible: false }, p);
        s.setData(bars(seriesOf(model, col, g), scales.get(scaleKey(col, g)), clipped));
        add(s);
      }
    });
    this.made.add(g);
    if (!this.titled) {
      this.titled = true;
      chart.panes().forEach((pane, p) => {
        pane.setStretchFactor(p === 0 ? 3 : 1);
        // pane 0's title heads the readout over it
        const title = p === 0 ? null : plan.panes[p]?.title;
        if (title) createTextWatermark(pane, { horzAlign: 'left', vertAlign: 'top', lines: [{ text: title, color: 'rgba(174, 182, 194, 0.45)', fontSize: 11 }] });
      });
      chart.timeScale().fitContent();
    }
  }

  /** Shows only the series of these groups (drawing groups shown for the first time). */
  setShown(shown: ReadonlySet<number>): void {
    for (const g of [...shown].sort((a, b) => a - b)) if (!this.made.has(g)) this.draw(g);
    for (const d of this.drawn) d.series.applyOptions({ visible: shown.has(d.group) });
  }

  /** Pane 0 in percent of the first visible value (groups at different price levels side by side). */
  setPercent(percent: boolean): void {
    if (this.titled) this.chart?.priceScale('right', 0).applyOptions({ mode: percent ? PriceScaleMode.Percentage : PriceScaleMode.Normal });
  }

  /**
   * Room at the top of pane 0 for the readout over it (px): the price scale's top margin, up to a
   * third of the pane (beyond, the readout floats over the top of the series).
   */
  setReadoutSpace(px: number): void {
    const pane = this.titled ? this.chart?.panes()[0] : undefined;
    const h = pane?.getHeight() ?? 0;
    if (!pane || h <= 0) return;
    const top = Math.min(0.33, Math.max(0.05, px / h));
    this.chart?.priceScale('right', 0).applyOptions({ scaleMargins: { top, bottom: 0.06 } });
  }

  /** Puts the crosshair on a slot (keyboard stepping), on the first visible series of a group. */
  showSlot(slot: number | null, group: number | null): void {
    const chart = this.chart;
    if (!chart) return;
    if (slot === null) return chart.clearCrosshairPosition();
    const d = this.drawn.find((x) => (group === null || x.group === group) && x.series.options().visible) ?? this.drawn[0];
    const bar = d?.series.dataByIndex(slot) as { value?: number; close?: number } | null | undefined;
    const price = bar?.value ?? bar?.close;
    if (d && price !== undefined) chart.setCrosshairPosition(price, slot, d.series);
  }

  /** Removes the chart. */
  remove(): void {
    this.chart?.remove();
    this.chart = null;
    this.data = null;
    this.drawn = [];
    this.made = new Set();
    this.titled = false;
  }
}
