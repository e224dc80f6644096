/**
 * The refFilter editor: rows of reference table / column / function / value, sent as
 * {"Instrument": [["like","sector","Tech*"]]}; or raw text (that JSON, or the q dictionary text
 * (enlist `Instrument)!enlist ((like;`sector;"Tech*"))).
 */
import type { TableInfo } from '../../../../engine/contract';
import { blankRefRow, refRowsBody, refTextRows } from '../../form/ref-filter-rows';
import { rowWarning } from '../../form/filter-rows';
import { columnsOf } from '../../form/schema';
import { type FormValue, isRows, rowsValue } from '../../form/values';
import { ColumnSelect, FnSelect, ModeToggle, RemoveButton, ValueInputs } from './editor-parts';
import { jsonProblem } from './filter-editor';

export interface RefFilterEditorProps {
  readonly id: string;
  readonly value: FormValue | undefined;
  readonly onChange: (v: FormValue) => void;
  readonly tables: readonly TableInfo[];
  /** Reference tables reachable from the chosen table (offered first). */
  readonly refs: readonly string[];
  readonly describedBy?: string;
}

function rowsAsText(rows: ReadonlyArray<readonly string[]>): string {
  try {
    const body = refRowsBody(rows);
    return body ? JSON.stringify(body) : '';
  } catch {
    // incomplete rows: keep what can be said
    return JSON.stringify(Object.fromEntries(rows.filter((r) => r[0]).map((r) => [r[0], [[r[1], r[2], r[3]]]])));
  }
}

/** The refFilter builder | text editor. */
export function RefFilterEditor(p: RefFilterEditorProps): React.JSX.Element {
  const builder = p.value === undefined || isRows(p.value);
  const rows = isRows(p.value) ? p.value.rows : [];
  const text = typeof p.value === 'string' ? p.value : '';
  const asRows = builder ? null : refTextRows(text);
  const refTables = p.refs.length ? p.refs : p.tables.filter((t) => t.kind === 'reference').map((t) => t.name);
  const setRows = (next: ReadonlyArray<readonly string[]>): void => p.onChange(rowsValue(next));
  const setCells = (i: number, cells: Readonly<Record<number, string>>): void =>
    setRows(rows.map((r, j) => (j === i ? r.map((c, k) => cells[k] ?? c) : r)));
  const problem = builder ? null : jsonProblem(text);

  return (
    <div className="editor" data-testid={p.id} aria-describedby={p.describedBy}>
      <div className="editor-bar">
        <ModeToggle
          testId={`${p.id}-mode`}
          mode={builder ? 'builder' : 'text'}
          blocked={asRows === null && !builder ? 'This text has no builder form (q dictionary text): edit it as text or clear it' : null}
          onMode={(m) => {
            if (m === 'text' && builder) p.onChange(rowsAsText(rows));
            if (m === 'builder' && !builder && asRows) setRows(asRows);
          }}
        />
        {builder && (
          <button type="button" className="link-button" data-testid={`${p.id}-add`} disabled={refTables.length === 0} onClick={() => setRows([...rows, blankRefRow(refTables[0] ?? '')])}>
            + row
          </button>
        )}
      </div>
      {builder ? (
        <div className="rows">
          {rows.length === 0 && <div className="muted rows-empty">{refTables.length ? `Filter on ${refTables.join(', ')} columns: add a row.` : 'Choose a table with foreign keys to filter on reference columns.'}</div>}
          {rows.map((r, i) => {
            const [table = '', fn = 'like', col = '', v1 = '', v2 = ''] = r;
            const cols = columnsOf(p.tables, table);
            const known = table === '' || refTables.includes(table);
            const warning = known ? rowWarning([fn, col, v1, v2], cols.find((c) => c.name === col)?.type) : `no foreign key leads to ${table}`;
            return (
              <div key={i} className={`rrow ${warning ? 'warn' : ''}`} data-testid={`${p.id}-row-${i}`}>
                <select aria-label={`row ${i + 1} reference table`} className={known ? '' : 'invalid'} value={table} onChange={(e) => setCells(i, { 0: e.target.value, 2: '' })}>
                  {!known && <option value={table}>{table}</option>}
                  {refTables.map((t) => (
                    <option key={t}>{t}</option>
                  ))}
                </select>
                <ColumnSelect label={`row ${i + 1} column`} testId={`${p.id}-col-${i}`} value={col} columns={cols} onChange={(c) => setCells(i, { 2: c })} />
                <FnSelect value={fn} onChange={(f) => setCells(i, { 1: f })} />
                <span className="rrow-value">
                  <ValueInputs testId={`${p.id}-value-${i}`} fn={fn} v1={v1} v2={v2} onChange={(a, b) => setCells(i, { 3: a, 4: b })} />
                </span>
                <RemoveButton label={`remove row ${i + 1}`} onClick={() => setRows(rows.filter((_, j) => j !== i))} />
                {warning && <div className="row-msg warn-text">{warning}</div>}
              </div>
            );
          })}
        </div>
      ) : (
        <textarea
          data-testid={`${p.id}-text`}
          aria-label="refFilter text"
          className={problem ? 'invalid' : ''}
          rows={2}
          spellCheck={false}
          value={text}
          placeholder={'{"Instrument":[["like","sector","Tech*"]]}'}
          title={'JSON {"Instrument":[["like","sector","Tech*"]]} or q (enlist `Instrument)!enlist ((like;`sector;"Tech*"))'}
          onChange={(e) => p.onChange(e.target.value)}
        />
      )}
      {problem && <div className="field-msg error-text">{problem}</div>}
    </div>
  );
}
