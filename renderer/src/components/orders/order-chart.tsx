/**
 * One order's life on a chart: the trades and quotes of its instrument around it, the arrival mid
 * and interval VWAP as lines, each fill as a marker sized by its quantity, the order's span shaded.
 * Drawn as SVG at the panel's size; times are the result's output zone, to the nanosecond in the
 * readout.
 */
import { tableFromIPC } from 'apache-arrow';
import { useEffect, useMemo, useState } from 'react';
import { ARG } from '../../../../engine/contract';
import { backend } from '../../backend';
import { callWithView, useStore } from '../../store/store';
import { ticks } from './tca-charts';
import { useSize } from './use-size';

/** The order as the orders grid holds it (text cells as the CSV writes them). */
export interface OrderCells {
  readonly orderID: string;
  readonly instrumentID: string;
  readonly side: string;
  readonly strikeTime: string;
  readonly orderCompletedTime: string;
  readonly arrivalMid: number | null;
  readonly intervalVWAP: number | null;
  readonly placementQty: number | null;
  readonly executedQty: number | null;
}

const NS_PER_MS = 1_000_000n;

/** ns since the epoch of "YYYY-MM-DDThh:mm:ss.fffffffff" (a local time of the result's zone, read as is). */
export function isoNs(text: string): bigint | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(text);
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return BigInt(ms) * NS_PER_MS + BigInt((m[7] ?? '').padEnd(9, '0'));
}

