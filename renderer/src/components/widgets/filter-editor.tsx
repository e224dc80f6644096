/**
 * The filter editor: a builder of function / column / value rows (sent as the list form) or the text
 * form (`price<100;volume>=10`, list JSON, or q parse-tree text), switchable when the text has a
 * builder equivalent.
 */
import { blankFilterRow, filterRowsText, filterTextRows, rowWarning } from '../../form/filter-rows';
import type { ColumnChoice } from '../../form/schema';
import { type FormValue, isRows, rowsValue } from '../../form/values';
import { ColumnSelect, FnSelect, ModeToggle, RemoveButton, ValueInputs } from './editor-parts';

export interface FilterEditorProps {
  readonly id: string;
  readonly value: FormValue | undefined;
  readonly onChange: (v: FormValue) => void;
  readonly columns: readonly ColumnChoice[];
  /** The identifier column: its value inputs suggest the table's identifiers. */
  readonly idColumn?: string | undefined;
  readonly describedBy?: string;
  readonly placeholder?: string;
}

const TEXT_HELP = 'price<100;volume>=10 · instrumentID=AAPL|MSFT · sym~AA* · price=null · [["<","price","100"]] · q: ((<;`price;100);(in;`instrumentID;`A`B))';

/** A JSON problem of a text that looks like JSON, or null. */
export function jsonProblem(text: string): string | null {
  const t = text.trim();
  if (!t.startsWith('[') && !t.startsWith('{')) return null;
  try {
    JSON.parse(t);
    return null;
  } catch (e) {
    return `not valid JSON: ${(e as Error).message}`;
  }
}

/** The filter builder | text editor. */
export function FilterEditor(p: FilterEditorProps): React.JSX.Element {
  const builder = p.value === undefined || isRows(p.value);
  const rows = isRows(p.value) ? p.value.rows : [];
  const text = typeof p.value === 'string' ? p.value : '';
  const asRows = builder ? null : filterTextRows(text);
  const setRows = (next: ReadonlyArray<readonly string[]>): void => p.onChange(rowsValue(next));
  const setCell = (i: number, cells: Partial<Record<0 | 1 | 2 | 3, string>>): void =>
    setRows(rows.map((r, j) => (j === i ? r.map((c, k) => cells[k as 0 | 1 | 2 | 3] ?? c) : r)));
  const typeOf = (col: string): string | undefined => p.columns.find((c) => c.name === col)?.type;
  const problem = builder ? null : jsonProblem(text);

  return (
    <div className="editor" data-testid={p.id} aria-describedby={p.describedBy}>
      <div className="editor-bar">
        <ModeToggle
          testId={`${p.id}-mode`}
          mode={builder ? 'builder' : 'text'}
          blocked={asRows === null && !builder ? 'This text has no builder form (q parse tree, "|" between clauses or a null test): edit it as text or clear it' : null}
          onMode={(m) => {
            if (m === 'text' && builder) p.onChange(filterRowsText(rows));
            if (m === 'builder' && !builder && asRows) setRows(asRows);
          }}
        />
        {builder && (
          <button type="button" className="link-button" data-testid={`${p.id}-add`} onClick={() => setRows([...rows, blankFilterRow()])}>
            + row
          </button>
        )}
      </div>
      {builder ? (
        <div className="rows">
          {rows.length === 0 && <div className="muted rows-empty">No filter: every row passes. Add a row, or switch to text.</div>}
          {rows.map((r, i) => {
            const [fn = '=', col = '', v1 = '', v2 = ''] = r;
            const warning = rowWarning(r, typeOf(col));
            return (
              <div key={i} className={`frow ${warning ? 'warn' : ''}`} data-testid={`${p.id}-row-${i}`}>
                <ColumnSelect label={`row ${i + 1} column`} testId={`${p.id}-col-${i}`} value={col} columns={p.columns} onChange={(c) => setCell(i, { 1: c })} />
                <FnSelect testId={`${p.id}-fn-${i}`} value={fn} onChange={(f) => setCell(i, { 0: f })} />
                <ValueInputs testId={`${p.id}-value-${i}`} fn={fn} v1={v1} v2={v2} list={col !== '' && col === p.idColumn ? 'ids-idList' : undefined} onChange={(a, b) => setCell(i, { 2: a, 3: b })} />
                <RemoveButton label={`remove row ${i + 1}`} onClick={() => setRows(rows.filter((_, j) => j !== i))} />
                {warning && <div className="row-msg warn-text">{warning}</div>}
              </div>
            );
          })}
        </div>
      ) : (
        <textarea
          data-testid={`${p.id}-text`}
          aria-label="filter text"
          className={problem ? 'invalid' : ''}
          rows={2}
          spellCheck={false}
          value={text}
          placeholder={p.placeholder ?? 'price<100;volume>=10'}
          title={TEXT_HELP}
          onChange={(e) => p.onChange(e.target.value)}
        />
      )}
      {problem && <div className="field-msg error-text">{problem}</div>}
    </div>
  );
}
