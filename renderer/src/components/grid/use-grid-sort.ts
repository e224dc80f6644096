/**
 * A grid's sort: a header click sorts the held result where it is held (the backend's sort: a new
 * held result over the same rows, the request never run again), whatever its size; the grid shows
 * that sorted copy, and unsorting goes back to the result itself. A new result starts unsorted.
 */
import { useCallback, useRef, useState } from 'react';
import type { RunResponse } from '../../../../engine/contract';
import { backend } from '../../backend';
import { type GridSort, sortColsOf } from '../../grid/column-layout';

type RunOk = Extract<RunResponse, { ok: true }>;

/** A sort taking longer than this says so in the status line. */
const SAY_AFTER_MS = 300;

export interface GridSorting {
  /** The rows on screen: the result, or its sorted copy. */
  readonly shown: RunOk | null;
  readonly sort: GridSort | null;
  /** A sort asked for and not yet answered. */
  readonly pending: GridSort | null;
  /** Sorts by `s`, or back to the result's own order (null). */
  sortBy(s: GridSort | null): void;
}

interface Sorted {
  readonly baseId: string;
  readonly sort: GridSort;
  readonly shown: RunOk;
}

export function useGridSort(base: RunOk | null, say: (text: string) => void): GridSorting {
  const [sorted, setSorted] = useState<Sorted | null>(null);
  const [pending, setPending] = useState<{ readonly baseId: string; readonly sort: GridSort } | null>(null);
  const asked = useRef(0);
  const baseId = base?.resultId ?? null;
  // a sort of another result does not apply (derived, so a new result shows unsorted at once)
  const active = sorted && sorted.baseId === baseId ? sorted : null;

  const sortBy = useCallback(
    (s: GridSort | null) => {
      const n = ++asked.current;
      if (!base) return;
      if (s === null) {
        setSorted(null);
        setPending(null);
        return;
      }
      setPending({ baseId: base.resultId, sort: s });
      const slow = setTimeout(() => n === asked.current && say(`Sorting ${base.rows.toLocaleString('en-US')} rows by ${s.column} (${s.dir})…`), SAY_AFTER_MS);
      backend()
        .sort(base.resultId, sortColsOf(s))
        .then((r) => {
          if (n !== asked.current) return;
          if (r.ok) {
            setSorted({ baseId: base.resultId, sort: s, shown: r });
            say(`Sorted by ${s.column} (${s.dir}) · the result held, not run again`);
          } else say(`Cannot sort by ${s.column}: ${r.header.ai}`);
        })
        .catch((e: unknown) => n === asked.current && say(`Cannot sort by ${s.column}: ${(e as Error).message}`))
        .finally(() => {
          clearTimeout(slow);
          if (n === asked.current) setPending(null);
        });
    },
    [base, say],
  );

  return { shown: active?.shown ?? base, sort: active?.sort ?? null, pending: pending && pending.baseId === baseId ? pending.sort : null, sortBy };
}
