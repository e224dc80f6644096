/**
 * The crosshair readout of the stats chart: one line per shown group at one bucket, its values in the
 * plan's order (O H L C of the candles first, then every drawn column), each in its column's grid
 * format, clipped volume bars flagged with their true value.
 */
import { type ColumnFormat } from '../grid/number-format';
import { exactText, formatReadout, type ValueColumn, valueFormat } from '../chart/value-format';
import { isClipped, type VolumeScale } from '../chart/volume-scale';
import type { ChartPlan } from './chart-plan';
import { seriesOf, type StatsModel } from './stats-model';

export interface ReadoutItem {
  /** What the item is called on the line: O, H, L, C or the column's name. */
  readonly name: string;
  readonly column: string;
  /** The value in the column's format ("—" for none). */
  readonly text: string;
  /** The exact value ("" for none). */
  readonly exact: string;
  /** A volume bar drawn clipped at the top of its scale. */
  readonly clipped: boolean;
}

export interface ReadoutLine {
  readonly group: number;
  readonly label: string;
  readonly items: readonly ReadoutItem[];
}

/** The grid format of every column of the model, from all its values; `column` tells a column's type and tick decimals. */
export function modelFormats(m: StatsModel, column: (name: string) => ValueColumn): Map<string, ColumnFormat> {
  return new Map(m.columns.map((c, k) => [c, valueFormat(column(c), m.values[k]!)]));
}

/** The columns a readout line shows, with their names: the candles' O H L C, then the panes' lines and bars. */
export function readoutColumns(plan: ChartPlan): Array<[name: string, column: string]> {
  const out: Array<[string, string]> = [];
  if (plan.candles) {
    const c = plan.candles;
    out.push(['O', c.open], ['H', c.high], ['L', c.low], ['C', c.close]);
  }
  for (const pane of plan.panes) for (const col of [...pane.lines, ...pane.histograms]) out.push([col, col]);
  return out;
}

/** Key of a group's volume scale for a column. */
export const scaleKey = (column: string, group: number): string => `${group}\u001f${column}`;

/**
 * One line per group (in the order given) at a slot. `scales` holds the volume scales of the
 * histogram columns by scaleKey (a value above its scale's top is flagged clipped).
 */
export function readoutLines(
  m: StatsModel,
  plan: ChartPlan,
  groups: readonly number[],
  slot: number,
  formats: ReadonlyMap<string, ColumnFormat>,
  scales: ReadonlyMap<string, VolumeScale> = new Map(),
): ReadoutLine[] {
  const cols = readoutColumns(plan);
  return groups.map((g) => ({
    group: g,
    label: m.groups[g]?.label ?? '',
    items: cols.map(([name, column]) => {
      const v = seriesOf(m, column, g)?.[slot];
      const f = formats.get(column);
      const scale = scales.get(scaleKey(column, g));
      return {
        name,
        column,
        text: f ? formatReadout(f, v) : v === undefined || !Number.isFinite(v) ? '—' : String(v),
        exact: exactText(v),
        clipped: scale !== undefined && v !== undefined && isClipped(scale, v),
      };
    }),
  }));
}

/** The lines that fit: the first `max`, the hovered group's in place of the last when it is further down. */
export function visibleLines<T extends { readonly group: number }>(lines: readonly T[], max: number, hovered: number | null): T[] {
  if (lines.length <= max) return [...lines];
  const head = lines.slice(0, Math.max(1, max));
  const h = hovered === null ? undefined : lines.find((l) => l.group === hovered);
  if (h && !head.includes(h)) head[head.length - 1] = h;
  return head;
}
