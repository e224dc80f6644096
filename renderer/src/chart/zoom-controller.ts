/**
 * Zoom and pan on the tick chart as traders expect (issue 31). The library's own wheel zoom and axis
 * drag are off (tick-chart-adapter's ZOOM_HANDLING); this takes their place:
 *
 * - the wheel zooms 1.25× a notch about the pointer, down to a floor of ticks and out to all; a
 *   sideways swipe or Shift+wheel pans;
 * - a drag on the time axis, or Shift+drag on the plot, zooms to exactly the ticks at its two ends,
 *   shown as a translucent band while dragging (Escape cancels); a plain drag on the plot still pans
 *   (the library's);
 * - + / = and − zoom about the centre, 0 shows all, when the chart has focus (a click gives it);
 *   a double click on the time axis shows all too;
 * - presets (zoom.ts) from the toolbar.
 *
 * Positions are the library's: the tick at x is the one its crosshair shows there
 * (`coordinateToLogical`), so a dragged range lands on the ticks the readout named.
 */
import type { IChartApiBase } from 'lightweight-charts';
import { clampView, panBy, type PresetName, presetRange, slots, ticksInView, type View, wheelNotches, ZOOM_FACTOR, zoomAbout } from './zoom';

/** Pixels a drag must cover before it is a range (less is a click). */
const MIN_DRAG_PX = 4;

export class ZoomController {
  private readonly band: HTMLDivElement;
  private drag: { x0: number; x1: number } | null = null;
  private readonly detach: Array<() => void> = [];

  constructor(
    private readonly host: HTMLElement,
    private readonly chart: IChartApiBase<number>,
    /** The plotted ticks' local times (ms), one per slot. */
    private readonly times: Float64Array,
    /** Called with the ticks in view whenever the view changes. */
    private readonly onView: (first: number, last: number) => void,
  ) {
    this.band = document.createElement('div');
    this.band.className = 'zoom-band';
    this.band.dataset['testid'] = 'zoom-band';
    this.band.hidden = true;
    (host.parentElement ?? host).appendChild(this.band);
    if (host.tabIndex < 0) host.tabIndex = 0;
    this.on(host, 'wheel', (e) => this.onWheel(e), { passive: false });
    // before the library's own listeners on the canvases: a range drag never pans
    this.on(host, 'mousedown', (e) => this.onDown(e), { capture: true });
    this.on(host, 'dblclick', (e) => this.onDoubleClick(e), { capture: true });
    this.on(host, 'keydown', (e) => this.onKey(e));
    const changed = (): void => this.report();
    chart.timeScale().subscribeVisibleLogicalRangeChange(changed);
    this.detach.push(() => chart.timeScale().unsubscribeVisibleLogicalRangeChange(changed));
  }

  /** The view now, as the library holds it. */
  view(): View {
    const r = this.chart.timeScale().getVisibleLogicalRange();
    return r ? { from: r.from, to: r.to } : { from: 0, to: this.times.length - 1 };
  }

  /** Zooms by `factor` (> 1 in) about the logical position `anchor` (the view's centre when left out). */
  zoomBy(factor: number, anchor?: number): void {
    const v = this.view();
    this.show(zoomAbout(v, anchor ?? (v.from + v.to) / 2, factor, this.times.length));
  }

  /** Shows a preset's ticks (zoom.ts presetRange). */
  preset(name: PresetName): void {
    const r = presetRange(name, this.view(), this.times);
    this.show({ from: r.first, to: r.last });
  }

  /** Shows every tick. */
  reset(): void {
    this.preset('all');
  }

  /** Removes the listeners and the band. */
  dispose(): void {
    this.cancelDrag();
    for (const off of this.detach.splice(0)) off();
    this.band.remove();
  }

  private show(v: View): void {
    if (this.times.length === 0) return;
    this.chart.timeScale().setVisibleLogicalRange(clampView(v, this.times.length));
  }

  private report(): void {
    if (this.times.length === 0) return;
    const t = ticksInView(this.view(), this.times.length);
    this.onView(t.first, t.last);
  }

  private on<K extends keyof HTMLElementEventMap>(el: HTMLElement | Window, type: K, fn: (e: HTMLElementEventMap[K]) => void, opts?: AddEventListenerOptions): void {
    el.addEventListener(type, fn as EventListener, opts);
    this.detach.push(() => el.removeEventListener(type, fn as EventListener, opts));
  }

