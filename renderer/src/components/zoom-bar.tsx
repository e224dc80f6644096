/**
 * The tick chart's zoom controls (issue 31), in its toolbar: what is in view (ticks and their time
 * span), − and +, the presets and reset. The chart itself takes the wheel, drags and keys
 * (chart/zoom-controller.ts).
 */
import type { TickPlot } from '../chart/tick-chart-adapter';
import { formatSpan, PRESETS, type PresetName } from '../chart/zoom';

const TITLES: Record<PresetName, string> = {
  '1m': 'The last minute in view',
  '5m': 'The last 5 minutes in view',
  '15m': 'The last 15 minutes in view',
  '1h': 'The last hour in view',
  session: 'The whole day in view (the session hours are not known: its first to last tick)',
  all: 'Every tick',
};

/** What is in view and the zoom buttons; `view` null: all of the plot. */
export function ZoomBar({ plot, view, onPreset, onZoom }: { readonly plot: TickPlot; readonly view: { first: number; last: number } | null; readonly onPreset: (name: PresetName) => void; readonly onZoom: (inward: boolean) => void }): React.JSX.Element {
  const n = plot.seq.length;
  const first = Math.min(view?.first ?? 0, n - 1);
  const last = Math.min(view?.last ?? n - 1, n - 1);
  const from = plot.scale.timeOf(plot.seq[first]!) ?? 0n;
  const to = plot.scale.timeOf(plot.seq[last]!) ?? 0n;
  const firstTime = plot.scale.formatHorzItem(plot.seq[first]! as never);
  const lastTime = plot.scale.formatHorzItem(plot.seq[last]! as never);
  return (
    <span className="zoom-bar">
      <span
        className="muted chart-info"
        data-testid="chart-view"
        data-first={first}
        data-last={last}
        data-first-time={firstTime}
        data-last-time={lastTime}
        title={`In view: ${firstTime} → ${lastTime}`}
      >
        {last - first + 1 === n ? 'all in view' : `${(last - first + 1).toLocaleString()} in view`} · {formatSpan(to - from)}
      </span>
      <span className="seg zoom-seg" role="group" aria-label="Zoom">
        <button type="button" data-testid="zoom-out" title="Zoom out (−, or the wheel)" onClick={() => onZoom(false)}>
          −
        </button>
        <button type="button" data-testid="zoom-in" title="Zoom in (+, or the wheel)" onClick={() => onZoom(true)}>
          +
        </button>
      </span>
      <span className="seg zoom-seg" role="group" aria-label="Zoom presets">
        {PRESETS.map(([name]) => (
          <button type="button" key={name} data-testid={`zoom-${name}`} title={TITLES[name]} onClick={() => onPreset(name)}>
            {name}
          </button>
        ))}
        <button type="button" data-testid="zoom-reset" title="Reset the zoom: every tick (0, or a double click on the time axis)" onClick={() => onPreset('all')}>
          reset
        </button>
      </span>
    </span>
  );
}
