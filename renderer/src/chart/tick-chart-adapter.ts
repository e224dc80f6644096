/**
 * The tick chart adapter: lightweight-charts driven from the store outside React. It subscribes to
 * the store, and whenever what is to be charted changes (the result, its zone, the line and bar
 * columns, the instrument) it asks for the points and draws them on a chart made for them.
 *
 * Every plot has its own identity (the result's id, the columns, the instrument, the zone): a new
 * plot gets a new chart and a new sequence scale, never the last one's. lightweight-charts caches
 * tick-mark labels by the scale's keys, and the keys here are result rows, which every result reuses
 * from 0: a chart kept across results showed the old result's times (the old day, the old zone) on
 * its axis. The old chart stays on screen until the new points arrive, so a re-run does not flash.
 */
import { tableFromIPC } from 'apache-arrow';
import { type ChartOptionsImpl, createChartEx, type DeepPartial, HistogramSeries, type IChartApiBase, type ISeriesApi, LineSeries, type MouseEventParams } from 'lightweight-charts';
import type { StoreApi } from 'zustand/vanilla';
import { backend } from '../backend';
import type { AppState } from '../store/state';
import { baseChartOptions, clippedColour } from './chart-theme';
import { idToShow } from './kept-choice';
import { SeqHorzScale } from './seq-scale';
import { drawnValue, isClipped, volumeScale, type VolumeScale } from './volume-scale';
import type { PresetName } from './zoom';
import { ZoomController } from './zoom-controller';

/** Points asked for at most: more ticks are conflated by the engine. */
export const MAX_POINTS = 100_000;
const VOLUME_COLOUR = 'rgba(120, 144, 156, 0.55)';
/** The library's wheel zoom, wheel scroll and time-axis drag are off: the zoom controller handles them (its own factor, floor and ranges). */
const ZOOM_HANDLING: DeepPartial<ChartOptionsImpl<number>> = {
  handleScale: { mouseWheel: false, pinch: true, axisPressedMouseMove: { time: false, price: true }, axisDoubleClickReset: { time: false, price: true } },
  handleScroll: { mouseWheel: false, pressedMouseMove: true, horzTouchDrag: true, vertTouchDrag: false },
};

/** What is charted: the points of one plot, with the scale that labels them. */
export interface TickPlot {
  /** The plot's identity: result, columns, instrument and zone. */
  readonly key: string;
  readonly seq: Int32Array;
  readonly value: Float64Array;
  readonly volume: Float64Array | null;
  readonly volumeScale: VolumeScale | null;
  readonly total: number;
  readonly conflated: boolean;
  /** Labels of this plot's rows (its zone, its timestamps). */
  readonly scale: SeqHorzScale;
}

export interface TickChartListener {
  /** A new plot is drawn (null: nothing to chart). */
  plotted(plot: TickPlot | null): void;
  /** The points could not be had (null: the last error is over). */
  failed(message: string | null): void;
  /** The crosshair is over a result row (null: it left the chart). */
  hover(row: number | null): void;
  /** The points in view changed: the first and last point's index in the plot. */
  viewed(first: number, last: number): void;
}

interface Parts {
  /** The result plotted, its scale and values: what a row pointed at in the grid is marked with. */
  plot: { readonly resultId: string; readonly scale: SeqHorzScale; readonly value: Float64Array } | null;
  readonly chart: IChartApiBase<number>;
  readonly line: ISeriesApi<'Line', number>;
  readonly volume: ISeriesApi<'Histogram', number>;
  zoom: ZoomController | null;
}

/** What the store asks to chart, with its identity (`key`), or null when there is nothing to chart. */
export function wantedPlot(s: Pick<AppState, 'result' | 'chart'>): { key: string; resultId: string; valueColumn: string; volumeColumn: string | null; id: string | null; zone: string } | null {
  const r = s.result;
  if (!r || !r.timeColumn || !s.chart.valueColumn) return null;
  const id = idToShow(r, s.chart.id);
  const w = { resultId: r.resultId, valueColumn: s.chart.valueColumn, volumeColumn: s.chart.volumeColumn, id, zone: r.outputTZ };
  return { key: JSON.stringify(w), ...w };
}

