/**
 * Timestamp and date fields: free text in the kdb or ISO forms (fast for power users), checked as
 * typed (red border and the reason), with the zone the value is read in beside it and a calendar
 * helper that writes the kdb form.
 */
import { useRef } from 'react';
import { shortZone } from '../../form/zones';
import { checkDate, checkTimestamp, describeStamp, fromPicker, pickerValue, TIMESTAMP_FORMS } from '../../form/time-text';

export interface TimeInputProps {
  readonly id: string;
  readonly value: string;
  readonly onChange: (v: string) => void;
  readonly placeholder: string;
  /** The zone a local value is read in (inputTZ, default UTC). */
  readonly zone: string;
  /** The zone is not a known IANA name. */
  readonly zoneBad?: boolean;
  /** A problem with the window as a whole (startTS >= endTS), shown as a warning. */
  readonly warning?: string | null;
  readonly describedBy?: string;
  /** A date only (dt): no time of day, no zone. */
  readonly dateOnly?: boolean;
}

function CalendarIcon(): React.JSX.Element {
  return (
    <svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">
      <rect x="1" y="2" width="10" height="9" rx="1" fill="none" stroke="currentColor" />
      <path d="M1 5h10M4 1v2M8 1v2" stroke="currentColor" />
    </svg>
  );
}

/** Opens the native picker; older engines without showPicker get focus instead. */
function openPicker(el: HTMLInputElement | null): void {
  if (!el) return;
  try {
    el.showPicker();
  } catch {
    el.focus();
  }
}

/** A timestamp (or date) field with validation, zone tag and calendar. */
export function TimeInput(p: TimeInputProps): React.JSX.Element {
  const picker = useRef<HTMLInputElement>(null);
  const stamp = p.dateOnly ? null : checkTimestamp(p.value);
  const date = p.dateOnly ? checkDate(p.value) : null;
  const error = stamp && !stamp.ok ? stamp.error : date && !date.ok ? date.error : null;
  const zoneTag = p.dateOnly ? 'UTC' : stamp?.ok && stamp.kind === 'instant' ? stamp.offset : stamp?.ok && stamp.kind === 'infinite' ? '∞' : shortZone(p.zone);
  const zoneTitle =
    stamp?.ok && stamp.kind === 'instant'
      ? 'An absolute instant: the offset in the text applies, inputTZ does not'
      : p.dateOnly
        ? 'Dates are UTC'
        : `Read as local time in ${p.zone} (inputTZ)`;
  const message = error ?? p.warning ?? null;
  return (
    <div className="field">
      <div className={`time-field ${error ? 'invalid' : p.warning ? 'warn' : ''}`}>
        <input
          id={p.id}
          data-testid={p.id}
          name={p.id.slice(4)}
          spellCheck={false}
          autoComplete="off"
          value={p.value}
          placeholder={p.placeholder}
          aria-invalid={error ? true : undefined}
          aria-describedby={p.describedBy}
          title={stamp?.ok ? describeStamp(stamp) : p.dateOnly ? '2024.03.06 or 2024-03-06' : TIMESTAMP_FORMS}
          onChange={(e) => p.onChange(e.target.value)}
        />
        <span className={`zone-tag ${p.zoneBad && !p.dateOnly ? 'bad' : ''}`} title={p.zoneBad ? `inputTZ ${p.zone} is not a known zone` : zoneTitle} data-testid={`${p.id}-zone`}>
          {zoneTag}
        </span>
        <button type="button" className="icon-button" tabIndex={-1} title="Pick from a calendar" aria-label="calendar" onClick={() => openPicker(picker.current)}>
          <CalendarIcon />
        </button>
        <input
          ref={picker}
          className="native-picker"
          type={p.dateOnly ? 'date' : 'datetime-local'}
          step={p.dateOnly ? undefined : 1}
          tabIndex={-1}
          aria-hidden="true"
          value={p.dateOnly ? (date?.ok ? p.value.trim().replace(/\./g, '-') : '') : pickerValue(p.value)}
          onChange={(e) => {
            if (!e.target.value) return;
            p.onChange(p.dateOnly ? e.target.value.replace(/-/g, '.') : fromPicker(e.target.value, p.value));
          }}
        />
      </div>
      {message && (
        <div className={`field-msg ${error ? 'error-text' : 'warn-text'}`} role={error ? 'alert' : undefined} data-testid={`${p.id}-msg`}>
          {message}
        </div>
      )}
    </div>
  );
}
