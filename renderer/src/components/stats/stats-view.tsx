/**
 * The results of getStats: the whole (small) result read as typed Arrow, charted per group (candles,
 * lines, volume histograms, or the top of book with the depth ladder at the crosshair), or compared as
 * bars when it has no buckets. The group legend shows and hides groups; the chart takes the keyboard
 * (←/→ step buckets, Home/End, Escape unpins) once focused.
 */
import { tableFromIPC } from 'apache-arrow';
import { useEffect, useMemo, useRef, useState } from 'react';
import { MAX_TABLE_ROWS } from '../../../../engine/contract';
import { backend } from '../../backend';
import { StatsChart } from '../../chart/stats-chart';
import { ZoneClock } from '../../chart/zone-clock';
import { readAgg } from '../../form/agg-body';
import type { TreeArg } from '../../form/agg-tree';
import { planChart, suggestPercent } from '../../stats/chart-plan';
import { assignColours } from '../../stats/group-colours';
import { readout } from '../../stats/readout';
import { statsModel, type StatsModel } from '../../stats/stats-model';
import { useStore } from '../../store/store';
import { BucketLadder } from './bucket-ladder';
import { GroupLegend } from './group-legend';
import { StatsBars } from './stats-bars';

/** Groups shown at first (more are a click away in the legend). */
const FIRST_SHOWN = 8;
/** Colours groups got this session (group key -> palette index). */
const colourMemory = new Map<string, number>();

const STEP: Readonly<Record<string, number>> = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };

