/**
 * Where history and saved queries live: the page's IndexedDB (SPEC 9's browser mode; the desktop
 * window's IndexedDB is inside the app's user data folder too, see docs/decisions.md). A page
 * without IndexedDB (a private window that refuses it) keeps them in memory for the session.
 */
import { HISTORY_LIMIT, type HistoryEntry, type SavedQuery } from './history';

export interface AppMemory {
  /** The history, newest first. */
  history(): Promise<HistoryEntry[]>;
  record(entry: HistoryEntry): Promise<void>;
  clearHistory(): Promise<void>;
  saved(): Promise<SavedQuery[]>;
  /** Replaces every saved query. */
  setSaved(list: readonly SavedQuery[]): Promise<void>;
}

const DB = 'tickscope';
const HISTORY = 'history';
const SAVED = 'saved';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

function open(): Promise<IDBDatabase> {
  const r = indexedDB.open(DB, 1);
  r.onupgradeneeded = () => {
    const db = r.result;
    // history entries by start time (their keys), saved queries by name
    if (!db.objectStoreNames.contains(HISTORY)) db.createObjectStore(HISTORY, { keyPath: 'id' }).createIndex('startedAt', 'startedAt');
    if (!db.objectStoreNames.contains(SAVED)) db.createObjectStore(SAVED, { keyPath: 'name' });
  };
  return request(r);
}

class IndexedMemory implements AppMemory {
  constructor(private readonly db: IDBDatabase) {}

  private store(name: string, mode: IDBTransactionMode): IDBObjectStore {
    return this.db.transaction(name, mode).objectStore(name);
  }

  async history(): Promise<HistoryEntry[]> {
    const all = (await request(this.store(HISTORY, 'readonly').index('startedAt').getAll())) as HistoryEntry[];
    return all.reverse();
  }

  async record(entry: HistoryEntry): Promise<void> {
    const store = this.store(HISTORY, 'readwrite');
    await request(store.put(entry));
    // the oldest beyond the limit go (the index walks oldest first)
    const count = await request(store.count());
    if (count <= HISTORY_LIMIT) return;
    let extra = count - HISTORY_LIMIT;
    await new Promise<void>((resolve, reject) => {
      const cursor = store.index('startedAt').openCursor();
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c || extra <= 0) return resolve();
        c.delete();
        extra--;
        c.continue();
      };
      cursor.onerror = () => reject(cursor.error ?? new Error('IndexedDB cursor failed'));
    });
  }

  async clearHistory(): Promise<void> {
    await request(this.store(HISTORY, 'readwrite').clear());
  }

  async saved(): Promise<SavedQuery[]> {
    const all = (await request(this.store(SAVED, 'readonly').getAll())) as SavedQuery[];
    return all.sort((a, b) => a.name.localeCompare(b.name));
  }

  async setSaved(list: readonly SavedQuery[]): Promise<void> {
    const store = this.store(SAVED, 'readwrite');
    await request(store.clear());
    for (const q of list) await request(store.put(q));
  }
}

/** Memory for the session only. */
export class SessionMemory implements AppMemory {
  private entries: HistoryEntry[] = [];
  private queries: SavedQuery[] = [];

  history(): Promise<HistoryEntry[]> {
    return Promise.resolve([...this.entries]);
  }

  record(entry: HistoryEntry): Promise<void> {
    this.entries = [entry, ...this.entries].slice(0, HISTORY_LIMIT);
    return Promise.resolve();
  }

  clearHistory(): Promise<void> {
    this.entries = [];
    return Promise.resolve();
  }

  saved(): Promise<SavedQuery[]> {
    return Promise.resolve([...this.queries]);
  }

  setSaved(list: readonly SavedQuery[]): Promise<void> {
    this.queries = [...list];
    return Promise.resolve();
  }
}

let memory: Promise<AppMemory> | null = null;

/** The page's memory (opened once). */
export function appMemory(): Promise<AppMemory> {
  memory ??= (typeof indexedDB === 'undefined' ? Promise.reject(new Error('no IndexedDB')) : open().then((db) => new IndexedMemory(db))).catch(() => new SessionMemory());
  return memory;
}
