/**
 * The connection slice: the active connection's getMeta (operations, assemblies, tables), the
 * connection list, and identifiers fetched per table. Switching connection starts the results over
 * (another engine's results are not this one's) and keeps every form as typed: values the new
 * connection does not know are marked in the form (form/form-check.ts), never dropped.
 */
import { type AppInfo, ARG, type ConnectionInfo, type MountedDatabase, type OperationName } from '../../../engine/contract';
import { backend } from '../backend';
import { parseHash } from '../history/history';
import { appMemory } from '../history/storage';
import { type ConnectionSlice, NO_RUN, operationSpec, type Slice } from './state';
import { initialForm, syncUrl } from './support';

/** The embedded engine's databases, as the connection list says. */
export function embeddedDatabases(connections: readonly ConnectionInfo[]): readonly MountedDatabase[] {
  return connections.find((c) => c.kind === 'embedded')?.databases ?? [];
}

export const connectionSlice: Slice<ConnectionSlice> = (set, get) => ({
  info: null,
  infoError: null,
  assembly: '',
  identifiers: {},
  connections: [],

  async addConnection(spec) {
    try {
      set({ connections: await backend().addConnection(spec) });
    } catch (e) {
      return (e as Error).message;
    }
    await get().load();
    return null;
  },

  async openDatabase(spec) {
    if (get().running) return 'A query is running: cancel it (Esc) or wait for it before opening a database';
    const before = new Set(embeddedDatabases(get().connections).map((d) => d.name));
    let connections: readonly ConnectionInfo[];
    try {
      connections = await backend().openDatabase(spec);
    } catch (e) {
      return (e as Error).message;
    }
    set({ connections });
    const opened = embeddedDatabases(connections);
    // the new one; a folder mounted already is found by its path
    const shown = opened.find((d) => !before.has(d.name)) ?? opened.find((d) => d.dir === spec.dir || d.dir.endsWith(`/${spec.dir.replace(/\/+$/, '')}`));
    if (shown) set({ assembly: shown.name });
    await get().load();
    // the form's table, when the database has no table of that name: its first table, without the
    // other table's identifiers (the rest of the form stays, marked where the new table lacks a column)
    const s = get();
    const tables = s.info?.assemblies.find((a) => a.name === s.assembly)?.tables ?? [];
    const op = s.operation;
    const form = op ? s.forms[op] : undefined;
    const table = form?.[ARG.table.name];
    const first = tables.find((t) => t.kind === 'partitioned') ?? tables[0];
    if (op && form && first && !tables.some((t) => t.name === table)) {
      const { [ARG.idList.name]: _ids, ...rest } = form;
      set({ forms: { ...s.forms, [op]: { ...rest, [ARG.table.name]: first.name } } });
      await get().loadIdentifiers(first.name);
      syncUrl(get());
    }
    return null;
  },

  async closeDatabase(name) {
    if (get().running) {
      set({ notice: 'A query is running: cancel it (Esc) or wait for it before closing a database' });
      return;
    }
    try {
      set({ connections: await backend().closeDatabase(name) });
    } catch (e) {
      set({ notice: `Cannot close ${name}: ${(e as Error).message}` });
      return;
    }
    await get().load();
  },

  async useConnection(id) {
    if (get().running) {
      set({ notice: 'A query is running: cancel it (Esc) or wait for it before switching connection' });
      return;
    }
    try {
      set({ connections: await backend().useConnection(id) });
    } catch (e) {
      set({ notice: `Cannot switch connection: ${(e as Error).message}` });
      return;
    }
    await get().load();
  },

  async load() {
    const first = get().info === null;
    try {
      // another connection's results, marks and identifiers are not this one's; its forms stay
      set({ ...NO_RUN, views: {}, marks: null, formError: null, identifiers: {} });
      // until the engine answers (the first launch makes the demo database), say what it is doing
      let answered = false;
      const watch = setInterval(() => {
        void backend()
          .startup()
          .then((msg) => {
            if (!answered && msg) set({ notice: `Starting: ${msg}` });
          })
          .catch(() => undefined);
      }, 250);
      let info: AppInfo;
      let connections: readonly ConnectionInfo[];
      try {
        [info, connections] = await Promise.all([backend().info(), backend().connections()]);
      } finally {
        answered = true;
        clearInterval(watch);
      }
      if (get().notice?.startsWith('Starting: ')) set({ notice: null });
      set({ connections });
      const assembly = info.assemblies.find((a) => a.name === get().assembly)?.name ?? info.assemblies[0]?.name ?? '';
      const tables = info.assemblies.find((a) => a.name === assembly)?.tables ?? [];
      const s = get();
      // the first operation the backend lists is the one the app starts on
      const start = info.operations[0];
      const fresh = start !== undefined && s.forms[start.name] === undefined;
      const forms = start && fresh ? { ...s.forms, [start.name]: initialForm(start, tables) } : s.forms;
      const operation = operationSpec(info, s.operation) ? s.operation : (start?.name ?? null);
      set({ info, assembly, forms, operation, infoError: null });
      if (first) void appMemory().then(async (m) => set({ history: await m.history(), saved: await m.saved() }));
      // a link or a reload: the form the URL holds
      const linked = first && typeof location !== 'undefined' ? parseHash(location.hash) : null;
      if (linked && operationSpec(info, linked.operation as OperationName)) {
        await get().restore(linked.operation, linked.args);
        return;
      }
      const table = operation ? get().forms[operation]?.[ARG.table.name] : undefined;
      if (typeof table === 'string' && table) await get().loadIdentifiers(table);
      const startTable = start && fresh ? forms[start.name]?.[ARG.table.name] : undefined;
      if (start && typeof startTable === 'string') {
        if (startTable !== table) await get().loadIdentifiers(startTable);
        const firstId = get().identifiers[`${assembly}/${startTable}`]?.[0];
        if (firstId && get().forms[start.name]?.[ARG.idList.name] === undefined) {
          set({ forms: { ...get().forms, [start.name]: { ...get().forms[start.name], [ARG.idList.name]: firstId } } });
        }
      }
      syncUrl(get());
    } catch (e) {
      set({ infoError: (e as Error).message });
    }
  },

  async refreshInfo() {
    try {
      const [info, connections] = await Promise.all([backend().info(), backend().connections()]);
      // identifiers are fetched again when asked for: an import may have added some
      set({ info, connections, identifiers: {} });
    } catch (e) {
      set({ notice: `Cannot refresh the tables: ${(e as Error).message}` });
    }
  },

  setAssembly(name) {
    set({ assembly: name });
  },

  async loadIdentifiers(table) {
    const { assembly } = get();
    const key = `${assembly}/${table}`;
    if (get().identifiers[key]) return;
    try {
      const ids = await backend().identifiers(assembly, table);
      set({ identifiers: { ...get().identifiers, [key]: ids } });
    } catch {
      // an unknown table has no identifiers; the query itself reports the error
    }
  },
});