/** The stats results panel, bound to the store's result and request. */
export function StatsView(): React.JSX.Element {
  const result = useStore((s) => s.result);
  const request = useStore((s) => s.request);
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<StatsChart | null>(null);
  const [model, setModel] = useState<StatsModel | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<ReadonlySet<number>>(new Set());
  const [percent, setPercent] = useState<boolean | null>(null);
  const [hover, setHover] = useState<{ slot: number; group: number | null } | null>(null);
  const [pinned, setPinned] = useState<number | null>(null);

  const args = useMemo(() => request?.args ?? {}, [request]);
  const orderbook = args['orderbook'] === 'plotOrderbookSnapshots';
  const trees = useMemo(() => new Map<string, TreeArg>((args['agg'] === undefined ? null : readAgg(args['agg']))?.trees.map((t) => [t.name, t.tree]) ?? []), [args]);

  useEffect(() => {
    setModel(null);
    setError(null);
    if (!result) return undefined;
    if (result.rows > MAX_TABLE_ROWS) {
      setError(`${result.rows.toLocaleString()} rows are too many to chart whole: see the grid`);
      return undefined;
    }
    let cancelled = false;
    backend()
      .table(result.resultId)
      .then((bytes) => {
        if (cancelled) return;
        const m = statsModel(tableFromIPC(bytes), { timeColumn: result.timeColumn, groupColumns: result.groupColumns });
        setModel(m);
        setShown(new Set(m.groups.slice(0, orderbook ? 1 : FIRST_SHOWN).map((_, g) => g)));
        setPercent(null);
        setHover(null);
        setPinned(null);
      })
      .catch((e: unknown) => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [result, orderbook]);

  const plan = useMemo(() => (model ? planChart(model, trees, orderbook) : null), [model, trees, orderbook]);
  const colours = useMemo(() => (model ? assignColours(model.groups.map((g) => g.key), colourMemory) : []), [model]);
  const shownList = useMemo(() => [...shown].sort((a, b) => a - b), [shown]);
  const isPercent = percent ?? (model && plan ? suggestPercent(model, plan, shownList) : false);
  const charted = !!model?.bucketed && model.groups.length > 0 && !!plan && plan.panes.length > 0;
  const notCharted = [...(model?.skipped ?? []), ...(plan?.unplotted ?? [])];
  const zone = result?.outputTZ ?? 'UTC';

  useEffect(() => {
    if (!host.current || !charted) return undefined;
    const c = new StatsChart(host.current, {
      onHover: (slot, group) => setHover(slot === null ? null : { slot, group }),
      onClick: (slot) => setPinned((p) => (p === slot ? null : slot)),
    });
    chart.current = c;
    return () => {
      c.remove();
      chart.current = null;
    };
  }, [charted]);

  useEffect(() => {
    if (charted && model && plan) chart.current?.setData({ model, plan, colours, zone });
  }, [charted, model, plan, colours, zone]);
  useEffect(() => chart.current?.setShown(shown), [shown, model, plan, colours]);
  useEffect(() => chart.current?.setPercent(isPercent), [isPercent, shown, model, plan, colours]);

  const slots = model?.times.length ?? 0;
  const focusGroup = hover?.group ?? shownList[0] ?? null;
  const slot = pinned ?? hover?.slot ?? (slots > 0 ? slots - 1 : null);
  const clock = useMemo(() => new ZoneClock(zone), [zone]);
  const mws = args['movingWindowSize'] !== undefined;
  const labelText = model?.bucketed && slot !== null ? `${clock.full(model.times[slot]!)} ${mws ? '(bucket end)' : '(bucket start)'}` : 'whole window';
  const idAt = result?.idColumn ? (model?.groupColumns.indexOf(result.idColumn) ?? -1) : -1;
  const ladderGroup = shownList[0];
  const ladderId = model && ladderGroup !== undefined && idAt >= 0 ? (model.groups[ladderGroup]?.values[idAt] ?? null) : null;

  // A pinned bucket keeps its crosshair when the mouse leaves the chart.
  useEffect(() => {
    if (hover === null && pinned !== null) chart.current?.showSlot(pinned, focusGroup);
  }, [hover, pinned, focusGroup]);

  const onKeyDown = (e: React.KeyboardEvent): void => {
    if (!model || slots === 0) return;
    const from = pinned ?? hover?.slot ?? slots - 1;
    let next: number | null = from;
    if (e.key in STEP) next = Math.max(0, Math.min(slots - 1, from + STEP[e.key]!));
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = slots - 1;
    // Escape unpins; with nothing pinned it goes on (to cancel a running query)
    else if (e.key === 'Escape' && pinned !== null) next = null;
    else return;
    e.preventDefault();
    setPinned(next);
    chart.current?.showSlot(next, focusGroup);
  };

  const values = model && plan && focusGroup !== null && slot !== null ? readout(model, plan, focusGroup, slot) : [];
  return (
    <section className="chart-panel stats-panel" aria-label="getStats results">
      <div className="chart-toolbar">
        {model && <GroupLegend labels={model.groups.map((g) => g.label)} colours={colours} shown={shown} onChange={setShown} single={orderbook} />}
        <span className="spacer" />
        {charted && plan?.panes[0]?.kind === 'price' && (
          <button type="button" className={`toggle-button ${isPercent ? 'on' : ''}`} aria-pressed={isPercent} data-testid="stats-percent" title="Price pane in percent of the first visible value (compares groups at different levels)" onClick={() => setPercent(!isPercent)}>
            %
          </button>
        )}
        {model && (
          <span className="muted" data-testid="stats-info" title={notCharted.length ? `In the grid only: ${notCharted.join(', ')}` : undefined}>
            {model.bucketed ? `${slots.toLocaleString()} buckets` : 'no buckets'} × {model.groups.length} group{model.groups.length === 1 ? '' : 's'}
          </span>
        )}
        {error && <span className="error-text">{error}</span>}
      </div>
      {charted && (
        <div className="stats-readout" data-testid="stats-readout">
          <span className="muted" data-testid="stats-bucket">
            {pinned !== null && <span className="pin">pinned</span>}
            {labelText}
          </span>
          {focusGroup !== null && model && <b style={{ color: colours[focusGroup] }}>{model.groups[focusGroup]?.label}</b>}
          {values.map(([k, v]) => (
            <span key={k}>
              <span className="muted">{k}</span> {v}
            </span>
          ))}
        </div>
      )}
      <div className={`stats-body ${orderbook ? 'with-ladder' : ''}`}>
        {charted ? (
          <div className="chart-host" ref={host} tabIndex={0} onKeyDown={onKeyDown} data-testid="stats-chart" aria-label="Stats chart: arrow keys step through buckets" />
        ) : model && model.groups.length === 0 ? (
          <div className="chart-empty muted">No rows in the window: nothing to chart.</div>
        ) : model ? (
          <StatsBars model={model} colours={colours} shown={shown} />
        ) : (
          <div className="chart-empty muted">{error ? '' : 'Reading the result…'}</div>
        )}
        {orderbook && model && <BucketLadder stats={args} id={ladderId} label={model.bucketed && slot !== null ? model.times[slot]! : null} labelText={labelText} immediate={pinned !== null && slot === pinned} />}
      </div>
      {charted && (
        <a className="chart-attribution" href="https://www.tradingview.com/" target="_blank" rel="noopener noreferrer" title="Charts by TradingView Lightweight Charts™">
          Lightweight Charts™ · TradingView
        </a>
      )}
    </section>
  );
}