export class TickChartAdapter {
  private parts: Parts | null = null;
  private key: string | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly host: HTMLElement,
    private readonly store: StoreApi<AppState>,
    private readonly listener: TickChartListener,
  ) {
    this.unsubscribe = store.subscribe((s, prev) => {
      if (s.result !== prev.result || s.chart !== prev.chart) this.update();
      if (s.crosshair !== prev.crosshair) this.follow(s.crosshair);
    });
    this.update();
  }

  /** Draws what the store asks for, when it differs from what is drawn or being fetched. */
  private update(): void {
    const w = wantedPlot(this.store.getState());
    if ((w?.key ?? null) === this.key && (w !== null || this.parts === null)) return;
    this.key = w?.key ?? null;
    if (!w) {
      this.clear();
      this.listener.plotted(null);
      return;
    }
    const key = w.key;
    this.listener.failed(null);
    backend()
      .chart({ resultId: w.resultId, valueColumn: w.valueColumn, ...(w.volumeColumn ? { volumeColumn: w.volumeColumn } : {}), ...(w.id ? { id: w.id } : {}), maxPoints: MAX_POINTS })
      .then((bytes) => {
        if (this.key !== key) return; // asked for something else meanwhile
        const t = tableFromIPC(bytes);
        const seq = t.getChild('seq')!.toArray() as Int32Array;
        const ts = t.getChild('ts')!.toArray() as BigInt64Array;
        const value = t.getChild('value')!.toArray() as Float64Array;
        const volume = w.volumeColumn ? (t.getChild('volume')!.toArray() as Float64Array) : null;
        const scale = new SeqHorzScale();
        scale.setPoints(seq, ts, w.zone);
        const p = this.make(scale);
        p.line.setData(Array.from(seq, (s, i) => (Number.isNaN(value[i]) ? { time: s } : { time: s, value: value[i]! })));
        const vs = volume ? volumeScale(volume) : null;
        if (volume && vs) {
          const clipped = clippedColour();
          p.volume.setData(Array.from(seq, (s, i) => (isClipped(vs, volume[i]!) ? { time: s, value: drawnValue(vs, volume[i]!), color: clipped } : { time: s, value: volume[i]! })));
        }
        p.chart.timeScale().fitContent();
        p.plot = { resultId: w.resultId, scale, value };
        p.zoom = new ZoomController(this.host, p.chart, scale.localTimes(), (first, last) => this.listener.viewed(first, last));
        this.listener.plotted({ key, seq, value, volume, volumeScale: vs, total: Number(t.schema.metadata.get('total') ?? seq.length), conflated: t.schema.metadata.get('conflated') === 'true', scale });
      })
      .catch((e: unknown) => {
        if (this.key === key) this.listener.failed((e as Error).message);
      });
  }

  /** Marks the tick of a row pointed at in the grid (brought into view, the zoom kept), or clears the mark. */
  private follow(c: AppState['crosshair']): void {
    const p = this.parts;
    if (!p?.plot) return;
    const i = c && c.from === 'grid' && c.resultId === p.plot.resultId ? p.plot.scale.indexOf(c.row) : undefined;
    if (i === undefined || !c) {
      if (c?.from !== 'chart') {
        p.chart.clearCrosshairPosition();
        this.listener.hover(null);
      }
      return;
    }
    const v = p.plot.value[i]!;
    const mark = (): void => {
      if (this.parts !== p || this.store.getState().crosshair !== c) return;
      p.chart.setCrosshairPosition(Number.isNaN(v) ? 0 : v, c.row, p.line);
      this.listener.hover(c.row);
    };
    const r = p.chart.timeScale().getVisibleLogicalRange();
    if (r && (i < r.from || i > r.to)) {
      const half = (r.to - r.from) / 2;
      p.chart.timeScale().setVisibleLogicalRange({ from: i - half, to: i + half });
      // the library moves the view on its next frame; a crosshair placed before would land on the old one
      requestAnimationFrame(() => requestAnimationFrame(mark));
    } else mark();
  }

  /** Shows a preset's span of the plot (zoom.ts). */
  preset(name: PresetName): void {
    this.parts?.zoom?.preset(name);
  }

  /** Zooms about the centre by `factor` (> 1 in). */
  zoomBy(factor: number): void {
    this.parts?.zoom?.zoomBy(factor);
  }

  /** Removes the chart drawn. */
  private clear(): void {
    this.parts?.zoom?.dispose();
    this.parts?.chart.remove();
    this.parts = null;
  }

  /** Replaces the chart drawn by a new one on `scale`. */
  private make(scale: SeqHorzScale): Parts {
    this.clear();
    const chart = createChartEx<number, SeqHorzScale>(this.host, scale, { ...baseChartOptions(0.001), ...ZOOM_HANDLING });
    const line = chart.addSeries(LineSeries, { color: '#4ea1ff', lineWidth: 1, priceLineVisible: false, lastValueVisible: true });
    const volume = chart.addSeries(HistogramSeries, { color: VOLUME_COLOUR, priceScaleId: 'volume', priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false });
    // a zoomed view is a range of ticks: resizing the panes or the window keeps it, not the bar spacing
    chart.timeScale().applyOptions({ lockVisibleTimeRangeOnResize: true });
    chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    // below the readout legend, above the volume bars
    line.priceScale().applyOptions({ scaleMargins: { top: 0.12, bottom: 0.25 } });
    chart.subscribeCrosshairMove((param: MouseEventParams<number>) => {
      const plot = this.parts?.plot;
      const s = this.store.getState();
      // a mark the grid asked for is the grid's row, whatever the library snapped to, and is not sent back
      if (!param.sourceEvent && s.crosshair?.from === 'grid') return;
      this.listener.hover(param.time ?? null);
      // the pointer's own moves mark the row in the grid
      if (param.time !== undefined && param.sourceEvent && plot) s.setCrosshair({ resultId: plot.resultId, row: param.time, from: 'chart' });
      else if (param.time === undefined && s.crosshair?.from === 'chart') s.setCrosshair(null);
    });
    chart.subscribeClick((param: MouseEventParams<number>) => {
      if (param.time !== undefined) this.store.getState().selectRow(param.time);
    });
    this.parts = { plot: null, chart, line, volume, zoom: null };
    return this.parts;
  }

  /** Stops following the store and removes the chart. */
  dispose(): void {
    this.unsubscribe();
    this.key = null;
    this.clear();
  }
}
