/**
 * Where queries go: the embedded engine or a remote gateway (SPEC 7). The menu switches connection;
 * "Add remote gateway…" opens a dialog whose secret goes to the app's backend once and is never kept
 * in the page (the backend gets the tokens and renews them).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RemoteConnectionSpec } from '../../../engine/contract';
import { backend } from '../backend';
import { embeddedDatabases } from '../store/connection-slice';
import { useStore } from '../store/store';
import { useEscape } from './widgets/use-escape';

const ADD = '__add';
const OPEN = '__open';
const IMPORT = '__import';
const CLOSE = '__close:';


/** A dialog's error line, then Cancel (Esc) and its submit button. */
function DialogEnd(p: {
  readonly error: string | null;
  readonly errorId: string;
  readonly onClose: () => void;
  readonly submit: { readonly id: string; readonly text: string; readonly busyText: string; readonly busy: boolean; readonly disabled?: boolean };
}): React.JSX.Element {
  return (
    <>
      {p.error && (
        <p className="error-text" role="alert" data-testid={p.errorId}>
          {p.error}
        </p>
      )}
      <div className="modal-buttons">
        <button type="button" onClick={p.onClose}>
          Cancel <kbd>Esc</kbd>
        </button>
        <button type="submit" className="primary" disabled={p.submit.busy || p.submit.disabled === true} data-testid={p.submit.id}>
          {p.submit.busy ? p.submit.busyText : p.submit.text}
        </button>
      </div>
    </>
  );
}

/**
 * Open database…: a folder holding a Tickscope database or a kdb+ one (told apart by its contents),
 * and a kdb+ database's settings file. The desktop browses for the folder; the browser types the path
 * of a folder on the machine the engine runs on.
 */
function OpenDatabaseDialog({ onClose }: { onClose: () => void }): React.JSX.Element {
  const openDatabase = useStore((s) => s.openDatabase);
  const [dir, setDir] = useState('');
  const [settings, setSettings] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  useEscape(onClose);
  const pick = backend().pickFolder;
  const submit = async (e: React.FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    const failed = await openDatabase({ dir: dir.trim(), ...(settings.trim() ? { kdbSettings: settings.trim() } : {}) });
    setBusy(false);
    if (failed) setError(failed);
    else onClose();
  };
  return (
    <div className="modal-backdrop">
      <form className="modal" role="dialog" aria-modal="true" aria-label="Open a database" data-testid="open-db-dialog" onSubmit={(e) => void submit(e)}>
        <h2>Open a database</h2>
        <p className="muted">
          A Tickscope database or a kdb+ database (an HDB: date partitions, splayed tables, a <code>sym</code> file), read in place and never written. It is added beside the
          databases already open and opened again at the next launch.
        </p>
        <label>
          <span>Folder</span>
          <span className="path-field">
            <input ref={first} name="dir" required value={dir} onChange={(e) => setDir(e.target.value)} placeholder="/data/hdb" autoComplete="off" spellCheck={false} data-testid="open-db-dir" />
            {pick && (
              <button type="button" onClick={() => void pick.call(backend(), 'Open database').then((p) => p && setDir(p))}>
                Browse…
              </button>
            )}
          </span>
        </label>
        <label title="kdb+ only: its zone, time columns, table aliases and column roles (docs/kdb.md)">
          <span>kdb+ settings</span>
          <input name="kdbSettings" value={settings} onChange={(e) => setSettings(e.target.value)} placeholder="optional: settings.json" autoComplete="off" spellCheck={false} data-testid="open-db-settings" />
        </label>
        <DialogEnd error={error} errorId="open-db-error" onClose={onClose} submit={{ id: 'open-db-submit', text: 'Open', busyText: 'Opening…', busy, disabled: dir.trim() === '' }} />
      </form>
    </div>
  );
}

