/**
 * The drop-down list under a search field (identifiers, columns, zones): keyboard driven from the
 * field (arrows, Enter, Escape), mouse picks without stealing focus.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';

export interface Suggestion {
  readonly value: string;
  /** Muted text at the right: a column's type, a zone's offset. */
  readonly hint?: string;
  /** A longer explanation, shown on hover (a summary function's definition). */
  readonly title?: string;
}

export interface SuggestListProps {
  readonly id: string;
  readonly items: readonly Suggestion[];
  readonly active: number;
  readonly onPick: (value: string) => void;
  readonly onHover: (index: number) => void;
  readonly empty?: string;
}

/** Most options rendered at once: more than a screenful only costs time, typing narrows the list. */
export const SUGGEST_LIMIT = 200;

/** The id of an option element, for aria-activedescendant. */
export const optionId = (listId: string, i: number): string => `${listId}-opt-${i}`;

/** The next active index after an arrow key (wrapping), or the same for other keys. */
export function stepActive(key: string, active: number, count: number): number {
  if (count === 0) return -1;
  if (key === 'ArrowDown') return active < 0 || active >= count - 1 ? 0 : active + 1;
  if (key === 'ArrowUp') return active <= 0 ? count - 1 : active - 1;
  if (key === 'PageDown') return Math.min(count - 1, Math.max(0, active) + 10);
  if (key === 'PageUp') return Math.max(0, active - 10);
  return active;
}

/** Tallest the list grows (CSS .suggest max-height). */
const LIST_MAX_HEIGHT = 232;
/** Narrowest the list is, whatever its field's width. */
const LIST_MIN_WIDTH = 260;

/**
 * Where the list floats: fixed under its field (above it when the window has no room below), so it
 * overlays the form without growing the form's scroll area; closing it then never moves the fields.
 */
function useFloating(list: React.RefObject<HTMLUListElement | null>): React.CSSProperties | undefined {
  const [style, setStyle] = useState<React.CSSProperties>();
  useLayoutEffect(() => {
    const place = (): void => {
      const field = list.current?.parentElement?.getBoundingClientRect();
      if (!field) return;
      const below = window.innerHeight - field.bottom - 4;
      const up = below < Math.min(LIST_MAX_HEIGHT, 120) && field.top > below;
      const room = Math.max(80, Math.min(LIST_MAX_HEIGHT, (up ? field.top : below) - 4));
      const vertical = up ? { top: 'auto', bottom: window.innerHeight - field.top + 2 } : { top: field.bottom + 2, bottom: 'auto' };
      // at least wide enough for a long column name and its type, within the window
      const width = Math.max(field.width, LIST_MIN_WIDTH);
      const left = Math.max(4, Math.min(field.left, window.innerWidth - width - 4));
      setStyle({ position: 'fixed', left, right: 'auto', width, maxHeight: room, ...vertical });
    };
    place();
    window.addEventListener('scroll', place, true);
    window.addEventListener('resize', place);
    return () => {
      window.removeEventListener('scroll', place, true);
      window.removeEventListener('resize', place);
    };
  }, [list]);
  return style;
}

/** The list of suggestions, the active one highlighted and kept in view. */
export function SuggestList({ id, items, active, onPick, onHover, empty }: SuggestListProps): React.JSX.Element {
  const list = useRef<HTMLUListElement>(null);
  const style = useFloating(list);
  useEffect(() => {
    list.current?.querySelector<HTMLElement>(`[data-index="${active}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [active]);
  return (
    <ul className="suggest" role="listbox" id={id} ref={list} style={style}>
      {items.length === 0 && empty && <li className="suggest-empty muted">{empty}</li>}
      {items.slice(0, SUGGEST_LIMIT).map((s, i) => (
        <li
          key={s.value}
          id={optionId(id, i)}
          role="option"
          data-index={i}
          aria-selected={i === active}
          className={i === active ? 'active' : ''}
          {...(s.title ? { title: s.title } : {})}
          onMouseDown={(e) => {
            e.preventDefault();
            onPick(s.value);
          }}
          onMouseMove={() => i !== active && onHover(i)}
        >
          <span className="suggest-value">{s.value}</span>
          {s.hint && <span className="suggest-hint">{s.hint}</span>}
        </li>
      ))}
      {items.length > SUGGEST_LIMIT && <li className="suggest-empty muted">{items.length - SUGGEST_LIMIT} more: type to narrow</li>}
    </ul>
  );
}
