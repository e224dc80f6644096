/**
 * The results of getStats: the whole (small) result read as typed Arrow, charted per group (candles,
 * lines, volume histograms, or the top of book with the depth ladder at the crosshair) with every
 * shown group's values in a legend over the chart, or compared as bar panels when it has no buckets.
 * The group legend shows and hides groups; the chart takes the keyboard (←/→ step buckets, Home/End,
 * Escape unpins) once focused.
 */
import { tableFromIPC } from 'apache-arrow';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ARG, MAX_TABLE_ROWS } from '../../../../engine/contract';
import { backend } from '../../backend';
import { StatsChart } from '../../chart/stats-chart';
import { ZoneClock } from '../../chart/zone-clock';
import { readAgg } from '../../form/agg-body';
import type { TreeArg } from '../../form/agg-tree';
import { planChart, suggestPercent } from '../../stats/chart-plan';
import { assignColours } from '../../stats/group-colours';
import { modelFormats, readoutLines, scaleKey } from '../../stats/readout';
import { seriesOf, statsModel, type StatsModel } from '../../stats/stats-model';
import { volumeScale, type VolumeScale } from '../../chart/volume-scale';
import { operationSpec, useStore } from '../../store/store';
import { useGridHints } from '../grid/use-grid-hints';
import { BarPanels } from './bar-panels';
import { BucketLadder } from './bucket-ladder';
import { GroupLegend } from './group-legend';
import { StatsReadout } from './stats-readout';
import '../../charts.css';

/** Groups charted at first (more are a click away in the legend); bar panels show every group. */
const FIRST_SHOWN = 8;
/** Height of a readout line (px, charts.css). */
const READOUT_LINE_H = 16;

/** An element's height, kept current (a callback ref: the element comes and goes with the result). */
function useHeight(): [(el: HTMLElement | null) => void, number] {
  const [h, setH] = useState(0);
  const observer = useRef<ResizeObserver | null>(null);
  const ref = useCallback((el: HTMLElement | null) => {
    observer.current?.disconnect();
    observer.current = null;
    if (!el) return;
    observer.current = new ResizeObserver(() => setH(el.clientHeight));
    observer.current.observe(el);
    setH(el.clientHeight);
  }, []);
  return [ref, h];
}
/** Colours groups got this session (group key -> palette index). */
const colourMemory = new Map<string, number>();

const STEP: Readonly<Record<string, number>> = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };

/** The stats results panel, bound to the store's result and request. */
export function StatsView(): React.JSX.Element {
  const result = useStore((s) => s.result);
  const request = useStore((s) => s.request);
  // the argument that makes buckets a moving window, as the request's operation declares it
  const moving = useStore((s) => operationSpec(s.info, s.request?.operation ?? null)?.buckets?.moving);
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<StatsChart | null>(null);
  const [model, setModel] = useState<StatsModel | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<ReadonlySet<number>>(new Set());
  const [percent, setPercent] = useState<boolean | null>(null);
  const [hover, setHover] = useState<{ slot: number; group: number | null } | null>(null);
  const [pinned, setPinned] = useState<number | null>(null);
  const [barSort, setBarSort] = useState<{ readonly name: string | null; readonly byValue: boolean }>({ name: null, byValue: true });
  const [wrapRef, wrapH] = useHeight();
  const [folded, setFolded] = useState(false);
  const hints = useGridHints(result);
  const selectedRow = useStore((s) => s.selectedRow);
  const selectRow = useStore((s) => s.selectRow);

  const args = useMemo(() => request?.args ?? {}, [request]);
  const orderbook = args[ARG.orderbook.name] === 'plotOrderbookSnapshots';
  const trees = useMemo(() => {
    const agg = args[ARG.agg.name];
    return new Map<string, TreeArg>((agg === undefined ? null : readAgg(agg))?.trees.map((t) => [t.name, t.tree]) ?? []);
  }, [args]);

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
        setShown(new Set(m.groups.slice(0, orderbook ? 1 : m.bucketed ? FIRST_SHOWN : undefined).map((_, g) => g)));
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
  const formats = useMemo(
    () => (model && result ? modelFormats(model, (name) => ({ name, type: result.columns.find((c) => c.name === name)?.type, tickDecimals: hints.tickDecimals })) : new Map()),
    [model, result, hints.tickDecimals],
  );
  // Each group's bars get their own robust scale: its auction buckets clip, whatever the other groups trade.
  const scales = useMemo(() => {
    const out = new Map<string, VolumeScale>();
    if (!model || !plan) return out;
    for (const pane of plan.panes) for (const col of pane.histograms) model.groups.forEach((_, g) => out.set(scaleKey(col, g), volumeScale(seriesOf(model, col, g) ?? [])));
    return out;
  }, [model, plan]);
  const groupOfRow = useMemo(() => new Map(model && !model.bucketed ? Array.from(model.firstRow, (row, g) => [row, g] as const) : []), [model]);

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
    if (charted && model && plan) chart.current?.setData({ model, plan, colours, zone, scales });
  }, [charted, model, plan, colours, zone, scales]);
  useEffect(() => chart.current?.setShown(shown), [shown, model, plan, colours]);
  useEffect(() => chart.current?.setPercent(isPercent), [isPercent, shown, model, plan, colours]);

  const slots = model?.times.length ?? 0;
  const focusGroup = hover?.group ?? shownList[0] ?? null;
  const slot = pinned ?? hover?.slot ?? (slots > 0 ? slots - 1 : null);
  const clock = useMemo(() => new ZoneClock(zone), [zone]);
  const mws = moving !== undefined && args[moving] !== undefined;
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

  const lines = model && plan && slot !== null ? readoutLines(model, plan, shownList, slot, formats, scales) : [];
  const panes = plan?.panes.length ?? 1;
  // pane 0 takes 3 parts of the height (above the time axis), every other pane 1
  const pane0H = ((wrapH - 28) * 3) / (3 + panes - 1);
  const maxLines = Math.max(2, Math.floor((pane0H * 0.8) / READOUT_LINE_H) - 1);
  const readoutPx = (folded ? 2 : Math.min(lines.length, maxLines) + 1 + (lines.length > maxLines ? 1 : 0)) * READOUT_LINE_H + 10;
  const sortColumn = model ? Math.max(0, barSort.name === null ? 0 : model.columns.indexOf(barSort.name)) : 0;
  const bars = !!model && !model.bucketed && model.groups.length > 0;
  // (after the chart's own effects: its series exist by then)
  useEffect(() => chart.current?.setReadoutSpace(readoutPx), [readoutPx, wrapH, shown, model, plan, colours]);
  return (
    <section className="chart-panel stats-panel" aria-label="getStats results">
      <div className="chart-toolbar">
        {model && !bars && <GroupLegend labels={model.groups.map((g) => g.label)} colours={colours} shown={shown} onChange={setShown} single={orderbook} />}
        {bars && model.columns.length > 0 && (
          <span className="bar-sort">
            <span className="muted">sort</span>
            <span className="seg" role="group" aria-label="Order of the groups">
              <button type="button" className={barSort.byValue ? 'on' : ''} aria-pressed={barSort.byValue} data-testid="bar-sort-value" title="Largest first, by the panel whose title is marked (click a panel's title to sort by it)" onClick={() => setBarSort({ name: model.columns[sortColumn] ?? null, byValue: true })}>
                by {model.columns[sortColumn]} ▼
              </button>
              <button type="button" className={barSort.byValue ? '' : 'on'} aria-pressed={!barSort.byValue} data-testid="bar-sort-key" title="In the order of the group key" onClick={() => setBarSort({ name: model.columns[sortColumn] ?? null, byValue: false })}>
                by {model.groupColumns.join(' · ') || 'group'}
              </button>
            </span>
          </span>
        )}
        <span className="spacer" />
        {charted && plan?.panes[0]?.kind === 'price' && (
          <button type="button" className={`toggle-button ${isPercent ? 'on' : ''}`} aria-pressed={isPercent} data-testid="stats-percent" title="Price pane in percent of the first visible value (compares groups at different levels)" onClick={() => setPercent(!isPercent)}>
            %
          </button>
        )}
        {model && (
          <span className="muted chart-info" data-testid="stats-info" title={notCharted.length ? `In the grid only: ${notCharted.join(', ')}` : undefined}>
            {model.bucketed ? `${slots.toLocaleString()} buckets` : 'no buckets'} × {model.groups.length} group{model.groups.length === 1 ? '' : 's'}
          </span>
        )}
        {error && <span className="error-text">{error}</span>}
      </div>
      <div className={`stats-body ${orderbook ? 'with-ladder' : ''}`}>
        {charted ? (
          <div className="chart-wrap" ref={wrapRef}>
            <div className="chart-host" ref={host} tabIndex={0} onKeyDown={onKeyDown} data-testid="stats-chart" aria-label="Stats chart: arrow keys step through buckets" />
            <StatsReadout lines={lines} colours={colours} title={plan?.panes[0]?.title ?? ''} bucket={labelText} pinned={pinned !== null} hovered={hover?.group ?? null} maxLines={maxLines} folded={folded} onFold={setFolded} />
          </div>
        ) : model && model.groups.length === 0 ? (
          <div className="chart-empty muted">No rows in the window: nothing to chart.</div>
        ) : bars ? (
          <BarPanels
            model={model}
            colours={colours}
            formats={formats}
            sort={{ column: sortColumn, byValue: barSort.byValue }}
            onSort={(s) => setBarSort({ name: model.columns[s.column] ?? null, byValue: s.byValue })}
            selected={selectedRow === null ? null : (groupOfRow.get(selectedRow) ?? null)}
            onSelect={(g) => selectRow(model.firstRow[g] ?? null)}
          />
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
