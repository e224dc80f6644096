/**
 * What the tick chart and the stats chart share: the dark theme, a time axis whose first and last
 * labels read whole, and the app's bid/ask colours (styles.css) for up and down.
 */
import { type ChartOptionsImpl, CrosshairMode, type DeepPartial, type HorzScaleOptions } from 'lightweight-charts';

/** The CSS variable's colour (falls back when there is no document, in tests). */
function cssColour(name: string, fallback: string): string {
  if (typeof document === 'undefined') return fallback;
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

/** Up and down colours: the app's bid green and ask red. */
export function upDownColours(): { readonly up: string; readonly down: string } {
  return { up: cssColour('--bid', '#2ebd85'), down: cssColour('--ask', '#f0616d') };
}

/** The colour of volume bars drawn clipped at the top of their scale (the app's warning amber). */
export function clippedColour(): string {
  return cssColour('--warn', '#e6b450');
}

/**
 * The time axis. The library shifts its first and last labels inside the axis only when the edges
 * are fixed (the data cannot scroll past them), so both are: "2024-03-06" at the left edge and
 * "21:00" at the right read whole instead of "03-06" and "21:". Labels are spaced for the widest
 * ones (a date, or a time with milliseconds) so neighbours never touch.
 */
export const TIME_SCALE: DeepPartial<HorzScaleOptions> = {
  borderColor: '#2a313c',
  fixLeftEdge: true,
  fixRightEdge: true,
  rightOffset: 0,
  tickMarkMaxCharacterLength: 10,
};

/** Chart options both charts start from (`minBarSpacing`: how far out a chart may zoom). */
export function baseChartOptions(minBarSpacing: number): DeepPartial<ChartOptionsImpl<number>> {
  return {
    autoSize: true,
    // The library's own logo injects an inline <style>, which the app's CSP forbids; the attribution link
    // the licence asks for is rendered by the panel instead (see .chart-attribution).
    layout: { background: { color: '#0f1115' }, textColor: '#aeb6c2', fontSize: 11, attributionLogo: false, panes: { separatorColor: '#2a313c' } },
    grid: { vertLines: { color: '#1a1f27' }, horzLines: { color: '#1a1f27' } },
    crosshair: { mode: CrosshairMode.Normal },
    // labels that would be cut at a pane's top or bottom are left out
    rightPriceScale: { borderColor: '#2a313c', entireTextOnly: true },
    timeScale: { ...TIME_SCALE, minBarSpacing },
  };
}
