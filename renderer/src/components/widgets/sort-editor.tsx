/**
 * The sortCols builder: rows of direction and column, added, removed and reordered (the first row
 * sorts first); sent as the flat list ["desc","volume","asc","eventTimestamp"].
 */
import type { ColumnChoice } from '../../form/schema';
import { moveRow, sortTextRows } from '../../form/sort-rows';
import { type FormValue, isRows, rowsValue } from '../../form/values';
import { ColumnSelect, RemoveButton } from './editor-parts';

export interface SortEditorProps {
  readonly id: string;
  readonly value: FormValue | undefined;
  readonly onChange: (v: FormValue) => void;
  readonly columns: readonly ColumnChoice[];
  readonly describedBy?: string;
}

/** The sort rows editor. */
export function SortEditor(p: SortEditorProps): React.JSX.Element {
  const rows = isRows(p.value) ? p.value.rows : typeof p.value === 'string' ? sortTextRows(p.value) : [];
  const setRows = (next: ReadonlyArray<readonly string[]>): void => p.onChange(rowsValue(next));
  const setCell = (i: number, k: 0 | 1, v: string): void => setRows(rows.map((r, j) => (j === i ? r.map((c, n) => (n === k ? v : c)) : r)));
  const used = new Set(rows.map((r) => r[1]));
  const next = p.columns.find((c) => !used.has(c.name))?.name ?? '';
  return (
    <div className="editor" data-testid={p.id} aria-describedby={p.describedBy}>
      <div className="editor-bar">
        <span />
        <button type="button" className="link-button" data-testid={`${p.id}-add`} onClick={() => setRows([...rows, ['asc', next]])}>
          + sort
        </button>
      </div>
      <div className="rows">
        {rows.length === 0 && <div className="muted rows-empty">Default order: time, then identifier. Rows sort in turn, first row first.</div>}
        {rows.map(([dir = 'asc', col = ''], i) => (
          <div key={i} className="srow" data-testid={`${p.id}-row-${i}`}>
            <button
              type="button"
              className="dir-button"
              data-testid={`${p.id}-dir-${i}`}
              title="Direction: click to switch asc / desc"
              aria-label={`row ${i + 1} direction ${dir}`}
              onClick={() => setCell(i, 0, dir === 'asc' ? 'desc' : 'asc')}
            >
              {dir === 'asc' ? '↑ asc' : '↓ desc'}
            </button>
            <ColumnSelect label={`sort row ${i + 1} column`} testId={`${p.id}-col-${i}`} value={col} columns={p.columns} onChange={(c) => setCell(i, 1, c)} />
            <button type="button" className="icon-button" aria-label={`move row ${i + 1} up`} title="Move up" disabled={i === 0} onClick={() => setRows(moveRow(rows, i, -1))}>
              ▲
            </button>
            <button type="button" className="icon-button" aria-label={`move row ${i + 1} down`} title="Move down" disabled={i === rows.length - 1} onClick={() => setRows(moveRow(rows, i, 1))}>
              ▼
            </button>
            <RemoveButton label={`remove sort row ${i + 1}`} onClick={() => setRows(rows.filter((_, j) => j !== i))} />
          </div>
        ))}
      </div>
    </div>
  );
}
