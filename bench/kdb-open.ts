/**
 * The kdb-year case's open count (kdb-cases.ts), in a fresh process: what mounting a kdb+ HDB and
 * showing its table list touches on disk. Node's fs calls are wrapped before the engine runs (this is
 * a CommonJS bundle: the engine's calls go through the fs module's properties), and each phase's
 * calls counted by kind (folders listed, files stat'ed or checked, files opened) and by partition
 * folder (`<root>/YYYY.MM.DD`):
 *
 * 1. mount: Engine.open([dir]) (the layout scan, the tables' columns and types);
 * 2. table list: every table's name and columns (the schema the app's table list shows);
 * 3. app info(): AppService.info(), what the app fetches for its table list (each table with its
 *    rows, first and last date, analytics, and the roles).
 *
 * Argument: {"dir": "<hdb>"}. Output: one line of JSON, a KdbOpenCount.
 */
import fs from 'node:fs';
import { resolve, sep } from 'node:path';
import { Engine } from '../engine/engine.js';
import { AppService } from '../engine/service/app-service.js';

/** One phase's fs calls. */
export interface KdbOpenPhase {
  readonly name: string;
  readonly ms: number;
  /** Folders listed (readdir), and how many of them are partition folders or inside one. */
  readonly listed: number;
  readonly partitionsListed: number;
  /** Paths stat'ed or checked for existence, and the partitions they lie in. */
  readonly statted: number;
  readonly partitionsStatted: number;
  /** Files opened (open, readFile), and the partitions they lie in. */
  readonly opened: number;
  readonly partitionsOpened: number;
}

export interface KdbOpenCount {
  readonly partitions: number;
  readonly tables: Array<{ name: string; columns: number; rows: number | null }>;
  readonly phases: KdbOpenPhase[];
}

const { dir } = JSON.parse(process.argv[2]!) as { dir: string };
const root = resolve(dir);
const calls: Array<{ kind: 'list' | 'stat' | 'open'; path: string }> = [];
const wrap = (name: 'readdirSync' | 'statSync' | 'lstatSync' | 'existsSync' | 'openSync' | 'readFileSync', kind: 'list' | 'stat' | 'open'): void => {
  const f = fs[name] as (...a: unknown[]) => unknown;
  (fs as unknown as Record<string, unknown>)[name] = function (this: unknown, ...a: unknown[]): unknown {
    if (typeof a[0] === 'string') calls.push({ kind, path: resolve(a[0]) });
    return f.apply(this, a);
  };
};
wrap('readdirSync', 'list');
wrap('statSync', 'stat');
wrap('lstatSync', 'stat');
wrap('existsSync', 'stat');
wrap('openSync', 'open');
wrap('readFileSync', 'open');

/** The partition folder a path lies in (or is), or null. */
const PARTITION = /^(\d{4}\.\d{2}\.\d{2})(?:$|\/)/;
function partitionOf(path: string): string | null {
  if (!path.startsWith(root + sep)) return null;
  return PARTITION.exec(path.slice(root.length + 1))?.[1] ?? null;
}

const phases: KdbOpenPhase[] = [];
let t0 = performance.now();
function phase(name: string): void {
  const ms = performance.now() - t0;
  const of = (kind: 'list' | 'stat' | 'open'): { n: number; parts: number } => {
    const mine = calls.filter((c) => c.kind === kind);
    return { n: mine.length, parts: new Set(mine.map((c) => partitionOf(c.path)).filter((p) => p !== null)).size };
  };
  const list = of('list');
  const stat = of('stat');
  const open = of('open');
  phases.push({ name, ms, listed: list.n, partitionsListed: list.parts, statted: stat.n, partitionsStatted: stat.parts, opened: open.n, partitionsOpened: open.parts });
  calls.length = 0;
  t0 = performance.now();
}

const engine = Engine.open([root]);
phase('mount (Engine.open)');
const db = engine.defaultDatabase;
const list = [...db.schema.tables.keys()].map((name) => ({ name, columns: db.table(name).columns.length }));
phase('table list (names, columns)');
const info = new AppService(engine, 'browser').info();
phase("app info() (the app's table list: rows, dates, analytics, roles)");
const partitions = fs.readdirSync(root).filter((f) => PARTITION.test(f)).length;
const tables = list.map((t) => ({ ...t, rows: info.assemblies[0]!.tables.find((x) => x.name === t.name)?.rows ?? null }));
process.stdout.write(`${JSON.stringify({ partitions, tables, phases } satisfies KdbOpenCount)}\n`);
