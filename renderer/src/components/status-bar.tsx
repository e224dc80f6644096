/** The status line: what the last call answered (rows and time, or the error with its code). */
import { useStore } from '../store/store';

export function StatusBar(): React.JSX.Element {
  const running = useStore((s) => s.running);
  const result = useStore((s) => s.result);
  const error = useStore((s) => s.error);
  const notice = useStore((s) => s.notice);
  const infoError = useStore((s) => s.infoError);
  return (
    <footer className="status-bar" data-testid="status">
      {infoError ? (
        <span className="error-text">Cannot reach the engine: {infoError}</span>
      ) : running ? (
        <span>Running…</span>
      ) : error ? (
        <span className="error-text" role="alert" data-testid="error">
          error {error.ac}: {error.ai}
        </span>
      ) : result ? (
        <span data-testid="rows">
          {result.rows.toLocaleString()} rows · {result.elapsedMs.toFixed(1)} ms · {result.header.api}
          {result.header.startTS ? ` · ${result.header.startTS} → ${result.header.endTS ?? ''}` : ''} · {result.outputTZ}
        </span>
      ) : (
        <span className="muted">Ready</span>
      )}
      <span className="spacer" />
      {notice && <span data-testid="notice">{notice}</span>}
    </footer>
  );
}
