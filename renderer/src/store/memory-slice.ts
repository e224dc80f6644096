/** The memory slice: past runs (newest first) and saved queries, kept by history/storage.ts (SPEC 9). */
import { parseSavedQueries, putSaved, type SavedQuery } from '../history/history';
import { appMemory } from '../history/storage';
import { requestArgs } from './request';
import { type MemorySlice, operationSpec, type Slice } from './state';

export const memorySlice: Slice<MemorySlice> = (set, get) => ({
  history: [],
  saved: [],

  async saveQuery(name) {
    const s = get();
    const spec = operationSpec(s.info, s.operation);
    if (!spec) return 'no operation to save';
    if (!name.trim()) return 'a saved query needs a name';
    let args: Record<string, unknown>;
    try {
      args = requestArgs(spec, s.forms[spec.name] ?? {}, s);
    } catch (e) {
      return (e as Error).message;
    }
    const saved = putSaved(s.saved, { name: name.trim(), operation: spec.name, args, savedAt: new Date().toISOString() });
    set({ saved, notice: `Saved "${name.trim()}"` });
    await (await appMemory()).setSaved(saved);
    return null;
  },

  async deleteSaved(name) {
    const saved = get().saved.filter((q) => q.name !== name);
    set({ saved });
    await (await appMemory()).setSaved(saved);
  },

  async importSaved(text) {
    let incoming: SavedQuery[];
    try {
      incoming = parseSavedQueries(text);
    } catch (e) {
      return `Cannot import: ${(e as Error).message}`;
    }
    const saved = incoming.reduce<SavedQuery[]>((list, q) => putSaved(list, q), [...get().saved]);
    set({ saved, notice: `Imported ${incoming.length} saved ${incoming.length === 1 ? 'query' : 'queries'}` });
    await (await appMemory()).setSaved(saved);
    return null;
  },

  async clearHistory() {
    set({ history: [] });
    await (await appMemory()).clearHistory();
  },
});
