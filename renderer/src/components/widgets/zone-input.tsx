/**
 * The time-zone picker: a search field over UTC and the platform's IANA zones, recent and common zones
 * first, each with its current UTC offset. Any text may be typed; an unknown zone is flagged. The
 * badge in the field shows the chosen zone's offset over the form's window (the data's dates, not
 * today's: New York is UTC-04:00 on 2013-10-08 even in winter), both offsets when the window crosses
 * a change.
 */
import { useState } from 'react';
import { isKnownZone, searchZones, windowOffsets, zoneOffset } from '../../form/zones';
import { optionId, stepActive, SUGGEST_LIMIT, SuggestList } from './suggest-list';

const RECENT_KEY = 'tickscope.recentZones';
let recent: string[] | undefined;

function recentZones(): string[] {
  if (!recent) {
    try {
      recent = (JSON.parse(globalThis.localStorage?.getItem(RECENT_KEY) ?? '[]') as string[]).filter((z) => typeof z === 'string');
    } catch {
      recent = [];
    }
  }
  return recent;
}

function remember(zone: string): void {
  recent = [zone, ...recentZones().filter((z) => z !== zone)].slice(0, 6);
  try {
    globalThis.localStorage?.setItem(RECENT_KEY, JSON.stringify(recent));
  } catch {
    // private mode or no storage: recent zones last for the session
  }
}

const offsets = new Map<string, string>();
const offsetOf = (z: string): string => {
  let o = offsets.get(z);
  if (o === undefined) offsets.set(z, (o = zoneOffset(z)));
  return o;
};

export interface ZoneInputProps {
  readonly id: string;
  readonly value: string;
  readonly onChange: (v: string) => void;
  readonly placeholder: string;
  readonly describedBy?: string;
  /** The form's window as typed (start, end), read in `inputZone`: the badge's offsets are those of its dates. */
  readonly window?: readonly [string, string];
  readonly inputZone?: string;
}

/** The zone field with its search list. */
export function ZoneInput(p: ZoneInputProps): React.JSX.Element {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState<string | null>(null);
  const [active, setActive] = useState(-1);
  const listId = `${p.id}-list`;
  const zones = open ? searchZones(query ?? '', recentZones()) : [];
  // Offsets only for the rows shown: building a formatter per zone costs time.
  const items = zones.map((z, i) => (i < SUGGEST_LIMIT ? { value: z, hint: offsetOf(z) } : { value: z }));
  const value = p.value.trim();
  const unknown = value !== '' && !isKnownZone(value);

  const pick = (z: string): void => {
    p.onChange(z);
    remember(z);
    setOpen(false);
    setQuery(null);
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>): void => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp' || e.key === 'PageDown' || e.key === 'PageUp') {
      e.preventDefault();
      setOpen(true);
      setActive(stepActive(e.key, active, items.length));
    } else if (e.key === 'Enter' && open && active >= 0 && items[active]) {
      e.preventDefault();
      pick(items[active].value);
    } else if (e.key === 'Escape' && open) {
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
    }
  };

  return (
    <div className="field">
      <div className={`zone-field ${unknown ? 'invalid' : ''} ${open ? 'open' : ''}`}>
        <input
          id={p.id}
          data-testid={p.id}
          role="combobox"
          aria-expanded={open}
          aria-controls={listId}
          aria-autocomplete="list"
          aria-activedescendant={open && active >= 0 ? optionId(listId, active) : undefined}
          aria-invalid={unknown || undefined}
          aria-describedby={p.describedBy}
          autoComplete="off"
          spellCheck={false}
          value={p.value}
          placeholder={p.placeholder}
          onChange={(e) => {
            p.onChange(e.target.value);
            setQuery(e.target.value);
            setOpen(true);
            setActive(e.target.value.trim() ? 0 : -1);
          }}
          // the list opens on a click or typing, not when Tab passes through the field
          onFocus={(e) => {
            e.target.select();
            setQuery(null);
            setActive(-1);
          }}
          onBlur={() => {
            setOpen(false);
            if (value && !unknown) remember(value);
          }}
          onKeyDown={onKeyDown}
          onClick={() => setOpen(true)}
        />
        {!unknown && <OffsetBadge zone={value || 'UTC'} window={p.window} inputZone={p.inputZone ?? 'UTC'} />}
        {open && <SuggestList id={listId} items={items} active={active} onPick={pick} onHover={setActive} empty="no such zone" />}
      </div>
      {unknown && (
        <div className="field-msg error-text" role="alert">
          unknown zone; pick an IANA name such as America/New_York
        </div>
      )}
    </div>
  );
}

/** The zone's offset over the window's dates (today's when the window gives none, and then said so). */
function OffsetBadge(p: { readonly zone: string; readonly window: readonly [string, string] | undefined; readonly inputZone: string }): React.JSX.Element {
  const { label, dated } = p.window ? windowOffsets(p.zone, p.window[0], p.window[1], p.inputZone) : { label: offsetOf(p.zone), dated: false };
  const title = dated ? (label.includes('→') ? `${p.zone} changes offset inside the window: ${label}` : `${p.zone} on the window's dates: ${label}`) : `${p.zone} today: ${label} (the window gives no date)`;
  return (
    <span className="zone-offset" data-testid="zone-offset" title={title}>
      {label}
    </span>
  );
}
