/**
 * A multi-select of names as chips: type to search the options, Enter or a click adds, a comma (or a
 * paste such as "AAPL, MSFT") adds several, Backspace on the empty field removes the last chip, chips
 * drag to reorder. What is still being typed counts as chosen too, so a query can run without Enter.
 * A suspect chip is red, and why is written under the chips (and in the chip's tooltip).
 */
import { useState } from 'react';
import { matchNames } from '../../form/match';
import { addNames, type ListValue, listValue, splitNames, typeIntoList } from '../../form/values';
import { optionId, stepActive, type Suggestion, SuggestList } from './suggest-list';

export interface ChipsInputProps {
  readonly id: string;
  readonly items: readonly string[];
  readonly draft: string;
  readonly options: readonly Suggestion[];
  readonly onChange: (v: ListValue) => void;
  /** Identifiers may hold spaces ("AAPL US Equity"): only commas, semicolons, tabs and newlines separate. */
  readonly keepSpaces?: boolean;
  readonly placeholder?: string;
  /** Why an item is suspect, without the item ("not in Trade on any date"), or null. */
  readonly problem?: (item: string) => string | null;
  readonly describedBy?: string;
  /** Options and chips are in a meaningful order (columns): offer reordering. */
  readonly ordered?: boolean;
}

/** The chips field. */
export function ChipsInput(p: ChipsInputProps): React.JSX.Element {
  const keepSpaces = p.keepSpaces ?? false;
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [dragged, setDragged] = useState<number | null>(null);
  const listId = `${p.id}-list`;
  const shown = matchNames(p.options, p.draft, p.items);
  const hintOf = new Map(p.options.map((o) => [o.value, o.hint]));
  const titleOf = new Map(p.options.map((o) => [o.value, o.title]));
  const problems = new Map(p.items.map((it) => [it, p.problem?.(it) ?? null]));

  const commit = (names: readonly string[], draft = ''): void => {
    p.onChange(listValue(addNames(p.items, names), draft));
    setActive(-1);
  };
  const remove = (i: number): void => p.onChange(listValue(p.items.filter((_, j) => j !== i), p.draft));
  const move = (from: number, to: number): void => {
    const next = [...p.items];
    const [it] = next.splice(from, 1);
    if (it !== undefined) next.splice(to, 0, it);
    p.onChange(listValue(next, p.draft));
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>): void => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const pick = open && active >= 0 ? shown[active]?.value : undefined;
    switch (e.key) {
      case 'ArrowDown':
      case 'ArrowUp':
      case 'PageDown':
      case 'PageUp':
        e.preventDefault();
        setOpen(true);
        setActive(stepActive(e.key, active, shown.length));
        return;
      case 'Enter':
        // With nothing typed or picked, Enter runs the query (the form's submit).
        if (pick !== undefined) commit([pick]);
        else if (p.draft.trim() !== '') commit(splitNames(p.draft, keepSpaces));
        else return;
        e.preventDefault();
        return;
      case 'Tab':
        if (pick !== undefined && p.draft.trim() !== '') {
          e.preventDefault();
          commit([pick]);
        }
        return;
      case 'Backspace':
        if (p.draft === '' && p.items.length > 0) {
          e.preventDefault();
          remove(p.items.length - 1);
        }
        return;
      case 'Escape':
        if (open) {
          e.preventDefault();
          e.stopPropagation();
          setOpen(false);
        }
        return;
      default:
    }
  };

  return (
    <div
      className={`chips ${open ? 'open' : ''}`}
      onMouseDown={(e) => {
        if (e.target !== e.currentTarget) return;
        e.preventDefault();
        document.getElementById(p.id)?.focus();
        setOpen(true);
      }}
    >
      {p.items.map((it, i) => {
        const problem = problems.get(it) ?? null;
        const hint = hintOf.get(it);
        return (
          <span
            key={it}
            className={`chip ${problem ? 'bad' : ''} ${dragged === i ? 'dragging' : ''}`}
            title={problem ? `${it}: ${problem}` : (titleOf.get(it) ?? (hint ? `${it} (${hint})` : it))}
            draggable={p.ordered}
            onDragStart={(e) => {
              setDragged(i);
              e.dataTransfer.effectAllowed = 'move';
            }}
            onDragOver={(e) => dragged !== null && e.preventDefault()}
            onDrop={(e) => {
              e.preventDefault();
              if (dragged !== null && dragged !== i) move(dragged, i);
              setDragged(null);
            }}
            onDragEnd={() => setDragged(null)}
          >
            {it}
            {hint && <span className="chip-hint">{hint}</span>}
            <button type="button" tabIndex={-1} aria-label={`remove ${it}`} onClick={() => remove(i)}>
              ×
            </button>
          </span>
        );
      })}
      <input
        id={p.id}
        data-testid={p.id}
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-describedby={p.describedBy}
        aria-activedescendant={open && active >= 0 ? optionId(listId, active) : undefined}
        autoComplete="off"
        spellCheck={false}
        value={p.draft}
        placeholder={p.items.length ? '' : p.placeholder}
        onChange={(e) => {
          p.onChange(typeIntoList(p.items, e.target.value, keepSpaces));
          setOpen(true);
          setActive(e.target.value.trim() ? 0 : -1);
        }}
        onKeyDown={onKeyDown}
        // the list opens on a click or typing, not when Tab passes through the field
        onMouseDown={() => setOpen(true)}
        onBlur={() => {
          setOpen(false);
          if (p.draft.trim() !== '') commit(splitNames(p.draft, keepSpaces));
        }}
      />
      <ProblemLine id={p.id} problems={problems} />
      {open && p.options.length > 0 && (shown.length > 0 || p.draft.trim() !== '') && (
        <SuggestList id={listId} items={shown} active={active} onPick={(v) => commit([v])} onHover={setActive} empty="no match: Enter adds it as typed" />
      )}
    </div>
  );
}

/** The reasons of the suspect chips, one line each, the chips sharing a reason named together. */
function ProblemLine({ id, problems }: { readonly id: string; readonly problems: ReadonlyMap<string, string | null> }): React.JSX.Element | null {
  const byReason = new Map<string, string[]>();
  for (const [item, reason] of problems) if (reason) byReason.set(reason, [...(byReason.get(reason) ?? []), item]);
  if (byReason.size === 0) return null;
  return (
    <div className="chips-problem field-msg error-text" data-testid={`${id}-problem`} role="status">
      {[...byReason].map(([reason, items]) => (
        <div key={reason}>
          {items.join(', ')}: {reason}
        </div>
      ))}
    </div>
  );
}
