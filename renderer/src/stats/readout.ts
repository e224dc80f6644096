/** The crosshair readout of the stats chart: one group's values at one bucket, in the plan's order. */
import type { ChartPlan } from './chart-plan';
import { seriesOf, type StatsModel } from './stats-model';

const fmt = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 8 });

/** A number for the readout ("—" for none). */
export const fmtValue = (v: number | undefined): string => (v === undefined || !Number.isFinite(v) ? '—' : fmt.format(v));

/** [name, value text] pairs of a group at a slot: O H L C of the candles first, then every drawn column. */
export function readout(m: StatsModel, plan: ChartPlan, group: number, slot: number): Array<[string, string]> {
  const at = (col: string): string => fmtValue(seriesOf(m, col, group)?.[slot]);
  const out: Array<[string, string]> = [];
  if (plan.candles) {
    const c = plan.candles;
    out.push(['O', at(c.open)], ['H', at(c.high)], ['L', at(c.low)], ['C', at(c.close)]);
  }
  for (const pane of plan.panes) for (const col of [...pane.lines, ...pane.histograms]) out.push([col, at(col)]);
  return out;
}
