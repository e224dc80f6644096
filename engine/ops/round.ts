/** decPlaces (INTERFACE 4.1): float columns rounded half away from zero, decimally. */
import type { Column } from '../core/column.js';
import { Table } from '../core/table.js';

/**
 * Rounds x to `places` decimals, half away from zero, as the decimal text of x reads:
 * 1.005 -> 1.01 even though 1.005 is stored as 1.00499999999999989...
 */
export function roundHalfAway(x: number, places: number): number {
  if (!Number.isFinite(x)) return x;
  const p = 10 ** places;
  const y = Math.abs(x) * p;
  const r = Math.round(y);
  // Only values whose scaled form sits within float noise of .5 need the exact decimal route.
  if (Math.abs(Math.abs(y - Math.trunc(y)) - 0.5) > 1e-6) return (Math.sign(x) * r) / p;
  const text = String(Math.abs(x));
  if (text.includes('e')) return (Math.sign(x) * r) / p;
  const exact = Math.round(Number(`${text}e${places}`));
  return Math.sign(x) * Number(`${exact}e-${places}`);
}

function roundColumn(c: Column, places: number): Column {
  if (c.type === 'float') return { type: 'float', data: c.data.map((x) => roundHalfAway(x, places)) };
  if (c.type === 'float[]') return { ...c, values: c.values.map((x) => roundHalfAway(x, places)) };
  return c;
}

/** The table with every float column rounded. */
export function roundFloats(t: Table, places: number): Table {
  return new Table(
    t.names,
    t.columns.map((c) => roundColumn(c, places)),
    t.length,
  );
}
