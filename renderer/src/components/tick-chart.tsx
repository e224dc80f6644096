/**
 * The tick chart: a price line and a volume histogram, one slot per tick (keyed by result row), axis
 * and crosshair labels in the result's outputTZ with nanoseconds. Data arrives as Arrow IPC bytes.
 * The values at the crosshair sit in a legend over the chart's top-left corner (the last tick's when
 * the pointer is away), so hovering never moves the layout. Volume is scaled to a robust maximum:
 * auction prints are drawn clipped, in amber.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useKeptId } from '../chart/kept-choice';
import { TickChartAdapter, type TickPlot, wantedPlot } from '../chart/tick-chart-adapter';
import { exactText, formatReadout, valueFormat } from '../chart/value-format';
import { CLIP_FACTOR, isClipped } from '../chart/volume-scale';
import { ZOOM_FACTOR } from '../chart/zoom';
import { formatNumber } from '../grid/number-format';
import { appStore, useStore } from '../store/store';
import { ZoomBar } from './zoom-bar';
import '../charts.css';

/** The tick chart panel; `onShowLadder` offers the way back when the result also has a depth ladder. */
export function TickChart({ onShowLadder }: { readonly onShowLadder?: () => void } = {}): React.JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const result = useStore((s) => s.result);
  const choice = useStore((s) => s.chart);
  const setChart = useStore((s) => s.setChart);
  const id = useKeptId();
  const [drawn, setPlotted] = useState<TickPlot | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The result row under the crosshair (null: the last tick). */
  const [hover, setHover] = useState<number | null>(null);
  /** The points in view (first and last index in the plot; null: all, or not yet known). */
  const [view, setView] = useState<{ first: number; last: number } | null>(null);
  const adapterRef = useRef<TickChartAdapter | null>(null);

  // the chart follows the store itself (chart/tick-chart-adapter.ts); React only hosts it and shows its readout
  useEffect(() => {
    if (!host.current) return undefined;
    const adapter = new TickChartAdapter(host.current, appStore, {
      plotted: (p) => {
        setHover(null);
        setView(null);
        setPlotted(p);
      },
      failed: setError,
      hover: setHover,
      viewed: (first, last) => setView({ first, last }),
    });
    adapterRef.current = adapter;
    return () => {
      adapterRef.current = null;
      adapter.dispose();
    };
  }, []);

  // a plot of another result, column or instrument is never read for this one (its rows, its scale)
  const plotted = drawn && drawn.key === wantedPlot({ result, chart: { ...choice, id } })?.key ? drawn : null;
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
  const at = plotted && plotted.seq.length > 0 ? (hover === null ? plotted.seq.length - 1 : (plotted.scale.indexOf(hover) ?? null)) : null;
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
        {plotted && plotted.seq.length > 0 && (
          <ZoomBar
            plot={plotted}
            view={view}
            onPreset={(name) => adapterRef.current?.preset(name)}
            onZoom={(inward) => adapterRef.current?.zoomBy(inward ? ZOOM_FACTOR : 1 / ZOOM_FACTOR)}
          />
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
                {plotted.scale.formatHorzItem(row as never)}
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
