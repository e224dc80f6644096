/** An operation as the engine holds it: its declaration (data the app and the docs receive) and its implementation. */
import type { QueryResult } from '../core/result.js';
import type { DecodedArgs, ValuesOf } from '../registry/decode.js';
import type { ArgSpec, OperationSpec } from '../registry/types.js';
import type { Source } from '../storage/source.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an operation of any declaration, as the registry holds it
export interface Operation<V extends object = any> extends OperationSpec {
  /**
   * Runs it against one database with its decoded arguments (defaults applied, declared checks
   * passed), typed by its declaration (`ArgsOf`): it reads only the arguments it declares.
   */
  readonly run: (db: Source, args: DecodedArgs<V>) => QueryResult;
}

/** An operation whose `run` reads the arguments its declaration lists (`ArgsOf` them), and no other. */
export type OperationOf<L extends readonly ArgSpec[]> = Operation<ValuesOf<L[number]>>;

/** The declaration alone, as data (what getMeta, the app's forms and the docs receive). */
export function specOf(op: Operation): OperationSpec {
  const { run: _run, ...spec } = op;
  return spec;
}
