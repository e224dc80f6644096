/**
 * The instrument on the chart survives a re-run: every run resets the store's chart choice to the
 * result's first identifier, so the chart (and the depth ladder, which shares the choice) puts back the
 * instrument that was on screen when the new result still holds it.
 */
import { useEffect } from 'react';
import { useStore } from '../store/store';

/** The identifier to show for a new result: the one shown before when the result has it, else the default. */
export function keptId(shown: string | null, ids: readonly string[], fallback: string | null): string | null {
  return shown !== null && ids.includes(shown) ? shown : fallback;
}

/** What was on screen, across results (and across the chart and the ladder, only one of which is mounted). */
const memory: { shown: string | null; resultId: string | null } = { shown: null, resultId: null };

/** The identifier to chart for a result and the store's choice (what useKeptId returns, for code outside React). */
export function idToShow(result: { readonly resultId: string; readonly ids: readonly string[] } | null, chosen: string | null): string | null {
  return result !== null && result.resultId !== memory.resultId ? keptId(memory.shown, result.ids, chosen) : chosen;
}

/**
 * The identifier to chart for the store's result. A result not seen yet gets the instrument shown
 * before when it holds it (written back to the store at once, so the request for the default never
 * goes out); after that the store's choice is what the user picks.
 */
export function useKeptId(): string | null {
  const result = useStore((s) => s.result);
  const chosen = useStore((s) => s.chart.id);
  const setChart = useStore((s) => s.setChart);
  const id = idToShow(result, chosen);
  useEffect(() => {
    if (!result) return;
    if (result.resultId !== memory.resultId) {
      memory.resultId = result.resultId;
      if (id !== chosen) setChart({ id });
    }
    if (id !== null) memory.shown = id;
  }, [result, id, chosen, setChart]);
  return id;
}