/** "YYYY.MM.DDDhh:mm:ss.fffffffff" (a kdb+ timestamp argument) of ns read as is. */
export function kdbNs(ns: bigint): string {
  const ms = ns / NS_PER_MS - (ns % NS_PER_MS < 0n ? 1n : 0n);
  const iso = new Date(Number(ms)).toISOString();
  const frac = ((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n;
  return `${iso.slice(0, 10).replace(/-/g, '.')}D${iso.slice(11, 19)}.${frac.toString().padStart(9, '0')}`;
}

interface Series {
  readonly t: BigInt64Array;
  readonly cols: Float64Array[];
  readonly text?: string[];
}

/** A getTicks body: a table's columns over the arguments the order's reads share. */
const ticksArgs = (table: string, shared: Record<string, unknown>, columns: readonly string[]): Record<string, unknown> => ({
  [ARG.table.name]: table,
  ...shared,
  [ARG.columns.name]: columns,
});

/** The series of a getTicks call (`ticksCall`, its call name). */
async function fetchSeries(ticksCall: string, args: Record<string, unknown>, numeric: readonly string[], symbol?: string): Promise<Series> {
  const r = await backend().run(ticksCall, args);
  if (!r.ok) throw new Error(r.header.ai);
  const t = tableFromIPC(await backend().table(r.resultId));
  const time = t.getChild('eventTimestamp');
  const n = t.numRows;
  const cols = numeric.map((name) => {
    const c = t.getChild(name);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = c?.get(i) as number | bigint | null;
      out[i] = v === null || v === undefined ? NaN : Number(v);
    }
    return out;
  });
  const sym = symbol ? t.getChild(symbol) : null;
  return { t: (time?.toArray() as BigInt64Array) ?? new BigInt64Array(0), cols, ...(sym ? { text: Array.from({ length: n }, (_, i) => String(sym.get(i) ?? '')) } : {}) };
}

interface Market {
  readonly from: bigint;
  readonly to: bigint;
  readonly trades: Series;
  readonly quotes: Series;
  readonly fills: Series;
}

const PAD = { l: 62, r: 14, t: 10, b: 24 };
const MAX_POINTS = 4000;

export function OrderChart({ order, zone, scope }: { readonly order: OrderCells; readonly zone: string; readonly scope: unknown }): React.JSX.Element {
  const [ref, { w, h }] = useSize();
  const ticksCall = useStore((s) => callWithView(s.info, 'ticks'));
  const [market, setMarket] = useState<Market | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [hover, setHover] = useState<string | null>(null);

  useEffect(() => {
    setMarket(null);
    setError(null);
    const strike = isoNs(order.strikeTime);
    if (strike === null || !ticksCall) return undefined;
    const end = isoNs(order.orderCompletedTime) ?? strike + 30n * 60_000_000_000n;
    const span = end - strike;
    const pad = span / 5n > 60_000_000_000n ? span / 5n : 60_000_000_000n;
    const from = strike - pad;
    const to = end + pad;
    const common = {
      [ARG.inputTZ.name]: zone,
      [ARG.outputTZ.name]: zone,
      [ARG.startTS.name]: kdbNs(from),
      [ARG.endTS.name]: kdbNs(to),
      [ARG.idList.name]: [order.instrumentID],
      ...(scope ? { [ARG.scope.name]: scope } : {}),
    };
    // the order's own events: from its strike to a day after the chart's end
    const events = { ...common, [ARG.startTS.name]: kdbNs(strike), [ARG.endTS.name]: kdbNs(to + 86_400_000_000_000n), [ARG.filter.name]: [['=', 'orderID', order.orderID]] };
    let cancelled = false;
    Promise.all([
      fetchSeries(ticksCall, ticksArgs('Trade', common, ['eventTimestamp', 'price', 'volume']), ['price', 'volume']),
      fetchSeries(ticksCall, ticksArgs('Quote', common, ['eventTimestamp', 'bidPrice', 'askPrice']), ['bidPrice', 'askPrice']),
      fetchSeries(ticksCall, ticksArgs('Order', events, ['eventTimestamp', 'eventType', 'lastQty', 'lastPx']), ['lastQty', 'lastPx'], 'eventType'),
    ])
      .then(([trades, quotes, fills]) => !cancelled && setMarket({ from, to, trades, quotes, fills }))
      .catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [order, zone, scope, ticksCall]);

  const strike = isoNs(order.strikeTime);
  const end = isoNs(order.orderCompletedTime);
  const view = useMemo(() => {
    if (!market) return null;
    let lo = Infinity;
    let hi = -Infinity;
    const see = (v: number): void => {
      if (Number.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    };
    market.trades.cols[0]!.forEach(see);
    market.quotes.cols[0]!.forEach(see);
    market.quotes.cols[1]!.forEach(see);
    market.fills.cols[1]!.forEach(see);
    if (order.arrivalMid !== null) see(order.arrivalMid);
    if (order.intervalVWAP !== null) see(order.intervalVWAP);
    if (!Number.isFinite(lo)) return null;
    const margin = (hi - lo || Math.abs(hi) * 0.001 || 1) * 0.08;
    return { lo: lo - margin, hi: hi + margin };
  }, [market, order]);

  if (error) return <div className="order-chart error-text tca-chart-msg">{error}</div>;
  const total = market ? Number(market.to - market.from) : 1;
  const sx = (t: bigint): number => PAD.l + (Number(t - (market?.from ?? 0n)) / total) * Math.max(0, w - PAD.l - PAD.r);
  const sy = (v: number): number => (view ? PAD.t + ((view.hi - v) / (view.hi - view.lo)) * Math.max(0, h - PAD.t - PAD.b) : 0);
  const step = (s: Series, col: number): string => {
    const n = s.t.length;
    const every = Math.max(1, Math.ceil(n / MAX_POINTS));
    let d = '';
    let prevY: number | null = null;
    for (let i = 0; i < n; i += every) {
      const v = s.cols[col]![i]!;
      if (!Number.isFinite(v)) continue;
      const x = sx(s.t[i]!).toFixed(1);
      const y = sy(v).toFixed(1);
      d += prevY === null ? `M${x},${y}` : `H${x}V${y}`;
      prevY = v;
    }
    return d ? `${d}H${(w - PAD.r).toFixed(1)}` : '';
  };
  const line = (s: Series, col: number): string => {
    const n = s.t.length;
    const every = Math.max(1, Math.ceil(n / MAX_POINTS));
    let d = '';
    for (let i = 0; i < n; i += every) {
      const v = s.cols[col]![i]!;
      if (!Number.isFinite(v)) continue;
      d += `${d ? 'L' : 'M'}${sx(s.t[i]!).toFixed(1)},${sy(v).toFixed(1)}`;
    }
    return d;
  };
  const fills = market ? Array.from(market.fills.t, (t, i) => ({ t, type: market.fills.text![i]!, qty: market.fills.cols[0]![i]!, px: market.fills.cols[1]![i]! })).filter((f) => f.type === 'Fill' && Number.isFinite(f.px)) : [];
  const maxQty = Math.max(1, ...fills.map((f) => f.qty));
  const yTicks = view ? ticks(view.lo, view.hi, Math.max(2, Math.floor(h / 50))) : [];
  const timeText = (t: bigint): string => kdbNs(t).slice(11, 19);
  const xTicks = market ? timeTicks(market.from, market.to, Math.max(2, Math.floor((w - PAD.l - PAD.r) / 90))) : [];
  const dp = view ? Math.max(2, Math.min(6, -Math.floor(Math.log10((view.hi - view.lo) / 10)))) : 2;
  return (
    <figure className="tca-chart order-chart" aria-label={`Order ${order.orderID} on the chart`} data-testid="order-chart">
      <figcaption>
        <span className="tca-chart-title">
          {order.orderID} · {order.side} {order.instrumentID}
        </span>
        <span className="muted tca-chart-info">
          {hover ??
            `${order.strikeTime.slice(11)} → ${order.orderCompletedTime ? order.orderCompletedTime.slice(11) : 'open'} · ${fills.length} fill${fills.length === 1 ? '' : 's'}${market ? ` · ${market.trades.t.length.toLocaleString()} trades` : ''}`}
        </span>
      </figcaption>
      <div className="tca-chart-body" ref={ref}>
        {!market && <div className="muted tca-chart-msg">Reading trades and quotes around the order…</div>}
        {market && !view && <div className="muted tca-chart-msg">No trades or quotes around this order.</div>}
        {market && view && w > 0 && (
          <svg width={w} height={h}>
            {strike !== null && <rect className="order-span" x={sx(strike)} y={PAD.t} width={Math.max(1, sx(end ?? market.to) - sx(strike))} height={Math.max(0, h - PAD.t - PAD.b)} />}
            {yTicks.map((v) => (
              <g key={`y${v}`}>
                <line className="grid-line" x1={PAD.l} x2={w - PAD.r} y1={sy(v)} y2={sy(v)} />
                <text className="axis" x={PAD.l - 6} y={sy(v) + 4} textAnchor="end">
                  {v.toFixed(dp)}
                </text>
              </g>
            ))}
            {xTicks.map((t) => (
              <text key={`x${t}`} className="axis" x={sx(t)} y={h - PAD.b + 16} textAnchor="middle">
                {timeText(t)}
              </text>
            ))}
            <path className="quote-bid" d={step(market.quotes, 0)} />
            <path className="quote-ask" d={step(market.quotes, 1)} />
            <path className="trade-line" d={line(market.trades, 0)} />
            {order.arrivalMid !== null && strike !== null && (
              <g>
                <line className="arrival-line" x1={sx(strike)} x2={w - PAD.r} y1={sy(order.arrivalMid)} y2={sy(order.arrivalMid)} />
                <text className="line-label arrival" x={w - PAD.r - 4} y={sy(order.arrivalMid) - 4} textAnchor="end">
                  arrival mid {order.arrivalMid.toFixed(dp)}
                </text>
              </g>
            )}
            {order.intervalVWAP !== null && strike !== null && end !== null && (
              <g>
                <line className="vwap-line" x1={sx(strike)} x2={sx(end)} y1={sy(order.intervalVWAP)} y2={sy(order.intervalVWAP)} />
                <text className="line-label vwap" x={sx(strike) + 4} y={sy(order.intervalVWAP) + 12}>
                  interval VWAP {order.intervalVWAP.toFixed(dp)}
                </text>
              </g>
            )}
            {fills.map((f, i) => (
              <circle
                key={i}
                className={`fill-marker ${order.side === 'Sell' ? 'sell' : 'buy'}`}
                cx={sx(f.t)}
                cy={sy(f.px)}
                r={3 + 9 * Math.sqrt(f.qty / maxQty)}
                onMouseEnter={() => setHover(`fill ${kdbNs(f.t).slice(11)} · ${f.qty.toLocaleString()} @ ${f.px}`)}
                onMouseLeave={() => setHover(null)}
              />
            ))}
          </svg>
        )}
      </div>
    </figure>
  );
}

const TIME_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

function timeTicks(from: bigint, to: bigint, n: number): bigint[] {
  const spanS = Number(to - from) / 1e9;
  const stepS = TIME_STEPS_S.find((s) => s >= spanS / n) ?? 7200;
  const step = BigInt(stepS) * 1_000_000_000n;
  const out: bigint[] = [];
  for (let t = ((from + step - 1n) / step) * step; t <= to; t += step) out.push(t);
  return out;
}
