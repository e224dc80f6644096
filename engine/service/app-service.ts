/**
 * What the app's backend does in-process, independent of transport: the databases' metadata (info,
 * identifiers) and the results it holds (a Session: run, page, chart, export). The app's served
 * backends go through QueryService, which runs queries and their results on the executor's workers
 * and answers metadata from one of these.
 */
import { isWritable } from '../storage/source.js';
import type { AppInfo, AssemblyInfo, SummaryFunctionInfo, TableInfo } from '../contract.js';
import type { Engine } from '../engine.js';
import { OPERATIONS } from '../operations/index.js';
import { analyticsOf } from '../ops/stats/analytics.js';
import { textCells } from '../output/text-cells.js';
import { Session } from '../session/session.js';
import { rolesOf, type Source, tableRows } from '../storage/source.js';

export const VERSION = '0.1.0';

function tableInfo(db: Source, name: string): TableInfo {
  const t = db.table(name);
  const keys = t.kind === 'partitioned' ? db.partitionKeys(name) : [];
  return {
    name,
    kind: t.kind,
    timeColumn: t.timeColumn ?? null,
    idColumn: t.idColumn,
    columns: t.columns.map((c) => ({ name: c.name, type: c.type })),
    foreignKeys: t.foreignKeys,
    key: t.key ?? null,
    analytics: [...analyticsOf(t, db.config).keys()],
    // a kdb+ table's rows only once every partition's count has been read (the table list never opens them all)
    rows: db.knownRows ? (db.knownRows(name) ?? null) : tableRows(db, name),
    firstDate: keys[0] ?? null,
    lastDate: keys[keys.length - 1] ?? null,
  };
}

/** config.json's summary functions, defaults first (in their order), then the others. */
function summaryFunctionInfo(db: Source): SummaryFunctionInfo[] {
  const { summaryFunctions: fns, defaultSummaryFunctions: defaults } = db.config;
  const names = [...defaults, ...Object.keys(fns).filter((n) => !defaults.includes(n))];
  return names.map((name) => {
    const f = fns[name]!;
    return { name, kind: f.kind, adverse: f.adverse, doc: f.doc, tree: JSON.stringify(f.tree), isDefault: defaults.includes(name) };
  });
}

/** The roles of its tables, as data. */
function rolesInfo(db: Source): NonNullable<AssemblyInfo['roles']> {
  const r = rolesOf(db);
  return {
    trades: r.trades?.table.name ?? null,
    quotes: r.quotes?.table.name ?? null,
    columns: Object.fromEntries([...r.columns].map(([t, m]) => [t, Object.fromEntries(m)])),
  };
}

/** The app's backend in one process: the databases' metadata, and the results it holds (a Session). */
export class AppService extends Session {
  constructor(
    engine: Engine,
    readonly mode: 'electron' | 'browser',
    limits: {
      readonly maxResultBytes?: number;
      /** Threads an export may render on (the process's query workers setting; default every core). */
      readonly renderThreads?: number;
    } = {},
  ) {
    super(engine, limits);
  }

  /** Assemblies, their tables, and the operation registry (which drives the forms). */
  info(): AppInfo {
    return {
      version: VERSION,
      mode: this.mode,
      assemblies: this.engine.databases.map((db) => {
        db.refresh();
        return {
          name: db.name,
          kind: db.kind,
          readOnly: !isWritable(db),
          tables: [...db.schema.tables.keys()].map((n) => tableInfo(db, n)),
          filterRules: Object.keys(db.config.filterRules),
          summaryFunctions: summaryFunctionInfo(db),
          roles: rolesInfo(db),
        };
      }),
      operations: OPERATIONS,
    };
  }

  /** Identifiers stored in a table (from partition metadata), ascending. */
  identifiers(assembly: unknown, table: unknown): string[] {
    const db = this.engine.assembly(typeof assembly === 'string' && assembly ? { assembly } : undefined);
    db.refresh();
    const t = db.table(String(table));
    const ids = new Set<string>();
    if (t.kind === 'partitioned') {
      for (const key of db.partitionKeys(t.name)) for (const id of db.partition(t.name, key)!.idRanges.keys()) ids.add(id);
    } else {
      const p = db.reference(t.name);
      const c = p?.column(t.idColumn);
      if (c) for (let i = 0; i < (p?.rows ?? 0); i++) ids.add(textCells(c, 'UTC')(i));
    }
    ids.delete('');
    return [...ids].sort();
  }
}
