/**
 * `tickscope info --db DIR`: what a mounted database holds, for either kind, from metadata only (a
 * Tickscope database's partition metadata; a kdb+ database's file headers and trailers): its tables,
 * rows per partition, columns with their types (and a kdb+ column's q type, compression and
 * attribute), its roles, and what is missing where.
 */
import { describeKdbTable, type KdbColumnReport } from './kdb/describe.js';
import { KdbSource } from './kdb/source.js';
import type { Mounted } from './mount.js';
import { isWritable, rolesOf } from './source.js';

export interface ColumnInfoReport {
  readonly name: string;
  /** Tickscope's type. */
  readonly type: string;
  /** kdb+ only: what its files are (kdb/describe.ts). */
  readonly kdb?: Omit<KdbColumnReport, 'name'>;
}

export interface TableInfoReport {
  readonly name: string;
  readonly kind: 'partitioned' | 'reference';
  readonly timeColumn: string | null;
  readonly idColumn: string;
  readonly rows: number;
  /** Rows per partition key (a reference table: one entry, key null). */
  readonly partitions: ReadonlyArray<{ readonly key: string | null; readonly rows: number }>;
  readonly columns: readonly ColumnInfoReport[];
  /** kdb+ only: columns its `.d` lists that no partition has a file for, or of no Tickscope type. */
  readonly leftOut?: readonly string[];
}

export interface DatabaseInfoReport {
  readonly name: string;
  readonly dir: string;
  readonly kind: 'tickscope' | 'kdb' | 'memory';
  readonly readOnly: boolean;
  /** A kdb+ database's zone and settings file (null: none, roles guessed). */
  readonly zone?: string;
  readonly settings?: string | null;
  /** Roles: the trades and quotes tables, and each table's role -> column. */
  readonly roles: { readonly trades: string | null; readonly quotes: string | null; readonly columns: Record<string, Record<string, string>> };
  readonly tables: readonly TableInfoReport[];
}

/** The report of a mounted database. */
export function databaseInfo(db: Mounted): DatabaseInfoReport {
  const roles = rolesOf(db);
  const tables = [...db.schema.tables.values()].map((t): TableInfoReport => {
    const kdb = db instanceof KdbSource ? describeKdbTable(db, t.name) : undefined;
    const partitions = kdb
      ? kdb.rows
      : t.kind === 'reference' || !t.timeColumn
        ? [{ key: null, rows: db.reference(t.name)?.rows ?? 0 }]
        : db.partitionKeys(t.name).map((key) => ({ key, rows: db.partition(t.name, key)?.rows ?? 0 }));
    return {
      name: t.name,
      kind: t.kind,
      timeColumn: t.timeColumn ?? null,
      idColumn: t.idColumn,
      rows: partitions.reduce((s, p) => s + p.rows, 0),
      partitions,
      columns: t.columns.map((c) => {
        const k = kdb?.columns.find((x) => x.name === c.name);
        return { name: c.name, type: c.type, ...(k ? { kdb: { qTypes: k.qTypes, compression: k.compression, attributes: k.attributes, missingIn: k.missingIn, damaged: k.damaged } } : {}) };
      }),
      ...(kdb ? { leftOut: kdb.leftOut } : {}),
    };
  });
  return {
    name: db.name,
    dir: db.dir,
    kind: db.kind,
    readOnly: !isWritable(db),
    ...(db instanceof KdbSource ? { zone: db.zone, settings: db.settingsFile ?? null } : {}),
    roles: {
      trades: roles.trades?.table.name ?? null,
      quotes: roles.quotes?.table.name ?? null,
      columns: Object.fromEntries([...roles.columns].map(([t, m]) => [t, Object.fromEntries(m)])),
    },
    tables,
  };
}

/** Partitions listed in full up to this many; more are summarised (first, last, count). */
const LISTED_PARTITIONS = 12;

/** The report as text for a terminal. */
export function formatDatabaseInfo(r: DatabaseInfoReport): string {
  const n = (v: number): string => v.toLocaleString('en-US');
  const out: string[] = [];
  const what = r.kind === 'kdb' ? 'a kdb+ database, read in place (read-only)' : r.kind === 'tickscope' ? 'a Tickscope database' : 'an in-memory source';
  out.push(`${r.name}: ${what}`, `  folder   ${r.dir}`);
  if (r.kind === 'kdb') out.push(`  zone     ${r.zone}`, `  settings ${r.settings ?? 'none (roles guessed from column names)'}`);
  const roleText = (t: string | null): string => (t ? `${t} (${Object.entries(r.roles.columns[t] ?? {}).map(([role, c]) => `${role}=${c}`).join(', ')})` : 'none');
  out.push(`  trades   ${roleText(r.roles.trades)}`, `  quotes   ${roleText(r.roles.quotes)}`);
  for (const t of r.tables) {
    out.push('');
    const time = t.kind === 'partitioned' ? `time column ${t.timeColumn}, identifier ${t.idColumn}` : `key ${t.idColumn}`;
    out.push(`${t.name}  (${t.kind}; ${time}): ${n(t.rows)} rows${t.kind === 'partitioned' ? ` in ${t.partitions.length} partition${t.partitions.length === 1 ? '' : 's'}` : ''}`);
    if (t.kind === 'partitioned' && t.partitions.length > 0) {
      const shown = t.partitions.length <= LISTED_PARTITIONS ? t.partitions : [...t.partitions.slice(0, 3), null, ...t.partitions.slice(-3)];
      out.push(`  rows: ${shown.map((p) => (p ? `${p.key} ${n(p.rows)}` : `… (${t.partitions.length - 6} more)`)).join(' · ')}`);
    }
    const kdb = t.columns.some((c) => c.kdb);
    const rows = t.columns.map((c) => [
      c.name,
      c.type,
      ...(kdb ? [c.kdb ? c.kdb.qTypes.join(' / ') || '-' : '(partition)', c.kdb ? c.kdb.compression.join(' / ') || '-' : '', c.kdb?.attributes.join(' ') ?? '', c.kdb?.missingIn.length ? `missing in ${c.kdb.missingIn.join(', ')} (nulls there)` : ''] : []),
    ]);
    const head = ['column', 'type', ...(kdb ? ['q type', 'compression', 'attr', ''] : [])];
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const line = (cells: readonly string[]): string => `  ${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd();
    out.push(line(head), ...rows.map(line));
    if (t.leftOut?.length) out.push(`  left out: ${t.leftOut.join(', ')} (listed in .d; no file in any partition, or no Tickscope type)`);
    for (const c of t.columns) for (const d of c.kdb?.damaged ?? []) out.push(`  damaged: ${d}`);
  }
  return `${out.join('\n')}\n`;
}
