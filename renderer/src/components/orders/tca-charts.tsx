/**
 * The TCA workspace's two small charts, drawn as SVG at the panel's pixel size: the histogram of
 * executionShortfall (bps) and the markout curves (mean signed return from arrival to completion,
 * +5 and +30 minutes) per group. Hover shows the values under the pointer.
 */
import { useState } from 'react';
import { formatValue, type Histogram } from '../../orders/tca';
import { GROUP_PALETTE } from '../../stats/group-colours';
import { useSize } from './use-size';

/** About `n` round tick values between lo and hi (the round step whose count is nearest n). */
export function ticks(lo: number, hi: number, n: number): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  const steps = [1, 2, 5, 10].map((k) => k * p);
  const step = steps.reduce((best, s) => (Math.abs((hi - lo) / s - n) < Math.abs((hi - lo) / best - n) ? s : best));
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : Number(v.toPrecision(12)));
  return out;
}

const bps = (v: number): string => formatValue('bps', v);
/** An axis label with as many decimals as the tick step needs. */
const tickText = (v: number, step: number): string => v.toFixed(Math.max(0, Math.min(4, -Math.floor(Math.log10(step) + 1e-9))));
const PAD = { l: 44, r: 12, t: 22, b: 26 };

export function ShortfallHistogram({
  title,
  hist,
  error,
  onOpen,
  openLabel,
}: {
  readonly title: string;
  readonly hist: Histogram | null;
  readonly error: string | null;
  readonly onOpen: () => void;
  readonly openLabel: string | null;
}): React.JSX.Element {
  const [ref, { w, h }] = useSize();
  const [hover, setHover] = useState<number | null>(null);
  const bins = hist?.counts.length ?? 0;
  const max = Math.max(1, ...(hist?.counts ?? [0]));
  const x0 = hist?.edges[0] ?? 0;
  const x1 = hist?.edges[bins] ?? 1;
  const sx = (x: number): number => PAD.l + ((x - x0) / (x1 - x0 || 1)) * Math.max(0, w - PAD.l - PAD.r);
  const sy = (c: number): number => h - PAD.b - (c / max) * Math.max(0, h - PAD.t - PAD.b);
  const xTicks = ticks(x0, x1, Math.max(2, Math.floor((w - PAD.l - PAD.r) / 70)));
  const info =
    hover !== null && hist
      ? `${bps(hist.edges[hover]!)} to ${bps(hist.edges[hover + 1]!)} bps: ${hist.counts[hover]} order${hist.counts[hover] === 1 ? '' : 's'}${hover === 0 && hist.below ? ` (${hist.below} below)` : ''}${hover === bins - 1 && hist.above ? ` (${hist.above} above)` : ''}`
      : hist && hist.n > 0
        ? `n ${hist.n} · mean ${bps(hist.mean!)} · median ${bps(hist.median!)}`
        : '';
  return (
    <figure className="tca-chart" aria-label="executionShortfall histogram" data-testid="tca-histogram">
      <figcaption>
        <span className="tca-chart-title">executionShortfall (bps) · {title}</span>
        <span className="muted tca-chart-info" title={info}>
          {info}
        </span>
        {openLabel && (
          <button type="button" className="link-button open-orders" onClick={onOpen} data-testid="tca-open-orders">
            {openLabel}
          </button>
        )}
      </figcaption>
      <div className="tca-chart-body" ref={ref}>
        {error && <div className="error-text tca-chart-msg">{error}</div>}
        {!error && !hist && <div className="muted tca-chart-msg">Reading the orders…</div>}
        {!error && hist && hist.n === 0 && <div className="muted tca-chart-msg">No filled orders in this group.</div>}
        {w > 0 && hist && hist.n > 0 && (
          <svg width={w} height={h} onMouseLeave={() => setHover(null)}>
            {ticks(0, max, 4).map((t) => (
              <g key={`y${t}`}>
                <line className="grid-line" x1={PAD.l} x2={w - PAD.r} y1={sy(t)} y2={sy(t)} />
                <text className="axis" x={PAD.l - 6} y={sy(t) + 4} textAnchor="end">
                  {t}
                </text>
              </g>
            ))}
            {xTicks.map((t) => (
              <text key={`x${t}`} className="axis" x={sx(t)} y={h - PAD.b + 16} textAnchor="middle">
                {tickText(t, xTicks.length > 1 ? xTicks[1]! - xTicks[0]! : 1)}
              </text>
            ))}
            {hist.counts.map((c, i) => {
              const a = sx(hist.edges[i]!);
              const b = sx(hist.edges[i + 1]!);
              const mid = (hist.edges[i]! + hist.edges[i + 1]!) / 2;
              return (
                <rect
                  key={i}
                  className={`bar ${mid > 0 ? 'adverse' : mid < 0 ? 'favourable' : ''} ${hover === i ? 'hover' : ''}`}
                  x={a + 0.5}
                  y={sy(c)}
                  width={Math.max(1, b - a - 1)}
                  height={Math.max(0, h - PAD.b - sy(c))}
                  onMouseEnter={() => setHover(i)}
                />
              );
            })}
            {x0 <= 0 && x1 >= 0 && <line className="zero-line" x1={sx(0)} x2={sx(0)} y1={PAD.t} y2={h - PAD.b} />}
            {hist.mean !== null && hist.mean >= x0 && hist.mean <= x1 && <line className="mean-line" x1={sx(hist.mean)} x2={sx(hist.mean)} y1={PAD.t} y2={h - PAD.b} />}
          </svg>
        )}
      </div>
    </figure>
  );
}

