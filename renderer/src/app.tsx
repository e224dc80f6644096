/** The app shell: tables | form | chart over grid, with the status line and keyboard shortcuts. */
import { useEffect } from 'react';
import { onMenuCommand } from './backend';
import { ArgForm } from './components/arg-form';
import { ResultGrid } from './components/result-grid';
import { StatusBar } from './components/status-bar';
import { TableList } from './components/table-list';
import { TickChart } from './components/tick-chart';
import { TopBar } from './components/top-bar';
import { useStore } from './store/store';

export function App(): React.JSX.Element {
  useEffect(() => {
    void useStore.getState().load();
    onMenuCommand((cmd) => void (cmd === 'run' ? useStore.getState().run() : useStore.getState().exportCsv()));
    const onKey = (e: KeyboardEvent): void => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key === 'Enter') {
        e.preventDefault();
        void useStore.getState().run();
      } else if (mod && e.shiftKey && (e.key === 'E' || e.key === 'e')) {
        e.preventDefault();
        void useStore.getState().exportCsv();
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
        <main className="results">
          <TickChart />
          <ResultGrid />
        </main>
      </div>
      <StatusBar />
    </div>
  );
}
