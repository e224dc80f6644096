/**
 * The workspace's panes: tables | form | results, and the results' view over the grid, resizable by
 * dragging their handles (react-resizable-panels), collapsed and expanded by double-clicking a handle,
 * clicking the collapsed pane's rail or a shortcut (Ctrl/Cmd+Alt+1, 2, 3), sizes kept in localStorage
 * across reloads. A collapsed pane stays mounted (hidden), so its state is there when it comes back.
 */
import { useEffect, useState } from 'react';
import { Group, type Layout, type LayoutChangedMeta, Panel, Separator, useDefaultLayout, usePanelRef } from 'react-resizable-panels';
import { MOD } from './top-bar';

export type PaneId = 'tables' | 'form' | 'view';

/** What a collapsed pane keeps on screen: a rail to click. */
const RAIL_PX = 22;
const LABEL: Readonly<Record<PaneId, string>> = { tables: 'Tables', form: 'Form', view: 'Chart' };
/** The digit of each pane's shortcut (Ctrl/Cmd+Alt+digit). */
export const PANE_KEYS: Readonly<Record<string, PaneId>> = { Digit1: 'tables', Digit2: 'form', Digit3: 'view' };
const shortcut = (id: PaneId): string => `${MOD}+Alt+${Object.keys(PANE_KEYS).find((k) => PANE_KEYS[k] === id)!.slice(-1)}`;

interface PaneControl {
  toggle(): void;
  expand(): void;
  /** Its width or height in pixels now. */
  size(): number;
  resize(px: number): void;
}
const panes = new Map<PaneId, PaneControl>();
/** The side panes: when one collapses or comes back, the other keeps its width and the results take the difference. */
const SIDE: readonly PaneId[] = ['tables', 'form'];

/** Runs a collapse or expand of `id`, keeping the other side pane's width (the library gives the space to the neighbour). */
function keepingSides(id: PaneId, change: () => void): void {
  const others = SIDE.includes(id) ? SIDE.filter((o) => o !== id).flatMap((o) => (panes.has(o) ? [[o, panes.get(o)!.size()] as const] : [])) : [];
  change();
  for (const [o, px] of others) if (Math.abs(panes.get(o)!.size() - px) > 0.5) panes.get(o)!.resize(px);
}

/** Collapses a pane, or expands it when collapsed; false when it is not on screen. */
export function togglePane(id: PaneId): boolean {
  const p = panes.get(id);
  p?.toggle();
  return p !== undefined;
}

/** Expands a pane when it is collapsed (the error panel showing the form field it marked). */
export function expandPane(id: PaneId): void {
  panes.get(id)?.expand();
}

/** Layouts kept in localStorage, under react-resizable-panels' key for the group's id. */
function useSavedLayout(id: string): { defaultLayout?: Layout; onLayoutChanged: (l: Layout, meta: LayoutChangedMeta) => void } {
  const { defaultLayout, onLayoutChanged } = useDefaultLayout({ id, storage: localStorage });
  return { ...(defaultLayout ? { defaultLayout } : {}), onLayoutChanged };
}

interface PaneProps {
  readonly id: PaneId;
  readonly children: React.ReactNode;
  readonly defaultSize: number | string;
  readonly minSize: number;
  /** The rail runs along the pane's height (side panes) or its width (the view over the grid). */
  readonly rail: 'vertical' | 'horizontal';
  readonly pixelSized?: boolean;
}