  /** The pointer's x in the plot (CSS px from its left edge), and whether it is over the time axis. */
  private where(e: MouseEvent): { x: number; onAxis: boolean; inPlot: boolean } {
    const r = this.host.getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    const width = this.chart.timeScale().width();
    const axisTop = r.height - this.chart.timeScale().height();
    return { x, onAxis: y >= axisTop && x <= width, inPlot: y < axisTop && x <= width };
  }

  /** The tick at x, as the crosshair picks it, within the data. */
  private tickAt(x: number): number {
    const width = this.chart.timeScale().width();
    const i = this.chart.timeScale().coordinateToLogical(Math.min(Math.max(x, 0), width - 1)) ?? 0;
    const t = ticksInView(this.view(), this.times.length);
    return Math.min(Math.max(Math.round(i), t.first), t.last);
  }

  private onWheel(e: WheelEvent): void {
    if (this.times.length === 0 || e.ctrlKey) return; // Ctrl+wheel is the browser's page zoom
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      // a sideways swipe (or Shift+wheel) pans, by the pixels it moved
      e.preventDefault();
      const v = this.view();
      const px = e.deltaMode === 0 ? e.deltaX : wheelNotches(e.deltaX, e.deltaMode) * 100;
      this.chart.timeScale().setVisibleLogicalRange(panBy(v, px / (this.chart.timeScale().width() / slots(v)), this.times.length));
      return;
    }
    const notches = wheelNotches(e.deltaY, e.deltaMode);
    if (notches === 0) return;
    e.preventDefault();
    const { x } = this.where(e);
    const v = this.view();
    const width = this.chart.timeScale().width();
    // the fractional index under the pointer, as the library places slots: index `to` at x = width - 1
    const anchor = v.to - (width - 1 - Math.min(Math.max(x, 0), width)) / (width / (v.to - v.from + 1));
    this.zoomBy(ZOOM_FACTOR ** -notches, anchor);
  }

  private onDown(e: MouseEvent): void {
    if (e.button !== 0) return;
    this.host.focus({ preventScroll: true });
    const { x, onAxis, inPlot } = this.where(e);
    if (this.times.length === 0 || !(onAxis || (inPlot && e.shiftKey))) return;
    e.preventDefault();
    e.stopPropagation();
    this.drag = { x0: x, x1: x };
    const move = (m: MouseEvent): void => {
      if (!this.drag) return;
      this.drag.x1 = this.where(m).x;
      this.drawBand();
    };
    const up = (u: MouseEvent): void => {
      const d = this.drag;
      this.cancelDrag();
      if (!d) return;
      const x1 = this.where(u).x;
      if (Math.abs(x1 - d.x0) < MIN_DRAG_PX) return;
      const a = this.tickAt(d.x0);
      const b = this.tickAt(x1);
      this.show({ from: Math.min(a, b), to: Math.max(a, b) });
    };
    const key = (k: KeyboardEvent): void => {
      if (k.key !== 'Escape') return;
      // the drag is the innermost thing: Escape ends it, not a running query
      k.preventDefault();
      k.stopPropagation();
      this.cancelDrag();
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
    window.addEventListener('keydown', key, true);
    this.endDrag = () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
      window.removeEventListener('keydown', key, true);
    };
  }

  private endDrag: (() => void) | null = null;

  private cancelDrag(): void {
    this.drag = null;
    this.band.hidden = true;
    this.endDrag?.();
    this.endDrag = null;
  }

  private drawBand(): void {
    if (!this.drag) return;
    const width = this.chart.timeScale().width();
    const a = Math.min(Math.max(Math.min(this.drag.x0, this.drag.x1), 0), width);
    const b = Math.min(Math.max(Math.max(this.drag.x0, this.drag.x1), 0), width);
    this.band.hidden = b - a < MIN_DRAG_PX;
    Object.assign(this.band.style, { left: `${this.host.offsetLeft + a}px`, width: `${b - a}px`, top: `${this.host.offsetTop}px`, height: `${this.host.clientHeight}px` });
  }

  private onDoubleClick(e: MouseEvent): void {
    if (!this.where(e).onAxis) return;
    e.preventDefault();
    e.stopPropagation();
    this.reset();
  }

  private onKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey || this.times.length === 0) return;
    if (e.key === '+' || e.key === '=') this.zoomBy(ZOOM_FACTOR);
    else if (e.key === '-' || e.key === '−' || e.key === '_') this.zoomBy(1 / ZOOM_FACTOR);
    else if (e.key === '0') this.reset();
    else return;
    e.preventDefault();
    e.stopPropagation();
  }
}
