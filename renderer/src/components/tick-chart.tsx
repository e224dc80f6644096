/**
 * The tick chart: a price line and a volume histogram, one slot per tick (keyed by result row), axis
 * and crosshair labels in the result's outputTZ with nanoseconds. Data arrives as Arrow IPC bytes.
 * The values at the crosshair sit in a legend over the chart's top-left corner (the last tick's when
 * the pointer is away), so hovering never moves the layout. Volume is scaled to a robust maximum:
 * auction prints are drawn clipped, in amber.
 */
import { tableFromIPC } from 'apache-arrow';
import { createChartEx, HistogramSeries, type IChartApiBase, type ISeriesApi, LineSeries, type MouseEventParams } from 'lightweight-charts';
import { useEffect, useMemo, useRef, useState } from 'react';
import { backend } from '../backend';
import { baseChartOptions, clippedColour } from '../chart/chart-theme';
import { useKeptId } from '../chart/kept-choice';
import { SeqHorzScale } from '../chart/seq-scale';
import { exactText, formatReadout, valueFormat } from '../chart/value-format';
import { CLIP_FACTOR, drawnValue, isClipped, volumeScale, type VolumeScale } from '../chart/volume-scale';
import { formatNumber } from '../grid/number-format';
import { useStore } from '../store/store';
import '../charts.css';

const MAX_POINTS = 100_000;
const VOLUME_COLOUR = 'rgba(120, 144, 156, 0.55)';

interface ChartParts {
  readonly chart: IChartApiBase<number>;
  readonly line: ISeriesApi<'Line', number>;
  readonly volume: ISeriesApi<'Histogram', number>;
  readonly scale: SeqHorzScale;
}

/** What is charted: the points of one request, kept for the readout. */
interface Plotted {
  readonly seq: Int32Array;
  readonly value: Float64Array;
  readonly volume: Float64Array | null;
  readonly volumeScale: VolumeScale | null;
  readonly total: number;
  readonly conflated: boolean;
}

