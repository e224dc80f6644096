/** The app shell: tables | form | chart over grid, with the status line and keyboard shortcuts. */
import { useEffect, useMemo, useState } from 'react';
import { onMenuCommand } from './backend';
import { ArgForm } from './components/arg-form';
import { DepthLadder } from './components/depth-ladder';
import { MemoryPanel } from './components/memory-panel';
import { GenerateBanner } from './components/orders/generate-view';
import { OrderSummaryView } from './components/orders/summary-view';
import { ResultGrid } from './components/result-grid';
import { StatsView } from './components/stats/stats-view';
import { StatusBar } from './components/status-bar';
import { TableList } from './components/table-list';
import { TickChart } from './components/tick-chart';
import { TopBar } from './components/top-bar';
import { ladderColumns } from './ladder/ladder-model';
import { useStore } from './store/store';

/**
 * The top of the results: getStats results in the stats view; the depth ladder for orderbook results
 * (switchable); else the tick chart.
 */
function ResultView(): React.JSX.Element {
  const result = useStore((s) => s.result);
  const stats = useStore((s) => s.request?.operation === 'getStats' || (s.result?.groupColumns.length ?? 0) > 0);
  const [view, setView] = useState<'ladder' | 'chart'>('ladder');
  const cols = useMemo(() => (result ? ladderColumns(result.columns, result.timeColumn, result.idColumn) : null), [result]);
  if (stats) return <StatsView />;
  if (cols && view === 'ladder') return <DepthLadder cols={cols} onShowChart={() => setView('chart')} />;
  return <TickChart {...(cols ? { onShowLadder: () => setView('ladder') } : {})} />;
}

/** The results area: the order-analytics workspace for a summary; else the view over the grid. */
function Results(): React.JSX.Element {
  const summary = useStore((s) => s.request?.operation === 'getOrderAnalyticSummary' && s.result !== null);
  const generating = useStore((s) => s.operation === 'generateOrderAnalytics');
  const generated = useStore((s) => s.request?.operation === 'generateOrderAnalytics' && s.result !== null);
  if (generating) {
    return (
      <main className="results generate">
        <GenerateBanner />
        {generated ? <ResultGrid /> : <section className="grid-panel empty muted">The rows written appear here.</section>}
      </main>
    );
  }
  if (summary) {
    return (
      <main className="results">
        <OrderSummaryView />
      </main>
    );
  }
  return (
    <main className="results">
      <ResultView />
      <ResultGrid />
    </main>
  );
}

/** The whole app. */
export function App(): React.JSX.Element {
  useEffect(() => {
    void useStore.getState().load();
    onMenuCommand((cmd) => void (cmd === 'run' ? useStore.getState().run() : useStore.getState().exportCsv()));
    const onKey = (e: KeyboardEvent): void => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key === 'Enter') {
        e.preventDefault();
        void useStore.getState().run();
      } else if (e.key === 'Escape' && !e.defaultPrevented && useStore.getState().running) {
        // the innermost thing first: lists, palettes and a pinned bucket take Escape before it gets here
        e.preventDefault();
        useStore.getState().cancel();
      } else if (mod && e.shiftKey && (e.key === 'E' || e.key === 'e')) {
        e.preventDefault();
        void useStore.getState().exportCsv();
      } else if (mod && !e.shiftKey && (e.key === 'h' || e.key === 'H')) {
        e.preventDefault();
        const s = useStore.getState();
        s.openMemory(s.memoryPanel === 'history' ? null : 'history');
      } else if (mod && !e.shiftKey && (e.key === 's' || e.key === 'S')) {
        e.preventDefault();
        useStore.getState().openMemory('saved');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div className="app">
      <TopBar />
      <div className="workspace">
        <TableList />
        <ArgForm />
        <Results />
      </div>
      <StatusBar />
      <MemoryPanel />
    </div>
  );
}
