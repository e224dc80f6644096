/** Tiny getStats results for the renderer's tests, written by the engine's own Arrow writer. */
import { type Table as ArrowTable, tableFromIPC } from 'apache-arrow';
import type { ColumnType } from '../../engine/core/column.js';
import { columnFromValues, type Scalar } from '../../engine/core/builder.js';
import { Table } from '../../engine/core/table.js';
import { tableToArrow } from '../../engine/output/arrow.js';
import { statsModel, type StatsModel } from '../../renderer/src/stats/stats-model.js';

export type FixtureColumn = readonly [string, ColumnType, ReadonlyArray<Scalar | null>];

/** A result table as Arrow, read the way the app reads what the backend sends. */
export function arrowResult(cols: readonly FixtureColumn[]): ArrowTable {
  const t = new Table(cols.map((c) => c[0]), cols.map(([, type, values]) => columnFromValues(type, values)));
  return tableFromIPC(tableToArrow(t));
}

/** A bucketed model: `buckets` slots, one group per id, each column's values from `value(column, id, slot)`. */
export function bucketModel(ids: readonly string[], columns: ReadonlyArray<readonly [string, ColumnType]>, buckets: number, value: (column: string, id: string, slot: number) => number): StatsModel {
  const t0 = 1_709_735_400_000_000_000n;
  const rows = Array.from({ length: buckets }, (_, k) => ids.map((id) => ({ k, id }))).flat();
  const cols: FixtureColumn[] = [
    ['eventTimestamp', 'timestamp', rows.map((r) => t0 + BigInt(r.k) * 60_000_000_000n)],
    ['instrumentID', 'symbol', rows.map((r) => r.id)],
    ...columns.map(([name, type]): FixtureColumn => [name, type, rows.map((r) => value(name, r.id, r.k))]),
  ];
  return statsModel(arrowResult(cols), { timeColumn: 'eventTimestamp', groupColumns: ['instrumentID'] });
}
