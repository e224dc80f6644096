/**
 * The engine: the mounted databases (assemblies) and the dispatch of a call to its operation.
 * Every gateway (CLI `call`, REST, q IPC, the app) goes through `Engine.call`.
 */
import { checkResultSize, resultBytes } from './core/result-limits.js';
import { argError, TickscopeError } from './core/errors.js';
import { checkSummaryFunctions } from './orders/summary.js';
import type { QueryResult } from './core/result.js';
import { runSplittable } from './parallel/split.js';
import { decodeArgs } from './registry/decode.js';
import { OPERATION_REGISTRY } from './operations/index.js';
import type { Operation } from './operations/operation.js';
import { scope } from './registry/args.js';
import type { Registry } from './registry/register.js';
import { type Mounted, type MountOptions, type MountSpec, openMount } from './storage/mount.js';
import { resolveRoles } from './storage/roles.js';
import type { Source } from './storage/source.js';

/** `S`: the kind of source it mounts (the served app mounts databases, which its workers open by folder). */
export class Engine<S extends Source = Source> {
  private readonly byName = new Map<string, S>();
  private readonly mounted: S[] = [];

  constructor(
    databases: readonly S[],
    /** The operations it dispatches to (the four of INTERFACE 4; a test may give a registry of its own). */
    private readonly operations: Registry<Operation> = OPERATION_REGISTRY,
  ) {
    if (databases.length === 0) throw new TickscopeError('badDatabase', 'no database mounted; give --db DIR');
    for (const db of databases) this.mount(db);
  }

  /** Opens database folders, each an assembly named by its folder: Tickscope databases or kdb+ ones (storage/mount.ts). */
  static open(dirs: ReadonlyArray<string | MountSpec>, operations: Registry<Operation> = OPERATION_REGISTRY, opts: MountOptions = {}): Engine<Mounted> {
    return new Engine(
      dirs.map((d) => openMount(typeof d === 'string' ? { dir: d } : d, opts)),
      operations,
    );
  }

  /** The mounted databases, in the order mounted. */
  get databases(): readonly S[] {
    return this.mounted;
  }

  /** Mounts another database (the app's Open database…); its name must be new. */
  mount(db: S): void {
    if (this.byName.has(db.name)) {
      throw new TickscopeError('badDatabase', `two databases are named ${db.name}; assemblies are named by folder, so mount folders with different names`);
    }
    db.checkConfig((config, where) => {
      checkSummaryFunctions(db.schema, config, where);
      resolveRoles(db.schema, config.roles, where);
    });
    this.byName.set(db.name, db);
    this.mounted.push(db);
  }

  /**
   * Puts a database opened again in the place of the mounted one of its name (its schema changed: a
   * table added by an import), keeping the order of the assemblies.
   */
  replace(db: S): void {
    const old = this.byName.get(db.name);
    if (!old) throw new TickscopeError('unknownAssembly', `${db.name} is not a mounted database; mounted: ${[...this.byName.keys()].join(', ')}`);
    db.checkConfig((config, where) => {
      checkSummaryFunctions(db.schema, config, where);
      resolveRoles(db.schema, config.roles, where);
    });
    this.byName.set(db.name, db);
    this.mounted[this.mounted.indexOf(old)] = db;
  }

  /** Unmounts a database by name (the app's Close); the first mounted stays. */
  unmount(name: string): S {
    const db = this.byName.get(name);
    if (!db) throw new TickscopeError('unknownAssembly', `${name} is not a mounted database; mounted: ${[...this.byName.keys()].join(', ')}`);
    if (db === this.mounted[0]) throw new TickscopeError('badRequest', `${name} is the first database mounted (the default assembly); it stays mounted`);
    this.byName.delete(name);
    this.mounted.splice(this.mounted.indexOf(db), 1);
    return db;
  }

  /** The default assembly (the first mounted). */
  get defaultDatabase(): S {
    return this.databases[0]!;
  }

  /** The assembly a scope names; an unknown name is an error listing the mounted ones. */
  assembly(given: Record<string, unknown> | undefined): S {
    if (!given) return this.defaultDatabase;
    for (const key of Object.keys(given)) {
      if (key !== 'assembly') throw argError('badValue', scope.name, given, `has key ${JSON.stringify(key)}`, 'an object with the key "assembly" only');
    }
    const name = given['assembly'];
    if (name === undefined || name === '') return this.defaultDatabase;
    if (typeof name !== 'string') throw argError('badValue', scope.name, given, 'has a non-string assembly', '{"assembly": "<name>"}');
    const db = this.byName.get(name);
    if (!db) {
      throw argError('unknownAssembly', `${scope.name}.assembly`, name, 'is not a mounted assembly', `one of ${[...this.byName.keys()].join(', ')}`);
    }
    return db;
  }

  /** Decodes, validates and runs an operation by any of its accepted names. */
  call(operation: string, rawArgs: unknown): QueryResult {
    const op = this.operations.byName(operation);
    const args = decodeArgs(op, rawArgs);
    const db = this.assembly(args.get(scope.name));
    // on the executor, a large call of an operation that splits runs across its idle workers (parallel/split.ts)
    const result = db.read(() => runSplittable(db, op.name, rawArgs, args, (d, a) => op.run(d, a)));
    // every operation's output within the limits, however its rows were made (SPEC 10)
    checkResultSize(result.table.length, resultBytes(result.table.defs, 1), `${op.name}: the result has`);
    return result;
  }
}