function makeChart(el: HTMLElement): ChartParts {
  const scale = new SeqHorzScale();
  const chart = createChartEx<number, SeqHorzScale>(el, scale, baseChartOptions(0.001));
  const line = chart.addSeries(LineSeries, { color: '#4ea1ff', lineWidth: 1, priceLineVisible: false, lastValueVisible: true });
  const volume = chart.addSeries(HistogramSeries, { color: VOLUME_COLOUR, priceScaleId: 'volume', priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  // below the readout legend, above the volume bars
  line.priceScale().applyOptions({ scaleMargins: { top: 0.12, bottom: 0.25 } });
  return { chart, line, volume, scale };
}

/** The tick chart panel; `onShowLadder` offers the way back when the result also has a depth ladder. */
export function TickChart({ onShowLadder }: { readonly onShowLadder?: () => void } = {}): React.JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const parts = useRef<ChartParts | null>(null);
  const result = useStore((s) => s.result);
  const choice = useStore((s) => s.chart);
  const setChart = useStore((s) => s.setChart);
  const selectRow = useStore((s) => s.selectRow);
  const id = useKeptId();
  const [plotted, setPlotted] = useState<Plotted | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The result row under the crosshair (null: the last tick). */
  const [hover, setHover] = useState<number | null>(null);

  useEffect(() => {
    if (!host.current) return undefined;
    const p = makeChart(host.current);
    parts.current = p;
    p.chart.subscribeCrosshairMove((param: MouseEventParams<number>) => setHover(param.time ?? null));
    p.chart.subscribeClick((param: MouseEventParams<number>) => {
      if (param.time !== undefined) selectRow(param.time);
    });
    return () => {
      p.chart.remove();
      parts.current = null;
    };
  }, [selectRow]);

  useEffect(() => {
    const p = parts.current;
    if (!p) return undefined;
    let cancelled = false;
    setHover(null);
    if (!result || !result.timeColumn || !choice.valueColumn) {
      p.line.setData([]);
      p.volume.setData([]);
      setPlotted(null);
      return undefined;
    }
    setError(null);
    backend()
      .chart({
        resultId: result.resultId,
        valueColumn: choice.valueColumn,
        ...(choice.volumeColumn ? { volumeColumn: choice.volumeColumn } : {}),
        ...(id ? { id } : {}),
        maxPoints: MAX_POINTS,
      })
      .then((bytes) => {
        if (cancelled) return;
        const t = tableFromIPC(bytes);
        const seq = t.getChild('seq')!.toArray() as Int32Array;
        const ts = t.getChild('ts')!.toArray() as BigInt64Array;
        const value = t.getChild('value')!.toArray() as Float64Array;
        const volume = choice.volumeColumn ? (t.getChild('volume')!.toArray() as Float64Array) : null;
        p.scale.setPoints(seq, ts, result.outputTZ);
        p.line.setData(Array.from(seq, (s, i) => (Number.isNaN(value[i]) ? { time: s } : { time: s, value: value[i]! })));
        const vs = volume ? volumeScale(volume) : null;
        if (volume && vs) {
          const clipped = clippedColour();
          p.volume.setData(Array.from(seq, (s, i) => (isClipped(vs, volume[i]!) ? { time: s, value: drawnValue(vs, volume[i]!), color: clipped } : { time: s, value: volume[i]! })));
        } else p.volume.setData([]);
        p.chart.timeScale().fitContent();
        setPlotted({ seq, value, volume, volumeScale: vs, total: Number(t.schema.metadata.get('total') ?? seq.length), conflated: t.schema.metadata.get('conflated') === 'true' });
      })
      .catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [result, choice.valueColumn, choice.volumeColumn, id]);

  const numeric = result?.columns.filter((c) => c.type === 'float' || c.type === 'long' || c.type === 'int') ?? [];
  const valueFmt = useMemo(() => {
    const name = choice.valueColumn;
    // from the charted instrument's values alone: AAPL keeps 2 decimals beside VOD's 4 in the grid
    return plotted && name ? valueFormat({ name, type: result?.columns.find((c) => c.name === name)?.type }, [plotted.value]) : null;
  }, [plotted, result, choice.valueColumn]);
  const volumeFmt = useMemo(() => {
    const name = choice.volumeColumn;
    return plotted?.volume && name ? valueFormat({ name, type: result?.columns.find((c) => c.name === name)?.type }, [plotted.volume]) : null;
  }, [plotted, result, choice.volumeColumn]);

  // the tick under the crosshair, or the last one
  const at = plotted && plotted.seq.length > 0 ? (hover === null ? plotted.seq.length - 1 : (parts.current?.scale.indexOf(hover) ?? null)) : null;
  const row = at !== null && plotted ? plotted.seq[at]! : null;
  const v = at !== null ? plotted?.value[at] : undefined;
  const vol = at !== null ? (plotted?.volume?.[at] ?? undefined) : undefined;
  const volClipped = vol !== undefined && plotted?.volumeScale ? isClipped(plotted.volumeScale, vol) : false;
  const vs = plotted?.volumeScale;

  return (
    <section className="chart-panel tick-chart" aria-label="Tick chart">
      <div className="chart-toolbar">
        {result && result.ids.length > 0 && (
          <label>
            {result.idColumn}
            <select data-testid="chart-id" value={id ?? ''} onChange={(e) => setChart({ id: e.target.value || null })}>
              {result.ids.map((x) => (
                <option key={x} value={x}>
                  {x}
                </option>
              ))}
            </select>
          </label>
        )}
        {numeric.length > 0 && (
          <>
            <label>
              line
              <select value={choice.valueColumn ?? ''} onChange={(e) => setChart({ valueColumn: e.target.value || null })}>
                {numeric.map((c) => (
                  <option key={c.name}>{c.name}</option>
                ))}
              </select>
            </label>
            <label>
              bars
              <select value={choice.volumeColumn ?? ''} onChange={(e) => setChart({ volumeColumn: e.target.value || null })}>
                <option value="">(none)</option>
                {numeric.map((c) => (
                  <option key={c.name}>{c.name}</option>
                ))}
              </select>
            </label>
          </>
        )}
        {plotted && (
          <span className="muted chart-info" data-testid="chart-info">
            {plotted.conflated ? `${plotted.total.toLocaleString()} ticks, conflated to ${plotted.seq.length.toLocaleString()} points` : `${plotted.total.toLocaleString()} ticks`}
          </span>
        )}
        {vs && vs.clipped > 0 && volumeFmt && (
          <span className="muted chart-info" data-testid="chart-clipped" title={`Bars scaled to ${formatNumber(volumeFmt, vs.top)} (the largest ordinary bar, within ${CLIP_FACTOR}× the 99th percentile); taller ones, up to ${formatNumber(volumeFmt, vs.max)}, are drawn clipped in amber`}>
            <i className="clip-mark" /> {vs.clipped.toLocaleString()} clipped
          </span>
        )}
        {error && <span className="error-text">{error}</span>}
        {onShowLadder && (
          <span className="seg">
            <button type="button" data-testid="show-ladder" onClick={onShowLadder}>
              ladder
            </button>
            <button type="button" className="on" aria-pressed="true">
              chart
            </button>
          </span>
        )}
      </div>
      <div className="chart-wrap">
        <div className="chart-host" ref={host} data-testid="chart" />
        {plotted && row !== null && (
          <div className="chart-readout" data-testid="chart-readout" aria-live="off">
            <div className="readout-line">
              {id && (
                <b className="readout-group" data-testid="chart-readout-id">
                  {id}
                </b>
              )}
              <span className="muted" data-testid="chart-readout-time">
                {parts.current?.scale.formatHorzItem(row as never) ?? ''}
              </span>
              {choice.valueColumn && valueFmt && (
                <span data-col={choice.valueColumn} title={exactText(v)}>
                  <span className="muted">{choice.valueColumn}</span> {formatReadout(valueFmt, v)}
                </span>
              )}
              {choice.volumeColumn && volumeFmt && (
                <span data-col={choice.volumeColumn} className={volClipped ? 'clipped' : undefined} title={volClipped ? `${exactText(vol)}: drawn clipped at the top of the volume scale` : exactText(vol)}>
                  <span className="muted">{choice.volumeColumn}</span> {formatReadout(volumeFmt, vol)}
                  {volClipped && <span className="clip-tag"> clipped</span>}
                </span>
              )}
              <span className="muted">row {(row + 1).toLocaleString()}</span>
            </div>
          </div>
        )}
      </div>
      <a className="chart-attribution" href="https://www.tradingview.com/" target="_blank" rel="noopener noreferrer" title="Charts by TradingView Lightweight Charts™">
        Lightweight Charts™ · TradingView
      </a>
      {!result && <div className="chart-empty muted">Run a query to chart its ticks.</div>}
    </section>
  );
}
