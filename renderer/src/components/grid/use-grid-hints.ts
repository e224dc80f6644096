/**
 * What the grid learns about the store's result beyond its values: the kind of each summary function
 * column (a result of the summary view's operation), and the tick sizes of the result's instruments
 * (from the assembly's Instrument table, read once per connection) for its price columns.
 */
import { useEffect, useMemo, useState } from 'react';
import type { ResultView, RunResponse, SummaryFunctionInfo } from '../../../../engine/contract';
import { backend } from '../../backend';
import type { Kind } from '../../grid/number-format';
import { tickDecimalsOf, type TickSizes, tickSizes } from '../../grid/tick-sizes';
import { callName, operationWithView, tablesOf, useStore, viewOf } from '../../store/store';
import type { GridHints } from '../result-grid';

type RunOk = Extract<RunResponse, { ok: true }>;

export function useGridHints(result: RunOk | null): GridHints {
  const info = useStore((s) => s.info);
  const assembly = useStore((s) => s.assembly);
  const view = useStore((s) => viewOf(s.info, s.request?.operation));
  const connection = useStore((s) => s.connections.find((c) => c.active)?.id ?? '');
  const [ticks, setTicks] = useState<TickSizes | null>(null);

  const numeric = result?.columns.some((c) => c.type === 'float') ?? false;
  useEffect(() => {
    // tick sizes are read with the operation that reads ticks
    const reader = operationWithView(info, 'ticks');
    if (!info || !reader || !numeric) return undefined;
    let cancelled = false;
    const first = info.assemblies[0]?.name;
    void tickSizes(backend(), callName(reader), connection, assembly && assembly !== first ? assembly : null, tablesOf({ info, assembly })).then((t) => !cancelled && setTicks(t));
    return () => {
      cancelled = true;
    };
  }, [info, assembly, connection, numeric]);

  return useMemo(() => {
    const fns = info?.assemblies.find((a) => a.name === assembly)?.summaryFunctions ?? [];
    return gridHints(result, view, fns, ticks);
  }, [result, view, info, assembly, ticks]);
}

/**
 * A result's hints: summary functions' kinds for the columns of a result the summary view shows (not
 * its group columns), and the most tick-size decimals among its instruments when its identifier column
 * is the one tick sizes are keyed by.
 */
export function gridHints(result: RunOk | null, view: ResultView | undefined, fns: readonly SummaryFunctionInfo[], ticks: TickSizes | null): GridHints {
  const kinds = new Map<string, Kind>();
  if (result && view === 'summary') {
    const names = new Set(result.columns.map((c) => c.name));
    for (const f of fns) if (names.has(f.name) && !result.groupColumns.includes(f.name)) kinds.set(f.name, f.kind);
  }
  const ids = result && ticks && result.idColumn === ticks.key ? result.ids : [];
  return { kinds, tickDecimals: tickDecimalsOf(ids, ticks) };
}
