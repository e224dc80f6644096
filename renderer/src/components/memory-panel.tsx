/**
 * History and saved queries (SPEC 9), as a palette over the workspace: search as you type, arrows to
 * move, Enter to run the highlighted request again (Shift+Enter: only put it in the form), Escape to
 * close. Saved queries are named, deleted, and exported or imported as one JSON file.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { ARG } from '../../../engine/contract';
import { type HistoryEntry, type SavedQuery, savedQueriesJson, searchHistory, tableOf } from '../history/history';
import { useStore } from '../store/store';
import { MOD } from './top-bar';

const when = (iso: string): string => {
  const d = new Date(iso);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
};

const count = (n: number): string => n.toLocaleString('en-US');

/** A request's arguments in one line (its table has a column of its own). */
function argsLine(args: Readonly<Record<string, unknown>>): string {
  return Object.entries(args)
    .filter(([k]) => k !== ARG.table.name)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('  ');
}

export function MemoryPanel(): React.JSX.Element | null {
  const tab = useStore((s) => s.memoryPanel);
  const history = useStore((s) => s.history);
  const saved = useStore((s) => s.saved);
  const { openMemory, restore, saveQuery, deleteSaved, importSaved, clearHistory } = useStore.getState();
  const [query, setQuery] = useState('');
  const [at, setAt] = useState(0);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const search = useRef<HTMLInputElement>(null);
  const nameBox = useRef<HTMLInputElement>(null);
  const file = useRef<HTMLInputElement>(null);
  const list = useMemo(() => (tab === 'saved' ? searchHistory(saved, query) : searchHistory(history, query)), [tab, saved, history, query]);

  // each opening starts afresh: an empty search (the panel stays mounted between openings); saved
  // queries open on the name box (Mod+S: name the form's request and press Enter), history on the search
  useEffect(() => {
    setAt(0);
    setProblem(null);
    setQuery('');
    if (tab === 'saved') nameBox.current?.focus();
    else if (tab) search.current?.focus();
  }, [tab]);
  useEffect(() => setAt(0), [query]);
  if (!tab) return null;

  const pick = (i: number, run: boolean): void => {
    const e = list[i];
    if (e) void restore(e.operation, e.args, run);
  };
  const onKey = (e: React.KeyboardEvent): void => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      openMemory(null);
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      setAt((a) => Math.min(list.length - 1, a + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setAt((a) => Math.max(0, a - 1));
    } else if (e.key === 'Enter' && (e.target as HTMLElement).dataset['role'] === 'search') {
      e.preventDefault();
      pick(at, !e.shiftKey);
    }
  };
  const exportFile = (): void => {
    const url = URL.createObjectURL(new Blob([savedQueriesJson(saved)], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'tickscope-saved-queries.json';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  return (
    <div className="memory-backdrop" onMouseDown={(e) => e.target === e.currentTarget && openMemory(null)}>
      <section className="memory-panel" role="dialog" aria-label="History and saved queries" data-testid="memory-panel" onKeyDown={onKey}>
        <header className="memory-tabs">
          <button type="button" className={tab === 'history' ? 'active' : ''} onClick={() => openMemory('history')} data-testid="memory-tab-history">
            History <span className="muted">{count(history.length)}</span>
          </button>
          <button type="button" className={tab === 'saved' ? 'active' : ''} onClick={() => openMemory('saved')} data-testid="memory-tab-saved">
            Saved <span className="muted">{count(saved.length)}</span>
          </button>
          <span className="spacer" />
          <span className="muted hint">↵ run · ⇧↵ to form · Esc close</span>
        </header>
        <input
          ref={search}
          data-role="search"
          data-testid="memory-search"
          className="memory-search"
          placeholder={tab === 'saved' ? 'Search saved queries' : 'Search runs: operation, table, argument, error code…'}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        {tab === 'saved' && (
          <form
            className="memory-save"
            onSubmit={(e) => {
              e.preventDefault();
              void saveQuery(name).then((err) => {
                setProblem(err);
                if (!err) setName('');
              });
            }}
          >
            <input ref={nameBox} data-testid="save-name" placeholder="Name the current form's request" value={name} onChange={(e) => setName(e.target.value)} />
            <button type="submit" data-testid="save-query" title={`Save the current form (${MOD}+S)`}>
              Save
            </button>
            <button type="button" onClick={exportFile} disabled={saved.length === 0} title="Export every saved query as one JSON file">
              Export…
            </button>
            <button type="button" onClick={() => file.current?.click()} title="Add the saved queries of an exported JSON file">
              Import…
            </button>
            <input
              ref={file}
              type="file"
              accept="application/json,.json"
              hidden
              data-testid="import-saved"
              onChange={(e) => {
                const f = e.target.files?.[0];
                if (f) void f.text().then((text) => importSaved(text).then(setProblem));
                e.target.value = '';
              }}
            />
          </form>
        )}
        {problem && <p className="memory-problem" role="alert">{problem}</p>}
        <ol className="memory-list" data-testid="memory-list">
          {list.length === 0 && <li className="muted empty">{query ? 'Nothing matches.' : tab === 'saved' ? 'No saved queries yet: name the current form above.' : 'No runs yet.'}</li>}
          {list.map((e, i) => (
            <li
              key={'name' in e ? e.name : e.id}
              className={i === at ? 'at' : ''}
              onMouseEnter={() => setAt(i)}
              onClick={(ev) => pick(i, !ev.shiftKey)}
              title={`${e.operation} ${JSON.stringify(e.args)}`}
            >
              {'name' in e ? <SavedRow q={e} onDelete={() => void deleteSaved(e.name)} /> : <HistoryRow e={e} />}
            </li>
          ))}
        </ol>
        {tab === 'history' && history.length > 0 && (
          <footer className="memory-footer">
            <span className="muted">The last {count(1000)} runs are kept; secrets never are.</span>
            <span className="spacer" />
            <button type="button" onClick={() => void clearHistory()}>
              Clear history
            </button>
          </footer>
        )}
      </section>
    </div>
  );
}

/** A request's arguments in one line, cut with an ellipsis in its column: the whole line is its tooltip. */
function ArgsCell({ args }: { readonly args: Readonly<Record<string, unknown>> }): React.JSX.Element {
  const line = argsLine(args);
  return (
    <span className="args" title={line}>
      {line.length > 160 ? `${line.slice(0, 159)}…` : line}
    </span>
  );
}

function HistoryRow({ e }: { readonly e: HistoryEntry }): React.JSX.Element {
  return (
    <>
      <span className="when">{when(e.startedAt)}</span>
      <span className="op">{e.operation}</span>
      <span className="table">{tableOf(e.args)}</span>
      <ArgsCell args={e.args} />
      <span className={`outcome ${e.ok ? 'ok' : 'failed'}`} title={e.message ?? undefined}>
        {e.ok ? `${count(e.rows ?? 0)} rows` : e.code !== null ? `error ${e.code}` : 'failed'}
      </span>
      <span className="ms">{count(e.ms)} ms</span>
      {e.connection && e.connection !== 'Embedded engine' && <span className="conn muted">{e.connection}</span>}
    </>
  );
}

function SavedRow({ q, onDelete }: { readonly q: SavedQuery; readonly onDelete: () => void }): React.JSX.Element {
  return (
    <>
      <span className="name" title={q.name}>
        {q.name}
      </span>
      <span className="op">{q.operation}</span>
      <span className="table">{tableOf(q.args)}</span>
      <ArgsCell args={q.args} />
      <button
        type="button"
        className="delete"
        title={`Delete the saved query ${q.name}`}
        onClick={(ev) => {
          ev.stopPropagation();
          onDelete();
        }}
      >
        ×
      </button>
    </>
  );
}
