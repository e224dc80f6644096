/**
 * The agg builder (INTERFACE 4.2.2): rows of output name and parse tree, sent as a dictionary (the
 * default), a list of trees (named aggregation1, ...) or triplets; or raw JSON text, switchable when
 * the text has a builder form. Trees are checked locally as they are built.
 */
import { aggBody, aggTextValue, aggValue, aggValueText, blankAggRow, outputNames, rowFormatProblem } from '../../form/agg-body';
import { type Tree, type TreeSchema, treeIssues } from '../../form/agg-tree';
import type { ColumnChoice } from '../../form/schema';
import { type AggFormat, type AggRow, type FormValue, isAgg } from '../../form/values';
import { ModeToggle, RemoveButton } from './editor-parts';
import { jsonProblem } from './filter-editor';
import { TreeNode } from './tree-editor';

export interface AggEditorProps {
  readonly id: string;
  readonly value: FormValue | undefined;
  readonly onChange: (v: FormValue) => void;
  readonly columns: readonly ColumnChoice[];
  readonly table: string | undefined;
  readonly describedBy?: string;
}

const FORMATS: ReadonlyArray<{ format: AggFormat; label: string; title: string }> = [
  { format: 'dict', label: 'dictionary', title: 'Dictionary {"name": tree}: the output columns are the names' },
  { format: 'list', label: 'list', title: 'List [tree, ...]: the output columns are aggregation1, aggregation2, ...' },
  { format: 'triplets', label: 'triplets', title: 'Triplets [[name, op, column], ...]: one operator over one argument each' },
];

const TEXT_HELP = '{"hi":["max","price"],"vwap":["wavg","volume","price"]} · [["max","price"],["sum","volume"]] · [["hi","max","price"],["lo","min","price"]]';

const OHLC: ReadonlyArray<[string, string]> = [
  ['open', 'first'],
  ['high', 'max'],
  ['low', 'min'],
  ['close', 'last'],
];

/** The problems of a text agg: JSON errors, or the trees' local problems. */
function textProblem(text: string, schema: TreeSchema): string | null {
  const json = jsonProblem(text);
  if (json || text.trim() === '') return json;
  const v = aggTextValue(text);
  if (!v) return null;
  const names = outputNames(v);
  const problems = v.rows.flatMap((r, i) => treeIssues(r.tree, schema).map((x) => `${names[i] ?? `row ${i + 1}`}: ${x.text}`));
  return problems.length ? problems.slice(0, 3).join(' · ') : null;
}

/** The agg builder | text editor. */
export function AggEditor(p: AggEditorProps): React.JSX.Element {
  const builder = p.value === undefined || isAgg(p.value);
  const v = isAgg(p.value) ? p.value : aggValue('dict', []);
  const text = typeof p.value === 'string' ? p.value : '';
  const asValue = builder ? null : aggTextValue(text);
  const schema: TreeSchema = { ...(p.table ? { table: p.table } : {}), columns: new Map(p.columns.map((c) => [c.name, c.type])) };
  const names = outputNames(v);
  const setRows = (rows: readonly AggRow[]): void => p.onChange(aggValue(v.format, rows));
  const setRow = (i: number, row: Partial<AggRow>): void => setRows(v.rows.map((r, j) => (j === i ? { ...r, ...row } : r)));
  const priceLike = p.columns.find((c) => c.name === 'price')?.name ?? p.columns.find((c) => c.type === 'float')?.name ?? '';
  const problem = builder ? null : textProblem(text, schema);
  let sendError: string | null = null;
  if (builder) {
    try {
      aggBody(v);
    } catch (e) {
      sendError = (e as Error).message;
    }
  }

  return (
    <div className="editor agg-editor" data-testid={p.id} aria-describedby={p.describedBy}>
      <div className="editor-bar">
        <ModeToggle
          testId={`${p.id}-mode`}
          mode={builder ? 'builder' : 'text'}
          blocked={!builder && asValue === null ? 'This text has no builder form (not JSON, a tree that is not a list, or trees mixed with triplets): edit it as text or clear it' : null}
          onMode={(m) => {
            if (m === 'text' && builder) p.onChange(aggValueText(v));
            if (m === 'builder' && !builder && asValue) p.onChange(asValue);
          }}
        />
        {builder && (
          <>
            <select aria-label="agg format" data-testid={`${p.id}-format`} className="format-select" value={v.format} title={FORMATS.find((f) => f.format === v.format)?.title} onChange={(e) => p.onChange(aggValue(e.target.value as AggFormat, v.rows))}>
              {FORMATS.map((f) => (
                <option key={f.format} value={f.format} title={f.title}>
                  {f.label}
                </option>
              ))}
            </select>
            <span className="spacer" />
            <button type="button" className="link-button" data-testid={`${p.id}-ohlc`} disabled={!priceLike} title={`Add first, max, min and last of ${priceLike || 'a float column'} (drawn as candles)`} onClick={() => setRows([...v.rows, ...OHLC.map(([name, op]) => ({ name, tree: [op, priceLike] }))])}>
              + OHLC
            </button>
            <button type="button" className="link-button" data-testid={`${p.id}-add`} onClick={() => setRows([...v.rows, blankAggRow(priceLike)])}>
              + row
            </button>
          </>
        )}
      </div>
      {builder ? (
        <div className="rows">
          {v.rows.length === 0 && <div className="muted rows-empty">No aggregations. Add a row, + OHLC for candles, pick analytics above, or switch to text.</div>}
          {v.rows.map((r, i) => {
            const issues = treeIssues(r.tree, schema);
            const formatProblem = rowFormatProblem(v, i);
            return (
              <div key={i} className={`arow ${issues.length || formatProblem ? 'warn' : ''}`} data-testid={`${p.id}-row-${i}`}>
                {v.format === 'list' ? (
                  <span className="aname muted" title="List format: outputs are numbered">
                    {names[i] ?? '—'}
                  </span>
                ) : (
                  <input aria-label={`row ${i + 1} output name`} data-testid={`${p.id}-name-${i}`} className="aname" spellCheck={false} value={r.name} placeholder={names[i] ?? 'name'} onChange={(e) => setRow(i, { name: e.target.value })} />
                )}
                {Array.isArray(r.tree) ? (
                  <TreeNode tree={r.tree as Tree} path={[]} columns={p.columns} issues={issues} testId={`${p.id}-${i}`} label={`row ${i + 1}`} onChange={(t) => setRow(i, { tree: t })} />
                ) : (
                  <span className="error-text">not a tree</span>
                )}
                <RemoveButton label={`remove agg row ${i + 1}`} onClick={() => setRows(v.rows.filter((_, j) => j !== i))} />
                {formatProblem && <div className="row-msg error-text">{formatProblem}</div>}
              </div>
            );
          })}
          {sendError && !v.rows.some((_, i) => rowFormatProblem(v, i)) && <div className="field-msg error-text">{sendError}</div>}
        </div>
      ) : (
        <textarea data-testid={`${p.id}-text`} aria-label="agg JSON" className={problem ? 'invalid' : ''} rows={3} spellCheck={false} value={text} placeholder='{"hi":["max","price"]}' title={TEXT_HELP} onChange={(e) => p.onChange(e.target.value)} />
      )}
      {problem && <div className="field-msg warn-text">{problem}</div>}
    </div>
  );
}