/** A collapsible pane: its content, or its rail when collapsed. */
function Pane(p: PaneProps): React.JSX.Element {
  const ref = usePanelRef();
  const [collapsed, setCollapsed] = useState(false);
  useEffect(() => {
    const expand = (): void => {
      const panel = ref.current;
      if (!panel?.isCollapsed()) return;
      keepingSides(p.id, () => {
        panel.expand();
        // collapsed since a reload, it has no size to go back to: its default then
        if (panel.isCollapsed() || panel.getSize().inPixels < p.minSize) panel.resize(p.defaultSize);
      });
    };
    panes.set(p.id, {
      toggle: () => (ref.current?.isCollapsed() ? expand() : keepingSides(p.id, () => ref.current?.collapse())),
      expand,
      size: () => ref.current?.getSize().inPixels ?? 0,
      resize: (px) => ref.current?.resize(px),
    });
    return () => {
      panes.delete(p.id);
    };
  }, [p.id, p.defaultSize, p.minSize, ref]);
  return (
    <Panel
      // not the bare name: a Panel's id is also its data-testid, and "grid" is the grid's
      id={`pane-${p.id}`}
      panelRef={ref}
      className={`pane pane-${p.id} ${collapsed ? 'collapsed' : ''}`}
      collapsible
      collapsedSize={RAIL_PX}
      minSize={p.minSize}
      defaultSize={p.defaultSize}
      {...(p.pixelSized ? { groupResizeBehavior: 'preserve-pixel-size' as const } : {})}
      onResize={() => setCollapsed(ref.current?.isCollapsed() ?? false)}
    >
      {collapsed && (
        <button type="button" className={`pane-rail ${p.rail}`} data-testid={`rail-${p.id}`} onClick={() => panes.get(p.id)?.expand()} title={`Show the ${LABEL[p.id].toLowerCase()} (${shortcut(p.id)}, or double click the handle)`}>
          <span>{LABEL[p.id]}</span>
        </button>
      )}
      <div className="pane-body" hidden={collapsed}>
        {p.children}
      </div>
    </Panel>
  );
}

/** A handle between two panes: drag to resize, double click to collapse or expand `pane`. */
function Handle({ pane, what }: { readonly pane: PaneId; readonly what: string }): React.JSX.Element {
  return (
    <Separator
      className="pane-handle"
      id={`handle-${pane}`}
      data-testid={`handle-${pane}`}
      disableDoubleClick
      onDoubleClick={() => togglePane(pane)}
      title={`Drag to resize · double click (or ${shortcut(pane)}) to ${what}`}
    />
  );
}

/** Tables | form | results, each resizable; the first two collapse to rails. */
export function Workspace(p: { readonly tables: React.ReactNode; readonly form: React.ReactNode; readonly results: React.ReactNode }): React.JSX.Element {
  const layout = useSavedLayout('tickscope-workspace');
  return (
    <Group id="tickscope-workspace" orientation="horizontal" className="workspace" {...layout}>
      <Pane id="tables" rail="vertical" defaultSize={200} minSize={120} pixelSized>
        {p.tables}
      </Pane>
      <Handle pane="tables" what="collapse or expand the tables" />
      <Pane id="form" rail="vertical" defaultSize={420} minSize={260} pixelSized>
        {p.form}
      </Pane>
      <Handle pane="form" what="collapse or expand the form" />
      <Panel id="pane-results" className="pane pane-results" minSize={320}>
        {p.results}
      </Panel>
    </Group>
  );
}

/**
 * The view (chart, ladder or stats) over the grid. `kind` names the layout kept: ticks and stats
 * results keep sizes of their own (the stats view wants more room by default).
 */
export function ResultSplit(p: { readonly kind: 'ticks' | 'stats'; readonly view: React.ReactNode; readonly grid: React.ReactNode }): React.JSX.Element {
  const id = `tickscope-results-${p.kind}`;
  const layout = useSavedLayout(id);
  return (
    <Group key={id} id={id} orientation="vertical" className="results-split" {...layout}>
      <Pane id="view" rail="horizontal" defaultSize={p.kind === 'stats' ? '62%' : '48%'} minSize={120}>
        {p.view}
      </Pane>
      <Handle pane="view" what="collapse or expand the chart" />
      <Panel id="pane-grid" className="pane pane-grid" minSize={60}>
        {p.grid}
      </Panel>
    </Group>
  );
}
