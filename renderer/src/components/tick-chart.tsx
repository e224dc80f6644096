/**
 * The tick chart: a price line and a volume histogram, one slot per tick (keyed by result row), axis
 * and crosshair labels in the result's outputTZ with nanoseconds. Data arrives as Arrow IPC bytes.
 */
import { tableFromIPC } from 'apache-arrow';
import {
  createChartEx,
  CrosshairMode,
  HistogramSeries,
  type IChartApiBase,
  type ISeriesApi,
  LineSeries,
  type MouseEventParams,
} from 'lightweight-charts';
import { useEffect, useRef, useState } from 'react';
import { backend } from '../backend';
import { SeqHorzScale } from '../chart/seq-scale';
import { useStore } from '../store/store';

const MAX_POINTS = 100_000;

interface ChartParts {
  readonly chart: IChartApiBase<number>;
  readonly line: ISeriesApi<'Line', number>;
  readonly volume: ISeriesApi<'Histogram', number>;
  readonly scale: SeqHorzScale;
}

interface SeriesInfo {
  readonly total: number;
  readonly points: number;
  readonly conflated: boolean;
}

interface Hover {
  readonly time: string;
  readonly value: number | undefined;
  readonly volume: number | undefined;
  readonly row: number;
}

function makeChart(el: HTMLElement): ChartParts {
  const scale = new SeqHorzScale();
  const chart = createChartEx<number, SeqHorzScale>(el, scale, {
    autoSize: true,
    // The library's own logo injects an inline <style>, which the app's CSP forbids; the attribution link
    // the licence asks for is rendered by the panel instead (see .chart-attribution).
    layout: { background: { color: '#0f1115' }, textColor: '#aeb6c2', fontSize: 11, attributionLogo: false },
    grid: { vertLines: { color: '#1a1f27' }, horzLines: { color: '#1a1f27' } },
    crosshair: { mode: CrosshairMode.Normal },
    rightPriceScale: { borderColor: '#2a313c' },
    timeScale: { borderColor: '#2a313c', rightOffset: 4, minBarSpacing: 0.001 },
  });
  const line = chart.addSeries(LineSeries, { color: '#4ea1ff', lineWidth: 1, priceLineVisible: false, lastValueVisible: true });
  const volume = chart.addSeries(HistogramSeries, { color: 'rgba(120, 144, 156, 0.55)', priceScaleId: 'volume', priceFormat: { type: 'volume' }, lastValueVisible: false, priceLineVisible: false });
  chart.priceScale('volume').applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
  line.priceScale().applyOptions({ scaleMargins: { top: 0.08, bottom: 0.25 } });
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
  const [info, setInfo] = useState<SeriesInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);

  useEffect(() => {
    if (!host.current) return undefined;
    const p = makeChart(host.current);
    parts.current = p;
    const onMove = (param: MouseEventParams<number>): void => {
      if (param.time === undefined) {
        setHover(null);
        return;
      }
      const line = param.seriesData.get(p.line) as { value?: number } | undefined;
      const vol = param.seriesData.get(p.volume) as { value?: number } | undefined;
      const ns = p.scale.timeOf(param.time);
      setHover({ time: ns === undefined ? '' : p.scale.formatHorzItem(param.time as never), value: line?.value, volume: vol?.value, row: param.time });
    };
    const onClick = (param: MouseEventParams<number>): void => {
      if (param.time !== undefined) selectRow(param.time);
    };
    p.chart.subscribeCrosshairMove(onMove);
    p.chart.subscribeClick(onClick);
    return () => {
      p.chart.remove();
      parts.current = null;
    };
  }, [selectRow]);

  useEffect(() => {
    const p = parts.current;
    if (!p) return undefined;
    let cancelled = false;
    if (!result || !result.timeColumn || !choice.valueColumn) {
      p.line.setData([]);
      p.volume.setData([]);
      setInfo(null);
      return undefined;
    }
    setError(null);
    backend()
      .chart({
        resultId: result.resultId,
        valueColumn: choice.valueColumn,
        ...(choice.volumeColumn ? { volumeColumn: choice.volumeColumn } : {}),
        ...(choice.id ? { id: choice.id } : {}),
        maxPoints: MAX_POINTS,
      })
      .then((bytes) => {
        if (cancelled) return;
        const t = tableFromIPC(bytes);
        const seq = t.getChild('seq')!.toArray() as Int32Array;
        const ts = t.getChild('ts')!.toArray() as BigInt64Array;
        const value = t.getChild('value')!.toArray() as Float64Array;
        const volume = t.getChild('volume')!.toArray() as Float64Array;
        p.scale.setPoints(seq, ts, result.outputTZ);
        const lineData = Array.from(seq, (s, i) => (Number.isNaN(value[i]) ? { time: s } : { time: s, value: value[i]! }));
        p.line.setData(lineData);
        p.volume.setData(choice.volumeColumn ? Array.from(seq, (s, i) => ({ time: s, value: volume[i]! })) : []);
        p.chart.timeScale().fitContent();
        setInfo({ total: Number(t.schema.metadata.get('total') ?? seq.length), points: seq.length, conflated: t.schema.metadata.get('conflated') === 'true' });
      })
      .catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [result, choice.valueColumn, choice.volumeColumn, choice.id]);

  const numeric = result?.columns.filter((c) => c.type === 'float' || c.type === 'long' || c.type === 'int') ?? [];
  return (
    <section className="chart-panel" aria-label="Tick chart">
      <div className="chart-toolbar">
        {result && result.ids.length > 0 && (
          <label>
            {result.idColumn}
            <select data-testid="chart-id" value={choice.id ?? ''} onChange={(e) => setChart({ id: e.target.value || null })}>
              {result.ids.map((id) => (
                <option key={id} value={id}>
                  {id}
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
        {info && (
          <span className="muted" data-testid="chart-info">
            {info.conflated ? `${info.total.toLocaleString()} ticks, conflated to ${info.points.toLocaleString()} points` : `${info.total.toLocaleString()} ticks`}
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
        <span className="chart-legend" data-testid="chart-legend">
          {hover && (
            <>
              <span>{hover.time}</span>
              {hover.value !== undefined && <span>{choice.valueColumn} {hover.value}</span>}
              {hover.volume !== undefined && choice.volumeColumn && <span>{choice.volumeColumn} {hover.volume}</span>}
              <span className="muted">row {hover.row + 1}</span>
            </>
          )}
        </span>
      </div>
      <div className="chart-host" ref={host} data-testid="chart" />
      <a className="chart-attribution" href="https://www.tradingview.com/" target="_blank" rel="noopener noreferrer" title="Charts by TradingView Lightweight Charts™">
        Lightweight Charts™ · TradingView
      </a>
      {!result && <div className="chart-empty muted">Run a query to chart its ticks.</div>}
    </section>
  );
}