function RemoteDialog({ onClose }: { onClose: () => void }): React.JSX.Element {
  const addConnection = useStore((s) => s.addConnection);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  // the dialog is the innermost thing
  useEscape(onClose);
  const submit = async (e: React.FormEvent<HTMLFormElement>): Promise<void> => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string): string => String(f.get(k) ?? '').trim();
    const spec: RemoteConnectionSpec = {
      name: text('name') || text('baseUrl'),
      baseUrl: text('baseUrl'),
      ...(text('authUrl') ? { authUrl: text('authUrl') } : {}),
      realm: text('realm') || 'tickscope',
      clientId: text('clientId'),
      clientSecret: String(f.get('clientSecret') ?? ''),
    };
    setBusy(true);
    const failed = await addConnection(spec);
    setBusy(false);
    if (failed) setError(failed);
    else onClose();
  };
  return (
    <div className="modal-backdrop">
      <form className="modal" role="dialog" aria-modal="true" aria-label="Add a remote gateway" data-testid="remote-dialog" onSubmit={(e) => void submit(e)}>
        <h2>Add a remote gateway</h2>
        <p className="muted">A service speaking the same REST interface: another <code>tickscope gateway</code> or a kdb Insights gateway. The secret goes to the app&apos;s backend, which asks for tokens and renews them; it is not kept in this page.</p>
        <label>
          <span>Name</span>
          <input ref={first} name="name" placeholder="research gateway" autoComplete="off" />
        </label>
        <label>
          <span>Gateway URL</span>
          <input name="baseUrl" required placeholder="https://gateway.example.com" autoComplete="off" />
        </label>
        <label>
          <span>Auth URL</span>
          <input name="authUrl" placeholder="the gateway URL" autoComplete="off" />
        </label>
        <label>
          <span>Realm</span>
          <input name="realm" placeholder="tickscope" autoComplete="off" />
        </label>
        <label>
          <span>Client ID</span>
          <input name="clientId" required autoComplete="off" />
        </label>
        <label>
          <span>Client secret</span>
          <input name="clientSecret" type="password" required autoComplete="off" />
        </label>
        <DialogEnd error={error} errorId="remote-error" onClose={onClose} submit={{ id: 'remote-connect', text: 'Connect', busyText: 'Connecting…', busy }} />
      </form>
    </div>
  );
}

export function ConnectionMenu(): React.JSX.Element | null {
  const connections = useStore((s) => s.connections);
  const useConnection = useStore((s) => s.useConnection);
  const closeDatabase = useStore((s) => s.closeDatabase);
  const running = useStore((s) => s.running);
  const [adding, setAdding] = useState(false);
  const [opening, setOpening] = useState(false);
  const close = useCallback(() => setAdding(false), []);
  const closeOpen = useCallback(() => setOpening(false), []);
  const closable = embeddedDatabases(connections).filter((d) => d.opened);
  if (connections.length === 0) return null;
  const active = connections.find((c) => c.active)?.id ?? 'embedded';
  return (
    <>
      <label className="connection" title="Where queries run: the embedded engine or a remote gateway">
        <span className="muted">on</span>
        <select
          data-testid="connection"
          value={active}
          disabled={running}
          onChange={(e) => {
            const v = e.target.value;
            if (v === ADD) setAdding(true);
            else if (v === IMPORT) useStore.getState().openImport(true);
            else if (v === OPEN) setOpening(true);
            else if (v.startsWith(CLOSE)) void closeDatabase(v.slice(CLOSE.length));
            else void useConnection(v);
          }}
        >
          {connections.map((c) => (
            <option key={c.id} value={c.id}>
              {c.kind === 'remote' && c.url ? `${c.name} (${new URL(c.url).host})` : c.name}
            </option>
          ))}
          <option value={OPEN}>Open database…</option>
          <option value={IMPORT}>Import…</option>
          <option value={ADD}>Add remote gateway…</option>
          {closable.length > 0 && (
            <optgroup label="Close a database opened here">
              {closable.map((d) => (
                <option key={d.name} value={`${CLOSE}${d.name}`}>
                  Close {d.name}
                </option>
              ))}
            </optgroup>
          )}
        </select>
      </label>
      {adding && <RemoteDialog onClose={close} />}
      {opening && <OpenDatabaseDialog onClose={closeOpen} />}
    </>
  );
}
