/**
 * The status line: what the last call answered (rows and time, or the error with its code); while a
 * call runs longer than 200 ms, its progress (partitions read), elapsed time and a Cancel button; the
 * same for an export being written (rows written).
 */
import { useEffect, useState } from 'react';
import { type RunOk, useStore } from '../store/store';

/** A call shows its progress once it has run this long. */
const SHOW_AFTER_MS = 200;

/** Now, every 100 ms (the elapsed time of a running call). */
function useNow(): number {
  const [now, setNow] = useState(performance.now());
  useEffect(() => {
    const t = setInterval(() => setNow(performance.now()), 100);
    return () => clearInterval(t);
  }, []);
  return now;
}

/** A progress bar: filled to `share` (0..1), or moving when the share is not known. */
function ProgressBar({ share, label }: { readonly share: number | null; readonly label: string }): React.JSX.Element {
  return (
    <span className="progress" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={share === null ? undefined : Math.round(share * 100)} aria-label={label}>
      <span className={`progress-fill ${share === null ? 'indeterminate' : ''}`} style={share === null ? undefined : { width: `${(share * 100).toFixed(1)}%` }} />
    </span>
  );
}

function Running(): React.JSX.Element {
  const query = useStore((s) => s.query);
  const progress = useStore((s) => s.progress);
  const cancel = useStore((s) => s.cancel);
  const now = useNow();
  const elapsed = query ? now - query.started : 0;
  if (!query || elapsed < SHOW_AFTER_MS) return <span>Running…</span>;
  const share = progress && progress.total > 0 ? progress.done / progress.total : null;
  return (
    <span className="running" data-testid="running">
      <ProgressBar share={share} label={`${query.operation} progress`} />
      <span>
        {query.operation}{' '}
        {progress?.state === 'queued' ? 'waiting for a worker' : progress && progress.total > 0 ? `${progress.done} of ${progress.total} ${progress.unit}` : 'running'} · {(elapsed / 1000).toFixed(1)} s
      </span>
      <button type="button" className="cancel-button" data-testid="cancel" onClick={() => cancel()} title="Cancel the query (Escape)">
        Cancel <kbd>Esc</kbd>
      </button>
    </span>
  );
}

/** The export being written, once it has taken 200 ms: rows written of the result's, elapsed time, Cancel. */
function Exporting(): React.JSX.Element | null {
  const exporting = useStore((s) => s.exporting);
  const cancel = useStore((s) => s.cancelExport);
  const now = useNow();
  if (!exporting) return null;
  const elapsed = now - exporting.started;
  if (elapsed < SHOW_AFTER_MS) return <span data-testid="exporting">Exporting {exporting.name}…</span>;
  const p = exporting.progress;
  const share = p && p.total > 0 && p.unit === 'rows' ? p.done / p.total : null;
  return (
    <span className="running" data-testid="exporting">
      <ProgressBar share={share} label={`export of ${exporting.name}`} />
      <span data-testid="exporting-text">
        {exporting.name} · {share === null ? 'writing' : `${p!.done.toLocaleString('en-US')} of ${p!.total.toLocaleString('en-US')} rows`} · {(elapsed / 1000).toFixed(1)} s
      </span>
      <button type="button" className="cancel-button" data-testid="cancel-export" onClick={() => cancel()} title="Stop writing the file">
        Cancel
      </button>
    </span>
  );
}

/** What the last call answered, on one line (its whole text as a tooltip when the line is cut). */
function ResultLine({ result }: { readonly result: RunOk }): React.JSX.Element {
  const text = `${result.rows.toLocaleString()} rows · ${result.elapsedMs.toFixed(1)} ms · ${result.header.api}${result.header.startTS ? ` · ${result.header.startTS} → ${result.header.endTS ?? ''}` : ''} · ${result.outputTZ}`;
  return (
    <span data-testid="rows" title={text}>
      {text}
    </span>
  );
}

export function StatusBar(): React.JSX.Element {
  const running = useStore((s) => s.running);
  const result = useStore((s) => s.result);
  const failure = useStore((s) => s.failure);
  const notice = useStore((s) => s.notice);
  const infoError = useStore((s) => s.infoError);
  const connection = useStore((s) => s.info?.connection);
  const assemblies = useStore((s) => s.info?.assemblies);
  const assemblyName = useStore((s) => s.assembly);
  const assembly = assemblies?.find((a) => a.name === assemblyName);
  return (
    <footer className="status-bar" data-testid="status">
      {infoError ? (
        <span className="error-text">Cannot reach the engine: {infoError}</span>
      ) : running ? (
        <Running />
      ) : failure ? (
        <span className="error-text" role="alert" data-testid="error">
          error{failure.ac === null ? '' : ` ${failure.ac}`}: {failure.message}
        </span>
      ) : result ? (
        <ResultLine result={result} />
      ) : (
        <span className="muted">Ready</span>
      )}
      <span className="spacer" />
      <Exporting />
      {notice && <span data-testid="notice">{notice}</span>}
      {connection && (
        <span className={connection.kind === 'remote' ? 'connection-name remote' : 'connection-name muted'} data-testid="connection-name" title={connection.url ?? 'queries run in this app'}>
          {connection.name}
        </span>
      )}
      {assembly && (assemblies!.length > 1 || assembly.kind === 'kdb') && (
        <span
          className={assembly.kind === 'kdb' ? 'assembly-name kdb' : 'assembly-name muted'}
          data-testid="assembly-name"
          title={assembly.readOnly ? 'read in place: queries and exports work; writes (order analytics, imports) go to a Tickscope database opened beside it' : 'a Tickscope database'}
        >
          {assembly.name}
          {assembly.kind === 'kdb' ? ' · kdb+' : ''}
          {assembly.readOnly ? ' · read-only' : ''}
        </span>
      )}
    </footer>
  );
}
