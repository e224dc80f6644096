/**
 * Instruments' tick sizes, for the grid's price columns: read once per connection and assembly from
 * the reference table that holds them (Instrument's tickSize, SPEC 3.1), through the same getTicks any
 * script would run, so a remote gateway's Instrument serves as well as the embedded engine's.
 */
import { ARG, type BackendApi, type TableInfo } from '../../../engine/contract';
import { tickDecimals } from './number-format';

/** Tick sizes by identifier, and the identifier column they are keyed by. */
export interface TickSizes {
  readonly key: string;
  readonly sizes: ReadonlyMap<string, number>;
}

/** The reference table and columns holding tick sizes: a key column and a float `tickSize`. */
export function tickSource(tables: readonly TableInfo[]): { readonly table: string; readonly key: string } | null {
  const ref = tables
    .filter((t) => t.kind === 'reference' && t.columns.some((c) => c.name === 'tickSize' && c.type === 'float'))
    .sort((a, b) => (a.name === 'Instrument' ? -1 : b.name === 'Instrument' ? 1 : 0))[0];
  const key = ref?.key ?? ref?.idColumn;
  return ref && key ? { table: ref.name, key } : null;
}

/** Most tick-size decimals among identifiers (null when none of them has a known tick size). */
export function tickDecimalsOf(ids: readonly string[], ticks: TickSizes | null): number | null {
  if (!ticks) return null;
  let most: number | null = null;
  for (const id of ids) {
    const t = ticks.sizes.get(id);
    if (t === undefined) continue;
    const d = tickDecimals(t);
    if (most === null || d > most) most = d;
  }
  return most;
}

/** Rows a page request may ask for (the backend's limit). */
const PAGE_LIMIT = 10_000;
/** Reference tables larger than this are not read for tick sizes. */
const MAX_INSTRUMENTS = 200_000;

async function readTickSizes(api: BackendApi, operation: string, assembly: string | null, table: string, key: string): Promise<TickSizes | null> {
  const args: Record<string, unknown> = { [ARG.table.name]: table, [ARG.columns.name]: [key, 'tickSize'] };
  if (assembly) args[ARG.scope.name] = { assembly };
  const r = await api.run(operation, args);
  if (!r.ok || r.rows > MAX_INSTRUMENTS) return null;
  const sizes = new Map<string, number>();
  for (let off = 0; off < r.rows; off += PAGE_LIMIT) {
    for (const [id, tick] of (await api.page(r.resultId, off, PAGE_LIMIT)).rows) {
      const t = Number(tick);
      if (id && tick && t > 0 && Number.isFinite(t)) sizes.set(id, t);
    }
  }
  return { key, sizes };
}

const cache = new Map<string, Promise<TickSizes | null>>();

/**
 * The tick sizes of a connection's assembly (read once and kept; null when it holds none or they
 * cannot be read), read by `operation` (getTicks' call name). `assembly` is null for the connection's
 * default assembly.
 */
export function tickSizes(api: BackendApi, operation: string, connection: string, assembly: string | null, tables: readonly TableInfo[]): Promise<TickSizes | null> {
  const source = tickSource(tables);
  if (!source) return Promise.resolve(null);
  const id = `${connection}\u0000${assembly ?? ''}\u0000${source.table}`;
  let p = cache.get(id);
  if (!p) {
    // a failed read is tried again by the next result
    p = readTickSizes(api, operation, assembly, source.table, source.key).catch(() => {
      cache.delete(id);
      return null;
    });
    cache.set(id, p);
  }
  return p;
}
