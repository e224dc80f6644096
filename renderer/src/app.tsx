/** The app shell: tables | form | results (resizable panes), with the status line and keyboard shortcuts. */
import { useEffect } from 'react';
import { onMenuCommand } from './backend';
import { ArgForm } from './components/arg-form';
import { CommandPalette } from './components/command-palette';
import { ImportDialog } from './components/import-dialog';
import { MemoryPanel } from './components/memory-panel';
import { PANE_KEYS, togglePane, Workspace } from './components/panes';
import { Results } from './components/results';
import { StatusBar } from './components/status-bar';
import { TableList } from './components/table-list';
import { TopBar } from './components/top-bar';
import { useStore } from './store/store';

/** True when a key goes to a text field (a typed ? is text there, not the shortcut list). */
const typing = (t: EventTarget | null): boolean => t instanceof HTMLElement && (t.isContentEditable || t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT');

/** The whole app. */
export function App(): React.JSX.Element {
  const importing = useStore((s) => s.importing);
  useEffect(() => {
    void useStore.getState().load();
    onMenuCommand((cmd) => void (cmd === 'run' ? useStore.getState().run() : useStore.getState().exportCsv()));
    const onKey = (e: KeyboardEvent): void => {
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key === 'Enter') {
        e.preventDefault();
        void useStore.getState().run();
      } else if (e.key === 'Escape' && !e.defaultPrevented && useStore.getState().running) {
        // the innermost thing first: lists, palettes and a pinned bucket take Escape before it gets here
        e.preventDefault();
        useStore.getState().cancel();
      } else if (mod && e.shiftKey && (e.key === 'E' || e.key === 'e')) {
        e.preventDefault();
        void useStore.getState().exportCsv();
      } else if (mod && !e.shiftKey && (e.key === 'h' || e.key === 'H')) {
        e.preventDefault();
        const s = useStore.getState();
        s.openMemory(s.memoryPanel === 'history' ? null : 'history');
      } else if (mod && !e.shiftKey && (e.key === 's' || e.key === 'S')) {
        e.preventDefault();
        useStore.getState().openMemory('saved');
      } else if (mod && !e.shiftKey && !e.altKey && (e.key === 'i' || e.key === 'I')) {
        e.preventDefault();
        useStore.getState().openImport(true);
      } else if (mod && !e.shiftKey && (e.key === 'k' || e.key === 'K')) {
        e.preventDefault();
        const s = useStore.getState();
        s.openPalette(s.palette === 'commands' ? null : 'commands');
      } else if (e.key === '?' && !mod && !typing(e.target)) {
        e.preventDefault();
        useStore.getState().openPalette('keys');
      } else if (mod && e.altKey && !e.shiftKey && PANE_KEYS[e.code] && !e.getModifierState('AltGraph')) {
        // Ctrl/Cmd+Alt+1, 2, 3: the tables, the form, the chart collapse or come back
        if (togglePane(PANE_KEYS[e.code]!)) e.preventDefault();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div className="app">
      <TopBar />
      <Workspace tables={<TableList />} form={<ArgForm />} results={<Results />} />
      <StatusBar />
      <MemoryPanel />
      <CommandPalette />
      {importing && <ImportDialog />}
    </div>
  );
}
