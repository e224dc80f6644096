/**
 * The registry of operations: each operation's module (engine/operations/) declares it whole and it is
 * registered here through one guarded register(), which refuses a declaration that contradicts itself
 * or another. Lookups by any accepted name and by REST path. Generic over what an operation carries
 * beyond its data (its implementation), so this floor knows nothing of the ones above it.
 */
import { TickscopeError } from '../core/errors.js';
import { ALL_ARGS } from './args.js';
import type { ArgSpec, OperationSpec } from './types.js';

export class Registry<Op extends OperationSpec> {
  /** Each argument's type by name: the shared declarations', then those operations declare as their own. */
  private readonly declared: Map<string, { readonly type: ArgSpec['type']; readonly where: string }>;
  private readonly byNames = new Map<string, Op>();
  private readonly byPaths = new Map<string, Op>();
  private readonly list: Op[] = [];

  /**
   * `args`: the arguments declared for every operation to share (`registry/args.ts`). An operation
   * may declare arguments of its own besides (in its module); one name is one type everywhere.
   */
  constructor(args: readonly ArgSpec[] = ALL_ARGS) {
    this.declared = new Map(args.map((a) => [a.name, { type: a.type, where: 'registry/args.ts' }]));
  }

  /** The operations, in the order they were registered. */
  get all(): readonly Op[] {
    return this.list;
  }

  /**
   * Registers an operation, refusing a declaration that contradicts itself or another: a name or REST
   * path taken, an argument twice, an argument of another type than where its name is declared (the
   * shared declarations or another operation's own), a relation to an argument the operation lacks,
   * a range on a non-integer.
   */
  register(op: Op): void {
    const bad = (what: string): never => {
      throw new Error(`operation ${op.name}: ${what}`);
    };
    for (const n of op.ipcNames) if (this.byNames.has(n)) bad(`the name ${n} is taken by ${this.byNames.get(n)!.name}`);
    for (const p of op.restPaths) if (this.byPaths.has(p)) bad(`the REST path ${p} is taken by ${this.byPaths.get(p)!.name}`);
    const names = new Set<string>();
    for (const a of op.args) {
      if (names.has(a.name)) bad(`argument ${a.name} is declared twice`);
      names.add(a.name);
      const d = this.declared.get(a.name);
      if (d && d.type !== a.type) bad(`argument ${a.name} is ${a.type} here but ${d.type} in ${d.where}`);
      if (a.range && a.type !== 'integer') bad(`argument ${a.name} has a range but is not an integer`);
    }
    for (const a of op.args) for (const n of a.requires?.args ?? []) if (!names.has(n)) bad(`argument ${a.name} requires ${n}, which it does not declare`);
    for (const a of op.args) for (const n of a.excludes?.args ?? []) if (!names.has(n)) bad(`argument ${a.name} excludes ${n}, which it does not declare`);
    const timed = op.remoteResult.timeColumn;
    for (const key of [op.buckets?.unit, op.buckets?.size, op.buckets?.moving, op.remoteResult.groupColumns?.arg, typeof timed === 'object' ? timed.whenGiven : undefined]) if (key !== undefined && !names.has(key)) bad(`it names ${key}, which it does not declare`);
    for (const a of op.args) if (!this.declared.has(a.name)) this.declared.set(a.name, { type: a.type, where: op.name });
    for (const n of op.ipcNames) this.byNames.set(n, op);
    for (const p of op.restPaths) this.byPaths.set(p, op);
    this.list.push(op);
  }

  /** The operation a name refers to (any accepted IPC name, or the plain name); unknown is an error. */
  byName(name: string): Op {
    const op = this.byNames.get(name);
    if (!op) {
      throw new TickscopeError(
        'unknownOperation',
        `operation: ${JSON.stringify(name)} is not an operation; expected one of ${[...this.byNames.keys()].join(', ')}`,
      );
    }
    return op;
  }

  /** The operation served at a REST path, or undefined. */
  byRestPath(path: string): Op | undefined {
    return this.byPaths.get(path);
  }
}
