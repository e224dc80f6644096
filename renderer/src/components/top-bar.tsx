/** The top bar: operations, Run and Export, with their keyboard shortcuts. */
import type { ExportFormat, OperationName } from '../../../engine/contract';
import { useStore } from '../store/store';
import { ConnectionMenu } from './connection-menu';

const isMac = typeof navigator !== 'undefined' && /mac/i.test(navigator.platform);
export const MOD = isMac ? '⌘' : 'Ctrl';

export function TopBar(): React.JSX.Element {
  const info = useStore((s) => s.info);
  const operation = useStore((s) => s.operation);
  const setOperation = useStore((s) => s.setOperation);
  const running = useStore((s) => s.running);
  // an error on screen: the result under it is not the current one, so there is nothing to export
  const result = useStore((s) => (s.failure ? null : s.result));
  const run = useStore((s) => s.run);
  const exportCsv = useStore((s) => s.exportCsv);
  const exportResult = useStore((s) => s.exportResult);
  const openMemory = useStore((s) => s.openMemory);
  return (
    <header className="top-bar">
      <span className="brand">Tickscope</span>
      <nav className="op-tabs" aria-label="Operations">
        {info?.operations.map((o) => (
          <button
            key={o.name}
            type="button"
            className={o.name === operation ? 'active' : ''}
            title={`${o.ipcNames[0]}: ${o.doc}`}
            onClick={() => setOperation(o.name as OperationName)}
          >
            {o.name}
          </button>
        ))}
      </nav>
      <span className="spacer" />
      <ConnectionMenu />
      <button type="button" data-testid="history" onClick={() => openMemory('history')} title={`History of runs and saved queries (${MOD}+H; ${MOD}+S saves the form)`}>
        History
      </button>
      <button type="button" className="primary" data-testid="run" disabled={running || !info} onClick={() => void run()} title={`Run (${MOD}+Enter)`}>
        {running ? 'Running…' : 'Run'} <kbd>{MOD}+↵</kbd>
      </button>
      <button type="button" data-testid="export" disabled={!result} onClick={() => void exportCsv()} title={`Export the whole result as CSV (${MOD}+Shift+E)`}>
        Export CSV
      </button>
      <select
        className="export-more"
        data-testid="export-format"
        disabled={!result}
        value=""
        title="Export the whole result in another format"
        aria-label="Export as"
        onChange={(e) => {
          const f = e.target.value as ExportFormat;
          e.target.value = '';
          if (f) void exportResult(f);
        }}
      >
        <option value="">more</option>
        <option value="csv">CSV (text, as the grid shows it)</option>
        <option value="arrow">Arrow IPC (typed, nanosecond UTC)</option>
        <option value="parquet">Parquet (typed, for pandas, DuckDB, Spark)</option>
      </select>
      {info && <span className="mode muted">{info.mode === 'electron' ? 'desktop' : 'browser'} · v{info.version}</span>}
    </header>
  );
}
