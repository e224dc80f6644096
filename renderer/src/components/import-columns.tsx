/**
 * Import…'s mapping by form (issue 30): a row per table column saying where its values come from (a
 * source column by name or position, a constant, a part of the file's path) and how they are read
 * (scale for floats; unit, origin and date for timestamps; case for text); the rows as read and as
 * mapped; and the command line with the mapping's JSON.
 */
import type { ColumnType } from '../../../engine/contract';
import { type ColumnForm, EMPTY_COLUMN, type FromKind } from '../form/import-form';

export interface ColumnRowsProps {
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: ColumnType }>;
  readonly forms: Readonly<Record<string, ColumnForm>>;
  /** The source columns as the preview read them (names, or positions). */
  readonly sources: readonly string[];
  /** The first row read, for a hint beside each source column. */
  readonly sample: readonly string[] | undefined;
  readonly header: boolean;
  /** Columns every row needs (time and identifier). */
  readonly required: readonly string[];
  readonly onChange: (name: string, c: ColumnForm) => void;
}

const FROM_LABELS: ReadonlyArray<readonly [FromKind, string]> = [
  ['none', '— null'],
  ['source', 'source column'],
  ['constant', 'constant'],
  ['path', 'path part'],
];

/** Options of a source column select: by name with a header, else by position, each with its first value. */
function SourceOptions(p: { readonly sources: readonly string[]; readonly sample: readonly string[] | undefined; readonly header: boolean }): React.JSX.Element {
  return (
    <>
      <option value="">pick a column</option>
      {p.sources.map((s, i) => {
        const v = p.sample?.[i];
        const label = p.header ? s : `#${i}`;
        return (
          <option key={`${i}:${s}`} value={p.header ? s : String(i)}>
            {v !== undefined && v !== '' ? `${label} · ${v.length > 24 ? `${v.slice(0, 24)}…` : v}` : label}
          </option>
        );
      })}
    </>
  );
}

