/**
 * The results area: the order-analytics workspace for a summary, the generate banner over the rows
 * written, or a view (chart, ladder, stats) over the grid in resizable panes; over any of them, the
 * states of result-states.tsx (a running query dims the previous result; an error or an empty result
 * covers it).
 */
import { useMemo, useState } from 'react';
import { ladderColumns } from '../ladder/ladder-model';
import { useStore, viewOf } from '../store/store';
import { DepthLadder } from './depth-ladder';
import { GenerateBanner } from './orders/generate-view';
import { OrderSummaryView } from './orders/summary-view';
import { ResultSplit } from './panes';
import { ResultGrid } from './result-grid';
import { EmptyPanel, ErrorPanel, RunningBanner, useResultState } from './result-states';
import { StatsView } from './stats/stats-view';
import { TickChart } from './tick-chart';

/**
 * The top of the results: getStats results in the stats view; the depth ladder for orderbook results
 * (switchable); else the tick chart.
 */
function ResultView(): React.JSX.Element {
  const result = useStore((s) => s.result);
  const stats = useStore((s) => viewOf(s.info, s.request?.operation) === 'stats' || (s.result?.groupColumns.length ?? 0) > 0);
  const [view, setView] = useState<'ladder' | 'chart'>('ladder');
  const cols = useMemo(() => (result ? ladderColumns(result.columns, result.timeColumn, result.idColumn) : null), [result]);
  if (stats) return <StatsView />;
  if (cols && view === 'ladder') return <DepthLadder cols={cols} onShowChart={() => setView('chart')} />;
  return <TickChart {...(cols ? { onShowLadder: () => setView('ladder') } : {})} />;
}

export function Results(): React.JSX.Element {
  // each operation's result in the view its declaration names
  const summary = useStore((s) => viewOf(s.info, s.request?.operation) === 'summary' && s.result !== null);
  const generating = useStore((s) => viewOf(s.info, s.operation) === 'generate');
  const generated = useStore((s) => viewOf(s.info, s.request?.operation) === 'generate' && s.result !== null);
  const stats = useStore((s) => viewOf(s.info, s.request?.operation) === 'stats' || (s.result?.groupColumns.length ?? 0) > 0);
  const stale = useStore((s) => s.running && (s.result !== null || s.failure !== null));
  const state = useResultState();
  const classes = `${stale ? 'stale' : ''} ${state ? `state-${state}` : ''}`;
  const states = (
    <>
      {state === 'failed' && <ErrorPanel />}
      {state === 'empty' && <EmptyPanel />}
      <RunningBanner />
    </>
  );
  if (generating) {
    return (
      <main className={`results generate ${classes}`}>
        <GenerateBanner />
        {generated ? <ResultGrid /> : <section className="grid-panel empty muted">The rows written appear here.</section>}
        {states}
      </main>
    );
  }
  if (summary) {
    return (
      <main className={`results ${classes}`}>
        <OrderSummaryView />
        {states}
      </main>
    );
  }
  return (
    <main className={`results split ${classes}`}>
      <ResultSplit kind={stats ? 'stats' : 'ticks'} view={<ResultView />} grid={<ResultGrid />} />
      {states}
    </main>
  );
}
