/**
 * The parts of Import… (import-dialog.tsx) beside its form: a new table's columns, the outcome line
 * (progress, result, a re-import's choice, the error), the browser's drop zone and pickers, and saving
 * text as a file.
 */
import { useState } from 'react';
import type { ColumnType, ImportReportInfo, ReimportChoice } from '../../../engine/contract';
import { NEW_COLUMN_TYPES } from '../form/import-form';
import { collectDropped, type PickedFile } from './import-drop';

type Column = { readonly name: string; readonly type: ColumnType };

/**
 * A new table's columns: one per source column (its name made from the source's, its type guessed from
 * the rows; both changeable), more added for values from the path or constants; its time column (a
 * timestamp) and identifier (a symbol) chosen among them.
 */
export function NewColumns(p: {
  readonly columns: readonly Column[];
  readonly time: string;
  readonly id: string;
  readonly onChange: (c: Column[]) => void;
  readonly onKeys: (k: { time: string; id: string }) => void;
  readonly onRemove: (i: number) => void;
}): React.JSX.Element {
  const set = (i: number, patch: Partial<Column>): void => p.onChange(p.columns.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const of = (type: ColumnType): readonly Column[] => p.columns.filter((c) => c.type === type);
  let n = p.columns.length;
  while (p.columns.some((c) => c.name === `col${n}`)) n++;
  return (
    <div className="import-new-cols" data-testid="import-new-cols">
      <span className="muted">New table&apos;s columns</span>
      {p.columns.map((c, i) => (
        <span key={i} className="import-new-col">
          <input value={c.name} onChange={(e) => set(i, { name: e.target.value })} spellCheck={false} data-testid={`import-new-col-${i}-name`} />
          <select value={c.type} onChange={(e) => set(i, { type: e.target.value as ColumnType })} data-testid={`import-new-col-${i}-type`}>
            {NEW_COLUMN_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
          <button type="button" className="import-x" title={`Leave ${c.name} out of the table`} onClick={() => p.onRemove(i)}>
            ×
          </button>
        </span>
      ))}
      <button type="button" onClick={() => p.onChange([...p.columns, { name: `col${n}`, type: 'symbol' }])} data-testid="import-new-col-add">
        + column
      </button>
      <label className="inline">
        <span className="muted">time</span>
        <select value={p.time} onChange={(e) => p.onKeys({ time: e.target.value, id: p.id })} data-testid="import-new-time">
          {of('timestamp').length === 0 && <option value="">a timestamp column is needed</option>}
          {of('timestamp').map((c) => (
            <option key={c.name}>{c.name}</option>
          ))}
        </select>
      </label>
      <label className="inline">
        <span className="muted">identifier</span>
        <select value={p.id} onChange={(e) => p.onKeys({ time: p.time, id: e.target.value })} data-testid="import-new-id">
          {of('symbol').length === 0 && <option value="">a symbol column is needed</option>}
          {of('symbol').map((c) => (
            <option key={c.name}>{c.name}</option>
          ))}
        </select>
      </label>
    </div>
  );
}

/** The status line of the dialog: progress, the result, a re-import's choice, or the error. */
export function ImportOutcome(p: {
  readonly report: ImportReportInfo | null;
  readonly error: string | null;
  readonly importing: boolean;
  readonly progress: string;
  readonly missing: readonly string[];
  readonly onChoice: (c: ReimportChoice) => void;
}): React.JSX.Element | null {
  const r = p.report;
  if (p.importing) {
    return (
      <p className="import-progress" data-testid="import-progress">
        Importing: {p.progress}
      </p>
    );
  }
  if (p.error) {
    return (
      <p className="error-text" role="alert" data-testid="import-error">
        {p.error}
      </p>
    );
  }
  if (r && !r.written && r.reimported.length > 0) {
    const rows = r.reimported.reduce((s, x) => s + x.rows, 0);
    return (
      <div className="import-reimport" data-testid="import-reimport">
        <p title={r.reimported.map((x) => `${x.table} ${x.key}: ${x.rows.toLocaleString('en-US')} rows from ${(x.files ?? []).join(', ')}`).join('\n')}>
          These rows were imported before: {r.reimported.map((x) => `${x.table} ${x.key}`).join(', ')} ({rows.toLocaleString('en-US')} rows, imported {r.reimported[0]!.at.replace('T', ' ').slice(0, 16)} UTC). Nothing was written.
        </p>
        <div className="modal-buttons">
          <button type="button" onClick={() => p.onChoice('skip')} data-testid="import-skip">
            Skip those partitions
          </button>
          <button type="button" onClick={() => p.onChoice('replace')} data-testid="import-replace">
            Replace them
          </button>
          <button type="button" onClick={() => p.onChoice('append')} data-testid="import-append">
            Append anyway
          </button>
        </div>
      </div>
    );
  }
  if (r) {
    return (
      <p className="import-result" data-testid="import-result">
        {r.written ? `Imported ${r.rows.toLocaleString('en-US')} rows from ${r.files} file${r.files === 1 ? '' : 's'} into ${r.table}` : `Nothing written to ${r.table}`}
        {r.partitions.length > 0 ? ` · partitions ${r.partitions.join(', ')}` : ''}
        {r.skippedRows > 0 ? ` · ${r.skippedRows.toLocaleString('en-US')} rows skipped (imported before)` : ''}
        {r.created ? ' · table created' : ''}
      </p>
    );
  }
  if (p.missing.length > 0) return <p className="muted">Map {p.missing.join(' and ')}: every row needs {p.missing.length === 1 ? 'it' : 'them'}.</p>;
  return null;
}

/** Saves text as a file: a download in the browser (the desktop shows its save dialog). */
export function saveText(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The browser's own files: a drop zone and its pickers (files, a folder), each file with its relative path. */
export function DropZone(p: { readonly onFiles: (files: PickedFile[]) => void }): React.JSX.Element {
  const [over, setOver] = useState(false);
  const fromInput = (e: React.ChangeEvent<HTMLInputElement>): void => {
    p.onFiles([...(e.target.files ?? [])].map((file) => ({ file, path: file.webkitRelativePath || file.name })));
    // the same files may be picked again
    e.target.value = '';
  };
  return (
    <div
      className={`import-drop ${over ? 'over' : ''}`}
      data-testid="import-drop"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        void collectDropped(e.dataTransfer).then(p.onFiles);
      }}
    >
      <span className="muted">Drop files or a folder here, or</span>
      <label className="import-pick-button">
        files…
        <input type="file" multiple accept=".csv,.parquet,.arrow,.arrows,.ipc,.feather" data-testid="import-upload-files" onChange={fromInput} />
      </label>
      <label className="import-pick-button">
        a folder…
        <input type="file" data-testid="import-upload-folder" ref={(el) => el?.setAttribute('webkitdirectory', '')} onChange={fromInput} />
      </label>
    </div>
  );
}