/** A row per table column. */
export function ColumnRows(p: ColumnRowsProps): React.JSX.Element {
  return (
    <table className="import-columns" data-testid="import-columns">
      <thead>
        <tr>
          <th>Table column</th>
          <th>From</th>
          <th>Value</th>
          <th>Read as</th>
        </tr>
      </thead>
      <tbody>
        {p.columns.map((col) => {
          const c = p.forms[col.name] ?? EMPTY_COLUMN;
          const set = (patch: Partial<ColumnForm>): void => p.onChange(col.name, { ...c, ...patch });
          const id = (k: string): string => `import-col-${col.name}-${k}`;
          const needed = p.required.includes(col.name) && c.from === 'none';
          return (
            <tr key={col.name} className={needed ? 'needed' : undefined}>
              <td className="import-col-name" title={needed ? `${col.name}: every row needs it; map it` : `${col.name} (${col.type})`}>
                {col.name} <span className="muted">{col.type}</span>
              </td>
              <td>
                <select data-testid={id('from')} value={c.from} onChange={(e) => set({ from: e.target.value as FromKind })}>
                  {FROM_LABELS.map(([k, label]) => (
                    <option key={k} value={k}>
                      {label}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <span className="import-col-value">
                  {c.from === 'source' && (
                    <select data-testid={id('source')} value={c.source} onChange={(e) => set({ source: e.target.value })}>
                      <SourceOptions sources={p.sources} sample={p.sample} header={p.header} />
                    </select>
                  )}
                  {c.from === 'constant' && <input data-testid={id('constant')} value={c.constant} onChange={(e) => set({ constant: e.target.value })} placeholder="a value" spellCheck={false} />}
                  {c.from === 'path' && (
                    <>
                      <input data-testid={id('path')} value={c.path} onChange={(e) => set({ path: e.target.value })} placeholder="{dir}" title="{dir} the file's folder, {parent} the one above, {name} its name without extension, {file} with it" spellCheck={false} />
                      <input data-testid={id('pattern')} value={c.pattern} onChange={(e) => set({ pattern: e.target.value })} placeholder="pattern: ^(\d{8})" title="a regular expression; its first group is kept" spellCheck={false} />
                    </>
                  )}
                </span>
              </td>
              <td className="import-col-read">{c.from !== 'none' && <ReadAs type={col.type} c={c} set={set} id={id} sources={p.sources} sample={p.sample} header={p.header} />}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The options that apply to the column's type: scale (float), unit/since/date (timestamp), case (text). */
function ReadAs(p: {
  readonly type: ColumnType;
  readonly c: ColumnForm;
  readonly set: (patch: Partial<ColumnForm>) => void;
  readonly id: (k: string) => string;
  readonly sources: readonly string[];
  readonly sample: readonly string[] | undefined;
  readonly header: boolean;
}): React.JSX.Element | null {
  const { c, set, id } = p;
  if (p.type === 'float') {
    return (
      <label className="inline" title="multiplies each number: 0.0001 for prices stored × 10,000">
        scale <input data-testid={id('scale')} className="narrow" value={c.scale} onChange={(e) => set({ scale: e.target.value })} placeholder="1" spellCheck={false} />
      </label>
    );
  }
  if (p.type === 'symbol' || p.type === 'string') {
    return (
      <select data-testid={id('case')} value={c.case} onChange={(e) => set({ case: e.target.value as ColumnForm['case'] })} title="text as it is stored">
        <option value="">as is</option>
        <option value="upper">UPPER case</option>
        <option value="lower">lower case</option>
      </select>
    );
  }
  if (p.type !== 'timestamp' || c.from !== 'source') return null;
  return (
    <span className="import-time">
      <select data-testid={id('unit')} value={c.unit} onChange={(e) => set({ unit: e.target.value as ColumnForm['unit'] })} title="a number counting this unit; as read: timestamp text">
        <option value="">timestamp text</option>
        <option value="s">seconds</option>
        <option value="ms">milliseconds</option>
        <option value="us">microseconds</option>
        <option value="ns">nanoseconds</option>
      </select>
      {c.unit && (
        <select data-testid={id('since')} value={c.since} onChange={(e) => set({ since: e.target.value as ColumnForm['since'] })}>
          <option value="epoch">since 1970-01-01 UTC</option>
          <option value="midnight">since midnight of</option>
        </select>
      )}
      {c.unit && c.since === 'midnight' && (
        <>
          <select data-testid={id('date-from')} value={c.dateFrom} onChange={(e) => set({ dateFrom: e.target.value as ColumnForm['dateFrom'] })} title="the date whose midnight (in the zone) the times count from">
            <option value="path">a path part</option>
            <option value="source">a source column</option>
            <option value="constant">a date</option>
          </select>
          {c.dateFrom === 'path' && (
            <>
              <input data-testid={id('date-path')} className="narrow" value={c.datePath} onChange={(e) => set({ datePath: e.target.value })} placeholder="{name}" spellCheck={false} />
              <input data-testid={id('date-pattern')} className="narrow" value={c.datePattern} onChange={(e) => set({ datePattern: e.target.value })} placeholder="^(\d{8})" spellCheck={false} />
            </>
          )}
          {c.dateFrom === 'source' && (
            <select data-testid={id('date-source')} value={c.dateSource} onChange={(e) => set({ dateSource: e.target.value })}>
              <SourceOptions sources={p.sources} sample={p.sample} header={p.header} />
            </select>
          )}
          {c.dateFrom === 'constant' && <input data-testid={id('date-constant')} className="narrow" value={c.dateConstant} onChange={(e) => set({ dateConstant: e.target.value })} placeholder="2013-10-08" spellCheck={false} />}
        </>
      )}
    </span>
  );
}

/** A few rows as a small grid (the preview of the rows read, or mapped). */
export function RowsTable(p: { readonly testId: string; readonly columns: readonly string[]; readonly rows: ReadonlyArray<readonly string[]>; readonly numbered?: boolean }): React.JSX.Element {
  return (
    <div className="import-rows" data-testid={p.testId}>
      <table>
        <thead>
          <tr>
            {p.numbered && <th className="muted">#</th>}
            {p.columns.map((c, i) => (
              <th key={`${i}:${c}`}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {p.rows.map((r, i) => (
            <tr key={i} data-row={i}>
              {p.numbered && <td className="muted">{i + 1}</td>}
              {r.map((v, j) => (
                <td key={j} title={v}>
                  {v}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
