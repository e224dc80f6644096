/**
 * Import… (the connection menu, Ctrl/Cmd+I; issue 30): CSV, Parquet or Arrow files of the user's own
 * layout into a table of a Tickscope database. Paths on the engine's machine are typed (several, one a
 * line) or picked (the desktop's file dialogs; the browser uploads the files it picks or is given by a
 * drop); the columns are mapped by form with the rows as read and as mapped previewed as the form
 * changes; the command line and the mapping's JSON show what the CLI would run. Import runs on a
 * worker with its progress (files read) and Cancel; a re-import asks whether to skip, replace or append.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ColumnType, ImportPreview, ImportReportInfo, ReimportChoice } from '../../../engine/contract';
import { backend } from '../backend';
import { uploadImportFile } from '../backend/http';
import { copyText } from '../clipboard';
import { cliLine, type ColumnForm, columnName, EMPTY_COLUMN, mapDoc, newTableSpec, sizeText, splitPaths } from '../form/import-form';
import { embeddedDatabases } from '../store/connection-slice';
import { useStore } from '../store/store';
import { ColumnRows, RowsTable } from './import-columns';
import { DropZone, ImportOutcome, NewColumns, saveText } from './import-parts';
import { IMPORTABLE, type PickedFile } from './import-drop';
import { useEscape } from './widgets/use-escape';
import { ZoneInput } from './widgets/zone-input';

const NEW = '__new';
const PREVIEW_DELAY_MS = 300;

type Column = { readonly name: string; readonly type: ColumnType };

/** The dialog; closed through the store (openImport(false)). */
export function ImportDialog(): React.JSX.Element {
  const info = useStore((s) => s.info);
  const connections = useStore((s) => s.connections);
  const storeAssembly = useStore((s) => s.assembly);
  const close = useCallback(() => useStore.getState().openImport(false), []);
  // imports go to the embedded engine's databases; a remote gateway's tables are not written from here
  const remote = connections.find((c) => c.active)?.kind === 'remote';
  const writable = remote ? [] : (info?.assemblies ?? []).filter((a) => !a.readOnly);
  const [assembly, setAssembly] = useState(() => writable.find((a) => a.name === storeAssembly)?.name ?? writable[0]?.name ?? '');
  const tables = (info?.assemblies.find((a) => a.name === assembly)?.tables ?? []).filter((t) => t.kind === 'partitioned');
  const [pathsText, setPathsText] = useState('');
  const [target, setTarget] = useState(() => tables.find((t) => t.name === 'Trade')?.name ?? tables[0]?.name ?? NEW);
  const [newName, setNewName] = useState('');
  const [newCols, setNewCols] = useState<Column[] | null>(null);
  const [newKeys, setNewKeys] = useState({ time: '', id: '' });
  const [header, setHeader] = useState(true);
  const [zone, setZone] = useState('UTC');
  const [forms, setForms] = useState<Record<string, ColumnForm>>({});
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const [progress, setProgress] = useState('');
  const [report, setReport] = useState<ImportReportInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const queryId = useRef<string | null>(null);
  const first = useRef<HTMLTextAreaElement>(null);
  useEffect(() => first.current?.focus(), []);
  useEscape(close);

  const paths = useMemo(() => splitPaths(pathsText), [pathsText]);
  const isNew = target === NEW;
  const existing = tables.find((t) => t.name === target);
  const columns: readonly Column[] = isNew ? (newCols ?? []) : (existing?.columns ?? []);
  const tableName = isNew ? newName.trim() : target;
  const newTable = isNew ? newTableSpec(tableName, columns, newKeys.time, newKeys.id) : undefined;
  const required = isNew ? [newTable!.timeColumn, newTable!.idColumn].filter(Boolean) : [existing?.timeColumn ?? '', existing?.idColumn ?? ''].filter(Boolean);
  const doc = mapDoc({ table: tableName, header, zone, columns: forms }, columns.map((c) => c.name));
  const mapped = Object.keys(doc.columns).length > 0 && tableName !== '';
  const request = { paths, header, ...(assembly ? { assembly } : {}), ...(tableName ? { table: tableName } : {}), ...(mapped ? { map: doc } : {}), ...(newTable && tableName ? { newTable } : {}) };
  const requestKey = JSON.stringify(request);

  // the preview follows the form, a moment after the last change
  useEffect(() => {
    if (paths.length === 0) {
      setPreview(null);
      setPreviewError(null);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      backend()
        .importPreview(JSON.parse(requestKey) as typeof request)
        .then((p) => {
          if (!live) return;
          setPreview(p);
          setPreviewError(null);
        })
        .catch((e: unknown) => {
          if (!live) return;
          setPreview(null);
          setPreviewError((e as Error).message);
        });
    }, PREVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [requestKey]);

  const sources = preview?.sourceColumns ?? [];
  // a new table's columns are the source columns with the types guessed from the rows shown
  useEffect(() => {
    if (!isNew || newCols !== null || !preview) return;
    const cols = preview.sourceColumns.map((s, i) => ({ name: columnName(s, header), type: preview.sourceTypes[i] ?? 'symbol' }));
    setNewCols(cols);
    setForms(Object.fromEntries(cols.map((c, i) => [c.name, { ...EMPTY_COLUMN, from: 'source' as const, source: header ? preview.sourceColumns[i]! : String(i) }])));
  }, [isNew, newCols, preview, header]);
  // with a header, a table column named as a source column is mapped to it until the form says otherwise
  useEffect(() => {
    if (!header || isNew || sources.length === 0) return;
    setForms((f) => {
      const next = { ...f };
      for (const c of columns) if (!next[c.name] && sources.includes(c.name)) next[c.name] = { ...EMPTY_COLUMN, from: 'source', source: c.name };
      return next;
    });
  }, [header, isNew, sources.join('\u0000'), target]);

  // the zone's offset on the data's dates (the first and last times mapped), not today's
  const timeCol = isNew ? newTable!.timeColumn : existing?.timeColumn;
  const at = preview?.mapped && timeCol ? preview.mapped.columns.indexOf(timeCol) : -1;
  const times = at >= 0 ? preview!.mapped!.rows.map((r) => r[at]?.slice(0, 19) ?? '').filter((t) => t !== '') : [];
  const timeWindow = times.length > 0 ? ([times[0]!, times[times.length - 1]!] as const) : undefined;
  const dbDir = embeddedDatabases(connections).find((d) => d.name === assembly)?.dir ?? '';
  const json = JSON.stringify(doc, null, 2);
  const cli = cliLine(dbDir, paths);
  const missing = required.filter((r) => !doc.columns[r]);
  const ready = paths.length > 0 && tableName !== '' && missing.length === 0 && !importing && assembly !== '';

  const run = async (reimport?: ReimportChoice): Promise<void> => {
    const id = `import-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    queryId.current = id;
    setImporting(true);
    setError(null);
    setReport(null);
    setProgress('starting…');
    const poll = setInterval(() => {
      void backend()
        .progress(id)
        .then((p) => p && setProgress(p.state === 'queued' ? 'waiting for a worker…' : p.total > 0 ? `files ${p.done} of ${p.total}` : 'reading…'))
        .catch(() => undefined);
    }, 200);
    try {
      const r = await backend().importFiles({ paths, map: doc, assembly, ...(reimport ? { reimport } : {}), ...(newTable ? { newTable } : {}) }, id);
      setReport(r);
      // the table list and its rows (and a table made now) from the engine again
      await useStore.getState().refreshInfo();
      if (r.created) setTarget(r.table);
    } catch (e) {
      const msg = (e as Error).message;
      setError(/cancelled/.test(msg) ? 'Import cancelled: nothing was written.' : msg);
      // a table made before the failure is there now
      if (newTable) await useStore.getState().refreshInfo();
    } finally {
      clearInterval(poll);
      queryId.current = null;
      setImporting(false);
    }
  };

  // a new table's column renamed keeps its mapping
  const changeNewCols = (next: Column[]): void => {
    const prev = newCols ?? [];
    const renamed = new Map(next.flatMap((c, i) => (prev[i] && prev[i].name !== c.name ? [[prev[i].name, c.name] as const] : [])));
    if (renamed.size > 0) setForms((f) => Object.fromEntries(Object.entries(f).map(([k, v]) => [renamed.get(k) ?? k, v])));
    setNewCols(next);
  };
  const addPaths = (more: readonly string[]): void => setPathsText((t) => [...splitPaths(t), ...more].join('\n'));
  const upload = async (picked: readonly PickedFile[]): Promise<void> => {
    // a folder's other files (a README, .DS_Store) are not sent
    const files = picked.filter((f) => IMPORTABLE.test(f.path));
    if (files.length === 0) {
      if (picked.length > 0) setError(`None of the ${picked.length} files is a CSV, Parquet or Arrow file`);
      return;
    }
    let id: string | undefined;
    let folder = '';
    try {
      for (const [i, f] of files.entries()) {
        setNote(`Uploading ${i + 1} of ${files.length}: ${f.path}`);
        const r = await uploadImportFile(f.file, f.path, id);
        id = r.upload;
        folder = r.folder;
      }
      // the preview of the folder they went to says the rest
      setNote(null);
      addPaths([folder]);
    } catch (e) {
      setNote(null);
      setError(`Upload: ${(e as Error).message}`);
    }
  };
  const api = backend();
  const browser = info?.mode === 'browser';

  return (
    <div className="modal-backdrop import-backdrop">
      <form
        className="modal import-modal"
        role="dialog"
        aria-modal="true"
        aria-label="Import files"
        data-testid="import-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) void run();
        }}
      >
        <h2>Import files</h2>
        {writable.length === 0 && (
          <p className="error-text" data-testid="import-readonly">
            {remote
              ? 'Imports write into the embedded engine’s databases: switch the connection to the embedded engine to import.'
              : 'No database open here takes writes: a kdb+ database is read in place and never written. Open a Tickscope database beside it (Open database…) to import into.'}
          </p>
        )}
        <section className="import-files">
          <label className="import-paths">
            <span>Files or folders</span>
            <textarea ref={first} rows={2} value={pathsText} onChange={(e) => setPathsText(e.target.value)} placeholder="/data/equity/usa/tick/aapl (one path a line: CSV, Parquet, Arrow; folders are read with their subfolders)" spellCheck={false} data-testid="import-paths" />
          </label>
          <div className="import-pick">
            {api.pickFiles && (
              <button type="button" onClick={() => void api.pickFiles!.call(api, 'Import files').then((p) => p && addPaths(p))}>
                Files…
              </button>
            )}
            {api.pickFolder && (
              <button type="button" onClick={() => void api.pickFolder!.call(api, 'Import a folder').then((p) => p && addPaths([p]))}>
                Folder…
              </button>
            )}
            {browser && <DropZone onFiles={(f) => void upload(f)} />}
          </div>
          <p className="muted import-summary" data-testid="import-summary">
            {note ?? (preview ? `${preview.fileCount.toLocaleString('en-US')} file${preview.fileCount === 1 ? '' : 's'} · ${sizeText(preview.totalBytes)} · first: ${preview.files[0]?.path ?? ''}` : paths.length ? 'reading…' : 'Type paths on the machine the engine runs on, or pick files.')}
          </p>
          {previewError && (
            <p className="error-text" role="alert" data-testid="import-preview-error">
              {previewError}
            </p>
          )}
        </section>

        <section className="import-target">
          {writable.length > 1 && (
            <label>
              <span>Database</span>
              <select value={assembly} onChange={(e) => setAssembly(e.target.value)} data-testid="import-assembly">
                {writable.map((a) => (
                  <option key={a.name}>{a.name}</option>
                ))}
              </select>
            </label>
          )}
          <label>
            <span>Table</span>
            <select
              value={target}
              data-testid="import-table"
              onChange={(e) => {
                setTarget(e.target.value);
                setForms({});
                setNewCols(null);
              }}
            >
              {tables.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.name}
                </option>
              ))}
              <option value={NEW}>New table…</option>
            </select>
          </label>
          {isNew && (
            <label>
              <span>Name</span>
              <input value={newName} onChange={(e) => setNewName(e.target.value)} placeholder="LeanTrade" spellCheck={false} data-testid="import-new-name" />
            </label>
          )}
          <label className="inline" title="CSV: whether the first row names the columns (else they are 0, 1, 2, ...)">
            <input
              type="checkbox"
              checked={header}
              data-testid="import-header"
              onChange={(e) => {
                setHeader(e.target.checked);
                setForms({});
                // a new table's columns wait for the rows read the new way
                setNewCols(null);
                setPreview(null);
              }}
            />
            <span>Header row</span>
          </label>
          <label title="the zone of wall-clock times: times since midnight, and timestamps written without an offset">
            <span>Zone</span>
            <ZoneInput id="import-zone" value={zone} onChange={setZone} placeholder="UTC" {...(timeWindow ? { window: timeWindow, inputZone: zone } : {})} />
          </label>
        </section>

        {isNew && newCols && (
          <NewColumns
            columns={newCols}
            time={newTable!.timeColumn}
            id={newTable!.idColumn}
            onChange={changeNewCols}
            onKeys={setNewKeys}
            onRemove={(i) => {
              const gone = newCols[i]!.name;
              setForms((f) => Object.fromEntries(Object.entries(f).filter(([k]) => k !== gone)));
              setNewCols(newCols.filter((_, j) => j !== i));
            }}
          />
        )}
        {columns.length > 0 && (
          <ColumnRows columns={columns} forms={forms} sources={sources} sample={preview?.sourceRows[0]} header={header} required={required} onChange={(name, c) => setForms((f) => ({ ...f, [name]: c }))} />
        )}

        {preview && (
          <section className="import-previews">
            <div>
              <h3>As read: {preview.files[0]?.path.split(/[\\/]/).slice(-2).join('/')}</h3>
              <RowsTable testId="import-raw" columns={preview.sourceColumns.map((c) => (header ? c : `#${c}`))} rows={preview.sourceRows} numbered />
            </div>
            <div>
              <h3>As mapped into {tableName || '…'}</h3>
              {preview.mapError ? (
                <p className="error-text" data-testid="import-map-error">
                  {preview.mapError}
                </p>
              ) : preview.mapped ? (
                <RowsTable testId="import-mapped" columns={preview.mapped.columns} rows={preview.mapped.rows} numbered />
              ) : (
                <p className="muted">Map a column to see the rows as they will be written.</p>
              )}
            </div>
          </section>
        )}

        <details className="import-cli">
          <summary>Command line and mapping</summary>
          <pre data-testid="import-cli">{cli}</pre>
          <pre data-testid="import-json">{json}</pre>
          <div className="import-cli-buttons">
            <button type="button" onClick={() => void copyText(`${cli}\n`)}>
              Copy command
            </button>
            <button type="button" onClick={() => void copyText(`${json}\n`)}>
              Copy mapping
            </button>
            <button type="button" onClick={() => saveText('mapping.json', `${json}\n`)}>
              Save mapping…
            </button>
            {isNew && <span className="muted">The CLI imports into a table of schema.json; Import here adds it first.</span>}
          </div>
        </details>

        <div className="import-footer">
          <ImportOutcome report={report} error={error} importing={importing} progress={progress} missing={missing} onChoice={(c) => void run(c)} />
          <div className="modal-buttons">
            <button type="button" onClick={importing ? () => void (queryId.current && backend().cancel(queryId.current)) : close} data-testid="import-cancel">
              {importing ? 'Cancel import' : 'Close'} {!importing && <kbd>Esc</kbd>}
            </button>
            <button type="submit" className="primary" disabled={!ready} data-testid="import-submit">
              {importing ? 'Importing…' : 'Import'}
            </button>
          </div>
        </div>
      </form>
    </div>
  );
}
