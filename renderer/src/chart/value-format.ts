/**
 * Numbers on the charts' readouts and bars in the grid's format (grid/number-format.ts): one format
 * per column, inferred from every value the chart holds, so 169.07999999999998 reads 169.08 as in the
 * grid and a column's values line up with the same decimals. The exact value is one hover away.
 */
import type { ColumnType } from '../../../engine/contract';
import { type ColumnFormat, columnFormat, formatNumber, statsOf } from '../grid/number-format';

export interface ValueColumn {
  readonly name: string;
  /** The result column's type (float when unknown). */
  readonly type?: ColumnType | undefined;
  /** Most tick-size decimals of the result's instruments (price columns), when known. */
  readonly tickDecimals?: number | null | undefined;
}

/** The grid's format of a column, from all its values (several arrays: one per group). */
export function valueFormat(column: ValueColumn, values: Iterable<ArrayLike<number>>): ColumnFormat {
  // Distinct values decide the format (prices repeat): far fewer to shape than points on a chart.
  const distinct = new Set<number>();
  for (const arr of values) for (let i = 0; i < arr.length; i++) distinct.add(arr[i]!);
  const type = column.type ?? 'float';
  return columnFormat({ name: column.name, type: type === 'long' || type === 'int' || type === 'float' ? type : 'float', tickDecimals: column.tickDecimals ?? null }, statsOf(distinct));
}

/** A value as the format shows it; "—" for none. */
export const formatReadout = (f: ColumnFormat, v: number | null | undefined): string => (v === null || v === undefined || !Number.isFinite(v) ? (v === Infinity ? '∞' : v === -Infinity ? '-∞' : '—') : formatNumber(f, v));

/** The exact text of a value (shortest round-trip form, as the CSV writes a float). */
export const exactText = (v: number | null | undefined): string => (v === null || v === undefined || Number.isNaN(v) ? '' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v));
