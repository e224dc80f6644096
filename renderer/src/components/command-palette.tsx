/**
 * The command palette (Ctrl/Cmd+K): jump to an operation, a table, a saved query or a recent run by
 * typing a few letters of it; and the shortcut list (`?`), every key the app answers to.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { ARG, type OperationName } from '../../../engine/contract';
import { tableOf } from '../history/history';
import { tablesOf, useStore } from '../store/store';
import { MOD } from './top-bar';
import { pointerNow } from '../pointer';

interface Command {
  readonly kind: 'operation' | 'table' | 'saved' | 'history';
  readonly label: string;
  readonly detail: string;
  readonly run: () => void;
}

/** Commands whose text holds every typed word, in order of kind, the first 200. */
export function matchCommands<T extends { readonly label: string; readonly detail: string; readonly kind: string }>(commands: readonly T[], query: string): T[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const hits = words.length === 0 ? [...commands] : commands.filter((c) => words.every((w) => `${c.kind} ${c.label} ${c.detail}`.toLowerCase().includes(w)));
  return hits.slice(0, 200);
}

const KIND: Record<Command['kind'], string> = { operation: 'operation', table: 'table', saved: 'saved', history: 'run' };

export function CommandPalette(): React.JSX.Element | null {
  const open = useStore((s) => s.palette);
  const info = useStore((s) => s.info);
  const assembly = useStore((s) => s.assembly);
  const saved = useStore((s) => s.saved);
  const history = useStore((s) => s.history);
  const [query, setQuery] = useState('');
  const [at, setAt] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  // where the pointer rested when the list last changed: the browser reports a resting pointer to the
  // new list too, which must not move the selection away from the first match; a real move selects
  const resting = useRef<{ readonly x: number; readonly y: number } | null>(null);
  const pointTo = (i: number, e: React.MouseEvent): void => {
    const r = resting.current;
    if (r && r.x === e.clientX && r.y === e.clientY) return;
    resting.current = null;
    setAt(i);
  };

  const commands = useMemo((): Command[] => {
    const s = useStore.getState();
    const close = (): void => s.openPalette(null);
    const ops = (info?.operations ?? []).map((o) => ({
      kind: 'operation' as const,
      label: o.name,
      detail: o.doc,
      run: () => {
        close();
        s.setOperation(o.name as OperationName);
      },
    }));
    const tables = tablesOf({ info, assembly }).map((t) => ({
      kind: 'table' as const,
      label: t.name,
      detail: `${t.kind}${t.firstDate ? ` · ${t.firstDate} → ${t.lastDate ?? t.firstDate}` : ''}`,
      run: () => {
        close();
        s.setField(ARG.table.name, t.name);
      },
    }));
    const savedCmds = saved.map((q) => ({ kind: 'saved' as const, label: q.name, detail: `${q.operation} ${tableOf(q.args)}`, run: () => void s.restore(q.operation, q.args) }));
    const recent = history.slice(0, 50).map((e) => ({
      kind: 'history' as const,
      label: `${e.operation} ${tableOf(e.args)}`,
      detail: `${e.startedAt.replace('T', ' ').slice(0, 19)} · ${e.ok ? `${(e.rows ?? 0).toLocaleString('en-US')} rows` : `error ${e.code ?? ''}`}`,
      run: () => void s.restore(e.operation, e.args),
    }));
    return [...ops, ...tables, ...savedCmds, ...recent];
  }, [info, assembly, saved, history]);
  const list = useMemo(() => matchCommands(commands, query), [commands, query]);

  useEffect(() => {
    setQuery('');
    setAt(0);
    resting.current = pointerNow();
    if (open === 'commands') input.current?.focus();
  }, [open]);
  if (!open) return null;
  const close = (): void => useStore.getState().openPalette(null);

  if (open === 'keys') {
    return (
      <div className="memory-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
        <section className="memory-panel keys-panel" role="dialog" aria-label="Keyboard shortcuts" data-testid="keys-panel" tabIndex={-1} onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), close())} ref={(el) => el?.focus()}>
          <header className="memory-tabs">
            <strong>Keyboard shortcuts</strong>
            <span className="spacer" />
            <span className="muted hint">Esc close</span>
          </header>
          <table className="keys-table">
            <tbody>
              {SHORTCUTS.map(([keys, what]) => (
                <tr key={keys}>
                  <td>
                    <kbd>{keys.replaceAll('Mod', MOD)}</kbd>
                  </td>
                  <td>{what}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    );
  }

  const onKey = (e: React.KeyboardEvent): void => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      setAt((a) => Math.min(list.length - 1, a + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setAt((a) => Math.max(0, a - 1));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      list[at]?.run();
    }
  };
  return (
    <div className="memory-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <section className="memory-panel" role="dialog" aria-label="Command palette" data-testid="command-palette" onKeyDown={onKey}>
        <input
          ref={input}
          data-testid="palette-search"
          className="memory-search"
          placeholder="Jump to an operation, a table, a saved query or a recent run…"
          value={query}
          onChange={(e) => {
            // the first match is selected in the same render as the new list (an effect would leave
            // a render in which Enter saw the old selection, past the end of the new list)
            setQuery(e.target.value);
            setAt(0);
            resting.current = pointerNow();
          }}
        />
        <ol className="memory-list palette-list" data-testid="palette-list">
          {list.length === 0 && <li className="muted empty">Nothing matches.</li>}
          {list.map((c, i) => (
            <li key={`${c.kind}:${c.label}:${c.detail}:${i}`} className={i === at ? 'at' : ''} title={`${c.label} · ${c.detail}`} onMouseMove={(e) => pointTo(i, e)} onClick={() => c.run()}>
              <span className="kind">{KIND[c.kind]}</span>
              <span className="label">{c.label}</span>
              <span className="args">{c.detail}</span>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}

/** Every key the app answers to (Mod: Ctrl, or ⌘ on a Mac). */
export const SHORTCUTS: ReadonlyArray<readonly [string, string]> = [
  ['Mod+Enter', 'run the form’s request'],
  ['Escape', 'close the innermost list or palette, drop a chart range being dragged, unpin a bucket, then cancel a running query'],
  ['Mod+K', 'command palette: an operation, a table, a saved query or a recent run'],
  ['Mod+H', 'history of runs (Enter runs one again, Shift+Enter puts it in the form)'],
  ['Mod+S', 'save the current request: type its name, Enter'],
  ['Mod+Shift+E', 'export the whole result as CSV'],
  ['Mod+I', 'Import…: CSV, Parquet or Arrow files of your own layout into a table'],
  ['Mod+Alt+1 / 2 / 3', 'collapse or bring back the tables, the form, the chart'],
  ['↑ ↓ Page Up / Page Down', 'move the grid’s selection a row, a page'],
  ['Home / End, Mod+Home / End', 'the grid’s first, last row'],
  ['Shift + any of these, Shift+click', 'extend the grid’s selection to a range'],
  ['Mod+A', 'select every row of the grid'],
  ['Mod+C', 'copy the selected rows as TSV with a header line (exact values)'],
  ['+ / =, −', 'tick chart (focused: click it): zoom in, out, 1.25× about the centre'],
  ['0', 'tick chart (focused): reset the zoom, every tick'],
  ['?', 'this list'],
];