interface TextTable {
  readonly names: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
}

const POINTS = ['arrival', 'completion', '+5 min', '+30 min'] as const;
const COLS = ['startToEndReturn', 'startToEnd5MinReturn', 'startToEnd30MinReturn'] as const;

export function MarkoutChart(p: {
  readonly markouts: TextTable | null;
  readonly totals: TextTable | null;
  readonly groupCols: readonly string[];
  readonly selectedKey: string | null;
  readonly colours: Map<string, number>;
  readonly assign: (keys: readonly string[], memory: Map<string, number>) => string[];
}): React.JSX.Element {
  const [ref, { w, h }] = useSize();
  const [hover, setHover] = useState<number | null>(null);
  const t = p.markouts;
  const lines = (t?.rows ?? []).map((r) => ({
    key: p.groupCols.map((g) => r[t!.names.indexOf(g)] ?? '').join('\u0000'),
    label: p.groupCols.map((g) => r[t!.names.indexOf(g)] || '(null)').join(' · '),
    ys: [0, ...COLS.map((c) => (r[t!.names.indexOf(c)] === '' ? null : Number(r[t!.names.indexOf(c)])))],
  }));
  const totalRow = p.totals?.rows[0];
  const total = totalRow && p.totals!.names.includes(COLS[0]) ? [0, ...COLS.map((c) => (totalRow[p.totals!.names.indexOf(c)] === '' ? null : Number(totalRow[p.totals!.names.indexOf(c)])))] : null;
  const colours = p.assign(
    lines.map((l) => l.key),
    p.colours,
  );
  const all = [...lines.flatMap((l) => l.ys), ...(total ?? [])].filter((v): v is number => v !== null && Number.isFinite(v));
  const lo = Math.min(0, ...all);
  const hi = Math.max(0, ...all);
  const span = hi - lo || 1;
  // the end points sit inside the panel so their labels are not cut
  const sx = (i: number): number => PAD.l + 24 + (i / (POINTS.length - 1)) * Math.max(0, w - PAD.l - PAD.r - 54);
  const sy = (v: number): number => PAD.t + ((hi + span * 0.05 - v) / (span * 1.1)) * Math.max(0, h - PAD.t - PAD.b);
  const path = (ys: ReadonlyArray<number | null>): string =>
    ys.map((y, i) => (y === null ? '' : `${i === 0 || ys[i - 1] === null ? 'M' : 'L'}${sx(i).toFixed(1)},${sy(y).toFixed(1)}`)).join(' ');
  const yTicks = ticks(lo, hi, 4);
  const focus = lines.findIndex((l) => l.key === p.selectedKey);
  const info =
    hover !== null
      ? `${POINTS[hover]}: ${focus >= 0 ? `${lines[focus]!.label} ${lines[focus]!.ys[hover] === null ? '—' : bps(lines[focus]!.ys[hover]!)}` : ''}${total ? ` · all ${total[hover] === null ? '—' : bps(total[hover]!)}` : ''} bps`
      : focus >= 0
        ? `${lines[focus]!.label}: ${lines[focus]!.ys.slice(1).map((y) => (y === null ? '—' : bps(y))).join(' → ')} bps`
        : 'mean return since arrival, signed by side (positive: the price ran away)';
  return (
    <figure className="tca-chart" aria-label="Markout curves" data-testid="tca-markouts">
      <figcaption>
        <span className="tca-chart-title">markouts (bps) · {p.groupCols.length ? `per ${p.groupCols.join(' · ')}` : 'all orders'}</span>
        <span className="muted tca-chart-info">{info}</span>
      </figcaption>
      <div className="tca-chart-body" ref={ref}>
        {!t && !total && <div className="muted tca-chart-msg">Reading the markouts…</div>}
        {w > 0 && (t || total) && (
          <svg width={w} height={h} onMouseLeave={() => setHover(null)}>
            {yTicks.map((v) => (
              <g key={`y${v}`}>
                <line className={v === 0 ? 'zero-line' : 'grid-line'} x1={PAD.l} x2={w - PAD.r} y1={sy(v)} y2={sy(v)} />
                <text className="axis" x={PAD.l - 6} y={sy(v) + 4} textAnchor="end">
                  {tickText(v, yTicks.length > 1 ? yTicks[1]! - yTicks[0]! : 1)}
                </text>
              </g>
            ))}
            {POINTS.map((name, i) => (
              <g key={name}>
                <line className="grid-line" x1={sx(i)} x2={sx(i)} y1={PAD.t} y2={h - PAD.b} />
                <text className="axis" x={sx(i)} y={h - PAD.b + 16} textAnchor="middle">
                  {name}
                </text>
                <rect x={sx(i) - 30} y={PAD.t} width={60} height={Math.max(0, h - PAD.t - PAD.b)} fill="transparent" onMouseEnter={() => setHover(i)} />
              </g>
            ))}
            {lines.map((l, i) => (
              <path key={l.key} d={path(l.ys)} className={`markout ${focus === i ? 'focus' : focus >= 0 ? 'faint' : ''}`} stroke={colours[i] ?? GROUP_PALETTE[0]} />
            ))}
            {total && <path d={path(total)} className="markout total" />}
          </svg>
        )}
      </div>
    </figure>
  );
}
