/**
 * The slice pair: start and end time of day (inputTZ), kept on each date when temporality is slice.
 * Held as "start|end" text; start after end is an overnight session, said so beside the fields.
 */
import { shortZone } from '../../form/zones';
import { parseTimeOfDay, TIME_OF_DAY_FORMS } from '../../form/time-text';
import { SLICED } from '../../form/args';

export interface SliceInputProps {
  readonly id: string;
  readonly value: string;
  readonly onChange: (v: string) => void;
  readonly zone: string;
  readonly zoneBad?: boolean;
  /** The temporality chosen, and how to switch it to slice. */
  readonly temporality: string;
  readonly useSlice: (() => void) | null;
  readonly describedBy?: string;
}

/** What the pair means, or what is wrong with it. */
export function sliceNote(start: string, end: string): { readonly error: boolean; readonly text: string } | null {
  const a = parseTimeOfDay(start);
  const b = parseTimeOfDay(end);
  if (typeof a === 'string') return { error: true, text: `start: ${a}` };
  if (typeof b === 'string') return { error: true, text: `end: ${b}` };
  if (a === null && b === null) return null;
  if (a === null || b === null) return { error: true, text: `give both ${a === null ? 'start' : 'end'} and ${a === null ? 'end' : 'start'}` };
  if (a === b) return { error: false, text: 'start = end: an empty slice' };
  return a > b ? { error: false, text: 'start > end: overnight, from start to the next day’s end' } : null;
}

/** The two time-of-day fields. */
export function SliceInput(p: SliceInputProps): React.JSX.Element {
  const bar = p.value.indexOf('|');
  const start = bar < 0 ? p.value : p.value.slice(0, bar);
  const end = bar < 0 ? '' : p.value.slice(bar + 1);
  const set = (s: string, e: string): void => p.onChange(s === '' && e === '' ? '' : `${s}|${e}`);
  const note = sliceNote(start, end);
  const filled = start.trim() !== '' || end.trim() !== '';
  return (
    <div className="field" data-testid={p.id} aria-describedby={p.describedBy}>
      <div className={`slice-field ${note?.error ? 'invalid' : ''}`}>
        <input id={p.id} data-testid={`${p.id}-start`} aria-label="slice start" spellCheck={false} value={start} placeholder="09:30" title={TIME_OF_DAY_FORMS} onChange={(e) => set(e.target.value, end)} />
        <span className="muted">→</span>
        <input data-testid={`${p.id}-end`} aria-label="slice end" spellCheck={false} value={end} placeholder="16:00" title={TIME_OF_DAY_FORMS} onChange={(e) => set(start, e.target.value)} />
        <span className={`zone-tag ${p.zoneBad ? 'bad' : ''}`} title={`Times of day in ${p.zone} (inputTZ)`}>
          {shortZone(p.zone)}
        </span>
      </div>
      {note && <div className={`field-msg ${note.error ? 'error-text' : 'warn-text'}`}>{note.text}</div>}
      {filled && p.temporality !== SLICED && (
        <div className="field-msg muted">
          used when temporality is slice{' '}
          {p.useSlice && (
            <button type="button" className="link-button" onClick={p.useSlice}>
              set it
            </button>
          )}
        </div>
      )}
    </div>
  );
}
